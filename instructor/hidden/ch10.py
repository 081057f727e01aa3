"""Hidden cases for chapter 10: other rates, momenta, curvatures and gradients than the check's."""

import numpy as np

from micrograd_lesson.exercises._core import Missed, Verdict, as_number, attempt, close, hidden, shown
from micrograd_lesson.exercises.ch10 import _adam_change, _ema_limit, _momentum


@hidden("ch10.momentum_step")
def momentum_step_with_other_rates(momentum_step):
    """lr 0.03 with mu 0.5, then mu 0 (plain descent): an answer with the check's 0.1 or 0.9
    written in moves p differently."""
    for lr, mu in [(0.03, 0.5), (0.2, 0.0)]:
        p, v = -2.0, 0.0
        for g in [0.7, -1.5, 4.0, 0.0]:
            got, error = attempt(momentum_step, p, v, g, lr, mu)
            want = _momentum(p, v, g, lr, mu)
            if error or not isinstance(got, (tuple, list)) or len(got) != 2 or not all(map(close, got, want)):
                gave = error or shown(got)
                kind = "plain descent (mu = 0)" if mu == 0 else "another learning rate and momentum"
                told = f"lr = {lr}, mu = {mu}, p = {p:g}, v = {v:g}, g = {g}: want {want}, got {gave}"
                return Missed(kind + (", a zero gradient" if g == 0 else ""), gave, told)
            p, v = want
    return Verdict(True)


@hidden("ch10.stability_limit")
def stability_limit_at_other_points(largest_rate):
    """(lambda, mu) the check does not try: an answer hard-coded to the check's five cases (whose
    hints print the limits) fails."""
    for lam, mu in [(3.0, 0.7), (0.02, 0.95), (7.5, 0.1)]:
        got, error = attempt(largest_rate, lam, mu)
        if error or not close(got, _ema_limit(lam, mu), rel=1e-9):
            gave = error or shown(got)
            told = f"largest_rate({lam}, {mu}) should be {_ema_limit(lam, mu):.6g}, got {gave}"
            return Missed("a curvature and momentum the check does not try", gave, told)
    return Verdict(True)


@hidden("ch10.adam_constant_step")
def adam_step_for_a_zero_gradient(adam_constant_step):
    """g = 0 (Adam does not move: 0 / (0 + eps)) and a late step: a rearranged formula that divides
    by |g| raises at g = 0."""
    for g, t, lr in [(0.0, 4, 0.1), (-7.0, 1000, 0.5)]:
        with np.errstate(all="ignore"):
            got, error = attempt(adam_constant_step, g, t, lr)
        want = _adam_change(g, t, lr)
        if error or as_number(got) is None or not close(got, want, rel=1e-9, abs_tol=1e-15):
            gave = error or shown(got)
            kind = "a gradient of exactly 0" if g == 0 else "a negative gradient, late in training"
            return Missed(kind, gave, f"adam_constant_step({g}, {t}, {lr}) should be {want:.12g}, got {gave}")
    return Verdict(True)
