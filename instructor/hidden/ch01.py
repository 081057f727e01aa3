"""Hidden cases for chapter 1: a gradient at inputs of 0, of one input and of five.

ch01.best_h is a single number and ch01.slope is tried on five functions already: no hidden case.
"""

import math

from micrograd_lesson.exercises._core import Missed, Verdict, attempt, close, first, hidden, shown


@hidden("ch01.numerical_gradient")
def numerical_gradient_at_zero_and_other_sizes(numerical_gradient):
    """Inputs of exactly 0 (a nudge proportional to x is no nudge there) and functions of one and
    five inputs (an answer that assumes the check's two or three fails)."""
    for kind, text, fn, inputs, exact in [
        (
            "a function of two inputs, both exactly 0",
            "x*y + 2x at (0, 0)",
            lambda x, y: x * y + 2 * x,
            [0.0, 0.0],
            [2.0, 0.0],
        ),
        ("a function of one input, at exactly 0", "sin(x) at 0", math.sin, [0.0], [1.0]),
        (
            "a function of five inputs",
            "a + 2b + 3c + 4d + 5e at (1, -1, 0, 2, 0.5)",
            lambda a, b, c, d, e: a + 2 * b + 3 * c + 4 * d + 5 * e,
            [1.0, -1.0, 0.0, 2.0, 0.5],
            [1.0, 2.0, 3.0, 4.0, 5.0],
        ),
    ]:
        got, error = attempt(numerical_gradient, fn, list(inputs))
        numbers = first(got, len(inputs) + 1) if not error else None
        if (
            error
            or numbers is None
            or len(numbers) != len(inputs)
            or not all(close(g, e, rel=1e-4, abs_tol=1e-6) for g, e in zip(numbers, exact))
        ):
            gave = error or shown(got)
            return Missed(kind, gave, f"for {text} the gradient is {exact}, got {gave}")
    return Verdict(True)
