"""Hidden cases for chapter 11.

ch11.unbroadcast and ch11.quadratic_backward have none: their checks already try every kind of
broadcast (7 by hand, 20 drawn) and three sizes of non-symmetric A, and no plausible wrong
answer we could write passes those and fails another input.
"""

from micrograd_lesson.exercises._core import Verdict, as_number, attempt, hidden, shown
from micrograd_lesson.exercises.ch11 import _counted_visits


@hidden("ch11.recursive_visits")
def recursive_visits_for_deeper_stacks(recursive_visits):
    """k = 13 .. 20, past the check's 0 .. 12: an answer hard-coded to the check's values (each
    wrong one's hint prints the count) fails."""
    for k in range(13, 21):
        got, error = attempt(recursive_visits, k)
        if error or as_number(got) != _counted_visits(k):
            return Verdict(
                False, f"recursive_visits({k}) should be {_counted_visits(k)}, got {error or shown(got)}"
            )
    return Verdict(True)
