"""What the notebooks teach on screen gives the same numbers as the package's engine.

Chapters 2-5 build a `Value` class on screen, in cells tagged `defines-value`. For each
chapter this test reads the notebook's source (notebooks/src/NN_*.py), runs those cells
in order in a fresh namespace, takes the resulting `Value`, and compares it with
`micrograd_lesson.Value` on every expression from the list below that the class supports:

- forward data always;
- gradients too when the class has a `backward()` (chapters 4 and 5; chapter 3 sets
  gradients by hand, so only its data is compared).

An expression the class cannot build yet (no `exp` in chapter 4, no `a + 1` in chapter 2)
is skipped, but each chapter must support a minimum set. The test is parametrized by
chapter, so a failure names the chapter that drifted from the package.
"""

import math
from pathlib import Path

import pytest
from claims.claimlib import chapter_namespace, tagged_cells

from micrograd_lesson import Value as PackageValue

SRC = Path(__file__).resolve().parent.parent / "notebooks" / "src"
CHAPTERS = sorted(p.name[:2] for p in SRC.glob("0[2-5]_*.py"))


def screen_value(chapter):
    """The `Value` class a chapter ends up with, from its defines-value cells alone."""
    return chapter_namespace(chapter, tag="defines-value")["Value"]


def _long_sum(x):
    y = x
    for _ in range(50):
        y = y + x
    return y


def _neuron(x1, w1, x2, w2, b):
    return (x1 * w1 + x2 * w2 + b).tanh()


# name: (function of Values, inputs). Each builds a fresh graph from fresh leaves.
EXPRESSIONS = {
    "a*b + c": (lambda a, b, c: a * b + c, (2.0, -3.0, 10.0)),
    "L = (a*b + c) * f": (lambda a, b, c, f: (a * b + c) * f, (2.0, -3.0, 10.0, -2.0)),
    "a + a": (lambda a: a + a, (3.0,)),
    "a * a": (lambda a: a * a, (3.0,)),
    "z = x*y + x": (lambda x, y: x * y + x, (2.0, 3.0)),
    "(a*b) * (a + b)": (lambda a, b: (a * b) * (a + b), (-2.0, 3.0)),
    "tanh neuron": (_neuron, (2.0, -3.0, 0.0, 1.0, 6.8813735870195432)),
    "x + x + ... (50 times)": (_long_sum, (1.5,)),
    "a + 1": (lambda a: a + 1, (3.0,)),
    "2 * a": (lambda a: 2 * a, (3.0,)),
    "1 + a": (lambda a: 1 + a, (3.0,)),
    "sum([a, b, a])": (lambda a, b: sum([a, b, a]), (3.0, -1.0)),
    "-a": (lambda a: -a, (3.0,)),
    "a - b": (lambda a, b: a - b, (3.0, 5.0)),
    "1 - a": (lambda a: 1 - a, (3.0,)),
    "a ** 3": (lambda a: a**3, (2.0,)),
    "a ** 0.5": (lambda a: a**0.5, (4.0,)),
    "a ** -1": (lambda a: a**-1, (4.0,)),
    "a / b": (lambda a, b: a / b, (6.0, 4.0)),
    "2 / a": (lambda a: 2 / a, (4.0,)),
    "exp": (lambda a: a.exp(), (1.0,)),
    "log": (lambda a: a.log(), (2.0,)),
    "tanh": (lambda a: a.tanh(), (0.5,)),
    "sigmoid": (lambda a: a.sigmoid(), (-1.5,)),
    "relu (positive)": (lambda a: a.relu(), (3.0,)),
    "relu (negative)": (lambda a: a.relu(), (-2.0,)),
    "tanh from exp": (lambda n: ((2 * n).exp() - 1) / ((2 * n).exp() + 1), (0.8813735870195432,)),
    "everything at once": (
        lambda a, b, c: (
            ((a * b).tanh() + (a - b).sigmoid() * c) / (c**2 + 1) - (a + c).relu() + (c * c).log()
        ),
        (0.7, -1.3, 2.0),
    ),
}

# What every chapter's final class must support (a chapter 2 Value adds and multiplies).
REQUIRED = {"a*b + c", "L = (a*b + c) * f", "a + a", "z = x*y + x", "(a*b) * (a + b)"}
# Chapters 4 and 5 also backpropagate, and chapter 5 has every operation.
REQUIRED_BY_CHAPTER = {
    "04": {"tanh neuron", "x + x + ... (50 times)"},
    "05": set(EXPRESSIONS),
}


def run(V, f, inputs, backward):
    """(output data, leaf grads or None) for f built from class V."""
    leaves = [V(x) for x in inputs]
    out = f(*leaves)
    if not backward:
        return out.data, None
    out.backward()
    return out.data, [leaf.grad for leaf in leaves]


def close(x, y):
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_screen_value_matches_the_package(chapter):
    V = screen_value(chapter)  # raises LookupError if the chapter has no cell tagged defines-value
    backward = callable(getattr(V, "backward", None))
    supported, mismatches = set(), []
    for name, (f, inputs) in EXPRESSIONS.items():
        try:
            run(V, f, inputs, backward=False)  # can this chapter's class build it at all?
        except (AttributeError, TypeError, AssertionError):
            continue
        supported.add(name)
        mine = run(V, f, inputs, backward)
        theirs = run(PackageValue, f, inputs, backward)
        if not close(mine[0], theirs[0]):
            mismatches.append(f"{name}: data {mine[0]!r} on screen, {theirs[0]!r} in the package")
        elif backward and not all(close(m, t) for m, t in zip(mine[1], theirs[1])):
            mismatches.append(f"{name}: grads {mine[1]} on screen, {theirs[1]} in the package")
    assert not mismatches, f"chapter {chapter}'s on-screen Value differs from the package:\n" + "\n".join(
        mismatches
    )
    missing = (REQUIRED | REQUIRED_BY_CHAPTER.get(chapter, set())) - supported
    assert not missing, f"chapter {chapter}'s on-screen Value cannot build: {sorted(missing)}"
    if chapter in ("04", "05"):
        assert backward, f"chapter {chapter}'s on-screen Value should have backward()"


def test_chapters_four_and_five_are_covered():
    assert {"04", "05"} <= set(CHAPTERS)


def test_chapter_4_shows_the_assignment_bug_before_fixing_it():
    """The first class of chapter 4 assigns gradients (=): b = a + a gives 1, not 2."""
    cells = tagged_cells("04", "defines-value")
    namespace = {}
    exec(cells[0], namespace)  # the first class, before the fix
    exec(cells[1], namespace)  # build_topo_recursive
    exec(cells[2], namespace)  # Value.backward
    a = namespace["Value"](3.0)
    b = a + a
    b.backward()
    assert a.grad == 1.0  # the bug the chapter shows live
    fixed = screen_value("04")
    a = fixed(3.0)
    (a + a).backward()
    assert a.grad == 2.0


def test_deep_graph_needs_the_iterative_sort():
    """Chapter 4's final backward() handles a chain far deeper than the recursion limit."""
    V = screen_value("04")
    x = V(1.0)
    y = x
    for _ in range(5000):
        y = y + x
    y.backward()
    assert x.grad == 5001.0
