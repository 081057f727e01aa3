"""Chapter 1 exercises: slopes by nudging, the best nudge, a whole gradient."""

import math
import sys

from ._core import (
    Verdict,
    as_number,
    attempt,
    call_or_value,
    check,
    close,
    first,
    known_mistake,
    not_a_function,
    shown,
    solution,
)

EPS = sys.float_info.epsilon  # 2.2e-16: the gap between 1.0 and the next float

# A nudging estimate counts as right within 0.1% of the exact slope: a forward difference with
# h = 1e-3 gets there on the slope of exercise 1, and every wrong formula is off by far more.
REL = 1e-3


def _number(answer):
    """(value, None) for a finite number (or a function returning one), else (None, hint)."""
    value, hint = call_or_value(answer)
    if hint:
        return None, hint
    if value is None:
        return None, "your answer is still None; assign your number (or return it from your function)"
    number = None if isinstance(value, (str, bytes)) else as_number(value)  # float("4.75") would pass
    if number is None:
        return None, f"expected a number, got {type(value).__name__}"
    if not math.isfinite(number):
        return None, f"your answer is {number}; the answer here is an ordinary finite number"
    return number, None


# ---- 1. the slope of g(x) = x**3 - 2x at x = 1.5, to nine digits ----------------------------

SLOPE_X = 1.5
SLOPE_REL = 1e-9  # nine digits: no forward difference gets there (its best is about 8e-9), a central one does


@check("ch01.slope")
def check_slope(answer):
    """answer: the slope of g(x) = x**3 - 2*x at 1.5 by nudging, to nine digits (or a function giving it)."""
    value, hint = _number(answer)
    if hint:
        return Verdict(False, hint)
    exact = 3 * SLOPE_X**2 - 2  # 4.75
    if close(value, exact, rel=SLOPE_REL):
        return Verdict(True)
    mistake = known_mistake(
        value,
        [
            (3 * SLOPE_X**2, "that is the slope of x**3 alone (the chapter's g); use g(x) = x**3 - 2*x"),
            (
                SLOPE_X**3 - 2 * SLOPE_X,
                "that is g(1.5), the height of the curve; the slope is how fast it changes",
            ),
            (-exact, "right size, wrong sign: the nudged value goes first, (g(x + h) - g(x)) / h"),
        ],
        same=lambda got, want: close(got, want, rel=1e-2),
    )
    if mistake:
        return Verdict(False, mistake)
    if value != 0 and abs(value) < 0.5:
        return Verdict(False, "very small: did you forget to divide the change g(x + h) - g(x) by h?")
    if close(value, exact, rel=0.25):  # the right idea, not yet the accuracy
        return Verdict(
            False,
            f"{value:.10f} is off by {abs(value - exact) / exact:.1e} of the slope; nine digits means "
            "under 1e-9. A forward difference cannot get there at any h (its best here is about 8e-9, as the "
            "U-shaped plot suggests); a central difference can, if h balances its truncation, which shrinks "
            "like h**2, against round-off. Try several h and watch which digits settle",
        )
    return Verdict(False, "nudge x = 1.5 by a small h and compute how fast g changes")


@solution("ch01.slope")
def slope_of_g():
    def g(x):
        return x**3 - 2 * x

    # A forward difference's error here is at best about 4e-8 (chord against round-off). The central
    # difference's truncation is h**2 here (the third derivative over 6 is 1), so h = 1e-5 leaves
    # 1e-10, with round-off about 1e-11.
    h = 1e-5
    return (g(1.5 + h) - g(1.5 - h)) / (2 * h)


# ---- 2. predict the best nudge for f(x) = x**2 + 1000 at x = 1 ---------------------------------

BEST_X = 1.0


def _big_f(x):
    return x * x + 1000.0


# Forward difference of f at x: truncation error (|f''| / 2) h = h, round-off about EPS |f(x)| / h.
# They balance (and their sum is smallest) at h = sqrt(EPS |f(x)| / (|f''| / 2)) = 4.7e-7.
BEST_H = math.sqrt(EPS * _big_f(BEST_X) / 1.0)
CHAPTER_BEST_H = math.sqrt(EPS * 8.0 / 6.0)  # the same balance for g(x) = x**3 at 2: 1.7e-8


def _terms(h):
    """The two error estimates at nudge h: truncation (|f''| / 2) h and round-off eps |f(1)| / h."""
    return f"at h = {h:.1e} truncation is about {h:.1e} and round-off about {EPS * _big_f(BEST_X) / h:.1e}"


@check("ch01.best_h")
def check_best_h(answer):
    """answer: the nudge h you predict is best for the forward difference of x**2 + 1000 at x = 1."""
    h, hint = _number(answer)
    if hint:
        return Verdict(False, hint)
    if h <= 0:
        return Verdict(False, f"a nudge h is a small positive number; got {h}")
    if BEST_H / 2 <= h <= BEST_H * 2:  # the balance, up to the factor of ~2 in "about EPS |f| / h"
        return Verdict(True)
    if close(h, math.sqrt(EPS), rel=0.05):
        return Verdict(
            False,
            "that is sqrt(eps), the rule of thumb for a function whose size and curvature are about 1; "
            f"here |f(1)| = 1001 and f'' = 2, so put them into the balance ({_terms(h)})",
        )
    if CHAPTER_BEST_H / 2 <= h <= CHAPTER_BEST_H * 2:
        return Verdict(
            False,
            "that is the best h for the chapter's x**3 at 2, where |f| = 8 and f'' = 12; here |f(1)| = 1001 "
            f"and f'' = 2, so redo the balance ({_terms(h)})",
        )
    side = "round-off" if h < BEST_H else "truncation"
    return Verdict(
        False,
        f"{_terms(h)}: {side} dominates, so the two are not balanced; solve "
        "(|f''| / 2) * h = eps * |f(1)| / h for h",
    )


@solution("ch01.best_h")
def best_h():
    eps = 2.220446049250313e-16  # np.finfo(float).eps
    f_at_1 = 1**2 + 1000  # round-off: about eps * |f(1)| / h
    half_f2 = 2 / 2  # truncation: about (|f''| / 2) * h, and f'' = 2 everywhere
    # Larger than the 1.7e-8 for x**3 at 2, about 27 times: round-off here is 1001 / 8 = 125 times
    # bigger and truncation 6 / 1 = 6 times smaller, and h grows like sqrt(125 * 6) = 27.4.
    return math.sqrt(eps * f_at_1 / half_f2)  # where h * half_f2 = eps * f_at_1 / h


# ---- 3. a whole gradient -----------------------------------------------------------------------


def _d(a, b, c):
    return a * b + c


def _q(x, y):
    return x * x * y + 3 * y


def _s(u, v):
    return math.sin(u * v) + u


def _bowl(x, y):
    return 10000 * (x - 1) ** 2 + x * y


# (function, inputs, exact partial derivatives, relative tolerance); _s is not a polynomial, so no
# difference is exact. _bowl is a steep quadratic near its floor: a central difference is exact on
# a quadratic whatever h (up to round-off, 1e-10 here), while a one-sided difference is off by
# h * f''/2 = 10000 h, at least 1e-6 of the slope 3 at its best h. So 1e-7 tells the two apart.
_GRADIENT_CASES = [
    (_d, [2.0, -3.0, 10.0], [-3.0, 2.0, 1.0], REL),
    (_q, [1.5, -2.0], [-6.0, 5.25], REL),
    (_s, [0.5, 2.0], [2.0 * math.cos(1.0) + 1.0, 0.5 * math.cos(1.0)], REL),
    (_bowl, [1.0001, 1.0], [20000 * (1.0001 - 1) + 1.0, 1.0001], 1e-7),
]


def _as_numbers(got, n):
    """The learner's result as a list of n floats, or (None, hint)."""
    values = first(got, n + 1)  # one too many is enough to tell; an endless iterator must not hang
    if values is None:
        return None, f"return a list of numbers, one per input; got {type(got).__name__}"
    numbers = [as_number(v) for v in values]
    if any(v is None for v in numbers):
        return None, f"return a list of numbers, one per input; got {shown(got, 80)}"
    if len(numbers) != n:
        many = f"more than {n}" if len(numbers) > n else len(numbers)
        return None, f"{n} inputs need {n} partial derivatives, you returned {many}"
    return numbers, None


def _one_sided(fn):
    """True if, for some input, fn never evaluates the function below it (a one-sided difference)."""
    inputs, below = [1.5, -2.0], [False, False]

    def probe(*args):
        for i, (a, x) in enumerate(zip(args[:2], inputs)):
            below[i] = below[i] or (as_number(a) is not None and as_number(a) < x)
        return _q(*args)

    attempt(fn, probe, list(inputs))
    return not all(below)


ONE_SIDED = (
    "you nudge each input one way only: that is a one-sided difference, off by about h * f''/2. "
    "Nudge both ways, (fn(..., x + h, ...) - fn(..., x - h, ...)) / (2 h), the central difference"
)


@check("ch01.numerical_gradient")
def check_numerical_gradient(fn):
    """fn(fn_, inputs) -> a list of partial derivatives of fn_(*inputs), one per input."""
    wrong = not_a_function(fn, "your numerical_gradient function")
    if wrong is not None:  # a Verdict that says "not yet" is falsy
        return wrong
    for func, inputs, exact, rel in _GRADIENT_CASES:
        given = list(inputs)
        got, err = attempt(fn, func, given)
        if err:
            return Verdict(False, err)
        if given != inputs:
            return Verdict(False, "your function changed the inputs list; nudge a copy, e.g. list(inputs)")
        got, hint = _as_numbers(got, len(inputs))
        if hint:
            return Verdict(False, hint)
        if all(close(g, e, rel=rel, abs_tol=1e-9) for g, e in zip(got, exact)):
            continue
        name = func.__name__.lstrip("_")
        if rel < REL and all(close(g, e, rel=0.5) for g, e in zip(got, exact)) and _one_sided(fn):
            return Verdict(False, f"on {name}(x, y) = 10000 (x - 1)**2 + x y, {ONE_SIDED}")
        if all(v == 0 for v in got):
            return Verdict(
                False,
                "every partial derivative is 0: for input i, nudge a copy of the inputs at position i "
                "by h and divide the change in fn(*inputs) by the nudge",
            )
        if len(set(got)) == 1 and len(set(exact)) > 1:
            together = (
                " (that is the slope with all inputs nudged at once)"
                if close(got[0], sum(exact), rel=REL, abs_tol=1e-4)
                else ""
            )
            return Verdict(
                False,
                f"every partial derivative came out the same{together}: nudge ONE input at a time, "
                "others fixed",
            )
        mistake = known_mistake(
            got,
            [
                (
                    [-e for e in exact],
                    "right sizes, wrong signs: subtract the un-nudged (or down-nudged) value",
                ),
                (
                    [2 * e for e in exact],
                    "every slope is twice too big: a central difference spans 2h, so divide by 2 * h",
                ),
                (exact[::-1], "the right slopes in reverse order: entry i must be the slope for input i"),
            ],
            same=lambda g, w: all(close(a, b, rel=REL, abs_tol=1e-6) for a, b in zip(g, w)),
        )
        if mistake:
            return Verdict(False, mistake)
        i = next(i for i, (g, e) in enumerate(zip(got, exact)) if not close(g, e, rel=REL, abs_tol=1e-6))
        if close(got[i], exact[i], rel=0.25):
            return Verdict(
                False,
                f"for {name} at {inputs}, input {i}'s slope is {exact[i]:.6f} and you returned "
                f"{got[i]:.6f}: close, so the idea is right but the nudge is too large; use the central "
                "difference with h = 1e-6",
            )
        return Verdict(
            False,
            f"for {name} at {inputs}, input {i} should have slope {exact[i]:.4f}, you returned {got[i]:.4f}; "
            f"nudge only input {i}, and divide the change by the size of the nudge",
        )
    if _one_sided(fn):
        return Verdict(False, ONE_SIDED)
    return Verdict(True)


@solution("ch01.numerical_gradient")
def numerical_gradient(fn, inputs):
    h = 1e-6
    grads = []
    for i in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[i] += h
        down[i] -= h
        grads.append((fn(*up) - fn(*down)) / (2 * h))
    return grads
