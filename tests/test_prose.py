"""The lesson first: each chapter's main text teaches, and how we know sits in folded notes.

A verdict is said once in plain words; its evidence (draws, counts, seed ranges, which test
checks it, the claim ID) goes in a `<details><summary>How we know</summary>` note right below it
(notebooks/prose.py). These tests read the chapters' sources as a reader meets them.
"""

import re

import pytest

from notebooks import prose
from notebooks.chapters import chapters

CHAPTERS = [name[:2] for name in chapters()]
BEFORE_THE_CHAIN_RULE = ("00", "01", "02")  # chapter 3 is the chain rule
BUDGET = 4000  # words of main text in chapters 0-2 together: about 20 minutes of reading


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_main_text_says_what_is_so_and_folds_how_we_know(chapter):
    found = [(kind, said) for cell in prose.markdown_cells(chapter) for kind, said in prose.provenance(cell)]
    assert not found, f"chapter {chapter}'s main text says how we know; fold it into a note: {found}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_folded_note_is_whole_in_its_cell_and_has_a_summary(chapter):
    for cell in prose.markdown_cells(chapter):
        opened = len(re.findall(r"<details\b", cell, re.I))
        assert opened == len(re.findall(r"</details\s*>", cell, re.I)), f"an unclosed note: {cell[:200]}"
        for note in prose.FOLDED.findall(cell):
            assert re.match(r"<details>\s*<summary>[^<]+</summary>\s*\n\s*\n", note), (
                "a note opens with <details><summary>...</summary> and a blank line (so that its "
                f"Markdown renders): {note[:120]}"
            )


def test_the_road_to_the_chain_rule_is_short():
    counted = {c: prose.counts(c)[0] for c in BEFORE_THE_CHAIN_RULE}
    assert sum(counted.values()) <= BUDGET, f"main-text words before the chain rule: {counted}"


def test_words_count_runs_of_letters_or_digits_and_a_formula_as_one():
    assert prose.words("A nudge h = 0.001 moves f(x) by $3x^2 - 4x$.") == 10  # 0.001 is two runs of digits
    assert prose.words("$$\\frac{a}{b}$$ and `x.grad`") == 4
    text = "Said once.\n\n<details><summary>How we know</summary>\n\nOn 240 networks.\n</details>\n"
    assert prose.words(prose.main_text(text)) == 2
    assert prose.words(prose.folded_text(text)) == 6  # How we know On 240 networks
    assert prose.main_text("[the playground](playground.html#code=abc)").strip() == "[the playground]"


def test_provenance_in_the_main_text_is_found_and_in_a_note_is_not():
    loud = "On 200 draws (seeds 1000 to 1199; the claims tests re-run 30) it held. <!-- claim: ch01-x -->"
    kinds = {kind for kind, _ in prose.provenance(loud)}
    assert kinds == {"a seed range", "a claims test", "a claim ID"}, kinds
    folded = f"It held.\n\n<details><summary>How we know</summary>\n\n{loud}\n</details>"
    assert prose.provenance(folded) == []
