"""Chapter 8 exercises: one training step, a learning rate for the bowl, gradient clipping."""

import math
import numbers
import random

from ..datasets import four_examples
from ..engine import Value
from ..nn import MLP
from ._core import attempt, solution, verdict

__all__ = ["check_train_step", "check_learning_rate", "check_clip_gradients"]


def _number(x):
    """x as a float if it is a real number (or a Value holding one), else None."""
    x = getattr(x, "data", x)
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return None
    return float(x)


# ---- 1. one full training step ----


def _network(seed=3):
    random.seed(seed)
    return MLP(3, [4, 4, 1], activation="tanh")


def _reference_step(model, xs, ys, lr):
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss.data


def check_train_step(train_step):
    """train_step(model, xs, ys, lr): forward, zero, backward, update; returns the loss before."""
    if not callable(train_step):
        return verdict(False, "pass your function itself: check_train_step(train_step)")
    xs, ys = four_examples()
    lr = 0.05
    mine, ref = _network(), _network()
    for step in range(3):
        before = [p.data for p in mine.parameters()]
        got, error = attempt(train_step, mine, xs, ys, lr)
        if error:
            return verdict(False, f"on step {step}: {error}")
        expected = _reference_step(ref, xs, ys, lr)
        value = _number(got)
        if value is None:
            return verdict(False, f"return the loss as a number (loss.data), got {got!r}")
        if not math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12):
            return verdict(
                False,
                f"on step {step} you returned loss {value:.6f}, expected {expected:.6f}: return the "
                "squared-error loss computed *before* the update",
            )
        after = [p.data for p in mine.parameters()]
        target = [p.data for p in ref.parameters()]
        if after == before:
            return verdict(False, "the parameters did not change: update each p.data -= lr * p.grad")
        if all(math.isclose(a, t, rel_tol=1e-9, abs_tol=1e-12) for a, t in zip(after, target)):
            continue
        moved = [a - b for a, b in zip(after, before)]
        wanted = [t - b for t, b in zip(target, before)]
        if all(math.isclose(m, -w, rel_tol=1e-6, abs_tol=1e-12) for m, w in zip(moved, wanted)):
            hint = "the parameters moved uphill: subtract lr * p.grad, do not add it"
        elif step > 0:
            hint = (
                f"step 0 was right but step {step} was not: zero the gradients (model.zero_grad()) "
                "before loss.backward(), or they pile up from the previous step"
            )
        else:
            hint = "the update is off: each parameter should move by exactly -lr * p.grad"
        return verdict(False, hint)
    return verdict(True)


@solution("ch08.train_step", check=check_train_step)
def train_step(model, xs, ys, lr):
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))  # 1. forward
    model.zero_grad()  # 2. zero
    loss.backward()  # 3. backward
    for p in model.parameters():  # 4. update
        p.data -= lr * p.grad
    return loss.data


# ---- 2. a learning rate that empties the bowl in 5 steps ----


def _bowl_after(lr, steps=5):
    """The bowl's loss after `steps` updates at rate lr from (2, 3); inf if it overflows."""
    w1, w2 = Value(2.0), Value(3.0)
    try:
        for _ in range(steps):
            loss = ((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5
            w1.grad = w2.grad = 0.0
            loss.backward()
            w1.data -= lr * w1.grad
            w2.data -= lr * w2.grad
        return (((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5).data
    except OverflowError:
        return math.inf


def check_learning_rate(lr):
    """A rate that brings the bowl's loss below 1e-6 within 5 updates (a number, or a
    function returning one, which is how reveal() passes the worked solution)."""
    if callable(lr) and not isinstance(lr, Value):
        lr, error = attempt(lr)
        if error:
            return verdict(False, error)
    value = _number(lr)
    if value is None or not math.isfinite(value):
        return verdict(
            False, f"give the learning rate as a number, e.g. check_learning_rate(0.5); got {lr!r}"
        )
    if value <= 0:
        return verdict(False, f"lr = {value:g} does not step downhill: a learning rate must be positive")
    loss = _bowl_after(value)
    if loss < 1e-6:
        return verdict(True)
    factor = abs(1 - value)
    if value >= 2:
        hint = f"each step multiplies the distance to the bottom by |1 - lr| = {factor:g}, so it grows"
    elif value < 1:
        hint = f"too cautious: after 5 updates, loss {loss:.2e}; each step keeps {factor:.0%} of the gap"
    else:
        hint = f"overshooting: after 5 updates, loss {loss:.2e}; each step lands {factor:.0%} too far"
    return verdict(False, f"lr = {value:g}: {hint}. Which lr makes 1 - lr = 0?")


@solution("ch08.learning_rate", check=check_learning_rate)
def learning_rate():
    # Each update multiplies the distance to the bottom by (1 - lr).
    # lr = 1 makes that factor 0: the first step lands exactly on (1, 5).
    return 1.0


# ---- 3. gradient clipping by the global norm ----

_GRADS = [3.0, -4.0, 12.0]  # length 13


def check_clip_gradients(clip_gradients):
    """clip_gradients(params, max_norm): scale all grads so their joint length is <= max_norm."""
    if not callable(clip_gradients):
        return verdict(False, "pass your function itself: check_clip_gradients(clip_gradients)")
    cases = [(6.5, [1.5, -2.0, 6.0]), (13.0, list(_GRADS)), (26.0, list(_GRADS))]
    for max_norm, expected in cases:
        params = [Value(1.0) for _ in _GRADS]
        for p, g in zip(params, _GRADS):
            p.grad = g
        got, error = attempt(clip_gradients, params, max_norm)
        if error:
            return verdict(False, f"clip_gradients(params, {max_norm}) failed: {error}")
        grads = [p.grad for p in params]
        if [p.data for p in params] != [1.0, 1.0, 1.0]:
            return verdict(False, "change only p.grad; p.data is the optimiser's job")
        norm = _number(got)
        if norm is None or not math.isclose(norm, 13.0, rel_tol=1e-9):
            return verdict(
                False,
                f"return the length before clipping: sqrt(3² + 4² + 12²) = 13, got {got!r}",
            )
        if all(math.isclose(g, e, rel_tol=1e-9) for g, e in zip(grads, expected)):
            continue
        if max_norm >= 13.0:
            return verdict(
                False, f"with max_norm = {max_norm:g} the length 13 is within bounds: leave the grads alone"
            )
        if grads == [max(-max_norm, min(max_norm, g)) for g in _GRADS]:
            hint = "you clipped each gradient on its own; scale them all by one factor, max_norm / length"
        elif all(math.isclose(g, e * 2, rel_tol=1e-9) for g, e in zip(grads, expected)) or all(
            math.isclose(g, ge / 13.0, rel_tol=1e-9) for g, ge in zip(grads, _GRADS)
        ):
            hint = "scale by max_norm / length, so the new length is exactly max_norm"
        else:
            hint = "multiply every p.grad by max_norm / length, where length = sqrt(sum of p.grad**2)"
        wanted = ", ".join(f"{e:g}" for e in expected)
        got_text = ", ".join(f"{g:g}" for g in grads)
        return verdict(
            False,
            f"grads [3, -4, 12] with max_norm {max_norm:g} became [{got_text}], expected [{wanted}]: {hint}",
        )
    return verdict(True)


@solution("ch08.clip_gradients", check=check_clip_gradients)
def clip_gradients(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5  # the length of the whole gradient
    if norm > max_norm:
        scale = max_norm / norm  # one factor for all: the direction is kept
        for p in params:
            p.grad *= scale
    return norm
