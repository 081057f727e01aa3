"""Live widgets for notebooks: a training progress bar and a slider over pictures.

Both are ipywidgets, live while a notebook runs. A stored notebook cannot
keep a live widget, only what the widget shows as plain text or as a picture,
so each says there what it showed at the end: the progress bar its final step
and loss, the slider one of its pictures. That stored form is identical on
every run, so strict nbval can compare it.
"""

import functools
import io

from .notebook import PNG_SCALE, in_jupyter_kernel, ipywidgets_or_none, picture_bundle, png_width_px

__all__ = ["ProgressBar", "described", "frame_slider"]


class ProgressBar:
    """A bar and a status line for `total` steps, updated in place; nothing outside Jupyter.

    bar = ProgressBar(200); bar.update(k, "loss 0.1234") as steps finish;
    bar.finish(done, text) at the end, which also becomes its stored text.
    """

    def __init__(self, total, description="training"):
        self.total = total
        self.description = description
        self.every = max(1, total // 100)  # at most ~100 redraws, however long the run
        self.widget = None
        widgets = ipywidgets_or_none()
        if widgets is None or not in_jupyter_kernel():
            return
        from IPython.display import display

        self.bar = widgets.IntProgress(value=0, min=0, max=max(total, 1), description=description)
        self.label = widgets.Label(value=f"step 0 of {total}")
        self.widget = described(widgets.HBox, f"{description}: step 0 of {total}", [self.bar, self.label])
        self.handle = display(self.widget, display_id=True)

    def __bool__(self):
        return self.widget is not None

    def update(self, done, text):
        """Show `done` steps finished and a status line (redrawn every `every` steps)."""
        if self.widget is not None and done % self.every == 0:
            self.bar.value = done
            self.label.value = text

    def finish(self, done, text):
        """The final state: green when all steps ran, red when stopped early.

        The output is re-sent with this text, so the stored notebook says how
        training ended instead of how it began.
        """
        if self.widget is None:
            return
        self.bar.value = done
        self.bar.bar_style = "success" if done == self.total else "danger"
        self.label.value = text
        self.widget.plain_text = f"{self.description}: {text}"
        self.handle.update(self.widget)


@functools.cache
def _described_class(widget_class):
    """widget_class, with a fixed plain text and optionally a picture for stored notebooks."""

    def mimebundle(self, **kwargs):
        # A live notebook shows the widget; a stored one (no widget state) the picture, if any.
        png, width = self.picture or (None, None)
        data = widget_class._repr_mimebundle_(self, **kwargs)
        alt = self.alt or self.plain_text if png is not None else None
        return picture_bundle(self.plain_text, png=png, data=data, png_width=width, alt=alt)

    methods = {"__repr__": _plain_text, "_repr_mimebundle_": mimebundle, "__module__": __name__}
    return type(widget_class.__name__, (widget_class,), methods)


def _plain_text(widget):
    return widget.plain_text


def described(widget_class, text, children, picture=None, layout=None, alt=None):
    """A box widget whose plain-text form is `text` (no model id, no address).

    picture: optional (png_bytes, width_in_css_px), what a stored notebook shows.
    alt: what that picture shows, in words (default: `text`).
    layout: optional ipywidgets Layout settings of the box, e.g. {"align_items": "flex-start"}.
    """
    widget = _described_class(widget_class)(children, **({"layout": layout} if layout else {}))
    widget.plain_text = text
    widget.picture = picture
    widget.alt = alt
    return widget


def frame_slider(frames, description="step"):
    """A slider that flips through pictures, e.g. a decision boundary during training.

    frames: {step: matplotlib Figure} (or PNG bytes); the stored picture's alt text is the
    first figure's words (see plots.describe_figure). Each figure is drawn
    once, up front, at twice its screen resolution and closed, so moving the
    slider is instant and the pictures are sharp. Returns the widget; make it
    the last line of a cell to show it. A stored notebook shows the first picture.
    """
    widgets = ipywidgets_or_none()
    if widgets is None:
        raise ImportError("frame_slider needs ipywidgets: pip install ipywidgets")
    if not frames:
        raise ValueError("frame_slider needs at least one frame")
    from .plots import figure_text

    steps = list(frames)
    first = frames[steps[0]]
    words = "" if isinstance(first, bytes) else figure_text(first)  # before _png closes it
    pngs = {step: _png(frame) for step, frame in frames.items()}
    width = max(png_width_px(png) for png in pngs.values())
    image = widgets.Image(value=pngs[steps[0]], format="png", layout=widgets.Layout(width=f"{width}px"))
    slider = widgets.SelectionSlider(options=steps, value=steps[0], description=description)
    slider.observe(lambda change: setattr(image, "value", pngs[change["new"]]), names="value")
    text = f"{len(steps)} pictures, {description} {steps[0]} to {steps[-1]}; showing {description} {steps[0]}"
    alt = f"The first of {len(steps)} pictures ({description} {steps[0]}). {words}".strip()
    return described(widgets.VBox, text, [slider, image], picture=(pngs[steps[0]], width), alt=alt)


def _png(frame):
    if isinstance(frame, bytes):
        return frame
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    # 96 dots an inch is the screen's CSS pixel; draw PNG_SCALE times as many.
    frame.savefig(buffer, format="png", dpi=96 * PNG_SCALE, bbox_inches="tight")
    plt.close(frame)
    return buffer.getvalue()
