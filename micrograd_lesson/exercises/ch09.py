"""Chapter 9 exercises: the squared hinge's gradient, a buggy mini-batch sampler, cross-entropy."""

from functools import partial

import numpy as np

from ..engine import Value
from ._core import as_array, attempt, check, recorded, recorder, reference, solution
from ._shared import all_exact, judge, record, recorded_mistakes, run_cases


@reference
def _squared_hinge(scores, ys, factor=2, n=True, clip=True, inner=True):  # 9.1, one step switchable off
    s, y = np.asarray(scores, dtype=float), np.asarray(ys, dtype=float)
    inside = np.maximum(0.0, 1 - y * s) if clip else 1 - y * s
    size = len(s) if n is True else 1 if n is False else n  # True: the mean; False: the sum; else / n
    return list(-factor * (y if inner else -1) * inside / size)


@reference
def _engine_grads(scores, ys):  # d/ds of mean(max(0, 1 - y*s)**2), built from Values, by backward()
    values = [Value(s) for s in scores]
    (sum(((1 - y * v).relu()) ** 2 for v, y in zip(values, ys)) * (1.0 / len(values))).backward()
    return [v.grad for v in values]


_HINGE_BATCHES = [  # points beyond, on and inside the margin, both labels; the square is smooth at 1
    ([2.0, -1.0, 0.5, -3.0, 0.0, 0.7], [1, -1, -1, 1, 1, 1]),
    ([0.3, -2.0, 1.0, 4.0], [1, 1, 1, -1]),
    ([-0.5, 0.25, 3.0], [-1, -1, 1]),
]
_HINGE_HINTS = {
    "factor 1": "the square's derivative brings down a factor 2",
    "n = 1": "the loss is a MEAN over the batch: divide by n",
    "n = 6": "divide by the batch's own size, len(scores), not a fixed 6 (the example's size)",
    "inner -1": "chain rule: the inside, 1 - y*s, has derivative -y",
    "inner 1": "chain rule: d(1 - y*s)/ds is -y, not -1",
    "flipped": "the sign is flipped: raising y*s lowers the loss",
    "no clip": "points beyond the margin (y*s > 1) cost nothing: gradient 0",
    "plain hinge": "that is the plain hinge's gradient; the square makes it grow with the distance 1 - y*s",
}


@recorder("ch09.squared_hinge_grads")
def _record_hinge():
    rules = {
        "factor 1": partial(_squared_hinge, factor=1),
        "n = 1": partial(_squared_hinge, n=1),
        "n = 6": partial(_squared_hinge, n=6),
        "inner -1": partial(_squared_hinge, inner=False),
        "inner 1": partial(_squared_hinge, factor=-2, inner=False),
        "flipped": partial(_squared_hinge, factor=-2),
        "no clip": partial(_squared_hinge, clip=False),
        "plain hinge": lambda s, y: [-y / len(s) if y * x < 1 else 0.0 for x, y in zip(s, y)],
    }
    return record(_HINGE_BATCHES, _engine_grads, rules)


@check("ch09.squared_hinge_grads")
def check_squared_hinge_grads(squared_hinge_grads):
    grads = run_cases(
        squared_hinge_grads, "squared_hinge_grads", _HINGE_BATCHES, as_array, "a number per score"
    )

    def otherwise(i):  # names a point of a batch the notebook does not print: the prediction stays theirs
        (scores, ys), got = _HINGE_BATCHES[1], grads[1]
        if any(g.shape != (len(s),) for g, (s, _) in zip(grads, _HINGE_BATCHES)):
            return "return one number per score, in a list or an array"
        for s, y, g, w in zip(scores, ys, got, records["want"][1]):
            if not np.isclose(g, w):
                return f"with {len(scores)} points, score {s} (label {y}) should get {w:.4f}, got {g:.4f}"
        return "right on one batch, wrong on another: does your rule use the batch's own size n?"

    def same(got, want):
        return got.shape == np.shape(want) and np.allclose(got, want, rtol=1e-9, atol=1e-12)

    records = recorded("ch09.squared_hinge_grads")
    mistakes = recorded_mistakes(records, _HINGE_HINTS)
    return judge(grads, _HINGE_BATCHES, records["want"], mistakes, same, otherwise)


@solution("ch09.squared_hinge_grads")
def squared_hinge_grads(scores, ys):
    # d/ds max(0, 1 - y*s)**2 = 2 * max(0, 1 - y*s) * (-y): the outer square, then the inside.
    return [-2 * y * max(0.0, 1 - y * s) / len(scores) for s, y in zip(scores, ys)]


_X = np.column_stack([np.arange(20.0), np.arange(20.0) ** 2])  # 9.2: every row is different
_Y = np.where(np.arange(20) % 3 == 0, 1, -1)


def _rows_drawn(sample_batch, n, size, seed):
    got, error = attempt(sample_batch, _X[:n].copy(), _Y[:n].copy(), size, np.random.default_rng(seed))
    if error:
        return f"sample_batch(X, y, {size}, rng) with X of {n} rows: {error}"
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return f"return two things, (X_batch, y_batch); got {type(got).__name__}"
    Xb, yb = as_array(got[0]), as_array(got[1])
    if Xb is None or yb is None or Xb.shape != (size, 2) or yb.shape != (size,):
        return f"a batch of {size} is X_batch of shape ({size}, 2) and y_batch of shape ({size},)"
    rows = [int(a) if a in _X[:n, 0] and b == a * a else None for a, b in Xb]
    if None in rows:
        return "X_batch holds a row that is not a row of X: pick rows, do not make them"
    if any(_Y[r] != label for r, label in zip(rows, yb)):
        return "y_batch[i] must be the label of X_batch[i]: index X and y with the same indices"
    if len(set(rows)) < size:
        return "a batch repeats an example: sample without replacement (rng.permutation or rng.choice)"
    return rows


@check("ch09.sample_batch", takes="function")
def check_sample_batch(sample_batch):
    batches = [_rows_drawn(sample_batch, 20, 8, seed) for seed in [*range(100), 0]]  # 0 again: same batch
    if hint := next((rows for rows in batches if isinstance(rows, str)), None):
        return hint
    if batches[0] != batches[100]:
        return "the same rng seed gave a different batch: draw the indices with the rng given"
    distinct = len({frozenset(b) for b in batches[:100]})  # 8 of 20 rows can be chosen 125,970 ways
    counts = np.bincount(np.concatenate(batches[:100]), minlength=20)  # each row about 40 times
    if distinct == 1:
        return "every seed gave the same batch: draw the rows at random, with the rng you are given"
    if distinct < 90 or counts.min() < 15 or counts.max() > 65:
        return (
            f"100 seeds gave {distinct} different batches (want about 100), and row {counts.argmin()} was "
            f"picked {counts.min()} times (about 40): give every row the same chance, and any 8 rows a "
            "chance to come together (a run of neighbouring rows is not a random batch)"
        )
    all_rows = _rows_drawn(sample_batch, 12, 12, 0)  # 12 distinct rows of X[:12]: a fixed 20 or 8 fails
    return all_rows if isinstance(all_rows, str) else True


@solution("ch09.sample_batch")
def sample_batch(X, y, batch_size, rng):
    X, y = np.asarray(X), np.asarray(y)
    idx = rng.choice(len(X), size=batch_size, replace=False)  # distinct row numbers
    return X[idx], y[idx]  # the same rows of both, so labels stay with their points


@reference
def _bce(scores, ys, target=lambda y: (y + 1) / 2, divide_by=len, grad_factor=1):  # 9.3: [loss, *dloss/ds]
    ps, ts, n = [1 / (1 + np.exp(-s)) for s in scores], [target(y) for y in ys], divide_by(scores)
    loss = -sum(t * np.log(p) + (1 - t) * np.log(1 - p) for p, t in zip(ps, ts)) / n
    return [loss] + [grad_factor * (p - t) / n for p, t in zip(ps, ts)]  # d/ds of the log terms: p - t


_BCE_CASES = [_HINGE_BATCHES[0], (_HINGE_BATCHES[0][0][:3], _HINGE_BATCHES[0][1][:3])]
_BCE_WHERE = [f"for scores {_BCE_CASES[0][0]} and labels {_BCE_CASES[0][1]}: ", "on the first 3 examples: "]
_BCE_HINTS = {
    "sum": "that is the sum over the examples: divide by len(scores)",
    "flipped": "the sign is flipped: the loss is MINUS the mean log p",
    "labels": "turn the labels -1/+1 into targets 0/1 first: t = (y + 1) / 2",
    "swapped": "targets are swapped: +1 costs -log p, not -log(1 - p)",
    "no gradient": (
        "the loss is right, but no gradient reached the scores: build it from Value operations on them "
        "(sigmoid(), log()), not from floats wrapped in a Value at the end"
    ),
    "by 6": "the mean divides by len(scores), not a fixed 6",
    "twice": "gradients twice too large: return the loss, do not call backward()",
}


@recorder("ch09.bce_loss")
def _record_bce():
    rules = {
        "sum": partial(_bce, divide_by=lambda s: 1),
        "flipped": lambda s, y: [-x for x in _bce(s, y)],
        "labels": partial(_bce, target=lambda y: y),
        "swapped": partial(_bce, target=lambda y: (1 - y) / 2),
        "no gradient": partial(_bce, grad_factor=0),
        "by 6": partial(_bce, divide_by=lambda s: 6),
        "twice": partial(_bce, grad_factor=2),
    }
    return record(_BCE_CASES, _bce, rules)


@check("ch09.bce_loss", takes="function")
def check_bce_loss(bce_loss):
    results = []
    for scores, ys in _BCE_CASES:
        values = [Value(s) for s in scores]
        loss, error = attempt(bce_loss, values, list(ys))
        if error or not isinstance(loss, Value):
            return error or f"bce_loss should return a Value, got {type(loss).__name__}"
        if error := attempt(loss.backward)[1]:
            return f"backward() through your loss failed: {error}"
        results.append([loss.data] + [v.grad for v in values])

    def otherwise(i):
        (loss, *grads), (want, *wants) = results[i], records["want"][i]
        if not all_exact([loss], [want]):
            return f"the loss should be {want:.4f}, got {loss:.4f}"
        j = max(range(len(grads)), key=lambda j: abs(grads[j] - wants[j]))
        return f"the loss is right, its gradients not: d loss/d s{j} is {wants[j]:.4f}, got {grads[j]:.4f}"

    records = recorded("ch09.bce_loss")
    mistakes = recorded_mistakes(records, _BCE_HINTS)
    return judge(
        results, _BCE_CASES, records["want"], mistakes, all_exact, otherwise, lambda i: _BCE_WHERE[i]
    )


@solution("ch09.bce_loss")
def bce_loss(scores, ys):
    ps = [s.sigmoid() for s in scores]  # the model's probabilities that the labels are +1
    ts = [(y + 1) / 2 for y in ys]  # the labels as targets: 1 for +1, 0 for -1
    return sum(-(t * p.log() + (1 - t) * (1 - p).log()) for p, t in zip(ps, ts)) * (1.0 / len(ps))
