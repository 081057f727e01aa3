"""The Makefile never deletes what it did not make.

`VENV=` picks the environment make uses. A stale one (its Python gone, an install cut short,
another Python asked for) is made again only if the Makefile made it: it writes a marker file
when it creates an environment. Anything else is left as it is, and make stops and says what it
found and how to go on. Each test runs the real Makefile from a scratch folder, so nothing in
the repository is touched.
"""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MARKER = ".made-by-micrograd-lesson"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(folder, *args):
    """`make -f <the course's Makefile> args...` run in `folder`."""
    return subprocess.run(
        ["make", "--no-print-directory", "-f", str(REPO / "Makefile"), *args, f"PYTHON={sys.executable}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def scratch(tmp_path):
    """A folder with the files the Makefile's environment rules depend on."""
    for name in ("pyproject.toml", "requirements.txt", "requirements-dev.txt"):
        (tmp_path / name).write_text("")
    return tmp_path


def foreign_environment(folder):
    """Someone's own environment, made without the Makefile, with a file of theirs in it."""
    venv.create(folder, with_pip=False)
    (folder / "my-notes.txt").write_text("mine")
    return folder


@pytest.mark.parametrize("target", ["venv", "unit", "lab"])
def test_a_foreign_environment_is_left_intact_and_make_says_how_to_go_on(scratch, target):
    env = foreign_environment(scratch / "theirs")
    before = sorted(p.relative_to(env) for p in env.rglob("*"))
    done = make(scratch, target, "VENV=theirs")
    assert done.returncode != 0
    assert "not an environment this Makefile made" in done.stdout and "Nothing was removed" in done.stdout
    assert "VENV=" in done.stdout and "pip install" in done.stdout  # the two ways to go on
    assert sorted(p.relative_to(env) for p in env.rglob("*")) == before
    assert (env / "my-notes.txt").read_text() == "mine"


def test_a_folder_that_is_no_environment_is_left_intact(scratch):
    folder = scratch / "project"
    folder.mkdir()
    (folder / "data.csv").write_text("1,2,3\n")
    done = make(scratch, "venv", "VENV=project")
    assert done.returncode != 0 and "its Python does not run" in done.stdout
    assert (folder / "data.csv").read_text() == "1,2,3\n"


def test_an_environment_the_makefile_made_is_made_again_when_stale(scratch):
    ours = scratch / "ours"
    ours.mkdir()
    (ours / MARKER).write_text("made by micrograd-lesson's Makefile")  # and no Python: stale
    done = make(scratch, "remake-venv", "VENV=ours")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "making it again" in done.stdout and not ours.exists()


def test_make_clean_removes_only_an_environment_it_made(scratch):
    env = foreign_environment(scratch / "theirs")
    done = make(scratch, "clean", "VENV=theirs")
    assert done.returncode == 0 and "left theirs as it is" in done.stdout
    assert (env / "my-notes.txt").exists()
    ours = scratch / "ours"
    ours.mkdir()
    (ours / MARKER).write_text("made by micrograd-lesson's Makefile")
    assert make(scratch, "clean", "VENV=ours").returncode == 0 and not ours.exists()


@pytest.mark.slow  # creates a real environment (with pip): several seconds
def test_an_environment_the_makefile_creates_is_marked_as_its_own(scratch):
    """make venv creates the folder, marks it, then installs (here an installer that fails at once,
    UV=false: the marker is written before any install, so an install cut short is still ours)."""
    done = make(scratch, "venv", "VENV=fresh", "UV=false")
    assert done.returncode != 0  # the stand-in installer failed
    assert (scratch / "fresh" / MARKER).exists() and (scratch / "fresh" / "bin" / "python").exists()
    again = make(scratch, "remake-venv", "VENV=fresh")  # stale (no install finished), and ours
    assert again.returncode == 0 and not (scratch / "fresh").exists()


def recording_installer(folder):
    """A stand-in for uv (UV=...): writes each install's arguments to a log, installs nothing."""
    log = folder / "installs.log"
    script = folder / "fake-uv"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n')
    script.chmod(0o755)
    return script, log


@pytest.mark.slow  # creates a real environment (with pip): several seconds
def test_make_html_installs_what_the_site_needs_and_no_developer_tools(scratch):
    (scratch / "requirements-site.txt").write_text("")
    (scratch / "website" / "node_modules").mkdir(parents=True)
    (scratch / "website" / "node_modules" / ".package-lock.json").write_text("{}")  # npm ci has run
    (scratch / "website" / "build.py").write_text("print('the site is built')\n")
    uv, log = recording_installer(scratch)
    done = make(scratch, "html", "VENV=fresh", f"UV={uv}")
    assert done.returncode == 0, done.stdout + done.stderr
    installs = log.read_text().splitlines()
    assert len(installs) == 2, installs
    assert "-r requirements.txt" in installs[0] and "-r requirements-site.txt" in installs[1]
    assert not any("requirements-dev" in line for line in installs)
    assert "the site is built" in done.stdout


def test_make_html_says_it_needs_npm_and_why(scratch):
    """Without npm on PATH, and the site's npm packages not yet installed."""
    no_npm = {**os.environ, "PATH": str(scratch / "nothing-here")}
    command = [shutil.which("make"), "--no-print-directory", "-f", str(REPO / "Makefile"), "check-npm"]
    done = subprocess.run(command, cwd=scratch, env=no_npm, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    said = done.stdout
    assert "needs npm" in said and "Pyodide" in said and "Pagefind" in said and "search" in said
    assert "apt-get install npm" in said
    # once npm ci has installed them, npm itself is not needed again
    (scratch / "website" / "node_modules").mkdir(parents=True)
    (scratch / "website" / "node_modules" / ".package-lock.json").write_text("{}")
    again = subprocess.run(command, cwd=scratch, env=no_npm, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stdout
