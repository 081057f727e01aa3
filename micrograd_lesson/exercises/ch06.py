"""Chapter 6 exercises: checking gradients against the nudge."""

import math
import numbers

from ..engine import Value
from ..gradcheck import gradcheck
from ._core import attempt, solution, verdict

__all__ = ["check_numeric_derivative", "check_grad_check", "check_find_bugs"]


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


# ---- 6.1 numeric_derivative(f, x) ----

_DERIVATIVE_CASES = [  # (description, f, x, exact f'(x))
    ("x**3 at x = 2", lambda t: t**3, 2.0, 12.0),
    ("sin(x) at x = 1", math.sin, 1.0, math.cos(1.0)),
    ("exp(x) at x = 0.5", math.exp, 0.5, math.exp(0.5)),
    ("1/x at x = 3", lambda t: 1 / t, 3.0, -1 / 9),
]


def check_numeric_derivative(numeric_derivative):
    """numeric_derivative(f, x) estimates f'(x) to within one part in ten million."""
    if not callable(numeric_derivative):
        return verdict(
            False, "pass your function itself, e.g. check_numeric_derivative(my_numeric_derivative)"
        )
    for text, f, x, exact in _DERIVATIVE_CASES:
        got, error = attempt(numeric_derivative, f, x)
        if error:
            return verdict(False, f"for {text}: {error}")
        if not _is_number(got):
            return verdict(False, f"for {text} return a plain number, got {type(got).__name__}")
        if math.isclose(got, exact, rel_tol=1e-7, abs_tol=1e-9):
            continue
        if math.isclose(got, -exact, rel_tol=1e-3):
            return verdict(
                False, f"for {text} the sign is flipped: compute f(x + h) - f(x - h), in that order"
            )
        if math.isclose(got, 2 * exact, rel_tol=1e-3):
            return verdict(
                False, f"for {text} you get twice the slope: the two points are 2h apart, divide by 2h"
            )
        if math.isclose(got, exact, rel_tol=1e-3):
            return verdict(
                False,
                f"for {text} you get {got:.9f}, close to {exact:.9f} but not to seven digits: use the "
                "central difference (f(x + h) - f(x - h)) / (2 * h), with h about 1e-6",
            )
        return verdict(False, f"for {text} expected about {exact:.6f}, got {got!r}")
    return verdict(True)


@solution("ch06.numeric_derivative", check=check_numeric_derivative)
def numeric_derivative(f, x):
    h = 1e-6
    return (f(x + h) - f(x - h)) / (2 * h)  # the slope between two points straddling x


# ---- 6.2 grad_check(f, x) -> (autograd, numeric) ----


def _cube(v):
    return v**3


def _planted_bug(v):
    """x**3 with the derivative 3x instead of 3x**2: backward() disagrees with nudging."""
    return Value(v.data**3, (v,), "cube", _local_grads=(3 * v.data,))


def _composite(v):
    return (v.tanh() * v).exp() + v.sigmoid() / v


_GRAD_CHECK_CASES = [  # (description, f, x, backward's answer, true derivative)
    ("x**3 at x = 2", _cube, 2.0, 12.0, 12.0),
    ("a cube with a planted bug, at x = 2", _planted_bug, 2.0, 6.0, 12.0),
]


def _composite_truth(x):
    t = math.tanh(x)
    s = 1 / (1 + math.exp(-x))
    inner = (1 - t * t) * x + t
    exact = math.exp(t * x) * inner + (s * (1 - s) * x - s) / x**2
    return exact


def check_grad_check(grad_check):
    """grad_check(f, x) returns (gradient from backward(), central-difference estimate)."""
    if not callable(grad_check):
        return verdict(False, "pass your function itself, e.g. check_grad_check(my_grad_check)")
    cases = _GRAD_CHECK_CASES + [
        (
            "a composite of tanh, exp and sigmoid, at x = 0.7",
            _composite,
            0.7,
            _composite_truth(0.7),
            _composite_truth(0.7),
        )
    ]
    for text, f, x, from_backward, truth in cases:
        got, error = attempt(grad_check, f, x)
        if error:
            return verdict(False, f"for {text}: {error}")
        try:
            autograd, numeric = got
        except (TypeError, ValueError):
            return verdict(False, f"return a pair (autograd, numeric); for {text} got {got!r}")
        if not (_is_number(autograd) and _is_number(numeric)):
            return verdict(
                False,
                f"return two plain numbers (use .grad and .data, not the Values); got "
                f"{type(autograd).__name__} and {type(numeric).__name__}",
            )
        if not math.isclose(autograd, from_backward, rel_tol=1e-9, abs_tol=1e-12):
            if from_backward != truth and math.isclose(autograd, truth, rel_tol=1e-4):
                return verdict(
                    False,
                    f"for {text}, backward() gives {from_backward:.4f} but your first number is "
                    f"{autograd:.4f}, "
                    "the true slope: take it from x.grad after calling backward(), so that bugs show",
                )
            return verdict(
                False,
                f"for {text} the first number (from backward()) should be {from_backward:.6f}, "
                f"got {autograd!r}",
            )
        if not math.isclose(numeric, truth, rel_tol=1e-6, abs_tol=1e-9):
            if from_backward != truth and math.isclose(numeric, from_backward, rel_tol=1e-4):
                return verdict(
                    False,
                    f"for {text} your second number copies backward()'s {from_backward:.4f}: compute it "
                    "by nudging, (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)",
                )
            return verdict(
                False,
                f"for {text} the second number (by nudging) should be about {truth:.6f}, got {numeric!r}",
            )
    return verdict(True)


@solution("ch06.grad_check", check=check_grad_check)
def grad_check(f, x):
    v = Value(x)
    f(v).backward()
    autograd = v.grad
    h = 1e-6
    numeric = (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)
    return autograd, numeric


# ---- 6.3 find_bugs(suspects) ----


def _op(name, forward, derivative):
    """An operation of one Value from a forward function and its claimed derivative."""

    def op(v):
        return Value(forward(v.data), (v,), name, _local_grads=(derivative(v.data),))

    op.__name__ = name
    return op


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


# What the notebook hands out. Three are right; three have a wrong derivative
# (two of those are right at x = 1, so testing at one point is not enough).
SUSPECTS = {
    "softplus": _op("softplus", lambda x: math.log(1 + math.exp(x)), _sigmoid),
    "cube_root": _op("cube_root", lambda x: x ** (1 / 3), lambda x: x ** (-2 / 3) / 3),
    "inverse_square": _op("inverse_square", lambda x: x**-2, lambda x: -2 * x**-2),  # should be -2 x**-3
    "log2": _op("log2", lambda x: math.log(x) / math.log(2), lambda x: math.log(2) / x),  # 1 / (x log 2)
    "swish": _op("swish", lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x)))),
    "gaussian": _op("gaussian", lambda x: math.exp(-x * x), lambda x: -2 * math.exp(-x * x)),  # -2x e^(-x^2)
}
_SUSPECTS_BUGGY = {"inverse_square", "log2", "gaussian"}

# A second set the check uses too, so that an answer cannot simply be typed in.
_SECRET = {
    "square": _op("square", lambda x: x * x, lambda x: 2 * x),
    "reciprocal": _op("reciprocal", lambda x: 1 / x, lambda x: -1 / (x * x)),
    "exp2": _op("exp2", lambda x: 2**x, lambda x: 2**x),  # should be 2**x * log(2)
    # should be 0.5 / sqrt(x + 1):
    "sqrt_plus_one": _op("sqrt_plus_one", lambda x: math.sqrt(x + 1), lambda x: 0.5 / math.sqrt(x)),
    "tanh_squared": _op(
        "tanh_squared", lambda x: math.tanh(x) ** 2, lambda x: 2 * math.tanh(x) * (1 - math.tanh(x) ** 2)
    ),
    "cube_minus": _op("cube_minus", lambda x: x**3 - x, lambda x: 3 * x * x - 1),
    "quartic": _op("quartic", lambda x: x**4, lambda x: 4 * x * x),  # 4 x**3: right at x = 1 only
}
_SECRET_BUGGY = {"exp2", "sqrt_plus_one", "quartic"}


def _as_name_set(answer):
    if answer is None:
        return None, "your function returned None: return a set of names, e.g. {'log2'}"
    if isinstance(answer, str):
        return None, "return a set of names, e.g. {'log2'}, not a single string"
    try:
        names = set(answer)
    except TypeError:
        return None, f"return a set of names, got {type(answer).__name__}"
    if not all(isinstance(n, str) for n in names):
        return None, "return the names (strings), not the functions"
    return names, None


def check_find_bugs(find_bugs):
    """find_bugs(suspects) returns the set of names whose gradients are wrong."""
    if not callable(find_bugs):
        return verdict(False, "pass your function itself, e.g. check_find_bugs(my_find_bugs)")
    for which, suspects, buggy in (
        ("SUSPECTS", SUSPECTS, _SUSPECTS_BUGGY),
        ("the secret set", _SECRET, _SECRET_BUGGY),
    ):
        answer, error = attempt(find_bugs, dict(suspects))
        if error:
            return verdict(False, f"on {which}: {error}")
        names, problem = _as_name_set(answer)
        if problem:
            return verdict(False, f"on {which}: {problem}")
        unknown = names - set(suspects)
        if unknown:
            return verdict(False, f"on {which}: {sorted(unknown)} are not names of suspects")
        wrongly_accused = names - buggy
        if wrongly_accused:
            return verdict(
                False,
                f"on {which}: {sorted(wrongly_accused)} have correct gradients; compare with gradcheck's "
                "default tolerances rather than exact equality",
            )
        missed = buggy - names
        if missed:
            return verdict(
                False,
                f"on {which}: you found {len(buggy) - len(missed)} of the {len(buggy)} buggy operations. "
                "Check each at several inputs in [0.5, 3]: some bugs are invisible at x = 1",
            )
    return verdict(True)


@solution("ch06.find_bugs", check=check_find_bugs)
def find_bugs(suspects):
    inputs = [0.5, 0.8, 1.0, 1.7, 2.9]  # several points: some bugs hide at x = 1
    return {name for name, op in suspects.items() if not all(gradcheck(op, [x]) for x in inputs)}
