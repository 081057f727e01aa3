"""Chapter 8 exercises: one training step, a rate for the bowl, diagnosing loss curves, clipping."""

import math
import random
from functools import partial

from ..datasets import four_examples
from ..engine import Value
from ..nn import MLP
from ._core import as_number, attempt, check, close, shown, solution
from ._shared import all_exact, numbers


def _network(seed):
    state = random.getstate()  # do not disturb the learner's random stream
    random.seed(seed)
    model = MLP(3, [4, 4, 1], activation="tanh")
    random.setstate(state)
    return model


# ---- 1. find the bugs in a per-example training step ----
def _step(model, xs, ys, lr, mistake=None):
    """One step on the summed squared error, example by example; `mistake` changes one thing."""
    if mistake not in ("zero inside", "no zero"):
        model.zero_grad()
    total = 0.0
    for x, y in zip(xs, ys):
        if mistake in ("zero inside", "per example"):
            model.zero_grad()
        loss = (model(x) - y) ** 2
        loss.backward()  # gradients of the examples add up in p.grad
        if mistake == "per example":
            for p in model.parameters():
                p.data -= lr * p.grad
        total = loss.data if mistake == "last loss" else total + loss.data
    if mistake in ("zero after", "per example"):
        model.zero_grad()  # "per example" has updated already
    lr = {"uphill": -lr, "fixed rate": 0.05, "mean gradient": lr / len(xs)}.get(mistake, lr)
    for p in model.parameters():
        p.data -= lr * p.grad
    return total / len(xs) if mistake == "mean" else total


_STEP_MISTAKES = {  # the slips _step can make -> their hints
    "zero inside": "only the last example's gradient moved the parameters: zero_grad() inside the loop "
    "wipes what the earlier examples left in p.grad; zero once, before the loop",
    "no zero": "step 0 was right but the next were not: zero the gradients once per step, or they "
    "pile up from the step before",
    "zero after": "the parameters did not change: zero, then backward(), then p.data -= lr * p.grad",
    "uphill": "the parameters moved uphill: subtract lr * p.grad, do not add it",
    "per example": "you updated after each example: four small steps, each on one example's gradient. "
    "This step adds up every example's gradient first, then updates once",
    "mean gradient": "the update is the mean's, 1/4 of the sum's: the loss is the SUM of the squared errors",
    "fixed rate": "the last step, at lr = 0.02, moved as far as the steps at 0.05: use the lr argument",
    "last loss": "the update is right, but you returned the last example's loss, not the total",
    "mean": "the update is right, but you returned the mean of the squared errors; this loss is their sum",
}


def _trajectory(train_step):
    """[the loss returned, then every parameter] after each of 4 steps from one start, or a hint."""
    model, (xs, ys), record = _network(3), four_examples(), []
    for step, lr in enumerate([0.05, 0.05, 0.05, 0.02]):  # the last step shows whether lr is used
        got, error = attempt(train_step, model, xs, ys, lr)
        row = None if error else numbers([getattr(got, "data", got)] + [p.data for p in model.parameters()])
        if row is None:
            return f"on step {step}: {error or 'return the loss as a number and keep every p.data a number'}"
        record.append(row)
    return record


@check("ch08.train_step", takes="function")
def check_train_step(train_step):
    """train_step(model, xs, ys, lr): one step on the summed squared error; returns the loss before."""
    if isinstance(mine := _trajectory(train_step), str):
        return mine

    def like(m, part):  # every step of mine matches, in `part`, _step's with mistake m
        return all(all_exact(a[part], b[part]) for a, b in zip(mine, _trajectory(partial(_step, mistake=m))))

    wrong_update = (  # looked at first: the update is what training feels
        "the update does not match the whole-batch step (zero, then forward and backward over every "
        "example, then update): work out what each line does to p.grad"
    )
    wrong_loss = "the update is right; return the summed loss from before the update"
    for part, otherwise in [(slice(1, None), wrong_update), (slice(0, 1), wrong_loss)]:
        if not like(None, part):
            return next((hint for m, hint in _STEP_MISTAKES.items() if like(m, part)), otherwise)
    return True


@solution("ch08.train_step")
def train_step(model, xs, ys, lr):
    model.zero_grad()  # once per step: the examples' gradients must add up
    total = 0.0
    for x, y in zip(xs, ys):
        loss = (model(x) - y) ** 2
        loss.backward()  # += in every node: p.grad collects this example's share
        total += loss.data
    for p in model.parameters():
        p.data -= lr * p.grad
    return total


# ---- 2. a learning rate that empties the bowl in 5 steps ----
@check("ch08.learning_rate", takes="value")
def check_learning_rate(lr):
    """A rate that brings the bowl's loss below 1e-6 within 5 updates."""
    if (value := as_number(lr)) is None or not 0 < value < math.inf:
        return f"give the rate as one positive number, such as 0.5; got {shown(lr)}"
    # The bowl 0.5((w1 - 1)**2 + (w2 - 5)**2) from (2, 3): its gradient is (w1 - 1, w2 - 5), so each
    # update multiplies both distances to the bottom, 1 and 2, by 1 - lr.
    if (loss := 2.5 * min(abs(1 - value), 1e10) ** 10) < 1e-6:
        return True
    if value >= 2:
        hint = f"each step multiplies the distance to the bottom by 1 - lr = {1 - value:g}: it never shrinks"
    elif value < 1:
        hint = "too cautious: work out what one update does to the distance w1 - 1, and leave none of it"
    else:
        hint = f"overshooting: each step jumps past the bottom, to {value - 1:.0%} of the distance beyond it"
    return f"lr = {value:g}: after 5 updates the loss is still {loss:.2e}; {hint}"


@solution("ch08.learning_rate")
def learning_rate():
    # Each update multiplies the distance to the bottom by (1 - lr).
    # lr = 1 makes that factor 0: the first step lands exactly on (1, 5).
    return 1.0


# ---- 3. diagnose a broken training loop from its loss curve ----
CAUSES = {
    "forgot zero_grad": "the gradients are never zeroed",
    "rate too large": "the learning rate is too large",
    "rate too small": "the learning rate is too small",
    "stale graph": "the loss (and its graph) is built once, before the loop, and reused",
}
_TRUTH = {"A": "forgot zero_grad", "B": "stale graph", "C": "rate too large", "D": "rate too small"}
_SYMPTOMS = {  # what each curve shows, in words, for the hint
    "forgot zero_grad": "falls at first, then bounces up and down without settling, yet never blows up",
    "rate too large": "shoots up to astronomical sizes within a few steps",
    "rate too small": "falls smoothly but very slowly: every step helps, a little",
    "stale graph": "is perfectly flat: the recorded loss never changes, so it is never recomputed",
}


def _broken_run(cause, steps=100):
    """The losses a loop with this one mistake records, on the four examples, from one start."""
    model, (xs, ys), losses, loss = _network(8), four_examples(), [], None
    lr = {"rate too large": 0.3, "rate too small": 0.001}.get(cause, 0.05)
    for _ in range(steps):
        if loss is None or cause != "stale graph":
            loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
        losses.append(loss.data)
        if cause != "forgot zero_grad":
            model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
    return losses


def mystery_runs():
    """{letter: losses} of four training loops, each broken in a different way."""
    return {letter: _broken_run(cause) for letter, cause in sorted(_TRUTH.items())}


@check("ch08.diagnosis", takes="value")
def check_diagnosis(diagnosis):
    """diagnosis maps each curve's letter to one of CAUSES' names."""
    if not isinstance(diagnosis, dict):
        return f"give a dict {{'A': 'rate too small', ...}}; got {shown(diagnosis)}"

    def normal(text):  # how a name may be written: any case, with _ or - for spaces
        return " ".join(str(text).lower().replace("_", " ").replace("-", " ").split())

    said = {normal(letter).upper(): cause for letter, cause in diagnosis.items()}
    if missing := sorted(set(_TRUTH) - set(said)):
        return f"diagnose every curve: {', '.join(missing)} missing"
    by_name = {normal(name): name for name in CAUSES}
    for letter, truth in sorted(_TRUTH.items()):
        if (cause := by_name.get(normal(said[letter]))) is None:
            names = ", ".join(map(repr, CAUSES))
            return f"for {letter}, {shown(said[letter])} is not one of the causes: {names}"
        if cause != truth:
            return (
                f"curve {letter} is not '{cause}': look again, curve {letter} {_SYMPTOMS[truth]}; "
                f"'{cause}' would look different: it {_SYMPTOMS[cause]}"
            )
    return True


@solution("ch08.diagnosis")
def diagnosis():
    return {
        "A": "forgot zero_grad",  # down, then bouncing for ever: old gradients keep pushing
        "B": "stale graph",  # flat: the loss is never recomputed
        "C": "rate too large",  # explodes within a few steps
        "D": "rate too small",  # right direction, tiny steps
    }


# ---- 4. gradient clipping by the global norm ----
_GRADS = [3.0, -4.0, 12.0]  # length 13
_CLIP_MISTAKES = [  # (a slip of _clipped below, its hint)
    ({"each": True}, "you clipped each gradient on its own; scale them all by one factor, max_norm / length"),
    ({"unit": True}, "scale by max_norm / length, not 1 / length: the new length is max_norm"),
    ({"always": True}, "a gradient shorter than max_norm is left alone: scale only when length > max_norm"),
]


def _clipped(max_norm, each=False, always=False, unit=False):
    """The grads [3, -4, 12] after clipping to max_norm, one way or another."""
    if each:
        return [max(-max_norm, min(max_norm, g)) for g in _GRADS]
    return [g * (1 if unit else max_norm) / 13 if always or max_norm < 13 else g for g in _GRADS]


def _clip_run(clip_gradients, grads, max_norm):
    """The grads after clip_gradients on Values with these grads, or a hint on what it got wrong."""
    params = [Value(1.0) for _ in grads]
    for p, g in zip(params, grads):
        p.grad = g
    got, error = attempt(clip_gradients, params, max_norm)
    after = numbers([p.grad for p in params])
    if error or after is None or any(p.data != 1.0 for p in params):
        return error or "change only p.grad, and keep it a number; p.data is the optimiser's job"
    if not close(got, length := math.sqrt(sum(g * g for g in grads)), rel=1e-9):
        squares = " + ".join(f"{abs(g):g}²" for g in grads)
        return f"return the length before clipping: sqrt({squares}) = {length:g}, got {shown(got)}"
    return after


@check("ch08.clip_gradients", takes="function")
def check_clip_gradients(clip_gradients):
    """clip_gradients(params, max_norm): scale all grads so their joint length is <= max_norm."""
    answers = {max_norm: _clip_run(clip_gradients, _GRADS, max_norm) for max_norm in (6.5, 13.0, 26.0)}
    if hint := next((answer for answer in answers.values() if isinstance(answer, str)), None):
        return hint

    def like(**slip):
        return all(all_exact(got, _clipped(max_norm, **slip)) for max_norm, got in answers.items())

    if not like():
        got = ", ".join(f"{g:g}" for g in answers[6.5])
        return next((hint for slip, hint in _CLIP_MISTAKES if like(**slip)), None) or (
            f"grads [3, -4, 12] with max_norm 6.5 became [{got}], expected [1.5, -2, 6]: multiply every "
            "p.grad by max_norm / length, where length = sqrt(sum of p.grad**2)"
        )
    if (zero := _clip_run(clip_gradients, [0.0, 0.0], 1.0)) != [0.0, 0.0]:  # nothing to clip or divide by
        said = zero if isinstance(zero, str) else f"they became {zero}"
        return (
            f"with every gradient 0: {said}; scale only when the length exceeds max_norm, never dividing by 0"
        )
    return True


@solution("ch08.clip_gradients")
def clip_gradients(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5  # the length of the whole gradient
    if norm > max_norm:
        scale = max_norm / norm  # one factor for all: the direction is kept
        for p in params:
            p.grad *= scale
    return norm
