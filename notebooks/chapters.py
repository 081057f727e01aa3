"""The course's chapters, listed in one place.

Chapter NN is the notebook notebooks/NN_name.ipynb, built from notebooks/src/NN_name.py. The
notebook build, the site, the student edition, the grader and the tests all ask here, so a
chapter added, renamed or removed is seen by every one of them alike.
"""

from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent
SOURCES = NOTEBOOKS / "src"


def numbered(folder, suffix):
    """The files NN_name<suffix> in `folder`, in chapter order (notebooks, sources, site pages, copies)."""
    return sorted(Path(folder).glob(f"[0-9][0-9]_*{suffix}"))


def chapters():
    """Every chapter's name ("03_backprop_by_hand"), in order, from its source in notebooks/src."""
    return [path.stem for path in numbered(SOURCES, ".py")]


def source(name):
    """The jupytext source of a chapter, by name or number prefix ("03")."""
    found = [path for path in numbered(SOURCES, ".py") if path.stem.startswith(name)]
    if len(found) != 1:
        raise FileNotFoundError(f"expected one notebook source for chapter {name}, found {found}")
    return found[0]
