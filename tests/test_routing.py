"""micrograd_lesson.show.routing: chapter 4's panels of how each operation routes a gradient back."""

import pytest

from micrograd_lesson import Value
from micrograd_lesson.show.routing import routing_pictures


def chapter_panels():
    a, b = Value(3.0, label="a"), Value(-1.0, label="b")
    a2, b2 = Value(3.0, label="a"), Value(-1.0, label="b")
    p, n = Value(3.0, label="p"), Value(-1.0, label="n")
    shared = Value(3.0, label="a")
    panels = {
        "add copies": {"a + b": a + b},
        "mul swaps and scales": {"a * b": a2 * b2},
        "relu routes (or blocks)": {"relu(p)": p.relu(), "relu(n)": n.relu()},
        "fan-out sums": {"4a": shared * 4.0, "a + 1": shared + 1.0},
    }
    return panels, dict(a=a, b=b, a2=a2, b2=b2, p=p, n=n, shared=shared)


def test_each_output_fires_once_with_the_given_grad():
    panels, leaves = chapter_panels()
    routing_pictures(panels, grad=2.0)
    grads = {k: v.grad for k, v in leaves.items()}
    assert grads == dict(a=2.0, b=2.0, a2=-2.0, b2=6.0, p=2.0, n=0.0, shared=10.0)
    assert all(out.grad == 2.0 for outputs in panels.values() for out in outputs.values())
    assert panels["fan-out sums"]["4a"].label == "4a"  # labelled from the keys


def test_two_panels_a_picture_with_every_edge_labelled():
    panels, _ = chapter_panels()
    pictures = routing_pictures(panels)
    assert [p.summary for p in pictures] == [
        "<add copies and mul swaps and scales>",
        "<relu routes (or blocks) and fan-out sums>",
    ]
    source = pictures[0].source + pictures[1].source
    for label in ("2 × 1 = 2", "2 × (-1) = -2", "2 × 3 = 6", "2 × 0 = 0", "2 × 4 = 8", "const = 4"):
        assert label in source, label
    assert "a + 1 -> const: 2 × 1" in pictures[1].text_tree  # the same facts as text


def test_the_drawing_is_the_same_every_run():
    assert [p.source for p in routing_pictures(chapter_panels()[0])] == [
        p.source for p in routing_pictures(chapter_panels()[0])
    ]


def test_an_odd_number_of_panels_ends_with_a_picture_of_one():
    x = Value(1.0, label="x")
    pictures = routing_pictures({"one": {"x + x": x + x}, "two": {"2x": x * 2.0}, "three": {"-x": -x}})
    assert [p.summary for p in pictures] == ["<one and two>", "<three>"]


def test_a_value_without_stored_local_derivatives_is_refused_with_a_reason():
    class Closure:
        data, grad, _prev, _op, label = 1.0, 0.0, (), "", ""

    with pytest.raises(TypeError, match="_local_grads"):
        routing_pictures({"panel": {"y": Closure()}})
