"""Chapter 8 exercises: one training step, a rate for the bowl, diagnosing loss curves, clipping."""

import math
import random

from ..datasets import four_examples
from ..engine import Value
from ..nn import MLP
from ._core import Verdict, as_number, attempt, call_or_value, check, close, not_a_function, shown, solution


def _network(seed):
    state = random.getstate()  # do not disturb the learner's random stream
    random.seed(seed)
    model = MLP(3, [4, 4, 1], activation="tanh")
    random.setstate(state)
    return model


def _squared_error(model, xs, ys):
    return sum((model(x) - y) ** 2 for x, y in zip(xs, ys))


def _numbers(model):
    """Every parameter's .data as a float, or None if the learner's code broke one."""
    values = [as_number(p.data) for p in model.parameters()]
    return None if None in values else values


# ---- 1. find the bugs in a per-example training step ----


def _step(model, xs, ys, lr, mistake=None):
    """One step on the summed squared error, example by example; `mistake` changes one thing."""
    if mistake not in ("zero inside", "no zero"):
        model.zero_grad()
    total = 0.0
    for x, y in zip(xs, ys):
        if mistake == "zero inside":
            model.zero_grad()
        loss = (model(x) - y) ** 2
        loss.backward()  # gradients of the examples add up in p.grad
        total = loss.data if mistake == "last loss" else total + loss.data
    sign, lr = -1 if mistake == "uphill" else 1, 0.05 if mistake == "fixed rate" else lr
    for p in model.parameters():
        p.data -= sign * lr * p.grad
    return total / len(xs) if mistake == "mean" else total


_UPDATE_MISTAKES = {
    "zero inside": "only the last example's gradient moved the parameters: zero_grad() inside the loop "
    "wipes what the earlier examples left in p.grad; zero once, before the loop",
    "no zero": "step 0 was right but the next were not: zero the gradients once per step, or they "
    "pile up from the step before",
    "uphill": "the parameters moved uphill: subtract lr * p.grad, do not add it",
    "fixed rate": "the last step, at lr = 0.02, moved as far as the steps at 0.05: use the lr argument, "
    "not a fixed number",
}
_LOSS_MISTAKES = {
    "last loss": "the update is right, but you returned the last example's loss: return the total "
    "over all the examples",
    "mean": "the update is right, but you returned the mean of the squared errors; this loss is their sum",
}


def _trajectory(train_step, mistake=None, steps=4):
    """The losses returned and the parameters after each of `steps` steps from one start, or a hint."""
    model, (xs, ys) = _network(3), four_examples()
    record = []
    for step in range(steps):
        lr = 0.05 if step < 3 else 0.02  # a second rate last: the answer must use its lr
        got, error = (
            attempt(train_step, model, xs, ys, lr)
            if mistake is None
            else (_step(model, xs, ys, lr, mistake), None)
        )
        if error:
            return None, f"on step {step}: {error}"
        loss, params = as_number(getattr(got, "data", got)), _numbers(model)
        if loss is None or params is None:
            return None, "return the loss as a number (a float, not a Value) and keep every p.data a number"
        record.append([loss] + params)
    return record, None


@check("ch08.train_step")
def check_train_step(train_step):
    """train_step(model, xs, ys, lr): one step on the summed squared error; returns the loss before."""
    if (wrong := not_a_function(train_step, "train_step")) is not None:
        return wrong
    mine, hint = _trajectory(train_step)
    if hint:
        return Verdict(False, hint)

    def same(record, part):
        return all(
            close(a, b, rel=1e-9, abs_tol=1e-12)
            for r, q in zip(mine, record)
            for a, b in zip(r[part], q[part])
        )

    right = _trajectory(None, "right")[0]
    if not same(right, slice(1, None)):  # the update first: it is what training feels
        hint = next(
            (h for m, h in _UPDATE_MISTAKES.items() if same(_trajectory(None, m)[0], slice(1, None))), None
        )
        if hint is None and all(close(a, b) for a, b in zip(mine[0][1:], _numbers(_network(3)))):
            hint = "the parameters did not change: zero, then backward(), then p.data -= lr * p.grad"
        return Verdict(
            False,
            hint
            or "the update does not match the whole-batch step (zero, forward and backward over every "
            "example, update): work out what each line does to p.grad",
        )
    if same(right, slice(0, 1)):
        return Verdict(True)
    hint = next((h for m, h in _LOSS_MISTAKES.items() if same(_trajectory(None, m)[0], slice(0, 1))), None)
    return Verdict(False, hint or "the update is right; return the summed loss from before the update")


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


def _bowl_after(lr, steps=5):
    """The bowl's loss after `steps` updates at rate lr from (2, 3); inf if it overflows."""
    w1, w2 = Value(2.0), Value(3.0)
    try:
        for _ in range(steps):
            loss = ((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5
            w1.grad = w2.grad = 0.0
            loss.backward()
            w1.data -= lr * w1.grad
            w2.data -= lr * w2.grad
        loss = (((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5).data
    except (OverflowError, ValueError):
        return math.inf
    return loss if math.isfinite(loss) else math.inf


@check("ch08.learning_rate")
def check_learning_rate(lr):
    """A rate that brings the bowl's loss below 1e-6 within 5 updates (a number, or a
    function returning one, which is how reveal() passes the worked solution)."""
    got, error = call_or_value(lr)
    value = None if isinstance(got, str) else as_number(got)
    if error or value is None or not math.isfinite(value):
        return Verdict(
            False, error or f"give the rate as a number, e.g. check_learning_rate(0.5); got {shown(got)}"
        )
    if value <= 0:
        return Verdict(False, f"lr = {value:g} does not step downhill: a learning rate must be positive")
    loss = _bowl_after(value)
    if loss < 1e-6:
        return Verdict(True)
    if value >= 2:  # the distance to the bottom is multiplied by 1 - lr at every step
        hint = (
            f"each step multiplies the distance to the bottom by 1 - lr = {1 - value:g}, so it never shrinks"
        )
    elif value < 1:
        hint = "too cautious: work out what one update does to the distance w1 - 1, and leave none of it"
    else:
        hint = f"overshooting: each step jumps past the bottom, to {value - 1:.0%} of the distance beyond it"
    return Verdict(False, f"lr = {value:g}: after 5 updates the loss is still {loss:.2e}; {hint}")


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
    model = _network(8)
    xs, ys = four_examples()
    lr = {"rate too large": 0.3, "rate too small": 0.001}.get(cause, 0.05)
    losses, first = [], None
    for _ in range(steps):
        try:
            loss = first if first is not None else _squared_error(model, xs, ys)
        except OverflowError:
            break
        if not math.isfinite(loss.data):
            break
        if cause == "stale graph":
            first = loss
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


def _normalise(text):
    return " ".join(str(text).lower().replace("_", " ").replace("-", " ").split())


_BY_NORMAL = {_normalise(name): name for name in CAUSES}


@check("ch08.diagnosis")
def check_diagnosis(diagnosis):
    """diagnosis maps each curve's letter to one of CAUSES' names."""
    got, error = call_or_value(diagnosis)
    if error:
        return Verdict(False, error)
    if not isinstance(got, dict):
        return Verdict(
            False,
            f"give a dict such as {{'A': 'rate too small', ...}}, one cause per letter; "
            f"got {type(got).__name__}",
        )
    answer = {_normalise(k).upper(): v for k, v in got.items()}
    missing = sorted(set(_TRUTH) - set(answer))
    if missing:
        return Verdict(False, f"diagnose every curve: {', '.join(missing)} missing")
    names = ", ".join(repr(n) for n in CAUSES)
    for letter in sorted(_TRUTH):
        cause = _BY_NORMAL.get(_normalise(answer[letter]))
        if cause is None:
            return Verdict(False, f"for {letter}, {answer[letter]!r} is not one of the causes: {names}")
    for letter, truth in sorted(_TRUTH.items()):
        said = _BY_NORMAL[_normalise(answer[letter])]
        if said != truth:
            return Verdict(
                False,
                f"curve {letter} is not '{said}': look again, curve {letter} {_SYMPTOMS[truth]}; "
                f"'{said}' would look different: it {_SYMPTOMS[said]}",
            )
    return Verdict(True)


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


def _clipped(max_norm, each=False, always=False, unit=False):
    """The grads [3, -4, 12] (length 13) after clipping to max_norm, one way or another."""
    if each:
        return [max(-max_norm, min(max_norm, g)) for g in _GRADS]
    clipping = always or max_norm < 13.0
    scale = (1 if unit else max_norm) / 13.0 if clipping else 1.0
    return [g * scale for g in _GRADS]


_CLIP_MISTAKES = [
    ({"each": True}, "you clipped each gradient on its own; scale them all by one factor, max_norm / length"),
    (
        {"unit": True},
        "you divided by the length only: scale by max_norm / length, so the new length is max_norm",
    ),
    (
        {"always": True},
        "a gradient already shorter than max_norm is left alone: scale only when length > max_norm",
    ),
]


@check("ch08.clip_gradients")
def check_clip_gradients(clip_gradients):
    """clip_gradients(params, max_norm): scale all grads so their joint length is <= max_norm."""
    if (wrong := not_a_function(clip_gradients, "clip_gradients")) is not None:
        return wrong
    answers = {}
    for max_norm in (6.5, 13.0, 26.0):
        params = [Value(1.0) for _ in _GRADS]
        for p, g in zip(params, _GRADS):
            p.grad = g
        got, error = attempt(clip_gradients, params, max_norm)
        grads = [as_number(p.grad) for p in params]
        if error or None in grads or any(p.data != 1.0 for p in params):
            return Verdict(
                False, error or "change only p.grad, and keep it a number; p.data is the optimiser's job"
            )
        if not close(got, 13.0, rel=1e-9):
            return Verdict(
                False, f"return the length before clipping: sqrt(3² + 4² + 12²) = 13, got {shown(got)}"
            )
        answers[max_norm] = grads

    def matches(**slip):
        return all(
            all(close(g, w, rel=1e-9) for g, w in zip(got, _clipped(m, **slip))) for m, got in answers.items()
        )

    if matches():
        params = [Value(1.0), Value(1.0)]  # all-zero gradients last: length 0, nothing to clip
        got, error = attempt(clip_gradients, params, 1.0)
        if not error and close(got, 0.0) and all(p.grad == 0 for p in params):
            return Verdict(True)
        return Verdict(
            False,
            f"with every gradient 0: {error or f'returned {shown(got)}'}; scale only when the length "
            "exceeds max_norm, so a zero length is never divided by",
        )
    hint = next((h for slip, h in _CLIP_MISTAKES if matches(**slip)), None)
    got = ", ".join(f"{g:g}" for g in answers[6.5])
    return Verdict(
        False,
        hint
        or f"grads [3, -4, 12] with max_norm 6.5 became [{got}], expected [1.5, -2, 6]: multiply every "
        "p.grad by max_norm / length, where length = sqrt(sum of p.grad**2)",
    )


@solution("ch08.clip_gradients")
def clip_gradients(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5  # the length of the whole gradient
    if norm > max_norm:
        scale = max_norm / norm  # one factor for all: the direction is kept
        for p in params:
            p.grad *= scale
    return norm
