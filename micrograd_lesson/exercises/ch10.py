"""Chapter 10 exercises: one momentum update, one Adam update, by hand."""

import math

from ..engine import Value
from ..optim import SGD, Adam
from ._core import attempt, solution, verdict

__all__ = ["check_momentum_step", "check_adam_step"]

_GRADS = [1.0, 2.0, -2.0, 0.5, 3.0]  # gradients that change size and sign


def _as_pair(result):
    """(a, b) as two floats, or None if result is not a pair of numbers."""
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return None
    try:
        return float(result[0]), float(result[1])
    except (TypeError, ValueError):
        return None


def _close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


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
    if not callable(momentum_step):
        return verdict(False, "pass your function itself: check_momentum_step(momentum_step)")
    lr, mu = 0.1, 0.9
    expected = _package_momentum(lr, mu)
    p, v = 1.0, 0.0
    for t, (g, (p_ok, v_ok)) in enumerate(zip(_GRADS, expected), start=1):
        result, error = attempt(momentum_step, p, v, g, lr, mu)
        if error:
            return verdict(False, f"momentum_step({p:.4f}, {v:.4f}, {g}, {lr}, {mu}) failed: {error}")
        pair = _as_pair(result)
        if pair is None:
            return verdict(False, f"momentum_step should return two numbers (new_p, new_v), got {result!r}")
        new_p, new_v = pair
        if _close(new_p, p_ok) and _close(new_v, v_ok):
            p, v = new_p, new_v
            continue
        where = f"at step {t} (p = {p:.4f}, v = {v:.4f}, g = {g})"
        damped = mu * v + (1 - mu) * g
        if _close(new_v, damped):
            hint = "you scaled g by (1 - mu); the rule here (and PyTorch's) adds g as it is: v = mu*v + g"
        elif _close(new_v, v_ok) and _close(new_p, p + lr * v_ok):
            hint = "the velocity is right but p moved uphill: subtract, p - lr*v"
        elif _close(new_v, v_ok) and _close(new_p, p - lr * v):
            hint = "update v first, then move p with the NEW velocity"
        elif _close(new_v, v_ok) and _close(new_p, p - lr * g):
            hint = "move p by the velocity, not by the raw gradient: p - lr*v"
        elif not _close(new_v, v_ok):
            hint = f"new_v should be mu*v + g = {v_ok:.4f}, got {new_v:.4f}"
        else:
            hint = f"new_p should be p - lr*new_v = {p_ok:.4f}, got {new_p:.4f}"
        return verdict(False, f"{where}: {hint}")
    return verdict(True)


@solution("ch10.momentum_step", check=check_momentum_step)
def momentum_step(p, v, g, lr, mu):
    v = mu * v + g  # old velocity decays, today's gradient is added in full
    p = p - lr * v  # then step with the new velocity
    return p, v


# ---- 2. one step of Adam, bias correction included ----


def _package_adam(lr, b1, b2, eps, p0=1.0):
    p = Value(p0)
    opt = Adam([p], lr=lr, betas=(b1, b2), eps=eps)
    out = []
    for g in _GRADS:
        p.grad = g
        opt.step()
        out.append((p.data, opt.m[0], opt.v[0]))
    return out


def _adam_variant(p, g, m, v, t, lr, b1, b2, eps, correct=True, sqrt=True, shift=0):
    """Adam with one thing changed, to recognise a common slip."""
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    tt = t + shift
    m_hat = m / (1 - b1**tt) if correct else m
    v_hat = v / (1 - b2**tt) if correct else v
    denom = math.sqrt(v_hat) if sqrt else v_hat
    return p - lr * m_hat / (denom + eps), m, v


def check_adam_step(adam_step):
    """adam_step(p, g, m, v, t, lr, beta1, beta2, eps) -> (new_p, new_m, new_v); t counts from 1."""
    if not callable(adam_step):
        return verdict(False, "pass your function itself: check_adam_step(adam_step)")
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    expected = _package_adam(lr, b1, b2, eps)
    p, m, v = 1.0, 0.0, 0.0
    for t, (g, (p_ok, m_ok, v_ok)) in enumerate(zip(_GRADS, expected), start=1):
        result, error = attempt(adam_step, p, g, m, v, t, lr, b1, b2, eps)
        if error:
            return verdict(False, f"adam_step at t = {t} failed: {error}")
        if not isinstance(result, (tuple, list)) or len(result) != 3:
            return verdict(
                False, f"adam_step should return three numbers (new_p, new_m, new_v), got {result!r}"
            )
        try:
            new_p, new_m, new_v = (float(r) for r in result)
        except (TypeError, ValueError):
            return verdict(False, f"adam_step should return three numbers, got {result!r}")
        if _close(new_p, p_ok) and _close(new_m, m_ok) and _close(new_v, v_ok):
            p, m, v = new_p, new_m, new_v
            continue
        where = f"at t = {t} (g = {g})"
        if not _close(new_m, m_ok):
            hint = f"new_m should be beta1*m + (1 - beta1)*g = {m_ok:.6f}, got {new_m:.6f}"
        elif not _close(new_v, v_ok):
            hint = f"new_v should be beta2*v + (1 - beta2)*g**2 = {v_ok:.6f}, got {new_v:.6f}"
        else:
            args = (p, g, m, v, t, lr, b1, b2, eps)
            if _close(new_p, _adam_variant(*args, correct=False)[0]):
                hint = "no bias correction: divide m by (1 - beta1**t) and v by (1 - beta2**t) first"
            elif t > 1 and _close(new_p, _adam_variant(*args, shift=-1)[0]):
                hint = "t already counts from 1 (the first step has t = 1): use beta**t, not beta**(t - 1)"
            elif _close(new_p, _adam_variant(*args, shift=1)[0]):
                hint = "t already counts from 1 (the first step has t = 1): use beta**t, not beta**(t + 1)"
            elif _close(new_p, _adam_variant(*args, sqrt=False)[0]):
                hint = (
                    "divide by the square ROOT of v_hat (plus eps): sqrt(v_hat) is the typical gradient size"
                )
            elif _close(new_p, 2 * p - _adam_variant(*args)[0]):
                hint = "p moved uphill: subtract the step"
            else:
                hint = f"new_p should be p - lr * m_hat / (sqrt(v_hat) + eps) = {p_ok:.6f}, got {new_p:.6f}"
        return verdict(False, f"{where}: {hint}")
    return verdict(True)


@solution("ch10.adam_step", check=check_adam_step)
def adam_step(p, g, m, v, t, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g  # running mean of the gradient
    v = beta2 * v + (1 - beta2) * g * g  # running mean of its square
    m_hat = m / (1 - beta1**t)  # undo the pull towards the zero start
    v_hat = v / (1 - beta2**t)
    p = p - lr * m_hat / (math.sqrt(v_hat) + eps)
    return p, m, v
