"""Chapter 11's pictures of tensors: shapes drawn to scale, a broadcast and its summed gradient, and
a tensor graph with one box per tensor.

    from micrograd_lesson.show.tensors import draw_broadcast_sum, draw_matmul_shapes, draw_tensor_graph

Each says in words what it shows (its alt text), for a reader who cannot see it. The two diagrams
are matplotlib figures (show them with plt.show()); the graph is a Drawing, like draw_dot's.
"""

import graphviz
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from .draw import Drawing
from .plots import describe_figure

# Light tints, one per shape: blue for A's shape, orange for B's, green for C's (and the gradient's).
A_COLOUR, B_COLOUR, C_COLOUR = "#9ecae1", "#fdae6b", "#c7e9c0"
COPY_COLOUR = "#fdd0a2"  # a broadcast copy: a lighter orange than the original


def _box(ax, x, y, rows, cols, name, colour):
    """A rows x cols box whose top-left corner is (x, y), labelled with its name and shape; returns
    the x just right of it."""
    ax.add_patch(Rectangle((x, y - rows), cols, rows, facecolor=colour, edgecolor="k", alpha=0.8))
    ax.text(x + cols / 2, y - rows / 2, name, ha="center", va="center", fontsize=13)
    ax.text(x + cols / 2, y - rows - 0.45, f"({rows}, {cols})", ha="center", va="center", fontsize=10)
    return x + cols


def draw_matmul_shapes(m, n, p):
    """C = A @ B with A (m, n) and B (n, p), and the two gradients dA = G @ B.T and dB = A.T @ G,
    each matrix a box drawn to its shape: the figure."""
    rows = [
        (
            "forward:  C = A @ B",
            [("A", m, n, A_COLOUR), "@", ("B", n, p, B_COLOUR), "=", ("C", m, p, C_COLOUR)],
        ),
        ("dA = G @ B.T", [("G", m, p, C_COLOUR), "@", ("B.T", p, n, B_COLOUR), "=", ("dA", m, n, A_COLOUR)]),
        ("dB = A.T @ G", [("A.T", n, m, A_COLOUR), "@", ("G", m, p, C_COLOUR), "=", ("dB", n, p, B_COLOUR)]),
    ]
    tallest = max(m, n, p)
    fig, axes = plt.subplots(1, 3, figsize=(10, 2.8))
    for ax, (title, items) in zip(axes, rows):
        x = 0.0
        for item in items:
            if isinstance(item, str):  # an operator between two boxes
                ax.text(x + 0.5, -1.5, item, ha="center", va="center", fontsize=16)
                x += 1.0
            else:
                x = _box(ax, x, 0, *item[1:3], item[0], item[3])
        ax.set_xlim(-0.3, x + 0.3)
        ax.set_ylim(-tallest - 1.2, 0.6)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(title)
    fig.tight_layout()
    return describe_figure(
        fig,
        "Boxes drawn to the shapes of the matrices, each labelled with its name and shape: C = A @ B "
        f"with A ({m}, {n}) and B ({n}, {p}); dA = G @ B.T and dB = A.T @ G. Every gradient has the "
        "shape of the matrix it belongs to.",
        axes=False,  # a diagram: its axes are hidden, and their ranges would say nothing
    )


def draw_broadcast_sum(gradient):
    """A bias b of shape (cols,) copied to each of the rows of a (rows, cols) result, and the
    `gradient` arriving at that result summed down its rows to b.grad: the figure."""
    gradient = np.asarray(gradient, dtype=float)
    rows, cols = gradient.shape
    sums = gradient.sum(axis=0)
    fig, (ax_fwd, ax_bwd) = plt.subplots(1, 2, figsize=(11, 3.2))
    width = cols + 1 + 0.9 * cols + 0.5
    for ax, title in (
        (ax_fwd, f"forward: b ({cols},) is copied to every row"),
        (ax_bwd, "backward: b.grad sums its copies' gradients"),
    ):
        ax.set_title(title)
        ax.axis("off")
        ax.set_xlim(-0.5, width)
        ax.set_ylim(-rows - 2.2, 1.2)
        ax.set_aspect("equal")
    right = cols + 1  # where the second group of boxes starts
    for j in range(cols):
        ax_fwd.add_patch(Rectangle((j, 0), 1, 1, facecolor=B_COLOUR, edgecolor="k"))
        ax_fwd.text(j + 0.5, 0.5, f"b{j}", ha="center", va="center")
        for i in range(rows):
            ax_fwd.add_patch(
                Rectangle((right + j * 0.9, -1 - i), 0.9, 1, facecolor=COPY_COLOUR, edgecolor="k")
            )
            ax_fwd.text(right + 0.45 + j * 0.9, -0.5 - i, f"b{j}", ha="center", va="center", fontsize=9)
            ax_bwd.add_patch(Rectangle((j, -1 - i), 1, 1, facecolor=C_COLOUR, edgecolor="k"))
            ax_bwd.text(j + 0.5, -0.5 - i, f"{gradient[i, j]:g}", ha="center", va="center")
        ax_bwd.add_patch(Rectangle((right + j * 0.9, -rows), 0.9, 1, facecolor=B_COLOUR, edgecolor="k"))
        ax_bwd.text(right + 0.45 + j * 0.9, -rows + 0.5, f"{sums[j]:g}", ha="center", va="center")
    ax_fwd.annotate("", xy=(right - 0.1, -1.5), xytext=(cols + 0.1, 0.5), arrowprops={"arrowstyle": "->"})
    ax_fwd.text(right, -rows - 1.5, f"{rows} copies of b, one per row", fontsize=9)
    ax_bwd.annotate(
        "", xy=(right - 0.1, -rows + 0.5), xytext=(cols + 0.1, -1.5), arrowprops={"arrowstyle": "->"}
    )
    ax_bwd.text(0.0, -rows - 1.5, f"G: gradient at ({rows}, {cols})", fontsize=9)
    ax_bwd.text(right, -rows - 1.0, f"sum down the rows: ({cols},)", fontsize=9)
    fig.tight_layout()
    numbers = ", ".join(f"{v:g}" for v in gradient.ravel())
    return describe_figure(
        fig,
        f"Left: the forward pass copies b into each of the {rows} rows. Right: the gradient at the "
        f"({rows}, {cols}) result, the numbers {numbers}, is summed down the rows to b.grad = "
        f"[{', '.join(f'{v:g}' for v in sums)}].",
        axes=False,  # a diagram: its axes are hidden, and their ranges would say nothing
    )


def draw_tensor_graph(root):
    """The graph that produced the Tensor `root`, top down: each tensor a box with its operation (or
    kind of leaf: parameter in green, constant in grey) and its shape, an arrow from each input."""
    # size, in inches, keeps the drawing inside a laptop's notebook area (840 x 600 px)
    dot = graphviz.Digraph(
        graph_attr={"rankdir": "TB", "nodesep": "0.15", "ranksep": "0.25", "size": "8.75,6.25"}
    )
    dot.attr("node", shape="box", fontsize="11", height="0.25", style="filled", fontname="Helvetica")
    number = {}  # tensor -> its node name in the drawing, in topological order
    for node in root.topological_order():
        number[node] = str(len(number))
        if node._prev:
            label, colour = f"{node._op}  {node.shape}", "white"
        elif node.requires_grad:
            label, colour = f"parameter {node.shape}", C_COLOUR
        else:
            label, colour = f"constant {node.shape}", "#dddddd"
        dot.node(number[node], label, fillcolor=colour)
        for child in node._prev:
            dot.edge(number[child], number[node])
    kinds = ["operation" if n._prev else "parameter" if n.requires_grad else "constant" for n in number]
    loss = "a single number" if root.shape == () else f"of shape {root.shape}"
    alt = (  # what the drawing shows, for a reader who cannot see it
        f"The tensor graph, top down: {len(number)} boxes, one per tensor, each with its operation "
        f"and shape: {kinds.count('operation')} operations, {kinds.count('parameter')} parameters "
        f"(green) and {kinds.count('constant')} constants (grey), ending in the output, {loss}."
    )
    return Drawing(dot, f"<tensor graph: {len(number)} tensors>", alt, alt=alt)
