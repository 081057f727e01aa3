"""Chapter 13 exercises: a dual rule for a ** b, which mode wins, a Newton step that cannot climb,
a reverse-mode Jacobian's cost."""

import collections
import math
from functools import partial

from ..engine import Value, grad
from ._core import Verdict, as_number, attempt, check, shown, solution
from ._shared import all_exact, judge, numbers, run_cases

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
        partial(_pow_rule, exponent=False),
        "that is the power rule alone, right when only the base moves; the exponent's tangent "
        "counts too: d(u**v) = v u**(v-1) du + u**v ln(u) dv",
    ),
    (partial(_pow_rule, base=False), "that is the exponential rule alone; the base's tangent counts too"),
    (partial(_pow_rule, log=False), "d(u**v)/dv is u**v times ln(u): write u**v as exp(v ln u)"),
]


def _dual_class(fn):
    """The Dual class the learner's notebook defines (so its own isinstance tests work), else ours."""
    cls = getattr(fn, "__globals__", {}).get("Dual")
    return cls if isinstance(cls, type) and attempt(cls, 1.0, 0.0)[1] is None else _Pair


@check("ch13.dual_pow")
def check_dual_pow(dual_pow):
    """dual_pow(a, b) returns the Dual a ** b, exact in both val and dot, when both a and b carry tangents."""
    cls = _dual_class(dual_pow)
    calls = [(cls(*a), cls(*b)) for a, b in _POW_CASES]
    duals = run_cases(
        dual_pow,
        "your dual_pow function",
        calls,
        read=lambda got: numbers([getattr(got, "val", None), getattr(got, "dot", None)]),
        want="a Dual (with .val and .dot)",
        where=lambda call: "for a = Dual{}, b = Dual{}".format(
            *_POW_CASES[[id(c) for c in calls].index(id(call))]
        ),
    )

    def otherwise(i):
        (a, b), (val, dot) = _POW_CASES[i], duals[i]
        want_val, want_dot = _pow_rule(a, b)
        if not math.isclose(val, want_val, rel_tol=1e-12):
            return f"for a = Dual{a}, b = Dual{b} the value a.val ** b.val is {want_val:g}, got {val!r}"
        nudged = ": close but not exact, as nudging would be; derive the rule"
        return f"for a = Dual{a}, b = Dual{b} the tangent is {want_dot:.12g}, got {dot:.12g}" + (
            nudged if math.isclose(dot, want_dot, rel_tol=1e-4) else ""
        )

    same = partial(all_exact, rel=1e-12)
    return judge(duals, _POW_CASES, _pow_rule, _POW_MISTAKES, same=same, otherwise=otherwise)


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
    answers = run_cases(
        cheaper_mode,
        "your cheaper_mode function",
        _SHAPES,
        read=lambda got: got if isinstance(got, tuple) and len(got) == 2 else None,
        want="a pair (mode, factor)",
        where=lambda shape: "for f: R^{} -> R^{}".format(*shape),
    )
    if isinstance(answers, Verdict):
        return answers
    for (n, m), (mode, factor) in zip(_SHAPES, answers):
        (want_mode, want_factor), shape = _truth(n, m), f"for f: R^{n} -> R^{m}"
        if not isinstance(mode, str) or mode not in ("forward", "reverse", "either"):
            return Verdict(False, f"the mode is 'forward', 'reverse' or 'either'; got {shown(mode)}")
        if mode != want_mode:
            passes = "one pass" if n == 1 else f"{n} passes"
            return Verdict(
                False,
                f"{shape} both modes need {passes}: answer ('either', 1.0)"
                if want_mode == "either"
                else f"{shape} you chose {mode}: forward mode needs one pass per input ({n}), "
                f"reverse mode one per output ({m})",
            )
        number = as_number(factor)
        if number is None or not math.isclose(number, want_factor, rel_tol=1e-9):
            upside_down = number is not None and math.isclose(number, 1 / want_factor, rel_tol=1e-9)
            return Verdict(
                False,
                f"{shape} {want_mode} mode is right; "
                + (
                    "the factor is upside down: slower passes / faster passes"
                    if upside_down
                    else f"the factor is how many times fewer passes it needs ({max(n, m)} / {min(n, m)}), "
                    f"got {shown(factor)}"
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
    (lambda d1, d2, x, lr: x - d1 / d2, "that is Newton's step everywhere: where f''(x) < 0 it climbs"),
    (lambda d1, d2, x, lr: x - lr * d1, "that is a gradient step everywhere: take Newton's where f''(x) > 0"),
    (partial(_safe_step, newton_when=lambda d2: d2 < 0), "the test is the wrong way round"),
    (lambda d1, d2, x, lr: x - d1 / abs(d2), "not x - f'/|f''(x)|: a gradient step where f'' <= 0"),
    (lambda d1, d2, x, lr: _safe_step(-d1, d2, x, lr), "the sign is flipped: both steps go against f'(x)"),
]


@check("ch13.safe_newton_step")
def check_safe_newton_step(safe_newton_step):
    """safe_newton_step(f, x, lr): Newton's step where f''(x) > 0, else x - lr * f'(x); exact derivatives."""
    steps = run_cases(
        safe_newton_step,
        "your safe_newton_step function",
        [(f, x, _LR) for _, f, x, _, _ in _NEWTON_CASES],
        read=lambda got: as_number(got.data if isinstance(got, Value) else got),
        want="the next x as a number",
        where=lambda case: f"for f(x) = {next(t for t, f, *_ in _NEWTON_CASES if f is case[0])}",
    )
    cases = [(d1, d2, x, _LR) for _, _, x, d1, d2 in _NEWTON_CASES]

    def otherwise(i):
        want, nudged = (
            _safe_step(*cases[i]),
            ": near but not exact, as nudging would be; take both derivatives with grad()",
        )
        return f"for f(x) = {_NEWTON_CASES[i][0]} the next x is {want:.10f}, got {steps[i]:.10f}" + (
            nudged if math.isclose(steps[i], want, rel_tol=1e-4) else ""
        )

    same = partial(math.isclose, rel_tol=1e-10, abs_tol=1e-12)
    verdict = judge(steps, cases, _safe_step, _NEWTON_MISTAKES, same=same, otherwise=otherwise)
    if not verdict:
        return verdict
    got, error = attempt(safe_newton_step, lambda v: v**3 + v, 0.0, _LR)  # f''(0) = 0, f'(0) = 1
    if error or not same(as_number(got.data if isinstance(got, Value) else got) or 0.0, -_LR):
        return Verdict(
            False,
            f"for f(x) = x**3 + x at x = 0, where f''(x) = 0, the next x is {-_LR}, got "
            f"{error or shown(got)}: with no lowest point to jump to, take the gradient step "
            "(Newton's only where f'' > 0)",
        )
    return verdict


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
    (lambda m: m * (2 * m - 1), "you gave every backward pass the whole chain"),
    (lambda m: 2 * m - 1, "that is one backward pass, the last output's; reverse mode runs one per output"),
    (lambda m: m, "that is the number of backward passes; each applies one rule per operation it reaches"),
    (lambda m: m * m + 2 * m - 1, "you added the forward pass's 2m - 1 values"),
    (
        lambda m: 2 * (2 * m - 1),
        "that is forward mode's cost (one pass, a value and a tangent per operation)",
    ),
]


@check("ch13.reverse_rules")
def check_reverse_rules(reverse_rules):
    """reverse_rules(m) is how many backward rules reverse mode applies to build the full Jacobian of
    the chapter's one_to_many(t, m): one backward pass per output, each over that output's graph."""
    cases = [(m,) for m in _CHAIN_LENGTHS]
    counts = run_cases(reverse_rules, "your reverse_rules function", cases, where=lambda c: f"for m = {c[0]}")

    def otherwise(i):
        m = _CHAIN_LENGTHS[i]
        rules = "one backward rule" if m == 1 else f"{_chain_rules(m)} backward rules"
        return (
            f"for m = {m} reverse mode applies {rules}, got {counts[i]:g}. "
            "Draw the chain for m = 3: how many operations does each output's graph hold?"
        )

    return judge(counts, cases, _chain_rules, _WRONG_COUNTS, otherwise=otherwise)


@solution("ch13.reverse_rules")
def reverse_rules(m):
    # Output k's graph: tanh(t), then (times t, tanh) k - 1 times: 2k - 1 operations, one rule each.
    # Summed over the m backward passes: 1 + 3 + 5 + ... + (2m - 1) = m squared.
    return sum(2 * k - 1 for k in range(1, m + 1))
