"""Chapter 10 exercises: a buggy momentum step, a stability limit, Adam under a constant gradient."""

import math
from functools import partial

from ..engine import Value
from ..optim import Adam
from ._core import check, close, solution
from ._shared import all_exact, judge, numbers, run_cases


# ---- 1. find the bugs in a momentum step ----
def _momentum(p, v, g, lr=0.1, mu=0.9, slips=()):  # PyTorch's momentum step (the reference), with slips
    mu = 0.9 if "fixed mu" in slips else mu
    if "plain" in slips:
        return p - lr * g, v
    if "lr in v" in slips:
        return p + mu * v - lr * g, mu * v - lr * g
    v_old = v
    v = mu * (v + g) if "mu on g" in slips else mu * v + ((1 - mu) * g if "average" in slips else g)
    move = v_old if "old v" in slips else g if "raw g" in slips else g + mu * v if "nesterov" in slips else v
    p = p + lr * move if "uphill" in slips else p - lr * move
    return (v, p) if "swapped" in slips else (p, v)


_MOMENTUM_MISTAKES = [
    (partial(_momentum, slips=slips), hint)
    for slips, hint in [
        (("old v", "mu on g"), "two slips: p moves by the OLD velocity, and mu shrinks today's gradient too"),
        (("old v",), "p moved by the old velocity: update v first, then move p"),
        (("mu on g",), "mu*(v + g) shrinks today's gradient too: v = mu*v + g"),
        (("average",), "you scaled g by (1 - mu); PyTorch's rule: v = mu*v + g"),
        (("raw g",), "p moved by the raw gradient: move it by the velocity, p - lr*v"),
        (("nesterov",), "that is Nesterov's look-ahead step; move by the new velocity"),
        (("swapped",), "the two numbers are swapped: return (new_p, new_v)"),
        (("lr in v",), "you kept the step itself as the velocity: v = mu*v + g"),
        (("plain",), "the velocity never changes: update it, v = mu*v + g"),
        (("uphill",), "p moved uphill: subtract, p - lr*v"),
        (("fixed mu",), "at the last step, mu = 0.5, v kept 0.9 of itself: use mu"),
    ]
]
_STEPS = [(1.0, 0.0, 1.0, 0.1, 0.9)]  # (p, v, g, lr, mu): seven steps, each from where the last ended
for _next in [(g, 0.1, 0.9) for g in (2.0, -2.0, 0.5, 3.0, 0.01)] + [(1.0, 0.05, 0.5)]:
    _STEPS.append((*_momentum(*_STEPS[-1]), *_next))


@check("ch10.momentum_step")
def check_momentum_step(momentum_step):
    def two(got):  # a tuple, a list or an array of two numbers
        return numbers(list(got)) if len(got) == 2 else None

    def otherwise(t):
        values = "{:.6f} and v {:.6f}, got {:.6f} and {:.6f}".format(*_momentum(*_STEPS[t]), *pairs[t])
        return f"at step {t + 1} p should be {values}: v = mu*v + g, then p = p - lr*v"

    pairs = run_cases(momentum_step, "momentum_step", _STEPS, two, "two numbers (new_p, new_v)")
    return judge(pairs, _STEPS, _momentum, _MOMENTUM_MISTAKES, all_exact, otherwise)


@solution("ch10.momentum_step")
def momentum_step(p, v, g, lr, mu):
    v = mu * v + g  # old velocity decays, today's gradient is added in full
    p = p - lr * v  # then step with the new velocity
    return p, v


# ---- 2. a stability limit, derived ----
_CASES = [(100.0, 0.9), (1.0, 0.5), (4.0, 0.0), (50.0, 0.99), (0.25, 0.3)]  # (lambda, mu)
_LIMIT_MISTAKES = [
    (lambda lam, mu: 2 * (1 + mu) / lam, "that is PyTorch's form's limit; here g is scaled by 1 - mu"),
    (lambda lam, mu: 2 / lam, "2/lambda is plain descent's limit; the velocity lets a larger rate be stable"),
    (lambda lam, mu: 2 / ((1 - mu) * lam), "close: the limit has a factor (1 + mu) as well"),
    (lambda lam, mu: 1 / _ema_limit(lam, mu), "you returned its reciprocal: rates above the limit diverge"),
]


def _ema_limit(lam, mu):  # the largest stable rate of v = mu*v + (1 - mu)*g, p -= lr*v on L = lam/2 p**2
    return 2 * (1 + mu) / ((1 - mu) * lam)


@check("ch10.stability_limit")
def check_stability_limit(largest_rate):
    def otherwise(i):
        return f"the limit should be {_ema_limit(*_CASES[i]):g}, got {got[i]:g}; set r = -1 in the recurrence"

    got = run_cases(largest_rate, "largest_rate", _CASES)
    opening = ["for lambda = {}, mu = {}: ".format(*case) for case in _CASES]
    return judge(got, _CASES, _ema_limit, _LIMIT_MISTAKES, otherwise=otherwise, where=opening.__getitem__)


@solution("ch10.stability_limit")
def largest_rate(lam, mu):
    # v = mu*v + (1 - mu)*g is PyTorch's rule with the gradient scaled by (1 - mu): the same
    # path as rate lr*(1 - mu). PyTorch's rule is stable while rate*lam < 2(1 + mu), so
    return 2 * (1 + mu) / ((1 - mu) * lam)


# ---- 3. Adam's step under a constant gradient, derived ----
def _uncorrected(g, t, lr):  # Adam's step without bias correction
    return -lr * (1 - _B1**t) * g / (math.sqrt((1 - _B2**t) * g * g) + _EPS)


# (g, t, lr): gradients of both signs and sizes, early and late steps; at g = 1e-8 eps is as large
# as g itself; g = 0 comes last (no step, and no division by g).
_ADAM_CASES = [(3.0, 1, 0.1), (-0.5, 1, 0.1), (3.0, 5, 0.01), (-2.0, 100, 0.001), (1e-8, 3, 0.1)]
_ADAM_CASES += [(2e-9, 1, 1.0), (0.0, 4, 0.1)]
_B1, _B2, _EPS = 0.9, 0.999, 1e-8
_ADAM_MISTAKES = [
    (_uncorrected, "without bias correction: the hats divide m and v by (1 - beta**t), and then?"),
    (lambda g, t, lr: -lr * math.copysign(1.0, g), "almost: that ignores eps (try g = 1e-8)"),
    (lambda g, t, lr: -lr * ((g > 0) - (g < 0)), "almost: that ignores eps (try g = 1e-8)"),
    (lambda g, t, lr: -lr * g / math.sqrt(g * g + _EPS), "eps goes outside the square root"),
    (lambda g, t, lr: lr * g / (abs(g) + _EPS), "the sign is flipped: yours moves p with the gradient"),
    (lambda g, t, lr: -lr * g, "that is plain gradient descent's step; Adam divides by the gradient's size"),
    (lambda g, t, lr: -lr * g / (g * g + _EPS), "divide by the square ROOT of v_hat"),
]


def _adam_change(g, t, lr):  # p_t - p_(t-1) for the package's Adam after t steps of the constant gradient g
    p = Value(0.0)
    opt = Adam([p], lr=lr, betas=(_B1, _B2), eps=_EPS)
    for _ in range(t):
        before, p.grad = p.data, g
        opt.step()
    return p.data - before


@check("ch10.adam_constant_step")
def check_adam_constant_step(adam_constant_step):
    def otherwise(i):
        g, t, lr = _ADAM_CASES[i]
        step = f"with g = {g}, at step t = {t} and lr = {lr}, Adam moves p by {_adam_change(g, t, lr):.12g}"
        return f"{step}, got {got[i]:.12g}: work out m_hat and v_hat for a gradient that never changes"

    got = run_cases(adam_constant_step, "adam_constant_step", _ADAM_CASES)
    same = partial(close, rel=1e-9, abs_tol=1e-15)
    return judge(got, _ADAM_CASES, _adam_change, _ADAM_MISTAKES, same, otherwise)


@solution("ch10.adam_constant_step")
def adam_constant_step(g, t, lr):
    # With the same g every step, m = (1 - beta1**t) g and v = (1 - beta2**t) g**2, so the
    # corrected m_hat = g and v_hat = g**2 exactly: the step is the same at every t.
    return -lr * g / (abs(g) + 1e-8)
