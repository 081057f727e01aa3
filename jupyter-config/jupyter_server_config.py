"""The Jupyter server as `make lab` runs it (JUPYTER_CONFIG_PATH names this folder).

Saving a notebook keeps its stored `kernelspec` and `language_info` as they are in the file.
When a notebook is opened, JupyterLab writes the running kernel's `language_info` (with its
Python version, "3.11.7" or "3.13.0") into the notebook's metadata; the notebook is then marked
modified and autosave rewrites it, so that opening a chapter on another Python than the one
that stored it changed the file and `git pull` refused (jupyter/notebook#2123). With this hook
the bytes on disk stay as they were until the learner changes a cell.

Running a chapter and saving it keeps its outputs as build.py stores them too: a live widget (a
step-through's slider, a training bar) reaches JupyterLab as a view of a widget model that only
the running kernel holds, and JupyterLab saves that view (a random `model_id`) into the output.
A notebook that stores no widget state cannot show it again: reopened, JupyterLab would say
"Error displaying widget: model not found" in place of the text or pictures stored beside it.
So, as build.py does, the view is not saved; the output keeps what it shows without the kernel.
"""

import json
import os
import warnings

KEPT = ("kernelspec", "language_info")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def keep_stored_metadata(model, path, contents_manager, **kwargs):
    """Before a notebook is written: no widget view it cannot show again (drop_widget_views), and
    the metadata in KEPT as the file on disk has it.

    A new notebook, a file that is not a notebook or one that cannot be read is saved as it is;
    a key the stored notebook does not have is left as JupyterLab sends it."""
    content = model.get("content")
    if model.get("type") != "notebook" or not isinstance(content, dict):
        return
    drop_widget_views(content)
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


def drop_widget_views(notebook):
    """Every output's widget view, unless the notebook stores the widgets' state to show it with."""
    if WIDGET_STATE in (notebook.get("metadata") or {}).get("widgets", {}):
        return
    for cell in notebook.get("cells") or []:
        for output in cell.get("outputs") or []:
            if isinstance(output.get("data"), dict):
                output["data"].pop(WIDGET_VIEW, None)


c = get_config()  # noqa: F821 (Jupyter defines it when it loads this file)
c.ContentsManager.pre_save_hook = keep_stored_metadata
# traitlets sets a configured hook twice as the server starts, and warns that it replaces itself
warnings.filterwarnings("ignore", r"Overriding existing pre_save_hook \(keep_stored_metadata\)", UserWarning)
