"""Chapter 1 exercises: slopes by nudging."""

import math
import numbers

from ._core import attempt, solution, verdict

__all__ = ["check_slope", "check_central_difference", "check_numerical_gradient"]


def _number(answer):
    """The learner's answer as a float, or (None, hint). A function of no arguments is called."""
    if callable(answer):
        answer, err = attempt(answer)
        if err:
            return None, err
    if answer is None:
        return None, "the answer is None; assign your number (or return it from your function)"
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return None, f"expected a number, got {type(answer).__name__}"
    answer = float(answer)
    if not math.isfinite(answer):
        return None, f"your answer is {answer}; a slope here is an ordinary finite number"
    return answer, None


# ---- 1. the slope of g(x) = x**3 - 2x at x = 1.5 -------------------------------------------

SLOPE_X = 1.5


def _g(x):
    return x**3 - 2 * x


def check_slope(answer):
    """answer: your estimate of the slope of g(x) = x**3 - 2*x at x = 1.5 (or a function returning it)."""
    value, hint = _number(answer)
    if hint:
        return verdict(False, hint)
    exact = 3 * SLOPE_X**2 - 2  # 4.75
    error = abs(value - exact)
    if error <= 1e-3:
        return verdict(True)
    if abs(value - 3 * SLOPE_X**2) <= 1e-2:
        return verdict(
            False, "that is the slope of x**3 alone (the chapter's earlier g); define g(x) = x**3 - 2*x"
        )
    if abs(value - _g(SLOPE_X)) < 1e-6:
        return verdict(False, "that is g(1.5), the height of the curve; the slope is how fast it changes")
    if abs(value + exact) <= 1e-2:
        return verdict(False, "right size, wrong sign: the nudged value goes first, (g(x + h) - g(x)) / h")
    if abs(value) < 0.5 and value != 0:
        return verdict(False, "very small: did you forget to divide the change g(x + h) - g(x) by h?")
    if error <= 0.5:
        return verdict(False, "close, but h is too large; try h = 1e-6 (or a central difference)")
    return verdict(False, "nudge x = 1.5 by a small h and compute (g(1.5 + h) - g(1.5)) / h")


@solution("ch01.slope", check=check_slope)
def slope_of_g():
    def g(x):
        return x**3 - 2 * x

    h = 1e-6
    return (g(1.5 + h) - g(1.5)) / h


# ---- 2. the central difference ---------------------------------------------------------------

# (function, x, exact slope) triples where the exact answer is known.
_CASES = [
    (lambda x: x**3, 2.0, 12.0),
    (lambda x: math.sin(x), 0.5, math.cos(0.5)),
    (lambda x: 5.0 - 2.0 * x, 1.0, -2.0),
]


def check_central_difference(fn):
    """fn(fn_, x, h) -> the central-difference slope of fn_ at x."""
    if not callable(fn):
        return verdict(
            False, f"pass your function itself, e.g. check_central_difference(central); got {fn!r}"
        )
    h = 1e-3
    for func, x, exact in _CASES:
        got, err = attempt(fn, func, x, h)
        if err:
            return verdict(False, err)
        if isinstance(got, bool) or not isinstance(got, numbers.Real):
            return verdict(False, f"your function should return a number, got {type(got).__name__}")
        central = (func(x + h) - func(x - h)) / (2 * h)
        if abs(got - central) <= 1e-9 * max(1.0, abs(central)):
            continue
        forward = (func(x + h) - func(x)) / h
        if abs(got - forward) <= 1e-9 * max(1.0, abs(forward)):
            return verdict(False, "that is the forward difference; nudge both ways: fn(x + h) - fn(x - h)")
        if abs(got - 2 * central) <= 1e-9 * max(1.0, abs(central)):
            return verdict(False, "twice too large: the two nudged points are 2h apart, so divide by 2 * h")
        if abs(got + central) <= 1e-9 * max(1.0, abs(central)):
            return verdict(False, "wrong sign: subtract fn(x - h) from fn(x + h), not the other way round")
        if abs(got - 2 * h * central) <= 1e-9 or abs(got - central * h * h) <= 1e-9:
            return verdict(False, "divide the difference by 2 * h (mind the brackets: / (2 * h))")
        return verdict(
            False, f"for fn(x) with exact slope {exact:.4f} at x = {x}, your function returned {got:.6f}"
        )
    return verdict(True)


@solution("ch01.central_difference", check=check_central_difference)
def central(fn, x, h):
    return (fn(x + h) - fn(x - h)) / (2 * h)


# ---- 3. a whole gradient -----------------------------------------------------------------------


def _d(a, b, c):
    return a * b + c


def _q(x, y):
    return x * x * y + 3 * y


def check_numerical_gradient(fn):
    """fn(fn_, inputs) -> a list of partial derivatives of fn_(*inputs), one per input."""
    if not callable(fn):
        return verdict(
            False, f"pass your function itself, e.g. check_numerical_gradient(numerical_gradient); got {fn!r}"
        )
    cases = [(_d, [2.0, -3.0, 10.0], [-3.0, 2.0, 1.0]), (_q, [1.5, -2.0], [-6.0, 5.25])]
    for func, inputs, exact in cases:
        given = list(inputs)
        got, err = attempt(fn, func, given)
        if err:
            return verdict(False, err)
        if given != inputs:
            return verdict(False, "your function changed the inputs list; nudge a copy, e.g. list(inputs)")
        try:
            got = [float(v) for v in got]
        except (TypeError, ValueError):
            return verdict(False, f"return a list of numbers, one per input; got {got!r}")
        if len(got) != len(inputs):
            return verdict(
                False, f"{len(inputs)} inputs need {len(inputs)} partial derivatives, you returned {len(got)}"
            )
        for i, (g_i, e_i) in enumerate(zip(got, exact)):
            if abs(g_i - e_i) <= 1e-4:
                continue
            if all(v == 0 for v in got):
                return verdict(
                    False,
                    "every partial derivative is 0: for input i, nudge a copy of the inputs at "
                    "position i by h and divide the change in fn(*inputs) by the nudge",
                )
            if all(abs(v - got[0]) < 1e-9 for v in got) and len(set(exact)) > 1:
                return verdict(
                    False,
                    "every partial derivative came out the same: nudge ONE input at a time, the others fixed",
                )
            return verdict(
                False,
                f"for {func.__name__.lstrip('_')} at {inputs}, input {i} should have slope {e_i:.4f}, "
                f"you returned {g_i:.4f}; nudge only input {i}",
            )
    return verdict(True)


@solution("ch01.numerical_gradient", check=check_numerical_gradient)
def numerical_gradient(fn, inputs):
    h = 1e-6
    grads = []
    for i in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[i] += h
        down[i] -= h
        grads.append((fn(*up) - fn(*down)) / (2 * h))
    return grads
