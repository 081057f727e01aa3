"""Chapter 11 exercises: a broadcast gradient summed back, a quadratic form's backward, recursion's cost
on diamonds of any width."""

import numpy as np

from .. import tensor
from ._core import as_array, check, recorded, recorder, reference, solution
from ._shared import judge, record, recorded_mistakes, run_cases


def _same(got, want):
    return got.shape == np.shape(want) and np.allclose(got, want, rtol=1e-9, atol=1e-12)


# ---- 1. unbroadcast ----
def _unbroadcast_cases():
    """(grad, input shape): nothing broadcast, a bias over rows, a column stretched across, a row
    stretched down, one number, both kinds at once; then 20 drawn at random, the same on every run."""

    def drawn(rng):  # a result of 1 to 4 axes; the input drops leading axes and has length 1 along others
        result = tuple(int(n) for n in rng.integers(2, 5, size=rng.integers(1, 5)))
        kept = result[rng.integers(0, len(result) + 1) :]
        return tuple(1 if rng.random() < 0.4 else n for n in kept), result

    shapes = [((3, 4), (3, 4)), ((4,), (3, 4)), ((3, 1), (3, 4)), ((1, 4), (3, 4)), ((), (2, 3))]
    shapes += [((2, 1, 3), (4, 2, 5, 3)), ((1,), (5,))]
    rng = np.random.default_rng(11)
    return [(rng.normal(size=result), shape) for shape, result in shapes + [drawn(rng) for _ in range(20)]]


_UNBROADCAST_HINTS = {
    "unchanged": "the gradient still has the result's shape: sum it back to the input's",
    "leading only": "sum the length-1 axes too",
    "squeezed": "keep each length-1 axis (keepdims=True)",
    "averaged": "you averaged: sum",
}


@recorder("ch11.unbroadcast")
def _record_unbroadcast():
    reference = tensor._unbroadcast  # the engine's own
    rules = {
        "unchanged": lambda g, shape: g,
        "leading only": lambda g, shape: g.sum(axis=tuple(range(g.ndim - len(shape)))),
        "squeezed": lambda g, shape: reference(g, shape).squeeze(),
        "averaged": lambda g, shape: reference(g, shape) * np.prod(shape) / g.size,
    }
    return record(_unbroadcast_cases(), reference, rules)


@check("ch11.unbroadcast")
def check_unbroadcast(unbroadcast):
    def at(case):
        return f"for an input of shape {case[1]} broadcast to {case[0].shape}"

    def otherwise(i):
        (grad, shape), got = cases[i], sums[i]
        if got.shape != shape:
            return f"the result must have the input's shape {shape}, got {got.shape}"
        if np.allclose(got, records["want"][i], rtol=1e-5, atol=1e-6):
            return "right to about 6 digits only: keep the gradient in float64 (no float32 on the way)"
        if shape == grad.shape:
            return "nothing was broadcast: return grad"
        lead = grad.ndim - len(shape)  # one copy's gradient, the first along every broadcast axis
        copy = grad[(0,) * lead][tuple(slice(0, 1) if n == 1 else slice(None) for n in shape)]
        if np.allclose(got, copy):
            return "that is one copy's gradient: the input was used once per copy, so sum them all"
        return "right shape, wrong numbers: each entry is the sum of the gradients of all its copies"

    cases, records = _unbroadcast_cases(), recorded("ch11.unbroadcast")
    sums = run_cases(unbroadcast, "your unbroadcast function", cases, as_array, "an array", at)
    mistakes = recorded_mistakes(records, _UNBROADCAST_HINTS)
    return judge(sums, cases, records["want"], mistakes, _same, otherwise, lambda i: at(cases[i]) + ": ")


@solution("ch11.unbroadcast")
def unbroadcast(grad, shape):
    while grad.ndim > len(shape):  # axes added in front: the input was reused along them
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:  # a length-1 axis stretched: sum, keep it
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


# ---- 2. the backward of a quadratic form, where x is used twice ----
@check("ch11.quadratic_backward", takes="function")
def check_quadratic_backward(quadratic_backward):
    def grads(A, x):  # (dA, dx) of L = x @ A @ x
        return np.outer(x, x), (A + A.T) @ x

    def two(got):  # (dA, dx) as two arrays
        pair = [as_array(part) for part in got] if len(got) == 2 else [None]
        return None if any(part is None for part in pair) else pair

    def otherwise(i):
        (A, x), (dA, dx) = cases[i], pairs[i]
        if (dA.shape, dx.shape) != (A.shape, x.shape):
            return f"dA must have the shape {A.shape} of A, and dx the shape {x.shape} of x"
        if not _same(dA, np.outer(x, x)):
            return "dA is wrong: L = sum_ij x_i A_ij x_j"
        return f"with A of shape {A.shape}, dx should be {np.round((A + A.T) @ x, 4)}, got {np.round(dx, 4)}"

    mistakes = [  # A is never symmetric in the check, so each of these is wrong
        (lambda A, x: grads(A, x)[::-1], "you returned (dx, dA): the order is (dA, dx)"),
        (lambda A, x: (np.outer(x, x), A @ x), "x is used twice, in x @ A and A @ x: add both"),
        (lambda A, x: (np.outer(x, x), A.T @ x), "x is used twice, in x @ A and A @ x: add both"),
        (lambda A, x: (np.outer(x, x), 2 * A @ x), "2 A x needs a symmetric A; add A x and A.T x"),
        (lambda A, x: (np.outer(x, x), 2 * A.T @ x), "2 A.T x needs a symmetric A; add A x, A.T x"),
    ]
    rng = np.random.default_rng(12)
    cases = [(rng.normal(size=(n, n)), rng.normal(size=n)) for n in (3, 2, 4)]
    pairs = run_cases(quadratic_backward, "", cases, two, "a pair", lambda c: f"with A of shape {c[0].shape}")
    return judge(pairs, cases, grads, mistakes, lambda p, w: all(map(_same, p, w)), otherwise)


@solution("ch11.quadratic_backward")
def quadratic_backward(A, x):
    # L = sum_ij x_i A_ij x_j. A_ij meets x_i x_j; x meets A on both sides, so its two
    # uses add up, as a Value used twice did in chapter 4.
    return np.outer(x, x), A @ x + A.T @ x  # (dA, dx)


# ---- 3. visits of a recursive backward on k diamonds of width w ----
@reference
def _counted_visits(k, w=2):
    """The calls chapter 11's recursive walk makes on k stacked diamonds of width w, counted call by
    call as the walk makes them (memoised, since every middle node of a level is alike)."""
    calls = {}

    def visit(level, node):  # a level's sum has w middle inputs c*y', which share the y' below
        if (level, node) not in calls:
            if node == "sum":
                calls[level, node] = 1 + (w * visit(level, "middle") if level > 0 else 0)
            else:
                calls[level, node] = 1 + visit(level - 1, "sum")
        return calls[level, node]

    for level in range(k + 1):  # bottom up, so no recursion runs deep
        visit(level, "sum")
    return visit(k, "sum")


def _visit_cases():
    """(k, w): a chain (w = 1), the chapter's width 2 at a depth it does not print, then depths and
    widths drawn at random, the same on every run."""
    rng = np.random.default_rng(113)
    drawn = {(int(rng.integers(0, 16)), int(rng.integers(1, 8))) for _ in range(40)}
    big = [(30, 1), (25, 3), (20, 7)]  # below 2**63, so a count in NumPy ints does not wrap round
    return [(6, 1), (7, 2), (0, 3), (1, 4), *sorted(drawn), *big]


@recorder("ch11.recursive_visits")
def _record_visits():
    return record(_visit_cases(), _counted_visits)


@check("ch11.recursive_visits")
def check_recursive_visits(recursive_visits):
    def where(case):
        return f"for k = {case[0]} diamonds of width w = {case[1]}"

    def otherwise(i):
        count = want[i]
        return f"{where(cases[i])} the recursive backward makes {count} calls, not {calls[i]:g}"

    mistakes = [  # each named only when it gives every answer, not where two formulas meet
        (lambda k, w: (w + 1) * k + 1, "(w + 1)k + 1 counts nodes (a topological backward's visits)"),
        (lambda k, w: w**k, "w**k counts the paths to x alone; the nodes above x are reached by many too"),
        (lambda k, w: 4 * 2**k - 3, "that is the count for width 2 only: let w set the paths to each level"),
        (lambda k, w: sum(w**j for j in range(k + 1)), "the w middle nodes of a level are reached too"),
    ]
    cases, want = _visit_cases(), recorded("ch11.recursive_visits")["want"]
    calls = run_cases(recursive_visits, "your recursive_visits function", cases, where=where)
    return judge(calls, cases, want, mistakes, otherwise=otherwise)


@solution("ch11.recursive_visits")
def recursive_visits(k, w):
    # The sum j levels below the top is reached by w**j paths, and so is each of its w middle
    # nodes: (1 + w) * w**j calls, for j = 0 .. k-1; x at the bottom is reached by w**k.
    return sum((1 + w) * w**j for j in range(k)) + w**k
