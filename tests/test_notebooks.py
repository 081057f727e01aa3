"""The stored notebooks: in sync with their sources, clean outputs, enough prose, exercises at the end.

Every notebooks/src/NN_name.py must have a built notebooks/NN_name.ipynb whose
cells are exactly the source's cells, so nobody edits an .ipynb by hand or
forgets to rebuild (`make execute NB=NN`). Whether the stored outputs are what
a fresh run gives is strict nbval's job (`make notebooks`).
"""

import importlib.util
import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from notebooks.chapters import numbered

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
SOURCES = numbered(NOTEBOOKS / "src", ".py")
MIN_WORDS = 600

MEMORY_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
# id() in decimal, e.g. a drawing's node named "add139933729647952"; not digits of a decimal number
OBJECT_ID = re.compile(r"(?<![\d.eE+-])\d{12,}")
# Paths that are this machine's, not the learner's: the checkout, the home folder, system roots.
HOME = os.path.expanduser("~").rstrip("/")
ABSOLUTE_PATH = re.compile(
    "|".join(
        [
            re.escape(str(REPO)),
            r"(?<![\w.~])/(?:home|Users|tmp|usr|opt|var|root|work)/",
            r"\b[A-Za-z]:\\(?:Users|Windows)\b",
        ]
        + ([re.escape(HOME) + "/"] if HOME else [])  # HOME=/ would match every URL's //
    )
)
HEADING = re.compile(r"^(#{1,6})\s+(.*)$", flags=re.M)


def load_build():
    spec = importlib.util.spec_from_file_location("notebook_build", NOTEBOOKS / "src" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stored(src):
    path = NOTEBOOKS / (src.stem + ".ipynb")
    if not path.exists():
        pytest.fail(f"{path.name} is missing: build it with `make execute NB={src.name[:2]}`")
    return nbformat.read(path, as_version=4)


def text_outputs(nb):
    """(cell index, text) for every output a learner reads; PNG data is skipped (base64 is noise)."""
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                yield i, out.text
            elif out.output_type == "error":
                yield i, f"{out.ename}: {out.evalue}\n" + "\n".join(out.traceback)
            else:
                for mime, data in out.get("data", {}).items():
                    if mime != "image/png":  # nor the base64 of a picture in HTML (<img src="data:...">)
                        text = data if isinstance(data, str) else str(data)
                        yield i, re.sub(r'data:image/[^;"]+;base64,[^"]*', "data:image", text)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def words(nb):
    return sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")


ids = [src.stem for src in SOURCES]
pytestmark = pytest.mark.skipif(not SOURCES, reason="no notebook sources yet")


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_notebook_cells_equal_the_source_cells(src):
    expected = load_build().to_notebook(src)
    nb = stored(src)
    want = [(c.cell_type, c.source, tags(c)) for c in expected.cells]
    got = [(c.cell_type, c.source, tags(c)) for c in nb.cells]
    assert got == want, (
        f"{src.stem}.ipynb differs from its source: rebuild it with `make execute NB={src.name[:2]}`"
    )


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_execution_counts_run_from_one(src):
    nb = stored(src)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), "stored counts must be 1..n: was it run top to bottom?"


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_outputs_have_no_memory_addresses_or_absolute_paths(src):
    nb = stored(src)
    for i, text in text_outputs(nb):
        found = MEMORY_ADDRESS.search(text)
        assert not found, f"cell {i} shows a memory address ({found.group()}): it changes every run"
        found = OBJECT_ID.search(text)
        assert not found, f"cell {i} shows what looks like an id() ({found.group()}): it changes every run"
        found = ABSOLUTE_PATH.search(text)
        assert not found, f"cell {i} shows a path of this machine ({found.group()})"


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_errors_only_where_a_cell_is_tagged_raises_exception(src):
    nb = stored(src)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in tags(cell):
            assert errors, f"cell {i} is tagged raises-exception but raised nothing"
        else:
            assert not errors, f"cell {i} raised {errors[0].ename}: {errors[0].evalue}"


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_enough_prose(src):
    count = words(stored(src))
    assert count >= MIN_WORDS, (
        f"{src.stem} has {count} words of prose; the course asks for at least {MIN_WORDS}"
    )


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_ends_with_exercises_that_call_a_check(src):
    nb = stored(src)
    headings = [
        (i, len(m.group(1)), m.group(2))
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown"
        for m in HEADING.finditer(c.source)
    ]
    exercise = [(i, level) for i, level, title in headings if re.search(r"exercise", title, flags=re.I)]
    assert exercise, f"{src.stem} has no Exercises heading"
    start, level = exercise[-1]
    later = [title for i, lvl, title in headings if i > start and lvl <= level]
    assert not later, f"the exercises should be the last section, but {later[0]!r} follows them"
    calls = [
        c.source for c in nb.cells[start:] if c.cell_type == "code" and re.search(r"\bcheck_\w+\(", c.source)
    ]
    assert calls, "the exercises section has no check_...(...) call"


def test_a_chapter_notebook_without_source_is_flagged():
    sources = {src.stem for src in SOURCES}
    orphans = [p.stem for p in numbered(NOTEBOOKS, ".ipynb") if p.stem not in sources]
    assert not orphans, f"notebooks without a source in notebooks/src: {orphans}"


def test_the_repository_has_no_symlinks():
    """Windows checkouts turn a symlink into a text file; notebooks find the package
    because it is installed (make lab, environment.yml) and build.py puts the
    checkout on the kernel's PYTHONPATH."""
    files = subprocess.run(["git", "ls-files", "-s"], cwd=REPO, capture_output=True, text=True, check=True)
    links = [line.split("\t")[-1] for line in files.stdout.splitlines() if line.startswith("120000")]
    assert not links, f"symlinks in the repository: {links}"


CHAPTER_REFERENCE = re.compile(r"\b[Cc]hapters?\s+(\d+(?:\s*(?:,|and|or|to|-|–)\s*\d+)*)")


def chapters_named(text):
    """Every chapter number in phrases like "chapter 4", "chapters 2 and 3", "chapters 2 to 5"."""
    return {int(n) for phrase in CHAPTER_REFERENCE.findall(text) for n in re.findall(r"\d+", phrase)}


def test_chapter_references_are_read_correctly():
    text = "Chapter 3 did it; chapters 2 and 3, chapters 2 to 5 and chapter 12; not chapter-wise 7"
    assert chapters_named(text) == {2, 3, 5, 12}


@pytest.mark.parametrize("src", SOURCES, ids=ids)
def test_every_chapter_the_prose_names_exists(src):
    """A forward reference ("chapter 12 measures it") must point at a chapter that is there."""
    existing = {int(s.name[:2]) for s in SOURCES}
    prose = "\n".join(c.source for c in load_build().to_notebook(src).cells if c.cell_type == "markdown")
    missing = sorted(chapters_named(prose) - existing)
    assert not missing, f"{src.stem} names chapter(s) {missing}, which have no notebooks/src/NN_*.py"
