"""Chapter 5 exercises: a classmate's softsign to debug, and max, whose tie needs judgement.

Either style of attaching a gradient passes: `_local_grads=(...)` given to the Value (the
package's style) or a closure assigned to `out._backward` (the lectures' style).
"""

from .. import graph
from ..engine import Value
from ._core import Verdict, attempt, check, close, known_mistake, not_a_function, shown, solution
from ._shared import judge, numbers


def _same(x, y):
    return close(x, y, rel=1e-9, abs_tol=1e-9)


def _grads(fn, call, leaves, data):
    """(the leaves' .grad after backward() from fn(*leaves), None), or (None, a hint) if fn does not
    return a Value with this data that remembers the leaves as its inputs."""
    out, error = attempt(fn, *leaves)
    if error or not isinstance(out, Value) or not _same(out.data, data):
        got = error or f"got {shown(out.data if isinstance(out, Value) else out)}"
        return None, f"{call} should return a Value with data {data:.6g}; {got}"
    met = {id(node) for node in graph.reachable(out)}  # anywhere below: max may be built of other ops
    if not any(id(v) in met for v in leaves):
        return None, f"{call}: the result does not remember its inputs; make it Value(data, children, op)"
    _, error = attempt(out.backward)
    return (None, f"backward() through {call} failed: {error}") if error else ([v.grad for v in leaves], None)


def _in_a_product(fn, leaves, call, f, df):
    """A hint unless y = fn(*leaves) * x, for x = leaves[0], gets dy/dx = df * x + f, where f is fn's
    value and df its derivative in x. A closure that forgets `* out.grad` gives df + f instead, and
    one that assigns with = instead of += gives df * x."""
    x = leaves[0]
    y = f"{call} * {x.label}"
    grads, hint = _grads(lambda *v: fn(*v) * x, y, leaves, f * x.data)
    if hint or _same(grads[0], df * x.data + f):
        return hint
    mistakes = [
        (df + f, f"inside {y} the gradient from above is ignored: multiply by out.grad"),
        (df * x.data, f"inside {y}, {x.label} loses its other path's gradient: use +=, not ="),
    ]
    return known_mistake(grads[0], mistakes, _same) or f"for y = {y}, dy/d{x.label} is {df * x.data + f:.6f}"


# ---- 5.1 softsign: find the classmate's two bugs ----
def _softsign(x):
    return x / (1 + abs(x))


def _dsoftsign(x):
    return 1 / (1 + abs(x)) ** 2  # the quotient rule, with d|x|/dx = sign(x): the x terms cancel


_POINTS = [2.0, -0.5, -3.0, 0.0]  # 0 last: sign(x) written as x / |x| divides by zero there
_SOFTSIGN_MISTAKES = [
    (lambda x: 0.0, "x.grad stayed 0: attach the local derivative (_local_grads= or out._backward)"),
    (lambda x: 1 / (1 + x) ** 2, "the rule's 1 + x should be 1 + |x|: it is right only for x > 0"),
    (lambda x: (1 + abs(x) - x) / (1 + abs(x)) ** 2, "d|x|/dx is sign(x): -1 below 0, not 1"),
    (lambda x: -_dsoftsign(x), "the sign of the derivative is flipped: softsign rises everywhere"),
]


@check("ch05.softsign")
def check_softsign(softsign):
    """softsign(x) returns a Value with data x / (1 + |x|) and local derivative 1 / (1 + |x|)**2."""
    if (wrong := not_a_function(softsign, "your softsign function")) is not None:
        return wrong
    grads = []
    for x0 in _POINTS:
        got, hint = _grads(softsign, f"softsign({x0})", [Value(x0, label="x")], _softsign(x0))
        if hint:
            return Verdict(False, hint)
        grads.append(got[0])

    def otherwise(i):
        want = _dsoftsign(_POINTS[i])
        nudged = (
            ": near, but a nudge is not the derivative; derive it" if close(grads[i], want, rel=1e-3) else ""
        )
        return f"dsoftsign/dx at x = {_POINTS[i]} should be {want:.6f}, got {shown(grads[i])}{nudged}"

    verdict = judge(grads, [(x0,) for x0 in _POINTS], _dsoftsign, _SOFTSIGN_MISTAKES, _same, otherwise)
    if not verdict:
        return verdict
    hint = _in_a_product(softsign, [Value(2.0, label="x")], "softsign(x)", _softsign(2.0), _dsoftsign(2.0))
    return Verdict(not hint, hint or "")


@solution("ch05.softsign")
def softsign(x):
    out = Value(x.data / (1 + abs(x.data)), (x,), "softsign")

    def _backward():
        # Quotient rule: ((1 + |x|) - x * sign(x)) / (1 + |x|)**2, and x * sign(x) = |x|.
        x.grad += out.grad / (1 + abs(x.data)) ** 2  # += : x may feed other nodes too

    out._backward = _backward
    return out


# ---- 5.2 max(a, b): a routing operation, and what to do at a tie ----
def _max_grads(maximum, a0, b0):
    call = f"maximum(a, b) at a = {a0:g}, b = {b0:g}"
    return _grads(maximum, call, [Value(a0, label="a"), Value(b0, label="b")], max(a0, b0))


@check("ch05.max")
def check_max(maximum):
    """maximum(a, b) returns max(a, b) as a Value, routing the gradient to the larger input.

    At a tie (a = b) any split (t, 1 - t) with 0 <= t <= 1 is a correct choice:
    nudging both inputs up by h raises the max by exactly h, so the shares must
    add up to 1, and nudging one alone raises it by h or by 0, so each share lies
    between 0 and 1. PyTorch's torch.maximum splits a tie half and half.
    """
    if (wrong := not_a_function(maximum, "your maximum function")) is not None:
        return wrong
    for a0, b0 in [(3.0, -1.0), (-2.0, 5.0), (-3.0, -1.0)]:
        grads, hint = _max_grads(maximum, a0, b0)
        want, where = [float(a0 > b0), float(b0 > a0)], f"at a = {a0:g}, b = {b0:g}"
        if hint or all(map(_same, grads, want[::-1])):
            return Verdict(
                False,
                hint or f"{where} the gradient went to the SMALLER input: max passes it to the larger one",
            )
        if not all(map(_same, grads, want)):
            return Verdict(
                False,
                f"{where} expected a.grad = {want[0]:g}, b.grad = {want[1]:g} (the larger input moves the "
                f"max one for one, the smaller not at all); got {shown(grads[0])}, {shown(grads[1])}",
            )
    grads, hint = _max_grads(maximum, 2.0, 2.0)
    ga, gb = (None if hint else numbers(grads)) or (float("nan"),) * 2
    if hint or not (_same(ga + gb, 1.0) and -1e-9 <= ga <= 1 + 1e-9 and -1e-9 <= gb <= 1 + 1e-9):
        return Verdict(
            False,
            hint
            or f"at the tie a = b = 2 the shares a.grad = {shown(grads[0])} and b.grad = {shown(grads[1])} "
            f"add up to {ga + gb:.4f}. Nudge both up by h and the max rises by h: they add up to exactly 1. "
            "Nudge one alone and it rises by h or by 0: each lies between 0 and 1",
        )
    a = Value(2.0, label="a")
    grads, hint = _grads(maximum, "maximum(a, a)", [a, a], 2.0)
    if hint or not _same(grads[0], 1.0):
        return Verdict(
            False,
            hint
            or f"maximum(a, a) is a itself, so its gradient is 1, got {shown(grads[0])}: both shares "
            "land on a, so add them with +=, do not assign",
        )
    hint = _in_a_product(maximum, [Value(3.0, label="a"), Value(-1.0, label="b")], "maximum(a, b)", 3.0, 1.0)
    return Verdict(not hint, hint or "")


@solution("ch05.max")
def maximum(a, b):
    # The larger input moves the max one for one, the smaller not at all. At a tie
    # either choice is a valid slope as long as the shares add up to 1; >= gives it to a.
    a_wins = a.data >= b.data
    return Value(max(a.data, b.data), (a, b), "max", _local_grads=(float(a_wins), float(not a_wins)))
