"""Hidden cases for chapter 2: a subtraction whose result is negative or fractional.

ch02.node_count (a fixed prediction) and ch02.q (one fixed graph) have no hidden case.
"""

import operator

from micrograd_lesson.exercises._core import Missed, Verdict, attempt, close, hidden, shown


@hidden("ch02.subtraction")
def subtraction_with_negative_results(cls):
    """3 - 5 and 1.5 - (-2.25): the check subtracts only to positive results, which a rule such as
    abs(self.data - other.data) also gets right."""
    for kind, a, b in [
        ("a subtraction whose result is negative", 3.0, 5.0),
        ("a fraction minus a negative fraction", 1.5, -2.25),
        ("two negative numbers", -4.0, -1.0),
    ]:
        x, error = attempt(cls, a)
        y, error = (None, error) if error else attempt(cls, b)
        z, error = (None, error) if error else attempt(operator.sub, x, y)
        data, error = (None, error) if error else attempt(getattr, z, "data")
        if error or not close(data, a - b):
            gave = error or f"data {shown(data)}"
            return Missed(kind, gave, f"{a:g} - {b:g} should hold data {a - b:g}, got {gave}")
    return Verdict(True)
