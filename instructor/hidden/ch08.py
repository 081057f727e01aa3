"""Hidden cases for chapter 8: another network, batch and rate; gradients of length zero.

ch08.learning_rate (one number) and ch08.diagnosis (a fixed reading of four curves) have
no hidden case: there is no other input to try them on.
"""

import math
import random

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import Missed, Verdict, as_number, attempt, close, hidden, shown
from micrograd_lesson.exercises.ch08 import _step
from micrograd_lesson.nn import MLP


def _small_network():
    state = random.getstate()  # leave the learner's random stream alone
    random.seed(81)
    model = MLP(2, [3, 1], activation="tanh")
    random.setstate(state)
    return model


@hidden("ch08.train_step")
def train_step_on_another_batch_and_rate(train_step):
    """A 2-3-1 network, 5 examples, lr 0.02: an answer that fixed the check's rate (0.05) or its
    4 examples inside the function moves the parameters differently."""
    xs = [[0.5, -1.0], [1.5, 0.2], [-0.7, 0.9], [0.0, 2.0], [-1.2, -0.3]]
    ys = [1.0, -1.0, 0.5, -0.5, 1.0]
    mine, ref = _small_network(), _small_network()
    for step in range(2):
        got, error = attempt(train_step, mine, xs, ys, 0.02)
        want = _step(ref, xs, ys, 0.02)
        loss = as_number(getattr(got, "data", got))
        where = f"with 5 examples and lr = 0.02, step {step}"
        kind = f"another network, 5 examples and lr = 0.02 (step {step})"
        if error or not close(loss, want, rel=1e-9):
            gave = error or f"a loss of {shown(got)}"
            return Missed(kind, gave, f"{where}: the loss should be {want:.6f}, got {gave}")
        params = zip(mine.parameters(), ref.parameters())
        if not all(close(p.data, q.data, rel=1e-9, abs_tol=1e-12) for p, q in params):
            gave = "parameters that moved wrongly (use the lr and the examples given)"
            return Missed(
                kind, gave, f"{where}: the parameters moved wrongly; use the lr and the examples given"
            )
    return Verdict(True)


@hidden("ch08.clip_gradients")
def clip_gradients_of_other_lengths(clip_gradients):
    """Five gradients of length 15 clipped to 5, then all-zero gradients: an answer that scales by
    max_norm / length unconditionally divides by zero there."""
    for kind, grads, max_norm in [
        ("five gradients longer than max_norm", [2.0, -5.0, 4.0, 0.0, 14.0 * math.sqrt(0.5)], 5.0),
        ("gradients that are all zero", [0.0, 0.0], 1.0),
    ]:
        params = [Value(1.0) for _ in grads]
        for p, g in zip(params, grads):
            p.grad = g
        norm = math.sqrt(sum(g * g for g in grads))
        scale = max_norm / norm if norm > max_norm else 1.0
        got, error = attempt(clip_gradients, params, max_norm)
        if error or not close(got, norm) or not all(close(p.grad, g * scale) for p, g in zip(params, grads)):
            gave = error or f"{shown(got)}, grads {[shown(p.grad, 12) for p in params]}"
            told = f"grads {[round(g, 3) for g in grads]}, max_norm {max_norm}: "
            told += error or f"returned {shown(got)}, want length {norm:g} and each grad times {scale:g}"
            return Missed(kind, gave, told)
    return Verdict(True)
