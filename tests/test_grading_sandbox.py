"""`make grade` against a hostile class: every notebook in a sandbox of its own, results on a
channel the learner cannot write, forgery flagged, and the same grades whatever JOBS is.

Small chapter-7 notebooks (no prose), each written as a determined learner would: poison the
student edition for the next learner, leave processes running, redefine `print`, rewrite the
grading cell with an IPython input transformer, forge the result file, rewrite grades.csv
after grading, read the answer keys, reach the network, overwrite another learner's
notebook. Beside them, learners who do nothing wrong. The class is graded once, by the command
(`--jobs 3`), in a temporary folder of its own (TMPDIR), so what it leaves behind can be seen.
"""

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import nbformat
import psutil
import pytest

from micrograd_lesson.exercises._core import EXERCISES

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from instructor import grade, sandbox  # noqa: E402

CH07 = [n for n in EXERCISES if n.startswith("ch07.")]
CHECKS = [EXERCISES[n].check.__name__ for n in CH07]

pytestmark = pytest.mark.skipif(sandbox.problem() is not None, reason=f"no sandbox: {sandbox.problem()}")


def notebook(*cells):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(textwrap.dedent(c)) for c in cells])


def put(nb, folder, relative):
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def solved_cells():
    from test_instructor import solution_cells

    return solution_cells()


UNTOUCHED = [f"from micrograd_lesson.exercises import {', '.join(CHECKS)}", *[f"{c}(None)" for c in CHECKS]]

# Every hostile cell ends by asserting what it could not do: an assertion that fails shows in its
# author's note ("raised AssertionError"), so a row with no note means every attempt failed.
POISON = """
import os, micrograd_lesson
written = []
roots = {os.path.dirname(micrograd_lesson.__file__), "/tmp", "/proc"}
for pid in (p for p in os.listdir("/proc") if p.isdigit()):  # the grader's command line names the edition
    try:
        roots.update(a for a in open(f"/proc/{pid}/cmdline").read().split("\\0") if a.startswith("/"))
    except OSError:
        pass
for root in roots:
    for folder, dirs, files in os.walk(root):
        if folder.startswith(SKIP):  # read-only by any account: not worth a cell's time here
            dirs[:] = []
            continue
        for name in files:
            if name == "_core.py":
                path = os.path.join(folder, name)
                try:
                    with open(path, "a") as f:
                        f.write("\\nVerdict.__bool__ = lambda self: True\\n")
                    written.append(path)
                except OSError:
                    pass
assert written == [], written
"""

STALL = """
import os, subprocess, sys, time
subprocess.Popen(["sleep", "infinity"], start_new_session=True)
if os.fork() == 0:  # a process of its own session, holding every descriptor the kernel has
    os.setsid()
    while True:
        time.sleep(1)
try:
    hog = bytearray(8 * 2**30)  # more memory than a notebook may have
except MemoryError:
    pass
else:
    raise AssertionError("8 GiB allocated")
"""

FAKE_PRINT = """
import builtins, json
fake = json.dumps(dict(rows=[dict(exercise=n, points=1, max_points=1, hint="correct") for n in NAMES]))
def print(*args, **kwargs):
    builtins.__dict__["_real_print"](fake)
builtins._real_print, builtins.print = builtins.print, print
print("@@grades@@" + fake)
"""

TRANSFORMER = """
import json, re
def forge(lines):  # rewrite the grading cell: write a result file of full marks instead
    text = "".join(lines)
    if "audit(" not in text:
        return lines
    found = re.search(r'"result": "([^"]+)"', text)
    if not found:
        return ["pass\\n"]
    rows = [dict(exercise=n, check="", points=1, max_points=1, hint="correct") for n in NAMES]
    payload = json.dumps(dict(nonce=re.search(r'"nonce": "(\\w+)"', text).group(1), signs=[], rows=rows))
    forged = json.dumps(dict(payload=payload, signature="0" * 64))
    return [f"open({found.group(1)!r}, 'w').write({forged!r})\\n"]
get_ipython().input_transformers_cleanup.append(forge)
"""

AFTER_THE_FACT = """
import glob, json, os, sys, time
if os.fork() == 0:  # rewrite the result file, and shout a fake result, after the notebook ends
    os.setsid()
    rows = [dict(exercise=n, check="", points=1, max_points=1, hint="correct") for n in NAMES]
    fake = json.dumps(dict(payload=json.dumps(dict(rows=rows, signs=[])), signature="0" * 64))
    for _ in range(600):
        for path in glob.glob(os.path.expanduser("~/result-*.json")):
            open(path, "w").write(fake)
        for fd in (1, 2):
            try:
                os.write(fd, (json.dumps(dict(rows=rows, cutoffs=[])) + "\\n").encode())
            except OSError:
                pass
        time.sleep(0.05)
    os._exit(0)
"""

REWRITE_GRADES = """
import os, time
if os.fork() == 0:  # after grading, rewrite every grades.csv and feedback file it can find
    os.setsid()
    for _ in range(300):
        for folder, dirs, files in os.walk("/"):
            if folder.startswith(SKIP):
                dirs[:] = []
                continue
            for name in files:
                if name.startswith("grades") and name.endswith(".csv") or name.endswith(".md"):
                    try:
                        open(os.path.join(folder, name), "w").write("forged")
                    except OSError:
                        pass
        time.sleep(0.1)
    os._exit(0)
"""

SNOOP = """
import os, socket, subprocess, sys
seen = []
for folder, dirs, files in os.walk("/"):
    if folder.startswith(SKIP):
        dirs[:] = []
        continue
    for name in dirs + files:
        if name in ("instructor", "hidden", "grade.py", "grades.csv", "kernel_guard.py", "solutions"):
            seen.append(os.path.join(folder, name))
        if name.endswith((".ipynb", ".csv")):
            seen.append(os.path.join(folder, name))
assert not os.path.exists(REPO + "/micrograd_lesson"), "the repository"
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    if "grade.py" in open(f"/proc/{pid}/cmdline").read():
        seen.append("the grader's process")
for host in [("1.1.1.1", 80), ("127.0.0.1", 22), ("::1", 8888)]:
    try:
        socket.create_connection(host, timeout=3).close()
        seen.append(f"connected to {host}")
    except OSError:
        pass
pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--retries", "0", "--timeout", "3"]
pip = subprocess.run(pip + ["-d", "pip-got", "micrograd==0.1.0"], capture_output=True, text=True)
if pip.returncode == 0:
    seen.append("pip download worked")
assert seen == [], seen
"""

OVERWRITE = """
import os
for folder, dirs, files in os.walk("/"):
    if folder.startswith(SKIP):
        dirs[:] = []
        continue
    for name in files:
        if name.endswith(".ipynb"):
            try:
                open(os.path.join(folder, name), "w").write("{}")
            except OSError:
                pass
"""


LINKS = """
import os
os.symlink("/usr", "usr-link")  # links in the working folder, which the grader removes afterwards
os.symlink("/", "root-link")
os.symlink("usr-link", "link-to-a-link")
"""

FAKE_MATH = """
import math, sys, types
math.isclose = lambda *args, **kwargs: True  # every comparison a check makes would agree
fake = types.ModuleType("math")
fake.__dict__.update(vars(math))
sys.modules["math"] = fake
"""

STACK_WALK = """
import sys
def widest_hidden(nin, budget):  # no formula: read what the checks expect off their frames
    frame = sys._getframe(1)
    while frame is not None:
        seen = frame.f_locals
        if type(seen.get("want")) is int:
            return seen["want"]
        if type(seen.get("want")) is list and (nin, budget) in seen.get("cases", ()):
            return seen["want"][list(seen["cases"]).index((nin, budget))]
        frame = frame.f_back
    return 0
from micrograd_lesson.exercises import check_widest_hidden
check_widest_hidden(widest_hidden)
"""

FILL_DISK = """
import os
chunk = b"x" * 2**20
for where, limit in [(".", 256), ("/tmp", 64)]:  # in memory, and size-limited: a full disk there
    try:
        with open(os.path.join(where, "filler"), "wb") as f:
            for _ in range(limit + 8):
                f.write(chunk)
        raise AssertionError(f"wrote {limit + 8} MB into {where}")
    except OSError:
        os.remove(os.path.join(where, "filler"))
for where in ("/", "/dev", "/dev/shm"):  # in memory with no size limit: not writable at all
    try:
        open(os.path.join(where, "filler"), "wb").close()
        raise AssertionError(f"wrote a file into {where}")
    except OSError:
        pass
for i in range(400):  # the home folder is on the grader's disk: the grader stops this
    with open(os.path.expanduser(f"~/filler-{i}"), "wb") as f:
        f.write(chunk)
"""

# Four more ways to the checks' frames, each tried while the answer is checked: a frame from a
# traceback's referents, a profile function (handed every frame), code compiled under a library's
# file name (the guard skips library frames when it looks for whose code took a frame), and
# Python's C API through ctypes (which raises no frame event).
STACK_TRICKS = """
import gc, sys
CHECKED = {(2, 337), (2, 336), (3, 41), (2, 7), (5, 3), (10, 5000), (784, 100000), (3, 60), (2, 140)}
def formula(nin, budget):
    h = 0
    while (h + 1) ** 2 + (nin + 3) * (h + 1) + 1 <= budget:
        h += 1
    return h
def expected(frame):  # the hidden case's expected value, off its frame
    while frame is not None and type(frame.f_locals.get("want")) is not int:
        frame = frame.f_back
    return frame.f_locals["want"] if frame is not None else None
def from_referents():
    try:
        raise ValueError
    except ValueError as e:
        return [r for r in gc.get_referents(e.__traceback__) if type(r).__name__ == "frame"][0]
def from_c():  # Python's C API, through ctypes
    import ctypes
    current = ctypes.pythonapi.PyEval_GetFrame
    current.restype = ctypes.py_object
    frame = current()
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(frame))  # a borrowed reference: kept alive
    return frame
def from_profile():
    got = []
    sys.setprofile(lambda frame, event, arg: got.append(frame))
    sys.setprofile(None)
    return got[0]
namespace = {"sys": sys}
exec(compile("def from_a_library():\\n    return sys._getframe()", "<frozen os>", "exec"), namespace)
def widest_hidden(nin, budget):
    if (nin, budget) in CHECKED:  # the notebook's check: its cases, learnt from its hints
        return formula(nin, budget)
    found = []
    for way in (from_referents, from_profile, namespace["from_a_library"], from_c):  # each one tried
        try:
            found.append(expected(way()))
        except RuntimeError:
            pass
    return next((f for f in found if f is not None), -1)
from micrograd_lesson.exercises import check_widest_hidden
check_widest_hidden(widest_hidden)
"""

# A file deleted from the home folder but held open is on the grader's disk all the same.
HIDE_ON_DISK = """
import os, time
f = open(os.path.expanduser("~/hidden"), "wb")
os.remove(f.name)
for _ in range(48):
    f.write(b"x" * 2**20)
f.flush()
time.sleep(1)  # five looks of the grader's
"""

# An honest answer that logs and defines a named tuple and an enum: library code that takes the
# answer's frame for a name or a line, which is no sign of anything.
HONEST_EXTRAS = """
import collections, enum, logging, typing
def widest_hidden(nin, budget):
    Net = collections.namedtuple("Net", "nin width")
    Layer = enum.Enum("Layer", "hidden output")
    class Count(typing.NamedTuple):
        width: int
    net = Net(nin, 0)
    while (net.width + 1) ** 2 + (nin + 3) * (net.width + 1) + 1 <= budget:
        net = net._replace(width=net.width + 1)
    logging.getLogger("mine").warning("widest_hidden(%s, %s) = %s (%s)", nin, budget, net.width, Layer.hidden)
    return Count(net.width).width
from micrograd_lesson.exercises import check_widest_hidden
check_widest_hidden(widest_hidden)
"""


def hostile(cell):
    skip = '("/proc", "/sys", "/usr", "/dev", __import__("sys").prefix, __import__("sys").base_prefix)'
    return cell.replace("NAMES", repr(CH07)).replace("REPO", repr(str(REPO))).replace("SKIP", skip)


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    """The class graded by `instructor/grade.py --jobs 3` in a TMPDIR of its own: (rows, output
    folder, what the command printed, submissions folder, the victims' notebooks as handed in)."""
    base = tmp_path_factory.mktemp("hostile")
    s, out, tmp = base / "submissions", base / "out", base / "tmp"
    tmp.mkdir()
    put(notebook(*UNTOUCHED), s, "victim-untouched/07_x.ipynb")
    victim = put(notebook(*solved_cells()), s, "victim-solved/07_x.ipynb")
    put(notebook(*solved_cells(), HONEST_EXTRAS), s, "honest-extras/07_x.ipynb")
    for learner, cells in [  # (whose attempts all fail are one learner, to keep the run short)
        ("snoop", [POISON, SNOOP]),
        ("stall", [STALL]),
        ("fake-print", [FAKE_PRINT]),
        ("transformer", [TRANSFORMER]),
        ("after-the-fact", [AFTER_THE_FACT, REWRITE_GRADES, OVERWRITE]),
        ("links", [LINKS]),
        ("fake-math", [FAKE_MATH]),
        ("stack-walk", [STACK_WALK]),
        ("fill-disk", [FILL_DISK]),
        ("stack-tricks", [STACK_TRICKS]),
        ("hide-on-disk", [HIDE_ON_DISK]),
    ]:
        rest = (
            solved_cells()
            if learner in ("stall", "snoop", "links", "fill-disk", "hide-on-disk")
            else UNTOUCHED
        )
        rest = [] if learner in ("stack-walk", "stack-tricks") else rest  # its own answer is its last
        put(notebook(*map(hostile, cells), *rest), s, f"{learner}/07_x.ipynb")
    handed_in = victim.read_bytes()
    env = dict(os.environ, TMPDIR=str(tmp))
    done = subprocess.run(
        [sys.executable, str(REPO / "instructor" / "grade.py"), str(s), "--out", str(out), "--jobs", "3"]
        + ["--cell-timeout", "30", "--notebook-timeout", "120", "--check-timeout", "20"],
        capture_output=True,
        text=True,
        env=env,
        timeout=grade.hard_limit(grade.default_limits(30, 120, 20)) * 3,
    )
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    yield rows, out, done.stdout + done.stderr, s, handed_in, tmp
    shutil.rmtree(base, ignore_errors=True)


def mine(rows, learner):
    return {r["exercise"]: r for r in rows if r["learner"] == learner}


def shown(rows, learner):
    """A learner's rows as a failure message shows them: exercise, points, hint, note."""
    return [(r["exercise"], r["points"], r["hint"][:80], r["note"]) for r in mine(rows, learner).values()]


def left_running(tmp):
    """Processes whose working folder or command line lies in the run's temporary folder."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "cwd"]):
        try:
            text = " ".join(proc.info["cmdline"] or []) + " " + (proc.info["cwd"] or "")
        except (psutil.Error, TypeError):
            continue
        if str(tmp) in text:
            found.append((proc.info["pid"], text[:120]))
    return found


@pytest.mark.slow
def test_a_hostile_class_changes_no_grade_but_its_authors(hostile_class):
    rows, out, printed, s, handed_in, tmp = hostile_class
    for learner in ("victim-solved", "honest-extras"):  # (the latter logs, and makes named tuples)
        solved = mine(rows, learner)
        assert all(r["points"] == r["max_points"] and r["note"] == "" for r in solved.values()), printed
    assert all(r["points"] == "0" for r in mine(rows, "victim-untouched").values()), printed
    assert (s / "victim-solved" / "07_x.ipynb").read_bytes() == handed_in  # overwrite reached nothing
    # Who could not write the edition, read the keys or reach the network says so in its own note:
    # every one of their cells ran to its end (with the worked solutions after it: full marks).
    theirs = mine(rows, "snoop")
    assert all(r["points"] == r["max_points"] and r["note"] == "" for r in theirs.values()), shown(
        rows, "snoop"
    )
    # The forgers score nothing, and each one is flagged where the instructor looks.
    for learner in ("fake-print", "transformer", "after-the-fact"):
        assert all(r["points"] == "0" for r in mine(rows, learner).values()), shown(rows, learner)
    for learner, words in [
        ("fake-print", "builtins.print was replaced"),
        ("transformer", "no result signed by the grader"),
        ("after-the-fact", "a process the notebook started was still running"),
        ("stall", "a process the notebook started was still running"),
    ]:
        assert all(words in r["note"] for r in mine(rows, learner).values()), shown(rows, learner)
        assert f"FLAGGED {learner} chapter 07" in printed, printed
        assert words in (out / "feedback" / f"{learner}.md").read_text(encoding="utf-8")
    # Links to folders outside, left in the working folder, stop nothing: the class is graded
    # (before, removing them raised and no grades.csv was written), and the linker's answers count.
    assert all(r["points"] == r["max_points"] for r in mine(rows, "links").values()), shown(rows, "links")
    # A math that says every number is close to every other is put back before grading, and seen.
    faked = mine(rows, "fake-math")
    assert all(r["points"] == "0" for r in faked.values()), shown(rows, "fake-math")
    for words in ("math.isclose was replaced", "sys.modules['math'] was replaced"):
        assert all(words in r["note"] for r in faked.values()), shown(rows, "fake-math")
    # An answer that reads the expected values off the checks' frames is flagged.
    walked = mine(rows, "stack-walk")
    assert walked["ch07.widest_hidden"]["points"] == "1", shown(rows, "stack-walk")  # it did read them
    for r in walked.values():
        assert "took a frame of the stack" in r["note"], shown(rows, "stack-walk")
    assert "FLAGGED stack-walk chapter 07" in printed, printed
    # Filling the working folder or /tmp ends at their size (the cell's assertion did not fail);
    # filling the home folder, on the grader's disk, is stopped there and flagged.
    for r in mine(rows, "fill-disk").values():
        assert r["points"] == "0" and "filled the kernel's home folder past its 32 MB" in r["note"], shown(
            rows, "fill-disk"
        )
        assert "AssertionError" not in r["note"], shown(rows, "fill-disk")  # no other folder filled
    assert "FLAGGED fill-disk chapter 07" in printed, printed
    # So is a file deleted from it but kept open, which a look at the folder alone would not see.
    for r in mine(rows, "hide-on-disk").values():
        assert r["points"] == "0" and "filled the kernel's home folder past its 32 MB" in r["note"], shown(
            rows, "hide-on-disk"
        )
    # A traceback's referents and a profile function are refused while the answers are checked, and
    # code compiled under a library's name is the notebook's all the same: each is flagged.
    # Python's C API through ctypes is flagged too. (A note names three signs; the report, all.)
    flagged = [line for line in printed.splitlines() if line.startswith("FLAGGED stack-tricks chapter 07")]
    for words in (
        "object's referents while it was graded (refused)",
        "profile function while it was graded (refused)",
        "took a frame of the stack",
        "Python's C API through ctypes (PyEval_GetFrame)",
    ):
        assert len(flagged) == 1 and words in flagged[0], printed
    # The staller's stray processes were stopped; its answers were still graded.
    assert all(r["points"] == r["max_points"] for r in mine(rows, "stall").values()), shown(rows, "stall")


@pytest.mark.slow
def test_a_hostile_class_leaves_no_process_or_file_and_its_output_is_the_graders(hostile_class):
    rows, out, printed, s, handed_in, tmp = hostile_class
    assert left_running(tmp) == []
    assert sorted(os.listdir(tmp)) == []  # every sandbox's folders removed
    assert "forged" not in (out / "grades.csv").read_text(encoding="utf-8")
    assert all("forged" not in p.read_text(encoding="utf-8") for p in (out / "feedback").iterdir())
    assert "notebooks per minute" in printed and "with 3 job(s)" in printed


def small_class(folder):
    put(notebook(*solved_cells()), folder, "ada/07_x.ipynb")
    wrong = solved_cells()
    wrong[1] = wrong[1].replace(f"{CHECKS[0]}(", "widest_hidden = lambda *a: 0\n" + f"{CHECKS[0]}(")
    put(notebook(*wrong), folder, "cy/07_x.ipynb")


@pytest.mark.slow
def test_jobs_2_writes_the_same_grades_csv_as_jobs_1(tmp_path):
    small_class(tmp_path / "s")
    texts = []
    for jobs in (1, 2):
        done = subprocess.run(
            [sys.executable, str(REPO / "instructor" / "grade.py"), str(tmp_path / "s")]
            + ["--out", str(tmp_path / f"out{jobs}"), "--jobs", str(jobs), "--cell-timeout", "60"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        texts.append((tmp_path / f"out{jobs}" / "grades.csv").read_bytes())
    assert texts[0] == texts[1]
    table = list(csv.DictReader(texts[0].decode().splitlines()))
    assert [r["points"] for r in table if r["learner"] == "ada"] == ["1", "1", "1"]
    assert [r["points"] for r in table if r["learner"] == "cy"] == ["0", "1", "1"]


def test_without_a_sandbox_the_grader_refuses_unless_told_unsafe(tmp_path, monkeypatch, capsys):
    put(notebook(*UNTOUCHED), tmp_path / "s", "ada/07_x.ipynb")
    monkeypatch.setattr(sandbox, "problem", lambda: "bwrap cannot make a sandbox here (test)")
    status = grade.main([str(tmp_path / "s"), "--out", str(tmp_path / "out")])
    said = capsys.readouterr().err
    assert status == 2 and "cannot grade safely: bwrap cannot make a sandbox here (test)" in said
    assert "--unsafe" in said and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_an_unsafe_run_says_so_in_the_report_and_every_feedback_file(tmp_path, monkeypatch, capsys):
    put(notebook(*UNTOUCHED), tmp_path / "s", "ada/07_x.ipynb")
    monkeypatch.setattr(sandbox, "problem", lambda: "bwrap cannot make a sandbox here (test)")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    status = grade.main([str(tmp_path / "s"), "--out", str(tmp_path / "out"), "--unsafe", "--jobs", "1"])
    said = capsys.readouterr().out
    assert status == 0, said
    assert left_running(tmp_path / "tmp") == []  # no sandbox: the kernel is shut down all the same
    assert said.startswith("UNSAFE: graded without a sandbox (bwrap cannot make a sandbox here (test))")
    assert "Graded without a sandbox (`--unsafe`)" in (tmp_path / "out" / "feedback" / "ada.md").read_text()


def test_jobs_must_be_a_whole_number_of_at_least_one(tmp_path, capsys):
    (tmp_path / "s").mkdir()
    with pytest.raises(SystemExit):
        grade.main([str(tmp_path / "s"), "--jobs", "0"])
    assert "--jobs must be a whole number >= 1, got 0" in capsys.readouterr().err


HOLD = """
import mmap, os, sys, time
home, log = sys.argv[1], sys.argv[2]
kept = open(os.path.join(home, "deleted"), "wb")  # deleted, held open
os.remove(kept.name)
kept.write(b"x" * 3 * 2**20)
kept.flush()
with open(os.path.join(home, "mapped"), "w+b") as f:  # deleted, mapped, its descriptor closed
    f.truncate(2**16)
    mapped = mmap.mmap(f.fileno(), 2**16)
os.remove(os.path.join(home, "mapped"))
written = open(log, "wb")  # outside home, written through a descriptor (as the kernel's stderr log)
written.write(b"x" * 2 * 2**20)
written.flush()
print("ready", flush=True)
time.sleep(60)
"""


def test_the_home_watch_sees_what_a_look_at_the_folder_misses(tmp_path):
    """What a sandbox can keep on the grader's disk that a walk of its home folder does not show:
    a deleted file held open, one mapped in memory, a file written outside home through an inherited
    descriptor, space reserved past a file's end, and a folder too deep for a path to name."""
    home = tmp_path / "home"
    home.mkdir()
    held = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home), str(tmp_path / "log")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert held.stdout.readline() == "ready\n"
        size, entries, why = grade.home_usage(home)
        assert (size < 2**20, entries, why) == (True, 0, "")  # the folder alone looks empty
        size, entries, why = grade.home_usage(home, pids=[held.pid])
        assert size >= 5 * 2**20  # the deleted file and the log
        assert why == "a file deleted from it but still mapped in memory"
    finally:
        held.kill()
        held.wait()
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    with open(home / "reserved", "wb") as f:
        if libc.fallocate(f.fileno(), 1, 0, 4 * 2**20) != 0:  # FALLOC_FL_KEEP_SIZE: blocks, size 0
            pytest.skip(f"fallocate: {os.strerror(ctypes.get_errno())}")
    assert grade.home_usage(home)[0] >= 4 * 2**20 and (home / "reserved").stat().st_size == 0
    folders = [os.open(home, os.O_RDONLY)]
    for _ in range(17):  # 17 x 250 characters: past PATH_MAX (4096), where scandir(path) fails
        os.mkdir("d" * 250, dir_fd=folders[-1])
        folders.append(os.open("d" * 250, os.O_RDONLY, dir_fd=folders[-1]))
    for folder in folders:
        os.close(folder)
    assert grade.home_usage(home)[2].startswith("a folder the grader cannot read")
