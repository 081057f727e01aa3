"""Training, packaged: `fit` runs gradient descent and returns what happened.

Every training loop in the course has the same four lines at its heart:

    loss = loss_fn()            # 1. forward: a fresh graph from the current parameters
    p.grad = 0.0 for every p    # 2. forget the previous step's gradients
    loss.backward()             # 3. backward: fill in every parameter's .grad
    p.data -= lr * p.grad       # 4. update: a small step downhill

`fit` runs them `steps` times and keeps a `History`. Inside Jupyter it shows a
progress bar while it runs; anywhere else it is silent. The bar is an
ipywidgets widget updated in place, so a stored notebook keeps only the
widget's one-line description, identical on every run.

`frame_slider` shows pictures taken during training (one per step) with a
slider to move between them.
"""

import functools
import io
import math

__all__ = ["History", "fit", "frame_slider"]


class History:
    """What happened during `fit`, step by step.

    loss[k]     the loss at the start of step k, before update k was made
    lr[k]       the learning rate used for update k
    metrics     {name: list}, anything else loss_fn reported (e.g. accuracy)
    stopped     None, or why training ended early (the loss became inf or nan)
    """

    def __init__(self):
        self.loss = []
        self.lr = []
        self.metrics = {}
        self.stopped = None

    def __getitem__(self, name):
        """history["loss"], history["lr"] or history["accuracy"]: one list."""
        if name in ("loss", "lr"):
            return getattr(self, name)
        return self.metrics[name]

    def __len__(self):
        return len(self.loss)

    def __repr__(self):
        if not self.loss:
            return "History(0 steps)"
        last = f"loss {_fmt(self.loss[0])} -> {_fmt(self.loss[-1])}"
        extra = "".join(f", {name} {_fmt(values[-1])}" for name, values in self.metrics.items())
        stopped = f", stopped: {self.stopped}" if self.stopped else ""
        return f"History({len(self)} steps, {last}{extra}{stopped})"


def fit(model, loss_fn, steps, lr=None, optimizer=None, progress=True, callback=None):
    """Train `model` by gradient descent for `steps` updates; return a `History`.

    model: a Module (anything with .parameters()) or a list of Values.
    loss_fn: called with no arguments; runs a forward pass with the current
        parameters and returns the loss (a Value), or (loss, {"accuracy": 0.9, ...}).
    lr: the learning rate, a number or a function of the step k = 0, 1, ...
        (a schedule, e.g. lambda k: 1.0 - 0.9 * k / steps).
    optimizer: optional, e.g. micrograd_lesson.optim.Adam(params); it then does
        the zeroing and the update, and lr (if given) overrides its rate.
    progress: show a progress bar in Jupyter (never anywhere else).
    callback: callback(step, history) after every update, where step is the
        number of updates made so far (1 .. steps).

    Training stops early, with history.stopped saying why, if the loss
    becomes inf or nan or a number overflows: the rate is too large.
    """
    params = list(model.parameters()) if hasattr(model, "parameters") else list(model)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    if lr is None and optimizer is None:
        raise ValueError("fit needs a learning rate: fit(model, loss_fn, steps, lr=0.05)")
    history = History()
    bar = _ProgressBar(steps) if progress else None
    for k in range(steps):
        rate = lr(k) if callable(lr) else lr
        try:
            out = loss_fn()  # 1. forward
            loss, metrics = out if isinstance(out, tuple) else (out, {})
            if not math.isfinite(loss.data):
                history.stopped = f"step {k}: the loss is {loss.data}"
                break
            if optimizer is None:
                for p in params:  # 2. zero
                    p.grad = 0.0
                loss.backward()  # 3. backward
                for p in params:  # 4. update
                    p.data -= rate * p.grad
            else:
                if rate is not None:
                    optimizer.lr = rate
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                rate = optimizer.lr
        except OverflowError:
            history.stopped = f"step {k}: OverflowError, a number grew past the largest float"
            break
        history.loss.append(loss.data)
        history.lr.append(rate)
        for name, value in metrics.items():
            history.metrics.setdefault(name, []).append(float(value))
        if bar:
            bar.update(k + 1, _status(history))
        if callback is not None:
            callback(k + 1, history)
    if bar:
        bar.update(len(history), _status(history), final=True)
    return history


def _status(history):
    """One line for the progress bar: the latest loss and metrics."""
    parts = [f"step {len(history)}", f"loss {_fmt(history.loss[-1])}"] if history.loss else ["step 0"]
    parts += [f"{name} {_fmt(values[-1])}" for name, values in history.metrics.items()]
    if history.stopped:
        parts.append(f"stopped at {history.stopped}")
    return " · ".join(parts)


def _fmt(x):
    """A number at fixed precision; huge ones (a diverging loss) in scientific notation."""
    return f"{x:.4f}" if abs(x) < 1e4 else f"{x:.3e}"


def _in_jupyter_kernel():
    """True when running inside a Jupyter kernel (a notebook), False in plain Python."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def _widgets():
    try:
        import ipywidgets
    except ImportError:
        return None
    return ipywidgets


class _ProgressBar:
    """A bar and a status line, updated in place; does nothing outside Jupyter."""

    def __init__(self, total):
        self.total = total
        self.every = max(1, total // 100)  # at most ~100 redraws, however long the run
        self.widget = None
        widgets = _widgets()
        if widgets is None or not _in_jupyter_kernel():
            return
        from IPython.display import display

        self.bar = widgets.IntProgress(value=0, min=0, max=max(total, 1), description="training")
        self.label = widgets.Label(value=f"step 0 of {total}")
        text = f"<progress bar for {total} training steps>"
        self.widget = _described(widgets.HBox, text, [self.bar, self.label])
        display(self.widget)

    def __bool__(self):
        return self.widget is not None

    def update(self, done, text, final=False):
        if self.widget is None or not (final or done % self.every == 0):
            return
        self.bar.value = done
        self.bar.bar_style = "success" if final and done == self.total else ""
        if final and done < self.total:
            self.bar.bar_style = "danger"
        self.label.value = text


@functools.cache
def _described_class(widget_class):
    return type(widget_class.__name__, (widget_class,), {"__repr__": _plain_text, "__module__": __name__})


def _plain_text(widget):
    return widget.plain_text


def _described(widget_class, text, children):
    """A box widget whose plain-text form is `text`.

    A stored notebook keeps a widget's plain text (what a viewer without the
    live widget shows) and nbval compares it; a fixed description keeps it
    short, readable and identical on every run.
    """
    widget = _described_class(widget_class)(children)
    widget.plain_text = text
    return widget


def frame_slider(frames, description="step"):
    """A slider that flips through pictures, e.g. a decision boundary during training.

    frames: {step: matplotlib Figure} (or PNG bytes); each figure is drawn
    once, up front, and closed, so moving the slider is instant.
    Returns the widget; make it the last line of a cell to show it.
    """
    widgets = _widgets()
    if widgets is None:
        raise ImportError("frame_slider needs ipywidgets: pip install ipywidgets")
    if not frames:
        raise ValueError("frame_slider needs at least one frame")
    pngs = {step: _png(frame) for step, frame in frames.items()}
    steps = list(pngs)
    image = widgets.Image(value=pngs[steps[0]], format="png")
    slider = widgets.SelectionSlider(options=steps, value=steps[0], description=description)
    slider.observe(lambda change: setattr(image, "value", pngs[change["new"]]), names="value")
    text = f"<slider over {len(steps)} frames, {description} {steps[0]} to {steps[-1]}>"
    return _described(widgets.VBox, text, [slider, image])


def _png(frame):
    if isinstance(frame, bytes):
        return frame
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    frame.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    plt.close(frame)
    return buffer.getvalue()
