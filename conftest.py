"""nbval settings for the course notebooks (notebooks/*.ipynb).

Graphviz lays out SVG slightly differently from one version to the next, so
stored SVG drawings are not compared; the DOT source behind them is tested for
determinism in tests/test_draw.py, and every text output is still compared.

An output can be replaced while its cell runs (IPython's display(..., display_id=True)
and handle.update(...)): fit's progress bar does this so that the stored notebook
says how training ended. Jupyter and nbclient (which builds the notebooks) apply such
an update_display_data message to the output; nbval 0.11 ignores it, so it is taught
to here, in the same way.
"""

from nbformat import from_dict
from nbval.plugin import IPyNbFile

_get_kernel_message = IPyNbFile.get_kernel_message


def _get_kernel_message_applying_updates(self, *args, **kwargs):
    msg = _get_kernel_message(self, *args, **kwargs)
    content = msg["content"]
    display_id = content.get("transient", {}).get("display_id")
    if display_id is None or msg["msg_type"] not in ("display_data", "update_display_data"):
        return msg
    shown = self.__dict__.setdefault("_shown_by_display_id", {})
    if msg["msg_type"] == "display_data":
        # nbval keeps a NotebookNode as it is (a plain dict it copies), so the output
        # it stores is this very object and can be updated in place later.
        content["data"] = shown[display_id] = from_dict(content["data"])
        return msg
    if display_id in shown:
        shown[display_id].clear()
        shown[display_id].update(from_dict(content["data"]))
    return dict(msg, msg_type="comm_update_display")  # nbval skips comm_* messages


IPyNbFile.get_kernel_message = _get_kernel_message_applying_updates


def pytest_collectstart(collector):
    if collector.fspath and collector.fspath.ext == ".ipynb":
        collector.skip_compare += ("image/svg+xml",)
