"""Chapter 6 exercises: checking gradients against the nudge."""

import math

from ..engine import Value
from ..gradcheck import gradcheck
from ._core import (
    attempt,
    check,
    close,
    digest,
    first,
    known_mistake,
    recorded,
    recorder,
    reference,
    shown,
    solution,
)
from ._shared import exact, numbers


def _op(name, forward, derivative):  # an operation of one Value, with a claimed derivative
    def op(v):
        return Value(forward(v.data), (v,), name, _local_grads=(derivative(v.data),))

    op.__name__ = name
    return op


# 6.1: for x**3 at 2 the truncation (|f'''| / 6) h**2 = h**2 meets the round-off 8 eps / h at h**3 = 8 eps
# The check weighs the two at the learner's h (within a factor of 1.6 of the balance: h**3 goes by
# 1.6**3); it keeps no copy of the best h, which the student edition would hand out.
EPS = math.ulp(1.0)  # the machine epsilon, 2.2e-16
CENTRAL_MISTAKES = [  # (a plausible wrong prediction, its hint)
    (math.sqrt(EPS * 8 / 6), "that is the FORWARD difference's best h (chapter 1); the central's is larger"),
    ((EPS * 8 / 6) ** (1 / 3), "close: the truncation error is (|f'''| / 6) * h**2, and f''' = 6"),
    (EPS ** (1 / 3), "eps**(1/3) is the rule of thumb for size-1 functions; here |f(2)| = 8 and f''' = 6"),
    (math.sqrt(EPS), "sqrt(eps) is the forward difference's rule of thumb; the central one allows more"),
]


@check("ch06.central_h", takes="number")
def check_central_h(h):
    """h: the nudge you predict is best for the central difference of x**3 at x = 2."""
    if h <= 0:
        return f"predict h as one positive number, got {h:g}"
    truncation, round_off = h * h, EPS * 8.0 / h  # the two errors at the learner's h (f3 / 6 = 1)
    ratio = truncation / round_off
    if 1.6**-3 <= ratio * (1 + 1e-12) and ratio <= 1.6**3 * (1 + 1e-12):
        return True
    known = known_mistake(h, CENTRAL_MISTAKES, lambda h, wrong: close(h, wrong, rel=0.05))
    return known or _what_is_wrong_with(h, truncation, round_off)


def _what_is_wrong_with(h, truncation, round_off):
    """The hint for an h off the balance: which way it is off, judged by the two errors that h
    predicts, never by the one error measured there (rounding errors can cancel at one h by luck)."""
    small = round_off > truncation
    big, other = ("round-off", "truncation") if small else ("truncation", "round-off")
    sizes = (round_off, truncation) if small else (truncation, round_off)
    hint = (
        f"h = {h:.1e} is too {'small' if small else 'large'}: there the {big} error, about "
        f"{sizes[0]:.0e}, outweighs the {other} error, about {sizes[1]:.0e}. The best h is where the "
        "two are equal. Balance the truncation (|f'''| / 6) * h**2 against the round-off "
        "eps * |f(x)| / h and solve for h"
    )
    measured = abs(((2 + h) ** 3 - (2 - h) ** 3) / (2 * h) - 12.0)  # the central difference's error at h
    if measured < sizes[0] / 100:  # far below what this h predicts: its errors cancelled by luck
        said = "exactly 0" if measured == 0 else f"only {measured:.0e}"
        hint += (
            f". (At exactly this h the error measures {said}, by luck: at a few h, such as powers of 2, "
            "the rounding errors cancel or vanish, and at the h next to them they do not. Judge h by "
            "the two terms)"
        )
    return hint


@solution("ch06.central_h")
def central_h():
    eps = 2.220446049250313e-16
    f_at_2 = 2.0**3  # round-off: about eps * |f(2)| / h
    f3_over_6 = 6 / 6  # truncation: (|f'''| / 6) * h**2, and f''' = 6 everywhere
    # h**2 * f3_over_6 = eps * f_at_2 / h  gives  h**3 = eps * f_at_2 / f3_over_6: h = 1.2e-5,
    # about 600 times chapter 1's 2e-8 for the forward difference, whose truncation shrinks only like h.
    return (eps * f_at_2 / f3_over_6) ** (1 / 3)


_GRAD_CHECK_CASES = [  # 6.2: (description, f, x, the true slope where f's backward() has a planted bug)
    ("x**3 at x = 2", lambda v: v**3, 2.0, None),
    ("a cube with a planted bug, at x = 2", _op("cube", lambda x: x**3, lambda x: 3 * x), 2.0, 12.0),
    ("exp(x tanh x) + sigmoid(x) / x at 0.7", lambda v: (v.tanh() * v).exp() + v.sigmoid() / v, 0.7, None),
]
CENTRAL = "(f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)"
NUDGE = f"compute it by nudging both ways, {CENTRAL}"


@check("ch06.grad_check", takes="function")
def check_grad_check(grad_check):
    """grad_check(f, x) returns (gradient from backward(), central-difference estimate)."""
    for text, f, x, truth in _GRAD_CHECK_CASES:
        v = Value(x)
        f(v).backward()  # the engine's own answer, a planted bug included
        from_backward, truth = v.grad, v.grad if truth is None else truth
        got, error = attempt(grad_check, f, x)
        pair = None if error or isinstance(got, (str, bytes, dict)) else numbers(first(got, 3))  # no hang
        if not pair or len(pair) != 2:
            what = "a pair (autograd, numeric) of plain numbers (.grad and .data, not Values)"
            return f"for {text}: " + (error or f"return {what}, got {shown(got)}")
        autograd, numeric = pair
        if (
            exact(numeric, from_backward)
            and not exact(autograd, from_backward)
            and close(autograd, truth, 1e-4)
        ):
            return f"for {text} the pair is swapped: return (autograd, numeric), backward()'s first"
        if not exact(autograd, from_backward):
            return (
                f"for {text} the first number should be backward()'s {from_backward:.6f}, got {autograd:.6f}"
                ": take it from x.grad after calling backward(), so that bugs show"
            )
        if not close(numeric, truth, rel=1e-5):
            copied = from_backward != truth and close(numeric, from_backward, rel=1e-4)
            near = not copied and close(numeric, truth, rel=1e-2)  # the right formula, a poor h
            line = numbers(first(attempt(grad_check, lambda v: v * 3.0 + 1e3, 1.0)[0], 3) or [])
            small = bool(line) and not close(line[-1], 3.0, rel=1e-6)  # a line has no truncation error
            how = "round-off (it grows like 1/h) swamps it" if small else "the error shrinks like h**2"
            how = f"your h is too {'small' if small else 'large'}: {how}, try about 1e-6" if near else NUDGE
            if close(numeric, -truth, rel=1e-3):  # f(x - h) - f(x + h)
                how = f"the sign is flipped: f(x + h) comes first, as in {CENTRAL}"
            elif close(numeric, 2 * truth, rel=1e-3):  # divided by h
                how = f"that is twice the slope: the points are 2h apart, so divide by 2 * h, as in {CENTRAL}"
            said = f"{numeric:.6f}, backward()'s" if copied else f"{numeric:.6f}"
            return f"for {text} the second number should be about {truth:.6f}, got {said}: {how}"
    got, error = attempt(grad_check, lambda v: (v - 2).relu(), 2.0)  # central: 0.5, one-sided: 0 or 1
    pair = None if error else numbers(first(got, 3))
    if pair and len(pair) == 2 and not close(pair[1], 0.5, rel=0.1):
        return f"your nudge looks at one side of x only; use the central difference and {NUDGE}"
    return True


@solution("ch06.grad_check")
def grad_check(f, x):
    v = Value(x)
    f(v).backward()
    h = 1e-6  # the central difference's error shrinks like h**2; much smaller and round-off grows
    numeric = (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)
    return v.grad, numeric  # (autograd, numeric)


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


# 6.3: what the notebook hands out, each defined on [0.5, 3]; three have a wrong derivative. `smooth_l1`
# forgot its slope x below 1 and `clip_at_2` its slope 0 above 2: no single test input catches both.
SUSPECTS = {
    "softplus": _op("softplus", lambda x: math.log(1 + math.exp(x)), _sigmoid),
    "cube_root": _op("cube_root", lambda x: x ** (1 / 3), lambda x: x ** (-2 / 3) / 3),
    "log2": _op("log2", lambda x: math.log(x) / math.log(2), lambda x: math.log(2) / x),  # 1 / (x log 2)
    "swish": _op("swish", lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x)))),
    "smooth_l1": _op("smooth_l1", lambda x: 0.5 * x * x if x < 1 else x - 0.5, lambda x: 1.0),
    "clip_at_2": _op("clip_at_2", lambda x: min(x, 2.0), lambda x: 1.0),
}

# A second set the check uses too, so that an answer cannot simply be typed in. Again one bug shows
# only below x = 1.5 (slope 0.1 forgotten), one only above it (the bend 1 / (x - 0.5) forgotten), and
# one only between 1 and 2 (the steep middle, slope 2, forgotten): the ends alone miss it.
_SECRET = {
    "square": _op("square", lambda x: x * x, lambda x: 2 * x),
    "reciprocal": _op("reciprocal", lambda x: 1 / x, lambda x: -1 / (x * x)),
    "exp2": _op("exp2", lambda x: 2**x, lambda x: 2**x),  # should be 2**x * log(2)
    "tanh_squared": _op(
        "tanh_squared", lambda x: math.tanh(x) ** 2, lambda x: 2 * math.tanh(x) * (1 - math.tanh(x) ** 2)
    ),
    "cube_minus": _op("cube_minus", lambda x: x**3 - x, lambda x: 3 * x * x - 1),
    "leaky_floor": _op("leaky_floor", lambda x: x if x > 1.5 else 0.1 * x + 1.35, lambda x: 1.0),
    "soft_cap": _op("soft_cap", lambda x: x if x < 1.5 else 1.5 + math.log(x - 0.5), lambda x: 1.0),
    "steep_middle": _op("steep_middle", lambda x: x + min(max(x - 1, 0.0), 1.0), lambda x: 1.0),
}
_SETS = [("SUSPECTS", SUSPECTS), ("the secret set", _SECRET)]


@reference
def _buggy():  # which suspects of each set have a wrong derivative; the check knows them by digest only
    return {
        "SUSPECTS": {"log2", "smooth_l1", "clip_at_2"},
        "the secret set": {"exp2", "leaky_floor", "soft_cap", "steep_middle"},
    }


@recorder("ch06.find_bugs")
def _record_buggy():
    return {
        which: sorted(digest("ch06.find_bugs", name) for name in names) for which, names in _buggy().items()
    }


@check("ch06.find_bugs", takes="function")
def check_find_bugs(find_bugs):
    """find_bugs(suspects) returns the set of names whose gradients are wrong."""
    for which, suspects in _SETS:
        known = recorded("ch06.find_bugs")[which]
        buggy = {name for name in suspects if digest("ch06.find_bugs", name) in known}
        answer, error = attempt(find_bugs, dict(suspects))
        items = None if isinstance(answer, (str, dict)) else first(answer, len(suspects) + 1)  # no hang
        if error or isinstance(answer, (str, dict)):  # a dict would read as all its keys
            what = "a dict" if isinstance(answer, dict) else "a single string"
            return f"on {which}: " + (error or f"return a set of names such as {{'log2'}}, not {what}")
        if items is not None and len(items) > len(suspects):
            return f"on {which}: return a set of at most {len(suspects)} names, one per buggy suspect"
        if items is None or not all(isinstance(n, str) for n in items):
            what = "the functions" if items and any(map(callable, items)) else shown(answer)
            return f"on {which}: return a set of names (strings such as 'log2'), not {what}"
        names = set(items)
        if names - set(suspects):
            return f"on {which}: {sorted(names - set(suspects))} are not names of suspects"
        if names == set(suspects) - buggy:
            return f"on {which}: those are exactly the suspects whose gradients are RIGHT: flip your test"
        if names - buggy:
            return (
                f"on {which}: {sorted(names - buggy)} have correct gradients; compare with gradcheck's "
                "tolerances rather than exact equality, and stay inside [0.5, 3]"
            )
        if not names:
            return f"on {which}: found none: try gradcheck(op, [x]) at several x; a bug makes it falsy"
        if names != buggy:
            return (
                f"on {which}: you found {len(names)} of the {len(buggy)} buggy operations. Check each at "
                "several inputs spread over [0.5, 3]: some bugs show only on part of the range; and let "
                "gradcheck's own verdict judge each input (a falsy result), not a looser test of your own"
            )
    return True


@solution("ch06.find_bugs")
def find_bugs(suspects):
    inputs = [0.5, 0.8, 1.3, 1.7, 2.4, 2.9]  # spread out: some bugs live on part of the range
    return {name for name, op in suspects.items() if not all(gradcheck(op, [x]) for x in inputs)}
