"""What the playground adds for a training loop: `show_training`, which the reader calls once per step.

    from playground import show_training
    for step in range(60):
        ...                       # the reader's own forward pass, backward() and update
        show_training(step, loss, model, points, labels)

It keeps every step's loss, and every few steps sends the page (through the worker) the losses
so far, the training accuracy and the model's decision boundary over the points, which the page
draws while the loop goes on. runner.py calls `start()` before each run and `finish()` after it:
a run that called show_training ends with a summary instead of one graph (a training graph has
tens of thousands of nodes). Nothing here needs NumPy: the browser's Python has none.
"""

import json
import math
import numbers

# The site copies what this file imports: the network and its optimisers, for the reader's loop.
# Models and losses are recognised by their shape, not their class: a model or Value made by
# another copy of these modules is drawn all the same.
import micrograd_lesson.engine
import micrograd_lesson.optim  # noqa: F401
from micrograd_lesson.nn import ACTIVATIONS

GRID = 24  # cells per side of the boundary: 576 forward passes per picture, in plain floats
EVERY = 5  # steps between two pictures
MARGIN = 0.5  # the picture reaches this far beyond the outermost points
MAX_POINTS = 2000  # more would make each picture cost more than the training steps it shows

try:  # in the browser: the worker's function, which posts one message to the page
    from js import playgroundProgress as _post
except ImportError:  # CPython (the tests): messages are kept in SENT instead
    _post = None
SENT = []
_run = None  # this run's losses and counters; None when show_training has not been called


def start():
    """Forget the previous run (runner.run calls this before the reader's code)."""
    global _run
    _run = None
    SENT.clear()


def show_training(step, loss, model, points, labels, every=EVERY):
    """Record this step's loss; every `every` calls, send the page the losses and the boundary.

    step: the step number (a whole number); loss: this step's loss (a Value or a number);
    model: what maps a point [x, y] to a score (an nn.MLP, or anything callable);
    points: [[x, y], ...]; labels: -1 or +1 for each point (the side its score should be on).
    """
    global _run
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError(f"show_training needs the step number (a whole number) first, got {step!r}")
    if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
        raise ValueError(f"show_training: every must be a whole number >= 1, got {every!r}")
    if not callable(model):
        raise TypeError(f"show_training needs the model (something to call on a point), got {model!r}")
    points, labels = _checked_data(points, labels)
    if _run is None:
        _run = {"losses": [], "unsent": 0, "calls": 0, "accuracy": None}
    _run["losses"].append([int(step), _finite(_number(loss, "loss"))])
    _run["calls"] += 1
    if _run["calls"] == 1 or _run["calls"] % every == 0:
        _send(_picture(model, points, labels))


def finish():
    """After the run: None if show_training was never called, else the last picture with a summary
    (the page draws it in place of the graph it draws for other code)."""
    if _run is None:
        return None
    picture = _picture(*_run["last"])
    losses = [loss for _, loss in _run["losses"]]
    picture["summary"] = {"steps": len(losses), "first_loss": losses[0], "last_loss": losses[-1],
                          "accuracy": picture["accuracy"]}  # fmt: skip
    return picture


def _picture(model, points, labels):
    """What the page draws: the losses not sent yet, the accuracy, and the boundary on a grid."""
    _run["last"] = (model, points, labels)  # for finish()
    scores = [predict(model, p) for p in points]
    accuracy = sum((s > 0) == (y > 0) for s, y in zip(scores, labels)) / len(points)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1 = min(xs) - MARGIN, max(xs) + MARGIN
    y0, y1 = min(ys) - MARGIN, max(ys) + MARGIN
    cells = []  # row by row from the top (largest y), "1" where the model says +1
    for row in range(GRID):
        y = y1 - (row + 0.5) * (y1 - y0) / GRID
        for col in range(GRID):
            x = x0 + (col + 0.5) * (x1 - x0) / GRID
            cells.append("1" if predict(model, [x, y]) > 0 else "0")
    losses = _run["losses"][_run["unsent"] :]
    _run["unsent"] = len(_run["losses"])
    return {
        "step": _run["losses"][-1][0],
        "losses": losses,
        "accuracy": accuracy,
        "box": [x0, x1, y0, y1],
        "grid": GRID,
        "cells": "".join(cells),
        "points": [[p[0], p[1], 1 if y > 0 else -1] for p, y in zip(points, labels)],
    }


def predict(model, point):
    """model's score for `point`, as a float. A model built like nn's (an MLP, Layer or Neuron) is
    evaluated in plain floats (a picture needs hundreds of forward passes, each as costly in Values
    as a training step's share); any other model is called under no_grad and its output read."""
    layers = _layers(model)
    if layers is not None:
        out = [float(v) for v in point]
        for neurons in layers:
            out = [_activate(n, sum((w.data * x for w, x in zip(n.w, out)), n.b.data)) for n in neurons]
    else:
        with micrograd_lesson.engine.no_grad():
            out = model(point)
    if isinstance(out, (list, tuple)) and len(out) == 1:
        out = out[0]
    return _number(out, "the model's output for a point")


def _layers(model):
    """The model's layers, each a list of neurons, if it is built like nn's; else None."""
    if hasattr(model, "layers"):
        layers = [getattr(layer, "neurons", None) for layer in model.layers]
    elif hasattr(model, "neurons"):
        layers = [model.neurons]
    else:
        layers = [[model]]
    if all(isinstance(neurons, list) and all(map(_nn_neuron, neurons)) for neurons in layers):
        return layers
    return None


def _nn_neuron(n):
    """Whether n is built like nn.Neuron: a list of weights w, a bias b, a known activation."""
    w, b = getattr(n, "w", None), getattr(n, "b", None)
    return isinstance(w, list) and hasattr(b, "data") and getattr(n, "activation", None) in ACTIVATIONS


def _activate(neuron, z):
    """The neuron's activation on a float, as the engine computes it on a Value."""
    kind = neuron.activation
    if kind == "relu":
        return max(z, 0.0)
    if kind == "tanh":
        return math.tanh(z)
    if kind == "sigmoid":
        return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))
    return z


def _number(x, what):
    """x as a float: a number, or a Value's data."""
    for n in (x, getattr(x, "data", None)):
        if isinstance(n, numbers.Real) and not isinstance(n, bool):
            return float(n)
    raise TypeError(f"show_training: {what} should be one number (or a Value), got {x!r}")


def _finite(x):
    return x if math.isfinite(x) else None  # JSON has no nan or inf; the page says "not a number"


def _checked_data(points, labels):
    """points as [[x, y], ...] of floats and labels as numbers, or an error that says what is wrong."""
    try:
        points, labels = list(points), list(labels)
    except TypeError:
        raise TypeError("show_training needs points as a list of [x, y] and labels as a list") from None
    if not points or len(points) != len(labels):
        raise ValueError(f"show_training needs one label per point, got {len(points)} points and "
                         f"{len(labels)} labels")  # fmt: skip
    if len(points) > MAX_POINTS:
        raise ValueError(f"show_training draws at most {MAX_POINTS} points, got {len(points)}")
    checked = []
    for i, p in enumerate(points):
        try:
            x, y = (_number(v, "a coordinate") for v in p)
        except (TypeError, ValueError):
            raise ValueError(f"show_training: point {i} should be [x, y], two numbers; got {p!r}") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"show_training: point {i} is not finite: {p!r}")
        checked.append([x, y])
    for i, y in enumerate(labels):
        if _number(y, f"label {i}") not in (-1, 1):
            raise ValueError(f"show_training: labels are -1 or +1 (the side of 0 the score should be on); "
                             f"label {i} is {y!r}")  # fmt: skip
    return checked, labels


def _send(message):
    if _post is None:
        SENT.append(message)
    else:
        _post(json.dumps(message, allow_nan=False))
