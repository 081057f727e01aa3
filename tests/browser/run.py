"""The course as a learner meets it, in a real browser (`make test-browser`).

Starts JupyterLab from this environment (127.0.0.1, a free port, a token, throwaway
config/data/runtime folders) on a copy of the notebooks, and drives Debian's Chromium
through Playwright at 1280x800:

1. every notebook, trusted as `make lab` does and opened without running anything:
   stored graphs and plots show as pictures, none is wider than the output area or
   taller than the notebook's view, formulas are typeset, and after 10 s the notebook
   is not marked modified and its file is unchanged;
2. Run All on a graph-heavy chapter (a drawn graph appears, with its node labels)
   and on chapter 9 (the progress bar moves while training runs);
3. the static site from `make html`: the index (title, chapter list) and one chapter
   (a graph, typeset math);
4. the site's playground, served on 127.0.0.1 (WebAssembly does not load from file://):
   every example runs and shows the gradients the course's engine gives in this Python,
   a syntax error and a log of -1 are one readable line, Stop ends an endless loop within
   2 s, code from a link is shown but not run, and nothing is requested from elsewhere; then
   playground_state.py: its state, keyboard, screens, zoom and messages, at 1280x800 and 390x844.

Screenshots go to build/browser/. The server is stopped by its PID whatever happens,
and the whole run is bounded in time.

    python tests/browser/run.py [--chromium /usr/bin/chromium] [--only 02 09]
"""

import argparse
import base64
import difflib
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import nbformat
import playground_state  # beside this file
import site_checks  # beside this file
from playground_train import check_training
from playwright.sync_api import sync_playwright

from notebooks.chapters import chapters as course_chapters
from notebooks.chapters import numbered

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SHOTS = ROOT / "build" / "browser"
SITE = ROOT / "build" / "html"
LAB_CONFIG = ROOT / "jupyter-config"  # what `make lab` puts on JUPYTER_CONFIG_PATH
VIEWPORT = {"width": 1280, "height": 800}
GRAPH_CHAPTER = "03"  # a graph-heavy chapter, run in the browser
TRAINING_CHAPTER = "09"  # fit's progress bar, run in the browser
STEP_CHAPTERS = ("03", "04", "13")  # chapters that show a step-through of backward()
FIRST = "00_python_you_need.ipynb"  # the chapter `make lab` opens
# The whole run, servers and browser included (a busy machine may need more: BROWSER_TEST_SECONDS).
TOTAL_SECONDS = int(os.environ.get("BROWSER_TEST_SECONDS", 1800))
# How much wider than the output area a picture may be stored. JupyterLab shows an SVG
# drawing at its own size (a wider one was found cut off) but shrinks a PNG plot to fit
# (max-width: 100%); past 1.25x its text is too small to read.
SHRINK_LIMIT = {"svg": 1.0, "png": 1.25}
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",  # root in a container has no user namespace for the sandbox
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

failures = []
# What a run checks (--parts): JupyterLab opening every notebook, running two chapters, saving
# without changing the stored metadata; the static site, its accessibility, its playground.
PARTS = ["lab", "runs", "save", "site", "axe", "playground"]


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A JupyterLab server in its own process group, on a copy of the notebooks."""

    def __init__(self, workdir, python=sys.executable):
        self.port, self.token = free_port(), uuid.uuid4().hex
        self.root = workdir / "notebooks"
        shutil.copytree(NOTEBOOKS, self.root, ignore=shutil.ignore_patterns("src", ".ipynb_checkpoints"))
        env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(workdir / "config"),
            JUPYTER_DATA_DIR=str(workdir / "data"),
            JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
            IPYTHONDIR=str(workdir / "ipython"),
            # the kernel imports micrograd_lesson from this checkout, installed or not
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            JUPYTER_CONFIG_PATH=str(LAB_CONFIG),  # as `make lab`: the course's server config
        )
        # JupyterLab's own check for news and updates would reach the network.
        settings = workdir / "config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True)
        (settings / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False})
        )
        # As `make lab` does: trusted notebooks show their stored drawings as SVG.
        notebooks = sorted(str(p) for p in self.root.glob("*.ipynb"))
        trust = [python, "-m", "jupyter", "trust", *notebooks]
        subprocess.run(trust, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command = [
            python, "-m", "jupyter", "lab", "--no-browser",
            "--ip=127.0.0.1", f"--port={self.port}", f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}", "--LabApp.expose_app_in_browser=True",
            "--ServerApp.port_retries=0", "--KernelManager.transport=ipc",
            f"--LabApp.default_url=/lab/tree/{FIRST}",  # as `make lab`: its printed address opens chapter 0
        ]  # fmt: skip
        if os.geteuid() == 0:
            command.append("--allow-root")
        self.log = open(workdir / "lab.log", "wb")
        self.process = subprocess.Popen(
            command, cwd=self.root, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.url = f"http://127.0.0.1:{self.port}"
        self._wait_until_up()

    def printed_url(self):
        """The address JupyterLab printed for the learner to open (it prints a token it was given as ...)."""
        found = re.findall(r"http://127\.0\.0\.1:\d+/\S*token=\S+", Path(self.log.name).read_text())
        return found[0].replace("token=...", f"token={self.token}") if found else None

    def _wait_until_up(self, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.process.returncode}; see {self.log.name}")
            try:
                urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"JupyterLab did not answer within {seconds} s; see {self.log.name}")

    def open_url(self, name):
        return f"{self.url}/lab/tree/{name}?reset&token={self.token}"

    def stop(self):
        """Stop the server's process group (the server and its kernels) by its PID."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


def stored_pictures(nb_path, kind=("image/png", "image/svg+xml")):
    """How many pictures (PNG or SVG; kind narrows it) the stored notebook's outputs show: one per
    output, or one per <img> where the course gives the picture as HTML with its description (a
    stored step-through shows each of its frames)."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    count = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            page = "".join(data.get("text/html", ""))
            if page:  # JupyterLab shows the HTML: its pictures of that kind
                sources = re.findall(r'<img src="data:(image/[a-z+]+)', page)
                count += sum(1 for source in sources if source in kind)
            elif set(kind) & set(data):
                count += 1
    return count


def stored_errors(nb_path):
    """How many outputs of the stored notebook are errors (cells tagged raises-exception)."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    return sum(1 for cell in nb["cells"] for out in cell.get("outputs", []) if out["output_type"] == "error")


def has_math(nb_path):
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    return any("$" in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


# Measures every picture in the notebook's outputs against its output area and the view.
# JupyterLab puts only the cells near the view in the page, so scroll through it all.
MEASURE_PICTURES = """
async () => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const view = panel.querySelector('.jp-WindowedPanel-outer');
  const found = new Map();
  for (let top = 0; ; top += view.clientHeight / 2) {
    view.scrollTo(0, top);
    await new Promise(r => setTimeout(r, 300));
    for (const cell of panel.querySelectorAll('.jp-Cell')) {
      const pictures = cell.querySelectorAll('.jp-OutputArea-output img');
      for (const [i, img] of [...pictures].entries()) {
        if (!img.complete) await new Promise(r => { img.onload = r; img.onerror = r; setTimeout(r, 3000); });
        const key = cell.dataset.windowedListIndex + '/' + i;
        const width = Number(img.getAttribute('width')) || img.naturalWidth;
        found.set(key, {
          cell: Number(cell.dataset.windowedListIndex) + 1,
          kind: img.src.startsWith('data:image/svg+xml') || img.closest('.jp-RenderedSVG') ? 'svg' : 'png',
          loaded: img.naturalWidth > 0,
          width,
          height: img.naturalWidth ? img.naturalHeight * width / img.naturalWidth : 0,
          area: img.closest('.jp-OutputArea-output').clientWidth,
          view: view.clientHeight,
        });
      }
    }
    if (top + view.clientHeight >= view.scrollHeight) break;
  }
  return [...found.values()];
}
"""

MATH_STATE = """
() => {
  const md = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownOutput')];
  const typeset = md.reduce((n, el) => n + el.querySelectorAll('mjx-container, .MathJax').length, 0);
  const raw = md.filter(el => /\\$[^$\\s][^$]*\\$/.test(el.innerText)).length;
  return {typeset, raw};
}
"""

# Resolves once the notebook's kernel has answered kernel_info (what JupyterLab copies into the
# notebook's metadata); its status then.
KERNEL_INFO_ARRIVED = """
async () => {
  const context = window.jupyterapp.shell.currentWidget.sessionContext;
  await context.ready;
  const kernel = context.session && context.session.kernel;
  if (!kernel) return 'no kernel';
  await kernel.info;
  return kernel.status;
}"""

IS_DIRTY = """
() => {
  const tab = document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current');
  return tab ? tab.classList.contains('jp-mod-dirty') : null;
}
"""


def wait_for_notebook(page):
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)
    # the kernel connects (and would rewrite language_info) soon after the notebook shows
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext && w.sessionContext.session"
        " && w.sessionContext.session.kernel && w.sessionContext.session.kernel.status === 'idle'; }",
        timeout=60_000,
    )


# With the file browser open: how many characters fit a code cell's editor, and a printed
# line of output, at the editor's and the output's own monospace font.
COLUMNS = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const cell = panel.querySelector('.jp-CodeCell');
  const scroller = cell.querySelector('.cm-scroller');
  const content = cell.querySelector('.cm-content');
  const line = cell.querySelector('.cm-line');
  const probe = (parent) => { const s = document.createElement('span'); s.textContent = 'x'.repeat(100);
    parent.appendChild(s); const w = s.getBoundingClientRect().width / 100; s.remove(); return w; };
  const style = getComputedStyle(content), lineStyle = getComputedStyle(line);
  const gutters = cell.querySelector('.cm-gutters');
  const editorWidth = scroller.clientWidth - (gutters ? gutters.offsetWidth : 0)
    - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
    - parseFloat(lineStyle.paddingLeft) - parseFloat(lineStyle.paddingRight);
  const codeChar = probe(line);
  const pre = panel.querySelector('.jp-RenderedText pre');
  const outChar = probe(pre);
  return {code: Math.floor(editorWidth / codeChar), output: Math.floor(pre.clientWidth / outChar),
          sidebar: document.querySelector('#jp-left-stack').getBoundingClientRect().width,
          wrap: ['whiteSpace', 'wordBreak', 'overflowWrap'].map(k => getComputedStyle(pre)[k]).join(' '),
          editor: editorWidth};
}
"""


def long_lines(nb_path, code_columns, output_columns):
    """(cell, what, length): code lines wider than the editor, printed lines wider than the output."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    found = []
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        for line in "".join(cell["source"]).splitlines():
            if len(line) > code_columns:
                found.append((i + 1, "code", len(line)))
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if {"image/png", "image/svg+xml", "text/html"} & set(data):
                continue  # JupyterLab shows the picture or the HTML, not the plain text
            text = "".join(out.get("text", "") or data.get("text/plain", ""))
            for line in text.splitlines():
                if len(line) > output_columns:
                    found.append((i + 1, "printed", len(line)))
    return found


def check_printed_url(page, lab):
    """The address JupyterLab prints opens chapter 0, with no pop-up asking about news."""
    url = lab.printed_url()
    if not check(url is not None, "JupyterLab printed an address with its token"):
        return
    page.goto(url)
    wait_for_notebook(page)
    opened = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.path")
    check(opened == FIRST, f"the printed address opens {opened}")
    page.wait_for_timeout(3000)
    toasts = page.locator(".jp-Notification-Toast, .Toastify__toast").count()
    check(toasts == 0, f"no notification pop-up (news or updates) after 3 s ({toasts})")
    page.screenshot(path=str(SHOTS / "lab_printed_url.png"))


def check_line_widths(page, lab, names):
    """With the file browser open, every code line fits its editor and every printed line its output."""
    page.goto(lab.open_url(f"{names[0]}.ipynb"))
    wait_for_notebook(page)
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    page.wait_for_timeout(1000)
    columns = page.evaluate(COLUMNS)
    page.screenshot(path=str(SHOTS / "file_browser_open.png"))
    check(columns["sidebar"] > 150, f"file browser open ({columns['sidebar']:.0f} px): {columns['code']}"
          f" characters fit a code line, {columns['output']} a printed line ({columns['wrap']})")  # fmt: skip
    for name in names:
        found = long_lines(lab.root / f"{name}.ipynb", columns["code"], columns["output"])
        check(not found, f"{name}: every code line fits the editor and every printed line the output"
              f" {[f'cell {c}: {what} {n} chars' for c, what, n in found][:8] or ''}")  # fmt: skip
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")


# The folded "How we know" notes (and asides) of the page: Markdown's <details>, each with a summary.
FOLDED_NOTES = """
() => {
  const notes = [...document.querySelectorAll('.jp-RenderedMarkdown details, .jp-MarkdownOutput details')];
  return {count: notes.length, open: notes.filter(d => d.open).length,
          summaries: notes.filter(d => d.querySelector(':scope > summary')).length};
}
"""
NOTE_SUMMARY = ".jp-RenderedMarkdown details > summary, .jp-MarkdownOutput details > summary"


def stored_notes(nb_path):
    """How many folded notes the notebook's Markdown holds."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return sum(len(re.findall(r"<details\b", text)) for text in markdown)


def check_folded_notes(page, where, expected):
    """Every folded note shows folded on load, has a summary, and opens and closes from the keyboard
    (Enter opens the first one, Space closes it), with its text hidden while folded."""
    if not expected:
        return
    notes = page.evaluate(FOLDED_NOTES)
    check(notes["count"] > 0 and notes["open"] == 0 and notes["summaries"] == notes["count"],
          f"{where}: folded notes folded on load ({notes['count']} shown of {expected},"
          f" {notes['open']} open)")  # fmt: skip
    summary = page.locator(NOTE_SUMMARY).first
    if not summary.count():
        return
    summary.scroll_into_view_if_needed()
    note = summary.locator("xpath=..")
    body = note.locator(":scope > :not(summary)").first
    hidden = not body.is_visible() if body.count() else True
    summary.focus()
    page.keyboard.press("Enter")
    opened = note.evaluate("d => d.open") and (body.is_visible() if body.count() else True)
    page.keyboard.press(" ")
    closed = not note.evaluate("d => d.open")
    check(hidden and opened and closed,
          f"{where}: a note's text is hidden while folded ({hidden}), Enter opens it ({opened}),"
          f" Space folds it again ({closed})")  # fmt: skip


def open_each_notebook(page, lab, names):
    for name in names:
        nb_path = lab.root / f"{name}.ipynb"
        before = nb_path.read_bytes()
        page.goto(lab.open_url(nb_path.name))
        wait_for_notebook(page)
        opened = time.monotonic()
        pictures = page.evaluate(MEASURE_PICTURES)
        expected = stored_pictures(nb_path)
        if len(pictures) < expected:  # a busy machine renders late: one more pass through the notebook
            pictures = page.evaluate(MEASURE_PICTURES)
        shown = f"{len(pictures)} of {expected} stored pictures show as images"
        check(len(pictures) == expected, f"{name}: {shown}")
        check(all(p["loaded"] for p in pictures), f"{name}: every picture loaded")
        wide = [p for p in pictures if p["width"] > p["area"] * SHRINK_LIMIT[p["kind"]] + 1]
        area = pictures[0]["area"] if pictures else "-"
        detail = [(f"cell {p['cell']}", p["kind"], p["width"]) for p in wide]
        check(not wide, f"{name}: no drawing wider than its output area ({area} px), no plot shrunk by more"
              f" than {SHRINK_LIMIT['png']}x {detail or ''}")  # fmt: skip
        for p in pictures:  # the height as shown, after JupyterLab shrinks a wide plot
            p["height"] *= min(1, p["area"] / p["width"]) if p["kind"] == "png" and p["width"] else 1
        tall = [p for p in pictures if p["height"] > p["view"]]
        view = pictures[0]["view"] if pictures else "-"
        detail = [(f"cell {p['cell']}", p["kind"], round(p["height"])) for p in tall]
        check(not tall, f"{name}: no picture taller than the notebook's view ({view} px) {detail or ''}")
        if has_math(nb_path):
            page.wait_for_timeout(1000)
            math = page.evaluate(MATH_STATE)
            check(math["typeset"] > 0 and math["raw"] == 0, f"{name}: formulas typeset ({math})")
        check_folded_notes(page, name, stored_notes(nb_path))
        # the screenshot shows the first picture (or the top, when there is none)
        first = pictures[0]["cell"] - 1 if pictures else 0
        page.evaluate(f"() => window.jupyterapp.shell.currentWidget.content.scrollToItem({first}, 'start')")
        # JupyterLab writes the kernel's language_info into the notebook once the kernel has said
        # what it is: wait for that answer, then a moment for the change to reach the tab.
        ready = page.evaluate(KERNEL_INFO_ARRIVED)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(SHOTS / f"{name}.png"))
        shown = f"after the kernel said what it is ({ready}) and {time.monotonic() - opened:.0f} s open"
        check(page.evaluate(IS_DIRTY) is False, f"{name}: not marked modified {shown}")
        check(nb_path.read_bytes() == before, f"{name}: file unchanged on disk")


KERNEL_LANGUAGE = """
() => { const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        return kernel.info.then(info => info.language_info); }
"""


def other_pythons():
    """The course's other environments here (.venv313, ...): each one's Python, if it runs another
    version than this one and has JupyterLab. CI makes .venv313 before the browser test."""
    found = []
    for python in sorted(ROOT.glob(".venv*/bin/python")):
        said = subprocess.run([python, "-c", "import sys, jupyterlab; print(sys.version.split()[0])"],
                              capture_output=True, text=True)  # fmt: skip
        version = said.stdout.strip()
        if said.returncode == 0 and version[:4] != platform.python_version()[:4]:
            found.append((python, version))
    return found


def check_save_keeps_metadata(page, tmp, names, pythons):
    """Opening a notebook changes nothing on disk, on every Python given (jupyter/notebook#2123):
    JupyterLab as `make lab` runs it, the notebook opened, its kernel connected, saved with
    Ctrl+S; the file's bytes are the same. A copy of the chapter whose stored language_info says
    Python 3.0.0 shows that this holds where the kernel's metadata differs from the file's (on
    the Python that stored the notebooks too): it is marked modified before the save."""
    name = names[0]
    for python in pythons:
        lab = Lab(tmp / f"save-{len(list(tmp.glob('save-*')))}", python=str(python))
        try:
            stored = nbformat.read(lab.root / f"{name}.ipynb", as_version=nbformat.NO_CONVERT)
            stored.metadata.language_info.version = "3.0.0"
            stored.metadata.kernelspec.display_name = "Python 3.0 (stored elsewhere)"
            nbformat.write(stored, lab.root / "elsewhere.ipynb")  # as the course stores its notebooks
            for file in (f"{name}.ipynb", "elsewhere.ipynb"):
                path = lab.root / file
                before, mtime = path.read_bytes(), path.stat().st_mtime_ns
                page.goto(lab.open_url(file))
                wait_for_notebook(page)
                kernel = page.evaluate(KERNEL_LANGUAGE)["version"]
                page.wait_for_timeout(1000)
                dirty = page.evaluate(IS_DIRTY)
                if file == "elsewhere.ipynb":
                    check(dirty, f"save on Python {kernel}: {file} (stored by 3.0.0) is marked modified")
                page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first.click()
                page.keyboard.press("Control+s")
                page.wait_for_function(f"() => ({IS_DIRTY.strip()})() === false", timeout=30_000)
                deadline = time.monotonic() + 10
                while path.stat().st_mtime_ns == mtime and time.monotonic() < deadline:
                    time.sleep(0.2)
                saved = path.stat().st_mtime_ns != mtime
                # The server may still be writing (a loaded machine read an empty file here once):
                # the bytes once they stop changing.
                after, settled = path.read_bytes(), time.monotonic() + 10
                while saved and time.monotonic() < settled:
                    time.sleep(0.3)
                    now = path.read_bytes()
                    if now == after and now:
                        break
                    after = now
                changed = "".join(
                    difflib.unified_diff(
                        before.decode().splitlines(True), after.decode().splitlines(True), n=1
                    )
                )[:1500]  # what the save changed, for a failure to say
                check(saved and after == before,
                      f"save on Python {kernel}: {file} saved with Ctrl+S"
                      f" ({'written' if saved else 'NOT written'}), its bytes unchanged"
                      + (f": {changed}" if changed else ""))  # fmt: skip
        finally:
            lab.stop()


def run_all(page, lab, name, while_running=None):
    page.goto(lab.open_url(f"{name}.ipynb"))
    wait_for_notebook(page)
    # Not awaited: the command's promise settles only when every cell has run.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    seen = while_running(page) if while_running else None
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return w.sessionContext.session.kernel.status === 'idle'"
        " && ![...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.innerText.includes('*')); }",
        timeout=600_000,
        polling=500,
    )
    errors = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) [data-mime-type*=error]")
    return seen, errors.count()


# A drawn computation graph in an output: an SVG picture (as an <img> in the course's HTML, which
# carries its description, or in JupyterLab's own SVG renderer).
DRAWN_GRAPH = '.jp-OutputArea-output img[src^="data:image/svg+xml"], .jp-RenderedSVG img'


def check_graph_chapter(page, lab, name):
    _, errors = run_all(page, lab, name)
    # drawings show as SVG (in the HTML that carries their description); node labels are in the SVG text
    svgs = page.evaluate(
        f"() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) {DRAWN_GRAPH}')]"
        ".map(img => img.naturalWidth > 0 ? img.src : '')"
    )
    texts = [
        base64.b64decode(src.split(",", 1)[1]).decode() if ";base64," in src else urllib.parse.unquote(src)
        for src in svgs
    ]
    check(bool(svgs), f"{name} run in the browser: {len(svgs)} graphs drawn as SVG")
    check(all("data " in t for t in texts), f"{name} run in the browser: every drawn graph has node labels")
    expected = stored_errors(lab.root / f"{name}.ipynb")
    check(errors == expected, f"{name} run in the browser: {errors} errors, as stored ({expected})")
    svg = page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) {DRAWN_GRAPH}").first
    svg.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}_run_graph.png"))
    check_step_through(page, name)


# The run step-through's picture and buttons, where the learner sees them: boxes in the
# page's coordinates, the picture's natural size and its SVG text (which differs per frame).
STEP_THROUGH = """
async () => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const button = [...panel.querySelectorAll('button')].find(b => b.textContent.includes('previous'));
  if (!button) return null;
  const output = button.closest('.jp-OutputArea-output');
  const img = output.querySelector('img');
  const box = el => { const r = el.getBoundingClientRect();
                      return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width}; };
  return {image: box(img), previous: box(button), next: box([...output.querySelectorAll('button')]
          .find(b => b.textContent.includes('next'))), natural: img.naturalWidth,
          src: await (await fetch(img.src)).text(),  // the frame's SVG (a new blob URL each time)
          view: box(panel.querySelector('.jp-WindowedPanel-outer'))};
}
"""


# Scroll the notebook so that the step-through's output starts at the top of the view
# (JupyterLab's notebook is a windowed list: scroll it through its own API first).
SHOW_STEP_THROUGH = """
async () => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  const button = [...notebook.node.querySelectorAll('button')].find(b => b.textContent.includes('previous'));
  const index = notebook.widgets.findIndex(cell => cell.node.contains(button));
  await notebook.scrollToItem(index, 'end');
  await new Promise(r => setTimeout(r, 300));
  const view = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
  const output = notebook.widgets[index].node.querySelector('.jp-OutputArea-output');
  view.scrollTop += output.getBoundingClientRect().top - view.getBoundingClientRect().top;
  await new Promise(r => setTimeout(r, 300));
}
"""


def inside(box, view):
    return (
        box["left"] >= view["left"] - 1
        and box["right"] <= view["right"] + 1
        and (box["top"] >= view["top"] - 1 and box["bottom"] <= view["bottom"] + 1)
    )


def check_step_through(page, name):
    """A run step-through: natural size, its buttons in the same view as the picture, and
    pressing them changes the picture without moving it out of the view."""
    button = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) button", has_text="previous").first
    if not check(button.count() == 1, f"{name} run in the browser: a step-through with buttons"):
        return
    page.evaluate(SHOW_STEP_THROUGH)
    page.wait_for_timeout(500)
    state = page.evaluate(STEP_THROUGH)
    image, view = state["image"], state["view"]
    check(abs(image["width"] - state["natural"]) <= 1,
          f"{name} step-through: drawn at its natural width ({image['width']:.0f} px, natural"
          f" {state['natural']} px)")  # fmt: skip
    check(inside(image, view) and inside(state["previous"], view) and inside(state["next"], view),
          f"{name} step-through: picture and buttons in the view together"
          f" ({image['bottom'] - image['top']:.0f} px tall picture,"
          f" view {view['bottom'] - view['top']:.0f} px)")  # fmt: skip
    page.screenshot(path=str(SHOTS / f"{name}_run_steps.png"))
    seen = [state["src"]]
    for label in ("previous", "previous", "next"):
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) button", has_text=label).first.click()
        page.wait_for_timeout(500)
        after = page.evaluate(STEP_THROUGH)
        check(after["src"] != seen[-1] and inside(after["image"], after["view"]),
              f"{name} step-through: '{label}' changes the picture, which stays in the view")  # fmt: skip
        seen.append(after["src"])
    check(seen[-1] == seen[1], f"{name} step-through: 'next' after two 'previous' shows the frame before")
    page.screenshot(path=str(SHOTS / f"{name}_run_steps_previous.png"))


# [the running cell, the fill of the progress bar in cell barCell (default: the running
# cell)]; the cell is scrolled into view first, as JupyterLab only renders cells near it.
PROGRESS_FILL = """
async (barCell) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  const running = notebook.widgets.findIndex(
    c => c.model.type === 'code' && c.model.executionState === 'running');
  const i = barCell ?? running;
  if (i < 0) return [running, null];
  await notebook.scrollToItem(i, 'center');
  const bar = notebook.widgets[i].node.querySelector('.widget-hprogress .progress-bar');
  return [running, bar ? parseFloat(bar.style.width) : null];
}
"""


def watch_progress(page, seconds=300):
    """The first progress bar's fill, sampled every 0.2 s until its cell has finished."""
    fills, bar_cell, shot = [], None, False
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        running, fill = page.evaluate(PROGRESS_FILL, bar_cell)
        if fill is not None:
            fills.append(fill)
            bar_cell = running if bar_cell is None else bar_cell
        if not shot and fill and 20 < fill < 90:
            page.screenshot(path=str(SHOTS / f"{TRAINING_CHAPTER}_run_progress.png"))
            shot = True
        if bar_cell is not None and running != bar_cell:
            break  # the training cell has finished: the last fill is the bar's final state
        page.wait_for_timeout(200)
    return fills


def check_training_chapter(page, lab, name):
    fills, errors = run_all(page, lab, name, while_running=watch_progress)
    moving = sorted({f for f in fills if 0 < f < 100})
    check(len(moving) >= 3, f"{name} run in the browser: the progress bar moved ({len(moving)} fills seen)")
    check(fills and fills[-1] == 100, f"{name} run in the browser: the progress bar reached the end")
    expected = stored_errors(lab.root / f"{name}.ipynb")
    check(errors == expected, f"{name} run in the browser: {errors} errors, as stored ({expected})")


def names_of(prefix):
    return next(p.stem for p in sorted(NOTEBOOKS.glob(f"{prefix}_*.ipynb")))


# The state of a site page once MathJax has finished: formulas, math errors, the math
# fonts, pictures, and every link with the ids it may point at.
SITE_PAGE = """
async () => {
  if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
  await document.fonts.ready;
  const images = [...document.images];
  await Promise.all(images.map(img => img.complete ? null
    : new Promise(r => { img.onload = r; img.onerror = r; setTimeout(r, 5000); })));
  const markdown = [...document.querySelectorAll('.jp-MarkdownOutput')].map(el => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('mjx-container, code, pre').forEach(m => m.remove());
    return copy.textContent;
  });
  return {
    formulas: document.querySelectorAll('mjx-container').length,
    errors: [...document.querySelectorAll('mjx-merror')]
      .map(e => e.getAttribute('data-mjx-error') || e.textContent),
    raw: markdown.filter(t => /\\$[^$\\s][^$]*\\$/.test(t)).map(t => t.match(/\\$[^$]*\\$/)[0]),
    fonts: [...document.fonts].filter(f => f.family.startsWith('MJX')).map(f => f.status),
    mathFont: (() => { const c = document.querySelector('mjx-container mjx-c');
                       return c ? getComputedStyle(c).fontFamily : null; })(),
    images: images.length,
    broken: images.filter(img => img.naturalWidth === 0).map(img => img.src.slice(0, 80)),
    links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    background: getComputedStyle(document.body).backgroundColor,
  };
}
"""


# The number of frames (pictures that loaded) in each stored step-through of a site page.
STRIP_FRAMES = """
() => {
  const frames = [...document.querySelectorAll('img[alt^="Backward pass of"]')]
    .filter(img => img.naturalWidth > 0);
  const outputs = new Map();  // each stored step-through's output -> its frames
  for (const img of frames) {
    const output = img.closest('.jp-OutputArea-output') || img.parentElement;
    outputs.set(output, (outputs.get(output) || 0) + 1);
  }
  if (frames.length) frames[0].scrollIntoView({block: 'start'});
  return [...outputs.values()];
}
"""


# The site's step-through control on the first stored step-through: which frames show before
# and after a click on "next".
STEP_CONTROL = """
() => {
  const bar = document.querySelector('.course-steps');
  if (!bar) return null;
  const output = bar.closest('.jp-OutputArea-output');
  const shown = () => [...output.querySelectorAll('img[alt^="Backward pass of"]')]
    .map((img, i) => (img.offsetParent !== null ? i : -1)).filter(i => i >= 0);
  const before = shown();
  [...bar.querySelectorAll('button')].find(b => b.textContent.includes('next')).click();
  return {before, after: shown(), said: bar.querySelector('[aria-live]').textContent};
}
"""


def broken_links(page_file, links, ids):
    """Relative links whose file is missing, or whose #anchor is on no element of its page."""
    broken = []
    for href in links:
        if href.startswith(("http:", "https:", "mailto:")):
            continue  # the world outside; the site itself must work without it
        path, _, anchor = href.partition("#")
        path = urllib.parse.unquote(path)
        target = (page_file.parent / path).resolve() if path else page_file
        if not target.is_file():
            broken.append(href)
        elif target.name == "playground.html" and anchor.startswith("code="):
            continue  # code for the playground to show, not an anchor
        elif anchor and not {anchor, urllib.parse.unquote(anchor)} & set(
            ids if target == page_file else _ids_in(target)
        ):
            broken.append(href)
    return broken


def _ids_in(html_file):
    return set(re.findall(r'\bid="([^"]+)"', html_file.read_text(encoding="utf-8")))


def luminance(css_color):
    r, g, b = (float(v) for v in re.findall(r"[\d.]+", css_color)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def check_site(page):
    """Every page of the static site: formulas typeset with no error in MathJax's fonts, every
    picture loaded, every link resolved, nothing requested from the network; light and dark."""
    index = SITE / "index.html"
    if not check(index.exists(), "site: build/html/index.html exists (make html)"):
        return
    page.goto("about:blank")  # leave JupyterLab first: its last requests, as it unloads, are its own
    page.wait_for_timeout(500)
    requested = []
    page.on(
        "request", lambda r: requested.append(r.url) if not r.url.startswith(("file:", "data:")) else None
    )
    page.goto(index.as_uri())
    chapters = page.locator("ol.chapters > li")
    check(page.title() == "micrograd-lesson", f"site index: title {page.title()!r}")
    count = len(course_chapters())
    check(chapters.count() == count, f"site index: {chapters.count()} of {count} chapters listed")
    check(all(chapters.nth(i).locator("p").inner_text().strip() for i in range(chapters.count())),
          "site index: every chapter has a description")  # fmt: skip
    titles = [chapters.nth(i).locator("a").inner_text() for i in range(chapters.count())]
    check(not any("`" in t for t in titles), "site index: chapter titles show code as code (no backticks)")
    state = page.evaluate(SITE_PAGE)
    check(not broken_links(index, state["links"], state["ids"]), "site index: every link resolves")
    page.screenshot(path=str(SHOTS / "site_index.png"), full_page=True)
    for page_file in numbered(SITE, ".html"):
        name = page_file.stem
        page.goto(page_file.as_uri())
        page.wait_for_load_state("load")
        state = page.evaluate(SITE_PAGE)
        nb = NOTEBOOKS / f"{name}.ipynb"
        if has_math(nb):
            errors, raw = state["errors"], state["raw"]
            check(state["formulas"] > 0 and not errors and not raw,
                  f"site {name}: {state['formulas']} formulas typeset, {len(errors)} math errors"
                  f" {errors[:3] or ''}, {len(raw)} left as TeX {raw[:3] or ''}")  # fmt: skip
            check(state["fonts"] and "loaded" in state["fonts"] and "error" not in state["fonts"]
                  and "MJXZERO" in (state["mathFont"] or ""),
                  f"site {name}: MathJax's TeX fonts loaded ({state['fonts'].count('loaded')} faces)"
                  f" and used ({state['mathFont']})")  # fmt: skip
        check(
            not state["broken"],
            f"site {name}: {state['images']} pictures, none missing {state['broken'] or ''}",
        )
        broken = broken_links(page_file, state["links"], state["ids"])
        check(not broken, f"site {name}: {len(state['links'])} links, none broken {broken or ''}")
        check_folded_notes(page, f"site {name}", stored_notes(nb))
        title = page.title()
        check("`" not in title and "`" not in page.locator("nav.course-nav-top").inner_text(),
              f"site {name}: title and chapter links show no backticks ({title!r})")  # fmt: skip
        if name.startswith(GRAPH_CHAPTER):
            graphs = page.locator(f"{DRAWN_GRAPH}, .jp-RenderedSVG svg")  # the drawn computation graphs
            stored = stored_pictures(nb, kind=["image/svg+xml"])
            check(graphs.count() == stored > 0 and graphs.first.bounding_box()["width"] > 100,
                  f"site {name}: {graphs.count()} of {stored} graphs drawn")  # fmt: skip
            check(page.locator("a[rel=next]").count() > 0 and page.locator("a[rel=prev]").count() > 0,
                  f"site {name}: previous and next links")  # fmt: skip
            graphs.first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"site_{name[:2]}.png"))
            light = luminance(state["background"])
            page.emulate_media(color_scheme="dark")
            page.reload()
            dark = luminance(page.evaluate(SITE_PAGE)["background"])
            check(light > 0.8 and dark < 0.3, f"site {name}: follows the reader's light ({light:.2f}) or dark"
                  f" ({dark:.2f}) preference")  # fmt: skip
            graphs.first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"site_{name[:2]}_dark.png"))
            page.emulate_media(color_scheme="light")
        if name.startswith(STEP_CHAPTERS):  # a stored step-through shows every frame, not only the last
            frames = page.evaluate(STRIP_FRAMES)
            check(
                bool(frames) and min(frames) > 2,
                f"site {name}: stored step-throughs show their frames {frames}",
            )
            if frames:
                page.screenshot(path=str(SHOTS / f"site_{name[:2]}_steps.png"))
            control = page.evaluate(STEP_CONTROL)
            check(
                control is not None and control["before"] == [0] and control["after"] == [1],
                f"site {name}: the step-through shows one frame at a time, and next shows the next {control}",
            )
    check(not requested, f"site: nothing requested from the network {requested[:3] or ''}")


# axe-core (npm, pinned in website/package-lock.json, installed by make html's `npm ci`): the
# accessibility rules of WCAG 2.1 AA and best practice, run on every page of the site, light and dark.
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """
async (rules) => {
  const options = {resultTypes: ['violations']};
  if (rules) options.runOnly = {type: 'rule', values: rules};
  const result = await axe.run(document, options);
  return result.violations.map(v => ({id: v.id, impact: v.impact, count: v.nodes.length,
    examples: v.nodes.slice(0, 3).map(n => n.target.join(' ') + (n.any[0] ? ': ' + n.any[0].message : ''))}));
}
"""
# Every syntax colour the site's stylesheets define (.highlight .k, .c1, .mf, ...), also those no
# page shows today: [class, colour, background of the code, contrast ratio (WCAG)], worst first.
SYNTAX_CONTRAST = """
() => {
  const pre = document.querySelector('.jp-CodeCell .highlight pre');
  const classes = new Set();
  for (const sheet of document.styleSheets) {
    let rules = [];
    try { rules = sheet.cssRules; } catch (e) {}  // a linked file's rules are closed to file:// pages
    for (const rule of rules) {
      const m = rule.selectorText && rule.selectorText.match(/^\\.highlight \\.(\\w+)$/);
      if (m) classes.add(m[1]);
    }
  }
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = c => {
    const [r, g, b] = c.map(v => v / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  let el = pre, background;
  do { background = getComputedStyle(el).backgroundColor; el = el.parentElement; }
  while (el && background === 'rgba(0, 0, 0, 0)');
  return [...classes].map(name => {
    const span = document.createElement('span');
    span.className = name;
    span.textContent = 'x';
    pre.appendChild(span);
    const color = getComputedStyle(span).color;
    span.remove();
    const [a, b] = [luminance(rgb(color)), luminance(rgb(background))];
    return [name, color, background, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
  }).sort((x, y) => x[3] - y[3]);
}
"""
# Figures' alt text is checked like every other rule, and reported on its own line.
FIGURE_RULES = ("image-alt",)


# The rules whose verdict depends on colours: the only ones run again in the dark theme (the
# others see the same page, and contrast is two thirds of axe's time).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_check(page, where, table, rules=None):
    """axe-core on the page as it is now (every rule, or `rules`): no critical or serious violation.
    Adds its counts to table."""
    page.evaluate(AXE.read_text(encoding="utf-8"))  # not as a <script>: the pages' CSP allows none
    found = page.evaluate(AXE_RUN, rules)
    table[where] = {v["id"]: [v["impact"], v["count"]] for v in found}
    severe = [v for v in found if v["impact"] in ("critical", "serious")]

    def listed(violations):
        return "; ".join(f"{v['id']} ({v['impact']}, {v['count']}x: {v['examples'][0]})" for v in violations)

    other = [v for v in severe if v["id"] not in FIGURE_RULES]
    check(not other, f"axe {where}: no critical or serious violation {listed(other)}")
    figures = [v for v in severe if v["id"] in FIGURE_RULES]
    check(not figures, f"axe {where}: every picture has a text alternative {listed(figures)}")
    minor = [f"{v['id']} ({v['impact']}, {v['count']}x)" for v in found if v not in severe]
    if minor:
        print(f"     axe {where}: also {', '.join(minor)}")


def site_pages():
    return [SITE / "index.html", *numbered(SITE, ".html")]


def check_accessibility(page):
    """axe-core on every page of the static site (with its folded notes closed, then open) and on
    the playground (served, Python ready and an example run): 0 critical and 0 serious violations,
    every rule in light, the colour rules again in dark; every syntax colour at >= 4.5:1 in both.
    The counts go to build/browser/axe.json."""
    if not check(AXE.exists(), f"axe-core is installed ({AXE.relative_to(ROOT)}; make html runs npm ci)"):
        return
    table = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for page_file in site_pages():
            page.goto(page_file.as_uri())
            page.evaluate(SITE_PAGE)  # MathJax has typeset, fonts and pictures have loaded
            axe_check(page, f"{page_file.name} {scheme}", table, None if scheme == "light" else COLOUR_RULES)
            if page.evaluate(FOLDED_NOTES)["count"]:  # and with every folded note open
                page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
                axe_check(page, f"{page_file.name} {scheme}, notes open", table,
                          None if scheme == "light" else COLOUR_RULES)  # fmt: skip
            if page_file.name.startswith(GRAPH_CHAPTER):
                tokens = page.evaluate(SYNTAX_CONTRAST)
                low = [f"{name} {color} {ratio:.2f}:1" for name, color, _, ratio in tokens if ratio < 4.5]
                check(len(tokens) > 20 and not low, f"site {scheme}: all {len(tokens)} syntax colours at"
                      f" >= 4.5:1 on {tokens[0][2]} (lowest {tokens[0][3]:.2f}:1) {low or ''}")  # fmt: skip
    server, base = serve_site()
    try:
        page.emulate_media(color_scheme="light")
        page.goto(base + "playground.html")
        page.wait_for_function(PLAYGROUND_READY, timeout=180_000)
        playground_run(page, 'a=Value(2.0,label="a"); b=Value(-3.0,label="b"); c=a*b+a; c.backward()')
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            axe_check(page, f"playground.html {scheme}", table, None if scheme == "light" else COLOUR_RULES)
    finally:
        server.shutdown()
        page.emulate_media(color_scheme="light")
    (SHOTS / "axe.json").write_text(json.dumps(table, indent=1), encoding="utf-8")


# Functions, not expressions: Playwright evaluates an expression with eval, which the site's
# Content-Security-Policy forbids (the first check passes, the polling after it fails).
PLAYGROUND_READY = "() => document.getElementById('status').textContent === 'Ready.'"
PLAYGROUND_DONE = (
    "() => document.getElementById('status').textContent.startsWith('Done')"
    " || !document.getElementById('error').hidden"
)


def serve_site():
    """build/html on 127.0.0.1 at a free port, from a thread: (server, base URL)."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def playground_run(page, code):
    """Put `code` in the box, press Run, wait for the result: (values {label: (data, grad)}, error)."""
    page.fill("#code", code)
    page.click("#run")
    page.wait_for_function(PLAYGROUND_DONE, timeout=60_000)
    rows = page.locator("#values tbody tr")
    values = {}
    for i in range(rows.count()):
        label, data, grad = (c.strip() for c in rows.nth(i).inner_text().split("\t"))
        values[label] = (data, grad)
    error = page.inner_text("#error").strip() if page.locator("#error").is_visible() else ""
    return values, error


def check_playground(page):
    """The playground, as a reader uses it; gradients compared with the engine run here."""
    sys.path.insert(0, str(ROOT / "website" / "playground"))
    import runner  # the very file the page runs, here in CPython with the course's package

    examples = json.loads((ROOT / "website" / "playground" / "examples.json").read_text(encoding="utf-8"))
    examples = [e for e in examples if not e.get("train")]  # the train example: playground_train.py
    page.goto((SITE / "playground.html").as_uri())
    check(page.locator("#file-note").is_visible() and "make serve" in page.inner_text("#file-note"),
          "playground from file://: one line says how to serve it")  # fmt: skip
    server, base = serve_site()
    outside = []
    page.on(
        "request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else outside.append(r.url)
    )
    try:
        start = time.monotonic()
        shared = 'a=Value(2.0,label="a"); b=Value(-3.0,label="b"); c=a*b+a; c.backward()'
        page.goto(base + "playground.html#" + urllib.parse.urlencode({"code": shared}))
        page.wait_for_function("() => document.getElementById('code').value !== ''")  # the module ran
        check(page.input_value("#code") == shared, "playground: code from a link is shown in the box")
        page.wait_for_function(PLAYGROUND_READY, timeout=180_000)
        ready = time.monotonic() - start
        check(page.locator("#values tbody tr").count() == 0, "playground: code from a link waits for Run")
        page.click("#run")
        page.wait_for_function(PLAYGROUND_DONE, timeout=60_000)
        first = time.monotonic() - start
        print(
            f"     playground: Python ready {ready:.1f} s, first result {first:.1f} s after the page loaded"
        )
        rows = page.locator("#values tbody tr")
        shown = {rows.nth(i).inner_text().split("\t")[0]: rows.nth(i).inner_text().split("\t")[2]
                 for i in range(rows.count())}  # fmt: skip
        check(shown.get("a") == "-2.0000" and shown.get("b") == "2.0000",
              f"playground: the link's code gives a.grad -2 and b.grad 2 ({shown})")  # fmt: skip
        picture = page.locator("#picture svg")
        check(picture.count() == 1 and "grad -2.0000" in picture.text_content(),
              "playground: the graph is drawn, with data and grad on its nodes")  # fmt: skip
        box = page.locator("#picture").bounding_box()
        check(box["x"] + box["width"] <= VIEWPORT["width"], f"playground: the drawing fits the page ({box})")
        check("grad -2.0000" in (page.get_attribute("#picture", "aria-label") or ""),
              "playground: the drawing's text alternative lists the values")  # fmt: skip
        page.screenshot(path=str(SHOTS / "playground.png"))
        for example in examples:
            values, error = playground_run(page, example["code"])
            expected = {v["label"]: (v["data"], v["grad"]) for v in runner.run(example["code"])["values"]}
            mismatch = "" if values == expected else f" (page {values}, engine {expected})"
            check(
                not error and values == expected,
                f"playground: {example['title']}: {len(values)} values as the engine gives{mismatch}{error}",
            )
        page.click("#next")
        first_caption = page.inner_text("#caption")
        page.click("#next")
        check(first_caption.startswith("step 0") and page.inner_text("#caption").startswith("step 1"),
              "playground: Next steps the backward pass one node at a time")  # fmt: skip
        page.click("#prev")
        check(page.inner_text("#caption") == first_caption, "playground: Prev steps back")
        page.screenshot(path=str(SHOTS / "playground_step.png"))
        _, error = playground_run(page, "a = Value(2.0, label='a')\nb = a *\n")
        check(
            error.startswith("SyntaxError") and "(line 2)" in error,
            f"playground: a syntax error in one line: {error}",
        )
        _, error = playground_run(page, "a = Value(-1.0, label='a')\nb = a.log()\n")
        check(error == "ValueError: log needs a positive input, got -1.0 (line 2)",
              f"playground: the engine's error in one line: {error}")  # fmt: skip
        page.fill("#code", "while True:\n    pass\n")
        page.click("#run")
        page.wait_for_timeout(1000)
        pressed = time.monotonic()
        page.click("#stop")
        page.wait_for_function(
            "() => document.getElementById('error').textContent.startsWith('Stopped')", timeout=2000
        )
        stopped = time.monotonic() - pressed
        check(stopped <= 2, f"playground: Stop ends an endless loop ({stopped:.2f} s)")
        page.wait_for_function(PLAYGROUND_READY, timeout=180_000)
        values, error = playground_run(page, shared)
        check(not error and values.get("b", ("", ""))[1] == "2.0000", "playground: runs again after Stop")
        page.focus("#code")
        page.keyboard.press("Control+Enter")
        page.wait_for_function(PLAYGROUND_DONE, timeout=60_000)
        check(page.locator("#leaves input[type=number]").count() == 2, "playground: a number box per input")
        page.fill("#leaves input[aria-label=a]", "4")
        page.press("#leaves input[aria-label=a]", "Enter")
        page.wait_for_function("() => document.querySelector('#values tbody tr[data-label=b]"
                               " td:nth-child(3)').textContent === '4.0000'", timeout=60_000)  # fmt: skip
        check(True, "playground: changing an input re-runs the code with it (b.grad follows a)")
        playground_state.check_playground_state(page, base, sys.modules[__name__], SHOTS)  # issue 32
        check_training(page, base, check, axe_check, SHOTS)  # the train example: playground_train.py
        check(not outside, f"playground: nothing requested from elsewhere {outside[:3]}")
    finally:
        server.shutdown()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only", nargs="*", help="notebook prefixes to open (default: all)")
    parser.add_argument("--skip-runs", action="store_true", help="only open notebooks and the site")
    parser.add_argument("--parts", nargs="*", choices=PARTS, default=PARTS,
                        help="which checks to run (default: all), e.g. --parts axe")  # fmt: skip
    args = parser.parse_args(argv)

    # Bound the whole run: a watchdog stops everything, the server included, if it hangs.
    lab = None

    def out_of_time():
        print(f"FAIL the browser test took longer than {TOTAL_SECONDS} s", flush=True)
        if lab:
            lab.stop()
        os._exit(1)

    # A SIGTERM (CI cancelling the job) unwinds through the finally below, like Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))
    start = time.monotonic()
    watchdog = threading.Timer(TOTAL_SECONDS, out_of_time)
    watchdog.daemon = True
    watchdog.start()
    SHOTS.mkdir(parents=True, exist_ok=True)
    names = course_chapters()
    if args.only:
        names = [n for n in names if n.startswith(tuple(args.only))]
    parts = set(args.parts) - ({"runs"} if args.skip_runs else set())
    with tempfile.TemporaryDirectory(prefix="course-browser-") as tmp:
        tmp = Path(tmp)
        try:
            if parts & {"lab", "runs"}:
                lab = Lab(tmp)
            with sync_playwright() as pw:
                context = pw.chromium.launch_persistent_context(
                    str(tmp / "chromium-profile"),
                    executable_path=args.chromium,
                    headless=True,
                    args=CHROMIUM_FLAGS,
                    viewport=VIEWPORT,
                )
                page = context.new_page()
                page.set_default_timeout(60_000)
                if "lab" in parts:
                    check_printed_url(page, lab)
                    check_line_widths(page, lab, names)
                    open_each_notebook(page, lab, names)
                if "runs" in parts:
                    graph = [n for n in names if n.startswith(GRAPH_CHAPTER)]
                    training = [n for n in names if n.startswith(TRAINING_CHAPTER)]
                    if graph:
                        check_graph_chapter(page, lab, graph[0])
                    if training:
                        check_training_chapter(page, lab, training[0])
                if lab:
                    lab.stop()
                    lab = None
                if "save" in parts:
                    others = other_pythons()
                    check(others or not os.environ.get("CI"),
                          "save: another Python to check it on (CI makes .venv313)")  # fmt: skip
                    if not others:
                        print("     save: checked on this Python only; `make venv PYTHON=python3.13"
                              " VENV=.venv313` adds 3.13")  # fmt: skip
                    check_save_keeps_metadata(page, tmp, names, [sys.executable, *(p for p, _ in others)])
                if "site" in parts:
                    check_site(page)
                    site_checks.check_site_conventions(page, sys.modules[__name__])
                if "axe" in parts:
                    check_accessibility(page)
                if "playground" in parts:
                    check_playground(page)
                context.close()
        finally:
            if lab:
                lab.stop()
            watchdog.cancel()
            shutil.copy(tmp / "lab.log", SHOTS / "lab.log") if (tmp / "lab.log").exists() else None
    print(f"browser test: {time.monotonic() - start:.0f} s; screenshots in {SHOTS.relative_to(ROOT)}/")
    if failures:
        print(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
