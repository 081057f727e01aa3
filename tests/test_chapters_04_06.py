"""Chapters 4-6: the curriculum's numbers are in the stored outputs, and chapter 6 does not
depend on whether PyTorch is installed.

nbval re-runs each notebook and compares it with its stored outputs; these tests pin what
those outputs must *say*, so an edit that loses a curriculum number fails here.
"""

import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
TORCH_PREFIX = "PyTorch (optional): "


def path_of(prefix):
    (path,) = NOTEBOOKS.glob(f"{prefix}_*.ipynb")
    return path


def load(prefix):
    return json.loads(path_of(prefix).read_text(encoding="utf-8"))


def text_outputs(nb):
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


EXPECTED = {
    "04": [
        "o = 0.7071",
        "do/dx1 = -1.5000  do/dw1 =  1.0000  do/dx2 =  0.5000  do/dw2 =  0.0000",
        "engine:  db/da = 1.0000",  # b = a + a with assignment
        "b = a + a:  db/da = 2.0000",  # ... and with accumulation
        "engine with '=':  df/da = 3.0000, df/db = -2.0000",
        "f = d * e:  df/da = -3.0000, df/db = -8.0000",
        "step 2: p (*) fires: x.grad 1.0000 -> 4.0000, y.grad 0.0000 -> 2.0000",
        "z = 8.0000, dz/dx = 4.0000, dz/dy = 2.0000",
        "RecursionError: maximum recursion depth exceeded",
        "3,000-step sum:   y = 3001.0, dy/dx = 3001.0",
        "package engine: z = 8.0000, dz/dx = 4.0000, dz/dy = 2.0000",
        "closure engine: result still in memory after del: True",
        "package engine: result still in memory after del: False",
    ],
    "05": [
        "AttributeError: 'int' object has no attribute 'data'",
        "TypeError: unsupported operand type(s) for *: 'int' and 'Value'",
        "c = 1 - a = -2.0000, dc/da = -1.0000",
        "x = 2.0: x**3 = 8.0000, engine d/dx = 12.0000",
        "engine:  dq/da = 0.2500, dq/db = -0.3750",
        "sigmoid: slope at 0 = 0.2500",
        "do/dw1    1.0000    1.0000",
        "largest difference between the two: below 1e-12? True",
        "naive_tanh(1000) -> OverflowError",
        "naive_sigmoid(-1000) -> OverflowError",
        "package tanh(+1000) = +1.0000, gradient 0.0000",
        "package sigmoid(-1000) = +0.0000, gradient 0.0000",
        "cube_with_local_grads: 8.0000, d/dx = 12.0000",
    ],
    "06": [
        "central difference: 12.000000",
        "L = 49.0000; dL/da = 42.0000, dL/db = 28.0000, dL/dc = 14.0000",
        "loss = 2.5000; dloss/dw1 = 1.0000, dloss/dw2 = -2.0000",
        "all 18 operations passed: True",
        "the property held on all 200 generated inputs",
        "AssertionError: gradient check failed at x = -1.0",
        "package engine, call 2: a.grad = 24.0000, b.grad = 3.0000",
        "lecture-style engine, call 1: a.grad = 12.0000",
        "lecture-style engine, call 2: a.grad = 36.0000, b.grad = 6.0000",
    ],
}


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_curriculum_numbers_are_in_the_stored_outputs(prefix):
    text = text_outputs(load(prefix))
    missing = [s for s in EXPECTED[prefix] if s not in text]
    assert not missing, f"chapter {prefix} no longer prints: {missing}"


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_enough_prose_and_no_unexpected_errors(prefix):
    nb = load(prefix)
    words = sum(len("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert words >= 600, f"chapter {prefix} has {words} words of prose"
    for cell in nb["cells"]:
        expected = "raises-exception" in cell["metadata"].get("tags", [])
        for out in cell.get("outputs", []):
            if out["output_type"] == "error":
                assert expected, f"chapter {prefix}: a cell raised {out.get('ename')}"
            assert out.get("name") != "stderr", f"chapter {prefix} wrote to stderr: {out.get('text')}"


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_exercises_have_check_and_reveal(prefix):
    sources = ["".join(c["source"]) for c in load(prefix)["cells"] if c["cell_type"] == "code"]
    reveals = [s for s in sources if re.search(rf'reveal\("ch{prefix}\.\w+"\)', s)]
    checks = [s for s in sources if re.search(r"\bcheck_\w+\(my_\w+\)", s)]
    assert len(reveals) >= 3 and len(checks) >= 3


def test_torch_lines_carry_the_sanitized_prefix():
    """Only lines starting with the prefix may mention PyTorch (sanitize.cfg replaces their rest)."""
    for line in text_outputs(load("06")).splitlines():
        if "torch" in line.lower():
            assert line.startswith(TORCH_PREFIX), f"this line depends on PyTorch: {line!r}"


def sanitized(nb):
    """Each cell's text output (streams joined), with the PyTorch-dependent part of lines blanked."""
    cells = []
    for cell in nb.cells:
        text = "".join(
            "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
            for out in cell.get("outputs", [])
        )
        cells.append(re.sub(r"PyTorch \(optional\): .*", TORCH_PREFIX + "SANITIZED", text))
    return cells


def test_chapter_6_outputs_do_not_depend_on_torch(tmp_path, monkeypatch):
    """Run chapter 6 with `import torch` failing; every output must match the stored one."""
    (tmp_path / "torch.py").write_text('raise ImportError("PyTorch is hidden for this test")\n')
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    )
    stored = nbformat.read(path_of("06"), as_version=4)
    fresh = nbformat.read(path_of("06"), as_version=4)
    NotebookClient(
        fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    assert "PyTorch (optional): not installed" in text_outputs(fresh)
    assert sanitized(fresh) == sanitized(stored)
