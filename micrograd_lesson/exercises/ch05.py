"""Chapter 5 exercises: new operations (sin, cos, sqrt) with correct gradients.

A learner's function takes a Value x and returns a new Value. Either style of
attaching the gradient is accepted: `_local_grads=(...)` passed to the Value
constructor (the package's style), or a closure assigned to `out._backward`
(the lectures' style).
"""

import math

from ..engine import Value
from ._core import attempt, solution, verdict

__all__ = ["check_sin", "check_cos", "check_sqrt"]


def _close(x, y, tol=1e-9):
    return isinstance(x, (int, float)) and math.isclose(x, y, rel_tol=tol, abs_tol=tol)


def _check_unary(fn, name, f, df, points, wrong_derivatives=()):
    """Check that fn(Value(x)) has data f(x) and passes back df(x), at each of `points`.

    wrong_derivatives: (function, hint) pairs for plausible mistakes, recognised by the
    gradient they produce.
    """
    if not callable(fn):
        return verdict(False, f"pass your function itself, e.g. check_{name}(my_{name})")
    for x0 in points:
        x = Value(x0, label="x")
        out, error = attempt(fn, x)
        if error:
            return verdict(False, f"{name}(Value({x0})): {error}")
        if not isinstance(out, Value):
            return verdict(False, f"{name}(x) should return a new Value, got {type(out).__name__}")
        if out is x:
            return verdict(False, f"{name}(x) returned x itself: make a new Value for the result")
        if not _close(out.data, f(x0)):
            return verdict(False, f"{name}({x0}) should have data {f(x0):.6f}, got {out.data!r}")
        if not any(child is x for child in out._prev):
            return verdict(
                False, f"the result does not remember its input: create it as Value(..., (x,), '{name}')"
            )
        _, error = attempt(out.backward)
        if error:
            return verdict(False, f"backward() through {name}({x0}) failed: {error}")
        if x.grad == 0 and df(x0) != 0:
            return verdict(
                False,
                f"x.grad stayed 0 at x = {x0}: give the result its local derivative, with "
                "_local_grads=(...,) or a closure assigned to out._backward",
            )
        if not _close(x.grad, df(x0)):
            for wrong, hint in wrong_derivatives:
                if _close(x.grad, wrong(x0)):
                    return verdict(False, hint)
            return verdict(False, f"d{name}/dx at x = {x0} should be {df(x0):.6f}, got {x.grad!r}")

    # Inside a bigger expression: y = fn(x) * x, so dy/dx = f'(x) * x + f(x).
    # This catches a closure that forgets `* out.grad` or assigns with `=`.
    x0 = points[0]
    x = Value(x0, label="x")
    out, error = attempt(fn, x)
    if error:
        return verdict(False, f"{name}(Value({x0})): {error}")
    y = out * x
    _, error = attempt(y.backward)
    if error:
        return verdict(False, f"backward() through {name}(x) * x failed: {error}")
    expected = df(x0) * x0 + f(x0)
    if not _close(x.grad, expected):
        if _close(x.grad, df(x0) + f(x0)):
            return verdict(
                False,
                f"inside {name}(x) * x the gradient from above is ignored: multiply your local "
                "derivative by out.grad",
            )
        if _close(x.grad, df(x0) * x0):
            return verdict(
                False,
                f"inside {name}(x) * x, x loses the gradient from its other path: "
                "accumulate with x.grad += ..., not x.grad = ...",
            )
        return verdict(
            False, f"for y = {name}(x) * x at x = {x0}, dy/dx should be {expected:.6f}, got {x.grad!r}"
        )
    return verdict(True)


def check_sin(sin):
    """sin(x) returns a Value with data sin(x.data) and local derivative cos(x.data)."""
    return _check_unary(
        sin,
        "sin",
        math.sin,
        math.cos,
        [0.5, 2.0, -1.2],
        wrong_derivatives=[
            (lambda x: -math.cos(x), "the sign of the derivative is flipped: d(sin x)/dx = +cos x"),
            (math.sin, "the local derivative of sin x is cos x, not sin x"),
            (lambda x: -math.sin(x), "the local derivative of sin x is cos x, not -sin x"),
        ],
    )


@solution("ch05.sin", check=check_sin)
def sin(x):
    out = Value(math.sin(x.data), (x,), "sin")

    def _backward():
        x.grad += math.cos(x.data) * out.grad  # d(sin x)/dx = cos x

    out._backward = _backward
    return out


def check_cos(cos):
    """cos(x) returns a Value with data cos(x.data) and local derivative -sin(x.data)."""
    return _check_unary(
        cos,
        "cos",
        math.cos,
        lambda x: -math.sin(x),
        [0.5, 2.0, -1.2],
        wrong_derivatives=[
            (math.sin, "the sign is flipped: d(cos x)/dx = -sin x, with a minus"),
            (lambda x: -math.cos(x), "the local derivative of cos x is -sin x, not -cos x"),
            (math.cos, "the local derivative of cos x is -sin x, not cos x"),
        ],
    )


@solution("ch05.cos", check=check_cos)
def cos(x):
    # The package's style: state the local derivative; the engine does the rest.
    return Value(math.cos(x.data), (x,), "cos", _local_grads=(-math.sin(x.data),))


def check_sqrt(sqrt):
    """sqrt(x) returns a Value with data sqrt(x.data) and local derivative 1 / (2 sqrt(x.data))."""
    return _check_unary(
        sqrt,
        "sqrt",
        math.sqrt,
        lambda x: 0.5 / math.sqrt(x),
        [4.0, 0.25, 2.0],
        wrong_derivatives=[
            (lambda x: 1 / math.sqrt(x), "you are missing the factor 1/2: d(sqrt x)/dx = 1 / (2 sqrt x)"),
            (lambda x: 0.5 * math.sqrt(x), "the local derivative is 1 / (2 sqrt x): divide by sqrt x"),
            (lambda x: 0.5 / x, "the local derivative is 1 / (2 sqrt x), with a square root below"),
        ],
    )


@solution("ch05.sqrt", check=check_sqrt)
def sqrt(x):
    s = math.sqrt(x.data)
    return Value(s, (x,), "sqrt", _local_grads=(0.5 / s,))  # or simply: return x ** 0.5
