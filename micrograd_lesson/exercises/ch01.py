"""Chapter 1 exercises: slopes by nudging, the best nudge, a whole gradient."""

import math
import sys

from ._core import (
    Verdict,
    as_number,
    attempt,
    check,
    close,
    first,
    not_a_function,
    read_number,
    shown,
    solution,
)

EPS = sys.float_info.epsilon  # 2.2e-16: the gap between 1.0 and the next float

# ---- 1. slope(g, x): any function's slope by nudging, to nine digits ----------------------------


def _cubic(x):
    return x**3 - 2 * x


# (g, its name in a hint, x, g'(x)). A single number could be a lucky forward difference (about one
# h in 250 lands within 1e-9 here by chance); five functions and points cannot.
SLOPE_CASES = [
    (_cubic, "x**3 - 2*x", 1.5, 4.75),
    (_cubic, "x**3 - 2*x", 1.3, 3 * 1.3**2 - 2),
    (math.sin, "sin", 1.0, math.cos(1.0)),
    (math.exp, "exp", 0.5, math.exp(0.5)),
    (math.log, "log", 3.0, 1 / 3),
]


def _slope_hint(slope, g, name, x, got, want):
    """Why slope(g, x) gave `got` instead of `want`."""
    where = f"slope({name}, {x}) should be {want:.10g}, got {got:.10g}"
    if close(got, -want, rel=1e-2):
        return f"{where}: wrong sign; the nudged value goes first, g(x + h) - ..."
    if close(got, 2 * want, rel=1e-2):
        return f"{where}: twice the slope; a central difference spans 2h, so divide by 2 * h"
    if close(got, g(x), rel=1e-2):
        return f"{where}: that is g({x}), the height; the slope is how fast g changes"
    if not close(got, want, rel=0.25):
        return f"{where}: nudge x by a small h and divide the change in g by the change in x"
    lean, _ = attempt(slope, lambda t: t * t, 0.0)  # x**2 at 0: any centred difference gives exactly 0
    if as_number(lean) not in (None, 0.0):
        return (
            f"{where}: off by {abs(got - want) / abs(want):.0e} of the slope, and on x**2 at 0 yours gives "
            f"{as_number(lean):.1e} instead of 0: a one-sided difference leans towards its side; its error "
            "is at best about 1e-8 here, whatever h. Nudge both ways"
        )
    return (
        f"{where}: off by {abs(got - want) / abs(want):.0e}; nine digits means under 1e-9. A central "
        "difference's error shrinks like h**2 until round-off, which grows like 1/h, takes over: try "
        "several h and watch which digits settle"
    )


@check("ch01.slope")
def check_slope(slope):
    """slope(g, x): g's slope at x, by nudging, to nine digits, on five functions and points."""
    if (wrong := not_a_function(slope, "slope")) is not None:
        return wrong
    for g, name, x, want in SLOPE_CASES:
        got, error = attempt(slope, g, x)
        number = as_number(got)
        if error or number is None or not math.isfinite(number):
            return Verdict(False, f"slope({name}, {x}): {error or f'return a number, got {shown(got)}'}")
        if not close(number, want, rel=1e-9):
            return Verdict(False, _slope_hint(slope, g, name, x, number, want))
    return Verdict(True)


@solution("ch01.slope")
def slope(g, x):
    # A forward difference's error is at best about 1e-8 of these slopes (chord against round-off).
    # The central difference's truncation shrinks like h**2: h = 1e-5 leaves about 1e-10, with
    # round-off about 1e-11.
    h = 1e-5
    return (g(x + h) - g(x - h)) / (2 * h)


# ---- 2. predict the best nudge for f(x) = x**2 + 1000 at x = 1 ---------------------------------

# Forward difference of f at 1: truncation (|f''| / 2) h = h, round-off about EPS |f(1)| / h.
# They balance (and their sum is smallest) at h = sqrt(EPS * 1001) = 4.7e-7.
BEST_H = math.sqrt(EPS * 1001.0)
CHAPTER_BEST_H = math.sqrt(EPS * 8.0 / 6.0)  # the same balance for g(x) = x**3 at 2: 1.7e-8


@check("ch01.best_h")
def check_best_h(answer):
    """answer: the nudge h you predict is best for the forward difference of x**2 + 1000 at x = 1."""
    h, hint = read_number(answer)
    if hint or h <= 0:
        return hint or f"a nudge h is a small positive number; got {h}"
    if BEST_H / 2 <= h <= BEST_H * 2:  # the balance, up to the factor of ~2 in "about EPS |f| / h"
        return Verdict(True)
    terms = f"at h = {h:.1e} truncation is about {h:.1e} and round-off about {EPS * 1001 / h:.1e}"
    redo = f"; here |f(1)| = 1001 and f'' = 2, so redo the balance ({terms})"
    if close(h, math.sqrt(EPS), rel=0.05):
        return "that is sqrt(eps), the rule of thumb when |f| and f'' are about 1" + redo
    if CHAPTER_BEST_H / 2 <= h <= CHAPTER_BEST_H * 2:
        return "that is the best h for the chapter's x**3 at 2, where |f| = 8 and f'' = 12" + redo
    side = "round-off" if h < BEST_H else "truncation"
    return f"{terms}: {side} dominates; solve (|f''| / 2) * h = eps * |f(1)| / h for h"


@solution("ch01.best_h")
def best_h():
    eps = 2.220446049250313e-16  # np.finfo(float).eps
    f_at_1 = 1**2 + 1000  # round-off: about eps * |f(1)| / h
    half_f2 = 2 / 2  # truncation: about (|f''| / 2) * h, and f'' = 2 everywhere
    # Larger than the 1.7e-8 for x**3 at 2, about 27 times: round-off here is 1001 / 8 = 125 times
    # bigger and truncation 6 / 1 = 6 times smaller, and h grows like sqrt(125 * 6) = 27.4.
    return math.sqrt(eps * f_at_1 / half_f2)  # where h * half_f2 = eps * f_at_1 / h


# ---- 3. a whole gradient -----------------------------------------------------------------------


def _q(x, y):
    return x * x * y + 3 * y


# (name, function, inputs, exact partial derivatives, relative tolerance). sin is not a polynomial,
# so no difference is exact on it. The last is a steep quadratic near its floor: a central difference
# is exact on a quadratic whatever h (up to round-off, 1e-10 here), while a one-sided difference is
# off by h * f''/2 = 10000 h, at least 1e-6 of the slope 3 at its best h. So 1e-7 tells them apart.
COS_1 = math.cos(1.0)
GRADIENT_CASES = [
    ("a*b + c", lambda a, b, c: a * b + c, [2.0, -3.0, 10.0], [-3.0, 2.0, 1.0], 1e-3),
    ("x*x*y + 3y", _q, [1.5, -2.0], [-6.0, 5.25], 1e-3),
    ("sin(u*v) + u", lambda u, v: math.sin(u * v) + u, [0.5, 2.0], [2 * COS_1 + 1, 0.5 * COS_1], 1e-3),
    ("10000 (x - 1)**2 + x y", lambda x, y: 10000 * (x - 1) ** 2 + x * y, [1.0001, 1.0], [3.0, 1.0001], 1e-7),
]
ONE_SIDED = (
    "you nudge each input one way only: that is a one-sided difference, off by about h * f''/2. "
    "Nudge both ways, (fn(..., x + h, ...) - fn(..., x - h, ...)) / (2 h), the central difference"
)


def _one_sided(fn):
    """True if fn, asked for the gradient of _q, never evaluates _q on both sides of some input."""
    at, sides = [1.5, -2.0], [set(), set()]

    def probe(*args):
        for side, a, x in zip(sides, map(as_number, args), at):
            if a is not None and a != x:
                side.add(a > x)
        return _q(*args)

    attempt(lambda: first(fn(probe, list(at)), 10))  # a lazy result (map, generator) is read too
    return any(len(side) < 2 for side in sides)


def _set_not_nudged(func, inputs, h=1e-6):
    """The slopes `up[i] = h` (for `up[i] += h`) gives: each one taken with its input at 0."""
    grads = []
    for i in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[i], down[i] = h, -h
        grads.append((func(*up) - func(*down)) / (2 * h))
    return grads


def _gradient_hint(fn, func, name, inputs, got, exact, rel):
    """The hint for a gradient that is wrong somewhere: a known mistake, or the first wrong entry."""
    if rel < 1e-3 and all(close(g, e, rel=0.5) for g, e in zip(got, exact)) and _one_sided(fn):
        return f"on {name}, {ONE_SIDED}"
    if not any(got):
        return (
            "every partial derivative is 0: for input i, nudge a copy of the inputs at position i by h and "
            "divide the change in fn(*inputs) by the nudge"
        )
    mistakes = [  # (a mistaken gradient, its hint)
        ([sum(exact)] * len(exact), "that is the slope with all inputs nudged at once: nudge ONE at a time"),
        ([-e for e in exact], "right sizes, wrong signs: subtract the un-nudged (or down-nudged) value"),
        ([2 * e for e in exact], "twice too big: a central difference spans 2h, so divide by 2 * h"),
        (exact[::-1], "the right slopes in reverse order: entry i must be the slope for input i"),
        (_set_not_nudged(func, inputs), "input i set to h, not nudged by h: up[i] += h, not up[i] = h"),
    ]
    for wrong, hint in mistakes:
        if all(close(g, w, rel=1e-3, abs_tol=1e-4) for g, w in zip(got, wrong)):
            return hint
    if len(set(got)) == 1:
        return "every partial derivative came out the same: nudge ONE input at a time, others fixed"
    i = next(i for i, (g, e) in enumerate(zip(got, exact)) if not close(g, e, rel=rel, abs_tol=1e-9))
    if close(got[i], exact[i], rel=0.25):
        why = "close: the nudge is too large; use the central difference with h = 1e-6"
    else:
        why = f"nudge only input {i}, and divide the change by the size of the nudge"
    return f"for {name} at {inputs}, input {i}'s slope is {exact[i]:.6f}, you returned {got[i]:.6f}: {why}"


@check("ch01.numerical_gradient")
def check_numerical_gradient(fn):
    """fn(fn_, inputs) -> a list of partial derivatives of fn_(*inputs), one per input."""
    if (wrong := not_a_function(fn, "your numerical_gradient function")) is not None:
        return wrong
    for name, func, inputs, exact, rel in GRADIENT_CASES:
        given, n = list(inputs), len(inputs)
        got, error = attempt(fn, func, given)
        got = None if error else first(got, n + 1)  # one too many is enough to tell; never hang
        numbers = [as_number(g) for g in got or ()]
        if error or got is None or None in numbers:
            return f"for {name} at {inputs}: {error or 'return a list of numbers, one per input'}"
        if given != inputs:
            return "your function changed the inputs list; nudge a copy, e.g. list(inputs)"
        if len(numbers) != n:
            many = "more" if len(numbers) > n else len(numbers)
            return f"{n} inputs need {n} partial derivatives, you returned {many}"
        if not all(close(g, e, rel=rel, abs_tol=1e-9) for g, e in zip(numbers, exact)):
            return _gradient_hint(fn, func, name, inputs, numbers, exact, rel)
    return ONE_SIDED if _one_sided(fn) else Verdict(True)


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
