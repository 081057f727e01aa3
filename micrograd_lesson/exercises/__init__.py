"""Exercise checks for every chapter: `check_...` functions and `reveal(name)`.

Each chapter's checks and worked solutions live in `chNN.py` beside this file and
register themselves with `@check("chNN.name")` and `@solution("chNN.name")`. This
module imports every chapter and exports each registered check under its own
name, so `from micrograd_lesson.exercises import check_softsign` works with no list to
keep by hand.
"""

import importlib
import pkgutil
import re

from ._core import EXERCISES, SOLUTIONS, Verdict, reveal

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if re.fullmatch(r"ch\d\d", _module):
        importlib.import_module(f"{__name__}.{_module}")

globals().update({ex.check.__name__: ex.check for ex in EXERCISES.values() if ex.check})

__all__ = ["EXERCISES", "SOLUTIONS", "Verdict", "reveal"] + [
    ex.check.__name__ for ex in EXERCISES.values() if ex.check
]
