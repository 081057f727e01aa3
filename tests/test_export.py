"""The exports to otter-grader (Gradescope) and nbgrader (JupyterHub) grade as `make grade` does.

Fast tests read what instructor/export.py writes and run its grading module (instructor/autograde.py)
in this process. The slow ones run each tool's own autograder, `otter run` and `nbgrader autograde`,
on three sample learners of chapter 7 (all correct, one wrong answer, one that memorised the
inputs the notebook's check tries) and compare the exercises each got right with `make grade`'s.
They need otter-grader 7.0.0 and nbgrader 0.9.6 (requirements-export.txt), which the course's
environment does not hold: install them into a venv of their own and point EXPORT_PYTHON at its
Python (`python -m venv build/export-venv && build/export-venv/bin/pip install -r requirements.txt
-r requirements-export.txt`, found there by default); else they are skipped, saying so.
"""

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
from micrograd_lesson import nn
from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import EXERCISES, NO_ANSWER, Verdict

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
from test_instructor import CH07, MISTAKES, check_of, small_notebook, solution_cells  # noqa: E402

from instructor import autograde, export, grade  # noqa: E402

EXPORT_PYTHON = Path(os.environ.get("EXPORT_PYTHON", REPO / "build" / "export-venv" / "bin" / "python"))


def hidden_bodies(chapter):
    """The body of every hidden case of `chapter`: what must never reach a learner."""
    grade.load_hidden(chapter)
    from test_instructor import body

    return [body(case) for name in grade.exercise_names(chapter) for case in EXERCISES[name].hidden]


# ---- what the exports hold (no tool needed) --------------------------------------------------------


def test_the_otter_export_has_a_test_per_exercise_and_keeps_hidden_cases_in_the_autograder(tmp_path):
    out = export.otter(tmp_path / "otter", "ch07", {"ch07.leaky_neuron": 2}, generate=False)
    tests = sorted(p.name for p in (out / "ch07" / "tests").iterdir())
    assert tests == sorted(f"{n.replace('.', '_')}.py" for n in CH07)
    text = (out / "ch07" / "tests" / "ch07_leaky_neuron.py").read_text()
    assert "points = 2" in text and "all_or_nothing = True" in text and "OK_FORMAT = False" in text
    support = (out / "ch07" / "course_autograde.py").read_text()
    handed_out = " ".join(
        " ".join(p.read_text(errors="replace").split())
        for p in [*(out / "ch07" / "student").iterdir(), *(out / "student-edition").rglob("*.py")]
    )
    for secret in hidden_bodies("ch07"):
        assert secret[:60] in " ".join(support.split())  # in the autograder ...
        assert secret[:60] not in handed_out  # ... and nowhere a learner is handed


def test_the_nbgrader_notebook_has_a_locked_test_cell_per_exercise_with_its_hidden_cases_hidden(tmp_path):
    out = export.nbgrader(tmp_path / "nbgrader", "ch07")
    (path,) = (out / "source" / "ch07").iterdir()
    nb = nbformat.read(path, as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [c.metadata.nbgrader.grade_id for c in graded] == [n.replace(".", "_") for n in CH07]
    assert all(c.metadata.nbgrader.locked and c.metadata.nbgrader.points == 1 for c in graded)
    for cell in graded:
        public = re.split(r"### BEGIN HIDDEN TESTS\n(?s:.*)### END HIDDEN TESTS\n", cell.source)
        hidden = re.search(r"### BEGIN HIDDEN TESTS\n(?s:.*)### END HIDDEN TESTS", cell.source).group(0)
        for secret in hidden_bodies("ch07"):
            assert secret[:60] not in " ".join("".join(public).split())
        assert "hidden=True" in hidden
    assert (out / "nbgrader_config.py").exists() and (out / "student-edition" / "pyproject.toml").exists()


@pytest.fixture
def registry_as_a_notebook_leaves_it(monkeypatch):
    """The learner's answers, recorded as a notebook's check calls record them; put back after."""
    for name in CH07:
        monkeypatch.setattr(EXERCISES[name], "last_answer", NO_ANSWER)
    return EXERCISES


def test_the_autograde_module_grades_the_last_answer_with_fresh_checks_and_hidden_cases(
    registry_as_a_notebook_leaves_it, monkeypatch
):
    monkeypatch.setitem(autograde.HIDDEN, "ch07", (grade.HIDDEN / "ch07.py").read_text())
    monkeypatch.setitem(autograde.REFERENCES, "ch07", export.student.reference_source("ch07"))
    exercises = registry_as_a_notebook_leaves_it
    assert autograde.grade("ch07.widest_hidden")[1].startswith("not attempted")
    for name in CH07:
        exercises[name].check(exercises[name].solution)
    assert [autograde.grade(n) for n in CH07] == [(True, "correct")] * 3
    first_three = MISTAKES["ch07.leaky_neuron"][2]  # passes the check, fails a hidden case
    scope = {"nn": nn, "Value": Value}
    exec(textwrap.dedent(first_three[0]), scope)
    exercises["ch07.leaky_neuron"].check(scope[first_three[1]])
    assert autograde.grade("ch07.leaky_neuron", hidden=False) == (True, "correct")
    ok, hint = autograde.grade("ch07.leaky_neuron")
    assert not ok and hint.startswith("passes the notebook's check, not a hidden case: on a neuron of five")
    exercises["ch07.widest_hidden"].check(lambda nin, budget: 1)
    monkeypatch.setattr(exercises["ch07.widest_hidden"], "check", lambda answer, record=True: Verdict(True))
    assert autograde.grade("ch07.widest_hidden")[0] is False  # the notebook's patched check does not grade
    assert sys.modules["micrograd_lesson.exercises._core"].EXERCISES is exercises  # the notebook's, put back


# ---- each tool's own autograder on three sample learners (slow; needs the tools) -------------------


@pytest.fixture(scope="module")
def tools():
    """The Python that has otter-grader and nbgrader, or skip saying how to get one (before the
    class is graded, which takes a minute)."""
    how = (
        "otter-grader 7.0.0 and nbgrader 0.9.6 are not installed: `python -m venv build/export-venv && "
        "build/export-venv/bin/pip install -r requirements.txt -r requirements-export.txt`, or set "
        "EXPORT_PYTHON to a Python that has them"
    )
    if not EXPORT_PYTHON.exists():
        pytest.skip(f"{how} (no {EXPORT_PYTHON})")
    versions = "import otter, nbgrader; print(otter.__version__, nbgrader.__version__)"
    done = subprocess.run([str(EXPORT_PYTHON), "-c", versions], capture_output=True, text=True)
    if done.returncode != 0 or done.stdout.split() != ["7.0.0", "0.9.6"]:
        pytest.skip(f"{how} ({EXPORT_PYTHON}: {(done.stdout + done.stderr).strip()[-200:]})")
    return EXPORT_PYTHON


def tool_env(python, edition):
    """The tools' environment: their scripts on PATH, the student edition the package they import."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(PYTHONPATH=str(edition), PATH=f"{Path(python).parent}:{env.get('PATH', '')}")
    return env


def memorised(name):
    """A cell that answers exercise `name` from a table of what its check asks, and calls the check."""
    ex, table = EXERCISES[name], {}

    def spy(*args):
        table[repr(args)] = ex.solution(*args)
        return table[repr(args)]

    assert ex.check(spy, record=False)
    fn = ex.solution.__name__
    lines = [f"from micrograd_lesson.exercises import {check_of(name)}", f"TABLE = {table!r}", ""]
    lines += [f"def {fn}(*args):", "    return TABLE[repr(args)]", "", f"{check_of(name)}({fn})"]
    return "\n".join(lines)


def sample_learners():
    """{learner: code cells}: every answer right; one wrong; two answers memorised from the check."""
    right = solution_cells()  # the imports, then one cell per exercise of CH07
    code, answer, _ = MISTAKES["ch07.widest_hidden"][0]
    wrong = list(right)
    wrong[1] = f"from micrograd_lesson.exercises import {check_of(CH07[0])}\n{textwrap.dedent(code)}\n"
    wrong[1] += f"{check_of(CH07[0])}({answer})"
    tables = list(right)
    tables[1], tables[3] = memorised(CH07[0]), memorised(CH07[2])
    return {"all-right": right, "one-wrong": wrong, "memorised": tables}


@pytest.fixture(scope="module")
def class_of_three(tools, tmp_path_factory):
    """The three sample learners' notebooks, and which exercises `make grade` gives them."""
    folder = tmp_path_factory.mktemp("three")
    for learner, cells in sample_learners().items():
        nb = small_notebook(*cells)
        nb.metadata["kernelspec"] = dict(name="python3", display_name="Python 3", language="python")
        (folder / learner).mkdir()
        nbformat.write(nb, folder / learner / "07_neurons_layers_mlps.ipynb")
    rows, _ = grade.grade_folder(folder, {}, grade.default_limits(cell=120, notebook=300, check=30))
    right = {
        learner: sorted(r["exercise"] for r in rows if r["learner"] == learner and r["points"])
        for learner in sample_learners()
    }
    assert right == {"all-right": sorted(CH07), "one-wrong": sorted(CH07[1:]), "memorised": [CH07[1]]}, rows
    return folder, right


def ranking(right):
    return sorted(right, key=lambda learner: -len(right[learner]))


@pytest.mark.slow
def test_otter_run_agrees_with_make_grade(tools, class_of_three, tmp_path):
    python, (folder, right) = tools, class_of_three
    out = export.otter(tmp_path / "otter", "ch07", python=python)
    env, found = tool_env(python, out / "student-edition"), {}
    for learner in right:
        results = tmp_path / "results" / learner
        results.mkdir(parents=True)
        submission = folder / learner / "07_neurons_layers_mlps.ipynb"
        cmd = [
            str(python),
            "-m",
            "otter",
            "run",
            "-a",
            str(out / "ch07" / "autograder.zip"),
            "-o",
            str(results),
        ]
        done = subprocess.run([*cmd, str(submission)], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        tests = json.loads((results / "results.json").read_text())["tests"]
        scores = {t["name"]: t["score"] for t in tests if "score" in t}
        assert sorted(scores) == sorted(CH07), tests
        found[learner] = sorted(name for name, score in scores.items() if score == 1)
    assert found == right and ranking(found) == ranking(right)


NB_SCORES = """
import json, sys
from nbgrader.api import Gradebook
with Gradebook("sqlite:///gradebook.db") as gb:
    found = {}
    for learner in sys.argv[1:]:
        nb = gb.find_submission_notebook("07_neurons_layers_mlps", "ch07", learner)
        found[learner] = {g.name: g.score for g in nb.grades}
print(json.dumps(found))
"""


@pytest.mark.slow
def test_nbgrader_autograde_agrees_with_make_grade(tools, class_of_three, tmp_path):
    python, (folder, right) = tools, class_of_three
    course = export.nbgrader(tmp_path / "course", "ch07")
    env = tool_env(python, course / "student-edition")

    def nbgrader(*args):
        done = subprocess.run(
            [str(python), "-m", "nbgrader", *args], capture_output=True, text=True, env=env, cwd=course
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done.stdout

    nbgrader("generate_assignment", "ch07", "--force")
    release = nbformat.read(course / "release" / "ch07" / "07_neurons_layers_mlps.ipynb", as_version=4)
    graded = [c for c in release.cells if "nbgrader" in c.metadata]  # the learner's own cells go before
    for learner in right:
        own = nbformat.read(folder / learner / "07_neurons_layers_mlps.ipynb", as_version=4).cells
        nb = nbformat.v4.new_notebook(cells=own + graded, metadata=release.metadata)
        (course / "submitted" / learner / "ch07").mkdir(parents=True)
        nbformat.write(nb, course / "submitted" / learner / "ch07" / "07_neurons_layers_mlps.ipynb")
    nbgrader("autograde", "ch07", "--force")
    done = subprocess.run(
        [str(python), "-c", NB_SCORES, *right], capture_output=True, text=True, env=env, cwd=course
    )
    assert done.returncode == 0, done.stderr[-2000:]
    scores = json.loads(done.stdout)
    found = {
        learner: sorted(n for n in CH07 if scores[learner][n.replace(".", "_")] == 1) for learner in right
    }
    assert found == right and ranking(found) == ranking(right)
