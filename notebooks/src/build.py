"""Build the course notebooks from their sources, run them, and store them normalised.

Each chapter is written as a jupytext "percent" script, notebooks/src/NN_name.py
(cells start with `# %%`, Markdown cells with `# %% [markdown]`). This script
turns each one into notebooks/NN_name.ipynb, executes it top to bottom in a fresh
kernel from the notebooks/ folder, and writes it with only what a learner needs:
execution counts 1..n, stable cell ids, no timings and no widget state or ids (a
widget keeps the text or picture it gives for that; see micrograd_lesson.show.widgets). The
stored outputs are then exactly what strict nbval sees on a re-run.

    python notebooks/src/build.py          # every chapter
    python notebooks/src/build.py 03 07    # chapters whose name starts with 03 or 07

Every notebook's first code cell starts with SETUP, written here once: where the
notebook runs without the course's package (a notebook downloaded on its own, a
hosted Jupyter), it installs the package from PACKAGE_SOURCE and says so in one line;
where `make lab` set things up it does nothing and prints nothing.
"""

import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import psutil
from nbclient import NotebookClient
from notebooks import prose
from notebooks.chapters import numbered

SRC = Path(__file__).resolve().parent
NOTEBOOKS = SRC.parent
ROOT = NOTEBOOKS.parent
WIDGET = "application/vnd.jupyter.widget-view+json"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

# Where a notebook outside this repository installs the course's package from: anything
# `pip install` accepts. The default is the wheel that `make wheel` builds, in the same folder
# as the notebooks; an instructor who hosts the wheel puts its URL here and runs `make execute`.
PACKAGE_SOURCE = "micrograd_lesson-0.1.0-py3-none-any.whl"
SETUP = f"""\
# The course's package: installed here if this Python does not have it yet.
import importlib.util

if importlib.util.find_spec("micrograd_lesson") is None:
    import subprocess
    import sys

    source = "{PACKAGE_SOURCE}"  # where from: see the course's README
    print(f"micrograd_lesson is not installed here: installing it from {{source}}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source], check=True)
    importlib.invalidate_caches()

"""


def sources(prefixes=()):
    found = numbered(SRC, ".py")
    if prefixes:
        found = [p for p in found if p.name.startswith(tuple(prefixes))]
    return found


def to_notebook(src):
    """The source as an unexecuted notebook."""
    nb = jupytext.read(src, fmt="py:percent")
    first = next(cell for cell in nb.cells if cell.cell_type == "code")
    first.source = SETUP + first.source
    for i, cell in enumerate(nb.cells):
        cell.id = f"c{i:03d}"
        cell.metadata = {k: v for k, v in cell.metadata.items() if k == "tags"}
    return nb


def normalise(nb):
    """Strip what differs from run to run and what a learner does not need.

    language_info is kept exactly as the kernel reported it: JupyterLab writes the
    kernel's own into the notebook when it connects, and marks the notebook modified
    (and autosaves it) if that differs from what is stored.
    """
    nb.metadata = {"kernelspec": KERNELSPEC, "language_info": nb.metadata["language_info"]}
    count = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            count += 1
            cell.execution_count = count
            cell.outputs = merge_streams(cell.outputs)
            for out in cell.outputs:
                if "execution_count" in out:
                    out.execution_count = count
                # A widget's view points at a random model id whose state is not stored,
                # so keep only its one-line text; running the cell shows the live widget.
                out.get("data", {}).pop(WIDGET, None)
    return nb


def merge_streams(outputs):
    """Join back-to-back prints to the same stream: how they arrive in chunks depends on timing."""
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (
            out.output_type == "stream"
            and prev
            and prev.output_type == "stream"
            and prev.name == out.name
        ):
            prev.text += out.text
        else:
            merged.append(out)
    return merged


def build(src):
    nb = to_notebook(src)
    start = time.perf_counter()
    # The kernel imports micrograd_lesson from this checkout, installed or not.
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    cpu = [0.0]  # the kernel's CPU seconds (user + system), read after every cell: the 15 s budget
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )

    def read_kernel_cpu(**_):
        times = psutil.Process(client.km.provisioner.pid).cpu_times()
        cpu[0] = times.user + times.system

    client.on_cell_executed = read_kernel_cpu
    client.execute(env=env)
    seconds = time.perf_counter() - start
    target = NOTEBOOKS / (src.stem + ".ipynb")
    nbformat.validate(nb)
    nbformat.write(normalise(nb), target)
    return target, seconds, cpu[0]


def main(argv):
    todo = sources(argv)
    if not todo:
        sys.exit(f"no notebook sources match {argv} in {SRC}")
    for src in todo:
        target, seconds, cpu = build(src)
        print(f"{target.relative_to(NOTEBOOKS.parent)}: ran in {seconds:.1f} s, kernel CPU {cpu:.1f} s")
    # What a reader meets: words of main text (the budget) and of folded "How we know" notes.
    print("\n".join(prose.report([src.name[:2] for src in todo])))
    road = sum(prose.counts(prefix)[0] for prefix in ("00", "01", "02"))
    print(f"chapters 00-02 together: {road:,} words of main text before the chain rule (at most 4,000)")


if __name__ == "__main__":
    main(sys.argv[1:])
