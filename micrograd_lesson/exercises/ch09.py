"""Chapter 9 exercises: the max-margin loss, mini-batches, and binary cross-entropy."""

import math

import numpy as np

from ..engine import Value
from ._core import Verdict, attempt, close, not_a_function, solution

__all__ = ["check_hinge_loss", "check_sample_batch", "check_bce_loss"]

_SCORES = [2.0, -1.0, 0.5, -3.0, 0.0, 0.7]
_LABELS = [1, -1, -1, 1, 1, 1]


def _run_loss(loss_fn, name):
    """Call loss_fn on fresh score Values; return (loss, scores, hint)."""
    scores = [Value(s, label=f"s{i}") for i, s in enumerate(_SCORES)]
    loss, error = attempt(loss_fn, scores, list(_LABELS))
    if error:
        return None, scores, f"{name}(scores, ys) failed: {error}"
    if not isinstance(loss, Value):
        return (
            None,
            scores,
            (
                f"{name} should return a Value (backward() starts there), got {type(loss).__name__}: "
                "build it from the scores with Value operations"
            ),
        )
    try:
        loss.backward()
    except Exception as e:  # a learner's broken graph is a hint, never a traceback
        return None, scores, f"backward() through your loss failed: {type(e).__name__}: {e}"
    return loss, scores, None


def _compare_grads(scores, expected):
    got = [s.grad for s in scores]
    if all(close(g, e) for g, e in zip(got, expected)):
        return None
    worst = max(range(len(got)), key=lambda i: abs(got[i] - expected[i]))
    return (
        f"the value is right but the gradients are not: d loss / d s{worst} is {got[worst]:.4f}, "
        f"expected {expected[worst]:.4f}"
    )


# ---- 1. the max-margin (hinge) loss ----


def check_hinge_loss(hinge_loss):
    """hinge_loss(scores, ys): the mean of max(0, 1 - y * s), as a Value."""
    wrong = not_a_function(hinge_loss, "hinge_loss")
    if wrong:
        return wrong
    n = len(_SCORES)
    terms = [max(0.0, 1 - y * s) for s, y in zip(_SCORES, _LABELS)]
    expected = sum(terms) / n
    loss, scores, hint = _run_loss(hinge_loss, "hinge_loss")
    if hint:
        return Verdict(False, hint)
    value = loss.data
    if close(value, sum(terms)):
        return Verdict(
            False, f"got {value:.4f}, the sum over the {n} examples: divide by {n} to get the mean"
        )
    if close(value, sum(1 - y * s for s, y in zip(_SCORES, _LABELS)) / n):
        return Verdict(
            False, "examples beyond the margin (y * s > 1) must add 0, not a negative amount: use .relu()"
        )
    if close(value, sum(max(0.0, -y * s) for s, y in zip(_SCORES, _LABELS)) / n):
        return Verdict(False, "the margin is 1: each term is max(0, 1 - y * s), not max(0, -y * s)")
    if not close(value, expected):
        return Verdict(
            False,
            f"for scores {_SCORES} and labels {_LABELS} the loss should be {expected:.4f}, got {value:.4f}",
        )
    grads = [(-y / n if 1 - y * s > 0 else 0.0) for s, y in zip(_SCORES, _LABELS)]
    hint = _compare_grads(scores, grads)
    return Verdict(hint is None, hint or "")


@solution("ch09.hinge_loss", check=check_hinge_loss)
def hinge_loss(scores, ys):
    # Each example costs 1 - y*s while its margin y*s is below 1, and nothing once it is.
    losses = [(1 - y * s).relu() for s, y in zip(scores, ys)]
    return sum(losses) * (1.0 / len(losses))


# ---- 2. sampling a mini-batch ----


def _batch(sample_batch, X, y, size, seed):
    result, error = attempt(sample_batch, X, y, size, np.random.default_rng(seed))
    if error:
        return None, f"sample_batch(X, y, {size}, rng) failed: {error}"
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return None, f"return two things, (X_batch, y_batch); got {type(result).__name__}"
    try:
        Xb, yb = np.asarray(result[0], dtype=float), np.asarray(result[1])
    except (TypeError, ValueError) as e:
        return None, f"X_batch and y_batch should be arrays (or lists) of numbers: {e}"
    return (Xb, yb), None


def check_sample_batch(sample_batch):
    """sample_batch(X, y, batch_size, rng): batch_size distinct rows of X and their labels, drawn with rng."""
    wrong = not_a_function(sample_batch, "sample_batch")
    if wrong:
        return wrong
    X = np.column_stack([np.arange(20.0), np.arange(20.0) ** 2])  # every row is different
    y = np.where(np.arange(20) % 3 == 0, 1, -1)
    rows = {tuple(r): label for r, label in zip(X.tolist(), y.tolist())}
    batches = []
    for seed in range(5):
        batch, hint = _batch(sample_batch, X, y, 8, seed)
        if hint:
            return Verdict(False, hint)
        Xb, yb = batch
        if Xb.shape != (8, 2) or yb.shape != (8,):
            return Verdict(
                False,
                f"a batch of 8 should have X_batch of shape (8, 2) and y_batch of shape (8,); "
                f"got {Xb.shape} and {yb.shape}",
            )
        for r, label in zip(Xb.tolist(), yb.tolist()):
            if tuple(r) not in rows:
                return Verdict(
                    False, f"X_batch holds the row {r}, which is not a row of X: pick rows, do not make them"
                )
            if rows[tuple(r)] != label:
                return Verdict(
                    False, "y_batch[i] must be the label of X_batch[i]: index X and y with the same indices"
                )
        if len({tuple(r) for r in Xb.tolist()}) < 8:
            return Verdict(
                False,
                "a batch repeats an example: sample without replacement, e.g. "
                "rng.choice(len(X), size=batch_size, replace=False) or rng.permutation(len(X))[:batch_size]",
            )
        batches.append(Xb)
    again, _ = _batch(sample_batch, X, y, 8, 0)
    if again is None or not np.array_equal(again[0], batches[0]):
        return Verdict(
            False, "the same rng seed gave a different batch: draw the indices with the rng you are given"
        )
    if all(np.array_equal(b, batches[0]) for b in batches[1:]):
        return Verdict(False, "five different seeds gave the same batch: the batch must be random (use rng)")
    return Verdict(True)


@solution("ch09.sample_batch", check=check_sample_batch)
def sample_batch(X, y, batch_size, rng):
    X, y = np.asarray(X), np.asarray(y)
    idx = rng.choice(len(X), size=batch_size, replace=False)  # distinct row numbers
    return X[idx], y[idx]  # the same rows of both, so labels stay with their points


# ---- 3. binary cross-entropy on Values ----


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def check_bce_loss(bce_loss):
    """bce_loss(scores, ys), ys in {-1, +1}: the mean of -[t log p + (1 - t) log(1 - p)],
    with p = sigmoid(s) and t = (y + 1) / 2, as a Value."""
    wrong = not_a_function(bce_loss, "bce_loss")
    if wrong:
        return wrong
    n = len(_SCORES)
    per_example = [math.log(1 + math.exp(-y * s)) for s, y in zip(_SCORES, _LABELS)]
    expected = sum(per_example) / n
    loss, scores, hint = _run_loss(bce_loss, "bce_loss")
    if hint:
        return Verdict(False, hint)
    value = loss.data
    if close(value, sum(per_example)):
        return Verdict(False, f"got {value:.4f}, the sum over the {n} examples: divide by {n} for the mean")
    if close(value, -expected):
        return Verdict(
            False, "the sign is flipped: the loss is MINUS the mean log-probability of the right class"
        )
    if not close(value, expected):
        raw = 0.0
        for s, y in zip(_SCORES, _LABELS):  # labels used as targets without converting
            p = _sigmoid(s)
            raw -= y * math.log(p) + (1 - y) * math.log(1 - p)
        if close(value, raw / n):
            return Verdict(False, "turn the labels -1/+1 into targets 0/1 first: t = (y + 1) / 2")
        return Verdict(
            False,
            f"for scores {_SCORES} and labels {_LABELS} the loss should be {expected:.4f}, got {value:.4f}",
        )
    grads = [(_sigmoid(s) - (y + 1) / 2) / n for s, y in zip(_SCORES, _LABELS)]
    hint = _compare_grads(scores, grads)
    return Verdict(hint is None, hint or "")


@solution("ch09.bce_loss", check=check_bce_loss)
def bce_loss(scores, ys):
    losses = []
    for s, y in zip(scores, ys):
        p = s.sigmoid()  # the model's probability that the label is +1
        t = (y + 1) / 2  # the label as a target: 1 for +1, 0 for -1
        losses.append(-(t * p.log() + (1 - t) * (1 - p).log()))
    return sum(losses) * (1.0 / len(losses))
