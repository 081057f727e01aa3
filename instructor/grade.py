"""Grade a folder of submissions: one sub-folder per learner, holding their filled notebooks.

    python instructor/grade.py SUBMISSIONS [--out grades.csv] [--points points.toml]
                               [--cell-timeout 60] [--notebook-timeout 600]

Each notebook (named as the course names it, `NN_....ipynb`) runs headless, top to bottom,
in a kernel of its own, in a scratch copy of its folder, against the full package (checks,
solutions and hidden cases). A cell that raises is recorded and the run goes on; a cell
that runs past --cell-timeout is interrupted and the run goes on; a notebook that is still
running after --notebook-timeout is stopped. Then, in the same kernel, every exercise of
that chapter is graded from the answer the learner last passed to its `check_...` call:
its points if that answer passes the check and every hidden case, else 0, with the hint
the learner would have seen.

grades.csv has one row per learner, chapter and exercise: learner, chapter, exercise,
points, max_points, hint. A summary per learner is printed. Points are 1 per exercise
unless a TOML file says otherwise (`"ch05.sin" = 2`).

Isolation: each notebook runs in its own process, in a scratch folder, with time limits.
That is all: a submission can read and write what the grading user can, and use the
network if the machine has one. Grade untrusted work inside a container or a virtual
machine without network, as a user who owns nothing else (see instructor/README.md).
"""

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = "@@micrograd-lesson-grades@@"
CHAPTER = re.compile(r"^(\d\d)_.*\.ipynb$")

# Runs in the learner's kernel after their notebook: grade every exercise of the chapter.
GRADE_CELL = """\
import json as _json
import sys as _sys
_sys.path.insert(0, {root!r})
from instructor.grade import grade_chapter as _grade_chapter, load_hidden as _load_hidden
_load_hidden({chapter!r})
print({marker!r} + _json.dumps(_grade_chapter({chapter!r}, {points!r})))
"""


def load_hidden(chapter):
    """Register the hidden cases of `chapter` ("ch05"): instructor/hidden/ch05.py, if there is one.

    They live outside the package, so no copy of the package (the student edition's, a
    wheel) carries them; only the grader loads them, into the kernel it grades in.
    """
    import importlib

    if (ROOT / "instructor" / "hidden" / f"{chapter}.py").exists():
        importlib.import_module(f"instructor.hidden.{chapter}")


def exercise_names(chapter):
    """The exercises of `chapter` ("ch05"), in the order they are registered."""
    from micrograd_lesson.exercises._core import EXERCISES

    return [name for name in EXERCISES if name.startswith(chapter + ".")]


def grade_chapter(chapter, points=None):
    """Per exercise (in the learner's kernel): full points if the learner's last answer passes its
    check and every hidden case, else 0."""
    from micrograd_lesson.exercises._core import EXERCISES, NO_ANSWER, Verdict

    rows = []
    for name in exercise_names(chapter):
        ex, most = EXERCISES[name], (points or {}).get(name, 1)
        if ex.last_answer is NO_ANSWER:
            verdict = Verdict(False, "not attempted: its check was never called (did its cell run?)")
        else:
            verdict = ex.check(ex.last_answer, record=False)
            for case in ex.hidden if verdict else ():
                extra = case(ex.last_answer, record=False)
                if not extra:
                    verdict = Verdict(False, f"passes the notebook's check, not a hidden case: {extra.hint}")
                    break
        hint = "correct" if verdict else verdict.hint
        rows.append({"exercise": name, "points": most if verdict else 0, "max_points": most, "hint": hint})
    return rows


def run_one(path, chapter, points, cell_timeout):
    """Execute one notebook and grade it in the same kernel: a list of result dicts."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    grade = nbformat.v4.new_code_cell(
        GRADE_CELL.format(marker=MARKER, chapter=chapter, points=points, root=str(ROOT))
    )
    nb.cells.append(grade)
    path_entries = filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])  # the full package: this checkout
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path_entries))
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        client = NotebookClient(
            nb,
            timeout=cell_timeout,
            interrupt_on_timeout=True,  # a cell that hangs is interrupted, and the run goes on
            allow_errors=True,  # a cell that raises is recorded, and the run goes on
            kernel_name="python3",
            resources={"metadata": {"path": scratch}},
        )
        try:
            client.execute(env=env)
        except (CellTimeoutError, DeadKernelError) as e:  # a cell ignored the interrupt, or killed its kernel
            what = "ran past the cell time limit and ignored the interrupt"
            if isinstance(e, DeadKernelError):
                what = "stopped its kernel"
            return zero_rows(chapter, points, f"a cell {what}, so the notebook could not be graded")
    for out in grade.outputs:
        if out.output_type == "stream":
            for line in out.text.splitlines():
                if line.startswith(MARKER):
                    return explain_unattempted(json.loads(line[len(MARKER) :]), nb.cells[:-1])
    raise RuntimeError(f"the grading cell gave no result: {grade.outputs}")


def explain_unattempted(rows, cells):
    """Say why an exercise was "not attempted" when the cell that calls its check raised."""
    from micrograd_lesson.exercises._core import EXERCISES

    raised = {}  # check name -> the first error of a cell that calls it
    for cell in cells:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        for check_name in re.findall(r"\b(check_\w+)\s*\(", cell.source) if errors else ():
            raised.setdefault(check_name, f"{errors[0].ename}: {errors[0].evalue}"[:200])
    for row in rows:
        check_fn = EXERCISES[row["exercise"]].check
        error = raised.get(getattr(check_fn, "__name__", ""))
        if row["hint"].startswith("not attempted") and error:
            row["hint"] = f"not attempted: the cell that calls {check_fn.__name__} raised {error}"
    return rows


def zero_rows(chapter, points, why):
    """0 points for every exercise of the chapter, and why."""
    names = exercise_names(chapter)
    return [{"exercise": n, "points": 0, "max_points": points.get(n, 1), "hint": why} for n in names]


def grade_notebook(path, points, cell_timeout, notebook_timeout):
    """Rows for one notebook; never raises: a failure gives every exercise 0 and says why."""
    chapter = "ch" + CHAPTER.match(path.name).group(1)
    cmd = [sys.executable, __file__, "--one", str(path), "--chapter", chapter]
    cmd += ["--cell-timeout", str(cell_timeout), "--points-json", json.dumps(points)]
    # A session of its own, so that on time-out the kernel it started is stopped with it.
    proc = subprocess.Popen(
        cmd, cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        stdout, stderr = proc.communicate(timeout=notebook_timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        why = f"the notebook did not finish within {notebook_timeout} s and was stopped"
    else:
        if proc.returncode == 0:
            return chapter, json.loads(stdout.strip().splitlines()[-1])
        last = (stderr.strip().splitlines() or ["no message"])[-1]
        why = f"the notebook could not be run: {last}"
    return chapter, zero_rows(chapter, points, why)


def grade_folder(submissions, points, cell_timeout=60, notebook_timeout=600):
    """All rows for all learners (sub-folders), sorted by learner, chapter, exercise."""
    rows = []
    for learner in sorted(p for p in Path(submissions).iterdir() if p.is_dir()):
        for path in sorted(learner.glob("*.ipynb")):
            if not CHAPTER.match(path.name):
                continue
            chapter, results = grade_notebook(path, points, cell_timeout, notebook_timeout)
            rows += [dict(learner=learner.name, chapter=chapter, **r) for r in results]
    return rows


def write_csv(rows, out):
    fields = ["learner", "chapter", "exercise", "points", "max_points", "hint"]
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows({k: row[k] for k in fields} for row in rows)


def summary(rows):
    """One line per learner: points out of the maximum, and how many exercises were right."""
    lines = []
    for learner in sorted({r["learner"] for r in rows}):
        mine = [r for r in rows if r["learner"] == learner]
        got, most = sum(r["points"] for r in mine), sum(r["max_points"] for r in mine)
        right = sum(r["points"] == r["max_points"] for r in mine)
        lines.append(f"{learner}: {got:g} / {most:g} points ({right} of {len(mine)} exercises correct)")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="?", help="folder with one sub-folder per learner")
    parser.add_argument("--out", default="grades.csv")
    parser.add_argument("--points", help="TOML file: exercise name = points (default 1 each)")
    parser.add_argument("--cell-timeout", type=int, default=60)
    parser.add_argument("--notebook-timeout", type=int, default=600)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one notebook
    parser.add_argument("--chapter", help=argparse.SUPPRESS)
    parser.add_argument("--points-json", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        results = run_one(args.one, args.chapter, json.loads(args.points_json), args.cell_timeout)
        print(json.dumps(results))
        return
    if not args.submissions or not Path(args.submissions).is_dir():
        parser.error(f"SUBMISSIONS must be a folder of learner folders, got {args.submissions!r}")
    points = {}
    if args.points:
        points = tomllib.loads(Path(args.points).read_text(encoding="utf-8"))
    rows = grade_folder(args.submissions, points, args.cell_timeout, args.notebook_timeout)
    write_csv(rows, args.out)
    print(summary(rows))
    print(f"grades written to {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
