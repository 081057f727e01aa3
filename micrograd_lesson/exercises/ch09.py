"""Chapter 9 exercises: the squared hinge's gradient, a buggy mini-batch sampler, cross-entropy."""

import math
from functools import partial

import numpy as np

from ..engine import Value
from ._core import Verdict, as_array, attempt, check, close, known_mistake, not_a_function, shown, solution
from ._shared import judge, run_cases

_SCORES = [2.0, -1.0, 0.5, -3.0, 0.0, 0.7]
_LABELS = [1, -1, -1, 1, 1, 1]


# ---- 1. the squared hinge's gradient, derived ----

# Batches with points beyond, on and inside the margin, both labels; a margin of exactly 1
# is fine here, because the squared hinge is smooth there.
_HINGE_BATCHES = [
    (_SCORES, _LABELS),
    ([0.3, -2.0, 1.0, 4.0], [1, 1, 1, -1]),
    ([-0.5, 0.25, 3.0], [-1, -1, 1]),
]


def _squared_hinge(scores, ys, factor=2, n=True, clip=True, inner=True):
    """d/ds of mean(max(0, 1 - y*s)**2), with one step of the derivation switchable off."""
    count = len(scores) if n else 1
    return [
        -factor * (y if inner else -1) * (max(0.0, 1 - y * s) if clip else 1 - y * s) / count
        for s, y in zip(scores, ys)
    ]


_HINGE_MISTAKES = [
    (partial(_squared_hinge, factor=1), "the square's derivative brings down a factor 2"),
    (partial(_squared_hinge, n=False), "the loss is a MEAN over the batch: divide by n"),
    (partial(_squared_hinge, inner=False), "chain rule: the inside, 1 - y*s, has derivative -y"),
    (lambda s, y: [-g for g in _squared_hinge(s, y)], "the sign is flipped: raising y*s lowers the loss"),
    (partial(_squared_hinge, clip=False), "points beyond the margin (y*s > 1) cost nothing: gradient 0"),
    (
        lambda s, y: [-y / len(s) if y * x < 1 else 0.0 for x, y in zip(s, y)],
        "that is the plain hinge's gradient; the square makes it grow with the distance 1 - y*s",
    ),
]


def _engine_grads(scores, ys):
    """The reference: the mean squared hinge built from Values, differentiated by backward()."""
    values = [Value(s) for s in scores]
    (sum(((1 - y * v).relu()) ** 2 for v, y in zip(values, ys)) * (1.0 / len(values))).backward()
    return [v.grad for v in values]


def _same_array(got, want):
    return got.shape == np.shape(want) and np.allclose(got, want, rtol=1e-9, atol=1e-12)


def _hinge_hint(answers):
    """Name one wrong point of a batch the notebook does not print, so the prediction stays the learner's."""
    (scores, ys), got = _HINGE_BATCHES[1], answers[1]
    want = _engine_grads(scores, ys)
    for i, (s, y) in enumerate(zip(scores, ys)):
        if not np.isclose(got[i], want[i]):
            return (
                f"with {len(scores)} points, the point with score {s} and label {y} should get "
                f"{want[i]:.4f}, got {got[i]:.4f}"
            )
    return "right on one batch, wrong on another: does your rule use the batch's own size n?"


@check("ch09.squared_hinge_grads")
def check_squared_hinge_grads(squared_hinge_grads):
    """squared_hinge_grads(scores, ys): d/ds_i of the mean of max(0, 1 - y*s)**2, from floats."""
    grads = run_cases(
        squared_hinge_grads,
        "squared_hinge_grads",
        _HINGE_BATCHES,
        read=as_array,
        want="one number per score",
        where=lambda batch: f"for scores {batch[0]}",
    )
    if not isinstance(grads, Verdict) and any(
        g.shape != (len(s),) for g, (s, _) in zip(grads, _HINGE_BATCHES)
    ):
        return Verdict(False, "return one number per score, in a list or an array")
    return judge(
        grads, _HINGE_BATCHES, _engine_grads, _HINGE_MISTAKES, _same_array, lambda i: _hinge_hint(grads)
    )


@solution("ch09.squared_hinge_grads")
def squared_hinge_grads(scores, ys):
    n = len(scores)
    # d/ds max(0, 1 - y*s)**2 = 2 * max(0, 1 - y*s) * (-y): the outer square, then the inside.
    return [-2 * y * max(0.0, 1 - y * s) / n for s, y in zip(scores, ys)]


# ---- 2. sampling a mini-batch ----

_X = np.column_stack([np.arange(20.0), np.arange(20.0) ** 2])  # every row is different
_Y = np.where(np.arange(20) % 3 == 0, 1, -1)


def _batch_rows(sample_batch, seed):
    """The row numbers of X a batch of 8 holds, or (None, hint). Never raises."""
    result, error = attempt(sample_batch, _X.copy(), _Y.copy(), 8, np.random.default_rng(seed))
    if error:
        return None, f"sample_batch(X, y, 8, rng) failed: {error}"
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return None, f"return two things, (X_batch, y_batch); got {type(result).__name__}"
    Xb, yb = as_array(result[0]), as_array(result[1])
    if Xb is None or yb is None or Xb.shape != (8, 2) or yb.shape != (8,):
        return (
            None,
            "a batch of 8 from X of shape (20, 2) is X_batch of shape (8, 2) and y_batch of shape (8,)",
        )
    rows = [int(r[0]) if r[0] in _X[:, 0] and r[1] == r[0] ** 2 else None for r in Xb]
    if None in rows:
        return None, "X_batch holds a row that is not a row of X: pick rows, do not make them"
    if any(_Y[r] != label for r, label in zip(rows, yb)):
        return None, "y_batch[i] must be the label of X_batch[i]: index X and y with the same indices"
    if len(set(rows)) < 8:
        return None, "a batch repeats an example: sample without replacement (rng.permutation or rng.choice)"
    return rows, None


@check("ch09.sample_batch")
def check_sample_batch(sample_batch):
    """sample_batch(X, y, batch_size, rng): batch_size distinct rows of X and their labels, drawn with rng."""
    if (wrong := not_a_function(sample_batch, "sample_batch")) is not None:
        return wrong
    batches = []
    for seed in range(100):
        rows, hint = _batch_rows(sample_batch, seed)
        if hint:
            return Verdict(False, hint)
        batches.append(rows)
    if _batch_rows(sample_batch, 0)[0] != batches[0]:
        return Verdict(
            False, "the same rng seed gave a different batch: draw the indices with the rng you are given"
        )
    distinct = len({frozenset(b) for b in batches})
    if distinct < 90:  # 8 of 20 rows can be chosen 125,970 ways: 100 seeds should rarely repeat one
        return Verdict(
            False,
            f"100 seeds gave only {distinct} different batches: any 8 of the 20 rows must be able to "
            "come together (a run of neighbouring rows is not a random batch)",
        )
    counts = np.bincount(np.concatenate(batches), minlength=20)  # each row about 40 times
    if counts.min() < 15 or counts.max() > 65:
        return Verdict(
            False,
            f"over 100 batches of 8 out of 20 rows each row should be picked about 40 times, but row "
            f"{counts.argmin()} was picked {counts.min()} times: give every row the same chance",
        )
    got, error = attempt(sample_batch, _X[:12].copy(), _Y[:12].copy(), 12, np.random.default_rng(0))
    Xb = as_array(got[0]) if isinstance(got, (tuple, list)) and len(got) == 2 else None
    if error or Xb is None or Xb.shape != (12, 2) or sorted(Xb[:, 0]) != list(range(12)):
        return Verdict(
            False,
            f"a batch of 12 from the 12 rows X[:12] should hold each row once, got {error or shown(got)}: "
            "draw batch_size rows out of len(X), not a fixed 8 out of 20",
        )
    return Verdict(True)


@solution("ch09.sample_batch")
def sample_batch(X, y, batch_size, rng):
    X, y = np.asarray(X), np.asarray(y)
    idx = rng.choice(len(X), size=batch_size, replace=False)  # distinct row numbers
    return X[idx], y[idx]  # the same rows of both, so labels stay with their points


# ---- 3. binary cross-entropy on Values ----


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


@check("ch09.bce_loss")
def check_bce_loss(bce_loss):
    """bce_loss(scores, ys), ys in {-1, +1}: the mean of -[t log p + (1 - t) log(1 - p)],
    with p = sigmoid(s) and t = (y + 1) / 2, as a Value."""
    if (wrong := not_a_function(bce_loss, "bce_loss")) is not None:
        return wrong
    scores = [Value(s, label=f"s{i}") for i, s in enumerate(_SCORES)]
    loss, error = attempt(bce_loss, scores, list(_LABELS))
    if error or not isinstance(loss, Value):
        return Verdict(
            False,
            f"bce_loss(scores, ys) failed: {error}"
            if error
            else f"bce_loss should return a Value built from the scores, got {type(loss).__name__}",
        )
    n, (_, error) = len(_SCORES), attempt(loss.backward)
    if error:
        return Verdict(False, f"backward() through your loss failed: {error}")
    per_example = [math.log(1 + math.exp(-y * s)) for s, y in zip(_SCORES, _LABELS)]
    expected = sum(per_example) / n
    if not close(loss.data, expected):
        unconverted = -sum(  # the labels used as targets without turning -1 into 0
            y * math.log(_sigmoid(s)) + (1 - y) * math.log(1 - _sigmoid(s)) for s, y in zip(_SCORES, _LABELS)
        )
        mistakes = [
            (sum(per_example), f"that is the sum over the {n} examples: divide by {n} for the mean"),
            (-expected, "the sign is flipped: the loss is MINUS the mean log-probability of the right class"),
            (unconverted / n, "turn the labels -1/+1 into targets 0/1 first: t = (y + 1) / 2"),
        ]
        hint = known_mistake(loss.data, mistakes) or f"the loss should be {expected:.4f}, got {loss.data:.4f}"
        return Verdict(False, f"for scores {_SCORES} and labels {_LABELS}: {hint}")
    got = [s.grad for s in scores]
    want = [(_sigmoid(s) - (y + 1) / 2) / n for s, y in zip(_SCORES, _LABELS)]
    short, error = attempt(lambda: bce_loss([Value(s) for s in _SCORES[:3]], list(_LABELS[:3])).data)
    if all(map(close, got, want)) and not close(short, sum(per_example[:3]) / 3):
        return Verdict(
            False,
            f"on the first 3 examples the loss should be {sum(per_example[:3]) / 3:.4f}, got "
            f"{error or shown(short)}: the mean divides by len(scores), not a fixed {n}",
        )
    if all(map(close, got, want)):
        return Verdict(True)
    if all(close(g, 2 * w) for g, w in zip(got, want)):
        return Verdict(
            False, "every gradient came out twice as large: return the loss without calling backward() on it"
        )
    i = max(range(n), key=lambda i: abs(got[i] - want[i]))
    return Verdict(
        False,
        f"the value is right but the gradients are not: d loss / d s{i} is {got[i]:.4f}, "
        f"expected {want[i]:.4f}",
    )


@solution("ch09.bce_loss")
def bce_loss(scores, ys):
    losses = []
    for s, y in zip(scores, ys):
        p = s.sigmoid()  # the model's probability that the label is +1
        t = (y + 1) / 2  # the label as a target: 1 for +1, 0 for -1
        losses.append(-(t * p.log() + (1 - t) * (1 - p).log()))
    return sum(losses) * (1.0 / len(losses))
