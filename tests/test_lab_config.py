"""The Jupyter config `make lab` uses (jupyter-config/): saving a notebook keeps the stored
kernelspec and language_info, so opening a chapter on another Python changes no byte on disk.
(tests/browser/run.py checks the same in JupyterLab itself, on two Pythons.)"""

import json
import shutil
from pathlib import Path

import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager
from traitlets.config import Config

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "jupyter-config" / "jupyter_server_config.py"
CHAPTER = REPO / "notebooks" / "00_python_you_need.ipynb"


def loaded_config():
    """The config file run as Jupyter runs it: a `c = get_config()` script."""
    config = Config()
    exec(compile(CONFIG.read_text(encoding="utf-8"), str(CONFIG), "exec"), {"get_config": lambda: config})
    return config


@pytest.fixture
def manager(tmp_path):
    shutil.copy(CHAPTER, tmp_path / CHAPTER.name)
    return FileContentsManager(root_dir=str(tmp_path), config=loaded_config())


def opened_elsewhere(model):
    """What JupyterLab sends back after a kernel of another Python connected."""
    metadata = model["content"]["metadata"]
    metadata["language_info"] = {**metadata.get("language_info", {"name": "python"}), "version": "3.13.0"}
    metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3.13 (other)", "language": "python"}
    return model


def test_saving_after_open_on_another_python_keeps_the_bytes(manager, tmp_path):
    before = (tmp_path / CHAPTER.name).read_bytes()
    manager.save(opened_elsewhere(manager.get(CHAPTER.name)), CHAPTER.name)
    assert (tmp_path / CHAPTER.name).read_bytes() == before


def test_an_edited_cell_is_saved_with_the_stored_metadata(manager, tmp_path):
    stored = json.loads((tmp_path / CHAPTER.name).read_text(encoding="utf-8"))
    model = opened_elsewhere(manager.get(CHAPTER.name))
    model["content"]["cells"][1]["source"] = "x = 42"
    manager.save(model, CHAPTER.name)
    saved = json.loads((tmp_path / CHAPTER.name).read_text(encoding="utf-8"))
    assert "".join(saved["cells"][1]["source"]) == "x = 42"
    assert saved["metadata"] == stored["metadata"]


def test_a_new_notebook_keeps_what_jupyterlab_sends(manager, tmp_path):
    model = opened_elsewhere(manager.get(CHAPTER.name))
    manager.save(model, "mine.ipynb")
    saved = json.loads((tmp_path / "mine.ipynb").read_text(encoding="utf-8"))
    assert saved["metadata"]["language_info"]["version"] == "3.13.0"
    assert saved["metadata"]["kernelspec"]["display_name"] == "Python 3.13 (other)"


def test_a_stored_notebook_without_the_keys_gets_them(manager, tmp_path):
    path = tmp_path / CHAPTER.name
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["metadata"] = {}
    path.write_text(json.dumps(stored), encoding="utf-8")
    manager.save(opened_elsewhere(manager.get(CHAPTER.name)), CHAPTER.name)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["metadata"]["language_info"]["version"] == "3.13.0"


def test_a_file_that_is_not_a_notebook_is_saved_as_sent(manager, tmp_path):
    (tmp_path / "notes.txt").write_text("old", encoding="utf-8")
    manager.save({"type": "file", "format": "text", "content": "new"}, "notes.txt")
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "new"
