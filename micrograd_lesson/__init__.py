"""micrograd_lesson: what the course's notebooks share.

from micrograd_lesson import Value, draw_dot
"""

from .autograd import grad
from .datasets import four_examples, load_digits, make_moons, make_spiral, xor
from .engine import Value, no_grad
from .gradcheck import central_difference, forward_difference, gradcheck, numerical_gradient
from .nn import MLP, Layer, Module, Neuron
from .optim import SGD, Adam, Optimizer
from .show.draw import Drawing, draw_dot
from .show.plots import plot_decision_boundary, plot_losses
from .show.stepthrough import step_through
from .show.widgets import frame_slider
from .tensor import Tensor
from .train import History, fit

__version__ = "0.1.0"

__all__ = [
    "MLP",
    "SGD",
    "Adam",
    "Drawing",
    "History",
    "Layer",
    "Module",
    "Neuron",
    "Optimizer",
    "Tensor",
    "Value",
    "central_difference",
    "draw_dot",
    "fit",
    "forward_difference",
    "four_examples",
    "frame_slider",
    "grad",
    "gradcheck",
    "load_digits",
    "make_moons",
    "make_spiral",
    "no_grad",
    "numerical_gradient",
    "plot_decision_boundary",
    "plot_losses",
    "step_through",
    "xor",
]
