"""Chapter 13 exercises: a ** b on duals, the cheaper mode, a Newton step that cannot climb, a cost."""

import collections
import math
import random
from functools import partial

from ..autograd import grad
from ..engine import Value
from ._core import Verdict, as_number, attempt, check, close, recorded, recorder, reference, shown, solution
from ._shared import all_exact, exact, judge, numbers, record, recorded_mistakes, run_cases


# ---- 13.1 a dual rule not shown: a ** b with both carrying a tangent ----
def _dual_class(fn):  # the notebook's own Dual class if it has one (so its isinstance tests work), else _Pair
    cls = getattr(fn, "__globals__", {}).get("Dual")
    return cls if isinstance(cls, type) and attempt(cls, 1.0, 0.0)[1] is None else _Pair


@reference
def _pow_rule(a, b, base=True, exponent=True, log=True):  # (val, dot) of a ** b for duals a, b = (val, dot)
    (u, du), (v, dv) = a, b
    return u**v, base * v * u ** (v - 1) * du + exponent * u**v * (math.log(u) if log else 1.0) * dv


_Pair = collections.namedtuple("Dual", "val dot")


def _nudged(got, want):  # 13.1 and 13.3: the two may agree to every digit shown, so say how far apart
    off = f"{abs(got - want):.1e}"
    return f" (off by {off}): close but not exact, as nudging would be; take exact derivatives"


_POW_HINTS = {
    "base only": "that is the power rule alone; the exponent's tangent counts too",
    "exponent only": "that is the exponential rule alone; the base's tangent counts too",
    "no log": "d(u**v)/dv is u**v times ln(u): write u**v as exp(v ln u)",
}
# (a, b) as (val, dot): only the base moves, only the exponent, both (x ** x at 3), a fractional mix.
_POW_CASES = [((2.0, 1.0), (3.0, 0.0)), ((2.0, 0.0), (3.0, 1.0)), ((3.0, 1.0), (3.0, 1.0))]
_POW_CASES += [((1.5, 0.7), (-0.5, 2.0))]


@recorder("ch13.dual_pow")
def _record_pow():
    rules = {
        "base only": partial(_pow_rule, exponent=False),
        "exponent only": partial(_pow_rule, base=False),
        "no log": partial(_pow_rule, log=False),
    }
    return record(_POW_CASES, _pow_rule, rules)


@check("ch13.dual_pow", takes="function")
def check_dual_pow(dual_pow):
    def read(dual):  # (val, dot) as numbers
        return numbers([getattr(dual, "val", None), getattr(dual, "dot", None)])

    def otherwise(i):
        (val, dot), (want_val, want_dot) = got[i], records["want"][i]
        if not math.isclose(val, want_val, rel_tol=1e-12):
            return f"the value a.val ** b.val is {want_val:.6g}, got {val:.6g}"
        nudged = _nudged(dot, want_dot) if close(dot, want_dot, 1e-4) else ""
        if want_dot and close(-dot, want_dot, 1e-9):
            nudged = ": the sign is flipped; the base's and the exponent's shares add"
        return f"the tangent is {want_dot:.6g}, got {dot:.6g}{nudged}"

    cases, records = _POW_CASES, recorded("ch13.dual_pow")
    cls, where = _dual_class(dual_pow), "for a = Dual{}, b = Dual{}".format
    got = run_cases(lambda a, b: dual_pow(cls(*a), cls(*b)), "", cases, read, "a Dual", lambda c: where(*c))
    same, opening = partial(all_exact, rel=1e-12), lambda i: where(*cases[i]) + ": "
    return judge(
        got, cases, records["want"], recorded_mistakes(records, _POW_HINTS), same, otherwise, opening
    )


@solution("ch13.dual_pow")
def dual_pow(a, b):
    # u**v = exp(v ln u): the product rule on v ln u gives both tangents' shares.
    val = a.val**b.val
    return type(a)(val, b.val * a.val ** (b.val - 1) * a.dot + val * math.log(a.val) * b.dot)


# ---- 13.2 cheaper_mode(n, m): which mode builds the full Jacobian in fewer passes ----
@reference
def _truth(n, m):
    return ("either", 1.0) if n == m else ("forward", m / n) if n < m else ("reverse", n / m)


def _mode_shapes():
    """(n, m): the three the notebook asks about, ties, one input or one output, then 40 drawn at
    random from 1 to a million (log-uniformly), the same on every run: no table of shapes passes."""
    rng = random.Random(132)
    drawn = [tuple(int(10 ** rng.uniform(0, 6)) for _ in "nm") for _ in range(40)]
    drawn += [(n, n) for n in (int(10 ** rng.uniform(0, 4)) for _ in range(4))]
    return [(1, 1), (337, 1), (1, 3), (1000, 10), (3, 3), (2, 5), (7, 2), (50, 200), *drawn]


@recorder("ch13.cheaper_mode")
def _record_modes():
    return record(_mode_shapes(), _truth)


@check("ch13.cheaper_mode", takes="function")
def check_cheaper_mode(cheaper_mode):
    def pair(got):
        return got if isinstance(got, (tuple, list)) and len(got) == 2 else None

    shapes = _mode_shapes()
    where = "for f: R^{} -> R^{}".format
    answers = run_cases(cheaper_mode, "", shapes, pair, "a pair", lambda c: where(*c))
    if isinstance(answers, Verdict):
        return answers
    for (n, m), (mode, factor), truth in zip(shapes, answers, recorded("ch13.cheaper_mode")["want"]):
        (want_mode, want_factor), at = truth, where(n, m)
        if not isinstance(mode, str) or mode not in ("forward", "reverse", "either"):
            return f"{at}: the mode is 'forward', 'reverse' or 'either'; got {shown(mode)}"
        if as_number(factor) is None:
            return f"{at}: give the factor as a number, such as 2.0; got {shown(factor)}"
        if mode != want_mode and n == m:
            return f"{at}: both modes need {'one pass' if n == 1 else f'{n} passes'}: answer ('either', 1.0)"
        if mode != want_mode and mode == "either":
            return f"{at}: the two modes need different numbers of passes here; which needs fewer?"
        if mode != want_mode:
            return f"{at}: {mode} mode needs more passes here than the other, not fewer"
        if not close(factor, want_factor, rel=1e-9):
            flipped = "upside down" if close(factor, 1 / want_factor, rel=1e-9) else f"got {shown(factor)}"
            return f"{at}: {mode} mode is right; the factor is slower passes / faster passes, {flipped}"
    return True


@solution("ch13.cheaper_mode")
def cheaper_mode(n, m):
    # Forward mode builds one column of the m x n Jacobian per pass (n passes), reverse one row (m).
    return ("either", 1.0) if n == m else ("forward", m / n) if n < m else ("reverse", n / m)


# ---- 13.3 a Newton step that cannot climb ----
_T, _E = math.tanh(0.5), math.exp(0.5)
# (description, f, x, f'(x), f''(x) by hand, lr): curvature positive in the first three, negative in the
# rest. At 0.6, f'' = 0.32 is small but positive (Newton's step goes to 5.4, and raises f): a threshold
# other than 0 fails there. At 0.5, f'' = -1 but Newton's step would lower f (it lands on -1): a rule
# "Newton if it lowers f" fails there. Three rates, so that no rate written into the step passes.
_NEWTON_CASES = [
    ("x**4 - 2x**2 at x = 2", lambda v: v**4 - 2 * v**2, 2.0, 24.0, 44.0, 0.1),
    ("(x - 3)**2 + exp(x) at x = 0.5", lambda v: (v - 3) ** 2 + v.exp(), 0.5, _E - 5, 2 + _E, 0.05),
    ("x**4 - 2x**2 at x = 0.6", lambda v: v**4 - 2 * v**2, 0.6, 4 * 0.6**3 - 2.4, 12 * 0.36 - 4, 0.3),
    (
        "x**4 - 2x**2 at x = 0.3, lr = 0.1",
        lambda v: v**4 - 2 * v**2,
        0.3,
        4 * 0.3**3 - 1.2,
        12 * 0.09 - 4,
        0.1,
    ),
    (
        "x**4 - 2x**2 at x = 0.5, lr = 0.05",
        lambda v: v**4 - 2 * v**2,
        0.5,
        4 * 0.5**3 - 2.0,
        12 * 0.25 - 4,
        0.05,
    ),
    ("tanh(x) at x = 0.5, lr = 0.3", lambda v: v.tanh(), 0.5, 1 - _T * _T, -2 * _T * (1 - _T * _T), 0.3),
    # f'' barely above 0: Newton's step, however far it goes (a rule "Newton only where f'' > some
    # threshold" is another rule)
    ("x**3 - x at x = 0.00002, lr = 0.1", lambda v: v**3 - v, 2e-5, 3 * 2e-5**2 - 1, 6 * 2e-5, 0.1),
]
_FLAT = (
    "x**3 + x at x = 0, lr = 0.1, where f''(x) = 0 (Newton only where f'' > 0)",
    lambda v: v**3 + v,
    0.0,
    1.0,
    0.0,
    0.1,
)
_NEWTON_MISTAKES = [
    (lambda d1, d2, x, lr: x - d1 / d2, "that is Newton's step everywhere: where f''(x) < 0 it climbs"),
    (lambda d1, d2, x, lr: x - lr * d1, "that is a gradient step everywhere: take Newton's where f''(x) > 0"),
    (lambda d1, d2, x, lr: x - d1 / d2 if d2 < 0 else x - lr * d1, "the test is the wrong way round"),
    (lambda d1, d2, x, lr: x - d1 / abs(d2), "not x - f'/|f''(x)|: a gradient step where f'' <= 0"),
    (lambda d1, d2, x, lr: x + (d1 / d2 if d2 > 0 else lr * d1), "the sign is flipped: you step along f'(x)"),
]


@check("ch13.safe_newton_step", takes="function")
def check_safe_newton_step(safe_newton_step):
    def safe_step(d1, d2, x, lr):  # the right rule, on hand-derived f'(x) and f''(x)
        return x - d1 / d2 if d2 > 0 else x - lr * d1

    def next_x(text, f, x, d1, d2, lr):  # the learner's step from x, as a number
        got = safe_newton_step(f, x, lr)
        return got.data if isinstance(got, Value) else got

    def judged(known):  # the learner's steps on the `known` cases, against the safe step and its mistakes
        steps = run_cases(next_x, "", known, as_number, "a number", lambda c: f"for f(x) = {c[0]}")
        cases = [(d1, d2, x, lr) for _, _, x, d1, d2, lr in known]

        def otherwise(i):
            want, got = safe_step(*cases[i]), steps[i]
            nudged = _nudged(got, want) if math.isclose(got, want, rel_tol=1e-4) else ""
            return f"for f(x) = {known[i][0]} the next x is {want:.6f}, got {got:.6f}{nudged}"

        return judge(steps, cases, safe_step, _NEWTON_MISTAKES, exact, otherwise)

    # f'' = 0 comes last, alone, so that a plain Newton step, which divides by 0 there, is named.
    return judged(_NEWTON_CASES) and judged([_FLAT])


@solution("ch13.safe_newton_step")
def safe_newton_step(f, x, lr):
    v = Value(x)
    (slope,) = grad(f(v), [v], create_graph=True)  # f'(x) as a Value, with a graph of its own
    (curvature,) = grad(slope, [v])  # f''(x)
    if curvature > 0:  # the parabola through x has a lowest point: jump to it
        return x - slope.data / curvature
    return x - lr * slope.data  # a hump or a straight line: just go downhill


# ---- 13.4 reverse_rules(m, per_link): backward rules for a chain's full Jacobian, derived ----
@reference
def _chain_rules(m, per_link=2):  # tests/test_exercises_ch13.py counts them in the real graphs
    return m + per_link * m * (m - 1) // 2


def _chain_shapes():
    """(m, per_link): the chapter's chain (per_link 2) at the table's 128, one output, one operation a
    link, then 40 drawn at random, the same on every run: no table of answers passes."""
    rng = random.Random(134)
    drawn = {(rng.randint(1, 300), rng.randint(1, 7)) for _ in range(40)}
    return [(3, 2), (128, 2), (1, 5), (4, 1), *sorted(drawn), (1000, 3), (5000, 4)]


@recorder("ch13.reverse_rules")
def _record_chain_rules():
    records = record(_chain_shapes(), _chain_rules)
    # two known mistakes add the right count to another: recorded as they are, not the count
    records["plus forward"] = [r + 1 + p * (m - 1) for r, (m, p) in zip(records["want"], _chain_shapes())]
    return records


@check("ch13.reverse_rules", takes="function")
def check_reverse_rules(reverse_rules):
    def where(case):
        return f"for m = {case[0]} outputs, per_link = {case[1]}"

    def otherwise(i):
        count = f"{where(chains[i])} the number of backward rules is {records['want'][i]}"
        return f"{count}, got {counts[i]:g}. How many operations does output k's graph hold?"

    records = recorded("ch13.reverse_rules")

    def longest(m, p):  # the last output's graph: tanh(t), then per_link operations for each later link
        return 1 + p * (m - 1)

    wrong_counts = [  # judged over every case at once
        (lambda m, p: m * longest(m, p), "you gave every backward pass the whole chain"),
        (longest, "one backward pass, the last output's; reverse mode runs one per output"),
        (
            lambda m, p: m,
            "m is the number of backward passes; each applies one rule per operation it reaches",
        ),
        (lambda m, p: m * m, "m * m holds for per_link = 2 only: let per_link set each output's graph"),
        (records["plus forward"], "you added the forward pass's values"),
        (lambda m, p: 2 * longest(m, p), "that is forward mode's cost (a value and a tangent per operation)"),
        (lambda m, p: p * m * (m + 1) / 2, "the first output, tanh(t), is one operation, not per_link"),
    ]
    chains = _chain_shapes()
    counts = run_cases(reverse_rules, "", chains, where=where)
    return judge(counts, chains, records["want"], wrong_counts, otherwise=otherwise)


@solution("ch13.reverse_rules")
def reverse_rules(m, per_link):
    # Output k's graph: tanh(t), then per_link operations for each of the k - 1 links after it:
    # 1 + per_link * (k - 1) operations, one backward rule each, in the k-th of m backward passes.
    return sum(1 + per_link * (k - 1) for k in range(1, m + 1))
