"""Training, packaged: `fit` runs gradient descent and returns what happened.

Every training loop in the course has the same four lines at its heart:

    loss = loss_fn()            # 1. forward: a fresh graph from the current parameters
    p.grad = 0.0 for every p    # 2. forget the previous step's gradients
    loss.backward()             # 3. backward: fill in every parameter's .grad
    p.data -= lr * p.grad       # 4. update: a small step downhill

`fit` runs them `steps` times and keeps a `History`. It shows nothing unless given a
progress display: `fit(..., progress=ProgressBar)` (micrograd_lesson.show.widgets) draws a
bar in Jupyter. Training imports nothing from `show`: the display is handed in.
"""

import math

from .optim import SGD

__all__ = ["History", "fit"]


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


def fit(model, loss_fn, steps, lr=None, optimizer=None, progress=None, callback=None):
    """Train `model` by gradient descent for `steps` updates; return a `History`.

    model: a Module (anything with .parameters()) or a list of Values.
    loss_fn: called with no arguments; runs a forward pass with the current
        parameters and returns the loss (a Value), or (loss, {"accuracy": 0.9, ...}).
    lr: the learning rate, a number or a function of the step k = 0, 1, ...
        (a schedule, e.g. lambda k: 1.0 - 0.9 * k / steps).
    optimizer: optional, e.g. micrograd_lesson.optim.Adam(params); it does the
        zeroing and the update, and lr (if given) overrides its rate. Without
        one, fit uses SGD(params, lr): plain gradient descent, p.data -= lr * p.grad.
    progress: None (or False) to train silently, or a factory: progress(steps) returns
        a display with .update(done, text) after each step and .finish(done, text)
        at the end, e.g. micrograd_lesson.ProgressBar (a bar in Jupyter, nothing elsewhere).
    callback: callback(step, history) after every update, where step is the
        number of updates made so far (1 .. steps).

    Training stops early, with history.stopped saying why, if the loss
    becomes inf or nan or a number overflows: the rate is too large.
    """
    params = list(model.parameters()) if hasattr(model, "parameters") else list(model)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    if progress is True:
        raise ValueError(
            "progress takes a display factory, not True: fit(..., progress=ProgressBar), "
            "with `from micrograd_lesson import ProgressBar`"
        )
    if progress and not callable(progress):
        raise TypeError(f"progress must be None or a factory progress(steps), got {progress!r}")
    if lr is None and optimizer is None:
        raise ValueError("fit needs a learning rate: fit(model, loss_fn, steps, lr=0.05)")
    if optimizer is None:  # plain gradient descent: p.data -= lr * p.grad
        optimizer = SGD(params, lr=lr(0) if callable(lr) else lr)
    history = History()
    bar = progress(steps) if progress else None
    for k in range(steps):
        if lr is not None:
            try:  # the optimiser checks every rate it is given, a schedule's at every step
                optimizer.lr = lr(k) if callable(lr) else lr
            except ValueError as e:
                if callable(lr):
                    e.add_note(f"(the schedule's rate lr(k) at step k = {k})")
                raise
        # Let go of the last step's graph before building the next: two graphs alive at once
        # would double the memory and the garbage collector's work (about 1.4x slower a step).
        out = loss = None
        try:
            out = loss_fn()  # 1. forward
            loss, metrics = out if isinstance(out, tuple) else (out, {})
            if not math.isfinite(loss.data):
                history.stopped = f"step {k}: the loss is {loss.data}"
                break
            optimizer.zero_grad()  # 2. zero
            loss.backward()  # 3. backward
            optimizer.step()  # 4. update
        except OverflowError:
            history.stopped = f"step {k}: OverflowError (past the largest float)"
            break
        history.loss.append(loss.data)
        history.lr.append(optimizer.lr)
        for name, value in metrics.items():
            history.metrics.setdefault(name, []).append(float(value))
        if bar is not None:
            bar.update(k + 1, _status(history))
        if callback is not None:
            callback(k + 1, history)
    if bar is not None:
        bar.finish(len(history), _status(history, steps))
    return history


def _status(history, steps=None):
    """One line for the progress bar: the latest loss and metrics."""
    of = f" of {steps}" if steps is not None else ""
    parts = [f"step {len(history)}{of}"]
    if history.loss:
        parts.append(f"loss {_fmt(history.loss[-1])}")
    parts += [f"{name} {_fmt(values[-1])}" for name, values in history.metrics.items()]
    if history.stopped:
        parts.append(f"stopped at {history.stopped}")
    return " · ".join(parts)


def _fmt(x):
    """A number at fixed precision; huge ones (a diverging loss) in scientific notation."""
    return f"{x:.4f}" if abs(x) < 1e4 else f"{x:.3e}"
