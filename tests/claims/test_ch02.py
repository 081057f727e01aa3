"""Chapter 2's verdicts, re-run on held-out values, expressions and allocation histories.

Every random value here comes from `held_out_seeds` (all >= 1,000,000); the notebook itself
is not random (its values are typed in), and its set-order experiment uses k = 0 to 19.
"""

import graphlib
import math
import random
import subprocess
import sys

import jupytext
import pytest
from claimlib import chapter_namespace, chapter_source, claim, held_out_seeds

try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:
    MicrogradValue = None

REPEATED = {  # expressions that use a value more than once, with their derivative in a
    "a + a": (lambda a: a + a, lambda a: 2.0),
    "a * a": (lambda a: a * a, lambda a: 2 * a),
    "(a + a) * a": (lambda a: (a + a) * a, lambda a: 4 * a),
    "a * a * a": (lambda a: a * a * a, lambda a: 3 * a * a),
    "(a * a + a) * a": (lambda a: (a * a + a) * a, lambda a: 3 * a * a + 2 * a),
}


@pytest.fixture(scope="module")
def ch02():
    return chapter_namespace("02")


def held_out_values(n, purpose):
    return [random.Random(seed).uniform(-3, 3) for seed in held_out_seeds(n, purpose)]


@claim("ch02-micrograd-set-loses-nothing")
@pytest.mark.skipif(MicrogradValue is None, reason="micrograd is not installed")
def test_micrograds_set_loses_no_gradient():
    for a0 in held_out_values(20, "ch02-micrograd-set-loses-nothing"):
        for text, (f, derivative) in REPEATED.items():
            a = MicrogradValue(a0)
            out = f(a)
            out.backward()
            assert math.isclose(a.grad, derivative(a0), rel_tol=1e-12, abs_tol=1e-12), (text, a0)


@claim("ch02-set-drops-a-share")
def test_a_set_drops_a_share_when_inputs_are_paired_with_local_derivatives(ch02):
    Node = ch02["Node"]
    for a0 in held_out_values(20, "ch02-set-drops-a-share"):
        for local_grads, right in (((1.0, 1.0), 2.0), ((a0, a0), 2 * a0)):  # a + a and a * a
            grads = {}
            for keep in (tuple, set):
                a = Node(a0)
                out = Node(0.0, (a, a), local_grads=local_grads, keep=keep)
                for inp, local in zip(out.inputs, out.local_grads):
                    inp.grad += local * 1.0
                grads[keep] = a.grad
            assert grads[tuple] == right
            assert grads[set] == right / 2


@claim("ch02-never-a-cycle")
def test_every_graph_built_from_values_has_no_cycle():
    Value = chapter_namespace("02", "defines-value")["Value"]
    for seed in held_out_seeds(20, "ch02-never-a-cycle"):
        rng = random.Random(seed)
        pool = [Value(rng.uniform(-2, 2)) for _ in range(3)]
        for _ in range(40):
            x, y = rng.choice(pool), rng.choice(pool)
            pool.append(x + y if rng.random() < 0.5 else x * y)
        graph, todo = {}, [pool[-1]]
        while todo:
            v = todo.pop()
            if v not in graph:
                graph[v] = list(v._prev)
                todo.extend(v._prev)
        order = list(graphlib.TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
        position = {v: i for i, v in enumerate(order)}
        assert all(position[child] < position[v] for v in graph for child in v._prev)


DRAW_AFTER_K_VALUES = """
import sys
from micrograd_lesson import draw_dot

made_first = [Value(0.0) for _ in range(int(sys.argv[1]))]  # k unrelated values, kept
for cls in (Value, SetValue):  # the chapter's class, and the same class with a set
    a, b, c, f = cls(2.0, label="a"), cls(-3.0, label="b"), cls(10.0, label="c"), cls(-2.0, label="f")
    p, q = a * b, a + b  # a and b each used twice
    L = (p + c) * q * f
    L.label = "L"
    print(draw_dot(L).source)
"""


def fresh(code, k):
    return subprocess.run(
        [sys.executable, "-c", code, str(k)], capture_output=True, text=True, check=True
    ).stdout


@claim("ch02-tuple-same-drawing")
@pytest.mark.slow
def test_a_sets_order_follows_what_was_made_before_and_a_tuples_does_not(ch02):
    """The notebook uses k = 0 to 19; here, windows of 20 consecutive k starting anywhere from 0 to
    979, on held-out seeds. Python 3.11 flips a set's order for about half of all k (and not even
    always the same way for one k); 3.13 for about one k in eight, one every 8 or 9 consecutive k
    (measured for k = 0 to 999 on both). So what is asserted is what both do: every window of 20
    holds both orders. A Value hashed from its data instead of its address keeps one order, and a
    tuple lists a b in every process."""
    # a Value's hash is its memory address divided by 16 (CPython: objects sit 16 bytes apart)
    Value = chapter_namespace("02", "defines-value")["Value"]
    made = [Value(float(i)) for i in range(1000)]
    assert all(hash(v) == id(v) // 16 for v in made)
    starts = [random.Random(seed).randrange(980) for seed in held_out_seeds(3, "ch02-tuple-same-drawing")]
    input_order = ch02["input_order"]
    for k0 in starts:
        window = range(k0, k0 + 20)
        assert {input_order("set", k) for k in window} == {"a b", "b a"}, k0
    window = range(starts[0], starts[0] + 20)
    assert {input_order("set", k, hash_from="data") for k in window} == {"a b"}
    assert {input_order("tuple", k) for k in window} == {"a b"}
    # the chapter's own class, drawn by draw_dot: the same drawing whatever was made first; and
    # with a set, draw_dot sorts the inputs by label, data and operation (no ties in this graph),
    # so one drawing too
    cells = jupytext.read(chapter_source("02"), fmt="py:percent").cells
    value_class = "\n".join(c.source for c in cells if "defines-value" in c.metadata.get("tags", []))
    assert "self._prev = tuple(_children)" in value_class
    set_class = value_class.replace("self._prev = tuple(_children)", "self._prev = set(_children)")
    set_class = set_class.replace("class Value", "class SetValue").replace(
        "return Value(", "return SetValue("
    )
    code = "\n".join([value_class, set_class, DRAW_AFTER_K_VALUES])
    drawings = {fresh(code, k) for k in [0, *starts]}
    assert len(drawings) == 1
    assert drawings.pop().count("digraph") == 2
