"""Chapter 1 exercises: slopes by nudging, the best nudge, a whole gradient."""

import math

from ._core import as_number, attempt, check, close, first, known_mistake, shown, solution
from ._shared import all_exact, numbers

# ---- 1. slope(g, x): any function's slope by nudging, to nine digits ----------------------------
# (g, its name in a hint, x, g'(x)). A single number could be a lucky forward difference (about one
# h in 250 lands within 1e-9 here by chance); five functions and points cannot.
SLOPE_CASES = [
    (lambda x: x**3 - 2 * x, "x**3 - 2*x", 1.5, 4.75),
    (lambda x: x**3 - 2 * x, "x**3 - 2*x", 1.3, 3 * 1.3**2 - 2),
    (math.sin, "sin", 1.0, math.cos(1.0)),
    (math.exp, "exp", 0.5, math.exp(0.5)),
    (math.log, "log", 3.0, 1 / 3),
]


@check("ch01.slope", takes="function")
def check_slope(slope):
    """slope(g, x): g's slope at x, by nudging, to nine digits, on five functions and points."""
    for g, name, x, want in SLOPE_CASES:
        got, error = attempt(slope, g, x)
        if error or (number := as_number(got)) is None or not math.isfinite(number):
            return f"slope({name}, {x}): {error or f'return a number, got {shown(got)}'}"
        if not close(number, want, rel=1e-9):
            break
    else:
        return True
    where = f"slope({name}, {x}) should be {want:.10g}, got {number:.10g}"
    calls = []  # the points at which the learner's slope calls g

    def probe(t):
        calls.append(t)
        return g(t)

    attempt(slope, probe, x)
    if not calls:
        return f"{where}: your slope never calls g. It must work for any g it is given: call g near x"
    if close(number, -want, rel=1e-2):
        return f"{where}: wrong sign; the nudged value goes first, g(x + h) - ..."
    if close(number, 2 * want, rel=1e-2):
        return f"{where}: twice the slope; a central difference spans 2h, so divide by 2 * h"
    if close(number, g(x), rel=1e-2):
        return f"{where}: that is g({x}), the height; the slope is how fast g changes"
    if not close(number, want, rel=0.25):
        return f"{where}: nudge x by a small h and divide the change in g by the change in x"
    where += f", off by {abs(number - want) / abs(want):.0e}"
    lean = as_number(attempt(slope, lambda t: t * t, 0.0)[0])  # x**2 at 0: a centred difference gives 0
    if lean not in (None, 0.0):
        return f"{where}; x**2 at 0 gives {lean:.1e}, not 0: one-sided, no h will do. Nudge both ways"
    return f"{where}; nine digits is 1e-9: error falls like h**2 until round-off takes over. Try several h"


@solution("ch01.slope")
def slope(g, x):
    # A forward difference is at best about 1e-8 off here (chord against round-off); the central
    # difference's error shrinks like h**2: h = 1e-5 leaves about 1e-10, round-off about 1e-11.
    h = 1e-5
    return (g(x + h) - g(x - h)) / (2 * h)


# ---- 2. predict the best nudge for f(x) = x**2 + 1000 at x = 1 ---------------------------------
# Forward difference of f at 1: truncation (|f''| / 2) h = h, round-off about EPS |f(1)| / h.
# They balance (and their sum is smallest) where they are equal. The check weighs the two at the
# learner's h (within a factor of 2 of the balance: one within a factor of 4 of the other, short of
# 2h itself, the smallest total error); it keeps no copy of the best h, which the student edition
# would hand out.
EPS = math.ulp(1.0)  # 2.2e-16: the gap between 1.0 and the next float
CHAPTER_BEST_H = math.sqrt(EPS * 8.0 / 6.0)  # the same balance for g(x) = x**3 at 2: 1.7e-8


@check("ch01.best_h", takes="number")
def check_best_h(h):
    """h: the nudge you predict is best for the forward difference of x**2 + 1000 at x = 1."""
    if h <= 0:
        return f"a nudge h is a small positive number; got {h}"
    truncation, round_off = h, EPS * 1001 / h  # at the learner's h
    ratio = truncation / round_off  # 1 at the balance; (h / best h) ** 2 elsewhere
    terms = f"at h = {h:.1e} truncation is about {h:.1e} and round-off about {round_off:.1e}"
    if 3.9 <= ratio <= 4.04:  # h = 2 * best h: truncation + round-off at the balance, the error itself
        return (
            f"that is the smallest total error, truncation + round-off, not the nudge that gives it: "
            f"the best h is where the two terms are equal ({terms})"
        )
    if 1 / 4 <= ratio * (1 + 1e-12) and ratio < 3.9:
        return True  # the balance, up to the factor of ~2 in "about EPS |f| / h" (h**2 goes by 4)
    redo = f"; here |f(1)| = 1001 and f'' = 2, so redo the balance ({terms})"
    if close(h, math.sqrt(EPS), rel=0.05):
        return "that is sqrt(eps), the rule of thumb when |f| and f'' are about 1" + redo
    if CHAPTER_BEST_H / 2 <= h <= CHAPTER_BEST_H * 2:
        return "that is the best h for the chapter's x**3 at 2, where |f| = 8 and f'' = 12" + redo
    side = "round-off" if round_off > truncation else "truncation"
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
# (name, fn, inputs, exact partials, relative tolerance). On the last, a steep quadratic, a central
# difference is exact up to round-off (1e-10), a one-sided one off by at least 1e-6: 1e-7 parts them.
COS_1 = math.cos(1.0)
GRADIENT_CASES = [
    ("a*b + c", lambda a, b, c: a * b + c, [2.0, -3.0, 10.0], [-3.0, 2.0, 1.0], 1e-3),
    ("x*x*y + 3y", lambda x, y: x * x * y + 3 * y, [1.5, -2.0], [-6.0, 5.25], 1e-3),
    ("sin(u*v) + u", lambda u, v: math.sin(u * v) + u, [0.5, 2.0], [2 * COS_1 + 1, 0.5 * COS_1], 1e-3),
    ("10000 (x - 1)**2 + x y", lambda x, y: 10000 * (x - 1) ** 2 + x * y, [1.0001, 1.0], [3.0, 1.0001], 1e-7),
]
ONE_SIDED = "you nudge one way only: a one-sided difference, off by about h * f''/2. Nudge both ways"


def _one_sided(numerical_gradient, func, inputs):
    sides = [set() for _ in inputs]  # for each input: was func called with it nudged up, down?

    def probe(*args):
        for side, a, x in zip(sides, map(as_number, args), inputs):
            if a is not None and a != x:
                side.add(a > x)
        return func(*args)

    attempt(lambda: first(numerical_gradient(probe, list(inputs)), 10))  # a lazy result is read too
    return any(len(side) < 2 for side in sides)


@check("ch01.numerical_gradient", takes="function")
def check_numerical_gradient(numerical_gradient):
    """numerical_gradient(fn, inputs) -> a list of partial derivatives of fn(*inputs), one per input."""
    for name, func, inputs, exact, rel in GRADIENT_CASES:
        given, n = list(inputs), len(inputs)
        got, error = attempt(numerical_gradient, func, given)
        grads = numbers(first(got, n + 1))  # one too many is enough to tell; never hang
        if grads is None:
            return f"for {name} at {inputs}: {error or 'return a list of numbers, one per input'}"
        if given != inputs:
            return "your function changed the inputs list; nudge a copy, e.g. list(inputs)"
        if len(grads) != n:
            return f"{n} inputs need {n} partial derivatives, got {len(grads) if len(grads) < n else 'more'}"
        if not all_exact(grads, exact, rel, 1e-9):
            break
    else:
        return ONE_SIDED if _one_sided(numerical_gradient, func, inputs) else True
    if rel < 1e-3 and all_exact(grads, exact, 0.5) and _one_sided(numerical_gradient, func, inputs):
        return f"on {name}, {ONE_SIDED}"
    if not any(grads):  # exactly 0, as the stub returns; nudging them all at once gives about 0 on a*b + c
        return "every partial derivative is 0: nudge input i of a copy up by h, of another down; divide by 2h"
    set_to_h = [  # what up[i] = h, meant as up[i] += h, gives: each slope taken with its input at 0
        (func(*inputs[:i], 1e-6, *inputs[i + 1 :]) - func(*inputs[:i], -1e-6, *inputs[i + 1 :])) / 2e-6
        for i in range(n)
    ]
    mistakes = [  # (a mistaken gradient, its hint)
        ([sum(exact)] * n, "that is the slope with all inputs nudged at once: nudge ONE at a time"),
        ([-e for e in exact], "right sizes, wrong signs: subtract the un-nudged (or down-nudged) value"),
        ([2 * e for e in exact], "twice too big: a central difference spans 2h, so divide by 2 * h"),
        (exact[::-1], "the right slopes in reverse order: entry i must be the slope for input i"),
        (set_to_h, "input i set to h, not nudged by h: up[i] += h, not up[i] = h"),
        (
            [grads[0]] * n,
            "every partial derivative came out the same: nudge ONE input at a time, others fixed",
        ),
    ]
    if hint := known_mistake(grads, mistakes, same=lambda got, wrong: all_exact(got, wrong, 1e-3, 1e-4)):
        return hint
    i = next(i for i, (g, e) in enumerate(zip(grads, exact)) if not close(g, e, rel=rel, abs_tol=1e-9))
    why = f"nudge only input {i}, and divide the change by the size of the nudge"
    if close(grads[i], exact[i], rel=0.25):  # too large an h, or too small: a line has no truncation error
        line = numbers(attempt(lambda: first(numerical_gradient(lambda *v: 1e3 + sum(v), [1.0] * n), n))[0])
        small = line is not None and not all_exact(line, [1.0] * n, 1e-6)
        why = "close: the nudge is too " + ("small: round-off swamps it" if small else "large")
        why += "; use the central difference with h = 1e-6"
    return f"for {name} at {inputs}, input {i}'s slope is {exact[i]:.6f}, you returned {grads[i]:.6f}: {why}"


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
