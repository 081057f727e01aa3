"""Chapter 13 exercise checks: right answers pass; wrong ones, picked and generated, get a useful hint."""

import math
import re

import pytest
from hints import hint_of
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd_lesson import Value, grad
from micrograd_lesson.exercises import (
    SOLUTIONS,
    check_cheaper_mode,
    check_dual_pow,
    check_reverse_rules,
    check_safe_newton_step,
)
from micrograd_lesson.exercises.ch13 import _NEWTON_CASES, _mode_shapes, _Pair, _pow_rule


class Dual(_Pair):
    """A stand-in for the chapter's class: enough for the answers below to build results."""

    def __pow__(self, n):
        return Dual(self.val**n, n * self.val ** (n - 1) * self.dot)


NAMES = ["ch13.dual_pow", "ch13.cheaper_mode", "ch13.safe_newton_step", "ch13.reverse_rules"]
CHECKS = [check_dual_pow, check_cheaper_mode, check_safe_newton_step, check_reverse_rules]


@pytest.mark.parametrize("name", NAMES)
def test_worked_solutions_pass(name):
    fn, check = SOLUTIONS[name]
    assert check(fn)


@pytest.mark.parametrize("check", CHECKS)
def test_a_called_function_is_told_to_pass_the_function(check):
    assert "pass your" in hint_of(check, None)


# ---- 13.1 ----


def pow_with(**parts):
    return lambda a, b: Dual(*_pow_rule((a.val, a.dot), (b.val, b.dot), **parts))


def test_dual_pow_gives_x_to_the_x_exactly():
    two = Dual(2.0, 1.0)
    assert math.isclose(SOLUTIONS["ch13.dual_pow"][0](two, two).dot, 4 * (1 + math.log(2)), rel_tol=1e-15)


def test_dual_pow_uses_the_learners_own_dual_class():
    class MyDual:  # an isinstance test in the learner's class must see its own instances
        def __init__(self, val, dot=0.0):
            self.val, self.dot = val, dot

    seen = []

    def answer(a, b):
        seen.append(type(a))
        return SOLUTIONS["ch13.dual_pow"][0](a, b)

    saved, answer.__globals__["Dual"] = Dual, MyDual
    try:
        assert check_dual_pow(answer) and set(seen) == {MyDual}
    finally:
        answer.__globals__["Dual"] = saved


@pytest.mark.parametrize(
    "answer, words",
    [
        (lambda a, b: a**b.val, "power rule alone"),  # the notebook's stub
        (pow_with(base=False), "exponential rule alone"),
        (pow_with(log=False), "ln(u)"),
        (lambda a, b: a.val**b.val, "return a Dual"),
    ],
)
def test_dual_pow_hints_name_the_mistake(answer, words):
    assert words in hint_of(check_dual_pow, answer)


def test_dual_pow_names_a_flipped_sign():
    """A sign slip in the product rule on v ln u (one share subtracted) gives the right size with
    the wrong sign on the case where only the exponent moves: the hint says so."""

    def minus(a, b):
        val = a.val**b.val
        return Dual(val, b.val * a.val ** (b.val - 1) * a.dot - val * math.log(a.val) * b.dot)

    hint = hint_of(check_dual_pow, minus)
    assert "sign" in hint and "5.54518" in hint, hint


def test_dual_pow_refuses_nudging():
    def nudged(a, b, h=1e-7):
        def at(t):
            return (a.val + t * a.dot) ** (b.val + t * b.dot)

        return Dual(at(0), (at(h) - at(-h)) / (2 * h))

    hint = hint_of(check_dual_pow, nudged)
    assert "not exact" in hint
    # the two numbers agree to the digits shown, so the hint says by how much they differ
    (want, got, off), tangent = _off_by(hint), nudged(Dual(2.0, 1.0), Dual(3.0, 0.0)).dot
    assert want == got == "12" and math.isclose(off, abs(tangent - 12.0), rel_tol=0.05), hint


def _off_by(hint):
    """(the wanted number, the one got, the difference) as a "... is W, got G (off by D)" hint says them."""
    found = re.search(r"is (\S+), got (\S+) \(off by (\S+)\)", hint)
    assert found, f"the hint does not say by how much the answer is off: {hint}"
    return found[1], found[2], float(found[3])


@settings(max_examples=100)
@given(st.floats(-10, 10, allow_nan=False), st.floats(0.5, 2))
def test_dual_pow_rejects_every_tangent_off_the_exact_one(offset, scale):
    assume(abs(offset) > 1e-9 or abs(scale - 1) > 1e-9)

    def wrong(a, b):
        val, dot = _pow_rule((a.val, a.dot), (b.val, b.dot))
        return Dual(val, dot * scale + offset)

    assert not check_dual_pow(wrong)


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

    grid = [(n, m) for n in (1, 2, 3, 7, 10, 50, 337, 1000, 10**5) for m in (1, 2, 3, 5, 10, 200, 10**4)]
    truth = all(
        learner(n, m)[0] == right(n, m)[0] and math.isclose(learner(n, m)[1], right(n, m)[1]) for n, m in grid
    )
    assert bool(check_cheaper_mode(learner)) == truth


def test_cheaper_mode_hints():
    right = SOLUTIONS["ch13.cheaper_mode"][0]

    def forward_always(n, m):
        return ("either", 1.0) if n == m else ("forward", 1.0)

    assert "R^337 -> R^1: forward mode needs more passes" in hint_of(check_cheaper_mode, forward_always)
    assert "different numbers of passes" in hint_of(check_cheaper_mode, lambda n, m: ("either", 1.0))
    assert "both modes need one pass" in hint_of(check_cheaper_mode, lambda n, m: ("reverse", 1.0))
    flipped = right(1, 1)

    def upside_down(n, m):
        mode, factor = right(n, m)
        return mode, 1 / factor

    assert flipped == ("either", 1.0)
    assert "upside down" in hint_of(check_cheaper_mode, upside_down)
    assert "a pair" in hint_of(check_cheaper_mode, lambda n, m: "reverse")
    assert "'forward', 'reverse' or 'either'" in hint_of(check_cheaper_mode, lambda n, m: ("backward", 1.0))


def test_cheaper_mode_refuses_a_table_of_the_shapes_the_notebook_names():
    right = SOLUTIONS["ch13.cheaper_mode"][0]
    named = [(1, 1), (337, 1), (1, 3), (1000, 10), (50, 200), (3, 3), (2, 5), (100000, 1), (7, 2)]
    table = {shape: right(*shape) for shape in named}
    assert not check_cheaper_mode(lambda n, m: table.get((n, m), ("reverse", 1.0)))


@settings(max_examples=60)
@given(st.sampled_from(_mode_shapes()), st.sampled_from(["mode", "factor"]))
def test_cheaper_mode_refuses_an_answer_wrong_on_any_one_shape(shape, part):
    """Right everywhere but on one shape the check asks about, by the mode or by the factor."""
    right = SOLUTIONS["ch13.cheaper_mode"][0]

    def wrong_at_one(n, m):
        mode, factor = right(n, m)
        if (n, m) != shape:
            return mode, factor
        return ({"forward": "reverse"}.get(mode, "forward"), factor) if part == "mode" else (mode, factor + 1)

    assert not check_cheaper_mode(wrong_at_one)


# ---- 13.3 ----


def derivatives(f, x):
    v = Value(x)
    (first,) = grad(f(v), [v], create_graph=True)
    return first.data, grad(first, [v])[0]


def rule(newton_when=lambda d2: d2 > 0, divide=lambda d2: d2, sign=1.0):
    def step(f, x, lr):
        d1, d2 = derivatives(f, x)
        return x - sign * d1 / divide(d2) if newton_when(d2) else x - sign * lr * d1

    return step


def test_the_check_uses_both_kinds_of_curvature():
    for _, f, x, d1, d2, _lr in _NEWTON_CASES:  # the hand-derived numbers are the engine's
        assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(derivatives(f, x), (d1, d2)))
    curvatures = [d2 for *_, d2, _lr in _NEWTON_CASES]
    assert any(c > 0 for c in curvatures) and any(c < 0 for c in curvatures)


def test_plain_newton_climbs_to_the_hump_from_the_notebooks_start():
    x = 0.3
    for _ in range(7):
        d1, d2 = derivatives(lambda v: v**4 - 2 * v**2, x)
        x -= d1 / d2
    assert abs(x) < 1e-12  # the maximum at 0, not a minimum at +-1


@pytest.mark.parametrize(
    "answer, words",
    [
        (rule(newton_when=lambda d2: True), "Newton's step everywhere"),
        (rule(newton_when=lambda d2: False), "gradient step everywhere"),
        (rule(newton_when=lambda d2: d2 < 0), "wrong way round"),
        (rule(newton_when=lambda d2: True, divide=abs), "|f''(x)|"),
        (rule(sign=-1.0), "sign is flipped"),
        (lambda f, x, lr: x, "the next x is"),  # the notebook's stub
        # Newton only where f'' clears a threshold: another rule, however small the threshold
        (rule(newton_when=lambda d2: d2 > 0.3), "the next x is 8333"),
        (rule(newton_when=lambda d2: d2 > 1e-3), "the next x is 8333"),
    ],
)
def test_safe_newton_step_hints_name_the_mistake(answer, words):
    assert words in hint_of(check_safe_newton_step, answer)


def newton_if_f_falls(f, x, lr):  # Newton's step whenever it lowers f, else a gradient step
    d1, d2 = derivatives(f, x)
    if d2 != 0 and f(Value(x - d1 / d2)).data < f(Value(x)).data:
        return x - d1 / d2
    return x - lr * d1


def fixed_rate(f, x, lr):  # the notebook's lr = 0.1 written in
    return rule()(f, x, 0.1)


@pytest.mark.parametrize(
    "answer",
    [
        newton_if_f_falls,
        rule(newton_when=lambda d2: d2 > 1),
        rule(newton_when=lambda d2: d2 > 0.5),
        fixed_rate,
    ],
    ids=["newton-if-f-falls", "threshold-1", "threshold-0.5", "fixed-rate-0.1"],
)
def test_safe_newton_step_refuses_other_rules_and_a_fixed_rate(answer):
    hint = hint_of(check_safe_newton_step, answer)
    assert "the next x is" in hint


def test_safe_newton_step_refuses_nudged_derivatives():
    def nudged(f, x, lr, h=1e-4):
        def at(t):
            return f(Value(t)).data

        d1 = (at(x + h) - at(x - h)) / (2 * h)
        d2 = (at(x + h) - 2 * at(x) + at(x - h)) / h**2
        return x - d1 / d2 if d2 > 0 else x - lr * d1

    hint = hint_of(check_safe_newton_step, nudged)
    assert "not exact" in hint
    want, got, off = _off_by(hint)  # the first case: x**4 - 2x**2 at 2, where Newton's step goes to 16/11
    f = _NEWTON_CASES[0][1]
    assert want == got == f"{16 / 11:.6f}", hint
    assert math.isclose(off, abs(nudged(f, 2.0, 0.1) - 16 / 11), rel_tol=0.05), hint


@settings(max_examples=200)
@given(st.floats(-5, 5, allow_nan=False), st.floats(-5, 5, allow_nan=False), st.floats(-1, 1))
def test_safe_newton_step_rejects_generated_update_rules(a, b, c):
    """a Newton step and b gradient steps, shifted by c: right only for a = b = 1, c = 0."""

    def answer(f, x, lr):
        d1, d2 = derivatives(f, x)
        return (x - a * d1 / d2 if d2 > 0 else x - b * lr * d1) - c

    right = math.isclose(a, 1, abs_tol=1e-12) and math.isclose(b, 1, abs_tol=1e-9) and abs(c) < 1e-13
    assert bool(check_safe_newton_step(answer)) == right


def test_safe_newton_step_accepts_a_value_result():
    def as_value(f, x, lr):
        return Value(SOLUTIONS["ch13.safe_newton_step"][0](f, x, lr))

    assert check_safe_newton_step(as_value)


# ---- 13.4 ----


def chain(t, m, per_link=2):
    """The chapter's one_to_many when per_link is 2 (h1 = tanh(t), h(k+1) = tanh(hk * t)); with
    per_link p each link multiplies by t p - 1 times before its tanh."""
    hs = [t.tanh()]
    for _ in range(m - 1):
        x = hs[-1]
        for _ in range(per_link - 1):
            x = x * t
        hs.append(x.tanh())
    return hs


def backward_rules_run(m, per_link=2):
    """Backward rules that really run: one grad() pass per output, counting the nodes with inputs."""
    return sum(sum(1 for v in h.topological_order() if v._prev) for h in chain(Value(0.7), m, per_link))


@pytest.mark.parametrize("m, per_link", [(1, 2), (2, 2), (3, 2), (7, 2), (20, 2), (5, 1), (6, 4), (9, 7)])
def test_the_worked_solution_matches_the_real_graphs(m, per_link):
    assert SOLUTIONS["ch13.reverse_rules"][0](m, per_link) == backward_rules_run(m, per_link)


def test_reverse_rules_hints_name_the_mistake():
    def longest(m, p):
        return 1 + p * (m - 1)

    right = SOLUTIONS["ch13.reverse_rules"][0]
    assert "the whole chain" in hint_of(check_reverse_rules, lambda m, p: m * longest(m, p))
    assert "one backward pass, the last output's" in hint_of(check_reverse_rules, longest)
    assert "the number of backward passes" in hint_of(check_reverse_rules, lambda m, p: m)
    assert "forward pass's values" in hint_of(check_reverse_rules, lambda m, p: right(m, p) + longest(m, p))
    assert "forward mode's cost" in hint_of(check_reverse_rules, lambda m, p: 2 * longest(m, p))
    assert "per_link = 2 only" in hint_of(check_reverse_rules, lambda m, p: m * m)
    assert "tanh(t), is one operation" in hint_of(check_reverse_rules, lambda m, p: p * m * (m + 1) // 2)
    assert "How many operations does output k's graph hold?" in hint_of(check_reverse_rules, lambda m, p: 0)


def test_reverse_rules_refuses_the_tables_number_and_a_lookup_table():
    assert not check_reverse_rules(lambda m, p: 16384 if (m, p) == (128, 2) else m * m)
    table = {(m, 2): m * m for m in range(1, 301)}
    assert not check_reverse_rules(lambda m, p: table.get((m, p), 0))


@settings(max_examples=200)
@given(st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2), st.integers(-1, 1))
def test_reverse_rules_rejects_generated_polynomials(a, b, c, d, e):
    """a m + b p m(m - 1)/2 + c m^2 + d p + e, judged by the real graphs: right only as m + p m(m - 1)/2."""

    def formula(m, p):
        return a * m + b * p * m * (m - 1) // 2 + c * m * m + d * p + e

    right = all(formula(m, p) == backward_rules_run(m, p) for m in (1, 2, 3, 5) for p in (1, 2, 3))
    assert bool(check_reverse_rules(formula)) == right


def test_safe_newton_step_refuses_newton_at_zero_curvature():
    def safe_newton_step(f, x, lr):
        v = Value(x)
        (slope,) = grad(f(v), [v], create_graph=True)
        (curvature,) = grad(slope, [v])
        if curvature >= 0:  # 0 / 0 where f''(x) = 0
            return x - slope.data / curvature
        return x - lr * slope.data

    verdict = check_safe_newton_step(safe_newton_step)
    assert not verdict and "f''(x) = 0" in verdict.hint and "only where f'' > 0" in verdict.hint
