"""Hidden cases for chapter 5: softsign at 0 and at inputs the check does not try, and max of
negative numbers the check does not try."""

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import Missed, Verdict, attempt, close, hidden, shown


@hidden("ch05.softsign")
def softsign_at_zero(softsign):
    """x = 0 (slope 1; the check tries it too, so a sign(x) written as x / |x|, which divides by zero
    there, is refused already), then x = 40 and x = -7.5, which the check does not try: an answer
    that knows only the check's inputs fails here."""
    for kind, x0, want in [
        ("an input of exactly 0", 0.0, 1.0),
        ("a large positive input the check does not try", 40.0, 1 / 41**2),
        ("a negative input the check does not try", -7.5, 1 / 8.5**2),
    ]:
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
            gave = error or (f"slope {shown(x.grad)}" if isinstance(out, Value) else shown(out))
            return Missed(kind, gave, f"softsign at x = {x0:g}: want slope {want:.6g}, got {gave}")
    return Verdict(True)


@hidden("ch05.max")
def max_of_negative_numbers(maximum):
    """(-7.25, -7) and (-0.5, -4), pairs the check does not try, in each of which the larger number
    is the one of smaller size: an answer that knows only the check's pairs fails here."""
    for kind, a0, b0 in [
        ("two negative numbers, the second the larger", -7.25, -7.0),
        ("two negative numbers, the first the larger", -0.5, -4.0),
    ]:
        a, b = Value(a0), Value(b0)
        out, error = attempt(maximum, a, b)
        if not error and isinstance(out, Value):
            _, error = attempt(out.backward)
        want = (1.0, 0.0) if a0 > b0 else (0.0, 1.0)
        if error or not isinstance(out, Value) or not (close(a.grad, want[0]) and close(b.grad, want[1])):
            gave = error or f"grads ({shown(a.grad)}, {shown(b.grad)})"
            return Missed(
                kind, gave, f"maximum(a, b) at a = {a0:g}, b = {b0:g}: want grads {want}, got {gave}"
            )
    return Verdict(True)
