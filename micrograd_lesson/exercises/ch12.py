"""Chapter 12 exercises: recall and precision from a confusion matrix; softmax cross-entropy's gradient."""

from functools import partial

import numpy as np

from ..tensor import Tensor
from ..tensor_nn import cross_entropy
from ._core import as_array, check, recorded, recorder, reference, solution
from ._shared import judge, record, recorded_mistakes, run_cases


def _same(got, want, tol=1e-7):  # the shape, then every entry within tol (relative), or tol * 1e-3 near 0
    return got.shape == np.shape(want) and np.allclose(got, want, rtol=tol, atol=tol * 1e-3)


# ---- 1. recall and precision from a confusion matrix ----
@reference
def _rates(c, recall_axis=1, precision_axis=0):  # [recall, precision]: diagonal over row, column sums
    return np.array([np.diag(c) / c.sum(axis=recall_axis), np.diag(c) / c.sum(axis=precision_axis)])


# Rows are true classes, columns predictions. Row and column sums differ (a swap shows); none is empty.
_CONFUSIONS = [np.array([[5, 1, 0], [2, 7, 1], [0, 3, 4]]), np.array([[9, 1], [4, 6]])]
_CONFUSIONS += [np.array([[3, 0, 0, 1], [0, 2, 2, 0], [1, 0, 5, 0], [0, 0, 1, 8]])]
_RATE_HINTS = {
    "swapped": "these are (precision, recall): rows are the true classes",
    "precision by row": "precision divides by the column: all the times the class was said",
    "recall by column": "recall divides by the row: all the points of that class",
    "by all": "divide by a row or column, not by every point",
}


@recorder("ch12.recall_precision")
def _record_rates():
    rules = {
        "swapped": lambda c: _rates(c)[::-1],
        "precision by row": partial(_rates, precision_axis=1),
        "recall by column": partial(_rates, recall_axis=0),
        "by all": lambda c: np.array([np.diag(c) / c.sum()] * 2),
    }
    return record([(c,) for c in _CONFUSIONS], _rates, rules)


_PAIR = "a pair (recall, precision) of 1-D arrays, each with one entry per class"


def _in_percent(got, want):  # 100 times the fractions, to within a percentage rounded to a whole one
    return bool(np.any(got > 1)) and np.allclose(got / 100, want, rtol=0, atol=0.0051)


@check("ch12.recall_precision", takes="function")
def check_recall_precision(recall_precision):
    def off(i):  # what is wrong on case i, when no known mistake explains it
        if got[i].shape != (2, len(_CONFUSIONS[i])):
            return f"return {_PAIR}"
        if any(_in_percent(row, want) for row in got[i] for want in records["want"][i]):
            return "recall and precision are fractions from 0 to 1, not percentages: leave out the * 100"
        recall, precision = np.round(records["want"][i], 4).tolist()
        yours = " and ".join(str(np.round(row, 4).tolist()) for row in got[i])
        return f"for {_CONFUSIONS[i].tolist()} recall is {recall} and precision {precision}, not {yours}"

    cases = [(c,) for c in _CONFUSIONS]
    got = run_cases(recall_precision, "", cases, as_array, _PAIR, lambda c: f"for {len(c[0])} classes")
    records = recorded("ch12.recall_precision")
    mistakes = recorded_mistakes(records, _RATE_HINTS)
    return judge(got, cases, records["want"], mistakes, partial(_same, tol=1e-5), off)


@solution("ch12.recall_precision")
def recall_precision(confusion):
    # Recall divides the hits by each row (a class's points), precision by each column (its predictions).
    return np.diag(confusion) / confusion.sum(axis=1), np.diag(confusion) / confusion.sum(axis=0)


# ---- 2. the gradient of softmax cross-entropy, derived ----
@reference
def _grad(logits, labels):  # the reference: the engine's mean cross-entropy, differentiated by backward()
    z = Tensor(logits, requires_grad=True)
    cross_entropy(z, labels).backward()
    return z.grad


_CE_HINTS = {
    "sum": "too big: the loss is a MEAN over the batch, so divide by its size",
    "flipped": "the sign is flipped: softmax minus one-hot, not one-hot minus softmax",
    "lse only": "log-sum-exp term alone: -z_t counts too",
    "-z_t only": "that is -z_t alone: log-sum-exp contributes too",
    "by classes": "divide by the batch size, not the number of classes",
}


def _ce_cases():
    rng = np.random.default_rng(13)  # (batch, classes, scale): the last overflows exp()
    sizes = ((4, 3, 1.0), (7, 10, 3.0), (2, 5, 1000.0))
    cases = [(rng.normal(size=(b, c)) * scale, rng.integers(0, c, size=b)) for b, c, scale in sizes]
    return cases + [(np.array([[1000.0, 0.0], [0.0, 1.0]]), np.array([0, 1]))]  # rows far apart


@recorder("ch12.cross_entropy_grad")
def _record_ce():
    rules = {
        "sum": lambda z, t: _grad(z, t) * len(t),
        "flipped": lambda z, t: -_grad(z, t),
        "lse only": lambda z, t: _grad(z, t) + np.eye(z.shape[1])[t] / len(t),
        "-z_t only": lambda z, t: -np.eye(z.shape[1])[t] / len(t),
        "by classes": lambda z, t: _grad(z, t) * len(t) / z.shape[1],
    }
    return record(_ce_cases(), _grad, rules)


@check("ch12.cross_entropy_grad", takes="function")
def check_cross_entropy_grad(cross_entropy_grad):
    def at(case):
        return f"for {len(case[0])} rows of {case[0].shape[1]} logits"

    def off(i):  # what is wrong on case i, when no known mistake explains it
        got, want = grads[i], np.array(records["want"][i])
        if got.shape != want.shape:
            return f"the gradient must have the logits' shape {want.shape}, got {got.shape}"
        if not np.all(np.isfinite(got)):
            return "not finite: exp() overflowed or underflowed to 0/0: subtract each row's own maximum first"
        if not np.allclose(got.sum(axis=1), 0, atol=1e-9):
            return f"row 0 should be {np.round(want[0], 4)}; every row of the true gradient sums to 0"
        return f"wrong numbers, e.g. row 0 should be {np.round(want[0], 4)}, not {np.round(got[0], 4)}"

    cases, records = _ce_cases(), recorded("ch12.cross_entropy_grad")
    with np.errstate(all="ignore"):  # a learner's overflow becomes a hint, not a warning
        grads = run_cases(cross_entropy_grad, "", cases, as_array, "an array", at)
    mistakes = recorded_mistakes(records, _CE_HINTS)
    return judge(grads, cases, records["want"], mistakes, _same, off, lambda i: at(cases[i]) + ": ")


@solution("ch12.cross_entropy_grad")
def cross_entropy_grad(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)  # no overflow in exp
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    return (probs - np.eye(logits.shape[1])[labels]) / len(labels)  # the loss averages over the batch
