"""Chapter 13 exercises: a dual rule for a ** b, which mode wins, a Newton step that cannot climb,
a reverse-mode Jacobian's cost."""

import collections
import math

from ..engine import Value, grad
from ._core import Verdict, as_number, attempt, check, not_a_function, shown, solution

# ---- 13.1 a dual rule not shown: a ** b with both carrying a tangent ----


# The check hands the learner's function duals of the notebook's own class when it can find it;
# otherwise (in the tests, and for the worked solution) a bare pair with .val and .dot.
_Pair = collections.namedtuple("Dual", "val dot")


def _pow_rule(a, b, base=True, exponent=True, log=True):
    """(val, dot) of a ** b for duals a = (val, dot), b = (val, dot), with parts switchable off."""
    (u, du), (v, dv) = a, b
    dot = (v * u ** (v - 1) * du if base else 0.0) + (
        u**v * (math.log(u) if log else 1.0) * dv if exponent else 0.0
    )
    return u**v, dot


# (a, b) as (val, dot) pairs: base only, exponent only, both (x ** x at 3), and a fractional mix.
_POW_CASES = [
    ((2.0, 1.0), (3.0, 0.0)),
    ((2.0, 0.0), (3.0, 1.0)),
    ((3.0, 1.0), (3.0, 1.0)),
    ((1.5, 0.7), (-0.5, 2.0)),
]

_POW_MISTAKES = [
    (
        lambda a, b: _pow_rule(a, b, exponent=False),
        "that is the power rule alone, right when only the base moves; the exponent's tangent "
        "counts too: d(u**v) = v u**(v-1) du + u**v ln(u) dv",
    ),
    (
        lambda a, b: _pow_rule(a, b, base=False),
        "that is the exponential rule alone, right when only the exponent moves; "
        "the base's tangent counts too",
    ),
    (lambda a, b: _pow_rule(a, b, log=False), "d(u**v)/dv is u**v times ln(u): write u**v as exp(v ln u)"),
]


def _dual_class(fn):
    """The Dual class the learner's notebook defines (so its own isinstance tests work), else ours."""
    cls = getattr(fn, "__globals__", {}).get("Dual")
    return cls if isinstance(cls, type) and attempt(cls, 1.0, 0.0)[1] is None else _Pair


@check("ch13.dual_pow")
def check_dual_pow(dual_pow):
    """dual_pow(a, b) returns the Dual a ** b, exact in both val and dot, when both a and b carry tangents."""
    if (problem := not_a_function(dual_pow, "your dual_pow function")) is not None:
        return problem
    cls, answers = _dual_class(dual_pow), []
    for a, b in _POW_CASES:
        got, error = attempt(dual_pow, cls(*a), cls(*b))
        pair = (
            (as_number(getattr(got, "val", None)), as_number(getattr(got, "dot", None)))
            if error is None
            else ()
        )
        if error or None in pair:
            return Verdict(
                False, f"for a = Dual{a}, b = Dual{b}: " + (error or "return a Dual (with .val and .dot)")
            )
        answers.append(pair)

    def matches(rule):
        return all(
            math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-12)
            for got, c in zip(answers, _POW_CASES)
            for g, w in zip(got, rule(*c))
        )

    if matches(_pow_rule):
        return Verdict(True)
    hint = next((h for rule, h in _POW_MISTAKES if matches(rule)), None)
    if hint:
        return Verdict(False, hint)
    for got, (a, b) in zip(answers, _POW_CASES):
        want = _pow_rule(a, b)
        if not math.isclose(got[0], want[0], rel_tol=1e-12):
            return Verdict(
                False, f"for a = Dual{a}, b = Dual{b} the value a.val ** b.val is {want[0]:g}, got {got[0]!r}"
            )
        if not math.isclose(got[1], want[1], rel_tol=1e-12, abs_tol=1e-12):
            close_ = math.isclose(got[1], want[1], rel_tol=1e-4)
            return Verdict(
                False,
                f"for a = Dual{a}, b = Dual{b} the tangent is {want[1]:.12g}, got {got[1]:.12g}"
                + (": close but not exact, as nudging would be; derive the rule" if close_ else ""),
            )
    return Verdict(False, "compare your rule with d(u**v) = v u**(v-1) du + u**v ln(u) dv")


@solution("ch13.dual_pow")
def dual_pow(a, b):
    # u**v = exp(v ln u): the product rule on v ln u gives both tangents' shares.
    val = a.val**b.val
    dot = b.val * a.val ** (b.val - 1) * a.dot + val * math.log(a.val) * b.dot
    return type(a)(val, dot)


# ---- 13.2 cheaper_mode(n, m): which mode builds the full Jacobian in fewer passes ----

_SHAPES = [(1, 1), (337, 1), (1, 3), (1000, 10), (50, 200), (3, 3), (2, 5), (100000, 1), (7, 2)]


def _truth(n, m):
    if n == m:
        return "either", 1.0
    return ("forward", m / n) if n < m else ("reverse", n / m)


@check("ch13.cheaper_mode")
def check_cheaper_mode(cheaper_mode):
    """cheaper_mode(n, m) for f: R^n -> R^m returns (mode, factor): the mode with fewer passes, and how many
    times fewer ("either", 1.0 on a tie)."""
    if (problem := not_a_function(cheaper_mode, "your cheaper_mode function")) is not None:
        return problem
    for n, m in _SHAPES:
        (want_mode, want_factor), shape = _truth(n, m), f"for f: R^{n} -> R^{m}"
        got, error = attempt(cheaper_mode, n, m)
        if error or not isinstance(got, tuple) or len(got) != 2:
            return Verdict(False, f"{shape}: " + (error or f"return a pair (mode, factor); got {shown(got)}"))
        mode, factor = got[0], as_number(got[1])
        if not isinstance(mode, str) or mode not in ("forward", "reverse", "either"):
            return Verdict(False, f"the mode is 'forward', 'reverse' or 'either'; got {shown(mode)}")
        if mode != want_mode and want_mode == "either":
            passes = "one pass" if n == 1 else f"{n} passes"
            return Verdict(False, f"{shape} both modes need {passes}: answer ('either', 1.0)")
        if mode != want_mode:
            passes = f"forward mode needs one pass per input ({n}), reverse mode one per output ({m})"
            return Verdict(False, f"{shape} you chose {mode}: {passes}")
        if factor is None or not math.isclose(factor, want_factor, rel_tol=1e-9):
            upside_down = factor is not None and math.isclose(factor, 1 / want_factor, rel_tol=1e-9)
            return Verdict(
                False,
                f"{shape} {want_mode} mode is right; "
                + (
                    "the factor is upside down: slower passes / faster passes"
                    if upside_down
                    else f"the factor is how many times fewer passes it needs ({max(n, m)} / {min(n, m)}), "
                    f"got {shown(got[1])}"
                ),
            )
    return Verdict(True)


@solution("ch13.cheaper_mode")
def cheaper_mode(n, m):
    # Forward mode builds one column of the m x n Jacobian per pass (n passes), reverse one row (m).
    if n == m:
        return "either", 1.0
    if n < m:
        return "forward", m / n
    return "reverse", n / m


# ---- 13.3 a Newton step that cannot climb ----


_T = math.tanh(0.5)
# (description, f, x, f'(x), f''(x) by hand): curvature positive in the first two, negative in the rest.
_NEWTON_CASES = [
    ("x**4 - 2x**2 at x = 2", lambda v: v**4 - 2 * v**2, 2.0, 24.0, 44.0),
    (
        "(x - 3)**2 + exp(x) at x = 0.5",
        lambda v: (v - 3) ** 2 + v.exp(),
        0.5,
        math.exp(0.5) - 5,
        2 + math.exp(0.5),
    ),
    ("x**4 - 2x**2 at x = 0.3", lambda v: v**4 - 2 * v**2, 0.3, 4 * 0.3**3 - 1.2, 12 * 0.09 - 4),
    ("tanh(x) at x = 0.5", lambda v: v.tanh(), 0.5, 1 - _T * _T, -2 * _T * (1 - _T * _T)),
]
_LR = 0.1


def _safe_step(d1, d2, x, lr, newton_when=lambda d2: d2 > 0):
    return x - d1 / d2 if newton_when(d2) else x - lr * d1


_NEWTON_MISTAKES = [
    (
        lambda d1, d2, x, lr: x - d1 / d2,
        "that is Newton's step everywhere: where f''(x) < 0 it heads for the top of a hump",
    ),
    (
        lambda d1, d2, x, lr: x - lr * d1,
        "that is a gradient step everywhere: take Newton's step where f''(x) > 0",
    ),
    (
        lambda d1, d2, x, lr: _safe_step(d1, d2, x, lr, newton_when=lambda d2: d2 < 0),
        "the test is the wrong way round: Newton's parabola has a lowest point only where f''(x) > 0",
    ),
    (
        lambda d1, d2, x, lr: x - d1 / abs(d2),
        "dividing by |f''(x)| also goes downhill, but this exercise asks for a gradient step of rate lr "
        "where f''(x) <= 0",
    ),
    (lambda d1, d2, x, lr: _safe_step(-d1, d2, x, lr), "the sign is flipped: both steps go against f'(x)"),
]


@check("ch13.safe_newton_step")
def check_safe_newton_step(safe_newton_step):
    """safe_newton_step(f, x, lr): Newton's step where f''(x) > 0, else x - lr * f'(x); exact derivatives."""
    if (problem := not_a_function(safe_newton_step, "your safe_newton_step function")) is not None:
        return problem
    answers = []
    for text, f, x, _, _ in _NEWTON_CASES:
        got, error = attempt(safe_newton_step, f, x, _LR)
        number = as_number(got.data if isinstance(got, Value) else got)
        if error or number is None:
            return Verdict(
                False, f"for f(x) = {text}: " + (error or f"return the next x as a number, got {shown(got)}")
            )
        answers.append(number)

    def matches(rule):
        return all(
            math.isclose(a, rule(d1, d2, x, _LR), rel_tol=1e-10, abs_tol=1e-12)
            for a, (_, _, x, d1, d2) in zip(answers, _NEWTON_CASES)
        )

    if matches(_safe_step):
        return Verdict(True)
    hint = next((h for rule, h in _NEWTON_MISTAKES if matches(rule)), None)
    if hint:
        return Verdict(False, hint)
    for a, (text, _, x, d1, d2) in zip(answers, _NEWTON_CASES):
        want = _safe_step(d1, d2, x, _LR)
        if not math.isclose(a, want, rel_tol=1e-10, abs_tol=1e-12):
            nudged = math.isclose(a, want, rel_tol=1e-4)
            return Verdict(
                False,
                f"for f(x) = {text} the next x is {want:.10f}, got {a:.10f}"
                + (
                    ": near but not exact, as nudging would be; take both derivatives with grad()"
                    if nudged
                    else ""
                ),
            )
    return Verdict(False, "compare each step with Newton's x - f'/f'' and descent's x - lr f'")


@solution("ch13.safe_newton_step")
def safe_newton_step(f, x, lr):
    v = Value(x)
    (slope,) = grad(f(v), [v], create_graph=True)  # f'(x) as a Value, with a graph of its own
    (curvature,) = grad(slope, [v])  # f''(x)
    if curvature > 0:  # the parabola through x has a lowest point: jump to it
        return x - slope.data / curvature
    return x - lr * slope.data  # a hump or a straight line: just go downhill


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


@check("ch13.reverse_rules")
def check_reverse_rules(reverse_rules):
    """reverse_rules(m) is how many backward rules reverse mode applies to build the full Jacobian of
    the chapter's one_to_many(t, m): one backward pass per output, each over that output's graph."""
    if (problem := not_a_function(reverse_rules, "your reverse_rules function")) is not None:
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


@solution("ch13.reverse_rules")
def reverse_rules(m):
    # Output k's graph: tanh(t), then (times t, tanh) k - 1 times: 2k - 1 operations, one rule each.
    # Summed over the m backward passes: 1 + 3 + 5 + ... + (2m - 1) = m squared.
    return sum(2 * k - 1 for k in range(1, m + 1))
