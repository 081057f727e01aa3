"""The instructor edition: `make student` leaves every solution out, `make grade` scores submissions.

The student edition is built once into a temporary folder; every one of its files is then
read for the body of every worked solution and hidden case. Its stripped package must still
check answers (with the full package's solutions as the answers) and `reveal()` must say
in one line that solutions are not part of it.

Grading runs real notebooks in real kernels, so those tests are marked slow; they use
chapter 7 (short, three exercises) and fabricated learners: one perfect, one who never
touched the stubs, one per plausible mistake, one whose notebook crashes in its first
cell, one whose notebook hangs.
"""

import csv
import html
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

import micrograd_lesson.exercises  # noqa: F401 - registers every chapter's exercises
from micrograd_lesson.exercises._core import EXERCISES
from notebooks.chapters import chapters as course_chapters

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from instructor import grade, student  # noqa: E402

for _chapter in sorted({name.split(".")[0] for name in EXERCISES}):
    grade.load_hidden(_chapter)  # so the hidden cases are registered too

GRADED_CHAPTER = "07"


def body(fn):
    """The lines of a solution or hidden case below its `def`/`class` line, whitespace folded."""
    lines = textwrap.dedent(inspect.getsource(fn)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("def ", "class ")))
    header_end = start
    while not lines[header_end].rstrip().endswith(":"):  # a signature over several lines
        header_end += 1
    return " ".join(" ".join(lines[header_end + 1 :]).split())


def secrets():
    """(exercise name, what, body) for every worked solution and hidden case."""
    for name, ex in EXERCISES.items():
        if ex.solution is not None:
            yield name, "solution", body(ex.solution)
        for case in ex.hidden:
            yield name, "hidden case", body(case)


def readable_text(path):
    """Everything a learner could read in a file, whitespace folded (notebooks: every string in them)."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return " ".join(raw.split())
    strings = []

    def collect(node):
        if isinstance(node, str):
            strings.append(html.unescape(node))
        elif isinstance(node, dict):
            for v in node.values():
                collect(v)
        elif isinstance(node, list):
            strings.append("".join(s for s in node if isinstance(s, str)))
            for v in node:
                if not isinstance(v, str):
                    collect(v)

    collect(json.loads(raw))
    return " ".join(" ".join(strings).split())


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    return student.build(tmp_path_factory.mktemp("edition") / "student")


def test_there_are_solutions_to_hide():
    assert sum(1 for _ in secrets()) >= 40


def test_no_file_of_the_student_edition_holds_a_solution_or_hidden_case(edition):
    files = [p for p in edition.rglob("*") if p.is_file() and p.suffix not in (".npz", ".pyc")]
    assert len(files) > 20
    texts = {p: readable_text(p) for p in files}
    leaks = [
        f"{name} ({what}) in {path.relative_to(edition)}"
        for name, what, text in secrets()
        for path, content in texts.items()
        if text in content
    ]
    assert not leaks, leaks


def test_the_student_edition_keeps_every_chapter_and_its_checks(edition):
    chapters = sorted(p.name for p in (edition / "notebooks").glob("*.ipynb"))
    assert chapters == [f"{name}.ipynb" for name in course_chapters()]
    for path in (edition / "notebooks").glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and "reveal(" in cell.source:
                assert cell.outputs == [], f"{path.name}: a reveal cell kept its output"
        assert any("check_" in c.source for c in nb.cells if c.cell_type == "code"), path.name


@pytest.mark.slow
def test_the_stripped_package_still_checks_answers_and_reveal_says_no(edition):
    """Run in a fresh interpreter that imports the edition's package, not this checkout's: every
    check is there and answers, no solution or hidden case is, and reveal() says so in one line."""
    names = [n for n, ex in EXERCISES.items() if ex.solution is not None]
    script = textwrap.dedent(
        """
        import json, sys
        import micrograd_lesson.exercises as ex
        from micrograd_lesson.exercises._core import EXERCISES
        out = {"where": ex.__file__, "no_solutions": all(e.solution is None for e in EXERCISES.values()),
               "no_hidden": all(not e.hidden for e in EXERCISES.values()),
               "checks": sorted(n for n, e in EXERCISES.items() if e.check is not None),
               "junk": sorted({repr(e.check(None))[:9] for e in EXERCISES.values() if e.check})}
        import io, contextlib
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            shown = ex.reveal(sys.argv[1])
        out["reveal"] = buf.getvalue() + repr(shown)
        print(json.dumps(out))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(edition))
    done = subprocess.run(
        [sys.executable, "-c", script, names[0]], capture_output=True, text=True, env=env, cwd=edition
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out["where"]).resolve().is_relative_to(edition.resolve())
    assert out["no_solutions"] and out["no_hidden"]
    assert out["checks"] == sorted(n for n, e in EXERCISES.items() if e.check is not None)
    assert out["junk"] == ["not yet: "]  # every check still answers, with a hint
    assert "not part of this edition" in out["reveal"]
    assert len(out["reveal"].strip().splitlines()) == 1, out["reveal"]


def test_strip_source_cuts_decorated_functions_and_keeps_the_rest():
    text = textwrap.dedent(
        """
        from ._core import check, hidden, solution

        @check("ch99.x")
        def check_x(answer):
            return answer == 1

        @solution("ch99.x")
        def x():
            return 1  # the secret

        @hidden("ch99.x")
        def x_hidden(answer):
            return True

        KEEP = 2
        """
    )
    stripped = student.strip_source(text)
    assert "the secret" not in stripped and "x_hidden" not in stripped
    assert "def check_x(answer):" in stripped and "KEEP = 2" in stripped


# ---- grading -------------------------------------------------------------------------------------

CHECK_LINE = re.compile(r"^(check_\w+)\((.*)\)\s*$")


def chapter_notebook(edition):
    return next((edition / "notebooks").glob(f"{GRADED_CHAPTER}_*.ipynb"))


def exercise_cells(nb):
    """{exercise name: index of the code cell whose last line calls its check}."""
    by_check = {ex.check.__name__: name for name, ex in EXERCISES.items() if ex.check is not None}
    found = {}
    for i, cell in enumerate(nb.cells):
        lines = (
            [line for line in cell.source.splitlines() if line.strip()] if cell.cell_type == "code" else []
        )
        match = CHECK_LINE.match(lines[-1]) if lines else None
        if match and match.group(1) in by_check:
            found[by_check[match.group(1)]] = i
    return found


def fill(nb, name, code, answer):
    """Put `code` into the exercise's cell (after what is there) and pass `answer` to its check."""
    i = exercise_cells(nb)[name]
    lines = nb.cells[i].source.rstrip().splitlines()
    check_name = CHECK_LINE.match(lines[-1]).group(1)
    nb.cells[i].source = "\n".join(lines[:-1] + ["", textwrap.dedent(code), f"{check_name}({answer})"])


def solution_code(name):
    fn = EXERCISES[name].solution
    code = textwrap.dedent(inspect.getsource(fn))
    return "\n".join(line for line in code.splitlines() if not line.startswith("@")), fn.__name__


def write(nb, folder, learner, filename):
    (folder / learner).mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / learner / filename)


def rows_of(rows, learner):
    return {r["exercise"]: r for r in rows if r["learner"] == learner}


# Plausible mistakes for the graded chapter's exercises: (code, name passed to the check, words the
# hint must contain). Each learner below makes one of them and gets every other exercise right.
MISTAKES = {
    "ch07.widest_hidden": [
        (
            """
            def too_strict(nin, budget):
                h = 0
                while (h + 1) ** 2 + (nin + 3) * (h + 1) + 1 < budget:
                    h += 1
                return h
            """,
            "too_strict",
            ["<=", "not <"],
        ),
    ],
    "ch07.leaky_neuron": [
        (
            """
            class PlainRelu(nn.Module):
                def __init__(self, nin):
                    self.w = [Value(0.0) for _ in range(nin)]
                    self.b = Value(0.0)

                def __call__(self, x):
                    a = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
                    return a if a.data > 0 else 0 * a

                def parameters(self):
                    return self.w + [self.b]
            """,
            "PlainRelu",
            ["plain ReLU"],
        ),
        (  # the notebook's check builds LeakyNeuron(2) too, and counts its parameters
            """
            class ThreeInputs(nn.Module):
                def __init__(self, nin):
                    self.w = [Value(0.0) for _ in range(3)]
                    self.b = Value(0.0)

                def __call__(self, x):
                    a = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
                    return a if a.data > 0 else 0.01 * a

                def parameters(self):
                    return self.w + [self.b]
            """,
            "ThreeInputs",
            ["LeakyNeuron(2)", "use nin"],
        ),
        (  # passes the notebook's check (3 inputs); a hidden case runs LeakyNeuron(5) on 5 inputs
            """
            class FirstThree(nn.Module):
                def __init__(self, nin):
                    self.w = [Value(0.0) for _ in range(nin)]
                    self.b = Value(0.0)

                def __call__(self, x):
                    a = sum((wi * xi for wi, xi in zip(self.w[:3], x)), self.b)
                    return a if a.data > 0 else 0.01 * a

                def parameters(self):
                    return self.w + [self.b]
            """,
            "FirstThree",
            ["hidden case", "LeakyNeuron(5)"],
        ),
    ],
    "ch07.count_loss_nodes": [
        (
            """
            def no_parameters(nin, nouts, n_examples):
                sizes = [nin] + nouts
                layers = list(zip(sizes, sizes[1:]))
                per_example = nin * nouts[0] + sum(2 * k * m for k, m in layers) + sum(nouts[:-1]) + 3
                return n_examples * per_example + 1 + n_examples
            """,
            "no_parameters",
            ["count the parameters too"],
        ),
    ],
}


@pytest.fixture(scope="module")
def graded(edition, tmp_path_factory):
    """Grade a class of fabricated learners once; return (rows, the folder, the expected mistakes)."""
    folder = tmp_path_factory.mktemp("submissions")
    path = chapter_notebook(edition)
    untouched = nbformat.read(path, as_version=4)
    names = list(exercise_cells(untouched))
    assert names == [n for n in EXERCISES if n.startswith(f"ch{GRADED_CHAPTER}.")], names

    def with_solutions(skip=None):
        nb = nbformat.read(path, as_version=4)
        for name in names:
            if name != skip:
                code, answer = solution_code(name)
                fill(nb, name, code, answer)
        return nb

    write(with_solutions(), folder, "perfect", path.name)
    write(untouched, folder, "untouched", path.name)
    expected = {}
    for name, mistakes in MISTAKES.items():
        for k, (code, answer, words) in enumerate(mistakes):
            learner = f"mistake-{name.split('.')[1]}-{k}"
            nb = with_solutions(skip=name)
            fill(nb, name, code, answer)
            write(nb, folder, learner, path.name)
            expected[learner] = (name, words)
    typo = with_solutions()  # an exercise cell that raises before it reaches its check
    fill(typo, names[0], "answer = undefined_helper()", "answer")
    write(typo, folder, "typo", path.name)
    crash = with_solutions()
    first_code = next(c for c in crash.cells if c.cell_type == "code")
    first_code.source = 'raise RuntimeError("my first cell breaks")\n' + first_code.source
    write(crash, folder, "crashes", path.name)
    # The two that never end wait rather than spin: a time limit stops both alike, and the
    # minutes until it does cost no CPU that the other tests (in parallel) could use.
    hang = with_solutions()
    first_code = next(c for c in hang.cells if c.cell_type == "code")
    first_code.source += "\nimport time\nwhile True:\n    time.sleep(0.1)\n"
    write(hang, folder, "hangs", path.name)
    stubborn = with_solutions()  # ignores the interrupt: only the notebook's time limit stops it
    first_code = next(c for c in stubborn.cells if c.cell_type == "code")
    first_code.source += (
        "\nimport signal\nimport time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "while True:\n    time.sleep(0.1)\n"
    )
    write(stubborn, folder, "never-stops", path.name)
    (folder / "notes.txt").write_text("not a learner")  # stray files are ignored
    rows = grade.grade_folder(folder, points={names[-1]: 3}, cell_timeout=20, notebook_timeout=90)
    out = folder / "grades.csv"
    grade.write_csv(rows, out)
    return rows, out, names, expected


@pytest.mark.slow
def test_worked_solutions_filled_in_get_full_marks(graded):
    rows, _, names, _ = graded
    mine = rows_of(rows, "perfect")
    assert sorted(mine) == sorted(names)
    assert all(r["points"] == r["max_points"] and r["hint"] == "correct" for r in mine.values()), mine
    assert mine[names[-1]]["max_points"] == 3  # points set per exercise


@pytest.mark.slow
def test_untouched_student_notebooks_get_zero(graded):
    rows, _, names, _ = graded
    mine = rows_of(rows, "untouched")
    assert sorted(mine) == sorted(names)
    assert all(r["points"] == 0 and r["hint"] != "correct" for r in mine.values()), mine


@pytest.mark.slow
def test_each_plausible_mistake_loses_exactly_its_exercise_and_the_hint_names_it(graded):
    rows, _, names, expected = graded
    assert expected, "no mistakes to grade"
    for learner, (wrong, words) in expected.items():
        mine = rows_of(rows, learner)
        for name in names:
            if name == wrong:
                assert mine[name]["points"] == 0, (learner, mine[name])
                assert all(w in mine[name]["hint"] for w in words), (learner, words, mine[name]["hint"])
            else:
                assert mine[name]["points"] == mine[name]["max_points"], (learner, mine[name])


@pytest.mark.slow
def test_a_notebook_that_crashes_or_hangs_is_graded_and_the_others_still_are(graded):
    rows, _, names, _ = graded
    crashed = rows_of(rows, "crashes")  # the first cell raised; the exercises below still ran
    assert sorted(crashed) == sorted(names)
    hung = rows_of(rows, "hangs")  # interrupted after the cell time limit; the rest still ran
    assert all(r["points"] == r["max_points"] for r in hung.values()), hung
    stopped = rows_of(rows, "never-stops")  # stopped at the notebook time limit: 0, and why
    assert all(r["points"] == 0 for r in stopped.values()), stopped
    assert all(
        "time limit" in r["hint"] or "did not finish within 90 s" in r["hint"] for r in stopped.values()
    )
    assert {"perfect", "untouched", "crashes", "hangs", "never-stops"} <= {r["learner"] for r in rows}


@pytest.mark.slow
def test_an_exercise_whose_cell_raised_is_graded_with_the_error_it_raised(graded):
    rows, _, names, _ = graded
    mine = rows_of(rows, "typo")
    hint = mine[names[0]]["hint"]
    assert mine[names[0]]["points"] == 0
    assert "raised NameError" in hint and "undefined_helper" in hint, hint
    assert all(mine[n]["points"] == mine[n]["max_points"] for n in names[1:]), mine
    untouched = rows_of(rows, "untouched")  # no cell raised there: the plain hint stays
    assert all("raised" not in r["hint"] for r in untouched.values()), untouched


@pytest.mark.slow
def test_grades_csv_has_a_row_per_learner_chapter_and_exercise(graded):
    rows, out, names, expected = graded
    with open(out, newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == ["learner", "chapter", "exercise", "points", "max_points", "hint"]
    learners = {"perfect", "untouched", "typo", "crashes", "hangs", "never-stops", *expected}
    assert len(table) == len(learners) * len(names)
    assert {r["chapter"] for r in table} == {f"ch{GRADED_CHAPTER}"}
    assert "perfect: 4 / 4 points" in grade.summary(rows) or "perfect:" in grade.summary(rows)


def test_grade_refuses_a_missing_folder_in_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, str(REPO / "instructor" / "grade.py"), str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "SUBMISSIONS must be a folder" in done.stderr
