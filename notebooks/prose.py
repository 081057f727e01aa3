"""What a reader meets in a chapter's Markdown: the main text, and the folded "How we know" notes.

A chapter says each verdict once, in plain words, and folds how we know it (draws, counts,
intervals, the claim ID) into a note right below it:

    <details><summary>How we know</summary>

    ... the evidence ...
    <!-- claim: ch08-three-phases -->
    </details>

`main_text` is what a reader sees unfolded: every `<details>...</details>` block, every HTML tag
and comment and every link target removed. `words` counts it the way the course's budget does:
an inline or displayed formula is one word, and a word is a run of letters or digits.
"""

import re

import jupytext
from notebooks.chapters import numbered, source

FOLDED = re.compile(r"<details\b.*?</details\s*>", re.S | re.I)
COMMENT = re.compile(r"<!--.*?-->", re.S)
TAG = re.compile(r"</?[A-Za-z][^>]*>")
LINK_TARGET = re.compile(r"\]\([^)]*\)")  # [text](target): the reader sees the text
FORMULA = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
WORD = re.compile(r"[^\W_]+")

# What says how we know rather than what is so: it belongs in a folded note, not the main text.
PROVENANCE = {
    "a seed range": re.compile(r"\bseeds?\s+\d[\d,_]*\s*(?:to|-|–|and)\s*\d", re.I),
    "a held-out block": re.compile(r"CLAIMS_SEED|held[- ]out (?:draws|seeds|block)", re.I),
    "a claims test": re.compile(r"claims? tests?|tests/claims|course's tests", re.I),
    "a claim ID": re.compile(r"<!--\s*claim:"),
    "a count of draws": re.compile(
        r"\b(?:measured|re-?run|checked|tested)\s+(?:it\s+)?(?:on|over|across)\s+\d[\d,]*\s+"
        r"(?:other\s+|fresh\s+|more\s+|further\s+|new\s+)?(?:draws|seeds|splits|starts|networks|runs)",
        re.I,
    ),
}


def markdown_cells(prefix):
    """The Markdown cells' sources of chapter `prefix` ("08"), in order."""
    nb = jupytext.read(source(prefix), fmt="py:percent")
    return [cell.source for cell in nb.cells if cell.cell_type == "markdown"]


def main_text(markdown):
    """What a reader meets with every note folded: no folded block, no HTML, no link targets."""
    text = FOLDED.sub(" ", COMMENT.sub(" ", markdown))
    return LINK_TARGET.sub("]", TAG.sub(" ", text))


def folded_text(markdown):
    """The text of the folded notes, as a reader meets it on opening them."""
    blocks = " ".join(FOLDED.findall(COMMENT.sub(" ", markdown)))
    return LINK_TARGET.sub("]", TAG.sub(" ", blocks))


def words(text):
    """Words as the budget counts them: a formula is one word, a word a run of letters or digits."""
    return len(WORD.findall(FORMULA.sub(" formula ", text)))


def provenance(markdown):
    """[(kind, the words)] for each place the main text says how we know instead of folding it."""
    text = COMMENT.sub(
        lambda m: m.group(0) if "claim:" in m.group(0) else " ", FOLDED.sub(" ", markdown)
    )
    return [(kind, m.group(0)) for kind, pattern in PROVENANCE.items() for m in pattern.finditer(text)]


def counts(prefix):
    """(main-text words, folded words) of chapter `prefix`."""
    cells = markdown_cells(prefix)
    return sum(words(main_text(c)) for c in cells), sum(words(folded_text(c)) for c in cells)


def report(prefixes=None):
    """One line per chapter: its words of main text and of folded notes."""
    names = [p.stem for p in numbered(source("00").parent, ".py")]
    lines = []
    for name in names:
        if prefixes and not name.startswith(tuple(prefixes)):
            continue
        main, folded = counts(name[:2])
        lines.append(f"{name}: {main:,} words of main text, {folded:,} folded")
    return lines
