"""Hidden cases for chapter 11.

ch11.unbroadcast and ch11.quadratic_backward have none: their checks already try every kind of
broadcast (7 by hand, 20 drawn) and three sizes of non-symmetric A, and no plausible wrong
answer we could write passes those and fails another input.
"""

import math

from micrograd_lesson.exercises._core import Missed, Verdict, as_number, attempt, hidden, shown
from micrograd_lesson.exercises.ch11 import _counted_visits


@hidden("ch11.recursive_visits")
def recursive_visits_for_deeper_stacks(recursive_visits):
    """Depths and widths past the check's (k up to 15, w up to 7, and its three large cases): an
    answer hard-coded to the check's cases (each wrong one's hint prints the count) fails."""
    for k, w in [(17, 2), (10, 9), (45, 1), (20, 3), (16, 8)]:
        got, error = attempt(recursive_visits, k, w)
        want = _counted_visits(k, w)
        number = as_number(got)
        if error or number is None or not math.isclose(number, want, rel_tol=1e-9):
            gave = error or shown(got)
            told = f"recursive_visits({k}, {w}) should be {want}, got {gave}"
            return Missed("a stack deeper or wider than the check tries", gave, told)
    return Verdict(True)
