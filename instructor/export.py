"""Export the course's exercises to where instructors already grade, with the course's own checks.

    python instructor/export.py otter    [--out build/export/otter]    [--chapter 07]   # make export-otter
    python instructor/export.py nbgrader [--out build/export/nbgrader] [--chapter 07]   # make export-nbgrader

Both are generated from the exercise registry and instructor/hidden/, and grade an exercise as
`make grade` does (instructor/autograde.py: the learner's last answer to its check, the check
imported afresh, then every hidden case; the exercise's points only if all pass). The package the
autograder installs is the student edition (instructor/student.py: checks, no worked solutions,
no hidden cases), built into the export.

otter (Gradescope): OUT/student-edition/ (the package to install), and per chapter OUT/chNN/ with
the notebook to hand out (student/), one exception-based test file per exercise (tests/; a public
case, the notebook's check, and a hidden case, the hidden cases, graded all or nothing),
course_autograde.py (the hidden cases, in the autograder only), requirements.txt, and, when
otter-grader is installed (requirements-export.txt), autograder.zip made by `otter generate`: upload
it to Gradescope, or grade one notebook here with `otter run -a OUT/chNN/autograder.zip NB.ipynb`.

nbgrader (JupyterHub): an nbgrader course folder OUT/ with nbgrader_config.py, the student edition
(OUT/student-edition/, to install in the hub's image) and source/chNN/NN_....ipynb: the chapter's
notebook with one locked autograder-tests cell per exercise at its end, whose hidden-tests block
(### BEGIN HIDDEN TESTS) holds the hidden cases; `nbgrader generate_assignment chNN` strips that
block from what learners get, `nbgrader autograde chNN` puts it back and grades.
"""

import argparse
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from instructor import grade, student  # noqa: E402

DEFAULT_OUT = ROOT / "build" / "export"
AUTOGRADE = ROOT / "instructor" / "autograde.py"
# Where Gradescope unpacks an autograder zip: otter generate puts its FILES under files/.
GRADESCOPE_FILES = "/autograder/source/files"


def chapters(only=None):
    """The chapters that have exercises ("ch00", ...), or just `only`."""
    found = sorted({name.split(".")[0] for name in grade.registry()})
    return [c for c in found if only is None or c == only]


def support_source(chapter):
    """instructor/autograde.py with the chapter's hidden cases and references filled in."""
    hidden = grade.HIDDEN / f"{chapter}.py"
    text = AUTOGRADE.read_text(encoding="utf-8")
    if hidden.exists():
        text += f"\n\nHIDDEN[{chapter!r}] = {hidden.read_text(encoding='utf-8')!r}\n"
        text += f"REFERENCES[{chapter!r}] = {student.reference_source(chapter)!r}\n"
    return text


def chapter_notebook(edition, chapter):
    return next((Path(edition) / "notebooks").glob(f"{chapter[2:]}_*.ipynb"))


# ---- otter-grader --------------------------------------------------------------------------------

OTTER_TEST = '''\
"""{name}: the notebook's check on the learner's last answer (public), then the hidden cases."""

from otter.test_files import test_case

OK_FORMAT = False  # an exception-based test file, not okpy's doctest format
name = {name!r}
points = {points!r}
all_or_nothing = True  # the exercise's points only if both cases pass, as in `make grade`


def _grade(hidden):
    import importlib.util
    import os

    # The support file, by its path: never a module the notebook may have put in sys.modules.
    spec = importlib.util.spec_from_file_location("course_autograde", os.path.abspath("course_autograde.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.grade(name, hidden=hidden)


@test_case(hidden=False)
def the_notebooks_check():
    ok, hint = _grade(hidden=False)
    assert ok, hint


@test_case(hidden=True)
def the_hidden_cases():
    ok, hint = _grade(hidden=True)
    assert ok, hint
'''


def otter(out, only=None, points=None, generate=True, python=sys.executable):
    """Write the otter-grader assignment of every chapter (or `only`) into `out`; its path. With
    `generate`, `python` (one with otter-grader) makes each chapter's autograder.zip."""
    out, points = Path(out), points or {}
    edition = student.build(out / "student-edition")
    requirements = f"{GRADESCOPE_FILES}/student-edition\n"  # pip installs the folder: its pyproject
    for chapter in chapters(only):
        folder = out / chapter
        if folder.exists():
            shutil.rmtree(folder)
        (folder / "tests").mkdir(parents=True)
        (folder / "student").mkdir()
        shutil.copy(chapter_notebook(edition, chapter), folder / "student")
        for name in grade.exercise_names(chapter):
            test = OTTER_TEST.format(name=name, points=points.get(name, 1))
            (folder / "tests" / f"{name.replace('.', '_')}.py").write_text(test, encoding="utf-8")
        (folder / "course_autograde.py").write_text(support_source(chapter), encoding="utf-8")
        (folder / "requirements.txt").write_text(requirements, encoding="utf-8")
        (folder / "otter_config.json").write_text(json.dumps({"lang": "python"}, indent=1) + "\n")
        if generate:
            # the zip's files/, as Gradescope sees it: the package, not its notebooks
            shutil.copytree(edition, folder / "student-edition", ignore=shutil.ignore_patterns("notebooks"))
            cmd = [str(python), "-m", "otter", "generate", "-t", "tests", "-o", "autograder.zip"]
            cmd += [
                "-r",
                "requirements.txt",
                "-c",
                "otter_config.json",
                "course_autograde.py",
                "student-edition",
            ]
            done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
            shutil.rmtree(folder / "student-edition")
            if done.returncode != 0:
                raise RuntimeError(f"otter generate failed for {chapter}: {done.stderr.strip()[-500:]}")
    return out


# ---- nbgrader ------------------------------------------------------------------------------------

NBGRADER_CONFIG = """\
# nbgrader's configuration for the micrograd-lesson course (made by instructor/export.py).
import os

c = get_config()  # noqa: F821 - nbgrader's config loader defines it
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "micrograd-lesson"
"""

GRADE_CELL = """\
# Graded by your instructor: {name} ({points:g} point(s)). Leave this cell as it is.
# It runs your notebook's check on the answer you last passed to it{hidden_note}.
import types as _types

_course = _types.ModuleType("course_autograde")
exec({support!r}, vars(_course))
_ok, _hint = _course.grade({name!r}, hidden=False)
{hidden_block}assert _ok, _hint
"""

HIDDEN_BLOCK = """\
### BEGIN HIDDEN TESTS
_course.HIDDEN[{chapter!r}], _course.REFERENCES[{chapter!r}] = {hidden!r}, {references!r}
_ok, _hint = _course.grade({name!r}, hidden=True)
### END HIDDEN TESTS
"""


def nbgrader_notebook(path, chapter, points=None):
    """The chapter's notebook with one locked autograder-tests cell per exercise at its end."""
    import nbformat

    points, nb = points or {}, nbformat.read(path, as_version=4)
    support = AUTOGRADE.read_text(encoding="utf-8")
    hidden = grade.HIDDEN / f"{chapter}.py"
    heading = nbformat.v4.new_markdown_cell(
        "## For grading\n\nThe cells below grade your exercises as your instructor will: each runs the "
        "check you called on the answer you last passed to it. Leave them as they are."
    )
    heading.metadata["nbgrader"] = dict(
        grade=False, solution=False, locked=True, task=False, schema_version=3, grade_id="grading_intro"
    )
    nb.cells.append(heading)
    for name in grade.exercise_names(chapter):
        block = ""
        if hidden.exists():
            references = student.reference_source(chapter)
            block = HIDDEN_BLOCK.format(
                chapter=chapter, hidden=hidden.read_text(encoding="utf-8"), references=references, name=name
            )
        source = GRADE_CELL.format(
            name=name,
            points=points.get(name, 1),
            support=support,
            hidden_block=block,
            hidden_note=" (and, when graded, cases you cannot see)" if block else "",
        )
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = dict(
            grade=True,
            solution=False,
            locked=True,
            task=False,
            schema_version=3,
            grade_id=re.sub(r"\W", "_", name),
            points=points.get(name, 1),
        )
        nb.cells.append(cell)
    return nb


def nbgrader(out, only=None, points=None):
    """Write an nbgrader course folder with every chapter (or `only`) as an assignment; its path."""
    import nbformat

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    edition = student.build(out / "student-edition")
    (out / "nbgrader_config.py").write_text(NBGRADER_CONFIG, encoding="utf-8")
    for chapter in chapters(only):
        folder = out / "source" / chapter
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        path = chapter_notebook(edition, chapter)
        nbformat.write(nbgrader_notebook(path, chapter, points), folder / path.name)
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tool", choices=["otter", "nbgrader"])
    parser.add_argument("--out", help=f"folder to write (default {DEFAULT_OUT}/TOOL)")
    parser.add_argument("--chapter", help="one chapter only (07 or ch07)")
    parser.add_argument("--points", help="TOML file: exercise name = points (default 1 each), as make grade")
    args = parser.parse_args(argv)
    only = None
    if args.chapter is not None:
        match = re.fullmatch(r"(?:ch)?(\d{1,2})", args.chapter.strip())
        only = f"ch{int(match.group(1)):02d}" if match else None
        if only not in chapters():
            parser.error(
                f"--chapter {args.chapter!r}: the chapters with exercises are " + ", ".join(chapters())
            )
    try:
        points = grade.read_points(args.points) if args.points else {}
    except grade.PointsError as e:
        parser.error(f"POINTS: {e}")
    out = Path(args.out) if args.out else DEFAULT_OUT / args.tool
    if args.tool == "otter":
        generate = importlib.util.find_spec("otter") is not None  # otter-grader, to make autograder.zip
        if not generate:
            print(
                "otter-grader is not installed: writing the assignment without autograder.zip",
                file=sys.stderr,
            )
            print("  (pip install -r requirements-export.txt, then run this again)", file=sys.stderr)
        otter(out, only, points, generate=generate)
        made = "autograder.zip, tests/, " if generate else "tests/, "
        print(
            f"otter-grader assignment(s) in {out}/chNN/ ({made}student/),"
            f" the package in {out}/student-edition/"
        )
    else:
        nbgrader(out, only, points)
        print(
            f"nbgrader course in {out}: source/chNN/, nbgrader_config.py,"
            f" the package in {out}/student-edition/"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
