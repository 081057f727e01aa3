"""What the claims tests share: the claim IDs in the chapters' prose, and the chapters' own code.

A verdict in a chapter (X beats Y, X causes Y, a number is typical) carries an ID in its
Markdown, `<!-- claim: ch10-banana-tie -->`, invisible when rendered. Each ID has one test
in tests/claims/, marked `@claim("ch10-banana-tie")`, that re-runs the experiment behind
the verdict across seeds, data draws or a refined grid and asserts it as the prose states it.

So that a test re-runs the chapter's own experiment rather than a copy of it, a chapter
can tag the cells that define its experiment (`# %% tags=["claim-setup"]`), and
`chapter_namespace("10", "claim-setup")` runs just those cells, in order, and returns
their names.
"""

import re
from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "notebooks" / "src"
CLAIM_ID = re.compile(r"<!--\s*claim:\s*([a-z0-9][a-z0-9.-]*)\s*-->")


def claim(claim_id):
    """Mark a test as the one that re-runs the verdict `claim_id`."""
    return pytest.mark.claim(claim_id)


def chapter_source(prefix):
    """The jupytext source of chapter `prefix` ("03", "10")."""
    found = sorted(SOURCES.glob(f"{prefix}_*.py"))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one notebook source for chapter {prefix}, found {found}")
    return found[0]


def prose_claims():
    """{claim ID: [chapter source names it appears in]} over every chapter's Markdown."""
    found = {}
    for src in sorted(SOURCES.glob("[0-9][0-9]_*.py")):
        nb = jupytext.read(src, fmt="py:percent")
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                for claim_id in CLAIM_ID.findall(cell.source):
                    found.setdefault(claim_id, []).append(src.name)
    return found


def tagged_cells(prefix, tag):
    """The sources of chapter `prefix`'s code cells tagged `tag`, in order, without magics."""
    src = chapter_source(prefix)
    nb = jupytext.read(src, fmt="py:percent")
    cells = [c for c in nb.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]
    if not cells:
        raise LookupError(f"{src.name} has no code cell tagged {tag!r}")
    magic = ("%", "!")  # %matplotlib, !pip: lines plain Python cannot run
    return ["\n".join(x for x in c.source.splitlines() if not x.lstrip().startswith(magic)) for c in cells]


def chapter_namespace(prefix, tag="claim-setup"):
    """Run the cells of chapter `prefix` tagged `tag`, in order, and return their globals."""
    namespace = {"__name__": f"chapter_{prefix}"}
    for i, code in enumerate(tagged_cells(prefix, tag)):
        exec(compile(code, f"{chapter_source(prefix).name}[{tag} cell {i + 1}]", "exec"), namespace)
    return namespace
