"""What instructor/ (the hidden cases, the grader, the student edition) takes from the exercises,
under public names, in one place.

The chapter modules keep these helpers private: a learner's notebook never calls them, and the
student edition leaves them out. The hidden cases grade an answer against the same references
the checks in place use, so they take them from here and from nowhere else in the package
(tests/test_packaging.py). Each name is looked up in its chapter when it is asked for, so a
grading kernel that has given one chapter its references back can import that chapter's.
"""

import importlib

from ._core import (
    EXERCISES,
    RECORDERS,
    Missed,
    Verdict,
    as_array,
    as_number,
    attempt,
    close,
    first,
    hidden,
    shown,
)

# public name -> (chapter module, the helper's name there)
HELPERS = {
    "op_with_derivative": ("ch06", "_op"),  # a one-input Value operation with a claimed derivative
    "BUILT_HINT": ("ch07", "BUILT_HINT"),
    "WIDTH_BUILT_HINT": ("ch07", "WIDTH_BUILT_HINT"),
    "predicting": ("ch07", "predicting"),
    "loss_nodes": ("ch07", "_loss_nodes"),  # the loss graph's node count by formula, per mistake
    "true_loss_node_count": ("ch07", "_true_loss_node_count"),  # counted in a real graph
    "training_step": ("ch08", "_step"),  # one step of gradient descent, or one of its mistakes
    "engine_hinge_grads": ("ch09", "_engine_grads"),  # the squared hinge's gradients, by backward()
    "adam_change": ("ch10", "_adam_change"),  # the package's Adam step on a constant gradient
    "ema_limit": ("ch10", "_ema_limit"),  # the largest stable rate of momentum written as an average
    "torch_momentum_step": ("ch10", "_momentum"),  # PyTorch's momentum step, or one with slips
    "counted_visits": ("ch11", "_counted_visits"),  # the calls of chapter 11's recursive walk
    "chain_rule_count": ("ch13", "_chain_rules"),  # backward rules in reverse mode's Jacobian
    "dual_class": ("ch13", "_dual_class"),  # the notebook's own Dual class, or a stand-in
    "dual_pow_rule": ("ch13", "_pow_rule"),  # a ** b on duals, or one of its slips
    "faster_mode": ("ch13", "_truth"),  # which mode wins for n inputs and m outputs, and by how much
}

__all__ = [
    "EXERCISES", "RECORDERS", "Missed", "Verdict", "as_array", "as_number", "attempt", "close", "first",
    "hidden", "shown", *HELPERS,
]  # fmt: skip


def __getattr__(name):
    if name not in HELPERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    chapter, there = HELPERS[name]
    return getattr(importlib.import_module(f"{__package__}.{chapter}"), there)


def __dir__():
    return sorted(__all__)
