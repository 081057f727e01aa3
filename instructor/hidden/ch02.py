"""Hidden cases for chapter 2: a subtraction whose result is negative or fractional.

ch02.node_count (a fixed prediction) and ch02.q (one fixed graph) have no hidden case.
"""

import operator

from micrograd_lesson.exercises.reference import Verdict, attempt, close, hidden, shown


@hidden("ch02.subtraction")
def subtraction_with_negative_results(cls):
    """3 - 5 and 1.5 - (-2.25): the check subtracts only to positive results, which a rule such as
    abs(self.data - other.data) also gets right."""
    for a, b in [(3.0, 5.0), (1.5, -2.25), (-4.0, -1.0)]:
        x, error = attempt(cls, a)
        y, error = (None, error) if error else attempt(cls, b)
        z, error = (None, error) if error else attempt(operator.sub, x, y)
        data, error = (None, error) if error else attempt(getattr, z, "data")
        if error or not close(data, a - b):
            return Verdict(False, f"{a:g} - {b:g} should hold data {a - b:g}, got {error or shown(data)}")
    return Verdict(True)
