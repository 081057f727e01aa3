"""Grade a folder of submissions: one sub-folder per learner, holding their filled notebooks.

    python instructor/grade.py SUBMISSIONS [--out build/grades] [--points points.toml]
                               [--learner NAME] [--chapter NN]
                               [--cell-timeout 300] [--notebook-timeout 1200] [--check-timeout 60]
                               [--jobs N] [--unsafe]

First the folder's layout is checked and reported: the learners, the chapters each handed
in, and every file that will not be graded, with the reason (a notebook directly in the
submissions folder, a second notebook of one chapter, a file that is not a notebook, an
empty learner folder). A notebook's chapter is read from the checks it calls, not from its
name, so a notebook named for one chapter that holds another's is named as such.

Each notebook then runs headless, top to bottom, in a kernel of its own whose working folder
is an empty scratch folder and whose import path holds the student edition of the package
(built by instructor/student.py: checks, no worked solutions, no hidden cases), a fresh copy
of it for every notebook; neither this repository's package nor `instructor/` is importable
there. A cell that raises is recorded and the run goes on; a cell that runs past
--cell-timeout is interrupted, recorded, and the run goes on; once the notebook has run for
--notebook-timeout, its remaining cells are skipped and recorded.

Then, in the same kernel, a grading cell takes the answer the learner last passed to each
`check_...` call, imports the checks afresh (so a check patched in the notebook is not the
one that grades), loads the chapter's hidden cases (instructor/hidden/chNN.py, copied in
only now) and grades: an exercise's points if the answer passes its check and every hidden
case, else 0, with the hint the learner would have seen.

Output, in --out (build/grades/ by default): grades.csv (grades-NAME-chNN.csv for a part
chosen with --learner or --chapter), one row per learner, chapter and exercise (learner,
chapter, notebook, exercise, points, max_points, hint, note: what cut the run short, if
anything), and feedback/LEARNER.md per learner. Points are 1 per exercise unless a TOML file
says otherwise (`"ch05.softsign" = 2`). Exit status: 0 when everything found was graded, 1
when something was graded but the layout report or a grader error needs a look, 2 when
nothing was graded or the arguments or the POINTS file are wrong.

Isolation (instructor/README.md, "What runs where"): each kernel runs in a bubblewrap sandbox
of its own (instructor/sandbox.py: no network, its own processes, nothing of this repository,
read-only but for its own two folders), or, with --unsafe only, without one. The verdicts come
back signed by the grader's guard in the kernel (instructor/kernel_guard.py), in a file read
before the sandbox ends; --jobs notebooks are graded side by side (default: one per core).
"""

import argparse
import csv
import difflib
import hashlib
import json
import math
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HIDDEN = ROOT / "instructor" / "hidden"
DEFAULT_OUT = ROOT / "build" / "grades"
CELL_TIMEOUT = 300  # s a cell may run before it is interrupted (see instructor/README.md, "Limits")
NOTEBOOK_TIMEOUT = 1200  # s of running cells, after which the rest of a notebook is skipped
CHECK_TIMEOUT = 60  # s one check or hidden case may take while grading (a learner's check: 15 s)
CHAPTER_IN_NAME = re.compile(r"(?:^|\D)(\d\d)_")  # "07_x.ipynb", "Copy of 07_x.ipynb", "ada-07_x.ipynb"
COPY_MARK = re.compile(r"^copy of |[ _-]copy\d*(?=\.ipynb$)| \(\d+\)(?=\.ipynb$)", re.IGNORECASE)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---- what the course holds (read in this process, never in a learner's kernel) ---------------------


def registry():
    """The full package's exercise registry: {"ch05.softsign": Exercise}, every chapter imported."""
    import micrograd_lesson.exercises  # noqa: F401 - registers every chapter's exercises
    from micrograd_lesson.exercises.reference import EXERCISES

    return EXERCISES


def load_hidden(chapter):
    """Register the hidden cases of `chapter` ("ch05") in this process: instructor/hidden/ch05.py.

    For tests and tools; the grader copies these files into a learner's kernel only after the
    notebook has run (see GRADE_CELL).
    """
    import importlib

    if (HIDDEN / f"{chapter}.py").exists():
        importlib.import_module(f"instructor.hidden.{chapter}")


def exercise_names(chapter):
    """The exercises of `chapter` ("ch05"), in the order they are registered."""
    return [name for name in registry() if name.startswith(chapter + ".")]


def check_chapters():
    """{check function name: chapter}, e.g. {"check_sin": "ch05"}."""
    return {ex.check.__name__: name.split(".")[0] for name, ex in registry().items() if ex.check}


# ---- POINTS ----------------------------------------------------------------------------------------


class PointsError(ValueError):
    """A POINTS file that cannot be used; the message names the file and line."""


def _key_lines(text):
    """{dotted key: line number} for every `key = value` line of a TOML file, tables included."""
    lines, table = {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0].strip() if not line.lstrip().startswith(('"', "'")) else line.strip()
        header = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]", stripped)
        if header:
            table = _unquote_key(header.group(1))
            continue
        match = re.match(r"""((?:"[^"]*"|'[^']*'|[^=\s])(?:[^=]*?))\s*=""", stripped)
        if match:
            key = _unquote_key(match.group(1))
            lines[f"{table}.{key}" if table else key] = number
    return lines


def _unquote_key(key):
    parts = re.findall(r""""([^"]*)"|'([^']*)'|([^.\s]+)""", key)
    return ".".join(next(p for p in part if p) for part in parts)


def _flatten(table, prefix=""):
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            yield from _flatten(value, name)
        else:
            yield name, value


def read_points(path):
    """{exercise: points} from a TOML file; PointsError naming the line for anything wrong.

    `"ch05.max" = 2`, `ch05.max = 2` (a dotted key) and `[ch05]` then `max = 2` all mean the same.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PointsError(f"{path}: cannot read it ({e.strerror})") from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PointsError(f"{path}: not valid TOML: {e}") from None
    known, where, points = registry(), _key_lines(text), {}
    for name, value in _flatten(table):
        at = f"{path} line {where[name]}" if name in where else str(path)
        if name not in known:
            near = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else " (exercise ids look like 'ch05.softsign')"
            raise PointsError(f"{at}: {name!r} is not an exercise of the course{hint}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise PointsError(f"{at}: the points for {name!r} must be a number >= 0, got {value!r}")
        points[name] = value
    return points


# ---- the layout of a submissions folder -------------------------------------------------------------


@dataclass
class Layout:
    """What a submissions folder holds, before anything runs."""

    learners: dict = field(default_factory=dict)  # name -> {chapter "ch07": notebook Path}
    notes: dict = field(default_factory=dict)  # learner -> [what was found about their files]
    ignored: list = field(default_factory=list)  # (path relative to the folder, why)
    shared: list = field(default_factory=list)  # [(learner, notebook Path)]: one file, several learners
    warnings: int = 0  # things an instructor should look at (a notebook not graded, a learner with none)

    def ignore(self, rel, why, warn=True):
        self.ignored.append((rel, why))
        self.warnings += warn


def read_notebook(path):
    """The notebook at `path` in nbformat 4, converted from an older format (3: cells in worksheets)
    as nbclient and Jupyter would; ValueError or KeyError if it is not a notebook."""
    import nbformat

    return nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)


def shown_name(text):
    """A name (a learner's folder, a file) or message as the report, CSV and feedback print it: a
    newline, tab, escape or other control character, or a byte that is not UTF-8, written as its
    escape (\\n, \\x1b, \\udcff), so it cannot split a line, move a terminal's cursor or stop a write."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


def notebook_chapter(path, checks):
    """(chapter the notebook's checks belong to or None, chapter its name says or None, error or None)."""
    named = CHAPTER_IN_NAME.search(path.name)
    named = f"ch{named.group(1)}" if named else None
    try:
        sources = [c.source for c in read_notebook(path).cells if c.cell_type == "code"]
        sources = [s if isinstance(s, str) else "" for s in sources]
    except Exception as e:  # noqa: BLE001 - whatever the file holds, it is "not a readable notebook"
        return None, named, f"not a readable notebook ({type(e).__name__})"
    counts = {}
    for name in set(re.findall(r"\b(check_\w+)\b", "\n".join(sources))):
        if name in checks:
            counts[checks[name]] = counts.get(checks[name], 0) + 1
    held = max(sorted(counts), key=counts.get) if counts else None
    return held, named, None


def _hidden_name(part):
    return part.startswith((".", "__")) or part == "__MACOSX"


def scan(submissions, only_learner=None, only_chapter=None):
    """The Layout of `submissions`: one sub-folder per learner, notebooks in it (or one folder down)."""
    submissions, checks, layout = Path(submissions), check_chapters(), Layout()
    entries = sorted(submissions.iterdir())
    for entry in (
        entries if only_learner is None else ()
    ):  # a part: the folder's own files are not its business
        if _hidden_name(entry.name):
            continue
        if entry.is_file():
            why = "not a learner's folder: the grader looks for one folder per learner"
            if entry.suffix == ".ipynb":
                why = (
                    "a notebook directly in the submissions folder: put it in a folder named for its learner"
                )
            layout.ignore(entry.name, why, warn=entry.suffix == ".ipynb")
    for folder in (e for e in entries if e.is_dir() and not _hidden_name(e.name)):
        if only_learner is not None and folder.name != only_learner:
            continue
        if not _inside(folder, submissions):  # a learner "folder" that is a link to elsewhere
            layout.ignore(folder.name, "a link to a folder outside the submissions folder: not graded")
            continue
        _scan_learner(folder, submissions, checks, layout, only_chapter)
    _flag_shared(layout, submissions, [e for e in entries if e.is_dir() and not _hidden_name(e.name)])
    if only_learner is not None and only_learner not in layout.learners:
        names = [e.name for e in entries if e.is_dir() and not _hidden_name(e.name)]
        near = difflib.get_close_matches(only_learner, names, n=1)
        layout.notes[only_learner] = [
            f"no folder {only_learner!r} in {submissions}" + (f" (did you mean {near[0]!r}?)" if near else "")
        ]
        layout.warnings += 1
    return layout


def _inside(path, submissions):
    """True if `path`, its links followed, is in the submissions folder (a link may point at another
    learner's notebook, which is then graded and flagged, but never at a file elsewhere)."""
    try:
        target = path.resolve()
        return target.exists() and target.is_relative_to(Path(submissions).resolve())
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        return False


def _scan_learner(folder, submissions, checks, layout, only_chapter):
    name, notes = folder.name, []
    layout.learners[name], layout.notes[name] = {}, notes
    found = [p for p in sorted(folder.rglob("*"))]
    found = [p for p in found if not any(_hidden_name(part) for part in p.relative_to(folder).parts)]
    for p in found:
        if p.is_symlink() and not _inside(p, submissions):
            where = "a file outside the submissions folder" if p.exists() else "nothing (or a loop of links)"
            layout.ignore(str(p.relative_to(submissions)), f"a link to {where}: not graded")
    files = [p for p in found if p.is_file() and (not p.is_symlink() or _inside(p, submissions))]
    if not files:
        notes.append("nothing to grade: the folder is empty")
        layout.warnings += 1
        return
    notebooks = [p for p in files if p.suffix == ".ipynb"]
    for p in files:
        if p.suffix != ".ipynb":
            layout.ignore(str(p.relative_to(submissions)), "not a notebook (.ipynb)", warn=False)
    if not notebooks:
        notes.append(f"nothing to grade: no notebook, only {len(files)} other file(s)")
        layout.warnings += 1
        return
    sub_folders = {p.parent for p in notebooks if p.parent != folder}
    if len(sub_folders) > 1 and not any(p.parent == folder for p in notebooks):
        several = ", ".join(sorted(f.name for f in sub_folders))
        for p in notebooks:
            layout.ignore(
                str(p.relative_to(submissions)),
                f"{name}/ holds notebooks in several folders ({several})"
                f": is it a folder of learners? Grade it with SUBMISSIONS={folder}",
            )
        notes.append("nothing graded: notebooks in several sub-folders")
        return
    by_chapter = {}
    for p in notebooks:
        rel = str(p.relative_to(submissions))
        if len(p.relative_to(folder).parts) > 2:
            layout.ignore(rel, "more than one folder down inside the learner's folder: move it up")
            continue
        held, named, error = notebook_chapter(p, checks)
        if error:
            layout.ignore(rel, error)
            continue
        chapter = held or named
        if chapter is None:
            layout.ignore(rel, "no chapter number in its name and no check of any chapter in it")
            continue
        if held and named and held != named:
            notes.append(f"{p.name} is named for chapter {named[2:]} but holds chapter {held[2:]}'s checks")
            layout.warnings += 1
        elif named is None:
            notes.append(f"{p.name} has no chapter number in its name; it holds chapter {held[2:]}'s checks")
        if p.parent != folder:
            notes.append(f"{p.relative_to(folder)} is one folder down: graded as {name}'s")
        by_chapter.setdefault(chapter, []).append(p)
    for chapter, found in sorted(by_chapter.items()):
        if only_chapter is not None and chapter != only_chapter:
            continue
        # A copy ("Copy of 07_x.ipynb", "07_x (1).ipynb", "07_x-Copy1.ipynb") loses to its original;
        # among equals the newest (the one the learner saved last) is graded.
        found.sort(key=lambda p: (not COPY_MARK.search(p.name), p.stat().st_mtime), reverse=True)
        chosen = found[0]
        layout.learners[name][chapter] = chosen
        for other in found[1:]:
            same_kind = bool(COPY_MARK.search(other.name)) == bool(COPY_MARK.search(chosen.name))
            why = "the newest" if same_kind else "its name is not a copy's"
            layout.ignore(
                str(other.relative_to(submissions)),
                f"a second notebook of chapter {chapter[2:]}: only {chosen.relative_to(folder)}"
                f" is graded ({why})",
            )
        if COPY_MARK.search(chosen.name) and len(found) == 1:
            notes.append(
                f"{chosen.name} is graded: a copy's name, the only notebook of chapter {chapter[2:]}"
            )
    if not layout.learners[name]:
        what = f"chapter {only_chapter[2:]}" if only_chapter else "any chapter"
        notes.append(f"nothing to grade: no notebook of {what}")
        layout.warnings += 1


def _same_bytes(paths):
    """Groups of two or more of `paths` whose files hold the same bytes (links followed)."""
    by_size = {}
    for p in paths:
        by_size.setdefault(p.stat().st_size, []).append(p)
    groups = {}
    for same_size in (g for g in by_size.values() if len(g) > 1):  # only these need reading
        for p in same_size:
            try:
                groups.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), []).append(p)
            except OSError:  # unreadable: the grader says so when it tries to grade it
                continue
    return [g for g in groups.values() if len(g) > 1]


def _unchanged(path, chapter):
    """True if every code cell of the notebook is as the course hands it out."""
    try:
        cells = [c for c in read_notebook(path).cells if c.cell_type == "code"]
    except Exception:  # noqa: BLE001 - not a notebook: not one as handed out
        return False
    return all(_normal(c.source) in stub_cells(chapter) for c in cells)


def _flag_shared(layout, submissions, folders):
    """Note every graded notebook that is the same file as another learner's notebook, a link to
    it or a byte-for-byte copy, in both learners' notes (two untouched notebooks are not flagged)."""
    owner, paths = {}, []
    for folder in folders:
        for p in folder.rglob("*.ipynb"):
            if p.is_file() and _inside(p, submissions) and not _hidden_name(p.name):
                owner[p] = folder.name
                paths.append(p)
    graded = {p: (name, ch) for name, chapters in layout.learners.items() for ch, p in chapters.items()}
    for group in _same_bytes(paths):
        for p in (p for p in group if p in graded):
            name, chapter = graded[p]
            others = [q for q in group if owner[q] != name]
            if not others or _unchanged(p, chapter):
                continue
            said = []
            for q in others:
                rel = q.relative_to(submissions)
                if p.is_symlink() and p.resolve() == q.resolve():
                    said.append(f"a link to {rel}")
                elif q.is_symlink() and q.resolve() == p.resolve():
                    said.append(f"{rel} is a link to it")
                else:
                    said.append(f"byte-for-byte the same as {rel}")
            layout.notes[name].append(
                f"{p.relative_to(submissions / name)} is shared with another learner ({'; '.join(said)}):"
                " graded, but look at who wrote it"
            )
            layout.shared.append((name, p))
            layout.warnings += 1


def layout_report(layout, submissions):
    """The layout in words, for the instructor to read before the grades."""
    lines = [f"Submissions in {submissions}:"]
    graded = {name: chapters for name, chapters in layout.learners.items() if chapters}
    lines.append(f"  {len(layout.learners)} learner folder(s), {len(graded)} with something to grade")
    for name in sorted(layout.notes):
        chapters = layout.learners.get(name) or {}
        listed = ", ".join(c[2:] for c in sorted(chapters)) or "none"
        lines.append(f"  {name}: chapters {listed}")
        lines += [f"      {note}" for note in layout.notes[name]]
    handed_in = {}
    for name, chapters in graded.items():
        for chapter in chapters:
            handed_in.setdefault(chapter, []).append(name)
    for chapter, names in sorted(handed_in.items()):
        if len(graded) > 1 and len(names) < len(graded):
            missing = sorted(set(graded) - set(names))
            lines.append(
                f"  chapter {chapter[2:]}: handed in by {len(names)} of {len(graded)}, not by "
                + ", ".join(missing)
            )
    if layout.shared:
        names = sorted({name for name, _ in layout.shared})
        lines.append(f"  shared notebooks: {len(layout.shared)}, handed in by {', '.join(names)} (see above)")
    if layout.ignored:
        lines.append(f"  not graded ({len(layout.ignored)} file(s)):")
        lines += [f"    {rel}: {why}" for rel, why in layout.ignored]
    return "\n".join(shown_name(line) for line in lines)


# ---- running one notebook ---------------------------------------------------------------------------

# Runs at the start of every grading kernel (an IPython startup file), before the learner's first
# cell: the grader's guard (instructor/kernel_guard.py) in a namespace of its own, with a copy of the
# built-ins taken now. It drops this repository from the import path (an editable install puts it
# there), and grades when GRADE_CELL asks it to, signing its result with a key given at grading.
GUARD = Path(__file__).resolve().parent / "kernel_guard.py"
GUARD_NAME = "<the grader's guard>"
STARTUP = """\
exec(compile({source!r}, {name!r}, "exec"), {{"__builtins__": dict(vars(__import__("builtins"))),
     "__name__": "grading_guard", "SETTINGS": {settings!r}}})
"""

# Runs in the learner's kernel after their notebook: asks the guard to grade (an audit event, which
# only the guard's audit hook sees). The guard writes its signed result to request["result"].
GRADE_CELL = """\
__import__("sys").audit({event!r}, {request!r})
"""


def cutoff(index, kind, label, detail):
    """What cut a notebook's run short: at cell `index` (None: the whole run), of what kind, in words."""
    what = f"{label}{'' if detail[0] in ':;' else ' '}{detail}"
    return dict(index=index, kind=kind, detail=detail, what=what)


def first_line(source, width=50):
    line = next((s.strip() for s in source.splitlines() if s.strip()), "")
    return line if len(line) <= width else line[: width - 3] + "..."


def _kernel_cpu(client):
    """CPU seconds the kernel (and all it started, in its sandbox) has used so far, or None."""
    try:
        import psutil

        top = psutil.Process(client.km.provisioner.pid)
        total = 0.0
        for proc in [top, *top.children(recursive=True)]:
            times = proc.cpu_times()
            total += times.user + times.system
        return total
    except Exception:  # noqa: BLE001 - a measurement only
        return None


def remove_tree(folder):
    """Remove a folder the kernel wrote in, whatever modes it left on it."""
    for parent, dirs, _ in os.walk(folder):  # os.walk does not enter a link to a folder
        for name in dirs:
            here = os.path.join(parent, name)
            if os.path.islink(here):  # a link the learner made: removed, never followed
                continue
            try:
                os.chmod(here, 0o700)
            except OSError:
                pass
    shutil.rmtree(folder, ignore_errors=True)


def kernel_env(home, lib):
    """The kernel's whole environment: nothing of the grader's (no tokens, no paths of the repository)."""
    env = {k: os.environ[k] for k in ("LANG", "LC_ALL", "PYTHONHASHSEED", "TZ") if k in os.environ}
    bin_dir = str(Path(sys.executable).parent)
    env.update(PATH=f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", HOME=str(home), PYTHONPATH=str(lib))
    env.update(IPYTHONDIR=str(home / "ipython"), MPLCONFIGDIR=str(home / "matplotlib"))
    env.update(PYTHONDONTWRITEBYTECODE="1", JUPYTER_RUNTIME_DIR=str(home / "runtime"))
    return env


def sandboxed_kernel(place, student, slot, unsafe):
    """(kernel manager, the folders) of a kernel for one notebook, in a sandbox unless `unsafe`.

    place/work: the kernel's working folder (empty); place/home: its own folder (connection file,
    ipc sockets, IPython profile); place/lib: a copy of the student edition made for it alone;
    place/kernels: the kernelspec that starts it (outside the sandbox)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    from instructor import sandbox

    work, home, lib = place / "work", place / "home", place / "lib"
    for folder in (work, home):
        folder.mkdir()
    shutil.copytree(student / "micrograd_lesson", lib / "micrograd_lesson")  # a fresh copy per notebook
    kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    uid = None if unsafe else sandbox.sandbox_user(slot)
    if unsafe:  # the limits still hold; nothing else does
        limits = sandbox.limits(None, sandboxed=False)
        argv = [sys.executable, "-c", sandbox.INSIDE, json.dumps(limits), "--", *kernel]
    else:
        argv = sandbox.command(kernel, scratch=work, edition=lib, sockets=home, uid=uid)
    spec = place / "kernels" / "grading"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(dict(argv=argv, display_name="grading", language="python", interrupt_mode="message"))
    )
    specs = KernelSpecManager(kernel_dirs=[str(place / "kernels")])
    km = AsyncKernelManager(kernel_name="grading", kernel_spec_manager=specs, transport="ipc")
    km.ip, km.connection_file = str(home / "ipc"), str(home / "kernel.json")
    km.write_connection_file()  # now, so that the sandbox's user can be given it
    return km, work, home, lib, uid


def run_one(path, chapter, points, limits, student, slot=0, unsafe=False):
    """Execute one notebook and grade it in the same kernel, in a sandbox of its own: a dict of rows,
    cut-offs, signs of tampering and times. Its folders are made in the current folder."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    from instructor import sandbox

    nb = nbformat.read(path, as_version=4)
    cutoffs, timed_out = [], {}  # what cut the run short; cell index -> how often it was interrupted

    class Client(NotebookClient):
        kept = 0  # bytes of output kept so far: the grader needs errors, not megabytes of printing

        def output(self, outs, msg, display_id, cell_index):
            if msg["msg_type"] in ("stream", "display_data", "execute_result", "update_display_data"):
                content = msg.get("content", {})
                size = len(str(content.get("text", ""))) + len(str(content.get("data", "")))
                Client.kept += size
                if Client.kept > OUTPUT_BYTES:
                    return None
            return super().output(outs, msg, display_id, cell_index)

        async def _async_handle_timeout(self, timeout, cell=None):
            index = next(i for i, c in enumerate(nb.cells) if c is cell)
            timed_out[index] = timed_out.get(index, 0) + 1
            if timed_out[index] > 1:  # the interrupt was ignored: the kernel cannot run anything else
                raise CellTimeoutError.error_from_timeout_and_cell("ignored the interrupt", timeout, cell)
            return await super()._async_handle_timeout(timeout, cell)

    place = Path.cwd()
    km, work, home, lib, uid = sandboxed_kernel(place, student, slot, unsafe)
    startup = home / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    settings = dict(
        ready_path=str(home / "guard-ready"),
        hide=sorted({str(ROOT), str(ROOT.resolve())}),
        edition=str(lib),
        sandboxed=not unsafe,
    )
    source = GUARD.read_text(encoding="utf-8")
    (startup / "00-grader.py").write_text(
        STARTUP.format(source=source, name=GUARD_NAME, settings=settings), encoding="utf-8"
    )
    for folder in (home / "matplotlib", home / "runtime"):
        folder.mkdir()
    sandbox.prepare(uid, work, home, *home.rglob("*"))
    client = Client(
        nb,
        km=km,
        timeout=math.ceil(limits["cell"]),
        interrupt_on_timeout=True,  # a cell that hangs is interrupted, and the run goes on
        allow_errors=True,  # a cell that raises is recorded, and the run goes on
        resources={"metadata": {"path": str(work)}},
    )
    started, slowest = time.monotonic(), {"wall": 0.0, "cpu": 0.0, "cell": None}
    code_number, grading, signed = 0, None, None
    stop_watching, over = None, []
    log = open(place / "kernel-stderr.txt", "w")  # noqa: SIM115 - the kernel's, read on failure
    try:
        with client.setup_kernel(env=kernel_env(home, lib), stdout=subprocess.DEVNULL, stderr=log):
            if not (home / "guard-ready").exists():  # made by the guard before any learner cell
                raise RuntimeError("the grader's guard did not start in the kernel: " + _tail(place))
            doing = ["the kernel's start"]  # what runs now: named if the home watch stops it
            stop_watching, over = watch_home(home, client.km.provisioner.pid, lambda: doing[0])
            for index, cell in enumerate(list(nb.cells)):
                if cell.cell_type != "code":
                    continue
                code_number += 1
                doing[0] = f"code cell {code_number}"
                label = f"code cell {code_number} ({first_line(cell.source)!r})"
                left = limits["notebook"] - (time.monotonic() - started)
                if left <= 0:
                    why = f"not run: the notebook reached its {limits['notebook']:g} s time limit"
                    cutoffs.append(cutoff(index, "skipped", f"{label} and the cells after it were", why))
                    break
                client.timeout = max(1, math.ceil(min(limits["cell"], left)))
                wall, cpu = time.monotonic(), _kernel_cpu(client)
                client.execute_cell(cell, index)
                wall, cpu = time.monotonic() - wall, (_kernel_cpu(client) or 0) - (cpu or 0)
                if wall > slowest["wall"]:
                    slowest.update(wall=wall, cpu=cpu, cell=code_number)
                if index in timed_out:
                    limit = "cell" if client.timeout >= limits["cell"] else "notebook"
                    why = f"was interrupted after {client.timeout:g} s (the {limit} time limit)"
                    cutoffs.append(cutoff(index, "interrupted", label, why))
                errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
                if errors and index not in timed_out:
                    why = f"raised {errors[0].ename}: {errors[0].evalue}"[:200]
                    cutoffs.append(cutoff(index, "raised", label, why))
            notebook_wall, notebook_cpu = time.monotonic() - started, _kernel_cpu(client)
            # First the guard stops what the notebook left running and undoes what it can; only
            # then do the hidden cases and references enter the sandbox, for the grading step.
            nonce, result = secrets.token_hex(16), home / f"result-{secrets.token_hex(8)}.json"
            prepared = home / f"prepared-{nonce}"
            request = dict(step="prepare", nonce=nonce, done=str(prepared))
            grading = nbformat.v4.new_code_cell(GRADE_CELL.format(event=EVENT, request=json.dumps(request)))
            nb.cells.append(grading)
            doing[0] = "the grading step"
            # The prepare step gets a cell's time, the grade step the grading limit: together they stay
            # within the hard limit, which allows 2 cells (one past the notebook's limit) and grading.
            client.timeout = math.ceil(min(limits["cell"], limits["grading"]))
            grading_wall = time.monotonic()
            client.execute_cell(grading, len(nb.cells) - 1)
            strays = stop_strays(client, unsafe)  # whatever the guard did or was kept from doing
            hidden_dir = ""
            if (HIDDEN / f"{chapter}.py").exists():
                # Into the edition's copy, which the sandbox sees read-only: no folder the learner can
                # write (or put a link in) lies on the way, and the kernel's user can only read them.
                hidden_dir = lib / secrets.token_hex(8)
                shutil.copytree(
                    HIDDEN, hidden_dir / "instructor" / "hidden", ignore=shutil.ignore_patterns("__pycache__")
                )
                (hidden_dir / "instructor" / "__init__.py").write_text("")
            key, key_file = secrets.token_bytes(32), home / f"key-{secrets.token_hex(8)}"
            if prepared.exists():  # else the guard never prepared: no key, so no signed result
                write_new(key_file, key, uid)
            request = dict(
                step="grade",
                nonce=nonce,
                key=str(key_file),
                result=str(result),
                grade=dict(
                    chapter=chapter,
                    points=points,
                    hidden_dir=str(hidden_dir),
                    references=reference_source(chapter) if hidden_dir else "",
                    check_timeout=limits["check"],
                    reveal=limits.get("reveal", False),
                ),
            )
            grading = nbformat.v4.new_code_cell(GRADE_CELL.format(event=EVENT, request=json.dumps(request)))
            nb.cells.append(grading)
            client.timeout = math.ceil(limits["grading"])
            client.execute_cell(grading, len(nb.cells) - 1)
            grading_wall = time.monotonic() - grading_wall
            signed = read_signed(result, key, nonce)  # before the sandbox ends: nothing can rewrite it
    except (CellTimeoutError, DeadKernelError) as e:  # a cell ignored the interrupt, or ended its kernel
        if over:  # the grader stopped it: too much written on the shared disk (a sign, flagged)
            step, found = over[0]
            what = (
                f"the notebook filled the kernel's home folder past its {HOME_BYTES // 2**20} MB or "
                f"{HOME_FILES:,} files ({found}, seen during {step}), and the grader stopped it"
            )
            cutoffs.append(cutoff(None, "stopped", what, ": the notebook could not be graded"))
            return dict(
                rows=None, cutoffs=cutoffs, wall=time.monotonic() - started, cpu=None, slowest=slowest,
                signs=[what],
            )  # fmt: skip
        if grading is not None:
            what = (
                f"the grading cell ran past its {client.timeout:g} s limit"
                if isinstance(e, CellTimeoutError)
                else "the kernel stopped while the grading cell ran the checks (did an answer end it?)"
            )
        elif isinstance(e, CellTimeoutError):
            what = f"code cell {code_number} ignored the interrupt at the time limit"
        else:
            what = f"code cell {code_number} stopped its kernel"
        cutoffs.append(cutoff(None, "stopped", what, ": the notebook could not be graded"))
        return dict(
            rows=None, cutoffs=cutoffs, wall=time.monotonic() - started, cpu=None, slowest=slowest, signs=[]
        )
    except RuntimeError as e:  # the kernel did not start (or the guard in it): the grader's fault
        if code_number:
            raise
        raise RuntimeError(f"{e} (the kernel said: {_tail(place)})") from None
    finally:
        if stop_watching is not None:
            stop_watching()
        shut_down(km)  # nbclient leaves a kernel it did not start running
        log.close()
        for folder in (work, home, lib):
            remove_tree(folder)
    if not isinstance(signed, dict):  # no result, or one the guard did not sign: nothing to trust
        what = f"the grading step gave no result signed by the grader ({signed}): a sign of tampering"
        cutoffs.append(cutoff(None, "stopped", what, ": the notebook could not be graded"))
        return dict(
            rows=None, cutoffs=cutoffs, wall=notebook_wall, cpu=notebook_cpu, slowest=slowest, signs=[what]
        )
    signs = signed.get("signs", [])
    if strays:
        signs.append(f"{strays} process(es) the notebook started were still running (stopped before grading)")
    if signed.get("error") or signed.get("rows") is None:
        raise RuntimeError(f"the grading step failed: {signed.get('error')}")
    for sign in signs:  # flagged in the note of every exercise and in the feedback
        cutoffs.append(cutoff(None, "tampering", "a sign of tampering:", sign))
    rows = explain_unattempted(signed["rows"], nb.cells[:-2], cutoffs)
    for row in rows:
        row["note"] = notes_for(row, cutoffs, nb.cells)
        del row["check"]
    return dict(
        rows=rows,
        cutoffs=cutoffs,
        wall=notebook_wall,
        cpu=notebook_cpu,
        slowest=slowest,
        grading_wall=grading_wall,
        signs=signs,
    )


EVENT = "micrograd_lesson.grading"  # kernel_guard.EVENT: the audit event the guard grades on


def shut_down(km):
    """Stop the kernel (and, with it, its sandbox) now."""
    from jupyter_core.utils import run_sync

    try:
        if km.has_kernel:
            run_sync(km.shutdown_kernel)(now=True)
    except Exception:  # noqa: BLE001 - it may have ended already; the runner's end stops the rest
        pass


def stop_strays(client, unsafe):
    """Stop every process of the kernel's sandbox but the kernel (and bwrap's two): how many there
    were. Done from outside, so nothing in the sandbox can keep it from happening. Without a
    sandbox, the kernel's own descendants only (one that left them is out of reach)."""
    import psutil

    def oldest_child(proc):
        return min(proc.children(), key=lambda p: p.create_time())

    try:
        top = psutil.Process(client.km.provisioner.pid)  # bwrap, or (unsafe) the kernel itself
        tree = [top, *top.children(recursive=True)]
        keep = [top] if unsafe else [top, oldest_child(top)]  # bwrap, and its init in the sandbox
        if not unsafe:
            keep.append(oldest_child(keep[-1]))  # the kernel: the first process the sandbox ran
        keep = {p.pid for p in keep}
    except (psutil.Error, ValueError):
        return 0
    strays = [p for p in tree if p.pid not in keep]
    for proc in strays:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(strays, timeout=10)
    return len(strays)


HOME_BYTES = 32 * 2**20  # bytes the kernel's home folder may hold (its profile and sockets: under 1 MB)
HOME_FILES = 1_000  # files and folders it may hold
WATCH_EVERY = 0.2  # s between two looks at it


def _disk(info):
    """Bytes a file takes on the disk: its size, or its blocks when more (space reserved past its end
    with fallocate's KEEP_SIZE takes blocks, not size)."""
    return max(info.st_size, info.st_blocks * 512)


def home_usage(home, most=HOME_FILES, pids=()):
    """(bytes, entries, why) of what the sandbox keeps on home's disk: the files and folders under home
    (links not followed; the count stops a little past `most` entries), and the files of that disk
    the processes `pids` hold open that are not under home (deleted but still open, the kernel's
    stderr log). `why` says what the grader could not measure (a folder it cannot read or whose path is
    too long, a deleted file still mapped), which counts as over the limit; else ""."""
    total, entries, folders, seen, why = 0, 0, [home], set(), ""
    device = os.stat(home).st_dev
    while folders and entries <= most:
        try:
            with os.scandir(folders.pop()) as found:
                for entry in found:
                    entries += 1
                    info = entry.stat(follow_symlinks=False)
                    total += _disk(info)
                    seen.add(info.st_ino)
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
        except (FileNotFoundError, NotADirectoryError):  # removed while we looked: it holds nothing now
            continue
        except OSError as e:  # a folder made unreadable, or a path past PATH_MAX: what it holds is unknown
            why = f"a folder the grader cannot read ({os.strerror(e.errno)})"
    inside = str(home).rstrip("/") + "/"
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    info = os.stat(f"/proc/{pid}/fd/{fd}")
                    if not stat.S_ISREG(info.st_mode) or info.st_dev != device or info.st_ino in seen:
                        continue
                    with open(f"/proc/{pid}/fdinfo/{fd}") as fdinfo:
                        flags = int(
                            next(v for k, v in (line.split(":", 1) for line in fdinfo) if k == "flags"), 8
                        )
                    # written through it (the stderr log), or a file of home's that left its tree (deleted)
                    if flags & os.O_ACCMODE != os.O_RDONLY or os.readlink(f"/proc/{pid}/fd/{fd}").startswith(
                        inside
                    ):
                        seen.add(info.st_ino)
                        total += _disk(info)
                except (OSError, StopIteration, ValueError):
                    continue
            with open(f"/proc/{pid}/maps") as maps:
                for line in maps:
                    fields = line.split(maxsplit=5)
                    if (
                        len(fields) == 6
                        and fields[5].startswith(inside)
                        and fields[5].rstrip().endswith("(deleted)")
                    ):
                        why = "a file deleted from it but still mapped in memory"
        except OSError:  # the process ended while we looked
            continue
    return total, entries, why


def watch_home(home, pid, doing=lambda: "the notebook"):
    """Start a thread that stops the sandbox (every process of it) once the kernel's home folder holds
    more than HOME_BYTES or HOME_FILES: the one folder on the grader's disk a notebook can write (its
    working folder and /tmp are size-limited tmpfs). Counted with it: files of that disk the sandbox
    holds open elsewhere (deleted ones, the kernel's stderr log). Returns (stop: ends the watch, over:
    a list that holds, once it stopped the sandbox, (doing(): what was running then, what it found))."""
    import threading

    import psutil

    done, over = threading.Event(), []
    try:
        top = psutil.Process(pid)  # made once: psutil then never stops another process given its pid
    except psutil.Error:
        return done.set, over

    def watch():
        while not done.wait(WATCH_EVERY):
            try:
                procs = [top, *top.children(recursive=True)]
            except psutil.Error:
                procs = []
            size, entries, why = home_usage(home, pids=[p.pid for p in procs])
            if size > HOME_BYTES or entries > HOME_FILES or why:
                more = f"; {why}" if why else ""
                found = f"{size / 2**20:.0f} MB in {entries}{'+' * (entries > HOME_FILES)} files{more}"
                over.append((doing(), found))
                for proc in reversed(procs):
                    try:
                        proc.kill()
                    except psutil.Error:
                        pass
                return

    threading.Thread(target=watch, name="home-watch", daemon=True).start()
    return done.set, over


def write_new(path, data, uid):
    """Write a new file in a folder the sandbox can write: made here (O_EXCL), never through a link
    the learner put there (O_NOFOLLOW), and given to the sandbox's user through its descriptor."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        if uid is not None:
            os.fchown(fd, uid, uid)
        os.write(fd, data)
    finally:
        os.close(fd)


OUTPUT_BYTES = 10_000_000  # printed output kept per notebook; past it, printing is dropped (errors kept)
RESULT_BYTES = 4_000_000  # a signed result is a few kilobytes; anything larger is not one


def read_regular(path, most=RESULT_BYTES):
    """A file's bytes, if it is a regular file of at most `most` bytes; never through a link, never
    waiting on a pipe or reading a device (the folder is one the learner can write)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > most:
            raise ValueError("not a regular file of at most 4 MB")
        chunks = []
        while chunk := os.read(fd, most + 1 - sum(map(len, chunks))):
            chunks.append(chunk)
        return b"".join(chunks)[:most]
    finally:
        os.close(fd)


def read_signed(path, key, nonce):
    """The guard's payload from `path` if its signature and nonce are right; else why not, in words."""
    import hmac

    try:
        outer = json.loads(read_regular(path).decode("utf-8"))
        text, signature = outer["payload"], outer["signature"]
    except FileNotFoundError:
        return "no result file"
    except (OSError, ValueError, KeyError, TypeError) as e:
        return f"an unreadable result file ({type(e).__name__})"
    expected = hmac.new(key, str(text).encode(), "sha256").hexdigest()
    if not isinstance(signature, str) or not hmac.compare_digest(expected, signature):
        return "a result file with a wrong signature"
    payload = json.loads(text)
    return payload if payload.get("nonce") == nonce else "a result of another grading step"


def _tail(place):
    lines = (place / "kernel-stderr.txt").read_text(errors="replace").strip().splitlines()
    return lines[-1] if lines else "no message"


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # the colours of IPython's tracebacks
# The file a kernel compiles a cell into (/tmp/ipykernel_42/3670945952.py): a name the learner never saw.
CELL_FILE = re.compile(r"(?:/[^\s,'\"()]*/)?\b\d{5,}\.py\b")


def plain(text, cell="a cell"):
    """Text of the kernel's for a learner: no colour codes, a cell's internal file name said as `cell`."""
    return CELL_FILE.sub(cell, ANSI.sub("", text))


def learner_traceback(error, label, most=3, width=1200):
    """The learner's own lines of an error output: the frames in their cells ("Cell In[7], line 2"
    and the code around it), not those inside the course's package or a library, then the error."""
    frames = [plain(f, label).rstrip() for f in error.get("traceback", [])]
    own = [f.strip("\n") for f in frames if f.lstrip().startswith("Cell In[")]
    own = own[:1] + own[1:][-(most - 1) :] if len(own) > most else own  # where it began, and where it ended
    last = plain(f"{error.get('ename', 'Error')}: {error.get('evalue', '')}", label)[:200]
    lines = "\n".join(own).splitlines()
    if not any(line.startswith(error.get("ename", "Error")) for line in lines[-2:]):
        lines.append(last)
    text = "\n".join(lines)
    return text if len(text) <= width else "...\n" + text[-width:]


def name_cells(cells, cutoffs):
    """Name each cut-off's cell by the number Jupyter shows beside it ([7]) and keep the learner's
    own traceback lines of an error (cutoff["trace"]), free of the kernel's internal file names."""
    for cut in cutoffs:
        index = cut.get("index")
        count = cells[index].get("execution_count") if index is not None else None
        if not count:  # never ran (skipped at the time limit): no number beside it
            continue
        label = f"cell [{count}]"
        errors = [o for o in cells[index].get("outputs", []) if o.get("output_type") == "error"]
        if cut["kind"] == "raised" and errors:
            cut["detail"] = plain(f"raised {errors[0].ename}: {errors[0].evalue}", label)[:200]
            cut["trace"] = learner_traceback(errors[0], label)
        cut["label"] = label
        head = f"{label} ({first_line(cells[index].source)!r})"
        cut["what"] = f"{head}{'' if cut['detail'][0] in ':;' else ' '}{cut['detail']}"
    return cutoffs


def _normal(source):
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


_STUBS = {}


def stub_cells(chapter):
    """The code cells of `chapter` ("ch07") as the course hands them out (normalised sources)."""
    if chapter not in _STUBS:
        import nbformat

        found = sorted((ROOT / "notebooks").glob(f"{chapter[2:]}_*.ipynb"))
        nb = nbformat.read(found[0], as_version=4) if found else nbformat.v4.new_notebook()
        _STUBS[chapter] = {_normal(c.source) for c in nb.cells if c.cell_type == "code"}
    return _STUBS[chapter]


def explain_unattempted(rows, cells, cutoffs):
    """Say why an exercise scored nothing when the reason is plain from the notebook: the cell that
    calls its check raised, was interrupted or was skipped; or the learner never changed its stub.
    Cells are named as Jupyter shows them ([7]); hints lose the kernel's internal file names."""
    name_cells(cells, cutoffs)
    for row in rows:
        row["hint"] = plain(row["hint"])
        if not row["check"] or row["points"]:
            continue
        calls = re.compile(rf"\b{re.escape(row['check'])}\s*\(")
        mine = [i for i, c in enumerate(cells) if c.cell_type == "code" and calls.search(c.source)]
        stubs = stub_cells(row["exercise"].split(".")[0])
        if mine and all(_normal(cells[i].source) in stubs for i in mine):
            row["hint"] = (
                f"you have not changed the stub: the cell that calls {row['check']} is as handed out"
            )
            continue
        if not row["hint"].startswith("not attempted"):
            continue
        for cut in cutoffs:
            if cut.get("index") is None or not mine:
                continue
            if cut["kind"] == "skipped" and mine[-1] >= cut["index"]:
                row["hint"] = f"not attempted: the cell that calls {row['check']} was {cut['detail']}"
            elif cut["index"] in mine:
                where = f" ({cut['label']})" if cut.get("label") else ""
                row["hint"] = (
                    f"the cell that calls {row['check']}{where} {cut['detail']}, before it reached the check"
                )
                break
    return rows


def notes_for(row, cutoffs, cells, most=3):
    """The note column: what cut this notebook's run short, this exercise's own cell first; past
    `most` items, how many more the feedback file lists."""
    calls = re.compile(rf"\b{re.escape(row['check'])}\s*\(") if row.get("check") else None
    own = [c for c in cutoffs if calls and c["index"] is not None and calls.search(cells[c["index"]].source)]
    items = [f"this exercise's cell: {c['what']}" for c in own] + [c["what"] for c in cutoffs if c not in own]
    more = f"; and {len(items) - most} more (see the feedback file)" if len(items) > most else ""
    return "; ".join(items[:most]) + more


def zero_rows(chapter, points, why):
    """0 points for every exercise of the chapter, and why (in the note)."""
    return [
        dict(exercise=n, points=0, max_points=points.get(n, 1), hint="not graded", note=why)
        for n in exercise_names(chapter)
    ]


def grade_notebook(path, chapter, points, limits, student, slot=0, unsafe=False):
    """The run_one result for one notebook, in a process of its own; never raises.

    The process (this file with --one) runs the kernel and its sandbox; it writes its result to a
    file in a folder of its own, which no sandbox can see, and that file is all it says. Whatever
    is still running when it ends, or at the hard limit, is stopped (the sandbox ends with it)."""
    path, student = Path(path).resolve(), Path(student).resolve()  # the process runs in a scratch folder
    hard = hard_limit(limits)
    with tempfile.TemporaryDirectory(prefix="grader-") as place:
        place = Path(place)
        cmd = [sys.executable, __file__, "--one", str(path), "--chapter", chapter, "--student", str(student)]
        cmd += ["--limits-json", json.dumps(limits), "--points-json", json.dumps(points)]
        cmd += ["--result", str(place / "result.json"), "--slot", str(slot)]
        cmd += ["--unsafe"] if unsafe else []
        work = place / "run"
        work.mkdir()
        with open(place / "stderr.txt", "w+") as err:
            proc = subprocess.Popen(
                cmd,
                cwd=work,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,  # a session of its own: stopped with all it started
            )
            try:
                proc.wait(timeout=hard)
            except subprocess.TimeoutExpired:
                pass
            try:  # anything of the run still alive (the sandbox dies with its parent)
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            err.seek(0)
            stderr = err.read()
        result = place / "result.json"
        timed_out = proc.returncode == -signal.SIGKILL and not result.exists()
        text = result.read_text(encoding="utf-8") if result.exists() else ""
        remove_tree(work)
    if timed_out:
        why = f"the notebook did not finish within {hard:g} s and was stopped"
        rows = zero_rows(chapter, points, why)
        # The cell, notebook and grading limits end a run well before this one: a run that reaches
        # it got past them (or the machine is far too busy), which the instructor should look at.
        sign = why + ", past the cell, notebook and grading time limits that should have ended it first"
        return dict(rows=rows, cutoffs=[dict(what=why)], grader_error=None, signs=[sign])
    if proc.returncode == 0 and text:
        result = json.loads(text)
        if result["rows"] is None:
            result["rows"] = zero_rows(chapter, points, "; ".join(c["what"] for c in result["cutoffs"]))
        return dict(result, grader_error=None)
    last = (stderr.strip().splitlines() or [f"exit status {proc.returncode}, no message"])[-1]
    return grader_failed(chapter, points, last)


def grader_failed(chapter, points, error):
    """The result of a notebook the grader could not grade: 0 for each exercise, saying why."""
    why = f"the grader failed on this notebook (not the learner's fault): {error}"
    return dict(rows=zero_rows(chapter, points, why), cutoffs=[dict(what=why)], grader_error=error, signs=[])


def hard_limit(limits):
    """s after which a notebook's whole run is stopped, whatever it is doing (instructor/README.md)."""
    return limits["notebook"] + 2 * limits["cell"] + limits["grading"] + 120


# ---- a whole folder ---------------------------------------------------------------------------------


def reference_source(chapter):
    """The source of chapter's references, which its hidden cases compare with (student.reference_source)."""
    from instructor import student

    return student.reference_source(chapter)


def build_student(into):
    """The student edition (instructor/student.py) in `into`; its path."""
    from instructor import student

    return Path(student.build(Path(into) / "student"))


def grade_folder(
    submissions, points, limits=None, layout=None, progress=None, chapter=None, jobs=1, unsafe=False
):
    """(rows, results): rows for every learner and chapter of `layout` (default: scan(submissions)),
    sorted by learner, chapter, exercise; results maps (learner, chapter) to what run_one found.

    A learner is graded on the chapters they handed in, on the chapter a misnamed notebook was named
    for, and on `chapter` if given (a notebook not handed in then scores 0, with a note). `jobs`
    notebooks are graded side by side, each in its own sandbox (`unsafe`: without one); the rows
    are the same whatever `jobs` is."""
    import queue
    from concurrent.futures import ThreadPoolExecutor

    limits = dict(default_limits(), **(limits or {}))
    layout = layout or scan(submissions, only_chapter=chapter)
    plan, results = [], {}  # (learner, chapter, notebook path or None) in the order of the rows
    for learner in sorted(layout.learners):
        found, notes = layout.learners[learner], layout.notes.get(learner, [])
        named = {f"ch{m}" for n in notes for m in re.findall(r"named for chapter (\d\d)", n)}
        chapters = sorted({*found, *(named if chapter is None else ()), *([chapter] if chapter else [])})
        if not chapters:
            plan.append((learner, "", None))
        for ch in chapters:
            path = found.get(ch)
            plan.append((learner, ch, path))
            if path is None:
                why = f"no notebook of chapter {ch[2:]} handed in"
                held = [n for n in notes if f"named for chapter {ch[2:]}" in n]
                why += f" ({held[0]})" if held else ""
                results[learner, ch] = dict(rows=zero_rows(ch, points, why), cutoffs=[], grader_error=None)
    todo = [(learner, ch, path) for learner, ch, path in plan if path is not None]
    slots = queue.Queue()  # each job its own slot: its sandbox's user
    for slot in range(max(1, jobs)):
        slots.put(slot)

    def grade_one(learner, ch, path, student):
        name = shown_name(f"{learner}/{path.relative_to(Path(submissions) / learner)}")
        if progress and jobs == 1:
            progress(f"grading {name} ...")
        slot = slots.get()
        try:
            begun = time.monotonic()
            try:
                result = grade_notebook(path, ch, points, limits, student, slot=slot, unsafe=unsafe)
            except Exception as e:  # noqa: BLE001 - the class's other grades must still be written
                result = grader_failed(ch, points, f"{type(e).__name__}: {e}")
        finally:
            slots.put(slot)
        result.update(notebook=path.name, total=time.monotonic() - begun)
        if progress:
            done = "" if jobs == 1 else f"graded {name}:\n"
            ran = result.get("wall") is not None
            progress(done + (timing(result) if ran else "    (not run to its end)"))
        return result

    with tempfile.TemporaryDirectory(prefix="student-") as tmp:
        student = build_student(tmp) if todo else None
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {(lr, ch): pool.submit(grade_one, lr, ch, path, student) for lr, ch, path in todo}
            for key, future in futures.items():
                results[key] = future.result()
    rows = []
    for learner, ch, path in plan:
        if not ch:
            why = "; ".join(layout.notes.get(learner, [])) or "nothing to grade"
            rows.append(
                dict(learner=learner, chapter="", notebook="", exercise="", points=0, max_points=0)
                | dict(hint="not graded", note=why)
            )
            continue
        name = path.name if path else ""
        rows += [dict(learner=learner, chapter=ch, notebook=name, **r) for r in results[learner, ch]["rows"]]
    return rows, results


def timing(result):
    """One line: how long the notebook's cells and its grading took."""
    slowest, cpu = result.get("slowest") or {}, result.get("cpu")
    line = f"    {result['total']:.0f} s in all; cells: {result['wall']:.0f} s"
    line += f" ({cpu:.0f} s kernel CPU)" if cpu is not None else ""
    if slowest.get("cell"):
        line += f"; slowest: code cell {slowest['cell']}, {slowest['wall']:.0f} s"
        line += f" ({slowest['cpu']:.0f} s CPU)"
    if result.get("grading_wall") is not None:
        line += f"; grading: {result['grading_wall']:.0f} s"
    return line


def default_limits(cell=CELL_TIMEOUT, notebook=NOTEBOOK_TIMEOUT, check=CHECK_TIMEOUT):
    # The grading cell runs each check and hidden case once; each may take up to `check` seconds.
    return dict(cell=cell, notebook=notebook, check=check, grading=check * 25 + 60)


FIELDS = ["learner", "chapter", "notebook", "exercise", "points", "max_points", "hint", "note"]


def write_csv(rows, out):
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(
            {k: shown_name(row[k]) if isinstance(row[k], str) else row[k] for k in FIELDS} for row in rows
        )


def feedback(learner, rows, results, layout):
    """The feedback file of one learner (Markdown): each exercise, its points, the hint, what stopped."""
    mine = [r for r in rows if r["learner"] == learner]
    got, most = sum(r["points"] for r in mine), sum(r["max_points"] for r in mine)
    lines = [f"# Feedback for {learner}", "", f"**{got:g} / {most:g} points** in total.", ""]
    for note in layout.notes.get(learner, []):
        lines.append(f"- {note}")
    if layout.notes.get(learner):
        lines.append("")
    for chapter in sorted({r["chapter"] for r in mine if r["chapter"]}):
        these = [r for r in mine if r["chapter"] == chapter]
        result = results.get((learner, chapter), {})
        got, most = sum(r["points"] for r in these), sum(r["max_points"] for r in these)
        source = f" (`{these[0]['notebook']}`)" if these[0]["notebook"] else ""
        lines += [f"## Chapter {chapter[2:]}{source}: {got:g} / {most:g} points", ""]
        for r in these:
            lines.append(f"- **{r['exercise']}**: {r['points']:g} / {r['max_points']:g}. {r['hint']}")
        cutoffs = result.get("cutoffs") or []
        if not result.get("notebook"):  # nothing ran: the note says why
            lines += ["", f"Not graded: {these[0]['note']}."]
        elif cutoffs:
            lines += ["", "What stopped:", ""]
            for c in cutoffs:
                lines.append(f"- {c['what']}")
                if c.get("trace"):  # the learner's own lines of the traceback, as a code block
                    fence = "`" * max(3, 1 + max(map(len, re.findall("`+", c["trace"])), default=0))
                    lines += [
                        "",
                        f"  {fence}text",
                        *(f"  {t}" for t in c["trace"].splitlines()),
                        f"  {fence}",
                    ]
                    lines += [""] if c is not cutoffs[-1] else []
            if any(c.get("kind") in ("raised", "interrupted") for c in cutoffs):
                lines += ["", "After a cell that raised or was interrupted, the cells below it still ran."]
        else:
            lines += ["", "Every cell ran to its end without an error."]
        lines.append("")
    prefix = f"{learner}/"
    ignored = [(rel, why) for rel, why in layout.ignored if rel.startswith(prefix)]
    if ignored:
        lines += (
            ["## Files not graded", ""] + [f"- `{rel[len(prefix) :]}`: {why}" for rel, why in ignored] + [""]
        )
    return "\n".join(shown_name(line) for line in lines).rstrip() + "\n"


def summary(rows):
    """One line per learner: points out of the maximum, exercises right, and cut-offs."""
    lines = []
    for learner in sorted({r["learner"] for r in rows}):
        mine = [r for r in rows if r["learner"] == learner]
        got, most = sum(r["points"] for r in mine), sum(r["max_points"] for r in mine)
        graded = [r for r in mine if r["exercise"]]
        right = sum(r["points"] == r["max_points"] for r in graded)
        line = f"{learner}: {got:g} / {most:g} points ({right} of {len(graded)} exercises correct)"
        noted = {r["chapter"] for r in mine if r["note"]}
        if not graded:
            line = f"{learner}: not graded ({mine[0]['note']})"
        elif noted:
            line += f"; see the note in chapter(s) {', '.join(c[2:] for c in sorted(noted))}"
        lines.append(line)
    return "\n".join(shown_name(line) for line in lines)


UNSAFE_NOTE = (
    "UNSAFE: graded without a sandbox ({why}): learner code ran as the grading user, with its files and"
    " network; these grades may have been tampered with"
)


def marked(text, learner, results, unsafe):
    """A learner's feedback with the grader's own warnings: no sandbox, signs of tampering."""
    extra = []
    if unsafe:
        extra.append("**Graded without a sandbox (`--unsafe`)**: your instructor will check these grades.")
    for (who, ch), result in sorted(results.items()):
        if who == learner and result.get("signs"):
            signs = "; ".join(result["signs"])
            extra.append(f"**Chapter {ch[2:]} is flagged for your instructor**: {signs}")
    if not extra:
        return text
    head, _, rest = text.partition("\n\n")
    return head + "\n\n" + "\n\n".join(extra) + "\n\n" + rest


def end_with_parent():
    """Linux: this process (and so its sandbox) ends when the grader does, even if it was killed."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def default_jobs():
    """One job per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="?", help="folder with one sub-folder per learner")
    parser.add_argument("--out", help=f"folder for grades.csv and feedback/ (default {DEFAULT_OUT})")
    parser.add_argument("--points", help="TOML file: exercise name = points (default 1 each)")
    parser.add_argument("--learner", help="grade this learner (sub-folder name) only")
    parser.add_argument("--chapter", help="grade this chapter only (07 or ch07)")
    parser.add_argument(
        "--cell-timeout", type=float, default=CELL_TIMEOUT, help="s before a cell is interrupted"
    )
    parser.add_argument(
        "--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT, help="s of cells per notebook"
    )
    parser.add_argument(
        "--check-timeout", type=float, default=CHECK_TIMEOUT, help="s per check while grading"
    )
    parser.add_argument(
        "--reveal-cases", action="store_true", help="feedback shows a failed hidden case's input and answer"
    )
    parser.add_argument(
        "--jobs", type=int, default=default_jobs(), help="notebooks graded side by side (default: 1 per core)"
    )
    parser.add_argument(
        "--unsafe",
        action="store_true",
        help="grade without a sandbox (learner code then runs as you; the report and feedback say so)",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one notebook
    parser.add_argument("--student", help=argparse.SUPPRESS)
    parser.add_argument("--limits-json", help=argparse.SUPPRESS)
    parser.add_argument("--points-json", default="{}", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--slot", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        end_with_parent()
        result = run_one(
            args.one,
            args.chapter,
            json.loads(args.points_json),
            json.loads(args.limits_json),
            Path(args.student),
            slot=args.slot,
            unsafe=args.unsafe,
        )
        Path(args.result).write_text(json.dumps(result), encoding="utf-8")
        return 0
    if not args.submissions or not Path(args.submissions).is_dir():
        parser.error(f"SUBMISSIONS must be a folder of learner folders, got {args.submissions!r}")
    for name in ("cell_timeout", "notebook_timeout", "check_timeout"):
        if not getattr(args, name) > 0:
            parser.error(f"--{name.replace('_', '-')} must be a number of seconds > 0")
    if args.jobs < 1:
        parser.error(f"--jobs must be a whole number >= 1, got {args.jobs}")
    chapter = None
    if args.chapter is not None:
        match = re.fullmatch(r"(?:ch)?(\d{1,2})", args.chapter.strip())
        chapter = f"ch{int(match.group(1)):02d}" if match else None
        known = sorted({n.split(".")[0] for n in registry()})
        if chapter not in known:
            parser.error(
                f"--chapter {args.chapter!r}: the chapters with exercises are "
                + ", ".join(c[2:] for c in known)
            )
    out = Path(args.out) if args.out else DEFAULT_OUT
    if out.suffix == ".csv":
        parser.error(f"--out names a folder (grades.csv and feedback/ go in it), got {out}")
    try:
        points = read_points(args.points) if args.points else {}
    except PointsError as e:
        print(f"POINTS: {e}", file=sys.stderr)
        return 2
    from instructor import sandbox

    why = sandbox.problem()
    if why and not args.unsafe:
        print(
            f"cannot grade safely: {why}.\nEach notebook's kernel runs in a bubblewrap sandbox (no network,"
            " no view of other files); without one, learner code runs as you, with your files and"
            " network. To grade anyway, pass --unsafe (make grade ... UNSAFE=1).",
            file=sys.stderr,
        )
        return 2
    layout = scan(args.submissions, args.learner, chapter)
    if args.unsafe:
        print(UNSAFE_NOTE.format(why=why or "--unsafe was passed"))
    print(layout_report(layout, args.submissions), flush=True)
    if not any(layout.learners.values()):
        print(
            "nothing to grade: see above (one folder per learner, holding NN_....ipynb notebooks)",
            file=sys.stderr,
        )
        return 2
    limits = default_limits(args.cell_timeout, args.notebook_timeout, args.check_timeout)
    limits["reveal"] = args.reveal_cases
    begun, graded = time.monotonic(), sum(len(found) for found in layout.learners.values())
    rows, results = grade_folder(
        args.submissions,
        points,
        limits,
        layout,
        progress=lambda s: print(s, flush=True),
        chapter=chapter,
        jobs=args.jobs,
        unsafe=args.unsafe,
    )
    took = time.monotonic() - begun
    part = "".join([f"-{args.learner}" if args.learner else "", f"-{chapter}" if chapter else ""])
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / f"grades{part}.csv")
    for learner in sorted({r["learner"] for r in rows}):
        text = feedback(learner, rows, results, layout)
        text = marked(text, learner, results, args.unsafe)
        (out / "feedback" / shown_name(f"{learner}{part.replace(f'-{learner}', '', 1)}.md")).write_text(
            text, encoding="utf-8"
        )
    print(summary(rows))
    flagged = sorted((key, r["signs"]) for key, r in results.items() if r.get("signs"))
    for (learner, ch), signs in flagged:
        print(f"FLAGGED {learner} chapter {ch[2:]}: signs of tampering: " + "; ".join(signs))
    rate = graded / took * 60 if took > 0 else 0
    print(f"{graded} notebook(s) in {took:.0f} s with {args.jobs} job(s): {rate:.1f} notebooks per minute")
    if args.unsafe:
        print(UNSAFE_NOTE.format(why=why or "--unsafe was passed"))
    errors = [(key, r["grader_error"]) for key, r in results.items() if r.get("grader_error")]
    for (learner, ch), error in errors:
        print(shown_name(f"grader error on {learner} chapter {ch[2:]}: {error}"), file=sys.stderr)
    print(f"grades written to {out / f'grades{part}.csv'}, feedback to {out / 'feedback'}/")
    if errors or layout.warnings:
        print(
            f"{len(errors)} grader error(s), {layout.warnings} layout warning(s): see above", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
