"""The Jupyter server as `make lab` runs it (JUPYTER_CONFIG_PATH names this folder).

Saving a notebook keeps its stored `kernelspec` and `language_info` as they are in the file.
When a notebook is opened, JupyterLab writes the running kernel's `language_info` (with its
Python version, "3.11.7" or "3.13.0") into the notebook's metadata; the notebook is then marked
modified and autosave rewrites it, so that opening a chapter on another Python than the one
that stored it changed the file and `git pull` refused (jupyter/notebook#2123). With this hook
the bytes on disk stay as they were until the learner changes a cell.
"""

import json
import os
import warnings

KEPT = ("kernelspec", "language_info")


def keep_stored_metadata(model, path, contents_manager, **kwargs):
    """Before a notebook is written: the metadata in KEPT as the file on disk has it.

    A new notebook, a file that is not a notebook or one that cannot be read is saved as it is;
    a key the stored notebook does not have is left as JupyterLab sends it."""
    content = model.get("content")
    if model.get("type") != "notebook" or not isinstance(content, dict):
        return
    os_path = os.path.join(contents_manager.root_dir, *path.strip("/").split("/"))
    try:
        with open(os_path, encoding="utf-8") as f:
            stored = json.load(f).get("metadata", {})
    except (OSError, ValueError, AttributeError):
        return
    metadata = content.setdefault("metadata", {})
    for key in KEPT:
        if key in stored:
            metadata[key] = stored[key]


c = get_config()  # noqa: F821 (Jupyter defines it when it loads this file)
c.ContentsManager.pre_save_hook = keep_stored_metadata
# traitlets sets a configured hook twice as the server starts, and warns that it replaces itself
warnings.filterwarnings("ignore", r"Overriding existing pre_save_hook \(keep_stored_metadata\)", UserWarning)
