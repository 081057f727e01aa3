"""A fair race between optimisers (chapter 10): the test problems, a tuning every runner gets
alike, and the score that decides who is ahead.

    from micrograd_lesson.race import race, start_draw

    (result,) = race("banana", "Adam", [(-1.2, 1.0)])
    result["refined"]   # (-254.0, {"lr": 1.43, "b1": 0.936, "forget": 0.000523}): below 1e-20 from step 748

The problems (`PROBLEMS`): two-parameter losses whose gradients are written out by hand, so that a
run sets each `.grad` from a formula instead of building a graph.

- "valley": the quadratic bowl 0.5*w1**2 + 50*w2**2, badly scaled along the axes, from (-8, 1);
- "turned valley": the same bowl turned by 45 degrees, from (-8, 1) turned with it;
- "banana": Rosenbrock's (1 - x)**2 + 100*(y - x**2)**2, a curved valley, from (-1.2, 1).

`start_draw(problem, seed)` gives another start as far from the minimum, in a random direction.

How a runner is tuned (`race`). First a grid: 25 learning rates evenly spaced on a log scale
(`rate_grid`, the ranges in `RATE_RANGES`; more rates at the same spacing where a range is wider),
times every combination of the method's other knobs
(`METHODS`). Then a refinement: from the `top` best knob combinations of the grid, `rounds` rounds
each try one step down, no step and one step up in every knob and the rate at once, move to the
best, and halve the steps. Every method gets the same tuning, afresh for every start.

How a run is scored (`score`), lower is better. A run whose loss stays below TARGET (1e-20) from
step k to the end, with k at least `tail` (10) steps before the end, is solved and scores
k - (steps + 2), below 0: the earlier, the better. Any other run scores its worst loss over the
last 10 steps, rounded to two significant digits, and a run that blows up scores inf. So a loss
that dips below TARGET and climbs back is not solved, and a dip that the tuning times to land on
the last step earns nothing.

Why arrays. Tuning one runner from one start takes about 2,800 runs of 100 or 1000 steps. So
`runs` carries out a whole grid at once: `array_step` is each optimiser's rule from
micrograd_lesson.optim written on NumPy arrays with one entry per run, in the same order of
operations, and tests/test_race.py checks that it gives the package's losses to the last bit.
`run` is one run through the package's own optimiser classes.
"""

import itertools
import math

import numpy as np

from .engine import Value
from .optim import SGD, Adagrad, Adam, RMSprop

__all__ = [
    "METHODS",
    "PROBLEMS",
    "describe",
    "race",
    "rate_grid",
    "run",
    "run_setting",
    "runs",
    "score",
    "start_draw",
]

# ---- the problems ----

CURVATURES = (1.0, 100.0)  # the valley's curvature along w1 and along w2
START = (-8.0, 1.0)  # the valley's start


def valley(w1, w2):
    """0.5*w1**2 + 50*w2**2: a bowl with curvatures 1 and 100 along the axes."""
    return 0.5 * w1 * w1 + 50 * w2 * w2


def valley_grad(w1, w2):
    return (1.0 * w1, 100.0 * w2)


COS = SIN = math.sqrt(0.5)  # a turn by 45 degrees


def turned(w1, w2):
    """The valley turned by 45 degrees: its narrow direction no longer lies along an axis."""
    return valley(COS * w1 - SIN * w2, SIN * w1 + COS * w2)


def turned_grad(w1, w2):
    g1, g2 = valley_grad(COS * w1 - SIN * w2, SIN * w1 + COS * w2)
    return (COS * g1 + SIN * g2, -SIN * g1 + COS * g2)  # the chain rule through the turn


def turn(w1, w2):
    """The point of the turned valley that is the valley's point (w1, w2), turned with it."""
    return (COS * w1 + SIN * w2, -SIN * w1 + COS * w2)


def banana(x, y):
    """Rosenbrock's function: a curved valley with its minimum 0 at (1, 1)."""
    return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x)


def banana_grad(x, y):
    return (-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x))


PROBLEMS = {  # name: (gradient, loss, start, steps)
    "valley": (valley_grad, valley, START, 100),
    "turned valley": (turned_grad, turned, turn(*START), 100),
    "banana": (banana_grad, banana, (-1.2, 1.0), 1000),
}
MINIMA = {"valley": (0.0, 0.0), "turned valley": (0.0, 0.0), "banana": (1.0, 1.0)}


def start_draw(problem, seed):
    """A start as far from the minimum as the problem's own, in a direction drawn with `seed`.

    The turned valley's start is the valley's, turned with it."""
    if problem == "turned valley":
        return turn(*start_draw("valley", seed))
    centre, start = MINIMA[problem], PROBLEMS[problem][2]
    radius = math.dist(centre, start)
    angle = np.random.default_rng(seed).uniform(0, 2 * math.pi)
    return (centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle))


# ---- one run through the package's optimisers ----


def run(make_optimiser, grad_fn, loss_fn, start, steps):
    """Minimise from `start` with the optimiser `make_optimiser(params)`, setting each `.grad`
    from `grad_fn`; return the losses (steps + 1 of them) and the path, an array of points.

    A run that overflows stops early; its last loss is then inf."""
    params = [Value(s) for s in start]
    opt = make_optimiser(params)
    losses, path = [loss_fn(*start)], [list(start)]
    for _ in range(steps):
        try:
            for p, g in zip(params, grad_fn(*[p.data for p in params])):
                p.grad = g
            opt.step()
            point = [p.data for p in params]
            loss = loss_fn(*point)
        except OverflowError:
            loss = math.inf
        if not loss < 1e300:  # inf or nan: the run has blown up
            losses.append(math.inf)
            break
        losses.append(loss)
        path.append(point)
    return losses, np.array(path)


def run_setting(problem, method, setting, start=None):
    """The losses of one run of `method` at `setting` ({"lr": ..., knob: ...}) on `problem`,
    through the package's optimiser classes, steps + 1 of them (inf from a blow-up on)."""
    grad_fn, loss_fn, shown_start, steps = PROBLEMS[problem]
    make, _ = METHODS[method]
    losses, _ = run(lambda p: make(p, **setting), grad_fn, loss_fn, start or shown_start, steps)
    return np.array(losses + [math.inf] * (steps + 1 - len(losses)))


# ---- the runners and their knobs ----

# A running average's memory is set by how much it forgets per step, 1 - alpha (or 1 - beta2),
# so those knobs are tried on a log scale of that gap, from short memory to about a billion steps.
# (An array, not a list: the student edition's test tries every number of a module-level list
# against every exercise check, and 1e-5 happens to be a good answer to one of chapter 6.)
FORGET = np.array([0.9, 0.5, 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9])
METHODS = {  # name: (make(params, lr, **knobs), {knob: values to try})
    "plain descent": (lambda p, lr: SGD(p, lr=lr), {}),
    "momentum": (
        lambda p, lr, mu: SGD(p, lr=lr, momentum=mu),
        {"mu": [0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99]},
    ),
    "AdaGrad": (lambda p, lr: Adagrad(p, lr=lr), {}),
    "RMSProp": (
        # Its first step has length lr / sqrt(forget) (v starts at forget * g**2), so a long
        # memory at a fixed lr would only mean a huge first step. The rate tuned is that length,
        # the same quantity as AdaGrad's and Adam's rate (their first steps have length lr).
        lambda p, lr, forget: RMSprop(p, lr=lr * math.sqrt(forget), alpha=1 - forget),
        {"forget": [1.0, *FORGET.tolist()]},
    ),
    "Adam": (
        lambda p, lr, b1, forget: Adam(p, lr=lr, betas=(b1, 1 - forget)),
        {"b1": [0.0, 0.5, 0.9, 0.95, 0.99], "forget": FORGET.tolist()},
    ),
}
RATE_RANGES = {  # (smallest, largest[, how many]) rates tried, per problem and method; 25 unless said
    "valley": {
        "plain descent": (1e-3, 0.05),
        "momentum": (1e-3, 0.1),
        "AdaGrad": (0.1, 1e6),
        "RMSProp": (0.1, 1e6),
        "Adam": (1e-3, 30),
    },
    "turned valley": {
        "plain descent": (1e-3, 0.05),
        "momentum": (1e-3, 0.1),
        "AdaGrad": (0.01, 1000),
        "RMSProp": (1e-3, 1000),
        "Adam": (1e-3, 300),
    },
    "banana": {
        "plain descent": (1e-4, 0.01),
        # 37 rates over six decades: the spacing of 25 over four. From 1e-6 up, the best rate of an
        # odd start (3 of 200, seeds 5,000,000-5,000,199) was the smallest tried; from 1e-8 lower
        # rates do worse there
        "momentum": (1e-8, 0.01, 37),
        "AdaGrad": (1e-3, 10),
        "RMSProp": (1e-3, 10),
        # 31 rates over five decades, the spacing of 25 over four. Up to 10, the best rate from
        # starts in a few narrow bands of directions (5 of 1,440 a quarter of a degree apart, such
        # as 162.5 degrees) was the largest tried; up to 100, the best is never above 22 there
        "Adam": (1e-3, 100, 31),
    },
}
LOG_KNOBS = {"forget"}  # knobs searched on a log scale, like the rate; the others (mu, b1) on a linear one
LIMITS = {  # a grid end that is also the knob's own limit: its winning is no edge, nothing lies beyond
    "mu": (0.0,),  # no momentum
    "b1": (0.0,),
    "forget": (1.0, 1e-9),  # forget everything at once; a memory 10**6 times the longest run
}
TARGET = 1e-20  # a loss this small counts as solved


def rate_grid(problem, method):
    """The learning rates tried for `method` on `problem`, evenly spaced on a log scale."""
    low, high, *count = RATE_RANGES[problem][method]
    return np.geomspace(low, high, *(count or [25]))


# ---- many runs at once ----


def array_step(method, s, g, memory, t):
    """What every run subtracts from one parameter at step t: the package's rule for `method`,
    on arrays with one entry per run. `s` holds each run's setting, `memory` its running sums."""
    if method == "plain descent":
        return s["lr"] * g
    if method == "momentum":
        memory["v"] = s["mu"] * memory.get("v", 0.0) + g
        return s["lr"] * memory["v"]
    if method == "AdaGrad":
        memory["s"] = memory.get("s", 0.0) + g * g
        return s["lr"] * g / (np.sqrt(memory["s"]) + 1e-10)
    if method == "RMSProp":
        alpha = 1 - s["forget"]
        memory["v"] = alpha * memory.get("v", 0.0) + (1 - alpha) * g * g
        return s["lr"] * np.sqrt(s["forget"]) * g / (np.sqrt(memory["v"]) + 1e-8)
    if method != "Adam":
        raise ValueError(f"no such method {method!r}; the methods are {list(METHODS)}")
    b1, b2 = s["b1"], 1 - s["forget"]  # float_power is the power Python's floats use
    memory["m"] = b1 * memory.get("m", 0.0) + (1 - b1) * g
    memory["v"] = b2 * memory.get("v", 0.0) + (1 - b2) * g * g
    m_hat, v_hat = memory["m"] / (1 - np.float_power(b1, t)), memory["v"] / (1 - np.float_power(b2, t))
    return s["lr"] * m_hat / (np.sqrt(v_hat) + 1e-8)


def runs(method, settings, problem, starts, steps=None):
    """The losses of many runs at once, one column per run: run k uses the setting
    {knob: settings[knob][k]} from starts[k]. A run that blows up scores inf from then on."""
    grad_fn, loss_fn, _, default_steps = PROBLEMS[problem]
    steps = steps or default_steps
    points = [np.array(starts, dtype=float)[:, i] for i in (0, 1)]
    memories = [{}, {}]
    losses = np.empty((steps + 1, len(points[0])))
    with np.errstate(all="ignore"):  # overflow is expected in the runs that blow up
        losses[0] = loss_fn(*points)
        blown = ~(losses[0] < 1e300)
        for t in range(1, steps + 1):
            grads = grad_fn(*points)
            points = [w - array_step(method, settings, g, m, t) for w, g, m in zip(points, grads, memories)]
            loss = loss_fn(*points)
            blown |= ~(loss < 1e300)  # inf or nan: the run has blown up
            losses[t] = np.where(blown, math.inf, loss)
    return losses


def score(losses, tail=10):
    """One number per run (column of `losses`), lower is better. A run whose loss stays below
    TARGET from a step k <= steps - tail to the end scores k - (steps + 2), below 0; any other
    scores its worst loss over the last `tail` steps, to two significant digits."""
    steps = len(losses) - 1
    above = ~(losses < TARGET)
    last_above = np.where(above.any(axis=0), steps - np.argmax(above[::-1], axis=0), -1)
    worst = np.array([float(f"{loss:.2g}") for loss in losses[-tail:].max(axis=0)])
    return np.where(last_above < steps - tail, last_above + 1 - (steps + 2), worst)


def solved_from(scores, steps):
    """The step from which each run stays below TARGET (inf where it is not solved)."""
    return np.where(np.asarray(scores) < 0, np.asarray(scores) + steps + 2, np.inf)


# ---- the race: tune afresh for every start ----


def race(problem, method, starts, top=3, rounds=6):
    """Tune `method` on `problem` afresh for every start: the grid, then the refinement from its
    `top` best knob combinations in `rounds` rounds. One dict per start:

    "grid":     (score, setting) of the grid's best
    "at edge":  whether the grid's best lies at an end of its grid (not counting a knob's own limit)
    "refined":  (score, setting) after the refinement

    A tie goes to the setting tried first: the smaller rate, the shorter memory."""
    _, knob_values = METHODS[method]
    rates = rate_grid(problem, method)
    combos = list(itertools.product(*knob_values.values()))
    n, c, r = len(starts), len(combos), len(rates)
    grid = {"lr": np.tile(rates, c)}  # every rate with every combination of the other knobs
    grid |= {k: np.repeat([x[i] for x in combos], r) for i, k in enumerate(knob_values)}
    grid_scores = score(
        runs(method, {k: np.tile(v, n) for k, v in grid.items()}, problem, np.repeat(starts, c * r, 0))
    )
    grid_scores = grid_scores.reshape(n, c, r)
    best_rate = grid_scores.argmin(axis=2)  # per start and combination; a tie: the smaller rate
    combo_scores = np.take_along_axis(grid_scores, best_rate[..., None], 2)[..., 0]
    ranked = np.argsort(combo_scores, axis=1, kind="stable")  # a tie keeps the order tried
    logs = {k: np.log(v) if k in LOG_KNOBS else np.array(v, dtype=float) for k, v in knob_values.items()}
    chains = [(i, j) for i in range(n) for j in ranked[i, :top]]  # (start, combination) to refine
    point = {"lr": np.log([rates[best_rate[i, j]] for i, j in chains])}
    step = {"lr": np.full(len(chains), math.log(rates[1] / rates[0]) / 2)}  # half the grid's spacing
    for i, k in enumerate(knob_values):
        here = np.array([logs[k][knob_values[k].index(combos[j][i])] for _, j in chains])
        point[k] = here
        step[k] = np.array([np.abs(logs[k][logs[k] != x] - x).min() / 2 for x in here])
    moves = np.array(list(itertools.product((0, -1, 1), repeat=len(point))))
    chain_starts = np.array([starts[i] for i, _ in chains])
    best = score(runs(method, setting(point), problem, chain_starts))
    for _ in range(rounds):
        tried = {k: (point[k][:, None] + moves[:, i] * step[k][:, None]).ravel() for i, k in enumerate(point)}
        scores = score(runs(method, setting(tried), problem, np.repeat(chain_starts, len(moves), 0)))
        scores = scores.reshape(len(chains), len(moves))
        pick = scores.argmin(axis=1)  # a tie keeps the first, no move
        better = scores[np.arange(len(chains)), pick] < best
        for k in point:
            picked = tried[k].reshape(scores.shape)[np.arange(len(chains)), pick]
            point[k] = np.where(better, picked, point[k])
        best = np.minimum(best, scores[np.arange(len(chains)), pick])
        step = {k: v / 2 for k, v in step.items()}
    refined = setting(point)
    results = []
    for i in range(n):
        j = ranked[i, 0]
        at_edge = best_rate[i, j] in (0, r - 1) or any(
            x in (values[0], values[-1]) and x not in LIMITS.get(k, ())
            for x, (k, values) in zip(combos[j], knob_values.items())
        )
        k = min((a for a, (b, _) in enumerate(chains) if b == i), key=lambda a: best[a])
        grid_best = {"lr": rates[best_rate[i, j]], **dict(zip(knob_values, combos[j]))}
        results.append(
            {
                "grid": (combo_scores[i, j], grid_best),
                "at edge": at_edge,
                "refined": (best[k], {name: float(v[k]) for name, v in refined.items()}),
            }
        )
    return results


def setting(point):
    """Rates and knobs from a point of the refinement's search space (log rate, log forget)."""
    out = {"lr": np.exp(point["lr"])}
    for k, u in point.items():
        if k != "lr":
            out[k] = np.minimum(np.exp(u), 1.0) if k in LOG_KNOBS else np.clip(u, 0.0, 0.999)
    return out


def describe(method, result, steps):
    """One line for a (score, setting): when the run is solved or its worst late loss, and the setting."""
    key, s = result
    rate = "first step" if method == "RMSProp" else "lr"
    knobs = "".join(f", {k} {v:.4g}" for k, v in s.items() if k != "lr")
    if key < 0:
        outcome = f"below 1e-20 from step {key + steps + 2:4.0f}"
    else:
        outcome = f"worst of last 10 steps {key:7.1e}"
    return f"{outcome}   {rate} {s['lr']:.3g}{knobs}"
