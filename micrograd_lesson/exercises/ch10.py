"""Chapter 10 exercises: a momentum step, a stability limit derived, an Adam step."""

import functools
import math

from ..engine import Value
from ..optim import SGD, Adam
from ._core import Verdict, as_number, attempt, close, not_a_function, solution

__all__ = ["check_momentum_step", "check_stability_limit", "check_adam_step"]

_GRADS = [1.0, 2.0, -2.0, 0.5, 3.0]  # gradients that change size and sign


def _numbers(result, n):
    """`result` as a tuple of n floats, or None if it is not n real numbers. Never raises."""
    if not isinstance(result, (tuple, list)) or len(result) != n:
        return None
    values = tuple(as_number(r) for r in result)
    return None if any(v is None for v in values) else values


# Adam's eps changes a step by about 1e-8 of its size: compare tightly enough to see it.
_same = functools.partial(close, rel=1e-9, abs_tol=1e-12)


def _apart(got, want):
    """Both numbers with enough digits to see that they differ."""
    for digits in range(6, 18):
        a, b = f"{want:.{digits}g}", f"{got:.{digits}g}"
        if a != b:
            return f"should be {a}, got {b}"
    return f"should be {want!r}, got {got!r}"


# ---- 1. one step of SGD with momentum ----


def _package_momentum(lr, mu, p0=1.0):
    """Positions and velocities from the package's SGD, one per gradient in _GRADS."""
    p = Value(p0)
    opt = SGD([p], lr=lr, momentum=mu)
    out = []
    for g in _GRADS:
        p.grad = g
        opt.step()
        out.append((p.data, opt.velocity[0]))
    return out


def check_momentum_step(momentum_step):
    """momentum_step(p, v, g, lr, mu) -> (new_p, new_v), the rule torch.optim.SGD uses."""
    wrong = not_a_function(momentum_step, "momentum_step")
    if wrong:
        return wrong
    lr, mu = 0.1, 0.9
    expected = _package_momentum(lr, mu)
    p, v = 1.0, 0.0
    for t, (g, (p_ok, v_ok)) in enumerate(zip(_GRADS, expected), start=1):
        result, error = attempt(momentum_step, p, v, g, lr, mu)
        if error:
            return Verdict(False, f"momentum_step({p:.4f}, {v:.4f}, {g}, {lr}, {mu}) failed: {error}")
        pair = _numbers(result, 2)
        if pair is None:
            return Verdict(False, f"momentum_step should return two numbers (new_p, new_v), got {result!r}")
        new_p, new_v = pair
        if _same(new_p, p_ok) and _same(new_v, v_ok):
            p, v = new_p, new_v
            continue
        where = f"at step {t} (p = {p:.4f}, v = {v:.4f}, g = {g})"
        if _same(new_v, mu * v + (1 - mu) * g):
            hint = "you scaled g by (1 - mu); the rule here (and PyTorch's) adds g as it is: v = mu*v + g"
        elif _same(new_v, v_ok) and _same(new_p, p + lr * v_ok):
            hint = "the velocity is right but p moved uphill: subtract, p - lr*v"
        elif _same(new_v, v_ok) and _same(new_p, p - lr * v):
            hint = "update v first, then move p with the NEW velocity"
        elif _same(new_v, v_ok) and _same(new_p, p - lr * g):
            hint = "move p by the velocity, not by the raw gradient: p - lr*v"
        elif _same(new_p, p_ok) and _same(new_v, p_ok):
            hint = "return the pair in the order (new_p, new_v); you returned the position twice"
        elif _same(new_p, v_ok) and _same(new_v, p_ok):
            hint = "the two numbers are swapped: return (new_p, new_v)"
        elif not _same(new_v, v_ok):
            hint = f"new_v {_apart(new_v, v_ok)} (mu*v + g)"
        else:
            hint = f"new_p {_apart(new_p, p_ok)} (p - lr*new_v)"
        return Verdict(False, f"{where}: {hint}")
    return Verdict(True)


@solution("ch10.momentum_step", check=check_momentum_step)
def momentum_step(p, v, g, lr, mu):
    v = mu * v + g  # old velocity decays, today's gradient is added in full
    p = p - lr * v  # then step with the new velocity
    return p, v


# ---- 2. a stability limit, derived ----

_CASES = [(100.0, 0.9), (1.0, 0.5), (4.0, 0.0), (50.0, 0.99), (0.25, 0.3)]


def _ema_limit(lam, mu):
    """The largest stable rate of v = mu*v + (1 - mu)*g, p -= lr*v on L = lam/2 * p**2."""
    return 2 * (1 + mu) / ((1 - mu) * lam)


def check_stability_limit(largest_rate):
    """largest_rate(lam, mu): the rate above which the averaged form of momentum diverges."""
    wrong = not_a_function(largest_rate, "largest_rate")
    if wrong:
        return wrong
    for lam, mu in _CASES:
        got, error = attempt(largest_rate, lam, mu)
        if error:
            return Verdict(False, f"largest_rate({lam}, {mu}) failed: {error}")
        value = as_number(got)
        want = _ema_limit(lam, mu)
        if value is None:
            return Verdict(False, f"largest_rate({lam}, {mu}) should return a number, got {got!r}")
        if close(value, want, rel=1e-9):
            continue
        where = f"for lambda = {lam}, mu = {mu}"
        if close(value, 2 * (1 + mu) / lam, rel=1e-9):
            hint = (
                "2(1 + mu)/lambda is the limit of PyTorch's form v = mu*v + g; here the gradient enters "
                "scaled by (1 - mu), so the same step needs a rate 1/(1 - mu) times larger"
            )
        elif close(value, 2 / lam, rel=1e-9):
            hint = "2/lambda is plain descent's limit; the velocity lets a larger rate stay stable"
        elif close(value, 2 / ((1 - mu) * lam), rel=1e-9):
            hint = "close: the limit has a factor (1 + mu) as well, from the root r = -1 of the recurrence"
        elif close(value * want, 1, rel=1e-9):
            hint = "you returned its reciprocal: rates above the limit diverge, so it is 2(...)/lambda"
        else:
            hint = f"the limit should be {want:.6g}, got {value:.6g}; set r = -1 in the recurrence's equation"
        return Verdict(False, f"{where}: {hint}")
    return Verdict(True)


@solution("ch10.stability_limit", check=check_stability_limit)
def largest_rate(lam, mu):
    # v = mu*v + (1 - mu)*g is PyTorch's rule with the gradient scaled by (1 - mu): the same
    # path as rate lr*(1 - mu). PyTorch's rule is stable while rate*lam < 2(1 + mu), so
    return 2 * (1 + mu) / ((1 - mu) * lam)


# ---- 3. one step of Adam, bias correction included ----


def _package_adam(lr, b1, b2, eps, p0=1.0):
    p = Value(p0)
    opt = Adam([p], lr=lr, betas=(b1, b2), eps=eps)
    out = []
    for g in _GRADS:
        p.grad = g
        opt.step()
        out.append((p.data, opt.m[0], opt.v[0]))
    return out


def _adam_variant(p, g, m, v, t, lr, b1, b2, eps, correct=True, sqrt=True, shift=0, eps_inside=False):
    """Adam with one thing changed, to recognise a common slip. Never raises."""
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    tt = t + shift
    if correct and tt < 1:
        return math.nan, m, v
    m_hat = m / (1 - b1**tt) if correct else m
    v_hat = v / (1 - b2**tt) if correct else v
    if eps_inside:
        denom = math.sqrt(v_hat + eps)
    else:
        denom = (math.sqrt(v_hat) if sqrt else v_hat) + eps
    return p - lr * m_hat / denom, m, v


def check_adam_step(adam_step):
    """adam_step(p, g, m, v, t, lr, beta1, beta2, eps) -> (new_p, new_m, new_v); t counts from 1."""
    wrong = not_a_function(adam_step, "adam_step")
    if wrong:
        return wrong
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    expected = _package_adam(lr, b1, b2, eps)
    p, m, v = 1.0, 0.0, 0.0
    for t, (g, (p_ok, m_ok, v_ok)) in enumerate(zip(_GRADS, expected), start=1):
        result, error = attempt(adam_step, p, g, m, v, t, lr, b1, b2, eps)
        if error:
            return Verdict(False, f"adam_step at t = {t} failed: {error}")
        triple = _numbers(result, 3)
        if triple is None:
            return Verdict(False, f"adam_step should return three numbers (p, m, v), got {result!r}")
        new_p, new_m, new_v = triple
        if _same(new_p, p_ok) and _same(new_m, m_ok) and _same(new_v, v_ok):
            p, m, v = new_p, new_m, new_v
            continue
        where = f"at t = {t} (g = {g})"
        args = (p, g, m, v, t, lr, b1, b2, eps)
        if not _same(new_m, m_ok):
            if _same(new_m, m):
                hint = "m did not change: update it, m = beta1*m + (1 - beta1)*g"
            else:
                hint = f"new_m {_apart(new_m, m_ok)} (beta1*m + (1 - beta1)*g)"
        elif not _same(new_v, v_ok):
            if _same(new_v, b2 * v + (1 - b2) * abs(g)):
                hint = "v averages the SQUARED gradient: v = beta2*v + (1 - beta2)*g*g"
            else:
                hint = f"new_v {_apart(new_v, v_ok)} (beta2*v + (1 - beta2)*g**2)"
        elif _same(new_p, _adam_variant(*args, correct=False)[0]):
            hint = "no bias correction: divide m by (1 - beta1**t) and v by (1 - beta2**t) first"
        elif _same(new_p, _adam_variant(*args, shift=-1)[0]):
            hint = "t already counts from 1 (the first step has t = 1): use beta**t, not beta**(t - 1)"
        elif _same(new_p, _adam_variant(*args, shift=1)[0]):
            hint = "t already counts from 1 (the first step has t = 1): use beta**t, not beta**(t + 1)"
        elif _same(new_p, _adam_variant(*args, sqrt=False)[0]):
            hint = "divide by the square ROOT of v_hat (plus eps): sqrt(v_hat) is the typical gradient size"
        elif _same(new_p, _adam_variant(*args, eps_inside=True)[0]):
            hint = f"new_p {_apart(new_p, p_ok)}: eps goes outside the root, sqrt(v_hat) + eps"
        elif _same(new_p, 2 * p - p_ok):
            hint = "p moved uphill: subtract the step"
        else:
            hint = f"new_p {_apart(new_p, p_ok)} (p - lr * m_hat / (sqrt(v_hat) + eps))"
        return Verdict(False, f"{where}: {hint}")
    return Verdict(True)


@solution("ch10.adam_step", check=check_adam_step)
def adam_step(p, g, m, v, t, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g  # running mean of the gradient
    v = beta2 * v + (1 - beta2) * g * g  # running mean of its square
    m_hat = m / (1 - beta1**t)  # undo the pull towards the zero start
    v_hat = v / (1 - beta2**t)
    p = p - lr * m_hat / (math.sqrt(v_hat) + eps)
    return p, m, v
