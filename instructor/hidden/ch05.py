"""Hidden cases for chapter 5: softsign at 0 and at inputs the check does not try, and max of
negative numbers the check does not try."""

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises.reference import Verdict, attempt, close, hidden, shown


@hidden("ch05.softsign")
def softsign_at_zero(softsign):
    """x = 0 (slope 1; the check tries it too, so a sign(x) written as x / |x|, which divides by zero
    there, is refused already), then x = 40 and x = -7.5, which the check does not try: an answer
    that knows only the check's inputs fails here."""
    for x0, want in [(0.0, 1.0), (40.0, 1 / 41**2), (-7.5, 1 / 8.5**2)]:
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
    """(-7.25, -7) and (-0.5, -4), pairs the check does not try, in each of which the larger number
    is the one of smaller size: an answer that knows only the check's pairs fails here."""
    for a0, b0 in [(-7.25, -7.0), (-0.5, -4.0)]:
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
