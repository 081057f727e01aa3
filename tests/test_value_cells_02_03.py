"""Chapters 2-3: the on-screen Value cells run on their own and agree with the package.

(The chapters' curriculum numbers are pinned in test_curriculum.py.)
"""

import ast
import math
import sys

import pytest
from notebook_outputs import load

from micrograd_lesson import Value as PackageValue


def value_cells(prefix):
    return [
        "".join(c["source"])
        for c in load(prefix)["cells"]
        if c["cell_type"] == "code" and "defines-value" in c["metadata"].get("tags", [])
    ]


@pytest.mark.parametrize("prefix", ["02", "03"])
def test_value_cells_import_only_the_standard_library(prefix):
    cells = value_cells(prefix)
    assert cells, f"chapter {prefix} has no cell tagged defines-value"
    for source in cells:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in sys.stdlib_module_names, f"chapter {prefix} imports {name}"


def screen_value(prefix):
    """The last Value class the chapter defines on screen, run on its own."""
    namespace = {}
    for source in value_cells(prefix):
        exec(compile(source, f"<chapter {prefix} defines-value>", "exec"), namespace)
    return namespace["Value"]


def example_graph(V):
    a, b, c, f = V(2.0, label="a"), V(-3.0, label="b"), V(10.0, label="c"), V(-2.0, label="f")
    e = a * b
    d = e + c
    return a, b, c, f, e, d, d * f


@pytest.mark.parametrize("prefix", ["02", "03"])
def test_screen_value_builds_the_same_graph_as_the_package(prefix):
    mine = example_graph(screen_value(prefix))
    theirs = example_graph(PackageValue)
    for m, t in zip(mine, theirs):
        assert m.data == t.data
        assert m._op == t._op
        assert isinstance(m._prev, tuple)
        assert [p.data for p in m._prev] == [p.data for p in t._prev]
    assert mine[-1].data == -8.0
    s = mine[0] + mine[0]
    assert len(s._prev) == 2  # a tuple keeps both uses of a


def test_chapter_3_value_backpropagates_by_hand_like_the_package():
    V = screen_value("03")
    x1, x2, w1, w2 = V(2.0), V(0.0), V(-3.0), V(1.0)
    b = V(6.8813735870195432)
    n = (x1 * w1 + x2 * w2) + b
    o = n.tanh()
    assert o._op == "tanh" and o._prev == (n,)
    assert all(v.grad == 0.0 for v in (x1, x2, w1, w2, b, n, o))
    assert math.isclose(o.data, 1 / math.sqrt(2))

    px1, px2, pw1, pw2 = PackageValue(2.0), PackageValue(0.0), PackageValue(-3.0), PackageValue(1.0)
    po = ((px1 * pw1 + px2 * pw2) + PackageValue(6.8813735870195432)).tanh()
    po.backward()
    assert po.data == o.data
    # the chapter's hand-written chain rule, checked against the package's backward()
    n_grad = 1 - o.data**2
    assert [w1.data * n_grad, x1.data * n_grad, w2.data * n_grad, x2.data * n_grad] == pytest.approx(
        [px1.grad, pw1.grad, px2.grad, pw2.grad]
    )
    assert (px1.grad, pw1.grad, px2.grad, pw2.grad) == pytest.approx((-1.5, 1.0, 0.5, 0.0))
