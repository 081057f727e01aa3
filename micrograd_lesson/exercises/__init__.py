"""Exercise checks for every chapter: `check_...` functions and `reveal(name)`.

Each chNN.py beside this file registers its checks with @check("chNN.name"); importing every
chapter here exports each check under its own name, with no list to keep by hand.
"""

import importlib
import pkgutil
import re

from ._core import EXERCISES, SOLUTIONS, Verdict, reveal

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if re.fullmatch(r"ch\d\d", _module):
        importlib.import_module(f"{__name__}.{_module}")

_checks = {ex.check.__name__: ex.check for ex in EXERCISES.values() if ex.check}
globals().update(_checks)
__all__ = ["EXERCISES", "SOLUTIONS", "Verdict", "reveal", *_checks]
