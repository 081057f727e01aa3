"""The student edition ships the checks, not the answers: no object in its package passes any check.

The edition is built once (instructor/student.py) into a temporary folder; a fresh interpreter
imports its package, not this checkout's, collects every module-level object of every module of
it (public or private: functions, classes, constants, tables, and each item of a module-level
dict, list or tuple, so a table of answers is tried entry by entry), and hands each one to every
check. Every check must refuse every object.

One kind of object is left out: a whole number defined outside the checked exercise's own chapter
module (a 1.0 or 3 that is some other exercise's input, a default, a time limit). An exercise whose
answer is a small whole number (chapter 0's zip, chapter 8's rate) is "accepted" by any such
number, by coincidence; that is guessing, not reading a key. A whole number in the chapter's own
module is still tried.

The records the checks read (micrograd_lesson/exercises/recorded.json) are made again here from
the references, which only the full edition has, and must be what is stored.
"""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from instructor import student  # noqa: E402

PROBE = textwrap.dedent(
    """
    import importlib, json, numbers, pkgutil, sys, time
    import matplotlib
    matplotlib.use("Agg")
    import micrograd_lesson
    from micrograd_lesson.exercises import _core
    from micrograd_lesson.exercises._core import EXERCISES

    _core.TIME_LIMIT = 2.0  # an object that loops is refused after 2 s, as it would be after 15
    modules = {"micrograd_lesson": micrograd_lesson}
    for info in pkgutil.walk_packages(micrograd_lesson.__path__, "micrograd_lesson."):
        modules[info.name] = importlib.import_module(info.name)

    objects = {}  # id -> (where, module, object): each object once, under the first name found
    for name, module in sorted(modules.items()):
        for attr, obj in sorted(vars(module).items()):
            if attr.startswith("__") and attr.endswith("__"):
                continue
            objects.setdefault(id(obj), (f"{name}.{attr}", name, obj))
            items = obj.items() if isinstance(obj, dict) else ()
            items = enumerate(obj) if isinstance(obj, (list, tuple)) else items
            for key, item in list(items)[:500]:
                objects.setdefault(id(item), (f"{name}.{attr}[{key!r}]", name, item))

    def whole_number(obj):
        return isinstance(obj, numbers.Real) and not isinstance(obj, bool) and float(obj).is_integer()

    start, pairs, accepted = time.process_time(), 0, []
    for exercise, ex in list(EXERCISES.items()):
        if ex.check is None:
            continue
        own = "micrograd_lesson.exercises." + exercise.split(".")[0]
        for where, module, obj in list(objects.values()):
            if whole_number(obj) and module != own:
                continue
            pairs += 1
            if ex.check(obj, record=False):
                accepted.append([exercise, where])
    print(json.dumps({
        "where": micrograd_lesson.__file__,
        "checks": sum(1 for ex in EXERCISES.values() if ex.check),
        "objects": len(objects), "modules": len(modules),
        "pairs": pairs, "accepted": accepted, "cpu": time.process_time() - start,
    }))
    """
)


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    return student.build(tmp_path_factory.mktemp("keys") / "student")


@pytest.fixture(scope="module")
def probed(edition):
    env = dict(os.environ, PYTHONPATH=str(edition), MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=edition, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # a fresh interpreter, every check
def test_no_object_of_the_student_package_passes_any_check(probed, edition):
    assert Path(probed["where"]).resolve().is_relative_to(edition.resolve())  # the edition's package
    assert probed["checks"] >= 40 and probed["modules"] >= 20 and probed["objects"] >= 500
    assert probed["pairs"] >= probed["checks"] * 500
    assert probed["accepted"] == [], probed["accepted"]


@pytest.mark.slow  # a fresh interpreter, every check
def test_the_probe_finds_a_key_when_one_is_shipped(tmp_path):
    """The test above can fail: plant one answer key (chapter 8's best rate, as a module constant
    of its chapter) in an edition, and the probe reports it, with its name."""
    out = student.build(tmp_path / "student")
    module = out / "micrograd_lesson" / "exercises" / "ch08.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n_PLANTED = 1.0\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(out), MPLBACKEND="Agg")
    probe = PROBE.replace(
        "for exercise, ex in list(EXERCISES.items()):",
        "for exercise, ex in [('ch08.learning_rate', EXERCISES['ch08.learning_rate'])]:",
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    accepted = json.loads(done.stdout.strip().splitlines()[-1])["accepted"]
    assert accepted == [["ch08.learning_rate", "micrograd_lesson.exercises.ch08._PLANTED"]]


def test_the_student_package_has_no_reference_or_recorder():
    """What the checks were recorded from is cut out of the edition, as the worked solutions are."""
    text = "@reference\ndef f():\n    return 1\n\n\n@recorder('x')\ndef g():\n    return 2\n\n\nKEPT = 3\n"
    assert student.strip_source(text).strip() == "KEPT = 3"


def test_the_stored_records_are_what_the_references_give():
    """recorded.json is made from the references (python instructor/student.py --record); if a
    reference or a check's inputs change, this fails until the records are made again."""
    stored = json.loads(
        (REPO / "micrograd_lesson" / "exercises" / "recorded.json").read_text(encoding="utf-8")
    )
    made = student.records()
    assert sorted(made) == sorted(stored)
    for name in made:
        assert same(made[name], stored[name]), (
            f"{name}: the stored records differ; run python instructor/student.py --record"
        )


def same(made, stored):
    """Equal, numbers to 1e-12 of their size: another Python may round a sum in its last bits (3.12's
    sum() of floats compensates), far below any check's tolerance; everything else exactly."""
    if isinstance(made, float) or isinstance(stored, float):
        both = isinstance(made, (int, float)) and isinstance(stored, (int, float))
        return both and math.isclose(made, stored, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(made, (list, tuple)) and isinstance(stored, (list, tuple)):
        return len(made) == len(stored) and all(map(same, made, stored))
    if isinstance(made, dict) and isinstance(stored, dict):
        return made.keys() == stored.keys() and all(same(made[k], stored[k]) for k in made)
    return made == stored


def test_records_are_compared_to_their_last_bits_and_no_further():
    assert same({"a": [1.0, 2]}, {"a": [1.0 + 1e-15, 2]})
    assert not same({"a": [1.0, 2]}, {"a": [1.0 + 1e-9, 2]})
    assert not same([1.0], [1.0, 2.0]) and not same({"a": 1}, {"b": 1}) and not same("x", "y")


RIGHT = textwrap.dedent(
    """
    import importlib, json, sys
    import matplotlib
    matplotlib.use("Agg")
    from micrograd_lesson.exercises._core import EXERCISES
    verdicts = {}
    for name, source in json.loads(sys.stdin.read()).items():
        module = importlib.import_module("micrograd_lesson.exercises." + name.split(".")[0])
        space = dict(vars(module))  # the chapter's imports, as the worked solution had them
        before = set(space)
        exec(source, space)
        (answer,) = [space[k] for k in space if k not in before]
        verdicts[name] = repr(EXERCISES[name].check(answer, record=False))
    print(json.dumps(verdicts))
    """
)


@pytest.mark.slow  # a fresh interpreter, every check
def test_the_worked_solutions_pass_the_student_editions_checks(edition):
    """Every worked solution, its source run in a fresh interpreter that has only the student
    package, is "correct" there: the checks work from their records alone."""
    import inspect

    import micrograd_lesson.exercises  # noqa: F401 - registers every chapter's solutions
    from micrograd_lesson.exercises._core import EXERCISES

    sources = {}
    for name, ex in EXERCISES.items():
        if ex.solution is not None and ex.check is not None:
            lines = textwrap.dedent(inspect.getsource(ex.solution)).splitlines()
            sources[name] = "\n".join(line for line in lines if not line.startswith("@solution"))
    env = dict(os.environ, PYTHONPATH=str(edition), MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-c", RIGHT],
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        env=env,
        cwd=edition,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    verdicts = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(verdicts) >= 40
    assert {name: v for name, v in verdicts.items() if v != "correct"} == {}


def test_the_student_notebooks_say_what_the_edition_holds(edition):
    """No chapter of the student edition offers a worked solution to click: it says they are kept."""
    said = []
    for path in sorted((edition / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
        assert "Show the solution" not in text and "worked solution folded away" not in text, path.name
        said += [path.name] if "the worked solutions are kept by your instructor" in text else []
    full = [
        p.name for p in sorted((REPO / "notebooks").glob("*.ipynb")) if "folded away" in p.read_text("utf-8")
    ]
    assert said == full and len(full) >= 2


HIDDEN = textwrap.dedent(
    """
    import importlib, json, sys
    import matplotlib
    matplotlib.use("Agg")
    missing = []
    for chapter, (source, names) in json.loads(sys.stdin.read()).items():
        module = importlib.import_module("micrograd_lesson.exercises." + chapter)
        exec(source, vars(module))
        missing += [f"{chapter}.{name}" for name in names if not hasattr(module, name)]
    print(json.dumps(missing))
    """
)


@pytest.mark.slow  # a fresh interpreter
def test_the_references_hidden_cases_import_can_be_given_back_to_a_grading_kernel(edition):
    """The hidden cases compare with references the student edition leaves out; a grader gives them
    back (student.reference_source, exec'd into the student package's module) after the notebook ran."""
    import ast

    from micrograd_lesson.exercises.reference import HELPERS  # public name -> (chapter, its name there)

    wanted = {}
    for path in sorted((REPO / "instructor" / "hidden").glob("ch*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "micrograd_lesson.exercises.reference":
                for chapter, name in (HELPERS[a.name] for a in node.names if a.name in HELPERS):
                    wanted.setdefault(chapter, set()).add(name)
    assert len(wanted) >= 5
    sent = {chapter: [student.reference_source(chapter), sorted(names)] for chapter, names in wanted.items()}
    env = dict(os.environ, PYTHONPATH=str(edition), MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN],
        input=json.dumps(sent),
        capture_output=True,
        text=True,
        env=env,
        cwd=edition,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
