"""Chapters 3 and 5 compare with PyTorch when it is installed; their stored outputs must not depend on it.

The stored notebooks were run with PyTorch. Every line that depends on it starts with
"PyTorch (optional): ", which nbval_sanitize.cfg blanks; here each chapter is run with
`import torch` failing, and every other output must match the stored one exactly.
"""

import os

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_outputs import NOTEBOOKS, load, path_of, text_outputs
from test_chapter_06_without_torch import TORCH_PREFIX, sanitized, skip_unless_torch_is_installed

CHAPTERS = ["03", "05"]


@pytest.mark.parametrize("prefix", CHAPTERS)
def test_torch_lines_carry_the_sanitized_prefix(prefix):
    text = text_outputs(load(prefix))
    assert TORCH_PREFIX + "found" in text, "the stored notebook should be the run with PyTorch"
    for line in text.splitlines():
        if "torch" in line.lower():
            assert line.startswith(TORCH_PREFIX), f"this line depends on PyTorch: {line!r}"


@pytest.mark.slow
@pytest.mark.parametrize("prefix", CHAPTERS)
def test_outputs_do_not_depend_on_torch(prefix, tmp_path, monkeypatch):
    skip_unless_torch_is_installed()
    (tmp_path / "torch.py").write_text('raise ImportError("PyTorch is hidden for this test")\n')
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    )
    stored = nbformat.read(path_of(prefix), as_version=4)
    fresh = nbformat.read(path_of(prefix), as_version=4)
    NotebookClient(
        fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    assert TORCH_PREFIX + "not installed" in text_outputs(fresh)
    assert sanitized(fresh) == sanitized(stored)
