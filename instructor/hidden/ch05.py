"""Hidden cases for chapter 5: softsign at 0, and max of two negative numbers."""

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import Verdict, attempt, close, hidden, shown


@hidden("ch05.softsign")
def softsign_at_zero(softsign):
    """x = 0 (slope 1) and x = 40: the check never tries 0, where sign(x) written as x / |x| divides
    by zero."""
    for x0, want in [(0.0, 1.0), (40.0, 1 / 41**2)]:
        x = Value(x0)
        out, error = attempt(softsign, x)
        if not error and isinstance(out, Value):
            _, error = attempt(out.backward)
        if (
            error
            or not isinstance(out, Value)
            or not close(out.data, x0 / (1 + abs(x0)))
            or not close(x.grad, want)
        ):
            return Verdict(
                False, f"softsign at x = {x0:g}: want slope {want:.6g}, got {error or shown(x.grad)}"
            )
    return Verdict(True)


@hidden("ch05.max")
def max_of_negative_numbers(maximum):
    """(-3, -1) and (-0.5, -4): the check's pairs also route correctly by size |a| >= |b|; here the
    larger number is the one of smaller size."""
    for a0, b0 in [(-3.0, -1.0), (-0.5, -4.0)]:
        a, b = Value(a0), Value(b0)
        out, error = attempt(maximum, a, b)
        if not error and isinstance(out, Value):
            _, error = attempt(out.backward)
        want = (1.0, 0.0) if a0 > b0 else (0.0, 1.0)
        if error or not isinstance(out, Value) or not (close(a.grad, want[0]) and close(b.grad, want[1])):
            return Verdict(
                False,
                f"maximum(a, b) at a = {a0:g}, b = {b0:g}: want grads {want}, got "
                + (error or f"({shown(a.grad)}, {shown(b.grad)})"),
            )
    return Verdict(True)
