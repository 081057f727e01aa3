"""Chapter 1 exercise checks: every right answer passes, wrong ones get a hint naming the mistake."""

import itertools
import math

import pytest
from hints import hint_of
from hypothesis import assume, given
from hypothesis import strategies as st

from micrograd_lesson.exercises import check_best_h, check_numerical_gradient, check_slope
from micrograd_lesson.exercises.ch01 import best_h, numerical_gradient, slope

BEST_H = best_h()  # the worked solution: the check keeps no copy of it


class RaisingIter:
    def __iter__(self):
        raise ValueError("iter")


# ---- never raises: tests/test_exercises.py holds the contract for every check; here, endless results


def test_numerical_gradient_never_raises_or_hangs_on_hostile_results():
    for returned in (itertools.count(), itertools.repeat(1.0), RaisingIter()):
        assert not check_numerical_gradient(lambda fn, inputs, r=returned: r)


# ---- 1. the slope ------------------------------------------------------------------------------------


def central(h):
    return lambda g, x: (g(x + h) - g(x - h)) / (2 * h)


def forward(h):
    return lambda g, x: (g(x + h) - g(x)) / h


def test_slope_worked_solution_passes():
    assert check_slope(slope)


@given(h=st.floats(1e-12, 1e-1))
def test_slope_refuses_every_forward_difference(h):
    """Nine digits on five functions and points: a forward difference's best is about 1e-8."""
    assert not check_slope(forward(h))


@pytest.mark.parametrize("h", [2.0**-28, 2.0**-29, 2.0**-30])
def test_slope_refuses_a_forward_difference_that_is_lucky_at_one_point(h):
    """These h give exactly 4.75 at x = 1.5 (a single number could not tell); the other cases can."""
    assert forward(h)(lambda x: x**3 - 2 * x, 1.5) == pytest.approx(4.75, rel=1e-9)
    assert "one-sided" in hint_of(check_slope, forward(h))


@given(h=st.floats(1e-6, 3e-5))
def test_slope_accepts_central_differences_with_a_balanced_h(h):
    assert check_slope(central(h))


def test_slope_accepts_other_nudges_that_reach_nine_digits():
    five_point = lambda g, x, h=1e-3: (-g(x + 2 * h) + 8 * g(x + h) - 8 * g(x - h) + g(x - 2 * h)) / (12 * h)  # noqa: E731
    one_sided_second_order = lambda g, x, h=1e-5: (-3 * g(x) + 4 * g(x + h) - g(x + 2 * h)) / (2 * h)  # noqa: E731
    assert check_slope(five_point)
    assert check_slope(one_sided_second_order)


@given(h=st.floats(2e-4, 1e-2))
def test_slope_refuses_central_differences_with_too_large_an_h(h):
    assert "nine digits" in hint_of(check_slope, central(h))


@pytest.mark.parametrize(
    "answer, words",
    [
        (lambda g, x: g(x), "the height"),
        (lambda g, x: -central(1e-5)(g, x), "wrong sign"),
        (lambda g, x: g(x + 1e-6) - g(x), "divide the change"),  # the rise without dividing by h
        (lambda g, x: (g(x + 1e-5) - g(x - 1e-5)) / 1e-5, "divide by 2 * h"),  # central, divided by h
        (forward(1e-6), "one-sided"),
        (lambda g, x: 4.75, "should be"),  # right at one point only
        (lambda g, x: None, "return a number"),
        (4.75, "slope function itself"),
        (None, "slope function itself"),
    ],
)
def test_slope_names_the_mistake(answer, words):
    assert words in hint_of(check_slope, answer)


# ---- 2. the best nudge -------------------------------------------------------------------------------


def test_best_h_worked_solution_is_the_balance_point():
    h = best_h()
    truncation, roundoff = h, 2.220446049250313e-16 * 1001 / h
    assert math.isclose(truncation, roundoff, rel_tol=1e-9)
    assert check_best_h(best_h) and check_best_h(h)


@given(factor=st.floats(0.5, 1.9))
def test_best_h_accepts_the_balance_up_to_a_factor_of_two(factor):
    # Using eps / 2 (the unit round-off) or 2 eps in the round-off estimate moves h by sqrt(2).
    assert check_best_h(BEST_H * factor)


@given(factor=st.floats(1e-12, 0.49))
def test_best_h_too_small_is_blamed_on_round_off(factor):
    h = BEST_H * factor
    assume(not 0.5 * 1.72e-8 <= h <= 2 * 1.72e-8)  # the chapter's answer has its own hint
    assert "round-off dominates" in hint_of(check_best_h, h)


@given(factor=st.floats(2.01, 1e6))
def test_best_h_too_large_is_blamed_on_truncation(factor):
    assert "truncation dominates" in hint_of(check_best_h, BEST_H * factor)


def test_best_h_refuses_the_smallest_total_error_given_as_h():
    """At the balance the total error is truncation + round-off = 2h: an answer of 2h (the error, not
    the nudge that gives it) is the right idea in the wrong units."""
    for answer in (2 * BEST_H, 2 * math.sqrt(2.220446049250313e-16 * 1001)):
        assert "total error" in hint_of(check_best_h, answer)


def test_best_h_copied_from_the_chapter_gets_its_own_hint():
    assert "chapter's x**3" in hint_of(check_best_h, 2e-8)


def test_best_h_rule_of_thumb_sqrt_eps_gets_its_own_hint():
    assert "sqrt(eps)" in hint_of(check_best_h, math.sqrt(2.220446049250313e-16))


@pytest.mark.parametrize("h, words", [(0.0, "positive"), (-1e-7, "positive"), (None, "None")])
def test_best_h_hints(h, words):
    assert words in hint_of(check_best_h, h)


# ---- 3. a whole gradient -------------------------------------------------------------------------------


def difference_gradient(h, central):
    def gradient(fn, inputs):
        out = []
        for i in range(len(inputs)):
            up, down = list(inputs), list(inputs)
            up[i] += h
            down[i] -= h if central else 0.0
            out.append((fn(*up) - fn(*down)) / ((2 if central else 1) * h))
        return out

    return gradient


def test_numerical_gradient_worked_solution_passes():
    assert check_numerical_gradient(numerical_gradient)


@given(h=st.floats(1e-7, 1e-3))
def test_numerical_gradient_accepts_central_differences_up_to_h_1e_3(h):
    assert check_numerical_gradient(difference_gradient(h, central=True))


@given(h=st.floats(1e-10, 1e-4))
def test_numerical_gradient_refuses_forward_differences_and_says_so(h):
    """The exercise asks for the central difference; near a steep floor a one-sided one is off."""
    assert "one-sided" in hint_of(check_numerical_gradient, difference_gradient(h, central=False))


def test_numerical_gradient_accepts_tuples_and_numpy():
    import numpy as np

    assert check_numerical_gradient(lambda fn, xs: tuple(numerical_gradient(fn, xs)))
    assert check_numerical_gradient(lambda fn, xs: np.array(numerical_gradient(fn, xs)))


@given(which=st.integers(0, 10), rel=st.floats(0.06, 50), sign=st.sampled_from([-1, 1]))
def test_numerical_gradient_rejects_a_wrong_entry_and_names_it(which, rel, sign):
    def one_wrong(fn, inputs):
        grads = numerical_gradient(fn, inputs)
        i = which % len(grads)
        grads[i] = grads[i] * (1 + sign * rel) + sign * rel
        return grads

    hint = hint_of(check_numerical_gradient, one_wrong)
    assert "input" in hint


@given(h=st.floats(0.05, 0.5))
def test_numerical_gradient_with_a_huge_forward_nudge_is_told_so(h):
    hint = hint_of(check_numerical_gradient, difference_gradient(h, central=False))
    assert "too large" in hint


def all_at_once(fn, inputs):
    h = 1e-6
    return [(fn(*[v + h for v in inputs]) - fn(*inputs)) / h for _ in inputs]


def mutates(fn, inputs):
    for i in range(len(inputs)):
        inputs[i] += 1e-6
    return numerical_gradient(fn, inputs)


def backward(fn, inputs):
    out = []
    for i in range(len(inputs)):
        down = list(inputs)
        down[i] -= 1e-8  # one-sided from below: right to about 1e-5 here, so only the steep case tells
        out.append((fn(*inputs) - fn(*down)) / 1e-8)
    return out


def set_not_nudged(fn, inputs):
    out = []
    for i in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[i], down[i] = 1e-6, -1e-6  # = where += was meant
        out.append((fn(*up) - fn(*down)) / 2e-6)
    return out


def reversed_order(fn, inputs):
    return numerical_gradient(fn, inputs)[::-1]


@pytest.mark.parametrize(
    "fn, words",
    [
        (all_at_once, "all inputs nudged at once"),
        (lambda fn, inputs: [-g for g in numerical_gradient(fn, inputs)], "wrong signs"),
        (lambda fn, inputs: [2 * g for g in numerical_gradient(fn, inputs)], "divide by 2 * h"),
        (lambda fn, inputs: [0.0], "partial derivatives"),
        (lambda fn, inputs: [0.0 for _ in inputs], "every partial derivative is 0"),
        (lambda fn, inputs: 0.0, "list of numbers"),
        (lambda fn, inputs: ["a" for _ in inputs], "list of numbers"),
        (mutates, "changed the inputs"),
        (reversed_order, "reverse order"),
        (set_not_nudged, "up[i] += h, not up[i] = h"),
        (backward, "one-sided"),
        (lambda fn, inputs: 1 / 0, "ZeroDivisionError"),
        (numerical_gradient(lambda a, b, c: a * b + c, [2.0, -3.0, 10.0]), "function itself"),
    ],
)
def test_numerical_gradient_hints(fn, words):
    assert words in hint_of(check_numerical_gradient, fn)


@pytest.mark.parametrize("h, size", [(1e-12, "too small"), (0.2, "too large")])
def test_numerical_gradient_says_which_way_h_is_off(h, size):
    """Round-off (h too small) and truncation (h too large) are told apart by a probe on a line."""
    assert size in hint_of(check_numerical_gradient, difference_gradient(h, central=True))


def test_numerical_gradient_stub_is_pointed_at_the_central_difference():
    assert "divide by 2h" in hint_of(check_numerical_gradient, lambda fn, inputs: [0.0 for _ in inputs])


@pytest.mark.parametrize(
    "answer",
    [lambda g, x: 3 * x**2 - 2, lambda g, x: 4.75, lambda g, x: math.cos(x)],  # the example's derivative, ...
)
def test_slope_that_never_calls_g_is_told_so(answer):
    """A slope written for one function (or one number) never calls g: no h will fix that."""
    assert "never calls g" in hint_of(check_slope, answer)
