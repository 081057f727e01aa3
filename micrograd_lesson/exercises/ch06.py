"""Chapter 6 exercises: checking gradients against the nudge."""

import math
import sys

from ..engine import Value
from ..gradcheck import gradcheck
from ._core import Verdict, as_number, attempt, check, close, first, not_a_function, shown, solution
from ._shared import numbers

# ---- 6.1 predict the best h for the central difference ----
EPS = sys.float_info.epsilon  # 2.2e-16
# Central difference of x**3 at 2: truncation (|f'''| / 6) h**2 = h**2 (f''' = 6), round-off about
# eps |f| / h = 8 eps / h. They balance at h**3 = 8 eps: h = 1.2e-5, far above forward's 1.7e-8.
CENTRAL_H = (EPS * 8.0 / 1.0) ** (1 / 3)
CENTRAL_MISTAKES = [  # (a plausible wrong prediction, its hint)
    (math.sqrt(EPS * 8 / 6), "that is the FORWARD difference's best h (chapter 1); the central's is larger"),
    ((EPS * 8 / 6) ** (1 / 3), "close: the truncation error is (|f'''| / 6) * h**2, and f''' = 6"),
    (EPS ** (1 / 3), "eps**(1/3) is the rule of thumb for size-1 functions; here |f(2)| = 8 and f''' = 6"),
    (math.sqrt(EPS), "sqrt(eps) is the forward difference's rule of thumb; the central one allows more"),
]


def _central_error(h, x=2.0):
    """The measured error of the central difference of x**3 at 2 with nudge h."""
    return abs(((x + h) ** 3 - (x - h) ** 3) / (2 * h) - 12.0)


@check("ch06.central_h")
def check_central_h(answer):
    """answer: the nudge h you predict is best for the central difference of x**3 at x = 2."""
    got, error = attempt(answer) if callable(answer) else (answer, None)  # reveal() passes a function
    h = as_number(got)
    if error or h is None or not 0 < h < math.inf:
        if answer is None:
            return Verdict(False, "your prediction is still None: replace it with the h you predict")
        return Verdict(False, error or f"predict h as one positive number, got {shown(got)}")
    if CENTRAL_H / 1.6 <= h <= CENTRAL_H * 1.6:
        return Verdict(True)
    side = "round-off" if h < CENTRAL_H else "truncation"
    return Verdict(
        False,
        next((hint for wrong, hint in CENTRAL_MISTAKES if close(h, wrong, rel=0.05)), None)
        or f"at h = {h:.1e} the central difference is off by {_central_error(h):.1e} and {side} dominates. "
        "Balance the truncation (|f'''| / 6) * h**2 against the round-off eps * |f(x)| / h; solve for h",
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
def _composite_slope(x):
    t, s = math.tanh(x), 1 / (1 + math.exp(-x))
    return math.exp(t * x) * ((1 - t * t) * x + t) + (s * (1 - s) * x - s) / x**2


def _planted_bug(v):  # x**3 with the derivative 3x instead of 3x**2
    return Value(v.data**3, (v,), "cube", _local_grads=(3 * v.data,))


_GRAD_CHECK_CASES = [  # (description, f, x, backward's answer, true derivative)
    ("x**3 at x = 2", lambda v: v**3, 2.0, 12.0, 12.0),
    ("a cube with a planted bug, at x = 2", _planted_bug, 2.0, 6.0, 12.0),
    (
        "a composite of tanh, exp and sigmoid, at x = 0.7",
        lambda v: (v.tanh() * v).exp() + v.sigmoid() / v,
        0.7,
        _composite_slope(0.7),
        _composite_slope(0.7),
    ),
]
NUDGE = "(f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)"


@check("ch06.grad_check")
def check_grad_check(grad_check):
    """grad_check(f, x) returns (gradient from backward(), central-difference estimate)."""
    if (wrong := not_a_function(grad_check, "your function")) is not None:
        return wrong
    for text, f, x, from_backward, truth in _GRAD_CHECK_CASES:
        got, error = attempt(grad_check, f, x)
        items = None if error or isinstance(got, (str, bytes, dict)) else first(got, 3)  # no more: no hang
        pair = numbers(items) if items and len(items) == 2 else None
        if pair is None:
            what = "a pair (autograd, numeric) of plain numbers (.grad and .data, not Values)"
            return Verdict(False, f"for {text}: " + (error or f"return {what}, got {shown(got)}"))
        autograd, numeric = pair
        if close(numeric, from_backward, rel=1e-9, abs_tol=1e-12) and not close(
            autograd, from_backward, 1e-9
        ):
            return Verdict(
                False, f"for {text} the pair is swapped: return (autograd, numeric), backward()'s first"
            )
        if not close(autograd, from_backward, rel=1e-9, abs_tol=1e-12):
            estimated = close(autograd, truth, rel=1e-4)  # near the true slope, but not backward()'s number
            return Verdict(
                False,
                f"for {text} the first number should be backward()'s {from_backward:.6f}, got {autograd:.6f}"
                + (": take it from x.grad after calling backward(), so that bugs show" if estimated else ""),
            )
        if not close(numeric, truth, rel=1e-5):
            copied = from_backward != truth and close(numeric, from_backward, rel=1e-4)
            coarse = not copied and close(numeric, truth, rel=1e-2)  # the right formula, too large an h
            how = "your h is too large: the error shrinks like h**2, try about 1e-6" if coarse else NUDGE
            return Verdict(
                False,
                f"for {text} the second number should be about {truth:.6f}, got {numeric:.6f}"
                + (", backward()'s" if copied else "")
                + (f": {how}" if coarse else f": compute it by nudging, {how}"),
            )
    seen = []

    def probe(v):  # records where grad_check evaluates f
        seen.append(as_number(getattr(v, "data", v)))
        return v**3

    _, error = attempt(grad_check, probe, 2.0)
    if not error and {t > 2 for t in seen if t is not None and t != 2} != {True, False}:
        return Verdict(False, f"your nudge looks at one side of x only; use the central difference, {NUDGE}")
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

# A second set the check uses too, so that an answer cannot simply be typed in. Again one
# bug shows only below x = 1.5, one only above it, and one only between 1 and 2: the ends alone miss it.
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
    # x outside [1, 2], twice as steep inside it; the rule forgot the steep middle (slope 2):
    "steep_middle": _op("steep_middle", lambda x: x + min(max(x - 1, 0.0), 1.0), lambda x: 1.0),
}
_SECRET_BUGGY = {"exp2", "leaky_floor", "soft_cap", "steep_middle"}


def _names(answer, suspects):
    """The answer as a set of names, or a hint; reads at most one item more than there are suspects."""
    if isinstance(answer, (str, dict)):  # a dict would read as all its keys
        what = "a dict" if isinstance(answer, dict) else "a single string"
        return f"return a set of names such as {{'log2'}}, not {what}"
    items = first(answer, len(suspects) + 1)
    if items is not None and len(items) > len(suspects):
        return f"return a set of at most {len(suspects)} names, one per buggy suspect"
    if items is None or not all(isinstance(n, str) for n in items):
        what = "the functions" if items and any(map(callable, items)) else shown(answer)
        return f"return a set of names (strings such as 'log2'), not {what}"
    return set(items)


@check("ch06.find_bugs")
def check_find_bugs(find_bugs):
    """find_bugs(suspects) returns the set of names whose gradients are wrong."""
    if (wrong := not_a_function(find_bugs, "your function")) is not None:
        return wrong
    for which, suspects, buggy in [
        ("SUSPECTS", SUSPECTS, _SUSPECTS_BUGGY),
        ("the secret set", _SECRET, _SECRET_BUGGY),
    ]:
        answer, error = attempt(find_bugs, dict(suspects))
        names = error or _names(answer, suspects)
        if isinstance(names, str):
            return Verdict(False, f"on {which}: {names}")
        if names - set(suspects):
            return Verdict(False, f"on {which}: {sorted(names - set(suspects))} are not names of suspects")
        if names - buggy:
            return Verdict(
                False,
                f"on {which}: {sorted(names - buggy)} have correct gradients; compare with gradcheck's "
                "tolerances rather than exact equality, and stay inside [0.5, 3]",
            )
        if names != buggy:
            return Verdict(
                False,
                f"on {which}: you found {len(names)} of the {len(buggy)} buggy operations. Check each at "
                "several inputs spread over [0.5, 3]: some bugs show only on part of the range",
            )
    return Verdict(True)


@solution("ch06.find_bugs")
def find_bugs(suspects):
    inputs = [0.5, 0.8, 1.3, 1.7, 2.4, 2.9]  # spread out: some bugs live on part of the range
    return {name for name, op in suspects.items() if not all(gradcheck(op, [x]) for x in inputs)}
