"""Chapters 1-3: the curriculum's numbers are in the stored outputs, and the on-screen Value is sound.

nbval already re-runs each notebook and compares it with its stored outputs; these tests
pin what those outputs must *say*, so an edit that loses a curriculum number fails here.
"""

import ast
import json
import math
import re
import sys
from pathlib import Path

import pytest

from micrograd_lesson import Value as PackageValue

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def load(prefix):
    (path,) = NOTEBOOKS.glob(f"{prefix}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))


def text_outputs(nb):
    """Everything a code cell printed or returned as text, one string."""
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def row(*cells):
    """A regex for a table row made of these cells separated by spaces."""
    return r"^\s*" + r"\s+".join(re.escape(c) for c in cells) + r"\s*$"


# Each pattern is a curriculum number as the chapter prints it.
EXPECTED = {
    "01": [
        re.escape("f(3) = 20.0000"),
        re.escape("x = 0.6667   slope by nudging = 0.0000"),  # slope ~ 0 at x = 2/3
        re.escape("d = 4.0000"),
        re.escape("dd/da ~ -3.0000"),
        re.escape("dd/db ~ 2.0000"),
        re.escape("dd/dc ~ 1.0000"),
        re.escape("forward: error falls like h^1.00"),
        re.escape("central: error falls like h^2.00"),
        re.escape("parameters: 41"),
        re.escape("evaluations for one gradient by nudging: 42"),
        re.escape("1,000,000 parameters: nudging needs 1,000,001 evaluations"),
        row("0.6667", "0.0000", "-0.0000", "0.0000"),  # symbolic, numerical, automatic at x = 2/3
        row("3.0000", "14.0000", "14.0000", "14.0000"),
    ],
    "02": [
        re.escape("L = -8.0000"),
        re.escape("<computation graph: 7 values, 3 operations; L = -8.0000>"),
        re.escape("leaves: a, b, c, f"),
        re.escape("inputs remembered in the tuple: 2"),
        re.escape("AttributeError: 'int' object has no attribute 'data'"),
    ],
    "03": [
        row("L", "1.0000", "1.0000"),
        row("d", "-2.0000", "-2.0000"),
        row("f", "4.0000", "4.0000"),
        row("e", "-2.0000", "-2.0000"),
        row("c", "-2.0000", "-2.0000"),
        row("a", "6.0000", "6.0000"),
        row("b", "-4.0000", "-4.0000"),
        re.escape("L after the step:  -7.2865"),
        re.escape("o = 0.7071"),
        row("x1", "-1.5000", "-1.5000"),
        row("w1", "1.0000", "1.0000"),
        row("x2", "0.5000", "0.5000"),
        row("w2", "0.0000", "0.0000"),
    ],
}


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_curriculum_numbers_are_in_the_stored_outputs(prefix):
    text = text_outputs(load(prefix))
    missing = [p for p in EXPECTED[prefix] if not re.search(p, text, re.MULTILINE)]
    assert not missing, f"chapter {prefix} no longer prints: {missing}"


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_enough_prose_and_every_cell_ran_cleanly(prefix):
    nb = load(prefix)
    words = sum(len("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert words >= 600, f"chapter {prefix} has {words} words of prose"
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"chapter {prefix}: a cell raised {out.get('ename')}"


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
