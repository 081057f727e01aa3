"""Chapter 12 exercises: a confusion matrix, and the gradient of softmax cross-entropy."""

import numpy as np

from ..tensor import Tensor, cross_entropy
from ._core import Verdict, as_array, attempt, not_a_function, solution

__all__ = ["check_confusion_matrix", "check_cross_entropy_grad"]


# ---- 1. the confusion matrix ----


def _confusion(labels, predictions, n_classes):
    counts = np.zeros((n_classes, n_classes), dtype=int)
    np.add.at(counts, (labels, predictions), 1)
    return counts


def check_confusion_matrix(confusion_matrix):
    """confusion_matrix(labels, predictions, n_classes) -> counts[true, predicted]."""
    wrong = not_a_function(confusion_matrix, "your confusion_matrix function")
    if wrong:
        return wrong
    rng = np.random.default_rng(12)
    cases = [(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 1]), 3)]
    cases += [(rng.integers(0, n, size=40), rng.integers(0, n, size=40), n) for n in (2, 4, 10)]
    cases.append((np.array([0, 0, 1]), np.array([0, 0, 1]), 4))  # classes 2 and 3 never occur
    for labels, predictions, n in cases:
        want = _confusion(labels, predictions, n)
        result, error = attempt(confusion_matrix, labels.copy(), predictions.copy(), n)
        where = (
            f"for labels {labels[:6].tolist()}... and predictions {predictions[:6].tolist()}... ({n} classes)"
        )
        if error:
            return Verdict(False, f"{where}: {error}")
        got = as_array(result)
        if got is None:
            return Verdict(False, f"return an array of counts, got {type(result).__name__}")
        if got.shape == want.shape and np.array_equal(got, want):
            continue
        if got.shape != want.shape:
            hint = f"the matrix must be {want.shape} (n_classes square, unseen classes too); got {got.shape}"
        elif np.array_equal(got, want.T):
            hint = "rows and columns are swapped: row = the true label, column = the prediction"
        elif np.allclose(got.sum(axis=1)[want.sum(axis=1) > 0], 1):
            hint = "these are fractions per row; count the points instead"
        elif got.sum() != len(labels):
            hint = f"count every point once: the counts should add up to {len(labels)}, not {got.sum():g}"
        else:
            hint = f"expected\n{want}\ngot\n{got}"
        return Verdict(False, f"{where}: {hint}")
    return Verdict(True)


@solution("ch12.confusion_matrix", check=check_confusion_matrix)
def confusion_matrix(labels, predictions, n_classes):
    counts = np.zeros((n_classes, n_classes), dtype=int)
    for true, predicted in zip(labels, predictions):
        counts[true, predicted] += 1  # row: what it is; column: what the network said
    return counts


# ---- 2. the gradient of softmax cross-entropy, derived ----


def check_cross_entropy_grad(cross_entropy_grad):
    """cross_entropy_grad(logits, labels) -> d(mean cross-entropy)/d(logits), in NumPy alone."""
    wrong = not_a_function(cross_entropy_grad, "your cross_entropy_grad function")
    if wrong:
        return wrong
    rng = np.random.default_rng(13)
    for batch, classes, scale in ((4, 3, 1.0), (7, 10, 3.0), (2, 5, 1000.0)):  # the last overflows exp()
        logits = rng.normal(size=(batch, classes)) * scale
        labels = rng.integers(0, classes, size=batch)
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
        return "your numbers overflow for large logits: subtract each row's maximum before exp()"
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


@solution("ch12.cross_entropy_grad", check=check_cross_entropy_grad)
def cross_entropy_grad(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)  # no overflow in exp
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    one_hot = np.eye(logits.shape[1])[labels]
    return (probs - one_hot) / len(labels)  # the loss averages over the batch
