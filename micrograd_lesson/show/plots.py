"""Loss curves and decision boundaries, in colours every reader can tell apart, with words.

Each function draws on an Axes (a new figure if none is given) and returns
it. Nothing drawn depends on the date or on random ids, so re-running a
notebook gives the same picture.

Importing this module (as `from micrograd_lesson import describe_figure` does) sets the
course's look once for every plot of the session (`use_course_style`): the
Okabe-Ito palette, which stays distinct under the three common colour-vision
deficiencies, and for lines a line style that changes with the colour, so that no
two series are told apart by colour alone (plot_losses adds a marker each too).

Every figure shown in Jupyter also carries words: `describe_figure(fig, "what it shows")`
attaches a sentence (the trend the prose points at), to which the figure's axes
and series are added (`figure_text`). The picture reaches Jupyter as an image
with that text as its alt (JupyterLab's own image renderer gives none) and as
the output's plain text, which a screen reader, the course site and a terminal use.
"""

import base64
import html
import numbers
import weakref

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler

# Okabe & Ito (2008), "Color universal design": told apart with every common colour vision.
# Yellow (#F0E442) is left out: too light to read on white.
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky blue": "#56B4E9",
    "black": "#000000",
}
PALETTE = list(OKABE_ITO.values())
COLOUR_NAMES = {hex_.lower(): name for name, hex_ in OKABE_ITO.items()}
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (1, 3))]
MARKERS = ["o", "s", "^", "D", "v", "P", "X"]
STYLE_NAMES = {"-": "solid", "--": "dashed", "-.": "dash-dot", ":": "dotted"}
MARKER_NAMES = {"o": "circles", "s": "squares", "^": "triangles", "D": "diamonds", "v": "down triangles",
                "P": "plus signs", "X": "crosses", "*": "stars", ".": "dots"}  # fmt: skip
# Light tints of blue and vermillion for shaded regions, under the darker points of the same hue.
SHADE = {"negative": "#F6C9AE", "positive": "#B3D7EC"}


def use_course_style():
    """Set the course's palette, line styles and markers for every plot drawn from now on."""
    # Markers are not in the cycle: on a line of many points they would hide it, and with
    # `markevery` they would hide the points of a line drawn with markers on purpose ("o-").
    mpl.rcParams["axes.prop_cycle"] = cycler(color=PALETTE) + cycler(linestyle=LINESTYLES)
    mpl.rcParams["image.cmap"] = "cividis"  # a colour map that reads the same with any colour vision
    _show_with_words()


# ---- words for a figure ----

_DESCRIPTIONS = weakref.WeakKeyDictionary()  # Figure -> the sentence given with describe_figure()
_WORDS_ONLY = weakref.WeakSet()  # figures described by their sentence alone
_AXES_NOTES = weakref.WeakKeyDictionary()  # Axes -> what a plot helper says about what it drew


def describe_figure(fig_or_ax, text, axes=True):
    """Say what a figure shows (the trend the prose points at); returns the figure.

    Shown in Jupyter, the figure's picture carries this sentence, followed by its axes
    and series (figure_text), as its alt text and its plain-text form. axes=False: this
    sentence alone, for a figure whose numbers change from run to run (a profile, a timing),
    so that a stored notebook stays equal to a re-run. A drawn graph (draw_dot's Drawing)
    takes the sentence as the start of its alt text, before the graph's own words.
    """
    if hasattr(fig_or_ax, "text_tree"):  # a Drawing: what makes this drawing of a graph different
        sentence = " ".join(str(text).split())
        fig_or_ax.alt = f"{sentence} {fig_or_ax.alt}" if axes else sentence
        return fig_or_ax
    fig = fig_or_ax.figure if hasattr(fig_or_ax, "figure") and fig_or_ax.figure else fig_or_ax
    _DESCRIPTIONS[fig] = " ".join(str(text).split())
    (_WORDS_ONLY.discard if axes else _WORDS_ONLY.add)(fig)
    return fig


def figure_text(fig):
    """The words for a figure: describe_figure()'s sentence, then each plot's title, axes and series."""
    if fig in _WORDS_ONLY:
        return _DESCRIPTIONS[fig]
    parts = [_DESCRIPTIONS.get(fig, "")]
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    axes = [ax for ax in fig.axes if ax.has_data()]
    if title:
        parts.append(f"{_sentence(title)}")
    kind = "A plot" if len(axes) == 1 else f"{len(axes)} plots"
    if len(axes) > 1:
        parts.append(f"{kind}, left to right and top to bottom.")
    for ax in axes:
        parts.append(_axes_text(ax))
    return " ".join(p for p in parts if p).strip() or "A figure with nothing drawn on it."


def _sentence(text):
    text = " ".join(str(text).replace("$", "").split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _axes_text(ax):
    """One plot in words: 'Title. x: label (log scale, from a to b); y: ... Series: ...'."""
    words = []
    if ax.get_title():
        words.append(_sentence(ax.get_title()))
    axes = []
    for name, axis, lim in (("x", ax.xaxis, ax.get_xlim()), ("y", ax.yaxis, ax.get_ylim())):
        label = " ".join(axis.get_label_text().replace("$", "").split()) or "(unlabelled)"
        if isinstance(axis.get_units(), mpl.category.UnitData):  # a bar chart's categories
            names = list(axis.get_units()._mapping)
            more = f" and {len(names) - 6} more" if len(names) > 6 else ""
            axes.append(f"{name} axis {label} ({len(names)} categories: {', '.join(names[:6])}{more})")
            continue
        scale = "log scale, " if axis.get_scale() == "log" and "log scale" not in label else ""
        tick = axis.get_major_formatter()
        if isinstance(tick, mpl.ticker.FuncFormatter):  # the plot's own way of writing a number (10^-9)
            show = lambda v, tick=tick: " ".join(str(tick(v, None)).translate(_TEX).split())  # noqa: E731
        else:
            show = _num
        axes.append(f"{name} axis {label} ({scale}from {show(min(lim))} to {show(max(lim))})")
    words.append("; ".join(axes) + ".")
    if ax in _AXES_NOTES:
        words.append(_AXES_NOTES[ax])
    series = [_series_text(artist) for artist in _legend_artists(ax)]
    if series:
        words.append("Series: " + "; ".join(series) + ".")
    return " ".join(words)


def _legend_artists(ax):
    handles, _ = ax.get_legend_handles_labels()
    return handles


def _series_text(artist):
    label = " ".join(str(artist.get_label()).replace("$", "").split())
    look = []
    colour = _colour(artist)
    if colour:
        look.append(colour)
    if isinstance(artist, mpl.lines.Line2D):
        style = artist.get_linestyle()
        if style not in ("None", "", " "):
            look.append(STYLE_NAMES.get(style, "patterned") + " line")
        marker = artist.get_marker()
        if marker not in ("None", "", " ", None):
            look.append(("with " if len(look) > 1 else "") + MARKER_NAMES.get(str(marker), "markers"))
    return f"{label} ({' '.join(look)})" if look else label


def _colour(artist):
    try:
        if isinstance(artist, mpl.lines.Line2D):
            rgba = artist.get_color()
        elif hasattr(artist, "get_facecolor"):
            rgba = artist.get_facecolor()
            rgba = rgba[0] if np.ndim(rgba) == 2 and len(rgba) else rgba
        else:
            return ""
        hex_ = mpl.colors.to_hex(rgba).lower()
    except (ValueError, TypeError, IndexError):
        return ""
    return COLOUR_NAMES.get(hex_, {"#808080": "grey", "#000000": "black"}.get(hex_, ""))


_TEX = str.maketrans("", "", "${}\\")


def _num(x):
    x = float(x)
    if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-2):
        return f"{x:.0e}".replace("e-0", "e-").replace("e+0", "e").replace("e+", "e")
    return f"{x:.3g}"


def figure_bundle(fig):
    """What Jupyter is handed for a figure: its PNG, and the same PNG as an image with alt text."""
    from IPython import get_ipython
    from IPython.core.pylabtools import print_figure

    if get_ipython() is not None:
        _draw_once(get_ipython())
    text = figure_text(fig)
    png = print_figure(fig, "png")
    if png is None:  # nothing drawn
        return {"text/plain": text}
    width = int.from_bytes(png[16:20], "big")
    data = base64.b64encode(png).decode("ascii")
    img = f'<img src="data:image/png;base64,{data}" width="{width}" alt="{html.escape(text)}">'
    return {"text/html": img, "image/png": png, "text/plain": text}


def _show_with_words():
    """In a running IPython, show every Figure through figure_bundle (once per session)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    shell.display_formatter.mimebundle_formatter.for_type(mpl.figure.Figure, figure_bundle)
    _draw_once(shell)


def _draw_once(shell):
    """Drop the inline backend's PNG printer for figures: it would draw each figure a second time
    (a printer registered for a type overrides a bundle's PNG); figure_bundle gives the PNG.
    The backend registers it again when it loads, so this runs at every figure shown too."""
    shell.display_formatter.formatters["image/png"].pop(mpl.figure.Figure, None)


def plot_losses(histories, ax=None, log=False, title="Training loss", xlabel="step", description=None):
    """Plot one loss curve, or several: a list of numbers, or {label: list}.

    description: what the curves show (the trend), attached with describe_figure().
    Each curve has its own colour, line style and marker, and ends with its last value.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4))
    if not isinstance(histories, dict):
        histories = {None: histories}
    for i, (label, losses) in enumerate(histories.items()):
        losses = np.asarray([_number(v) for v in losses], dtype=float)
        if losses.ndim != 1:
            raise ValueError(f"a loss history must be a flat list of numbers, got shape {losses.shape}")
        k = i % len(PALETTE)
        ax.plot(
            np.arange(len(losses)),
            losses,
            label=label,
            linewidth=1.8,
            color=PALETTE[k],
            linestyle=LINESTYLES[k],
            marker=MARKERS[k],
            markevery=0.1,
        )
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("loss" + (" (log scale)" if log else ""))
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if any(label is not None for label in histories):
        ax.legend()
    if description:
        describe_figure(ax, description)
    return ax


def plot_decision_boundary(predict, X, y, ax=None, steps=60, margin=0.5, title=None, description=None):
    """Shade where `predict` scores above or below zero, with the data on top.

    predict: maps an (n, 2) array of points to n scores (floats or Values).
    X, y: the data, with labels -1/+1 (or 0/1).
    steps: grid points per axis; steps**2 calls to the model in all.
    description: what the picture shows, attached with describe_figure().
    The classes differ in colour (vermillion, blue) and in marker (circles, squares).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_decision_boundary needs 2-D points, X of shape (n, 2); got {X.shape}")
    if len(y) != len(X):
        raise ValueError(f"X has {len(X)} points but y has {len(y)} labels")
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4.5))
    x_min, y_min = X.min(axis=0) - margin
    x_max, y_max = X.max(axis=0) + margin
    xx, yy = np.meshgrid(np.linspace(x_min, x_max, steps), np.linspace(y_min, y_max, steps))
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    scores = np.array([_number(s) for s in predict(grid)], dtype=float)
    zz = (scores > 0).reshape(xx.shape)
    ax.contourf(xx, yy, zz, levels=[-0.5, 0.5, 1.5], colors=[SHADE["negative"], SHADE["positive"]])
    positive = y > 0
    negative_style = {"c": OKABE_ITO["vermillion"], "marker": "o", "label": "class -1"}
    positive_style = {"c": OKABE_ITO["blue"], "marker": "s", "label": "class +1"}
    ax.scatter(*X[~positive].T, edgecolors="k", s=28, linewidths=0.6, **negative_style)
    ax.scatter(*X[positive].T, edgecolors="k", s=26, linewidths=0.6, **positive_style)
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(y_min, y_max)
    if title:
        ax.set_title(title)
    _AXES_NOTES[ax] = (
        f"Shaded blue where the model says class +1 ({np.mean(zz):.0%} of the area), "
        "light vermillion where it says class -1."
    )
    if description:
        describe_figure(ax, description)
    return ax


def _number(v):
    """A Value's data, or the number itself. NumPy numbers are kept as they are:
    they have a `.data` attribute too (a memoryview), which is not what we want."""
    return v if isinstance(v, (numbers.Number, np.generic)) else getattr(v, "data", v)


use_course_style()  # importing the plot helpers sets the course's look, once
