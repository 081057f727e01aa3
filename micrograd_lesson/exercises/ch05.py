"""Chapter 5 exercises: a classmate's softsign to debug, and a routing op (max) whose tie needs judgement.

A learner's function returns a Value. Either style of attaching the gradient is
accepted: `_local_grads=(...)` passed to the Value constructor (the package's
style), or a closure assigned to `out._backward` (the lectures' style).
"""

from ..engine import Value
from ._core import Verdict, as_number, attempt, check, close, known_mistake, not_a_function, solution


def _close(x, y):
    return close(x, y, rel=1e-9, abs_tol=1e-9)


def _shown(x):
    """A number at fixed precision, or what it is if it is not a number; never raises."""
    number = as_number(x)
    return f"{number:.6f}" if number is not None else f"a {type(x).__name__}"


def _in_a_product(fn, args, x, want, ignored, assigned, call):
    """None if y = fn(*args) * x leaves dy/dx = want in x.grad after backward(), else a hint.

    This catches a closure that forgets `* out.grad` (x.grad = `ignored`) or assigns with `=`
    (x.grad = `assigned`).
    """
    out, error = attempt(fn, *args)
    if error or not isinstance(out, Value):
        return f"{call}: {error or 'not a Value'}"
    _, error = attempt((out * x).backward)
    if error:
        return f"backward() through {call} * {x.label} failed: {error}"
    if _close(x.grad, want):
        return None
    y, v = f"{call} * {x.label}", x.label
    mistakes = [
        (
            ignored,
            f"inside {y} the gradient from above is ignored: multiply your local derivative by out.grad",
        ),
        (assigned, f"inside {y}, {v} loses the gradient from its other path: accumulate with +=, not ="),
    ]
    return known_mistake(x.grad, mistakes, same=_close) or f"for y = {y}, dy/d{v} should be {want:.6f}"


def _check_unary(fn, name, f, df, points, wrong_derivatives=()):
    """Check that fn(Value(x)) has data f(x) and passes back df(x), at each of `points`.

    wrong_derivatives: (function, hint) pairs for plausible mistakes, recognised by the
    gradient they produce.
    """
    hint = not_a_function(fn, f"your {name} function")
    if hint is not None:
        return hint
    for x0 in points:
        x = Value(x0, label="x")
        out, error = attempt(fn, x)
        if error:
            return Verdict(False, f"{name}(Value({x0})): {error}")
        if not isinstance(out, Value):
            return Verdict(False, f"{name}(x) should return a new Value, got {type(out).__name__}")
        if out is x:
            return Verdict(False, f"{name}(x) returned x itself: make a new Value for the result")
        if not _close(out.data, f(x0)):
            return Verdict(False, f"{name}({x0}) should have data {f(x0):.6f}, got {_shown(out.data)}")
        if not any(child is x for child in out._prev):
            return Verdict(
                False, f"the result does not remember its input: create it as Value(..., (x,), '{name}')"
            )
        _, error = attempt(out.backward)
        if error:
            return Verdict(False, f"backward() through {name}({x0}) failed: {error}")
        if _close(x.grad, 0.0) and df(x0) != 0:
            return Verdict(
                False,
                f"x.grad stayed 0 at x = {x0}: give the result its local derivative, with "
                "_local_grads=(...,) or a closure assigned to out._backward",
            )
        if not _close(x.grad, df(x0)):
            for wrong, hint in wrong_derivatives:
                if _close(x.grad, wrong(x0)):
                    return Verdict(False, hint)
            return Verdict(False, f"d{name}/dx at x = {x0} should be {df(x0):.6f}, got {_shown(x.grad)}")

    x0 = points[0]  # inside a bigger expression: y = fn(x) * x, so dy/dx = f'(x) * x + f(x)
    x = Value(x0, label="x")
    hint = _in_a_product(fn, (x,), x, df(x0) * x0 + f(x0), df(x0) + f(x0), df(x0) * x0, f"{name}(x)")
    return Verdict(hint is None, hint or "")


def _softsign(x):
    return x / (1 + abs(x))


def _dsoftsign(x):
    return 1 / (1 + abs(x)) ** 2  # the quotient rule, with d|x|/dx = sign(x): the x terms cancel


@check("ch05.softsign")
def check_softsign(softsign):
    """softsign(x) returns a Value with data x / (1 + |x|) and local derivative 1 / (1 + |x|)**2."""
    return _check_unary(
        softsign,
        "softsign",
        _softsign,
        _dsoftsign,
        [2.0, -0.5, -3.0, 0.0],  # 0 last: sign(x) written as x / |x| divides by zero there
        wrong_derivatives=[
            (
                lambda x: 1 / (1 + x) ** 2,
                "below 0 your derivative uses 1 + x where softsign has 1 + |x|: the classmate's rule is "
                "right only for x > 0",
            ),
            (
                lambda x: (1 + abs(x) - x) / (1 + abs(x)) ** 2,
                "the quotient rule needs d|x|/dx, which is sign(x): -1 below 0, not 1",
            ),
            (lambda x: -_dsoftsign(x), "the sign of the derivative is flipped: softsign rises everywhere"),
        ],
    )


@solution("ch05.softsign")
def softsign(x):
    out = Value(x.data / (1 + abs(x.data)), (x,), "softsign")

    def _backward():
        # Quotient rule: ((1 + |x|) - x * sign(x)) / (1 + |x|)**2, and x * sign(x) = |x|.
        x.grad += out.grad / (1 + abs(x.data)) ** 2  # += : x may feed other nodes too

    out._backward = _backward
    return out


# ---- max(a, b): a routing operation, and what to do at a tie -------------------------------------


def _run_max(fn, a0, b0, same=False):
    """(a, b, out, hint): fn applied to fresh leaves a0, b0 (or to one leaf twice), then backward()."""
    a = Value(a0, label="a")
    b = a if same else Value(b0, label="b")
    call = "maximum(a, a)" if same else f"maximum(a, b) at a = {a0:g}, b = {b0:g}"
    out, error = attempt(fn, a, b)
    if error:
        return a, b, None, f"{call}: {error}"
    if not isinstance(out, Value):
        return a, b, None, f"{call} should return a Value, got {_shown(out)}"
    if not _close(out.data, max(a0, b0)):
        return a, b, None, f"{call} should have data {max(a0, b0):g}, got {_shown(out.data)}"
    _, error = attempt(out.backward)
    if error:
        return a, b, None, f"backward() through {call} failed: {error}"
    return a, b, out, None


@check("ch05.max")
def check_max(maximum):
    """maximum(a, b) returns max(a, b) as a Value, routing the gradient to the larger input.

    At a tie (a = b) any split (t, 1 - t) with 0 <= t <= 1 is a correct choice:
    nudging both inputs up by h raises the max by exactly h, so the shares must
    add up to 1, and nudging one alone raises it by h or by 0, so each share lies
    between 0 and 1. PyTorch's torch.maximum splits a tie half and half.
    """
    hint = not_a_function(maximum, "your maximum function")
    if hint is not None:
        return hint
    for a0, b0, want in ((3.0, -1.0, (1.0, 0.0)), (-2.0, 5.0, (0.0, 1.0)), (-3.0, -1.0, (0.0, 1.0))):
        a, b, out, hint = _run_max(maximum, a0, b0)
        if hint:
            return Verdict(False, hint)
        if out is not a and out is not b and not any(child is a or child is b for child in out._prev):
            return Verdict(
                False, "the result does not remember its inputs: create it as Value(..., (a, b), 'max')"
            )
        if _close(a.grad, want[1]) and _close(b.grad, want[0]):
            return Verdict(
                False,
                f"at a = {a0:g}, b = {b0:g} the gradient went to the SMALLER input: "
                "max passes it to the larger one",
            )
        if not (_close(a.grad, want[0]) and _close(b.grad, want[1])):
            return Verdict(
                False,
                f"at a = {a0:g}, b = {b0:g} expected a.grad = {want[0]:g}, b.grad = {want[1]:g} "
                "(the larger input moves the max one for one, the smaller not at all); "
                f"got {_shown(a.grad)}, {_shown(b.grad)}",
            )

    a, b, out, hint = _run_max(maximum, 2.0, 2.0)
    if hint:
        return Verdict(False, hint)
    ga, gb = as_number(a.grad), as_number(b.grad)
    if ga is None or gb is None:
        return Verdict(
            False,
            f"at the tie a = b = 2 the gradients should be numbers, got {_shown(a.grad)}, {_shown(b.grad)}",
        )
    if not _close(ga + gb, 1.0):
        if _close(ga, 1.0) and _close(gb, 1.0):
            why = "both inputs got the full gradient"
        else:
            why = f"the shares a.grad = {ga:.4f} and b.grad = {gb:.4f} add up to {ga + gb:.4f}"
        return Verdict(
            False,
            f"at the tie a = b = 2, {why}. Nudge both up by h: max(a + h, b + h) = max(a, b) + h, "
            "so the two shares must add up to exactly 1",
        )
    if not (-1e-9 <= ga <= 1 + 1e-9 and -1e-9 <= gb <= 1 + 1e-9):
        return Verdict(
            False,
            f"at the tie a = b = 2 the shares {ga:.4f} and {gb:.4f} add up to 1, but nudging one input alone "
            "raises the max by h or by 0, so each share must lie between 0 and 1",
        )

    a, b, out, hint = _run_max(maximum, 2.0, 2.0, same=True)
    if hint:
        return Verdict(False, hint)
    if not _close(a.grad, 1.0):
        return Verdict(
            False,
            f"maximum(a, a) is a itself, so its gradient is 1; got {_shown(a.grad)}: a is both inputs, so "
            "both shares land on it, and they must be added with +=, not assigned",
        )

    a, b = Value(3.0, label="a"), Value(-1.0, label="b")  # y = maximum(a, b) * a: dy/da = 1 * a + 3
    hint = _in_a_product(maximum, (a, b), a, 6.0, 4.0, 3.0, "maximum(a, b)")
    return Verdict(hint is None, hint or "")


@solution("ch05.max")
def maximum(a, b):
    # The larger input moves the max one for one, the smaller not at all. At a tie
    # either choice is a valid slope as long as the shares add up to 1; >= gives it to a.
    a_wins = a.data >= b.data
    return Value(max(a.data, b.data), (a, b), "max", _local_grads=(float(a_wins), float(not a_wins)))
