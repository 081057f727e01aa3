"""Write the student edition of the course: every chapter, every check, no worked solution.

    python instructor/student.py            # -> build/student/
    python instructor/student.py OUT_DIR
    python instructor/student.py --record   # rewrite micrograd_lesson/exercises/recorded.json

The edition is a folder a learner can be given as it is:

- `notebooks/`: every chapter as stored (prose, drawings, plots, exercise stubs and checks),
  with the outputs of the `reveal(...)` cells removed (they hold the worked solutions), and the
  prose that offers a worked solution saying instead that this edition leaves them out;
- `micrograd_lesson/`: the package, with every function marked `@solution(...)` or
  `@hidden(...)` cut out of `exercises/` (so `reveal()` says, in one line, that solutions
  are not part of this edition, and the hidden grading cases are not there to read), and
  every `@reference` and `@recorder` too: the checks compare with the records in
  `exercises/recorded.json` (outputs of the references on the checks' fixed inputs, and
  digests of single answers), so no object of the package passes any check;
- `pyproject.toml`, `requirements.txt` and a short README, so `pip install .` in the folder
  installs that package.

What is cut is found by reading the source (ast), not by running it; a test then reads
every file of the edition for the body of every solution and hidden case.
"""

import ast
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script, with or without the course installed
    sys.path.insert(0, str(ROOT))

from notebooks.chapters import numbered  # noqa: E402

PACKAGE = ROOT / "micrograd_lesson"
STRIPPED_DECORATORS = {"solution", "hidden", "reference", "recorder"}  # what the student edition leaves out
README = """\
# micrograd-lesson: student edition

A course in Jupyter notebooks on reverse-mode automatic differentiation. This edition has
every chapter and every exercise check; the worked solutions are kept by your instructor.

    python -m pip install .          # the package the notebooks import
    jupyter lab notebooks/           # then open 00_python_you_need.ipynb and go in order

Each exercise ends with a `check_...(...)` line: run it, and it says "correct" or gives a
hint. Hand in the notebooks you filled in, as your instructor asks.
"""


def _decorator_name(node):
    """`solution` for @solution("ch05.sin") or @_core.solution(...); None for anything else."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else None


def strip_source(text):
    """The module's source with every top-level function or class decorated by
    @solution/@hidden removed, decorators and all. Other lines are kept byte for byte."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    cut = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and any(
            _decorator_name(d) in STRIPPED_DECORATORS for d in node.decorator_list
        ):
            start = min(d.lineno for d in node.decorator_list) - 1
            cut.append((start, node.end_lineno))
    for start, end in reversed(cut):
        del lines[start:end]
    stripped = "".join(lines)
    ast.parse(stripped)  # still a valid module
    return stripped


# What the full course's prose says of its worked solutions, and what this edition says instead.
PROMISES = [
    (
        re.compile(
            r"a worked solution folded away below it(:\s+click \*Show the solution\*\s+only after trying)?\."
        ),
        "below it a `reveal(...)` cell, which in this edition says that the worked solutions are kept "
        "by your instructor.",
    ),
]


def reference_source(chapter):
    """The source of chapter `chapter`'s (e.g. "ch07") @reference functions, as the full edition has
    them: what its hidden cases compare with. A grader that runs a submission against the student
    edition execs this into the student package's module (exec(text, vars(module))) after the
    notebook has run and before it loads instructor/hidden/chNN.py, whose imports then resolve."""
    text = (PACKAGE / "exercises" / f"{chapter}.py").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    parts = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and any(
            _decorator_name(d) == "reference" for d in node.decorator_list
        ):
            start = min(d.lineno for d in node.decorator_list) - 1
            parts.append("".join(lines[start : node.end_lineno]))
    return "\n\n".join(parts)


def strip_notebook(path):
    """The notebook's JSON with the outputs of every reveal(...) cell removed, and the prose that
    offers a worked solution (PROMISES) saying what this edition holds instead."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "reveal(" in "".join(cell["source"]):
            cell["outputs"] = []
            cell["execution_count"] = None
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            for promise, instead in PROMISES:
                text = promise.sub(instead, text)
            cell["source"] = text.splitlines(keepends=True)
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def build(out):
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(PACKAGE, out / "micrograd_lesson", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for module in sorted((out / "micrograd_lesson" / "exercises").glob("*.py")):
        module.write_text(strip_source(module.read_text(encoding="utf-8")), encoding="utf-8")
    (out / "notebooks").mkdir()
    for nb in numbered(ROOT / "notebooks", ".ipynb"):
        (out / "notebooks" / nb.name).write_text(strip_notebook(nb), encoding="utf-8")
    for name in ("pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, out / name)
    (out / "README.md").write_text(README, encoding="utf-8")
    return out


def records():
    """Every exercise's records, made afresh from the references (full edition only), as JSON keeps them."""
    import micrograd_lesson.exercises  # noqa: F401 - registers every chapter's recorders
    from micrograd_lesson.exercises.reference import RECORDERS

    return {name: json.loads(json.dumps(make())) for name, make in sorted(RECORDERS.items())}


def write_records():
    """Rewrite micrograd_lesson/exercises/recorded.json from the references."""
    path = PACKAGE / "exercises" / "recorded.json"
    path.write_text(json.dumps(records(), indent=1) + "\n", encoding="utf-8")
    return path


def main(argv):
    if argv == ["--record"]:
        print(f"records written to {write_records()}")
        return
    out = build(argv[0] if argv else ROOT / "build" / "student")
    print(f"student edition written to {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
