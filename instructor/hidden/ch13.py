"""Hidden cases for chapter 13: other points, shapes and rates; a curvature of exactly zero."""

import math

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import Missed, Verdict, as_number, attempt, hidden, shown
from micrograd_lesson.exercises.ch13 import _chain_rules, _dual_class, _pow_rule, _truth


@hidden("ch13.dual_pow")
def dual_pow_at_other_points(dual_pow):
    """A base below 1 and a fractional exponent, both moving: an answer fitted to the check's
    four cases (whose hints print the tangents) fails."""
    cls = _dual_class(dual_pow)
    for a, b in [((0.5, -1.0), (2.5, 0.3)), ((4.0, 0.25), (0.5, -2.0))]:
        got, error = attempt(dual_pow, cls(*a), cls(*b))
        pair = (as_number(getattr(got, "val", None)), as_number(getattr(got, "dot", None)))
        want = _pow_rule(a, b)
        if (
            error
            or None in pair
            or not all(math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-12) for g, w in zip(pair, want))
        ):
            gave = error or f"(val, dot) = {pair}"
            kind = (
                "a base below 1 and a fractional exponent, both moving"
                if a[0] < 1
                else "a fractional exponent below 1, both moving"
            )
            return Missed(kind, gave, f"a = Dual{a}, b = Dual{b}: want (val, dot) = {want}, got {gave}")
    return Verdict(True)


@hidden("ch13.cheaper_mode")
def cheaper_mode_for_other_shapes(cheaper_mode):
    """Shapes the check does not try: an answer hard-coded to the check's 52 fails."""
    for n, m in [(4, 6), (6, 4), (12, 12), (9, 1000), (2_000_000, 3), (17, 17)]:
        got, error = attempt(cheaper_mode, n, m)
        want = _truth(n, m)
        if (
            error
            or not isinstance(got, (tuple, list))
            or len(got) != 2
            or got[0] != want[0]
            or not math.isclose(as_number(got[1]) or 0.0, want[1])
        ):
            gave = error or shown(got)
            kind = "a square Jacobian" if n == m else "a shape the check does not try"
            return Missed(kind, gave, f"cheaper_mode({n}, {m}) should be {want}, got {gave}")
    return Verdict(True)


def _quartic(v):
    return v**4 - 2 * v**2


def _quartic_d1(x):
    return 4 * x**3 - 4 * x


@hidden("ch13.safe_newton_step")
def safe_newton_step_at_zero_curvature(safe_newton_step):
    """f = x**3 - 2x at 0, where f''(0) = 0 exactly (a gradient step, not 0/0), and lr 0.5: a test
    `f'' >= 0` divides by zero, and an answer with one of the check's rates written in fails; a small
    positive f'' (Newton's step) and a negative f'' where Newton's step would still lower f."""
    for kind, f, x, lr, want, text in [
        ("a curvature of exactly 0", lambda v: v**3 - 2 * v, 0.0, 0.5, 1.0, "x**3 - 2x at x = 0, lr = 0.5"),
        (
            "a negative curvature",
            lambda v: v.tanh(),
            0.5,
            0.5,
            0.5 - 0.5 * (1 - math.tanh(0.5) ** 2),
            "tanh(x) at x = 0.5, lr = 0.5",
        ),
        # f'' = 12 * 0.62**2 - 4 = 0.6128 > 0, below 1: Newton's step (a threshold other than 0 fails)
        (
            "a small positive curvature",
            _quartic,
            0.62,
            0.2,
            0.62 - _quartic_d1(0.62) / (12 * 0.62**2 - 4),
            "x**4 - 2x**2 at x = 0.62, lr = 0.2",
        ),
        # f'' < 0, yet Newton's step would lower f: a gradient step (a test "Newton if f falls" fails)
        (
            "a negative curvature where Newton's step would still lower f",
            _quartic,
            0.45,
            0.2,
            0.45 - 0.2 * _quartic_d1(0.45),
            "x**4 - 2x**2 at x = 0.45, lr = 0.2",
        ),
    ]:
        got, error = attempt(safe_newton_step, f, x, lr)
        number = as_number(got.data if isinstance(got, Value) else got)
        if error or number is None or not math.isclose(number, want, rel_tol=1e-10, abs_tol=1e-12):
            gave = error or shown(got)
            return Missed(kind, gave, f"for f(x) = {text} the next x is {want:.6f}, got {gave}")
    return Verdict(True)


@hidden("ch13.reverse_rules")
def reverse_rules_for_other_lengths(reverse_rules):
    """Chains the check does not try (longer ones, 8 to 12 operations a link): an answer hard-coded
    to the check's cases (each wrong one's hint prints the count) fails."""
    for m, per_link in [(400, 2), (77, 8), (301, 12), (2, 9), (20000, 1)]:
        got, error = attempt(reverse_rules, m, per_link)
        want = _chain_rules(m, per_link)
        number = as_number(got)
        if error or number is None or not math.isclose(number, want, rel_tol=1e-12):
            gave = error or shown(got)
            told = f"reverse_rules({m}, {per_link}) should be {want}, got {gave}"
            return Missed("a chain longer, or with more operations a link, than the check tries", gave, told)
    return Verdict(True)
