"""Loss curves and decision boundaries.

Each function draws on an Axes (a new figure if none is given) and returns
it. Nothing drawn depends on the date or on random ids, so re-running a
notebook gives the same picture.
"""

import numbers

import matplotlib.pyplot as plt
import numpy as np


def plot_losses(histories, ax=None, log=False, title="Training loss", xlabel="step"):
    """Plot one loss curve, or several: a list of numbers, or {label: list}."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4))
    if not isinstance(histories, dict):
        histories = {None: histories}
    for label, losses in histories.items():
        losses = np.asarray([_number(v) for v in losses], dtype=float)
        if losses.ndim != 1:
            raise ValueError(f"a loss history must be a flat list of numbers, got shape {losses.shape}")
        ax.plot(np.arange(len(losses)), losses, label=label, linewidth=1.8)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("loss" + (" (log scale)" if log else ""))
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if any(label is not None for label in histories):
        ax.legend()
    return ax


def plot_decision_boundary(predict, X, y, ax=None, steps=60, margin=0.5, title=None):
    """Shade where `predict` scores above or below zero, with the data on top.

    predict: maps an (n, 2) array of points to n scores (floats or Values).
    X, y: the data, with labels -1/+1 (or 0/1).
    steps: grid points per axis; steps**2 calls to the model in all.
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
    ax.contourf(xx, yy, zz, levels=[-0.5, 0.5, 1.5], colors=["#f4b6b6", "#b6c8f4"], alpha=0.8)
    positive = y > 0
    ax.scatter(*X[~positive].T, c="#c0392b", edgecolors="k", s=28, label="class -1")
    ax.scatter(*X[positive].T, c="#2e5cb8", edgecolors="k", s=28, label="class +1")
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(y_min, y_max)
    if title:
        ax.set_title(title)
    return ax


def _number(v):
    """A Value's data, or the number itself. NumPy numbers are kept as they are:
    they have a `.data` attribute too (a memoryview), which is not what we want."""
    return v if isinstance(v, (numbers.Number, np.generic)) else getattr(v, "data", v)
