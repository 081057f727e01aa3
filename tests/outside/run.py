"""The notebooks outside the repository, as a learner who downloads them gets them (`make test-wheel`).

1. A fresh virtual environment, made from this Python, with the pinned requirements but
   not the package (and without PyTorch: the cross-checks must skip cleanly).
2. The notebooks and the wheel (`make wheel`) copied to a temporary folder outside the
   repository, as an instructor hands them out.
3. The first cell of chapter 0, run there: it says in one line that it installs the
   package, installs it from the wheel beside the notebooks, and the package imports.
4. Strict nbval over every notebook in that folder, with the installed package (no
   PYTHONPATH, no path into this checkout): every stored output is what it gives there.
   The notebooks run in parallel, JOBS processes (pytest-xdist; each notebook whole in one
   kernel); --jobs 0 runs them one after another.

    python tests/outside/run.py dist/micrograd_lesson-0.1.0-py3-none-any.whl [--jobs auto]
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from notebooks.chapters import numbered

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def run(command, **kwargs):
    print("+", " ".join(str(c) for c in command), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def package_source():
    spec = importlib.util.spec_from_file_location("notebook_build", NOTEBOOKS / "src" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build.PACKAGE_SOURCE


def setup_code(notebook):
    """The install-if-missing part of a notebook's first code cell (up to its first blank line after code)."""
    cell = next(
        c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
    )
    source = "".join(cell["source"])
    return source[: source.index("importlib.invalidate_caches()") + len("importlib.invalidate_caches()")]


def main(argv):
    jobs = "auto"
    if len(argv) == 3 and argv[1] == "--jobs":
        argv, jobs = argv[:1], argv[2]
    if len(argv) != 1 or not argv[0].endswith(".whl"):
        sys.exit(
            "usage: python tests/outside/run.py dist/<the package>.whl [--jobs N]  (make wheel builds it)"
        )
    wheel = Path(argv[0]).resolve()
    parallel = [] if jobs == "0" else ["-n", jobs, "--dist", "loadfile"]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="course-outside-") as tmp:
        tmp = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        venv, course = tmp / "venv", tmp / "course"
        python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
        run([sys.executable, "-m", "venv", venv])

        # a learner's pins, and the developer's pins of what runs the notebooks here
        def pins(name):  # each pin without its comment ("psutil==7.2.2  # why")
            lines = (ROOT / name).read_text().splitlines()
            return [line.split(" #")[0].strip() for line in lines if line and line[0].isalnum()]

        testing = ("pytest==", "pytest-xdist==", "nbval==")
        requirements = pins("requirements.txt") + [
            p for p in pins("requirements-dev.txt") if p.startswith(testing)
        ]
        uv = os.environ.get("UV")  # uv's faster pip, where the Makefile uses it (UV=path/to/uv)
        install = (
            [uv, "pip", "install", "--compile-bytecode", "--python", python]
            if uv
            else [python, "-m", "pip", "install"]
        )
        run([*install, "--quiet", *requirements], env=env)

        course.mkdir()
        for notebook in numbered(NOTEBOOKS, ".ipynb"):
            shutil.copy(notebook, course)
        source = package_source()
        if not source.endswith(".whl") or "/" in source:
            sys.exit(
                f"PACKAGE_SOURCE is {source!r}, not a wheel beside the notebooks: this test cannot stand in"
            )
        shutil.copy(wheel, course / source)
        # What nbval needs besides the notebooks: the sanitizers and the SVG/display-update settings.
        shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", tmp / "nbval_sanitize.cfg")
        shutil.copy(ROOT / "conftest.py", tmp / "conftest.py")

        first = sorted(course.glob("00_*.ipynb"))[0]
        said = run([python, "-c", setup_code(first)], cwd=course, env=env, capture_output=True, text=True)
        lines = said.stdout.splitlines()
        expected = f"micrograd_lesson is not installed here: installing it from {source}"
        if lines != [expected]:
            sys.exit(f"FAIL the first cell, package missing, should print {expected!r}; it printed {lines}")
        print(f"ok   the first cell installs the missing package and says so in one line: {lines[0]!r}")
        where = run(
            [python, "-c", "import micrograd_lesson; print(micrograd_lesson.__file__)"],
            cwd=course,
            env=env,
            capture_output=True,
            text=True,
        ).stdout.strip()
        if Path(where).resolve().is_relative_to(ROOT):
            sys.exit(
                f"FAIL micrograd_lesson is imported from the repository ({where}), not the installed wheel"
            )
        print(
            f"ok   micrograd_lesson imports from the fresh environment, not the repo ({Path(where).parent})"
        )

        nbval = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "nbval_sanitize.cfg"]
        notebooks = [str(p.relative_to(tmp)) for p in sorted(course.glob("*.ipynb"))]
        result = subprocess.run(
            [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", *parallel, *nbval, *notebooks],
            cwd=tmp,
            env=env,
        )
    print(f"outside the repository: {time.monotonic() - start:.0f} s")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
