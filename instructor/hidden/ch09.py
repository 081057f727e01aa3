"""Hidden cases for chapter 9: batches of other sizes, a sampler on a larger data set."""

import math

import numpy as np

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import Missed, Verdict, as_array, attempt, hidden, shown
from micrograd_lesson.exercises.ch09 import _engine_grads


@hidden("ch09.squared_hinge_grads")
def squared_hinge_on_other_batches(squared_hinge_grads):
    """A single point, and 7 points on, inside and beyond the margin: an answer hard-coded to the
    check's three batches fails."""
    for kind, scores, ys in [
        ("a batch of one point", [0.4], [-1]),
        (
            "seven points on, inside and beyond the margin",
            [1.0, -0.2, 2.5, -1.0, 0.9, -3.0, 0.0],
            [1, 1, -1, -1, 1, 1, -1],
        ),
    ]:
        got, error = attempt(squared_hinge_grads, list(scores), list(ys))
        want, grads = _engine_grads(scores, ys), as_array(got)
        if error or grads is None or grads.shape != (len(scores),) or not np.allclose(grads, want, rtol=1e-9):
            gave = error or shown(got)
            return Missed(
                kind, gave, f"scores {scores}, labels {ys}: want {np.round(want, 4).tolist()}, got {gave}"
            )
    return Verdict(True)


@hidden("ch09.sample_batch")
def sample_batch_from_fifty_rows(sample_batch):
    """Batches of 5 from 50 rows, then a batch of all 50: an answer with the check's 20 rows or
    batch size 8 written in picks only some rows, or the wrong number."""
    X = np.column_stack([np.arange(50.0), -np.arange(50.0), np.ones(50)])
    y = np.arange(50) % 2
    seen = set()
    for seed, size in [(s, 5) for s in range(200)] + [(0, 50)]:  # the full batch last
        got, error = attempt(sample_batch, X.copy(), y.copy(), size, np.random.default_rng(seed))
        pair = got if isinstance(got, (tuple, list)) and len(got) == 2 else (None, None)
        Xb, yb = as_array(pair[0]), as_array(pair[1])
        if error or Xb is None or yb is None or Xb.shape != (size, 3) or yb.shape != (size,):
            gave = error or f"{shown(got)}"
            told = f"a batch of {size} from X of shape (50, 3): "
            told += error or f"want X_batch of shape ({size}, 3) and y_batch ({size},)"
            return Missed(f"a batch of {size} from a data set of 50 rows", gave, told)
        rows = Xb[:, 0].astype(int)
        if len(set(rows)) != size or not np.array_equal(yb, rows % 2):
            why = "rows must be distinct and keep their labels"
            return Missed(
                f"a batch of {size} from a data set of 50 rows",
                f"rows that do not ({why})",
                f"a batch of {size} from 50 rows: {why}",
            )
        seen.update(rows.tolist())
        if seed == 199 and len(seen) < 50:
            missing = 50 - len(seen)
            told = f"200 batches of 5 from 50 rows never picked {missing} rows: use len(X)"
            return Missed(
                "200 batches of 5 from a data set of 50 rows",
                f"batches that never picked {missing} rows (use len(X))",
                told,
            )
    return Verdict(True)


@hidden("ch09.bce_loss")
def bce_loss_on_other_batches(bce_loss):
    """Three scores, then one: an answer that divides by the check's 6 gets the mean wrong."""
    for kind, scores, ys in [
        ("a batch of three scores", [0.3, -1.2, 2.5], [-1, 1, 1]),
        ("a batch of one score", [-0.4], [-1]),
    ]:
        values = [Value(s) for s in scores]
        loss, error = attempt(bce_loss, values, list(ys))
        if not error and isinstance(loss, Value):
            _, error = attempt(loss.backward)
        n = len(scores)
        want = sum(math.log(1 + math.exp(-y * s)) for s, y in zip(scores, ys)) / n
        grads = [(1 / (1 + math.exp(-s)) - (y + 1) / 2) / n for s, y in zip(scores, ys)]
        if (
            error
            or not isinstance(loss, Value)
            or not math.isclose(loss.data, want, rel_tol=1e-9)
            or not all(math.isclose(v.grad, g, rel_tol=1e-9, abs_tol=1e-12) for v, g in zip(values, grads))
        ):
            gave = error or shown(loss)
            told = f"scores {scores}, labels {ys}: want loss {want:.6f}"
            told += f" (the mean: divide by len(scores)), got {gave}"
            return Missed(kind + " (the mean: divide by len(scores))", gave, told)
    return Verdict(True)
