"""Exercise checks for every chapter: `check_...` functions and `reveal(name)`.

Each chapter's checks and worked solutions live in `chNN.py` beside this
file; everything a chapter module lists in `__all__` is importable from here.
"""

import importlib
import pkgutil

from ._core import SOLUTIONS, reveal

__all__ = ["SOLUTIONS", "reveal"]

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("ch"):
        _module = importlib.import_module(f"{__name__}.{_info.name}")
        for _name in _module.__all__:
            globals()[_name] = getattr(_module, _name)
            __all__.append(_name)
