"""micrograd_lesson: what the course's notebooks share.

from micrograd_lesson import Value, draw_dot

Each name is imported from its module the first time it is used, so that
`import micrograd_lesson.engine` needs neither NumPy nor Matplotlib (the course
site's playground runs the engine in the browser) and `import micrograd_lesson`
is quick.
"""

import importlib

# gradcheck is a module and a function of it: importing the module would make the package's
# `gradcheck` the module, so the function is bound here first (it needs only the engine).
from .gradcheck import gradcheck  # noqa: F401  (exported through __all__ below)

__version__ = "0.1.0"

# name -> the module it lives in
_WHERE = {
    "Value": "engine",
    "no_grad": "engine",
    "grad": "autograd",
    "four_examples": "datasets",
    "load_digits": "datasets",
    "make_moons": "datasets",
    "make_spiral": "datasets",
    "xor": "datasets",
    "central_difference": "gradcheck",
    "forward_difference": "gradcheck",
    "numerical_gradient": "gradcheck",
    "MLP": "nn",
    "Layer": "nn",
    "Module": "nn",
    "Neuron": "nn",
    "SGD": "optim",
    "Adam": "optim",
    "Optimizer": "optim",
    "Drawing": "show.draw",
    "draw_dot": "show.draw",
    "describe_figure": "show.plots",
    "plot_decision_boundary": "show.plots",
    "plot_losses": "show.plots",
    "step_through": "show.stepthrough",
    "frame_slider": "show.widgets",
    "ProgressBar": "show.widgets",
    "Tensor": "tensor",
    "History": "train",
    "fit": "train",
}

__all__ = sorted([*_WHERE, "gradcheck"])


def __getattr__(name):
    """`micrograd_lesson.X`: X from its module, imported the first time it is asked for."""
    if name not in _WHERE:  # a module of the package (micrograd_lesson.tensor), or nothing
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise  # the module is there; something it needs is not
            raise AttributeError(f"module 'micrograd_lesson' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value  # the next use finds it at once
    return value


def __dir__():
    return sorted([*globals(), *_WHERE])
