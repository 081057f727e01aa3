"""Chapter 6's stored outputs do not depend on whether PyTorch is installed.

(The chapters' curriculum numbers are pinned in test_curriculum.py.)
"""

import importlib.util
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_outputs import NOTEBOOKS, load, path_of, text_outputs

TORCH_PREFIX = "PyTorch (optional): "


def skip_unless_torch_is_installed():
    """Hiding PyTorch tells something only where it is installed; without it, strict nbval
    (make test, make test-wheel) runs every chapter without PyTorch already."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed: strict nbval runs this chapter without it")


def test_torch_lines_carry_the_sanitized_prefix():
    """Only lines starting with the prefix may mention PyTorch (nbval_sanitize.cfg blanks the rest)."""
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


@pytest.mark.slow
def test_chapter_6_outputs_do_not_depend_on_torch(tmp_path, monkeypatch):
    """Run chapter 6 with `import torch` failing; every output must match the stored one."""
    skip_unless_torch_is_installed()
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
