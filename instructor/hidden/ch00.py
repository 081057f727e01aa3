"""Hidden cases for chapter 0: subtraction with floats and negatives, and chained.

ch00.scalers (a fixed list of three functions, tried at two inputs) and ch00.zip_prediction
(a fixed prediction) have no hidden case: there is no other input to try them on.
"""

import operator

from micrograd_lesson.exercises._core import Missed, Verdict, as_number, attempt, close, hidden, shown


@hidden("ch00.rsub")
def rsub_with_floats_and_chains(Num):
    """Num - float, negatives, and a chain: a Num that wraps only ints (isinstance(other, int)) or
    whose result cannot be subtracted from again fails."""
    for kind, text, make, want in [
        ("a Num minus a float", "Num(10) - 2.5", lambda: Num(10) - 2.5, 7.5),
        ("two negative Nums", "Num(-1.5) - Num(-4)", lambda: Num(-1.5) - Num(-4), 2.5),
        (
            "a chain (a number minus a Num, then a float)",
            "(10 - Num(3)) - 2.5",
            lambda: operator.sub(10 - Num(3), 2.5),
            4.5,
        ),
        (
            "a chain (a number minus the result of a subtraction)",
            "1 - (Num(3) - 7.25)",
            lambda: 1 - (Num(3) - 7.25),
            5.25,
        ),
    ]:
        got, error = attempt(make)
        value, error = (None, error) if error else attempt(getattr, got, "value")
        if error or not close(as_number(value), want):
            gave = error or (f"a Num with .value {shown(value)}" if value is not None else shown(got))
            return Missed(kind, gave, f"{text} should give a Num with .value {want}, got {gave}")
    return Verdict(True)
