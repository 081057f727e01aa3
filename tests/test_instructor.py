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
import shutil
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


@pytest.fixture(scope="session")
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


@pytest.mark.slow
def test_every_hidden_case_imports_beside_the_student_edition_as_the_grader_loads_it(edition, tmp_path):
    """What the grading cell does: instructor/hidden/ copied beside the student edition, nothing of this
    repository on the path; every chapter's module imports and registers its cases."""
    shutil.copytree(REPO / "instructor" / "hidden", tmp_path / "instructor" / "hidden")
    (tmp_path / "instructor" / "__init__.py").write_text("")
    chapters = sorted(p.stem for p in (REPO / "instructor" / "hidden").glob("ch[0-9][0-9].py"))
    references = {chapter: student.reference_source(chapter) for chapter in chapters}
    script = textwrap.dedent(
        f"""
        import importlib, json, sys
        sys.path[:] = [p for p in sys.path if p.rstrip("/") not in {[str(REPO), str(REPO.resolve())]!r}]
        import micrograd_lesson.exercises
        from micrograd_lesson.exercises._core import EXERCISES
        references = {references!r}
        for chapter in {chapters!r}:
            module = importlib.import_module("micrograd_lesson.exercises." + chapter)
            exec(references[chapter], vars(module))  # as the grading cell gives them back
            importlib.import_module("instructor.hidden." + chapter)
        print(json.dumps(sorted(n for n, e in EXERCISES.items() if e.hidden)))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(edition), str(tmp_path)]))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == sorted(n for n, e in EXERCISES.items() if e.hidden)


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


# ---- grading: the layout of a submissions folder (no kernel) ---------------------------------------

CHECK_LINE = re.compile(r"^(check_\w+)\((.*)\)\s*$")
CH07 = [n for n in EXERCISES if n.startswith(f"ch{GRADED_CHAPTER}.")]


def check_of(name):
    return EXERCISES[name].check.__name__


def small_notebook(*cells):
    """A notebook of the given code cells (what a learner could hand in, without the prose)."""
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(textwrap.dedent(c)) for c in cells])


def calls(chapter):
    """A small notebook that imports and calls every check of `chapter` ("ch07") with None."""
    names = [check_of(n) for n in EXERCISES if n.startswith(chapter + ".")]
    return small_notebook(
        f"from micrograd_lesson.exercises import {', '.join(names)}", *[f"{c}(None)" for c in names]
    )


def put(nb, folder, relative):
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture
def messy(tmp_path):
    """A submissions folder with every layout mistake of issue 23, beside one learner who is fine."""
    s = tmp_path / "submissions"
    put(calls("ch07"), s, "ada/07_neurons_layers_mlps.ipynb")
    put(calls("ch07"), s, "07_neurons_layers_mlps.ipynb")  # directly in the submissions folder
    put(calls("ch07"), s, "ben/work/07_neurons_layers_mlps.ipynb")  # one folder down: still ben's
    put(calls("ch07"), s, "cy/a/b/07_neurons_layers_mlps.ipynb")  # two folders down
    (s / "dee").mkdir()  # empty
    (s / "eve").mkdir()
    (s / "eve" / "07_answers.py").write_text("print(1)\n")  # no notebook at all
    original = put(calls("ch07"), s, "fay/07_x.ipynb")
    copy = put(calls("ch07"), s, "fay/07_x (1).ipynb")
    os.utime(copy, (original.stat().st_mtime + 60,) * 2)  # the copy is newer: the original still wins
    put(calls("ch07"), s, "fay/Copy of 07_x.ipynb")
    put(calls("ch07"), s, "gus/Copy of 07_x.ipynb")  # a copy, but gus's only notebook of chapter 7
    put(calls("ch09"), s, "hal/07_neurons_layers_mlps.ipynb")  # named for chapter 7, holds chapter 9
    (s / "ivy").mkdir()
    (s / "ivy" / "07_x.ipynb").write_text("{not json")
    (s / "notes.txt").write_text("not a learner")
    return s


def test_the_layout_report_names_every_learner_chapter_and_ignored_file(messy):
    layout = grade.scan(messy)
    found = {name: sorted(chapters) for name, chapters in layout.learners.items()}
    assert found == {
        "ada": ["ch07"],
        "ben": ["ch07"],
        "cy": [],
        "dee": [],
        "eve": [],
        "fay": ["ch07"],
        "gus": ["ch07"],
        "hal": ["ch09"],
        "ivy": [],
    }
    assert layout.learners["fay"]["ch07"].name == "07_x.ipynb"
    report = grade.layout_report(layout, messy)
    ignored = dict(layout.ignored)
    assert "directly in the submissions folder" in ignored["07_neurons_layers_mlps.ipynb"]
    assert "more than one folder down" in ignored["cy/a/b/07_neurons_layers_mlps.ipynb"]
    assert "not a notebook" in ignored["eve/07_answers.py"]
    for copy in ("fay/07_x (1).ipynb", "fay/Copy of 07_x.ipynb"):
        assert "a second notebook of chapter 07: only 07_x.ipynb is graded" in ignored[copy], ignored[copy]
    assert "not a readable notebook" in ignored["ivy/07_x.ipynb"]
    assert "not a learner's folder" in ignored["notes.txt"]
    for words in [
        "9 learner folder(s), 5 with something to grade",
        "work/07_neurons_layers_mlps.ipynb is one folder down: graded as ben's",
        "the folder is empty",
        "no notebook, only 1 other file(s)",
        "Copy of 07_x.ipynb is graded: a copy's name, the only notebook of chapter 07",
        "07_neurons_layers_mlps.ipynb is named for chapter 07 but holds chapter 09's checks",
        "chapter 07: handed in by 4 of 5, not by hal",
    ]:
        assert words in report, (words, report)
    assert all(rel in report for rel in ignored)


def test_a_notebook_of_another_chapter_is_graded_as_what_it_holds_and_its_name_gets_zero(messy):
    layout = grade.scan(messy)
    rows, _ = grade.grade_folder(messy, {}, layout=grade.Layout(learners={"hal": {}}, notes=layout.notes))
    assert {r["chapter"] for r in rows} == {"ch07"}  # no notebook runs: hal's own is set aside here
    assert all(r["points"] == 0 and "holds chapter 09's checks" in r["note"] for r in rows), rows
    assert not any("not attempted" in r["hint"] for r in rows)


def test_a_learner_or_chapter_can_be_graded_alone(messy):
    assert sorted(grade.scan(messy, only_learner="fay").learners) == ["fay"]
    assert grade.scan(messy, only_learner="fay").ignored == [
        (r, w) for r, w in grade.scan(messy).ignored if r.startswith("fay/")
    ]
    by_chapter = grade.scan(messy, only_chapter="ch09").learners
    assert {n: sorted(c) for n, c in by_chapter.items() if c} == {"hal": ["ch09"]}
    missing = grade.scan(messy, only_learner="fey")
    assert "no folder 'fey'" in missing.notes["fey"][0] and "did you mean 'fay'" in missing.notes["fey"][0]


def v3_notebook(*sources):
    """The same small notebook in nbformat 3 (cells inside a worksheet), as older Jupyter saved it."""
    v3 = nbformat.v3
    cells = [v3.new_code_cell(input=textwrap.dedent(c)) for c in sources]
    return nbformat.writes(v3.new_notebook(worksheets=[v3.new_worksheet(cells=cells)]), version=3)


def own_calls(learner):
    """calls("ch07") with a line of the learner's own, so that no two learners' files are the same."""
    nb = calls("ch07")
    nb.cells.append(nbformat.v4.new_code_cell(f"mine = {learner!r}"))
    return nb


CONTROL_NAMES = ["jo\nx.ipynb-like", "kim\x1b[2J\x1b]0;owned\x07", "lee\udcff\t"]  # \udcff: the byte 0xff


@pytest.fixture
def hostile(tmp_path):
    """Links, copies, an nbformat-3 notebook and folder names with control characters."""
    s, outside = tmp_path / "submissions", tmp_path / "outside"
    outside.mkdir()
    put(own_calls("outside"), outside, "07_x.ipynb")
    put(own_calls("ada"), s, "ada/07_x.ipynb")
    (s / "ben").mkdir()
    (s / "ben" / "07_x.ipynb").symlink_to(s / "ada" / "07_x.ipynb")  # a link to ada's notebook
    (s / "cy").mkdir()
    shutil.copyfile(s / "ada" / "07_x.ipynb", s / "cy" / "07_mine.ipynb")  # a byte-for-byte copy
    course = next((REPO / "notebooks").glob("07_*.ipynb"))
    for learner in ("dee", "eve"):  # both hand in the notebook as handed out: not "shared"
        (s / learner).mkdir()
        shutil.copyfile(course, s / learner / course.name)
    (s / "fay").mkdir()
    (s / "fay" / "07_x.ipynb").symlink_to(outside / "07_x.ipynb")  # a file outside the folder
    (s / "gus").mkdir()
    (s / "gus" / "07_x.ipynb").symlink_to(s / "gus" / "gone.ipynb")  # a link to nothing
    (s / "gus" / "07_y.ipynb").symlink_to(s / "gus" / "07_z.ipynb")  # a loop of links
    (s / "gus" / "07_z.ipynb").symlink_to(s / "gus" / "07_y.ipynb")
    (s / "hal").symlink_to(outside, target_is_directory=True)  # a learner folder that is elsewhere
    (s / "ivy").mkdir()
    (s / "ivy" / "07_x.ipynb").write_text(v3_notebook(*[c.source for c in own_calls("ivy").cells]))
    for name in CONTROL_NAMES:
        folder = s / name
        folder.mkdir()
        put(own_calls(name), folder, "07_x.ipynb")
        (folder / "notes\nand\x1bmore.txt").write_text("x")
    return s


def test_links_copies_and_old_notebooks_are_graded_and_sharing_is_flagged(hostile):
    layout = grade.scan(hostile)
    found = {name: sorted(chapters) for name, chapters in layout.learners.items()}
    for name in ("ada", "ben", "cy", "dee", "eve", "ivy", *CONTROL_NAMES):
        assert found[name] == ["ch07"], (name, found)
    assert found["fay"] == found["gus"] == [] and "hal" not in found
    notes = {name: " ".join(n) for name, n in layout.notes.items()}
    both = "ben/07_x.ipynb is a link to it; byte-for-byte the same as cy/07_mine.ipynb"
    assert f"shared with another learner ({both})" in notes["ada"], notes["ada"]
    assert "07_x.ipynb is shared with another learner (a link to ada/07_x.ipynb; " in notes["ben"], notes[
        "ben"
    ]
    assert (
        "07_mine.ipynb is shared with another learner (byte-for-byte the same as ada/07_x.ipynb"
        in notes["cy"]
    )
    assert "shared" not in notes["dee"] + notes["eve"] + notes["ivy"]  # untouched, or their own
    assert sorted(name for name, _ in layout.shared) == ["ada", "ben", "cy"]
    ignored = dict(layout.ignored)
    assert ignored["fay/07_x.ipynb"] == "a link to a file outside the submissions folder: not graded"
    for rel in ("gus/07_x.ipynb", "gus/07_y.ipynb", "gus/07_z.ipynb"):
        assert ignored[rel] == "a link to nothing (or a loop of links): not graded", ignored
    assert ignored["hal"] == "a link to a folder outside the submissions folder: not graded"
    report = grade.layout_report(layout, hostile)
    assert "shared notebooks: 3, handed in by ada, ben, cy" in report
    assert grade.read_notebook(layout.learners["ivy"]["ch07"]).nbformat == 4  # converted, as graded


def test_names_with_control_characters_are_escaped_in_the_report_csv_and_feedback(hostile, tmp_path):
    layout = grade.scan(hostile)
    report = grade.layout_report(layout, hostile)
    for text in (report,):
        assert not any(not c.isprintable() for c in text.replace("\n", "")), repr(text)
    lines = report.splitlines()
    assert (
        "  jo\\nx.ipynb-like: chapters 07" in lines
        and "  kim\\x1b[2J\\x1b]0;owned\\x07: chapters 07" in lines
    )
    assert "    lee\\udcff\\t/notes\\nand\\x1bmore.txt: not a notebook (.ipynb)" in lines, lines
    rows, results = grade.grade_folder(
        hostile, {}, layout=grade.Layout(learners={n: {} for n in CONTROL_NAMES}, notes=layout.notes)
    )
    grade.write_csv(rows, tmp_path / "grades.csv")
    raw = (tmp_path / "grades.csv").read_text(encoding="utf-8")
    assert len(raw.splitlines()) == 1 + len(CONTROL_NAMES) and "\x1b" not in raw and "\t" not in raw, raw
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as f:
        assert [r["learner"] for r in csv.DictReader(f)] == [
            grade.shown_name(n) for n in sorted(CONTROL_NAMES)
        ]
    for name in CONTROL_NAMES:
        text = grade.feedback(name, rows, results, layout)
        assert text.startswith(f"# Feedback for {grade.shown_name(name)}\n\n"), text
        assert not any(not c.isprintable() for c in text.replace("\n", "")), repr(text)
        assert "notes\\nand\\x1bmore.txt" in text


def grade_main(capsys, *args):
    """(exit status, everything printed) of the grader's command, run in this process."""
    try:
        status = grade.main([str(a) for a in args])
    except SystemExit as e:  # argparse's refusals
        status = e.code
    out = capsys.readouterr()
    return status, out.out + out.err


def run_grader(*args, cwd=None):
    done = subprocess.run(
        [sys.executable, str(REPO / "instructor" / "grade.py"), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(
    "make",
    [
        lambda s: put(calls("ch07"), s, "07_x.ipynb"),  # notebooks directly in the folder
        lambda s: put(calls("ch07"), s, "class/ada/sub/07_x.ipynb"),  # everything too deep
        lambda s: (s / "ada").mkdir() or (s / "ada" / "07.pdf").write_text("x"),  # no notebook
        lambda s: (s / "ada").mkdir(),  # an empty learner folder
        lambda s: None,  # an empty submissions folder
    ],
    ids=["notebooks-at-top", "too-deep", "no-notebook", "empty-learner", "empty"],
)
def test_nothing_to_grade_is_an_error_with_exit_status_2_and_says_why(tmp_path, make, capsys):
    s = tmp_path / "submissions"
    s.mkdir()
    make(s)
    status, out = grade_main(capsys, s, "--out", tmp_path / "out")
    assert status == 2, out
    assert "nothing to grade" in out and "Submissions in" in out, out
    assert not (tmp_path / "out").exists()


def test_grade_refuses_a_missing_folder_in_one_line(tmp_path):
    status, out = run_grader(tmp_path / "nope")
    assert status == 2 and "SUBMISSIONS must be a folder" in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--chapter", "99"], "--chapter '99': the chapters with exercises are 00, 01"),
        (["--out", "grades.csv"], "--out names a folder"),
        (["--cell-timeout", "0"], "--cell-timeout must be a number of seconds > 0"),
    ],
)
def test_grade_refuses_wrong_options_with_a_message(tmp_path, args, words, capsys):
    status, out = grade_main(capsys, tmp_path, *args)
    assert status == 2 and words in out, out


# ---- grading: POINTS --------------------------------------------------------------------------------


def points_file(tmp_path, text):
    path = tmp_path / "points.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_points_may_be_quoted_dotted_or_in_a_table(tmp_path):
    path = points_file(
        tmp_path,
        """\
        "ch05.softsign" = 2  # quoted
        ch07.widest_hidden = 1.5
        [ch09]
        bce_loss = 3
        """,
    )
    assert grade.read_points(path) == {"ch05.softsign": 2, "ch07.widest_hidden": 1.5, "ch09.bce_loss": 3}


@pytest.mark.parametrize(
    "text, words",
    [
        (
            '"ch05.softsign" = 2\n"ch05.softsig" = 3\n',
            ["line 2", "'ch05.softsig' is not an exercise", "did you mean 'ch05.softsign'"],
        ),
        ('"ch05.softsign" = 2\nch07.leaky = 1\n', ["line 2", "'ch07.leaky' is not an exercise"]),
        ('"ch05.softsign" = 2\n\n"ch07.leaky_neuron" = "3"\n', ["line 3", "must be a number", "'3'"]),
        ('"ch07.leaky_neuron" = true\n', ["line 1", "must be a number", "True"]),
        ('"ch07.leaky_neuron" = -1\n', ["line 1", "must be a number >= 0"]),
        ("[ch07]\nleaky_neuron = 1\nleaky = 2\n", ["line 3", "'ch07.leaky' is not an exercise"]),
        ('"ch07.leaky_neuron" = \n', ["not valid TOML", "line 1"]),
    ],
    ids=["misspelled", "unknown", "string", "bool", "negative", "table", "syntax"],
)
def test_a_points_mistake_is_an_error_that_names_the_line(tmp_path, text, words, capsys):
    path = points_file(tmp_path, text)
    with pytest.raises(grade.PointsError) as error:
        grade.read_points(path)
    assert all(w in str(error.value) for w in words), (words, str(error.value))
    (tmp_path / "s" / "ada").mkdir(parents=True)
    status, out = grade_main(capsys, tmp_path / "s", "--points", path, "--out", tmp_path / "out")
    assert status == 2 and words[0] in out and "POINTS" in out, out


def make_grade_command(*settings):
    """The grader's command line as `make grade` would run it (make -n: nothing runs)."""
    done = subprocess.run(["make", "-n", "grade", *settings], capture_output=True, text=True, cwd=REPO)
    text = " ".join(done.stdout.replace("\\\n", " ").split())
    return next(line for line in text.split(" .venv") if "instructor/grade.py" in line)


def test_make_grade_passes_its_settings_to_the_grader():
    line = make_grade_command(
        *["SUBMISSIONS=subs", "LEARNER=ada", "CHAPTER=07", "POINTS=p.toml", "CELL_TIMEOUT=9"],
        *["NOTEBOOK_TIMEOUT=99", "CHECK_TIMEOUT=7", "OUT=elsewhere", "REVEAL_CASES=1"],
    )
    assert "--reveal-cases" in line
    for words in ['"subs"', '--learner "ada"', '--chapter "07"', '--points "p.toml"', "--cell-timeout 9"]:
        assert words in line, (words, line)
    assert "--notebook-timeout 99" in line and "--check-timeout 7" in line and '--out "elsewhere"' in line
    line = make_grade_command("SUBMISSIONS=subs")
    assert "--learner" not in line and "--out" not in line  # the grader's own default: build/grades/
    assert "--reveal-cases" not in line


def test_grades_go_to_a_folder_that_git_ignores():
    assert grade.DEFAULT_OUT == REPO / "build" / "grades"
    paths = ["build/grades/grades.csv", "build/grades/feedback/ada.md"]
    done = subprocess.run(["git", "check-ignore", *paths], cwd=REPO, capture_output=True, text=True)
    assert done.stdout.split() == paths


# ---- grading: what feedback says of a notebook that ran (executed cells made here, no kernel) --------

RED, END = "\x1b[31m", "\x1b[39m"


def ran(source, count, error=None):
    """A code cell as a kernel leaves it: its execution count and, if it raised, the error output
    with IPython's coloured traceback (`error`: (ename, evalue, [frames])."""
    cell = nbformat.v4.new_code_cell(source, execution_count=count)
    if error:
        ename, evalue, frames = error
        head = [RED + "-" * 75 + END, f"{RED}{ename}{END}   Traceback (most recent call last)"]
        tail = [f"{RED}{ename}{END}: {evalue}"]
        cell.outputs = [
            nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=head + frames + tail)
        ]
    return cell


def learner_frame(count, line, code):
    return f"\x1b[36mCell In[{count}]{END}\x1b[32m, line {line}{END}\n\x1b[32m----> {line}{END} {code}\n"


LIBRARY_FRAME = (
    "File \x1b[32m/work/main/.venv/lib/python3.11/site-packages/numpy/_core/fromnumeric.py:57\x1b[39m, in "
    "_wrapfunc(obj, method)\n     55     return bound(*args, **kwds)\n---> 57 return secret_library_line\n"
)


def graded_cells():
    """An import, an empty cell (Jupyter gives it no number), a cell that raises inside NumPy, one
    that calls a check and raises first, a SyntaxError that names the kernel's internal file."""
    syntax = "invalid syntax (/tmp/ipykernel_77/3670945952.py, line 1)"
    return [
        ran("from micrograd_lesson.exercises import check_widest_hidden", 1),
        nbformat.v4.new_code_cell(""),
        ran(
            "import numpy as np\nnp.sum(object())",
            2,
            ("TypeError", "bad operand", [learner_frame(2, 2, "np.sum(object())"), LIBRARY_FRAME]),
        ),
        ran(
            "def widest_hidden(nin, budget):\n    return nin + 'x'\n"
            "widest_hidden(1, 2)\ncheck_widest_hidden(widest_hidden)",
            3,
            ("TypeError", "unsupported operand", [learner_frame(3, 3, "widest_hidden(1, 2)")]),
        ),
        ran("def f(:\n    pass", 4, ("SyntaxError", syntax, [])),
    ]


def test_feedback_names_cells_as_jupyter_numbers_them_and_quotes_only_the_learners_traceback():
    cells = graded_cells()
    cutoffs = [
        grade.cutoff(2, "raised", "code cell 3 ('import numpy as np')", "raised TypeError: bad operand"),
        grade.cutoff(
            3, "raised", "code cell 4 ('def widest_hidden')", "raised TypeError: unsupported operand"
        ),
        grade.cutoff(4, "raised", "code cell 5 ('def f(:')", "raised SyntaxError: invalid syntax"),
    ]
    rows = [
        dict(
            exercise=n,
            check=check_of(n),
            points=0,
            max_points=1,
            hint="not attempted: its check was never called",
        )
        for n in CH07[:2]
    ]
    rows = grade.explain_unattempted(rows, cells, cutoffs)
    whats = [c["what"] for c in cutoffs]
    assert whats[0] == "cell [2] ('import numpy as np') raised TypeError: bad operand", whats
    assert whats[1].startswith("cell [3] ('def widest_hidden(nin, budget):') raised TypeError"), whats
    assert whats[2] == "cell [4] ('def f(:') raised SyntaxError: invalid syntax (cell [4], line 1)", whats
    trace = cutoffs[0]["trace"]
    assert "Cell In[2], line 2" in trace and "np.sum(object())" in trace and "TypeError: bad operand" in trace
    assert "secret_library_line" not in trace and "site-packages" not in trace and "\x1b" not in trace
    hint = rows[0]["hint"]  # the cell that calls the check raised: said so, not "not attempted"
    assert hint.startswith("the cell that calls check_widest_hidden (cell [3]) raised TypeError"), hint
    assert "not attempted" in rows[1]["hint"]  # its check's cell is not in this notebook at all
    text = grade.feedback(
        "ada",
        [dict(r, learner="ada", chapter="ch07", notebook="07_x.ipynb", note="") for r in rows],
        {("ada", "ch07"): dict(notebook="07_x.ipynb", cutoffs=cutoffs)},
        grade.Layout(),
    )
    assert "Cell In[2], line 2" in text and "secret_library_line" not in text
    assert not re.search(r"\d{5,}\.py|ipykernel_", text), text


def test_an_untouched_stub_says_so_and_a_changed_one_does_not():
    nb = nbformat.read(next((REPO / "notebooks").glob(f"{GRADED_CHAPTER}_*.ipynb")), as_version=4)
    stubs = exercise_cells(nb)
    for name in CH07:
        cell = nb.cells[stubs[name]]
        for source, untouched in [
            (cell.source, True),
            (cell.source + "\n", True),
            (cell.source + "\n1", False),
        ]:
            row = dict(exercise=name, check=check_of(name), points=0, max_points=1, hint="not yet: no")
            (row,) = grade.explain_unattempted([row], [ran(source, 5)], [])
            assert ("you have not changed the stub" in row["hint"]) is untouched, (name, row)
        right = dict(exercise=name, check=check_of(name), points=1, max_points=1, hint="correct")
        assert grade.explain_unattempted([right], [ran(cell.source, 5)], [])[0]["hint"] == "correct"


# ---- grading: what runs where (small notebooks, real kernels) ----------------------------------------


def solution_cells(names=CH07):
    """Code cells that define each worked solution (from the full package) and pass it to its check."""
    cells = [
        "import random\nfrom micrograd_lesson import nn\nfrom micrograd_lesson.engine import Value\n"
        "from micrograd_lesson.nn import MLP, Module"
    ]
    for name in names:
        code, answer = solution_code(name)
        cells.append(
            f"from micrograd_lesson.exercises import {check_of(name)}\n{code}\n{check_of(name)}({answer})"
        )
    return cells


def solution_code(name):
    fn = EXERCISES[name].solution
    code = textwrap.dedent(inspect.getsource(fn))
    return "\n".join(line for line in code.splitlines() if not line.startswith("@")), fn.__name__


CHEATS = {
    # Issue 23's first cheat: hand the check the worked solution from the package's registry.
    "cheat-solution": [
        "from micrograd_lesson.exercises._core import EXERCISES\nimport micrograd_lesson.exercises as ex",
        *[f"ex.{check_of(n)}(EXERCISES[{n!r}].solution)" for n in CH07],
    ],
    # Issue 23's second cheat: replace the grader's grading function (first by import, then by a
    # module planted under its name).
    "cheat-grader": [
        "import instructor.grade\ninstructor.grade.grade_chapter = lambda chapter, points=None: []",
        "import micrograd_lesson.exercises as ex\n" + "\n".join(f"ex.{check_of(n)}(None)" for n in CH07),
        f"""
        import sys, types
        full = lambda chapter, points=None: [
            dict(exercise=n, points=1, max_points=1, hint="correct") for n in {CH07!r}]
        fake = types.ModuleType("instructor.grade")
        fake.grade_chapter, fake.load_hidden = full, lambda chapter: None
        sys.modules["instructor"], sys.modules["instructor.grade"] = types.ModuleType("instructor"), fake
        """,
    ],
    # Patch the checks themselves in the learner's kernel: the grader imports them afresh.
    "cheat-patch": [
        """
        import micrograd_lesson.exercises as ex
        from micrograd_lesson.exercises import _core
        for e in _core.EXERCISES.values():
            e.check = lambda answer, record=True: _core.Verdict(True)
        _core.Verdict.__bool__ = lambda self: True
        """,
        *[f"_core.EXERCISES[{n!r}].check(None)\nex.{check_of(n)}(None)" for n in CH07],
    ],
}

# Run in the grading kernel: an assertion that fails shows up as a cut-off in this learner's notes.
PEEK = f"""
import os, sys
from pathlib import Path
import micrograd_lesson
from micrograd_lesson.exercises._core import EXERCISES
here = Path(micrograd_lesson.__file__).resolve()
assert not here.is_relative_to({str(REPO.resolve())!r}), here
assert {str(REPO)!r} not in sys.path and {str(REPO.resolve())!r} not in sys.path, sys.path
assert os.listdir(".") == [], os.listdir(".")
assert not Path.cwd().resolve().is_relative_to({str(REPO.resolve())!r}), Path.cwd()
assert all(e.solution is None and not e.hidden for e in EXERCISES.values())
assert not list(Path("..").resolve().rglob("hidden")), list(Path("..").resolve().rglob("hidden"))
for name in ("instructor", "instructor.grade", "instructor.hidden.ch07", "notebooks.chapters"):
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        raise AssertionError(name + " can be imported")
"""


@pytest.fixture(scope="module")
def small_class(edition, tmp_path_factory):
    """Small notebooks of chapter 7 (no prose, no experiments), graded once: (rows, results, folder)."""
    s = tmp_path_factory.mktemp("small")
    put(small_notebook(*solution_cells()), s, "solved/07_x.ipynb")
    for learner, cells in CHEATS.items():
        put(small_notebook(*cells), s, f"{learner}/07_x.ipynb")
    put(small_notebook(PEEK, *solution_cells()), s, "peek/07_x.ipynb")
    spin = solution_cells()  # the second exercise's cell spins until the cell time limit interrupts it
    spin[2] = spin[2].replace(f"{check_of(CH07[1])}(", "while True:\n    pass\n" + f"{check_of(CH07[1])}(")
    put(small_notebook(*spin), s, "spin/07_x.ipynb")
    layout = grade.scan(s)
    assert not layout.ignored and all(found for found in layout.learners.values())
    limits = grade.default_limits(cell=20, notebook=120, check=20)
    rows, results = grade.grade_folder(s, {CH07[-1]: 3}, limits, layout)
    return rows, results, s


def worked_solutions_score_in_the_student_edition_kernel(small_class):
    rows, results, _ = small_class
    mine = rows_of(rows, "solved")
    assert sorted(mine) == sorted(CH07)
    assert all(
        r["points"] == r["max_points"] and r["hint"] == "correct" and not r["note"] for r in mine.values()
    )
    assert mine[CH07[-1]]["max_points"] == 3  # points set per exercise
    assert results["solved", "ch07"]["cutoffs"] == []


def the_grading_kernel_sees_the_student_edition_and_nothing_of_the_repository(small_class):
    rows, _, _ = small_class
    mine = rows_of(rows, "peek")
    assert all(r["points"] == r["max_points"] and not r["note"] for r in mine.values()), mine


def the_cheats_of_issue_23_score_nothing(small_class, learner):
    rows, _, _ = small_class
    mine = rows_of(rows, learner)
    assert sorted(mine) == sorted(CH07)
    assert all(r["points"] == 0 for r in mine.values()), mine
    if learner == "cheat-grader":  # the real grader cannot be imported in the kernel
        assert "raised ModuleNotFoundError: No module named 'instructor'" in mine[CH07[0]]["note"], mine


def an_interrupted_cell_is_recorded_in_the_rows_and_the_feedback_and_the_rest_is_graded(small_class):
    rows, results, s = small_class
    mine = rows_of(rows, "spin")
    stopped = mine[CH07[1]]
    assert stopped["points"] == 0
    assert (
        "the cell that calls" in stopped["hint"]
        and "interrupted after 20 s (the cell time limit)" in stopped["hint"]
    )
    assert stopped["note"].startswith("this exercise's cell: cell [3] ('from micrograd_lesson.exercises")
    for other in (CH07[0], CH07[2]):
        assert mine[other]["points"] == mine[other]["max_points"], mine
        assert "cell [3]" in mine[other]["note"] and "interrupted" in mine[other]["note"]
    text = grade.feedback("spin", rows, results, grade.scan(s))
    assert "What stopped:" in text and "cell [3] (" in text and "interrupted after 20 s" in text
    for name in CH07:
        assert (
            f"**{name}**: {mine[name]['points']:g} / {mine[name]['max_points']:g}. {mine[name]['hint']}"
            in text
        )


def the_command_writes_grades_csv_and_a_feedback_file_per_learner(small_class, tmp_path):
    folder, points = small_class[2], tmp_path / "points.toml"
    points.write_text(f'"{CH07[-1]}" = 3\n')
    status, out = run_grader(folder, "--out", tmp_path / "out", "--learner", "solved", "--points", points)
    assert status == 0, out
    assert "solved: chapters 07" in out and "solved: 5 / 5 points" in out, out
    with open(tmp_path / "out" / "grades-solved.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == [
        "learner",
        "chapter",
        "notebook",
        "exercise",
        "points",
        "max_points",
        "hint",
        "note",
    ]
    assert [(r["learner"], r["exercise"], r["points"], r["note"]) for r in table] == [
        ("solved", CH07[0], "1", ""),
        ("solved", CH07[1], "1", ""),
        ("solved", CH07[2], "3", ""),
    ]
    text = (tmp_path / "out" / "feedback" / "solved.md").read_text(encoding="utf-8")
    assert "# Feedback for solved" in text and "5 / 5 points" in text and "Every cell ran to its end" in text


@pytest.mark.slow
def test_small_notebooks_graded_against_the_student_edition(small_class, tmp_path):
    """One test for the class above (a fixture built once per test process): each part says what it checks."""
    worked_solutions_score_in_the_student_edition_kernel(small_class)
    the_grading_kernel_sees_the_student_edition_and_nothing_of_the_repository(small_class)
    for learner in sorted(CHEATS):
        the_cheats_of_issue_23_score_nothing(small_class, learner)
    an_interrupted_cell_is_recorded_in_the_rows_and_the_feedback_and_the_rest_is_graded(small_class)
    the_command_writes_grades_csv_and_a_feedback_file_per_learner(small_class, tmp_path)


@pytest.mark.slow
def test_a_notebook_past_its_time_limit_is_graded_on_the_cells_that_ran(edition, tmp_path):
    """The first exercise runs within the first seconds; a sleep runs into the notebook's 40 s limit
    (it waits, so a loaded machine only makes the first part slower, and it costs no CPU)."""
    cells = solution_cells()
    nb = small_notebook(*cells[:2], "import time\ntime.sleep(120)", *cells[2:])
    path = put(nb, tmp_path, "slow/07_x.ipynb")
    limits = grade.default_limits(cell=300, notebook=40, check=20)
    result = grade.grade_notebook(path, "ch07", {}, limits, edition)
    rows = {r["exercise"]: r for r in result["rows"]}
    assert rows[CH07[0]]["points"] == 1, rows  # it ran before the limit
    assert rows[CH07[1]]["points"] == rows[CH07[2]]["points"] == 0
    whats = [c["what"] for c in result["cutoffs"]]
    assert whats[0].startswith("cell [3] ('import time') was interrupted after"), whats
    assert whats[0].endswith("s (the notebook time limit)"), whats
    assert whats[1] == (
        f"code cell 4 ({grade.first_line(cells[2])!r}) and the cells after it were not run:"
        " the notebook reached its 40 s time limit"
    )
    skipped = "calls check_leaky_neuron was not run: the notebook reached its 40 s time limit"
    assert (
        skipped in rows[CH07[1]]["hint"]
        and skipped.replace("leaky_neuron", "count_loss_nodes") in rows[CH07[2]]["hint"]
    )
    assert "notebook reached its 40 s time limit" in rows[CH07[0]]["note"]


@pytest.mark.slow
def test_a_cell_that_ignores_the_interrupt_or_ends_its_kernel_is_recorded(edition, tmp_path):
    stubborn = (
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.1)"
    )
    limits = grade.default_limits(cell=5, notebook=60, check=20)
    for cell, words in [
        (stubborn, "ignored the interrupt"),
        ("import os\nos._exit(3)", "stopped its kernel"),
    ]:
        path = put(small_notebook(*solution_cells()[:2], cell), tmp_path, f"x/{len(words)}/07_x.ipynb")
        result = grade.grade_notebook(path, "ch07", {}, limits, edition)
        assert len(result["rows"]) == len(CH07) and all(r["points"] == 0 for r in result["rows"])
        assert all(f"code cell 3 {words}" in r["note"] for r in result["rows"]), result["rows"]
        assert all("the notebook could not be graded" in r["note"] for r in result["rows"])


# ---- grading: the real chapter-7 notebook ---------------------------------------------------------


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
            ["hidden case", "a neuron of five inputs", "your code gave Value(data="],
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
    """Grade a class of fabricated learners on the real chapter-7 notebook once: (rows, results,
    folder, exercise names, the expected mistakes)."""
    folder = tmp_path_factory.mktemp("submissions")
    path = chapter_notebook(edition)
    untouched = nbformat.read(path, as_version=4)
    names = list(exercise_cells(untouched))
    assert names == CH07, names

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
    rows, results = grade.grade_folder(folder, {names[-1]: 3})
    return rows, results, folder, names, expected


def worked_solutions_filled_in_get_full_marks(graded):
    rows, results, _, names, _ = graded
    mine = rows_of(rows, "perfect")
    assert sorted(mine) == sorted(names)
    assert all(r["points"] == r["max_points"] and r["hint"] == "correct" for r in mine.values()), mine
    assert mine[names[-1]]["max_points"] == 3  # points set per exercise
    assert results["perfect", "ch07"]["cutoffs"] == [] and not any(r["note"] for r in mine.values())


def untouched_student_notebooks_get_zero(graded):
    rows, _, _, names, _ = graded
    mine = rows_of(rows, "untouched")
    assert sorted(mine) == sorted(names)
    assert all(
        r["points"] == 0 and r["hint"].startswith("you have not changed the stub") for r in mine.values()
    )


def each_plausible_mistake_loses_exactly_its_exercise_and_the_hint_names_it(graded):
    rows, _, _, names, expected = graded
    assert expected, "no mistakes to grade"
    for learner, (wrong, words) in expected.items():
        mine = rows_of(rows, learner)
        for name in names:
            if name == wrong:
                assert mine[name]["points"] == 0, (learner, mine[name])
                assert all(w in mine[name]["hint"] for w in words), (learner, words, mine[name]["hint"])
            else:
                assert mine[name]["points"] == mine[name]["max_points"], (learner, mine[name])


def a_cell_that_raises_is_in_the_note_and_the_cells_below_still_ran(graded):
    rows, results, folder, names, _ = graded
    crashed = rows_of(rows, "crashes")  # the first cell raised before its imports: the cells below still ran
    assert sorted(crashed) == sorted(names)
    first = "cell [1] ('raise RuntimeError(\"my first cell breaks\")') raised RuntimeError: "
    first += "my first cell breaks"
    assert all(first in r["note"] for r in crashed.values()), crashed
    assert all(r["note"].endswith("more (see the feedback file)") for r in crashed.values()), crashed
    assert (
        len(results["crashes", "ch07"]["cutoffs"]) > 1
    )  # cells below it ran, and failed without the imports
    text = grade.feedback("crashes", rows, results, grade.scan(folder))
    assert "What stopped:\n\n- " + first in text, text


def an_exercise_whose_cell_raised_is_graded_with_the_error_it_raised(graded):
    rows, _, _, names, _ = graded
    mine = rows_of(rows, "typo")
    hint = mine[names[0]]["hint"]
    assert mine[names[0]]["points"] == 0
    assert "raised NameError" in hint and "undefined_helper" in hint, hint
    assert mine[names[0]]["note"].startswith("this exercise's cell: cell [")
    assert all(mine[n]["points"] == mine[n]["max_points"] for n in names[1:]), mine
    untouched = rows_of(rows, "untouched")  # no cell raised there: the plain hint stays
    assert all("raised" not in r["hint"] for r in untouched.values()), untouched


@pytest.mark.slow
def test_the_chapter_7_notebook_graded_for_a_class(graded):
    """One test for the class above (a fixture built once per test process): each part says what it checks."""
    worked_solutions_filled_in_get_full_marks(graded)
    untouched_student_notebooks_get_zero(graded)
    each_plausible_mistake_loses_exactly_its_exercise_and_the_hint_names_it(graded)
    a_cell_that_raises_is_in_the_note_and_the_cells_below_still_ran(graded)
    an_exercise_whose_cell_raised_is_graded_with_the_error_it_raised(graded)


@pytest.mark.slow
def test_the_instructor_may_reveal_a_failed_hidden_cases_input_and_answer(edition, tmp_path):
    """With --reveal-cases the hint of a failed hidden case gives its input and the expected value
    (the class above checks that without it, it gives only the kind of case and what the code gave)."""
    code, answer, _ = MISTAKES["ch07.leaky_neuron"][2]  # passes the check, fails a hidden case
    cells = solution_cells()
    cells[2] = cells[2].replace(solution_code("ch07.leaky_neuron")[0], textwrap.dedent(code))
    cells[2] = cells[2].replace(f"({solution_code('ch07.leaky_neuron')[1]})", f"({answer})")
    path = put(small_notebook(*cells), tmp_path, "ada/07_x.ipynb")
    limits = dict(grade.default_limits(cell=60, notebook=120, check=20), reveal=True)
    rows = {r["exercise"]: r for r in grade.grade_notebook(path, "ch07", {}, limits, edition)["rows"]}
    assert rows["ch07.leaky_neuron"]["points"] == 0
    assert (
        "LeakyNeuron(5) on [" in rows["ch07.leaky_neuron"]["hint"]
        and "should give" in rows["ch07.leaky_neuron"]["hint"]
    )
    assert rows["ch07.widest_hidden"]["points"] == rows["ch07.count_loss_nodes"]["points"] == 1, rows


@pytest.mark.slow
def test_an_old_notebook_and_a_link_to_it_are_graded_and_flagged_under_a_hostile_name(tmp_path):
    """The command end to end: a learner whose folder name holds a newline and a terminal escape hands
    in a solved nbformat-3 notebook; another's is a link to it. Both score, both are flagged."""
    s, name = tmp_path / "submissions", "ada\x1b]0;owned\x07\nx"
    (s / name).mkdir(parents=True)
    (s / name / "07_x.ipynb").write_text(v3_notebook(*solution_cells()[:2]), encoding="utf-8")  # 1 of 3
    (s / "ben").mkdir()
    (s / "ben" / "07_x.ipynb").symlink_to(s / name / "07_x.ipynb")
    status, out = run_grader(s, "--out", tmp_path / "out", "--cell-timeout", 60, "--check-timeout", 20)
    assert status == 1, out  # graded, with a layout warning: the shared notebook
    assert "\x1b" not in out and "ada\\x1b]0;owned\\x07\\nx: 1 / 3 points" in out, out
    assert "ben: 1 / 3 points" in out and "shared notebooks: 2, handed in by ada" in out, out
    with open(tmp_path / "out" / "grades.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    points = [(r["learner"], r["exercise"], r["points"]) for r in table if r["points"] != "0"]
    assert points == [(grade.shown_name(name), CH07[0], "1"), ("ben", CH07[0], "1")], table
    feedback = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out" / "feedback").iterdir()}
    assert sorted(feedback) == sorted([grade.shown_name(name) + ".md", "ben.md"])
    assert "is shared with another learner (a link to" in feedback["ben.md"]
    assert (
        "is shared with another learner (ben/07_x.ipynb is a link to it)"
        in feedback[grade.shown_name(name) + ".md"]
    )


def test_the_grader_reads_a_result_only_from_a_small_regular_file_never_through_a_link(tmp_path):
    """The result and key files lie in a folder the learner's kernel can write: a link, a pipe or a
    huge file put there is refused at once (no waiting on a pipe, no reading /dev/zero)."""
    good = tmp_path / "result.json"
    good.write_bytes(b"{}")
    assert grade.read_regular(good) == b"{}"
    (tmp_path / "to-zero").symlink_to("/dev/zero")
    (tmp_path / "to-good").symlink_to(good)
    os.mkfifo(tmp_path / "pipe")
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(grade.RESULT_BYTES + 1)
    for bad in ("to-zero", "to-good"):
        with pytest.raises(OSError):
            grade.read_regular(tmp_path / bad)
    for bad in ("pipe", "big"):
        with pytest.raises(ValueError, match="regular file"):
            grade.read_regular(tmp_path / bad)
    assert grade.read_signed(tmp_path / "pipe", b"k", "n") == "an unreadable result file (ValueError)"


def test_the_grader_writes_a_key_only_into_a_new_file_of_its_own(tmp_path):
    target = tmp_path / "outside"
    target.write_text("the instructor's file")
    (tmp_path / "key").symlink_to(target)  # put there by the learner before the key is written
    with pytest.raises(FileExistsError):
        grade.write_new(tmp_path / "key", b"secret", None)
    assert target.read_text() == "the instructor's file"
    grade.write_new(tmp_path / "fresh", b"secret", None)
    assert (tmp_path / "fresh").read_bytes() == b"secret" and oct((tmp_path / "fresh").stat().st_mode)[
        -3:
    ] == "600"


def test_removing_a_working_folder_never_follows_a_link_the_learner_left(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("kept")
    work = tmp_path / "work"
    (work / "deep").mkdir(parents=True)
    (work / "deep" / "out").symlink_to(outside)
    (work / "usr").symlink_to("/usr")
    grade.remove_tree(work)
    assert not work.exists() and (outside / "keep.txt").read_text() == "kept"


def test_a_run_stopped_at_the_hard_limit_scores_nothing_and_is_flagged(edition, tmp_path, monkeypatch):
    """The hard limit is past every other limit: a run that reaches it got past them (here, made to
    reach it by a hard limit of 1 s: the kernel is still starting), which the instructor is told of."""
    monkeypatch.setattr(grade, "hard_limit", lambda limits: 1)
    path = put(small_notebook(*solution_cells()), tmp_path, "late/07_x.ipynb")
    result = grade.grade_notebook(
        path, "ch07", {}, grade.default_limits(cell=60, notebook=120, check=20), edition
    )
    assert all(r["points"] == 0 for r in result["rows"]), result["rows"]
    assert all("did not finish within 1 s and was stopped" in r["note"] for r in result["rows"])
    assert result["signs"] and "past the cell, notebook and grading time limits" in result["signs"][0]
