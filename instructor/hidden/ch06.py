"""Hidden cases for chapter 6: a gradient check at x = 0, and a third set of suspects.

ch06.central_h is a single number: no hidden case.
"""

import math

from micrograd_lesson.exercises._core import Missed, Verdict, attempt, close, first, hidden, shown
from micrograd_lesson.exercises.ch06 import _op


@hidden("ch06.grad_check")
def grad_check_at_zero(grad_check):
    """tanh at x = 0 and at x = -1.5: a nudge proportional to x is no nudge at 0."""
    for x in [0.0, -1.5]:
        truth = 1 - math.tanh(x) ** 2
        got, error = attempt(grad_check, lambda v: v.tanh(), x)
        pair = first(got, 3) if not error else None
        if error or not pair or len(pair) != 2 or not all(close(p, truth, rel=1e-5) for p in pair):
            kind = (
                "tanh at x = 0, where a nudge proportional to x is no nudge"
                if x == 0
                else "tanh at a negative x"
            )
            gave = error or shown(got)
            told = f"grad_check(tanh, {x:g}) should give about ({truth:.6f}, {truth:.6f}), got {gave}"
            return Missed(kind, gave, told)
    return Verdict(True)


def _kinked(x):  # slope 1, then 2 on [1.2, 1.9], then 1 again
    return x if x < 1.2 else 1.2 + 2 * (x - 1.2) if x <= 1.9 else 2.6 + (x - 1.9)


_THIRD = {  # every suspect defined on [0.5, 3]; the kink's bug shows only on [1.2, 1.9]
    "sqrt": _op("sqrt", math.sqrt, lambda x: 0.5 / math.sqrt(x)),
    "sin": _op("sin", math.sin, math.cos),
    "log1p": _op("log1p", lambda x: math.log(1 + x), lambda x: 1 / x),  # should be 1 / (1 + x)
    "kinked": _op("kinked", _kinked, lambda x: 1.0),  # forgot the steeper middle
}
_THIRD_BUGGY = {"log1p", "kinked"}


@hidden("ch06.find_bugs")
def find_bugs_on_a_third_set(find_bugs):
    """Suspects the check does not hand out, one wrong only on [1.2, 1.9]: an answer that tries too
    few inputs (the check already refuses the ends alone), or names the check's bugs from memory, fails."""
    answer, error = attempt(find_bugs, dict(_THIRD))
    names = first(answer, len(_THIRD) + 1) if not error and not isinstance(answer, str) else None
    if error or names is None or set(names) != _THIRD_BUGGY:
        gave = error or shown(answer)
        kind = "four other suspects, one wrong only in the middle of [0.5, 3] (try inputs spread over it)"
        return Missed(kind, gave, f"on other suspects the buggy ones are {sorted(_THIRD_BUGGY)}, got {gave}")
    return Verdict(True)
