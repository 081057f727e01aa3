"""Chapter 6 exercises: checking gradients against the nudge."""

import math
import sys

from ..engine import Value
from ..gradcheck import gradcheck
from ._core import (
    Verdict,
    as_number,
    attempt,
    call_or_value,
    check,
    close,
    first,
    known_mistake,
    not_a_function,
    shown,
    solution,
)

# ---- 6.1 predict the best h for the central difference ----

EPS = sys.float_info.epsilon  # 2.2e-16
# Central difference of x**3 at 2: truncation (|f3| / 6) h**2 = h**2 (f3, the third derivative, is 6),
# round-off about eps |f| / h. They balance at h**3 = 8 eps: h = 1.2e-5, far above forward's 1.7e-8.
CENTRAL_H = (EPS * 8.0 / 1.0) ** (1 / 3)
CENTRAL_MISTAKES = [  # (a plausible wrong prediction, its hint)
    (
        math.sqrt(EPS * 8 / 6),
        "that is the FORWARD difference's best h, as in chapter 1; the central difference's "
        "truncation error is (|f'''| / 6) * h**2, not (|f''| / 2) * h",
    ),
    (
        (EPS * 8 / 6) ** (1 / 3),
        "close: the truncation error is (|f'''| / 6) * h**2, with the 6 of the Taylor series, and f''' = 6",
    ),
    (
        EPS ** (1 / 3),
        "that is the rule of thumb eps**(1/3), for a function whose size and derivatives are about 1; "
        "here |f(2)| = 8 and f''' = 6, so put them into the balance",
    ),
    (
        math.sqrt(EPS),
        "sqrt(eps) is the forward difference's rule of thumb: the central difference's truncation "
        "shrinks like h**2, so it can afford a larger h",
    ),
]


def _central_error(h, x=2.0):
    """The measured error of the central difference of x**3 at 2 with nudge h."""
    return abs(((x + h) ** 3 - (x - h) ** 3) / (2 * h) - 12.0)


@check("ch06.central_h")
def check_central_h(answer):
    """answer: the nudge h you predict is best for the central difference of x**3 at x = 2."""
    h, hint = call_or_value(answer)
    if h is None and not hint:
        return Verdict(False, "your prediction is still None: replace it with the h you predict")
    h = None if hint else as_number(h)
    if h is None or not math.isfinite(h):
        return Verdict(False, hint or f"predict h as one number, got {shown(answer)}")
    if h <= 0:
        return Verdict(False, f"a nudge h is a small positive number; got {h}")
    if CENTRAL_H / 1.6 <= h <= CENTRAL_H * 1.6:
        return Verdict(True)
    mistake = known_mistake(h, CENTRAL_MISTAKES, same=lambda got, want: close(got, want, rel=0.05))
    if mistake:
        return Verdict(False, mistake)
    side = "round-off" if h < CENTRAL_H else "truncation"
    return Verdict(
        False,
        f"at h = {h:.1e} the central difference is off by {_central_error(h):.1e} and {side} dominates. "
        "Balance the truncation (|f'''| / 6) * h**2 against the round-off eps * |f(x)| / h, and solve for h",
    )


@solution("ch06.central_h")
def central_h():
    eps = 2.220446049250313e-16
    f_at_2 = 2.0**3  # round-off: about eps * |f(2)| / h
    f3_over_6 = 6 / 6  # truncation: (|f'''| / 6) * h**2, and f''' = 6 everywhere
    # h**2 * f3_over_6 = eps * f_at_2 / h  gives  h**3 = eps * f_at_2 / f3_over_6: h = 1.2e-5,
    # 700 times chapter 1's 1.7e-8 for the forward difference, whose truncation shrinks only like h.
    return (eps * f_at_2 / f3_over_6) ** (1 / 3)


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
        return None, f"return a set of names of buggy suspects (strings such as 'log2'), got {shown(items)}"
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
