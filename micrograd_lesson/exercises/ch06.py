"""Chapter 6 exercises: checking gradients against the nudge."""

import math

from ..engine import Value
from ..gradcheck import gradcheck
from ._core import Verdict, as_number, attempt, check, close, first, not_a_function, shown, solution

# ---- 6.1 numeric_derivative(f, x) ----

_DERIVATIVE_CASES = [  # (description, f, x, exact f'(x))
    ("x**3 at x = 2", lambda t: t**3, 2.0, 12.0),
    ("sin(x) at x = 1", math.sin, 1.0, math.cos(1.0)),
    ("exp(x) at x = 0.5", math.exp, 0.5, math.exp(0.5)),
    ("1/x at x = 3", lambda t: 1 / t, 3.0, -1 / 9),
]


def _where_it_looks(numeric_derivative, x=2.0):
    """The offsets from x at which the learner's function evaluates f, or None if it raised."""
    offsets = []

    def probe(t):
        offsets.append(t - x)
        return t**3

    _, error = attempt(numeric_derivative, probe, x)
    return None if error else offsets


@check("ch06.numeric_derivative")
def check_numeric_derivative(numeric_derivative):
    """numeric_derivative(f, x) is a central difference: it looks both ways, and is accurate."""
    wrong = not_a_function(numeric_derivative, "your function")
    if wrong is not None:
        return wrong
    for text, f, x, exact in _DERIVATIVE_CASES:
        got, error = attempt(numeric_derivative, f, x)
        if error:
            return Verdict(False, f"for {text}: {error}")
        value = as_number(got)
        if value is None:
            return Verdict(False, f"for {text} return a plain number, got {type(got).__name__}")
        if close(value, -exact, rel=1e-3) and not close(value, exact, rel=1e-3):
            return Verdict(
                False, f"for {text} the sign is flipped: compute f(x + h) - f(x - h), in that order"
            )
        if close(value, 2 * exact, rel=1e-3):
            return Verdict(
                False, f"for {text} you get twice the slope: the two points are 2h apart, divide by 2h"
            )
        # A central difference with any h from about 1e-7 to 1e-3 is this accurate here.
        if not close(value, exact, rel=1e-5):
            return Verdict(
                False,
                f"for {text} expected {exact:.9f}, got {value:.9f}: use the central difference "
                "(f(x + h) - f(x - h)) / (2 * h) with a small h, such as 1e-6",
            )
    offsets = _where_it_looks(numeric_derivative) or []
    ahead = [d for d in offsets if d > 0]
    behind = [d for d in offsets if d < 0]
    if not (ahead and behind):
        side = "right (x and x + h)" if ahead else "left (x - h and x)"
        return Verdict(
            False,
            f"your function only looks to the {side}: that is a one-sided difference, whose error "
            "shrinks like h; nudge x both ways, f(x + h) - f(x - h), and divide by 2h",
        )
    return Verdict(True)


@solution("ch06.numeric_derivative")
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


def _composite_truth(x):
    t = math.tanh(x)
    s = 1 / (1 + math.exp(-x))
    return math.exp(t * x) * ((1 - t * t) * x + t) + (s * (1 - s) * x - s) / x**2


_GRAD_CHECK_CASES = [  # (description, f, x, backward's answer, true derivative)
    ("x**3 at x = 2", _cube, 2.0, 12.0, 12.0),
    ("a cube with a planted bug, at x = 2", _planted_bug, 2.0, 6.0, 12.0),
    (
        "a composite of tanh, exp and sigmoid, at x = 0.7",
        _composite,
        0.7,
        _composite_truth(0.7),
        _composite_truth(0.7),
    ),
]


def _pair(got):
    """(autograd, numeric) as numbers, or (None, hint)."""
    items = first(got, 3)  # never more: an endless iterator must not hang the check
    if isinstance(got, (str, bytes, dict)) or items is None or len(items) != 2:
        return None, f"return a pair (autograd, numeric), got {shown(got)}"
    autograd, numeric = items
    a, n = as_number(autograd), as_number(numeric)
    if a is None or n is None:
        return None, (
            "return two plain numbers (use .grad and .data, not the Values); got "
            f"{type(autograd).__name__} and {type(numeric).__name__}"
        )
    return (a, n), None


def _where_grad_check_looks(grad_check, x=2.0):
    """The offsets from x of the Values the learner's grad_check passes to f, or None if it raised."""
    offsets = []

    def probe(v):
        t = as_number(getattr(v, "data", v))
        offsets.append(None if t is None else t - x)
        return v**3

    _, error = attempt(grad_check, probe, x)
    return None if error else offsets


@check("ch06.grad_check")
def check_grad_check(grad_check):
    """grad_check(f, x) returns (gradient from backward(), central-difference estimate)."""
    wrong = not_a_function(grad_check, "your function")
    if wrong is not None:
        return wrong
    for text, f, x, from_backward, truth in _GRAD_CHECK_CASES:
        got, error = attempt(grad_check, f, x)
        if error:
            return Verdict(False, f"for {text}: {error}")
        numbers, problem = _pair(got)
        if problem:
            return Verdict(False, f"for {text}: {problem}")
        autograd, numeric = numbers
        if not close(autograd, from_backward, rel=1e-9, abs_tol=1e-12):
            if from_backward != truth and close(autograd, truth, rel=1e-4):
                return Verdict(
                    False,
                    f"for {text}, backward() gives {from_backward:.4f} but your first number is "
                    f"{autograd:.4f}, the true slope: take it from x.grad after calling backward(), "
                    "so that bugs show",
                )
            return Verdict(
                False,
                f"for {text} the first number (from backward()) should be {from_backward:.6f}, "
                f"got {autograd:.6f}",
            )
        if not close(numeric, truth, rel=1e-5):
            if from_backward != truth and close(numeric, from_backward, rel=1e-4):
                return Verdict(
                    False,
                    f"for {text} your second number copies backward()'s {from_backward:.4f}: compute it "
                    "by nudging, (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)",
                )
            return Verdict(
                False,
                f"for {text} the second number (by nudging) should be about {truth:.6f}, got {numeric:.6f}",
            )
    offsets = [d for d in (_where_grad_check_looks(grad_check) or [0.0, 1.0, -1.0]) if d is not None]
    if not (any(d > 0 for d in offsets) and any(d < 0 for d in offsets)):
        return Verdict(
            False,
            "your second number looks at one side of x only: that is a one-sided difference; use "
            "the central difference, (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)",
        )
    return Verdict(True)


@solution("ch06.grad_check")
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


# What the notebook hands out; every suspect is defined on [0.5, 3]. Three are right and
# three have a wrong derivative. `smooth_l1` is wrong only below x = 1 and `clip_at_2` only
# above x = 2, so no single test input catches both: one input is never enough.
SUSPECTS = {
    "softplus": _op("softplus", lambda x: math.log(1 + math.exp(x)), _sigmoid),
    "cube_root": _op("cube_root", lambda x: x ** (1 / 3), lambda x: x ** (-2 / 3) / 3),
    "log2": _op("log2", lambda x: math.log(x) / math.log(2), lambda x: math.log(2) / x),  # 1 / (x log 2)
    "swish": _op("swish", lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x)))),
    # 0.5 x**2 below 1, x - 0.5 above; the rule forgot the first branch (slope x there):
    "smooth_l1": _op("smooth_l1", lambda x: 0.5 * x * x if x < 1 else x - 0.5, lambda x: 1.0),
    # min(x, 2); the rule forgot that the slope is 0 above 2:
    "clip_at_2": _op("clip_at_2", lambda x: min(x, 2.0), lambda x: 1.0),
}
_SUSPECTS_BUGGY = {"log2", "smooth_l1", "clip_at_2"}

# A second set the check uses too, so that an answer cannot simply be typed in. Again
# one bug shows only below x = 1.5 and another only above it.
_SECRET = {
    "square": _op("square", lambda x: x * x, lambda x: 2 * x),
    "reciprocal": _op("reciprocal", lambda x: 1 / x, lambda x: -1 / (x * x)),
    "exp2": _op("exp2", lambda x: 2**x, lambda x: 2**x),  # should be 2**x * log(2)
    "tanh_squared": _op(
        "tanh_squared", lambda x: math.tanh(x) ** 2, lambda x: 2 * math.tanh(x) * (1 - math.tanh(x) ** 2)
    ),
    "cube_minus": _op("cube_minus", lambda x: x**3 - x, lambda x: 3 * x * x - 1),
    # x above 1.5, 0.1 x + 1.35 below; the rule forgot the gentle branch (slope 0.1):
    "leaky_floor": _op("leaky_floor", lambda x: x if x > 1.5 else 0.1 * x + 1.35, lambda x: 1.0),
    # x below 1.5, 1.5 + log(x - 0.5) above; the rule forgot the bend (slope 1 / (x - 0.5)):
    "soft_cap": _op("soft_cap", lambda x: x if x < 1.5 else 1.5 + math.log(x - 0.5), lambda x: 1.0),
}
_SECRET_BUGGY = {"exp2", "leaky_floor", "soft_cap"}


def _as_name_set(answer, suspects):
    """The learner's answer as a set of strings, or (None, hint); reads at most a few items."""
    if answer is None:
        return None, "your function returned None: return a set of names, e.g. {'log2'}"
    if isinstance(answer, str):
        return None, "return a set of names, e.g. {'log2'}, not a single string"
    items = first(answer, len(suspects) + 1)  # never more: an endless generator must not hang the check
    if items is None:
        return None, f"return a set of names (strings), got {type(answer).__name__}"
    if len(items) > len(suspects):
        return None, f"return a set of at most {len(suspects)} names, one per buggy suspect"
    if any(callable(n) for n in items):
        return None, "return the names (strings), not the functions"
    if not all(isinstance(n, str) for n in items):
        return None, f"return the names of the buggy suspects (strings such as 'log2'), got {shown(items)}"
    return set(items), None


@check("ch06.find_bugs")
def check_find_bugs(find_bugs):
    """find_bugs(suspects) returns the set of names whose gradients are wrong."""
    wrong = not_a_function(find_bugs, "your function")
    if wrong is not None:
        return wrong
    for which, suspects, buggy in (
        ("SUSPECTS", SUSPECTS, _SUSPECTS_BUGGY),
        ("the secret set", _SECRET, _SECRET_BUGGY),
    ):
        answer, error = attempt(find_bugs, dict(suspects))
        if error:
            return Verdict(False, f"on {which}: {error}")
        names, problem = _as_name_set(answer, suspects)
        if problem:
            return Verdict(False, f"on {which}: {problem}")
        unknown = names - set(suspects)
        if unknown:
            return Verdict(False, f"on {which}: {sorted(unknown)} are not names of suspects")
        wrongly_accused = names - buggy
        if wrongly_accused:
            return Verdict(
                False,
                f"on {which}: {sorted(wrongly_accused)} have correct gradients; compare with gradcheck's "
                "tolerances rather than exact equality, and stay inside [0.5, 3]",
            )
        missed = buggy - names
        if missed:
            return Verdict(
                False,
                f"on {which}: you found {len(buggy) - len(missed)} of the {len(buggy)} buggy operations. "
                "Check each at several inputs spread over [0.5, 3]: some bugs show only on part of the range",
            )
    return Verdict(True)


@solution("ch06.find_bugs")
def find_bugs(suspects):
    inputs = [0.5, 0.8, 1.3, 1.7, 2.4, 2.9]  # spread out: some bugs live on part of the range
    return {name for name, op in suspects.items() if not all(gradcheck(op, [x]) for x in inputs)}
