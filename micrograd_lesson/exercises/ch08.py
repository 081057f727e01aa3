"""Chapter 8 exercises: one training step, a rate for the bowl, diagnosing loss curves, clipping."""

import math
import random
import weakref

from ..datasets import four_examples
from ..engine import Value
from ..nn import MLP
from ._core import (
    as_number,
    attempt,
    check,
    close,
    digest,
    matches_number,
    number_digest,
    recorded,
    recorder,
    reference,
    shown,
    solution,
)
from ._shared import all_exact, numbers


def _network(seed):
    state = random.getstate()  # do not disturb the learner's random stream
    random.seed(seed)
    model = MLP(3, [4, 4, 1], activation="tanh")
    random.setstate(state)
    return model


# ---- 1. find the bugs in a per-example training step ----
@reference
def _step(model, xs, ys, lr, mistake=None):  # the right step, or one of _STEP_MISTAKES below
    if mistake == "per example":  # four small steps, each on one example
        return sum(_step(model, [x], [y], lr) for x, y in zip(xs, ys))
    if mistake not in ("zero inside", "no zero"):
        model.zero_grad()
    total = 0.0
    for x, y in zip(xs, ys):
        if mistake == "zero inside":
            model.zero_grad()
        loss = (model(x) - y) ** 2 * (0.5 if mistake == "half" else 1.0)
        loss.backward()  # gradients of the examples add up in p.grad
        total = loss.data if mistake == "last loss" else total + loss.data
    lr = {"uphill": -lr, "fixed rate": 0.05, "mean gradient": lr / len(xs), "zero after": 0}.get(mistake, lr)
    for p in model.parameters():
        p.data -= lr * p.grad
    return total / len(xs) if mistake == "mean" else total


_STEP_MISTAKES = {  # the slips _step can make -> their hints
    "zero inside": "only the last example's gradient counted: zero_grad() once before the loop, not in it",
    "no zero": "step 0 was right, later ones not: gradients pile up unless zeroed once per step",
    "zero after": "the parameters did not change: zero, then backward(), then p.data -= lr * p.grad",
    "uphill": "the parameters moved uphill: subtract lr * p.grad, do not add it",
    "per example": "you updated after each example: add up every example's gradient, then update once",
    "mean gradient": "the update is the mean's, 1/4 of the sum's: the loss is the SUM of the squared errors",
    "fixed rate": "the last step, at lr = 0.02, moved as far as the steps at 0.05: use the lr argument",
    "last loss": "the update is right, but you returned the last example's loss, not the total",
    "mean": "the update is right, but you returned the mean of the squared errors; this loss is their sum",
    "half": "the loss is the sum of (model(x) - y)**2, with no factor 1/2: a half halves every gradient",
}


def _steps(step, *mistake):  # [the loss returned, then every parameter] after each of 4 steps, or a hint
    model, (xs, ys), rows = _network(3), four_examples(), []
    for i, lr in enumerate([0.05, 0.05, 0.05, 0.02]):  # the last step shows whether lr is used
        got, error = attempt(step, model, xs, ys, lr, *mistake)
        rows.append(numbers([getattr(got, "data", got)] + [p.data for p in model.parameters()]))
        if error or rows[-1] is None:
            return f"on step {i}: {error or 'return the loss as a number and keep every p.data a number'}"
    return rows


@recorder("ch08.train_step")
def _record_steps():  # what _steps gives for the right step ("want") and for each slip
    return {"want": _steps(_step)} | {m: _steps(_step, m) for m in _STEP_MISTAKES}


@check("ch08.train_step", takes="function")
def check_train_step(train_step):
    """train_step(model, xs, ys, lr): one step on the summed squared error; returns the loss before."""

    def like(m, part):  # every step of mine (below) matches, in `part`, the recorded step with mistake m
        return all(all_exact(a[part], b[part]) for a, b in zip(mine, records[m or "want"]))

    if isinstance(mine := _steps(train_step), str):
        return mine
    records = recorded("ch08.train_step")
    wrong_update = "the update does not match one whole-batch step: zero, backward() per example, update"
    wrong_loss = "the update is right; return the summed loss from before the update"
    for part, otherwise in [(slice(1, None), wrong_update), (slice(0, 1), wrong_loss)]:
        if not like(None, part):
            return next((hint for m, hint in _STEP_MISTAKES.items() if like(m, part)), otherwise)
    if (together := _most_graphs_alive(train_step)) > 2:  # the point of the exercise: memory
        return (
            f"the numbers are right, but the graphs of {together} examples were alive at once (a whole-batch "
            "loss, or losses kept in a list or a running Value sum): backward() each example's graph "
            "and keep only loss.data"
        )
    return True


def _same_input(x, known):
    try:
        return x is known or bool(list(x) == known)
    except Exception:  # noqa: BLE001 - an input we cannot compare is another example
        return False


def _most_graphs_alive(train_step):
    """The most examples whose graphs were alive together while train_step made one step.

    Each output of the model is watched by a weak reference: it dies when nothing refers to its graph.
    One example at a time keeps at most 2 alive (the last one's graph lives until `loss` is
    reassigned); a loss summed over all the examples keeps all 4.
    """
    model, (xs, ys) = _network(3), four_examples()
    alive = {}  # example index -> weak references to the outputs made for it
    most = 0

    class Watched(type(model)):
        def __call__(self, x):
            nonlocal most
            out = super().__call__(x)
            key = next((i for i, known in enumerate(xs) if _same_input(x, known)), id(x))
            alive.setdefault(key, []).append(weakref.ref(out))
            live = {i for i, refs in alive.items() if any(r() is not None for r in refs)}
            most = max(most, len(live))
            return out

    model.__class__ = Watched  # the same object and parameters; only its calls are watched
    attempt(train_step, model, xs, ys, 0.05)
    return most


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


# ---- 2. the best learning rate for the bowl ----
def _bowl_after_5(value):
    """The bowl 0.5((w1 - 1)**2 + (w2 - 5)**2) from (2, 3) after 5 updates at rate `value`: each
    update scales both distances to the bottom by 1 - lr, so the loss by (1 - lr)**2."""
    return 2.5 * min(abs(1 - value), 1e10) ** 10


@check("ch08.learning_rate", takes="value")
def check_learning_rate(lr):
    """The rate that leaves the lowest loss after 5 updates (the loss reaches exactly 0)."""
    if (value := as_number(lr)) is None or not 0 < value < math.inf:
        return f"give the rate as one positive number, such as 0.5; got {shown(lr)}"
    if matches_number("ch08.learning_rate", value, recorded("ch08.learning_rate")["digest"], 1e-9):
        return True  # the best (the check keeps a digest of it, not the rate): rounding aside
    loss = _bowl_after_5(value)
    if value > 1:
        grows = ": it never shrinks" if value >= 2 else f", to {value - 1:.3g} of it beyond the bottom"
        hint = f"overshooting: each step scales the distance to the bottom by 1 - lr = {1 - value:.3g}{grows}"
    elif loss < 1e-6:
        hint = "low, but another rate leaves less: which rate leaves none of the distance w1 - 1?"
    else:
        hint = "too cautious: work out what one update does to the distance w1 - 1, and leave none of it"
    return f"lr = {value:.10g}: after 5 updates the loss is still {loss:.2e}; {hint}"


@solution("ch08.learning_rate")
def learning_rate():
    return 1.0  # an update scales the distance to the bottom by 1 - lr: lr = 1 lands on (1, 5) at once


@recorder("ch08.learning_rate")
def _record_learning_rate():
    return {"digest": number_digest("ch08.learning_rate", learning_rate(), 1e-9)}


# ---- 3. diagnose a broken training loop from its loss curve ----
CAUSES = {
    "forgot zero_grad": "the gradients are never zeroed",
    "rate too large": "the learning rate is too large",
    "rate too small": "the learning rate is too small",
    "stale graph": "the loss (and its graph) is built once, before the loop, and reused",
}
_SYMPTOMS = {  # what each curve shows, in words, for the hint
    "forgot zero_grad": "falls at first, then bounces up and down without settling, yet never blows up",
    "rate too large": "shoots up to astronomical sizes within a few steps",
    "rate too small": "falls smoothly but very slowly: every step helps, a little",
    "stale graph": "is perfectly flat: the recorded loss never changes, so it is never recomputed",
}


@reference
def _broken_run(cause, steps=100):
    # seed 42: a starting network the chapter never trains, so no curve can be matched to a printed number
    model, (xs, ys), losses, loss = _network(42), four_examples(), [], None
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


@recorder("ch08.diagnosis")
def _record_diagnosis():  # the curves, by letter, and a digest of each letter's cause (not the cause)
    truth = diagnosis()  # the worked solution: which loop drew which curve
    return {
        "curves": {letter: _broken_run(cause) for letter, cause in sorted(truth.items())},
        "digests": {letter: digest("ch08.diagnosis", letter, cause) for letter, cause in truth.items()},
    }


def mystery_runs():
    """{letter: losses} of four training loops, each broken in a different way (as recorded)."""
    return {letter: list(losses) for letter, losses in recorded("ch08.diagnosis")["curves"].items()}


def plot_mystery_runs(runs):
    """The curves of mystery_runs() side by side, each on a log scale; returns the figure.

    A curve that spans more than six powers of ten gets a tick every few powers (at most
    about five ticks), instead of matplotlib's uneven choice."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import LogLocator, NullLocator

    fig, axes = plt.subplots(1, len(runs), figsize=(10, 2.8), sharex=True)
    for ax, (letter, run) in zip(axes, runs.items()):
        ax.semilogy(run, color="#444444")
        finite = [v for v in run if 0 < v < math.inf]
        decades = math.log10(max(finite) / min(finite))
        if decades > 6:
            every = next(n for n in (2, 5, 10, 20, 50, 100) if decades / n <= 5)
            ax.yaxis.set_major_locator(LogLocator(base=10.0**every))
            ax.yaxis.set_minor_locator(NullLocator())
        ax.set(title=f"curve {letter}", xlabel="step", ylabel="loss (log scale)")
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


@check("ch08.diagnosis", takes="value")
def check_diagnosis(diagnosis):
    """diagnosis maps each curve's letter to one of CAUSES' names."""
    if not isinstance(diagnosis, dict):
        return f"give a dict {{'A': 'rate too small', ...}}; got {shown(diagnosis)}"

    def normal(text):  # how a name may be written: any case, with _ or - for spaces
        return " ".join(str(text).lower().replace("_", " ").replace("-", " ").split())

    said = {normal(letter).upper(): cause for letter, cause in diagnosis.items()}
    digests = recorded("ch08.diagnosis")["digests"]  # the check knows each letter's cause only by digest
    if missing := sorted(set(digests) - set(said)):
        return f"diagnose every curve: {', '.join(missing)} missing"
    by_name = {normal(name): name for name in CAUSES}
    for letter, right in sorted(digests.items()):
        truth = next(name for name in CAUSES if digest("ch08.diagnosis", letter, name) == right)
        if (cause := by_name.get(normal(said[letter]))) is None:
            names = ", ".join(map(repr, CAUSES))
            return f"for {letter}, {shown(said[letter])} is not one of the causes: {names}"
        if cause != truth:
            return f"curve {letter} is not '{cause}': it {_SYMPTOMS[truth]}; '{cause}' {_SYMPTOMS[cause]}"
    return True


@solution("ch08.diagnosis")
def diagnosis():
    # A crawls, B bounces for ever (old gradients keep pushing), C is flat (never recomputed), D explodes
    return {"A": "rate too small", "B": "forgot zero_grad", "C": "stale graph", "D": "rate too large"}


# ---- 4. gradient clipping by the global norm ----
_GRADS = [3.0, -4.0, 12.0]  # length 13
_CLIP_MISTAKES = [  # (a slip, as keywords of like() in the check, its hint)
    ({"each": True}, "you clipped each gradient on its own; scale them all by one factor, max_norm / length"),
    ({"unit": True}, "scale by max_norm / length, not 1 / length: the new length is max_norm"),
    ({"always": True}, "a gradient shorter than max_norm is left alone: scale only when length > max_norm"),
]


@check("ch08.clip_gradients", takes="function")
def check_clip_gradients(clip_gradients):
    """clip_gradients(params, max_norm): scale all grads so their joint length is <= max_norm."""

    def run(grads, max_norm):  # the grads after clip_gradients, or a hint on what it got wrong
        params = [Value(1.0) for _ in grads]
        for p, g in zip(params, grads):
            p.grad = g
        got, error = attempt(clip_gradients, params, max_norm)
        after = numbers([p.grad for p in params])
        if error or after is None or any(p.data != 1.0 for p in params):
            return error or "change only p.grad, and keep it a number; p.data is the optimiser's job"
        if not close(got, length := math.sqrt(sum(g * g for g in grads)), rel=1e-9):
            return f"return the length before clipping, sqrt(sum of grad**2) = {length:g}; got {shown(got)}"
        return after

    def like(each=False, always=False, unit=False):  # every answer (below) is _GRADS clipped with this slip
        want = {m: [g * (1 if unit else m) / 13 if always or m < 13 else g for g in _GRADS] for m in answers}
        if each:
            want = {m: [max(-m, min(m, g)) for g in _GRADS] for m in answers}
        return all(all_exact(got, want[m], rel=1e-6) for m, got in answers.items())  # PyTorch adds eps 1e-6

    answers = {max_norm: run(_GRADS, max_norm) for max_norm in (6.5, 13.0, 26.0)}
    if hint := next((answer for answer in answers.values() if isinstance(answer, str)), None):
        return hint
    if not like():
        got = ", ".join(f"{g:.7g}" for g in answers[6.5])
        hint = f"[3, -4, 12] clipped to 6.5 is [1.5, -2, 6], not [{got}]: scale by max_norm / length"
        return next((known for slip, known in _CLIP_MISTAKES if like(**slip)), hint)
    zero = run([0.0, 0.0], 1.0)  # nothing to clip, nothing to divide by
    return zero == [0.0, 0.0] or f"with every gradient 0: {zero}; scale only if length > max_norm"


@solution("ch08.clip_gradients")
def clip_gradients(params, max_norm):
    norm = sum(p.grad**2 for p in params) ** 0.5  # the length of the whole gradient
    if norm > max_norm:
        for p in params:
            p.grad *= max_norm / norm  # one factor for all: the direction is kept
    return norm
