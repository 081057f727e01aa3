"""Chapter 11 exercises: summing a broadcast gradient back, a quadratic form's
backward, and the cost of a recursive backward on stacked diamonds."""

import numpy as np

from ..tensor import _unbroadcast
from ._core import Verdict, as_array, attempt, check, not_a_function, solution
from ._shared import judge, run_cases


def _same(got, want):
    return got is not None and got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-12)


# ---- 1. unbroadcast ----

# (shape of one input, shape of the broadcast result): every kind of broadcast.
_UNBROADCAST_CASES = [
    ((3, 4), (3, 4)),  # nothing broadcast
    ((4,), (3, 4)),  # a bias over rows: an axis added in front
    ((3, 1), (3, 4)),  # a column stretched across
    ((1, 4), (3, 4)),  # a row stretched down
    ((), (2, 3)),  # a single number used everywhere
    ((2, 1, 3), (4, 2, 5, 3)),  # both at once
    ((1,), (5,)),
]


def _random_broadcast(rng):
    """(input shape, result shape): a random result of 1 to 4 axes, and an input that drops some
    leading axes and has length 1 along some others."""
    result_shape = tuple(int(n) for n in rng.integers(2, 5, size=rng.integers(1, 5)))
    kept = result_shape[rng.integers(0, len(result_shape) + 1) :]
    return tuple(1 if rng.random() < 0.4 else n for n in kept), result_shape


@check("ch11.unbroadcast")
def check_unbroadcast(unbroadcast):
    """unbroadcast(grad, shape) -> grad summed back to `shape`, for every kind of broadcast."""
    if (wrong := not_a_function(unbroadcast, "your unbroadcast function")) is not None:
        return wrong
    rng = np.random.default_rng(11)
    for shape, result_shape in _UNBROADCAST_CASES + [_random_broadcast(rng) for _ in range(20)]:
        grad = rng.normal(size=result_shape)
        want = _unbroadcast(grad, shape)
        result, error = attempt(unbroadcast, grad.copy(), shape)
        where = f"for an input of shape {shape} broadcast to {result_shape}"
        if error:
            return Verdict(False, f"{where}: {error}")
        got = as_array(result)
        if got is None:
            return Verdict(False, f"{where}: return an array of numbers, got {type(result).__name__}")
        if _same(got, want):
            continue
        return Verdict(False, f"{where}: {_unbroadcast_hint(got, grad, shape, want)}")
    return Verdict(True)


def _unbroadcast_hint(got, grad, shape, want):
    stretched = [i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1]
    if got.shape == grad.shape and grad.ndim == len(shape) and stretched:
        return (
            f"broadcasting stretched axes {stretched} of this input (length 1): sum over them, keepdims=True"
        )
    if got.shape == grad.shape and got.shape != shape:
        return f"the gradient still has the result's shape {grad.shape}: sum it back to {shape}"
    if got.size == want.size and got.shape != shape and np.allclose(got.ravel(), want.ravel()):
        return f"the numbers are right but the shape is {got.shape}: keep each length-1 axis (keepdims=True)"
    if got.shape == shape and np.allclose(got * grad.size / max(want.size, 1), want):
        return "you averaged; every copy's gradient counts in full, so sum"
    if got.shape != shape:
        return (
            f"the result must have the input's shape {shape}, got {got.shape}: sum over the axes "
            f"broadcasting added in front, and (keeping them) over the axes where the input has length 1"
        )
    if got.shape == grad.shape:
        return "nothing was broadcast here, so the gradient passes through unchanged: return grad as it is"
    return f"right shape, wrong numbers: expected {want.ravel()[:3]}..., got {got.ravel()[:3]}..."


@solution("ch11.unbroadcast")
def unbroadcast(grad, shape):
    while grad.ndim > len(shape):  # axes added in front: the input was reused along them
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:  # a length-1 axis stretched: sum, keep it
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


# ---- 2. the backward of a quadratic form, where x is used twice ----

_QUADRATIC_MISTAKES = [  # (dx the learner may write, hint); A is never symmetric in the check
    (lambda A, x: A @ x, "x is used twice, in x @ A and in A @ x: add the gradients of both uses"),
    (lambda A, x: A.T @ x, "x is used twice, in x @ A and in A @ x: add the gradients of both uses"),
    (lambda A, x: 2 * A @ x, "2 A x holds only when A is symmetric; the two uses of x give A x and A.T x"),
    (lambda A, x: 2 * A.T @ x, "2 A.T x holds only when A is symmetric; the two uses give A x and A.T x"),
]


@check("ch11.quadratic_backward")
def check_quadratic_backward(quadratic_backward):
    """quadratic_backward(A, x) -> (dA, dx) for L = x @ A @ x, a number."""
    if (wrong := not_a_function(quadratic_backward, "your quadratic_backward function")) is not None:
        return wrong
    rng = np.random.default_rng(12)
    for n in (3, 2, 4):
        A, x = rng.normal(size=(n, n)), rng.normal(size=n)  # A is not symmetric
        dA, dx = np.outer(x, x), (A + A.T) @ x
        where = f"with A of shape {A.shape} and x of shape {x.shape}"
        result, error = attempt(quadratic_backward, A.copy(), x.copy())
        if error:
            return Verdict(False, f"{where}: {error}")
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            return Verdict(False, f"return a pair (dA, dx), got {type(result).__name__}")
        got_A, got_x = as_array(result[0]), as_array(result[1])
        if got_A is None or got_x is None:
            return Verdict(False, "return two arrays of numbers (dA, dx)")
        if _same(got_A, dx) or _same(got_x, dA):
            return Verdict(False, "you returned (dx, dA): the order is (dA, dx)")
        for name, got, want in (("dA", got_A, dA), ("dx", got_x, dx)):
            if got.shape != want.shape:
                return Verdict(
                    False, f"{where}: {name} must have the shape {want.shape} of its input, got {got.shape}"
                )
        if not _same(got_A, dA):
            return Verdict(
                False, f"{where}: dA has the right shape but wrong numbers; L = sum_ij x_i A_ij x_j"
            )
        if not _same(got_x, dx):
            hint = next((h for rule, h in _QUADRATIC_MISTAKES if _same(got_x, rule(A, x))), None)
            return Verdict(False, f"{where}: " + (hint or "dx has the right shape but wrong numbers"))
    return Verdict(True)


@solution("ch11.quadratic_backward")
def quadratic_backward(A, x):
    # L = sum_ij x_i A_ij x_j. A_ij meets x_i x_j; x meets A on both sides, so its two
    # uses add up, as a Value used twice did in chapter 4.
    dA = np.outer(x, x)
    dx = A @ x + A.T @ x
    return dA, dx


# ---- 3. visits of a recursive backward on k diamonds ----


def _counted_visits(k):
    """Run chapter 11's recursive walk over k stacked diamonds and count the calls."""
    # Each level's node y has inputs (2y', 3y'), which both have input y' (the level below).
    calls = 0

    def visit(level, kind):
        nonlocal calls
        calls += 1
        if kind == "sum" and level > 0:
            visit(level, "left")
            visit(level, "right")
        elif kind in ("left", "right"):
            visit(level - 1, "sum")  # level 0's "sum" is x itself: no inputs

    visit(k, "sum")
    return calls


# Formulas a learner may reach instead; each is named only when it gives every answer, not where
# two formulas happen to meet.
_VISIT_MISTAKES = [
    (
        lambda k: 3 * k + 1,
        "3k + 1 is the number of nodes, what the topological backward visits; recursion visits more",
    ),
    (lambda k: 2**k, "2**k counts the paths to x alone; the nodes above x are reached by many paths too"),
]


@check("ch11.recursive_visits")
def check_recursive_visits(recursive_visits):
    """recursive_visits(k) -> how many calls recursive_backward makes on diamonds(k)."""
    cases = [(k,) for k in range(13)]
    calls = run_cases(recursive_visits, "your recursive_visits function", cases)
    return judge(
        calls,
        cases,
        _counted_visits,
        _VISIT_MISTAKES,
        otherwise=lambda k: (
            f"for k = {k} the recursive backward makes {_counted_visits(k)} calls, "
            f"your formula gives {calls[k]:g}"
        ),
    )


@solution("ch11.recursive_visits")
def recursive_visits(k):
    # Level j from the top (j = 0 .. k-1) has 3 nodes, each reached by 2**j paths;
    # x at the bottom is reached by 2**k. Sum: 3 * (2**k - 1) + 2**k.
    return 2 ** (k + 2) - 3
