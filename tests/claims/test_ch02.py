"""Chapter 2's verdicts, re-run on other expressions and values."""

import graphlib
import math
import random
import subprocess
import sys

import jupytext
import pytest
from claimlib import chapter_namespace, chapter_source, claim

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


@claim("ch02-micrograd-set-loses-nothing")
@pytest.mark.skipif(MicrogradValue is None, reason="micrograd is not installed")
def test_micrograds_set_loses_no_gradient():
    rng = random.Random(2)
    for a0 in [rng.uniform(-3, 3) for _ in range(5)]:
        for text, (f, derivative) in REPEATED.items():
            a = MicrogradValue(a0)
            out = f(a)
            out.backward()
            assert math.isclose(a.grad, derivative(a0), rel_tol=1e-12, abs_tol=1e-12), (text, a0)


@claim("ch02-set-drops-a-share")
def test_a_set_drops_a_share_when_inputs_are_paired_with_local_derivatives():
    Node = chapter_namespace("02")["Node"]
    rng = random.Random(3)
    for a0 in [rng.uniform(-3, 3) for _ in range(5)]:
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
    for seed in range(5):
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


DRAW_IN_A_FRESH_PROCESS = """
from micrograd_lesson import draw_dot

a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), Value(-2.0, label="f")
p, q = a * b, a + b  # a and b each used twice
L = (p + c) * q * f
L.label = "L"
print(draw_dot(L).source)
"""


@claim("ch02-tuple-same-drawing")
@pytest.mark.slow
def test_the_same_graph_draws_the_same_in_every_fresh_process():
    cells = jupytext.read(chapter_source("02"), fmt="py:percent").cells
    value_class = "\n".join(c.source for c in cells if "defines-value" in c.metadata.get("tags", []))
    code = value_class + "\n" + DRAW_IN_A_FRESH_PROCESS  # the chapter's own class, run in each process
    drawings = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for _ in range(5)  # five fresh processes: five memory layouts
    }
    assert len(drawings) == 1
    assert "digraph" in drawings.pop()
