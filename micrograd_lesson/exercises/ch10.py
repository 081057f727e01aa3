"""Chapter 10 exercises: a buggy momentum step, a stability limit, Adam under a constant gradient."""

import math

import numpy as np

from ..engine import Value
from ..optim import Adam
from ._core import Verdict, check, recorded, recorder, reference, solution
from ._shared import all_exact, exact, judge, numbers, run_cases


# ---- 1. find the bugs in a momentum step ----
@reference
def _momentum(p, v, g, lr=0.1, mu=0.9, slips=()):  # PyTorch's momentum step (the reference), with slips
    mu = 0.9 if "fixed mu" in slips else mu
    if "plain" in slips:
        return p - lr * g, v
    if "lr in v" in slips:
        return p + mu * v - lr * g, mu * v - lr * g
    old, v = v, mu * (v + g) if "mu on g" in slips else mu * v + ((1 - mu) * g if "average" in slips else g)
    move = old if "old v" in slips else g if "raw g" in slips else g + mu * v if "nesterov" in slips else v
    p = p + lr * move if "uphill" in slips else p - lr * move
    return (v, p) if "swapped" in slips else (p, v)


_MOMENTUM_SLIPS = {  # the slips _momentum can make -> the hint that names them
    ("old v", "mu on g"): "two slips: p moves by the OLD velocity, and mu shrinks today's gradient too",
    ("old v",): "p moved by the old velocity: update v first, then move p",
    ("mu on g",): "mu*(v + g) shrinks today's gradient too: v = mu*v + g",
    ("average",): "you scaled g by (1 - mu); PyTorch's rule: v = mu*v + g",
    ("raw g",): "p moved by the raw gradient: move it by the velocity, p - lr*v",
    ("nesterov",): "that is Nesterov's look-ahead step; move by the new velocity",
    ("swapped",): "the two numbers are swapped: return (new_p, new_v)",
    ("lr in v",): "you kept the step itself as the velocity: v = mu*v + g",
    ("plain",): "the velocity never changes: update it, v = mu*v + g",
    ("uphill",): "p moved uphill: subtract, p - lr*v",
    ("fixed mu",): "at the last step, mu = 0.5, v kept 0.9 of itself: use mu",
}
# (g, lr, mu) of steps 2 to 7; step 1 is (p, v, g, lr, mu) = (1, 0, 1, 0.1, 0.9), each later one starts
# where the last ended (the starts are recorded too)
_MOMENTUM_THEN = [(g, 0.1, 0.9) for g in (2.0, -2.0, 0.5, 3.0, 0.01)] + [(1.0, 0.05, 0.5)]


@recorder("ch10.momentum_step")
def _record_momentum():
    steps = [(1.0, 0.0, 1.0, 0.1, 0.9)]  # (p, v, g, lr, mu)
    for then in _MOMENTUM_THEN:
        steps.append((*_momentum(*steps[-1]), *then))
    records = {"steps": steps, "want": [list(_momentum(*step)) for step in steps]}
    for slip in _MOMENTUM_SLIPS:
        records[" + ".join(slip)] = [list(_momentum(*step, slips=slip)) for step in steps]
    return records


@check("ch10.momentum_step")
def check_momentum_step(momentum_step):
    def two(got):  # a tuple, a list or an array of two numbers
        return numbers(list(got)) if len(got) == 2 else None

    def otherwise(t):
        values = "{:.6f} and v {:.6f}, got {:.6f} and {:.6f}".format(*records["want"][t], *pairs[t])
        return f"at step {t + 1} p should be {values}: v = mu*v + g, then p = p - lr*v"

    records = recorded("ch10.momentum_step")
    steps = [tuple(step) for step in records["steps"]]  # seven steps, each from where the last ended
    pairs = run_cases(momentum_step, "momentum_step", steps, two, "two numbers (new_p, new_v)")
    mistakes = [(records[" + ".join(slip)], hint) for slip, hint in _MOMENTUM_SLIPS.items()]
    return judge(pairs, steps, records["want"], mistakes, all_exact, otherwise)


@solution("ch10.momentum_step")
def momentum_step(p, v, g, lr, mu):
    v = mu * v + g  # old velocity decays, today's gradient is added in full
    return p - lr * v, v  # then step with the new velocity


# ---- 2. a stability limit, derived ----
@reference
def _ema_limit(lam, mu):  # the largest stable rate of v = mu*v + (1 - mu)*g, p -= lr*v on L = lam/2 p**2
    return 2 * (1 + mu) / ((1 - mu) * lam)


_LIMIT_CASES = [(100.0, 0.9), (1.0, 0.5), (4.0, 0.0), (50.0, 0.99), (0.25, 0.3)]  # (lambda, mu)
_LIMIT_HINTS = {
    "pytorch": "that is PyTorch's form's limit; here g is scaled by 1 - mu",
    "plain": "2/lambda is plain descent's limit; with velocity a larger rate is stable",
    "no 1 + mu": "close: the limit has a factor (1 + mu) as well",
    "reciprocal": "that is the reciprocal: rates above the limit diverge",
}


@recorder("ch10.stability_limit")
def _record_limit():
    rules = {
        "pytorch": lambda lam, mu: 2 * (1 + mu) / lam,
        "plain": lambda lam, mu: 2 / lam,
        "no 1 + mu": lambda lam, mu: 2 / ((1 - mu) * lam),
        "reciprocal": lambda lam, mu: 1 / _ema_limit(lam, mu),
    }
    return {"want": [_ema_limit(*c) for c in _LIMIT_CASES]} | {
        label: [rule(*c) for c in _LIMIT_CASES] for label, rule in rules.items()
    }


@check("ch10.stability_limit")
def check_stability_limit(largest_rate):
    def otherwise(i):
        return f"the limit should be {records['want'][i]:g}, got {got[i]:g}; set r = -1 in the recurrence"

    cases, records = _LIMIT_CASES, recorded("ch10.stability_limit")
    mistakes = [(records[label], hint) for label, hint in _LIMIT_HINTS.items()]
    got = run_cases(largest_rate, "largest_rate", cases)
    return judge(
        got, cases, records["want"], mistakes, exact, otherwise, lambda i: f"(lambda, mu) = {cases[i]}: "
    )


@solution("ch10.stability_limit")
def largest_rate(lam, mu):
    # v = mu*v + (1 - mu)*g is PyTorch's rule at rate lr*(1 - mu), stable while rate*lam < 2(1 + mu), so
    return 2 * (1 + mu) / ((1 - mu) * lam)


# ---- 3. Adam's step under a constant gradient, derived ----
@reference
def _uncorrected(g, t, lr):  # Adam's step without bias correction
    return -lr * (1 - 0.9**t) * g / (math.sqrt((1 - 0.999**t) * g * g) + 1e-8)


# (g, t, lr): both signs, big and small, early and late; g = 1e-8 is eps-sized; g = 0 last (no division)
_ADAM_CASES = [(3.0, 1, 0.1), (-0.5, 1, 0.1), (3.0, 5, 0.01), (-2.0, 100, 0.001), (1e-8, 3, 0.1)]
_ADAM_CASES += [(2e-9, 1, 1.0), (0.0, 4, 0.1)]
_ADAM_HINTS = {
    "uncorrected": "without bias correction: the hats divide m and v by (1 - beta**t), and then?",
    "copysign": "almost: that ignores eps (try g = 1e-8)",
    "sign": "almost: that ignores eps (try g = 1e-8)",
    "eps inside": "eps is inside the square root: it goes after it",
    "eps**2 inside": (
        "eps**2 inside the square root is not eps after it (at g = 1e-8 they differ): sqrt(v_hat) + eps"
    ),
    "flipped": "the sign is flipped: yours moves p with the gradient",
    "plain": "that is plain gradient descent's step; Adam divides by the gradient's size",
    "no root": "divide by the square ROOT of v_hat",
}


@reference
def _adam_change(g, t, lr):  # p_t - p_(t-1) for the package's Adam after t steps of the constant gradient g
    p = Value(0.0)
    opt = Adam([p], lr=lr)  # betas (0.9, 0.999) and eps 1e-8, as in torch
    for _ in range(t):
        before, p.grad = p.data, g
        opt.step()
    return p.data - before


@recorder("ch10.adam_constant_step")
def _record_adam():
    rules = {
        "uncorrected": _uncorrected,
        "copysign": lambda g, t, lr: -lr * math.copysign(1.0, g),
        "sign": lambda g, t, lr: -lr * ((g > 0) - (g < 0)),
        "eps inside": lambda g, t, lr: -lr * g / math.sqrt(g * g + 1e-8),
        "eps**2 inside": lambda g, t, lr: -lr * g / math.sqrt(g * g + 1e-16),
        "flipped": lambda g, t, lr: lr * g / (abs(g) + 1e-8),
        "plain": lambda g, t, lr: -lr * g,
        "no root": lambda g, t, lr: -lr * g / (g * g + 1e-8),
    }
    return {"want": [_adam_change(*c) for c in _ADAM_CASES]} | {
        label: [rule(*c) for c in _ADAM_CASES] for label, rule in rules.items()
    }


@check("ch10.adam_constant_step")
def check_adam_constant_step(adam_constant_step):
    def otherwise(i):
        g, t, lr = _ADAM_CASES[i]
        step = f"with g = {g}, at step t = {t} and lr = {lr}, Adam moves p by {records['want'][i]:.12g}"
        if abs(got[i] - records["want"][i]) < 1e-6 * abs(records["want"][i]):  # right but for eps
            off = f"off by only {abs(got[i] - records['want'][i]):.1e}, so look at eps"
            return f"{step}, got {got[i]:.12g}: {off}: Adam adds eps (1e-8), as it is, to sqrt(v_hat)"
        return f"{step}, got {got[i]:.12g}: work out m_hat and v_hat for a gradient that never changes"

    records = recorded("ch10.adam_constant_step")
    mistakes = [(records[label], hint) for label, hint in _ADAM_HINTS.items()]
    *others, zero = _ADAM_CASES  # g = 0, the last case, is where an answer without eps divides by 0
    got = run_cases(adam_constant_step, "adam_constant_step", others)
    if isinstance(got, Verdict):
        return got
    with np.errstate(all="ignore"):  # NumPy's 0/0 is nan with a warning; the hint says what it means
        at_zero = run_cases(adam_constant_step, "adam_constant_step", [zero])
    divided_by_zero = _divided_by_zero(at_zero)
    if divided_by_zero:
        return Verdict(False, f"adam_constant_step{zero}: {divided_by_zero}. {_AT_ZERO}")
    if isinstance(at_zero, Verdict):
        return at_zero
    return judge(got + at_zero, _ADAM_CASES, records["want"], mistakes, exact, otherwise)


_AT_ZERO = (
    "With g = 0, m_hat and v_hat are 0, and Adam's step is m_hat / (sqrt(v_hat) + eps) = 0 / (0 + eps) "
    "= 0: the eps (1e-8) in its denominator is there so that Adam never divides by zero. Write your "
    "step as Adam does, with eps added after the square root, and g = 0 gives 0"
)


def _divided_by_zero(result):
    """What went wrong, if the learner's answer at g = 0 divided by zero (raised, or gave nan or
    inf); else None."""
    if isinstance(result, Verdict):
        hint = result.hint or ""
        return hint.split(": ", 1)[1] if "ZeroDivisionError" in hint else None
    return None if math.isfinite(result[0]) else f"your function returned {result[0]}"


@solution("ch10.adam_constant_step")
def adam_constant_step(g, t, lr):
    # A constant g gives m = (1 - beta1**t) g, v = (1 - beta2**t) g**2: m_hat = g, v_hat = g**2 at every t.
    return -lr * g / (abs(g) + 1e-8)
