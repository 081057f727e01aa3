"""Chapter 13 exercises: forward mode, which mode wins, a Newton step, a reverse-mode Jacobian's cost."""

import math

from ..engine import Value, grad
from ._core import Verdict, as_number, attempt, not_a_function, solution

__all__ = ["check_dual_derivative", "check_cheaper_mode", "check_newton_step", "check_reverse_rules"]


# ---- 13.1 derivative(f, x) with dual numbers ----

# (description, f, x, f(x), exact f'(x)); only + - * / and integer powers, so any dual class works
_DERIVATIVE_CASES = [
    ("x**3 - 2*x at x = 1.5", lambda t: t**3 - 2 * t, 1.5, 0.375, 4.75),
    ("(x*x + 1) / (x - 3) at x = 2", lambda t: (t * t + 1) / (t - 3), 2.0, -5.0, -9.0),
    ("1 / x at x = 4", lambda t: 1 / t, 4.0, 0.25, -1 / 16),
    ("(2 - x)**4 * x at x = 0.5", lambda t: (2 - t) ** 4 * t, 0.5, 2.53125, 5.0625 - 4 * 1.5**3 * 0.5),
]


def check_dual_derivative(derivative):
    """derivative(f, x) returns f'(x) exactly (to rounding), by one forward pass with a dual number."""
    problem = not_a_function(derivative, "your derivative function")
    if problem is not None:  # a Verdict, falsy because it says "not yet"
        return problem
    for text, f, x, value, exact in _DERIVATIVE_CASES:
        got, error = attempt(derivative, f, x)
        if error:
            return Verdict(False, f"for {text}: {error}")
        number = as_number(got)
        if number is None:
            kind = type(got).__name__
            return Verdict(False, f"for {text} return a plain number (the tangent, `.dot`), got a {kind}")
        if math.isclose(number, exact, rel_tol=1e-12, abs_tol=1e-12):
            continue
        if math.isclose(number, value, rel_tol=1e-9):
            return Verdict(False, f"for {text} you returned f(x) = {value:g}: return the tangent part, .dot")
        if number == 0:
            return Verdict(False, f"for {text} you got 0: seed the input's tangent with 1, Dual(x, 1.0)")
        times = number / exact if math.isfinite(number) and exact else 0.0
        if times != 1 and times == round(times) and abs(times) > 1:
            return Verdict(
                False,
                f"for {text} you got {times:g} times f'(x): seed the tangent with dx/dx = 1, Dual(x, 1.0)",
            )
        if math.isclose(number, exact, rel_tol=1e-4):
            return Verdict(
                False,
                f"for {text} you got {number:.10f}, close to {exact:.10f} but not exact: that is nudging. "
                "Forward mode is exact: evaluate f once at Dual(x, 1.0) and read the tangent",
            )
        return Verdict(False, f"for {text} f'(x) = {exact:g}, got {number!r}")
    return Verdict(True)


# The on-screen class of the chapter, so that the worked solution is self-contained.
class Dual:
    def __init__(self, val, dot=0.0):
        self.val, self.dot = val, dot

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val + other.val, self.dot + other.dot)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val * other.val, self.dot * other.val + self.val * other.dot)

    __rmul__ = __mul__

    def __neg__(self):
        return Dual(-self.val, -self.dot)

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return -self + other

    def __truediv__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val / other.val, (self.dot * other.val - self.val * other.dot) / other.val**2)

    def __rtruediv__(self, other):
        return Dual(other) / self

    def __pow__(self, n):
        return Dual(self.val**n, n * self.val ** (n - 1) * self.dot)


@solution("ch13.dual_derivative", check=check_dual_derivative)
def dual_derivative(f, x):
    return f(Dual(x, 1.0)).dot  # seed dx/dx = 1; the tangent that comes out is f'(x)


# ---- 13.2 cheaper_mode(n, m): which mode builds the full Jacobian in fewer passes ----

_SHAPES = [(1, 1), (337, 1), (1, 3), (1000, 10), (50, 200), (3, 3), (2, 5), (100000, 1), (7, 2)]


def _truth(n, m):
    if n == m:
        return "either", 1.0
    return ("forward", m / n) if n < m else ("reverse", n / m)


def _shown(x):
    """repr(x) for a hint, even for an object whose __repr__ raises."""
    try:
        return repr(x)
    except Exception:
        return f"a {type(x).__name__}"


def check_cheaper_mode(cheaper_mode):
    """cheaper_mode(n, m) for f: R^n -> R^m returns (mode, factor): the mode with fewer passes, and how many
    times fewer ("either", 1.0 on a tie)."""
    problem = not_a_function(cheaper_mode, "your cheaper_mode function")
    if problem is not None:  # a Verdict, falsy because it says "not yet"
        return problem
    for n, m in _SHAPES:
        want_mode, want_factor = _truth(n, m)
        shape = f"f: R^{n} -> R^{m}"
        got, error = attempt(cheaper_mode, n, m)
        if error:
            return Verdict(False, f"for {shape}: {error}")
        if not isinstance(got, tuple) or len(got) != 2:
            return Verdict(False, f"return a pair (mode, factor), e.g. ('reverse', 337.0); got {_shown(got)}")
        mode, factor = got
        if not isinstance(mode, str) or mode not in ("forward", "reverse", "either"):
            return Verdict(False, f"the mode is 'forward', 'reverse' or 'either'; got {_shown(mode)}")
        if mode != want_mode:
            if want_mode == "either":
                passes = "one pass" if n == 1 else f"{n} passes"
                return Verdict(False, f"for {shape} both modes need {passes}: answer ('either', 1.0)")
            return Verdict(
                False,
                f"for {shape} you chose {mode}: forward mode needs one pass per input ({n}), "
                f"reverse mode one per output ({m})",
            )
        number = as_number(factor)
        if number is None or not math.isclose(number, want_factor, rel_tol=1e-9):
            if number is not None and math.isclose(number, 1 / want_factor, rel_tol=1e-9):
                return Verdict(False, f"for {shape} the factor is upside down: slower passes / faster passes")
            return Verdict(
                False,
                f"for {shape} {want_mode} mode is right; the factor is how many times fewer passes it needs "
                f"than the other mode ({max(n, m)} / {min(n, m)}), got {_shown(factor)}",
            )
    return Verdict(True)


@solution("ch13.cheaper_mode", check=check_cheaper_mode)
def cheaper_mode(n, m):
    # Forward mode builds one column of the m x n Jacobian per pass (n passes), reverse one row (m).
    if n == m:
        return "either", 1.0
    if n < m:
        return "forward", m / n
    return "reverse", n / m


# ---- 13.3 newton_step(f, x) with second derivatives from grad(create_graph=True) ----


def _f_quartic(v):
    return v**4 - 2 * v**2


def _f_exp(v):
    return (v - 3) ** 2 + v.exp()


def _f_tanh(v):
    return v * v.tanh() + 0.5 * v


_NEWTON_CASES = [  # (description, f, x, f'(x), f''(x))
    ("x**4 - 2x**2 at x = 2", _f_quartic, 2.0, 24.0, 44.0),
    ("(x - 3)**2 + exp(x) at x = 0.5", _f_exp, 0.5, -5 + math.exp(0.5), 2 + math.exp(0.5)),
]


def _tanh_case(x=0.3):
    t = math.tanh(x)
    s = 1 - t * t  # tanh'
    return ("x tanh(x) + x/2 at x = 0.3", _f_tanh, x, t + x * s + 0.5, 2 * s - 2 * x * t * s)


def check_newton_step(newton_step):
    """newton_step(f, x) returns x - f'(x) / f''(x), with both derivatives exact (not by nudging)."""
    problem = not_a_function(newton_step, "your newton_step function")
    if problem is not None:  # a Verdict, falsy because it says "not yet"
        return problem
    for text, f, x, d1, d2 in _NEWTON_CASES + [_tanh_case()]:
        want = x - d1 / d2
        got, error = attempt(newton_step, f, x)
        if error:
            return Verdict(False, f"for f(x) = {text}: {error}")
        number = as_number(got.data if isinstance(got, Value) else got)
        if number is None:
            kind = type(got).__name__
            return Verdict(False, f"for f(x) = {text} return the next x as a number, got a {kind}")
        if math.isclose(number, want, rel_tol=1e-10, abs_tol=1e-12):
            continue
        wrong = {
            x + d1 / d2: "the sign is flipped: step to x - f'(x) / f''(x)",
            x - d2 / d1: "the fraction is upside down: f'(x) / f''(x), not f''(x) / f'(x)",
            x - d1: "that is a gradient-descent step of rate 1; divide by f''(x) instead",
            x - d1 / d2 / 2: "you halved the step; Newton's step is the full f'(x) / f''(x)",
            x - 1: "your step is exactly 1, f'(x) divided by itself: f''(x) is grad() of the slope, not of f",
        }
        for value, hint in wrong.items():
            if math.isclose(number, value, rel_tol=1e-9):
                return Verdict(False, f"for f(x) = {text}: {hint}")
        if math.isclose(number, want, rel_tol=1e-4):
            return Verdict(
                False,
                f"for f(x) = {text} you got {number:.10f}, near {want:.10f} but not exact: nudging? "
                "Take f'(x) with grad(..., create_graph=True) and f''(x) with grad() of that",
            )
        return Verdict(False, f"for f(x) = {text} the next x is {want:.6f}, got {number!r}")
    return Verdict(True)


@solution("ch13.newton_step", check=check_newton_step)
def newton_step(f, x):
    v = Value(x)
    (slope,) = grad(f(v), [v], create_graph=True)  # f'(x) as a Value, with a graph of its own
    (curvature,) = grad(slope, [v])  # f''(x)
    return x - slope.data / curvature


# ---- 13.4 reverse_rules(m): backward rules for the chain's full Jacobian, derived, not counted ----

_CHAIN_LENGTHS = [*range(1, 21), 40, 128, 1000]


def _chain_rules(m):
    """Output k of the chain h1 = tanh(t), h(k+1) = tanh(hk * t) holds 2k - 1 operations, and its
    backward pass applies one rule per operation: 1 + 3 + ... + (2m - 1) = m * m in all.
    (tests/test_exercises_ch13.py counts the real graphs to confirm it.)"""
    return m * m


# Formulas a learner may reach instead, each with what it gets wrong (judged over every m at once).
_WRONG_COUNTS = [
    (
        lambda m: m * (2 * m - 1),
        "you gave every backward pass the whole chain, 2m - 1 operations; the pass for output k "
        "reaches only output k's own graph, 2k - 1 operations",
    ),
    (lambda m: 2 * m - 1, "that is one backward pass, the last output's; reverse mode runs one per output"),
    (lambda m: m, "that is the number of backward passes; each applies one rule per operation it reaches"),
    (
        lambda m: m * m + 2 * m - 1,
        "you added the forward pass's 2m - 1 values; count only the backward rules",
    ),
    (
        lambda m: 2 * (2 * m - 1),
        "that is forward mode's cost (one pass, a value and a tangent per operation)",
    ),
]


def check_reverse_rules(reverse_rules):
    """reverse_rules(m) is how many backward rules reverse mode applies to build the full Jacobian of
    the chapter's one_to_many(t, m): one backward pass per output, each over that output's graph."""
    problem = not_a_function(reverse_rules, "your reverse_rules function")
    if problem is not None:  # a Verdict, falsy because it says "not yet"
        return problem
    answers = {}
    for m in _CHAIN_LENGTHS:
        got, error = attempt(reverse_rules, m)
        if error:
            return Verdict(False, f"for m = {m}: {error}")
        answers[m] = as_number(got)
        if answers[m] is None:
            return Verdict(False, f"for m = {m} return a count (a number), got a {type(got).__name__}")
    wrong = [m for m in _CHAIN_LENGTHS if answers[m] != _chain_rules(m)]
    if not wrong:
        return Verdict(True)
    for formula, hint in _WRONG_COUNTS:
        if all(answers[m] == formula(m) for m in _CHAIN_LENGTHS):
            return Verdict(False, hint)
    m = wrong[0]
    rules = "one backward rule" if m == 1 else f"{_chain_rules(m)} backward rules"
    return Verdict(
        False,
        f"for m = {m} reverse mode applies {rules}, got {answers[m]:g}. "
        "Draw the chain for m = 3: how many operations does each output's graph hold?",
    )


@solution("ch13.reverse_rules", check=check_reverse_rules)
def reverse_rules(m):
    # Output k's graph: tanh(t), then (times t, tanh) k - 1 times: 2k - 1 operations, one rule each.
    # Summed over the m backward passes: 1 + 3 + 5 + ... + (2m - 1) = m squared.
    return sum(2 * k - 1 for k in range(1, m + 1))
