"""Chapter 11's pictures of tensors (micrograd_lesson/show/tensors.py): drawn to the shapes they
name, and saying in words what they show. Drawn with the Agg backend (see conftest.py)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Rectangle

from micrograd_lesson.show.plots import figure_text
from micrograd_lesson.show.tensors import draw_broadcast_sum, draw_matmul_shapes, draw_tensor_graph
from micrograd_lesson.tensor import Tensor
from micrograd_lesson.tensor_nn import MLP


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def boxes(ax):
    """{label: (width, height)} of the labelled boxes on ax (a box's label is the text at its centre)."""
    found = {}
    for patch in ax.patches:
        if isinstance(patch, Rectangle):
            x, y, w, h = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
            for text in ax.texts:
                if np.allclose(text.get_position(), (x + w / 2, y + h / 2)):
                    found[text.get_text()] = (w, h)
    return found


@pytest.mark.parametrize("m, n, p", [(2, 3, 4), (5, 1, 2)])
def test_each_matrix_is_a_box_of_its_shape_and_each_gradient_has_its_matrix_shape(m, n, p):
    fig = draw_matmul_shapes(m, n, p)
    forward, d_a, d_b = (boxes(ax) for ax in fig.axes)
    assert forward == {"A": (n, m), "B": (p, n), "C": (p, m)}  # (width, height) = (columns, rows)
    assert d_a == {"G": (p, m), "B.T": (n, p), "dA": (n, m)}
    assert d_b == {"A.T": (m, n), "G": (p, m), "dB": (p, n)}
    assert [ax.get_title() for ax in fig.axes] == ["forward:  C = A @ B", "dA = G @ B.T", "dB = A.T @ G"]
    words = figure_text(fig)
    assert f"A ({m}, {n}) and B ({n}, {p})" in words
    assert "axis" not in words  # a diagram's hidden axes are not described


def test_the_broadcast_picture_sums_the_gradient_down_the_rows():
    gradient = np.arange(1.0, 13.0).reshape(3, 4)
    fig = draw_broadcast_sum(gradient)
    ax_fwd, ax_bwd = fig.axes
    shown = [t.get_text() for t in ax_bwd.texts]
    assert shown[:2] == ["1", "5"]  # row by row down each column, then the column's sum
    assert [s for s in shown if s in ("15", "18", "21", "24")] == ["15", "18", "21", "24"]
    copies = [t.get_text() for t in ax_fwd.texts if t.get_text().startswith("b")]
    assert len(copies) == 4 + 3 * 4  # b itself, then one copy per row
    words = figure_text(fig)
    assert "b.grad = [15, 18, 21, 24]" in words and "3 rows" in words
    assert "axis" not in words


def test_the_tensor_graph_has_a_box_per_tensor_and_says_what_kinds():
    X = np.ones((5, 2))
    model = MLP(2, [3, 1], seed=0)
    loss = (1 - model(X)).relu().mean()
    drawing = draw_tensor_graph(loss)
    nodes = loss.topological_order()
    assert drawing.graph.source.count("fillcolor") == len(nodes)
    operations = sum(1 for node in nodes if node._prev)
    parameters = sum(1 for node in nodes if not node._prev and node.requires_grad)
    assert f"{len(nodes)} boxes" in drawing.alt
    assert f"{operations} operations, {parameters} parameters (green)" in drawing.alt
    assert drawing.alt.endswith("ending in the output, a single number.")
    assert "ending in the output, of shape (5, 1)." in draw_tensor_graph(model(X)).alt
    assert repr(drawing) == f"<tensor graph: {len(nodes)} tensors>"


def test_a_tensor_graph_names_its_leaves_by_kind():
    w = Tensor(np.ones(3), requires_grad=True)
    source = draw_tensor_graph((w * np.arange(3.0)).sum()).graph.source
    assert "parameter (3,)" in source and "constant (3,)" in source and "sum  ()" in source
