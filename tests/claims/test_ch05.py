"""Chapter 5's verdicts, re-run at other inputs, neurons and grids."""

import math
import random

import numpy as np
import pytest
from claimlib import chapter_namespace, claim

from micrograd_lesson import Value

try:
    import torch
except ImportError:
    torch = None
try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:
    MicrogradValue = None


@pytest.fixture(scope="module")
def ch05():
    return chapter_namespace("05")


def random_neurons(seed, count=5):
    rng = random.Random(seed)
    return [{k: rng.uniform(-2.0, 2.0) for k in ("x1", "w1", "x2", "w2", "b")} for _ in range(count)]


@claim("ch05-screen-matches-package")
def test_the_class_built_on_screen_matches_the_package(ch05):
    OnScreen = chapter_namespace("05", "defines-value")["Value"]
    rng = np.random.default_rng(4)
    for a, b, c in zip(
        rng.uniform(-3, 3, 5), rng.choice([-1, 1], 5) * rng.uniform(0.2, 3, 5), rng.uniform(0.2, 3, 5)
    ):
        for text, f in ch05["expressions"].items():
            results = []
            for V in (OnScreen, Value):
                leaves = [V(float(x)) for x in (a, b, c)]
                out = f(*leaves)
                out.backward()
                results.append([out.data] + [leaf.grad for leaf in leaves])
            for x, y in zip(*results):
                assert math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12), (text, a, b, c, results)


@claim("ch05-self-test-agrees")
def test_tanh_from_exp_agrees_with_tanh_on_random_neurons(ch05):
    neuron_grads, tanh_from_exp = ch05["neuron_grads"], ch05["tanh_from_exp"]
    for leaves in random_neurons(0):
        o1, g1 = neuron_grads(lambda n: n.tanh(), **leaves)
        o2, g2 = neuron_grads(tanh_from_exp, **leaves)
        assert math.isclose(o1, o2, abs_tol=1e-12)
        assert all(math.isclose(g1[k], g2[k], abs_tol=1e-12) for k in g1), (leaves, g1, g2)


@claim("ch05-self-test-catches-bug")
def test_the_self_test_catches_the_planted_exp_bug_on_random_neurons(ch05):
    neuron_grads = ch05["neuron_grads"]
    smallest_relative, absolute_misses = 1.0, []
    for seed in range(2, 42):  # 200 neurons
        for leaves in random_neurons(seed):
            o1, g1 = neuron_grads(lambda n: n.tanh(), **leaves)
            o2, g2 = neuron_grads(ch05["tanh_from_buggy_exp"], **leaves)
            assert math.isclose(o1, o2, abs_tol=1e-12)  # the forward pass never reads a derivative
            relative = max(abs(g1[k] - g2[k]) / max(abs(g1[k]), abs(g2[k])) for k in g1)
            smallest_relative = min(smallest_relative, relative)
            if max(abs(g1[k] - g2[k]) for k in g1) < 1e-3:
                absolute_misses.append((o1, max(abs(g) for g in g1.values())))
    assert smallest_relative > 0.63, smallest_relative  # relatively: caught on every neuron
    assert len(absolute_misses) == 4, absolute_misses  # absolutely: 4 slip under 1e-3 ...
    assert all(abs(o) > 0.999 and largest < 6e-4 for o, largest in absolute_misses)  # ... the flat ones


@claim("ch05-sigmoid-slope-at-most-quarter")
def test_sigmoid_is_never_steeper_than_a_quarter():
    for points in (161, 16_001):  # the chapter's grid, and one a hundred times finer
        slopes = []
        for x in np.linspace(-4, 4, points).tolist() + [-50.0, 50.0]:
            v = Value(x)
            v.sigmoid().backward()
            slopes.append(v.grad)
        assert max(slopes) <= 0.25
        assert slopes[(points - 1) // 2] == 0.25  # reached at 0


@claim("ch05-stable-activations")
def test_the_package_tanh_and_sigmoid_stay_finite_for_every_size_of_input():
    for magnitude in np.logspace(0, 308, 200).tolist():
        for x in (magnitude, -magnitude):
            for name in ("tanh", "sigmoid"):
                v = Value(x)
                out = getattr(v, name)()
                out.backward()
                assert math.isfinite(out.data) and math.isfinite(v.grad), (name, x)


@claim("ch05-silent-inf-nan")
def test_overflow_is_inf_and_undefined_is_nan_silently_in_every_engine():
    inf, nan = float("inf"), float("nan")
    for big in (1e308, 1.5e308, 9e307):
        assert (Value(big) * 10).data == inf
        assert (Value(-big) * 10).data == -inf
    for x in (nan, -nan):
        assert math.isnan(Value(x).tanh().data)
    for zero in (0, 0.0, -0.0):
        assert math.isnan((Value(inf) * zero).data)
        assert math.isnan((Value(-inf) * zero).data)
    if MicrogradValue is not None:
        assert (MicrogradValue(1e308) * 10).data == inf
        assert math.isnan((MicrogradValue(inf) * 0).data)
    if torch is not None:
        t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
        assert (t(1e308) * 10).item() == inf
        assert math.isnan(t(nan).tanh().item())
        assert math.isnan((t(inf) * 0).item())
    # what it does refuse, each with a message naming the input
    for attempt, error, words in (
        (lambda: Value(-1.0).log(), ValueError, "-1.0"),
        (lambda: Value(0.0).log(), ValueError, "0.0"),
        (lambda: Value(1.0) / 0, ZeroDivisionError, "division by zero"),
        (lambda: Value(0.0) ** -2, ZeroDivisionError, "0.0"),
        (lambda: Value(-8.0) ** (1 / 3), ValueError, "-8.0"),
        (lambda: Value(1000.0).exp(), OverflowError, "1000"),
    ):
        with pytest.raises(error, match=words):
            attempt()


@claim("ch05-stored-local-grads")
def test_a_stored_local_derivative_keeps_the_forward_slope_and_a_closure_does_not(ch05):
    mul_with_closure = ch05["mul_with_closure"]
    rng = random.Random(2)
    for _ in range(5):
        a0, b0, b1 = (rng.uniform(-3, 3) for _ in range(3))
        for mul, expected in ((mul_with_closure, b1), (lambda a, b: a * b, b0)):
            a, b = Value(a0), Value(b0)
            c = mul(a, b)
            b.data = b1  # changed between the forward and the backward pass
            c.backward()
            assert c.data == a0 * b0
            assert a.grad == expected
