"""The notebook a picture is shown in: the area it must fit, and how it is handed to Jupyter.

Every picture of the course (a drawn graph, a step-through, a widget's stored picture)
is sized against one box and reaches Jupyter through one bundle builder, so a change of
screen or of format is made here once.
"""

import base64
import html
import re

# JupyterLab 4.6 in a 1280x800 window, with the file browser open, leaves 848 px for an
# output and shows 679 px of the notebook's height (measured by tests/browser/run.py).
# Pictures are laid out to fit inside this box (in CSS pixels).
FIT_WIDTH_PX = 840
FIT_HEIGHT_PX = 600
# The same box as Graphviz's `size` (inches, 72 points each; a point is 4/3 CSS pixels):
# Graphviz shrinks a larger layout to fit it.
FIT_SIZE = f"{FIT_WIDTH_PX * 0.75 / 72:.3f},{FIT_HEIGHT_PX * 0.75 / 72:.3f}"
PNG_SCALE = 2  # PNG pixels per CSS pixel: sharp on high-density screens too


def fit_scale(width_pt, height_pt):
    """How much a picture of this size (in points) must shrink to fit the box (1.0: not at all)."""
    return min(FIT_WIDTH_PX * 0.75 / width_pt, FIT_HEIGHT_PX * 0.75 / height_pt, 1.0)


def best_direction(size_of, margin=1.0):
    """ "LR" or "TB" for a graph whose picture, laid out each way, is size_of(direction) points.

    The one that needs less shrinking to fit the box; left to right (micrograd's way, and it
    reads like the code) on a tie, and unless top down fits `margin` times better: a margin
    above 1 allows for a size that is estimated rather than measured.
    """
    fit = {direction: fit_scale(*size_of(direction)) for direction in ("LR", "TB")}
    return "TB" if fit["TB"] > margin * fit["LR"] else "LR"


def svg_size_pt(svg):
    """(width, height) of a Graphviz SVG, in points."""
    found = re.search(rb'width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return float(found[1]), float(found[2])


def svg_size_px(svg):
    """(width, height) of a Graphviz SVG in CSS pixels."""
    width, height = svg_size_pt(svg)
    return width * 4 / 3, height * 4 / 3


def png_width_px(png):
    """The CSS width of a PNG drawn at PNG_SCALE, read from its header."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("pictures must be matplotlib figures or PNG bytes")
    return int.from_bytes(png[16:20], "big") // PNG_SCALE


def picture_bundle(text, svg=None, png=None, data=None, png_width=None, alt=None):
    """What Jupyter is handed: `data` (e.g. a widget's own bundle) plus an SVG and a PNG, and `text`.

    The PNG is shown at its CSS size (PNG_SCALE times fewer pixels than it has), so it stays
    sharp; Jupyter hides SVG in notebooks it does not trust, and PNG always shows. `text` is
    the whole plain-text form (ipywidgets would cut a widget's at 110 characters). png_width:
    the CSS width to show the PNG at, when not its own (the widest of a slider's pictures).
    alt: what the picture shows, in words. JupyterLab draws image/svg+xml and image/png as an
    <img> with no alt, so with `alt` the picture is also given as text/html, an <img> with that
    alt (the SVG if there is one), which JupyterLab and the course site show in their place.
    """
    data = dict(data or {})
    if svg is not None:
        data["image/svg+xml"] = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    data["text/plain"] = text
    if alt is not None and "text/html" not in data and (svg is not None or png is not None):
        data["text/html"] = img_tag(alt, svg=svg, png=png, png_width=png_width)
    if png is None:
        return data
    data["image/png"] = png
    return data, {"image/png": {"width": png_width or png_width_px(png)}}


def img_tag(alt, svg=None, png=None, png_width=None):
    """An <img> of the SVG (or else the PNG) at its CSS size, with `alt` as its text."""
    if svg is not None:
        svg = svg.encode("utf-8") if isinstance(svg, str) else svg
        source, width = (
            "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii"),
            svg_width_px(svg),
        )
    else:
        source = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        width = png_width or png_width_px(png)
    return f'<img src="{source}" width="{round(width)}" alt="{html.escape(" ".join(alt.split()))}">'


def svg_width_px(svg):
    """The CSS width of an SVG: Graphviz's in points, or a width="...px" of our own."""
    found = re.search(rb'<svg[^>]*?width="([\d.]+)(pt|px)?"', svg)
    if found is None:
        return FIT_WIDTH_PX
    return float(found[1]) * (4 / 3 if found[2] == b"pt" else 1)


def in_jupyter_kernel():
    """True when running inside a Jupyter kernel (a notebook), False in plain Python."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def ipywidgets_or_none():
    """The ipywidgets module, or None where it is not installed."""
    try:
        import ipywidgets
    except ImportError:
        return None
    return ipywidgets
