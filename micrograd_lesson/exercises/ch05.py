"""Chapter 5 exercises: a classmate's softsign to debug, and max, whose tie needs judgement. Either
style passes: `_local_grads=(...)` (the package's) or a closure set as `out._backward` (the lectures')."""

from .. import graph
from ..engine import Value
from ._core import attempt, check, close, known_mistake, shown, solution
from ._shared import exact, judge, numbers


def _grads(fn, call, leaves, data):
    out, error = attempt(fn, *leaves)
    if error or not isinstance(out, Value) or not exact(out.data, data):
        got = error or f"got {shown(out.data if isinstance(out, Value) else out)}"
        return None, f"{call} should return a Value with data {data:.6g}; {got}"
    if not {id(v) for v in leaves} & {id(node) for node in graph.reachable(out)}:  # max may use other ops
        return None, f"{call}: the result does not remember its inputs; make it Value(data, children, op)"
    _, error = attempt(out.backward)
    return (None, f"backward() through {call} failed: {error}") if error else ([v.grad for v in leaves], None)


def _in_a_product(fn, leaves, call, value, slope):
    """True when y = fn(*leaves) * x, x = leaves[0], gets dy/dx = slope * x + value, else a hint."""
    x, y, want = leaves[0], f"{call} * {leaves[0].label}", slope * leaves[0].data + value
    grads, hint = _grads(lambda *v: fn(*v) * x, y, leaves, value * x.data)
    if hint or exact(grads[0], want):
        return hint or True
    mistakes = [
        (slope + value, f"inside {y} the gradient from above is ignored: multiply by out.grad"),
        (slope * x.data, f"inside {y}, {x.label} loses its other path's gradient: use +=, not ="),
    ]
    return known_mistake(grads[0], mistakes, exact) or f"for y = {y}, dy/d{x.label} is {want:.6f}"


# ---- 5.1 softsign: find the classmate's two bugs ----
def _dsoftsign(x):
    return 1 / (1 + abs(x)) ** 2  # the quotient rule, with d|x|/dx = sign(x): the x terms cancel


_POINTS = [2.0, -0.5, -3.0, 0.0]  # 0 last: sign(x) written as x / |x| divides by zero there
_SOFTSIGN_MISTAKES = [
    (lambda x: 0.0, "x.grad stayed 0: attach the local derivative (_local_grads= or out._backward)"),
    (lambda x: 1 / (1 + x) ** 2, "the rule's 1 + x should be 1 + |x|: it is right only for x > 0"),
    (lambda x: (1 + abs(x) - x) / (1 + abs(x)) ** 2, "d|x|/dx is sign(x): -1 below 0, not 1"),
    (lambda x: -_dsoftsign(x), "the sign of the derivative is flipped: softsign rises everywhere"),
    (lambda x: 1 / (1 + abs(x)), "the quotient rule divides by the denominator squared"),
    (
        lambda x: 1 - (x / (1 + abs(x))) ** 2,
        "1 - out**2 is tanh's rule, not softsign's: apply the quotient rule to x / (1 + |x|)",
    ),
]


@check("ch05.softsign", takes="function")
def check_softsign(softsign):
    """softsign(x) returns a Value with data x / (1 + |x|) and local derivative 1 / (1 + |x|)**2."""
    grads = []
    for x0 in _POINTS:
        got, hint = _grads(softsign, f"softsign({x0})", [Value(x0, label="x")], x0 / (1 + abs(x0)))
        if hint:
            return hint
        grads.append(got[0])

    def otherwise(i):
        want = _dsoftsign(_POINTS[i])
        nudged = ": near, but a nudge is not the derivative; derive it" if close(grads[i], want, 1e-3) else ""
        return f"dsoftsign/dx at x = {_POINTS[i]} should be {want:.6f}, got {shown(grads[i])}{nudged}"

    verdict = judge(grads, [(x0,) for x0 in _POINTS], _dsoftsign, _SOFTSIGN_MISTAKES, exact, otherwise)
    return verdict and _in_a_product(softsign, [Value(2.0, label="x")], "softsign(x)", 2 / 3, _dsoftsign(2.0))


@solution("ch05.softsign")
def softsign(x):
    out = Value(x.data / (1 + abs(x.data)), (x,), "softsign")

    def _backward():
        # Quotient rule: ((1 + |x|) - x * sign(x)) / (1 + |x|)**2, and x * sign(x) = |x|.
        x.grad += out.grad / (1 + abs(x.data)) ** 2  # += : x may feed other nodes too

    out._backward = _backward
    return out


# ---- 5.2 max(a, b): a routing operation, and what to do at a tie ----
@check("ch05.max", takes="function")
def check_max(maximum):
    """maximum(a, b) returns max(a, b) as a Value, routing the gradient to the larger input."""
    # whole numbers far apart, then close ones that are not whole: a rule that routes by a margin
    # (a >= b - 1) or by rounded inputs passes the first four
    for a0, b0 in [(3.0, -1.0), (-2.0, 5.0), (-3.0, -1.0), (2.0, 2.0), (1.25, 1.4), (2.5, 2.25)]:
        where, want = f"at a = {a0:g}, b = {b0:g}", [float(a0 > b0), float(b0 > a0)]
        leaves = [Value(a0, label="a"), Value(b0, label="b")]
        grads, hint = _grads(maximum, f"maximum(a, b) {where}", leaves, max(a0, b0))
        if hint:
            return hint
        if a0 == b0:  # any split (t, 1 - t), 0 <= t <= 1, is a valid slope; torch.maximum takes t = 1/2
            ga, gb = numbers(grads) or (float("nan"),) * 2
            if not (exact(ga + gb, 1.0) and all(-1e-9 <= g <= 1 + 1e-9 for g in (ga, gb))):
                return (
                    f"at the tie a = b = 2 the shares a.grad = {shown(grads[0])} and b.grad = "
                    f"{shown(grads[1])} add up to {ga + gb:.4f}. Nudge both up by h and the max rises by h: "
                    "they add up to exactly 1. Nudge one alone and it rises by h or by 0: each lies "
                    "between 0 and 1"
                )
        elif all(map(exact, grads, want[::-1])):
            return f"{where} the gradient went to the SMALLER input: max passes it to the larger one"
        elif not all(map(exact, grads, want)):
            return (
                f"{where} expected a.grad = {want[0]:g}, b.grad = {want[1]:g} (the larger input moves the "
                f"max one for one, the smaller not at all); got {shown(grads[0])}, {shown(grads[1])}"
            )
    a = Value(2.0, label="a")
    grads, hint = _grads(maximum, "maximum(a, a)", [a, a], 2.0)
    if hint or not exact(grads[0], 1.0):
        return hint or (
            f"maximum(a, a) is a itself, so its gradient is 1, got {shown(grads[0])}: both shares "
            "land on a, so add them with +=, do not assign"
        )
    return _in_a_product(maximum, [Value(3.0, label="a"), Value(-1.0, label="b")], "maximum(a, b)", 3.0, 1.0)


@solution("ch05.max")
def maximum(a, b):
    # The larger input moves the max one for one, the smaller not at all. At a tie
    # either choice is a valid slope as long as the shares add up to 1; >= gives it to a.
    a_wins = a.data >= b.data
    return Value(max(a.data, b.data), (a, b), "max", _local_grads=(float(a_wins), float(not a_wins)))
