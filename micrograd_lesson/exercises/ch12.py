"""Chapter 12 exercises: recall and precision read off a confusion matrix, and the gradient of
softmax cross-entropy."""

import numpy as np

from ..tensor import Tensor, cross_entropy
from ._core import Verdict, as_array, attempt, check, not_a_function, solution

# ---- 1. recall and precision from a confusion matrix ----

# Rows are the true classes, columns the predictions. Row and column sums differ, so
# reading the matrix the wrong way round shows; every row and column holds a point.
_CONFUSIONS = [
    np.array([[5, 1, 0], [2, 7, 1], [0, 3, 4]]),
    np.array([[9, 1], [4, 6]]),
    np.array([[3, 0, 0, 1], [0, 2, 2, 0], [1, 0, 5, 0], [0, 0, 1, 8]]),
]


def _rates(c, recall_axis=1, precision_axis=0):
    diagonal = np.diag(c).astype(float)
    return diagonal / c.sum(axis=recall_axis), diagonal / c.sum(axis=precision_axis)


_RATE_MISTAKES = [
    (
        lambda c: _rates(c)[::-1],
        "these are (precision, recall): rows are the true classes, so recall divides by the row's "
        "sum (the class's points) and precision by the column's (the times it was predicted)",
    ),
    (
        lambda c: _rates(c, precision_axis=1),
        "precision divides by the column: all the times the class was said",
    ),
    (lambda c: _rates(c, recall_axis=0), "recall divides by the row: all the points of that class"),
    (
        lambda c: (np.diag(c) / c.sum(), np.diag(c) / c.sum()),
        "divide each class's correct count by its own row or column, not by every point",
    ),
]


@check("ch12.recall_precision")
def check_recall_precision(recall_precision):
    """recall_precision(confusion) -> (recall, precision), one entry per class; rows are true classes."""
    if (wrong := not_a_function(recall_precision, "your recall_precision function")) is not None:
        return wrong
    answers = []
    for c in _CONFUSIONS:
        result, error = attempt(recall_precision, c.copy())
        if error:
            return Verdict(False, f"for the {len(c)}-class matrix: {error}")
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            return Verdict(False, "return a pair (recall, precision), each an array with one entry per class")
        pair = [as_array(r) for r in result]
        if any(r is None or r.shape != (len(c),) for r in pair):
            return Verdict(
                False, f"for the {len(c)}-class matrix recall and precision need {len(c)} numbers each"
            )
        answers.append(pair)

    def matches(rule):
        return all(np.allclose(a, w) for pair, c in zip(answers, _CONFUSIONS) for a, w in zip(pair, rule(c)))

    if matches(_rates):
        return Verdict(True)
    hint = next((h for rule, h in _RATE_MISTAKES if matches(rule)), None)
    recall, precision = _rates(_CONFUSIONS[0])
    return Verdict(
        False,
        hint
        or f"for [[5, 1, 0], [2, 7, 1], [0, 3, 4]] recall is {np.round(recall, 4).tolist()} and precision "
        f"{np.round(precision, 4).tolist()}",
    )


@solution("ch12.recall_precision")
def recall_precision(confusion):
    correct = np.diag(confusion)
    recall = correct / confusion.sum(axis=1)  # of each class's points (its row), how many were found
    precision = correct / confusion.sum(
        axis=0
    )  # of each class's predictions (its column), how many were right
    return recall, precision


# ---- 2. the gradient of softmax cross-entropy, derived ----


@check("ch12.cross_entropy_grad")
def check_cross_entropy_grad(cross_entropy_grad):
    """cross_entropy_grad(logits, labels) -> d(mean cross-entropy)/d(logits), in NumPy alone."""
    if (wrong := not_a_function(cross_entropy_grad, "your cross_entropy_grad function")) is not None:
        return wrong
    rng = np.random.default_rng(13)
    cases = [
        (rng.normal(size=(b, c)) * scale, rng.integers(0, c, size=b))
        for b, c, scale in ((4, 3, 1.0), (7, 10, 3.0))
    ]
    cases.append((rng.normal(size=(2, 5)) * 1000.0, rng.integers(0, 5, size=2)))  # overflows exp()
    cases.append(
        (np.array([[1000.0, 0.0], [0.0, 1.0]]), np.array([0, 1]))
    )  # rows far apart: each its own max
    for logits, labels in cases:
        batch, classes = logits.shape
        engine_logits = Tensor(logits, requires_grad=True)
        cross_entropy(engine_logits, labels).backward()
        want = engine_logits.grad
        where = f"for {batch} rows of {classes} logits"
        with np.errstate(all="ignore"):  # a learner's overflow becomes a hint, not a warning
            result, error = attempt(cross_entropy_grad, logits.copy(), labels.copy())
        if error:
            return Verdict(False, f"{where}: {error}")
        got = as_array(result)
        if got is None:
            return Verdict(False, f"return an array of gradients, got {type(result).__name__}")
        if got.shape != want.shape:
            return Verdict(
                False, f"{where}: the gradient must have the logits' shape {want.shape}, got {got.shape}"
            )
        if np.allclose(got, want, rtol=1e-7, atol=1e-10):
            continue
        hint = _cross_entropy_hint(got, want, logits, labels)
        return Verdict(False, f"{where}: {hint}")
    return Verdict(True)


def _cross_entropy_hint(got, want, logits, labels):
    """Name the learner's mistake by comparing with the usual wrong derivations."""
    batch = len(labels)
    one_hot = np.eye(logits.shape[1])[labels]
    probs = want + one_hot / batch  # softmax(logits) / batch
    if not np.all(np.isfinite(got)):
        return (
            "your numbers are not finite: exp() overflows for large logits, and subtracting one maximum "
            "for the whole batch sends a row far below it to 0/0; subtract each row's own maximum"
        )
    for wrong, hint in (
        (
            want * batch,
            f"right direction, {batch} times too big: the loss is a MEAN over the batch, so divide by it",
        ),
        (-want, "the sign is flipped: it is softmax minus one-hot, not one-hot minus softmax"),
        (
            probs,
            "that is the derivative of the log-sum-exp term alone; -z_t contributes too "
            "(-1 at the true class)",
        ),
        (-one_hot / batch, "that is the derivative of -z_t alone; the log-sum-exp term contributes too"),
        (want * batch / logits.shape[1], "divide by the batch size (rows), not by the number of classes"),
    ):
        if np.allclose(got, wrong, rtol=1e-7, atol=1e-10):
            return hint
    if not np.allclose(got.sum(axis=1), 0, atol=1e-9):
        return (
            f"wrong numbers, e.g. row 0 should be {np.round(want[0], 4)}; in the true gradient every row "
            f"sums to 0 (yours: {got[0].sum():.4g} in row 0)"
        )
    return f"wrong numbers, e.g. row 0 should be {np.round(want[0], 4)}, not {np.round(got[0], 4)}"


@solution("ch12.cross_entropy_grad")
def cross_entropy_grad(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)  # no overflow in exp
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    one_hot = np.eye(logits.shape[1])[labels]
    return (probs - one_hot) / len(labels)  # the loss averages over the batch
