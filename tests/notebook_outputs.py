"""Reading the stored notebooks: shared by the tests that pin what they say."""

import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def path_of(prefix):
    (path,) = NOTEBOOKS.glob(f"{prefix}_*.ipynb")
    return path


def load(prefix):
    return json.loads(path_of(prefix).read_text(encoding="utf-8"))


def text_outputs(nb):
    """Everything a code cell printed or returned as text, one string."""
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def row(*cells):
    """A regex for a table row made of these cells separated by spaces."""
    return r"^\s*" + r"\s+".join(re.escape(c) for c in cells) + r"\s*$"
