"""Chapter 13 exercise checks: right answers pass; wrong ones, picked and generated, get a useful hint."""

import math

import pytest
from hints import hint_of
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value, grad
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_cheaper_mode,
    check_dual_derivative,
    check_newton_step,
    check_reverse_rules,
)
from micrograd_lesson.exercises.ch13 import Dual

JUNK = [None, "1.0", [1.0], {"a": 1}, float("nan"), Value(1.0), object(), True]


@pytest.mark.parametrize(
    "name", ["ch13.dual_derivative", "ch13.cheaper_mode", "ch13.newton_step", "ch13.reverse_rules"]
)
def test_worked_solutions_pass(name):
    fn, check = SOLUTIONS[name]
    assert check(fn)


@pytest.mark.parametrize(
    "check", [check_dual_derivative, check_cheaper_mode, check_newton_step, check_reverse_rules]
)
def test_checks_never_raise_on_junk(check):
    for junk in JUNK:
        assert "pass your" in hint_of(check, junk)

    def raises(*args):
        raise RuntimeError("half written")

    assert "RuntimeError: half written" in hint_of(check, raises)
    for value in JUNK:
        assert not check(lambda *args, value=value: value)


# ---- 13.1 ----


def nudge(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_dual_derivative_hints_name_the_mistake():
    assert "not exact: that is nudging" in hint_of(check_dual_derivative, nudge)
    assert "you returned f(x)" in hint_of(check_dual_derivative, lambda f, x: f(Dual(x, 1.0)).val)
    assert "seed the input's tangent with 1" in hint_of(check_dual_derivative, lambda f, x: f(Dual(x)).dot)
    assert "plain number" in hint_of(check_dual_derivative, lambda f, x: f(Dual(x, 1.0)))
    assert "2 times f'(x): seed" in hint_of(check_dual_derivative, lambda f, x: f(Dual(x, 2.0)).dot)
    assert "f'(x) = 4.75, got nan" in hint_of(check_dual_derivative, lambda f, x: math.nan)
    assert "f'(x) = 4.75, got inf" in hint_of(check_dual_derivative, lambda f, x: math.inf)


class Hostile:
    """Junk that raises from ==, hash and repr."""

    def __eq__(self, other):
        raise ValueError("no comparing")

    def __repr__(self):
        raise ValueError("no printing")

    __hash__ = None


def test_cheaper_mode_survives_hostile_objects():
    assert "the mode is" in hint_of(check_cheaper_mode, lambda n, m: (Hostile(), 1.0))
    assert "got a Hostile" in hint_of(check_cheaper_mode, lambda n, m: ("either", Hostile()))


@settings(max_examples=200)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(1e-9, 10))
def test_dual_derivative_rejects_every_answer_off_the_exact_one(offset, scale):
    """Any derivative that is wrong by more than rounding, by an offset or a factor, is rejected."""
    assume(abs(offset) > 1e-9 or abs(scale - 1) > 1e-9)

    def wrong(f, x):
        return f(Dual(x, 1.0)).dot * scale + offset

    assert not check_dual_derivative(wrong)


# ---- 13.2 ----

MODES = ["forward", "reverse", "either"]


@settings(max_examples=200)
@given(st.data())
def test_cheaper_mode_rejects_generated_lookup_tables(data):
    """A learner's rule that differs from the truth on any shape is rejected; the truth table passes."""
    right = SOLUTIONS["ch13.cheaper_mode"][0]
    rules = {
        "right": right,
        "swapped": lambda n, m: (
            ("forward", n / m) if n > m else (("reverse", m / n) if m > n else ("either", 1.0))
        ),
        "difference": lambda n, m: right(n, m)[:1] + (float(abs(n - m)) or 1.0,),
        "passes of the winner": lambda n, m: right(n, m)[:1] + (float(min(n, m)),),
        "upside down": lambda n, m: right(n, m)[:1] + (min(n, m) / max(n, m),),
        "no ties": lambda n, m: ("forward", m / n) if n <= m else ("reverse", n / m),
        "always reverse": lambda n, m: ("reverse", n / m),
    }
    name = data.draw(st.sampled_from(sorted(rules)))
    mode = data.draw(st.sampled_from(MODES + ["same"]))
    scale = data.draw(st.sampled_from([1.0, 2.0, 0.5, 1.5]))

    def learner(n, m):
        got_mode, factor = rules[name](n, m)
        return (got_mode if mode == "same" else mode), factor * scale

    truth = all(
        learner(n, m)[0] == right(n, m)[0] and math.isclose(learner(n, m)[1], right(n, m)[1])
        for n, m in [(1, 1), (337, 1), (1, 3), (1000, 10), (50, 200), (3, 3), (2, 5), (100000, 1), (7, 2)]
    )
    assert bool(check_cheaper_mode(learner)) == truth


def test_cheaper_mode_hints():
    right = SOLUTIONS["ch13.cheaper_mode"][0]

    def forward_always(n, m):
        return ("either", 1.0) if n == m else ("forward", 1.0)

    assert "one pass per input (337)" in hint_of(check_cheaper_mode, forward_always)
    assert "both modes need one pass" in hint_of(check_cheaper_mode, lambda n, m: ("reverse", 1.0))
    flipped = right(1, 1)

    def upside_down(n, m):
        mode, factor = right(n, m)
        return mode, 1 / factor

    assert flipped == ("either", 1.0)
    assert "upside down" in hint_of(check_cheaper_mode, upside_down)
    assert "a pair" in hint_of(check_cheaper_mode, lambda n, m: "reverse")
    assert "'forward', 'reverse' or 'either'" in hint_of(check_cheaper_mode, lambda n, m: ("backward", 1.0))


# ---- 13.3 ----


def derivatives(f, x):
    v = Value(x)
    (first,) = grad(f(v), [v], create_graph=True)
    return first.data, grad(first, [v])[0]


def test_newton_step_hints_name_the_mistake():
    def flipped(f, x):
        d1, d2 = derivatives(f, x)
        return x + d1 / d2

    def upside_down(f, x):
        d1, d2 = derivatives(f, x)
        return x - d2 / d1

    def descent(f, x):
        return x - derivatives(f, x)[0]

    def nudged(f, x, h=1e-4):
        def at(t):
            return f(Value(t)).data

        d1 = (at(x + h) - at(x - h)) / (2 * h)
        d2 = (at(x + h) - 2 * at(x) + at(x - h)) / h**2
        return x - d1 / d2

    assert "sign is flipped" in hint_of(check_newton_step, flipped)
    assert "upside down" in hint_of(check_newton_step, upside_down)
    assert "gradient-descent step" in hint_of(check_newton_step, descent)
    assert "not exact: nudging?" in hint_of(check_newton_step, nudged)

    def slope_over_slope(f, x):  # the "second derivative" taken of f again, not of the slope
        v = Value(x)
        (first,) = grad(f(v), [v], create_graph=True)
        return x - first.data / grad(f(v), [v])[0]

    assert "divided by itself" in hint_of(check_newton_step, slope_over_slope)


@settings(max_examples=200)
@given(st.floats(-5, 5, allow_nan=False), st.floats(-5, 5, allow_nan=False), st.floats(-1, 1))
def test_newton_step_rejects_generated_update_rules(a, b, c):
    """x - a f'/f'' - b f' - c: passes only when it is Newton's step (a = 1, b = c = 0)."""

    def rule(f, x):
        d1, d2 = derivatives(f, x)
        return x - a * d1 / d2 - b * d1 - c

    newton = math.isclose(a, 1, abs_tol=1e-12) and abs(b) < 1e-13 and abs(c) < 1e-13
    assert bool(check_newton_step(rule)) == newton


def test_newton_step_accepts_a_value_result():
    def as_value(f, x):
        return Value(SOLUTIONS["ch13.newton_step"][0](f, x))

    assert check_newton_step(as_value)


# ---- 13.4 ----


def chain(t, m):
    """The chapter's one_to_many: h1 = tanh(t), h(k+1) = tanh(hk * t)."""
    hs = [t.tanh()]
    for _ in range(m - 1):
        hs.append((hs[-1] * t).tanh())
    return hs


def backward_rules_run(m):
    """Backward rules that really run: one grad() pass per output, counting the nodes with inputs."""
    return sum(sum(1 for v in h.topological_order() if v._prev) for h in chain(Value(0.7), m))


@pytest.mark.parametrize("m", [1, 2, 3, 7, 20])
def test_the_worked_solution_matches_the_real_graphs(m):
    assert SOLUTIONS["ch13.reverse_rules"][0](m) == backward_rules_run(m)


def test_reverse_rules_hints_name_the_mistake():
    assert "the whole chain" in hint_of(check_reverse_rules, lambda m: m * (2 * m - 1))
    assert "one backward pass, the last output's" in hint_of(check_reverse_rules, lambda m: 2 * m - 1)
    assert "the number of backward passes" in hint_of(check_reverse_rules, lambda m: m)
    assert "forward pass's 2m - 1 values" in hint_of(check_reverse_rules, lambda m: m * m + 2 * m - 1)
    assert "forward mode's cost" in hint_of(check_reverse_rules, lambda m: 4 * m - 2)
    assert "Draw the chain for m = 3" in hint_of(check_reverse_rules, lambda m: 0)


def test_reverse_rules_rejects_a_lookup_table_of_the_small_cases():
    table = {m: m * m for m in range(1, 21)}
    assert "for m = 40" in hint_of(check_reverse_rules, lambda m: table.get(m, 0))


@settings(max_examples=200)
@given(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3), st.integers(-1, 1))
def test_reverse_rules_rejects_generated_polynomials(a, b, c, d):
    """a m^2 + b m + c + d m^3 passes only when it is m^2."""
    right = (a, b, c, d) == (1, 0, 0, 0)
    assert bool(check_reverse_rules(lambda m: d * m**3 + a * m * m + b * m + c)) == right
