"""How fast is the course's tensor engine? Against PyTorch on the CPU, and against the scalar engine.

Four races, every figure measured in this one run, the runners taking turns
(A, B, A, B, ...) so that a machine getting busier or quieter affects both alike:

1. moons: chapter 9's workload, 100 full-batch steps. 100 two-moons points,
   MLP(2, [16, 16, 1]) with ReLU, the mean hinge loss plus 1e-4 * sum(p * p), plain
   SGD with the learning rate 1.0 - 0.9 * k / 100. The tensor engine against PyTorch.
2. digits: chapter 12's classifier. 1,437 training digits, MLP(64, [64, 10]),
   softmax cross-entropy, mini-batches of 32, SGD with momentum 0.9 and lr 0.1,
   30 epochs. The tensor engine against PyTorch.
3. scalar against tensor engine, on the moons workload, per step.
4. the size table: MLP(2, [H, H, 1]) with ReLU, full batch, for H in 16, 64, 256, 1024
   and batches of 100, 1,000 and 10,000 points (noisy two-moons points), the mean hinge
   loss and plain SGD (lr 0.01), a few steps per run. The tensor engine against PyTorch.

Both engines of a race start from the same weights, see the same batches in the same
order, and compute in float64; the script checks that their losses agree. Both run on
one thread: the BLAS libraries (NumPy's OpenBLAS, PyTorch's MKL) and OpenMP are pinned
by environment variables set before either is imported, and torch.set_num_threads(1)
pins PyTorch's own thread pool. PyTorch uses its idiomatic tools: torch.nn.Linear,
torch.optim.SGD, F.cross_entropy. The garbage collector stays at its defaults: these are
the speeds a learner's own loop sees.

Times are CPU seconds of this process (time.process_time), the kernel's share included
(page faults of fresh arrays count). Both engines run on one thread, so this is the work
each does; the wall clock would also count the time spent waiting for a core, which on
a shared machine is most of it and varies from run to run.

Every ratio is printed twice: the median of the alternating runs (tensor / PyTorch),
and the ratio of the total (equivalently mean) times, which also counts the odd slow run
that the median hides (a garbage collection, a busy moment of the machine).
The size table also prints, for each engine, its page faults per step (fresh pages the
kernel had to map and zero) and the kernel's share of its CPU time: where the two engines
do the same arithmetic, that is where their times part.

Run it with `python benchmarks/bench_tensor.py` (PyTorch must be installed);
`--table-only` runs race 4 alone.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):  # before NumPy or torch load
    os.environ[_var] = "1"

import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package

from micrograd_lesson import nn  # noqa: E402
from micrograd_lesson.datasets import load_digits, make_moons  # noqa: E402
from micrograd_lesson.demo import scalar_step  # noqa: E402  (race 3: chapter 12's step)
from micrograd_lesson.optim import SGD  # noqa: E402
from micrograd_lesson.tensor_nn import MLP, cross_entropy  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("PyTorch is not installed: pip install torch (CPU) to run this benchmark.")

torch.set_num_threads(1)
clock = time.process_time  # CPU seconds of this process: see the docstring
REPEATS = 5  # runs of each engine per race, alternating
TABLE_REPEATS = 5  # runs of each engine per cell of the size table, alternating
TABLE_RUN_SECONDS = 0.25  # a cell's run takes enough steps to last about this long (at least 1)
SCALAR_STEPS = 10  # scalar steps timed in race 3 (each takes a good fraction of a second)
GOALS = {"moons": 1.0, "digits": 1.5}  # tensor engine time / PyTorch time, at most


# ---- PyTorch twins of the tensor MLP, with the same weights ----


def torch_twin(model):
    layers = []
    for i, layer in enumerate(model.layers):
        nin, nout = layer.W.shape
        linear = torch.nn.Linear(nin, nout, dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(layer.W.data.T.copy()))  # torch keeps (nout, nin)
            linear.bias.copy_(torch.from_numpy(layer.b.data.copy()))
        layers.append(linear)
        if i < len(model.layers) - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


# ---- 1. moons ----

X_MOONS, Y_MOONS = make_moons(100, noise=0.1, seed=0)
TARGETS = Y_MOONS.reshape(-1, 1).astype(float)
MOONS_STEPS = 100


def moons_tensor(model):
    params = model.parameters()
    losses = []
    for k in range(MOONS_STEPS):
        loss = (1 - TARGETS * model(X_MOONS)).relu().mean() + 1e-4 * sum((p * p).sum() for p in params)
        model.zero_grad()
        loss.backward()
        lr = 1.0 - 0.9 * k / 100
        for p in params:
            p.data -= lr * p.grad
        losses.append(float(loss.data))
    return losses


def moons_torch(net):
    X, targets = torch.from_numpy(X_MOONS), torch.from_numpy(TARGETS)
    params = list(net.parameters())
    opt = torch.optim.SGD(params, lr=1.0)
    losses = []
    for k in range(MOONS_STEPS):
        loss = (1 - targets * net(X)).relu().mean() + 1e-4 * sum((p * p).sum() for p in params)
        opt.zero_grad()
        loss.backward()
        opt.param_groups[0]["lr"] = 1.0 - 0.9 * k / 100
        opt.step()
        losses.append(loss.item())
    return losses


# ---- 2. digits ----

DIGITS_X, DIGITS_Y = load_digits()
_order = np.random.default_rng(0).permutation(len(DIGITS_Y))
TEST, TRAIN = _order[:360], _order[360:]
DIGITS_INPUTS = DIGITS_X / 16.0
EPOCHS, BATCH = 30, 32
BATCHES = [  # the same mini-batches, in the same order, for both engines
    perm[i : i + BATCH]
    for perm in (np.random.default_rng(0).permutation(TRAIN) for _ in range(EPOCHS))
    for i in range(0, len(perm), BATCH)
]


def digits_tensor(model):
    opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for batch in BATCHES:
        loss = cross_entropy(model(DIGITS_INPUTS[batch]), DIGITS_Y[batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.data))
    return losses


def digits_torch(net):
    X, y = torch.from_numpy(DIGITS_INPUTS), torch.from_numpy(DIGITS_Y)
    batches = [torch.from_numpy(b) for b in BATCHES]
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for batch in batches:
        loss = F.cross_entropy(net(X[batch]), y[batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def digits_accuracy(model):
    return np.mean(model(DIGITS_INPUTS[TEST]).data.argmax(axis=1) == DIGITS_Y[TEST])


# ---- the races ----


def timed(fn, *args):
    started = clock()
    result = fn(*args)
    return clock() - started, result


def race(ours_fn, torch_fn, make_model, repeats=REPEATS):
    """Alternate ours and PyTorch `repeats` times from the same weights; (our times, their times, losses).

    One untimed run of each first, so that neither pays for first-call set-up in a timed run.
    """
    ours_fn(make_model())
    torch_fn(torch_twin(make_model()))
    ours_times, their_times = [], []
    for _ in range(repeats):
        model = make_model()
        net = torch_twin(model)
        t, ours_losses = timed(ours_fn, model)
        ours_times.append(t)
        t, their_losses = timed(torch_fn, net)
        their_times.append(t)
    return ours_times, their_times, (ours_losses, their_losses, model)


def ratios(ours_times, their_times):
    """(ratio of medians, ratio of totals): the typical run, and every run counted."""
    return (
        statistics.median(ours_times) / statistics.median(their_times),
        sum(ours_times) / sum(their_times),
    )


def report(name, ours_times, their_times, losses):
    ours_losses, their_losses, model = losses
    ours, theirs = statistics.median(ours_times), statistics.median(their_times)
    median_ratio, mean_ratio = ratios(ours_times, their_times)
    agree = np.allclose(ours_losses, their_losses, rtol=1e-8, atol=1e-12)
    goal = GOALS[name]
    print(f"\n{name}: {len(ours_losses)} steps; {REPEATS} alternating runs each")
    print(f"  tensor engine  median {ours:8.4f} s   (runs: {', '.join(f'{t:.4f}' for t in ours_times)})")
    print(f"  PyTorch (CPU)  median {theirs:8.4f} s   (runs: {', '.join(f'{t:.4f}' for t in their_times)})")
    verdict = "met" if max(median_ratio, mean_ratio) <= goal else "MISSED"
    print(
        f"  ratio tensor / PyTorch: median {median_ratio:.2f}x, total {mean_ratio:.2f}x"
        f"   goal <= {goal:.1f}x: {verdict}"
    )
    print(f"  losses agree step by step (rel 1e-8): {agree}; last loss {ours_losses[-1]:.6f}")
    return median_ratio, mean_ratio


# ---- 4. the size table ----

TABLE_WIDTHS = (16, 64, 256, 1024)
TABLE_BATCHES = (100, 1000, 10000)
TABLE_LR = 0.01
TABLE_GOAL = 1.0


def table_data(batch):
    X, y = make_moons(batch, noise=0.1, seed=0)
    return X, y.reshape(-1, 1).astype(float)


def table_tensor(model, X, targets, steps):
    opt = SGD(model.parameters(), lr=TABLE_LR)
    losses = []
    for _ in range(steps):
        loss = (1 - targets * model(X)).relu().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.data))
    return losses


def table_torch(net, X, targets, steps):
    X, targets = torch.from_numpy(X), torch.from_numpy(targets)
    opt = torch.optim.SGD(net.parameters(), lr=TABLE_LR)
    losses = []
    for _ in range(steps):
        loss = (1 - targets * net(X)).relu().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def usage():
    """(minor page faults, kernel CPU seconds, all CPU seconds) of this process so far.

    A minor fault is a page of fresh memory that the kernel maps and zeroes for us: what
    an array costs, beyond its arithmetic, when the allocator has to ask the system for it.
    """
    now = resource.getrusage(resource.RUSAGE_SELF)
    return np.array([now.ru_minflt, now.ru_stime, now.ru_utime + now.ru_stime])


def counting(fn, tally):
    """fn, also adding each call's (page faults, kernel seconds, CPU seconds) to `tally`."""

    def run(*args):
        before = usage()
        result = fn(*args)
        tally[:] += usage() - before  # in place: the caller's array
        return result

    return run


def table_cell(width, batch):
    """(median ratio, total ratio, steps per run, losses agree, load) for one cell of the table.

    load: (page faults per step, the kernel's share of the CPU time) for ours, then PyTorch.
    """
    X, targets = table_data(batch)

    def make_model():
        return MLP(2, [width, width, 1], seed=1)

    # Steps per run: enough for a run to last TABLE_RUN_SECONDS, judged by one timed step
    # (after one untimed one, which pays for first-call set-up).
    table_tensor(make_model(), X, targets, 1)
    once, _ = timed(table_tensor, make_model(), X, targets, 1)
    steps = max(1, round(TABLE_RUN_SECONDS / once))
    ours_load, their_load = np.zeros(3), np.zeros(3)  # every run's, the untimed first one too
    ours_times, their_times, (ours_losses, their_losses, _) = race(
        counting(lambda model: table_tensor(model, X, targets, steps), ours_load),
        counting(lambda net: table_torch(net, X, targets, steps), their_load),
        make_model,
        repeats=TABLE_REPEATS,
    )
    agree = np.allclose(ours_losses, their_losses, rtol=1e-8, atol=1e-12)
    # Page faults per step, and the kernel's share of the CPU time.
    runs = TABLE_REPEATS + 1
    load = [(faults / (runs * steps), kernel / cpu) for faults, kernel, cpu in (ours_load, their_load)]
    return (*ratios(ours_times, their_times), steps, agree, load)


def size_table():
    print(
        f"\nsize table: MLP(2, [H, H, 1]), full batch, hinge loss, SGD; tensor / PyTorch CPU time,"
        f"\n{TABLE_REPEATS} alternating runs per cell, each run a few steps;"
        f" 'median' is the ratio of medians, 'total' of total times;"
        f"\npage faults per step and the kernel's share of CPU time, ours / PyTorch's"
    )
    head = f"{'median':>7} {'total':>7}   agree   {'faults/step':>15}   {'kernel':>9}"
    print(f"  {'H':>5} {'batch':>6} {'steps':>5}   {head}")
    worst = 0.0
    for width in TABLE_WIDTHS:
        for batch in TABLE_BATCHES:
            median_ratio, mean_ratio, steps, agree, load = table_cell(width, batch)
            worst = max(worst, median_ratio, mean_ratio)
            flag = "" if max(median_ratio, mean_ratio) <= TABLE_GOAL else "   above the goal"
            (ours_faults, ours_kernel), (their_faults, their_kernel) = load
            cells = f"{median_ratio:6.2f}x {mean_ratio:6.2f}x   {str(agree):5}"
            faults = f"{ours_faults:7.0f} /{their_faults:6.0f}"
            kernel = f"{ours_kernel:3.0%} / {their_kernel:3.0%}"
            print(f"  {width:>5} {batch:>6} {steps:>5}   {cells}   {faults}   {kernel:>9}{flag}")
    verdict = "met" if worst <= TABLE_GOAL else "MISSED"
    print(f"  largest ratio {worst:.2f}x; goal <= {TABLE_GOAL:.1f}x in every cell: {verdict}")
    return worst


def main():
    if "--table-only" in sys.argv[1:]:  # e.g. to rerun the table under other memory settings
        print(f"NumPy {np.__version__}, PyTorch {torch.__version__}, threads {torch.get_num_threads()}")
        size_table()
        return
    print(f"Python {sys.version.split()[0]}, NumPy {np.__version__}, PyTorch {torch.__version__}, 1 thread")
    pinned = ", ".join(f"{var}={os.environ[var]}" for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"))
    print(f"threads: torch.get_num_threads() = {torch.get_num_threads()}, {pinned}")

    results = {}
    results["moons"] = report("moons", *race(moons_tensor, moons_torch, lambda: MLP(2, [16, 16, 1], seed=1)))
    d = race(digits_tensor, digits_torch, lambda: MLP(64, [64, 10], seed=0))
    results["digits"] = report("digits", *d)
    print(f"  held-out accuracy (tensor engine, last run): {digits_accuracy(d[2][2]):.1%} of {len(TEST)}")

    random.seed(1337)
    scalar = nn.MLP(2, [16, 16, 1])
    tensor = MLP.from_scalar(scalar)
    xs, ys = X_MOONS.tolist(), Y_MOONS.tolist()
    scalar_times, tensor_times, scalar_losses, tensor_losses = [], [], [], []
    params = tensor.parameters()
    loss = None  # the previous step's loss stays alive while the next is built, as in a plain loop
    for k in range(SCALAR_STEPS):
        t, loss = timed(scalar_step, scalar, k, xs, ys)
        scalar_times.append(t)
        scalar_losses.append(loss.data)
        started = clock()
        tloss = (1 - TARGETS * tensor(X_MOONS)).relu().mean() + 1e-4 * sum((p * p).sum() for p in params)
        tensor.zero_grad()
        tloss.backward()
        for p in params:
            p.data -= (1.0 - 0.9 * k / 100) * p.grad
        tensor_times.append(clock() - started)
        tensor_losses.append(float(tloss.data))
    s, t = statistics.median(scalar_times), statistics.median(tensor_times)
    print(f"\nscalar vs tensor engine, moons, median of {SCALAR_STEPS} alternating steps (default collector)")
    print(f"  scalar engine  {s:8.4f} CPU s per step")
    print(f"  tensor engine  {t:8.6f} CPU s per step")
    same = np.allclose(scalar_losses, tensor_losses, rtol=1e-10)
    print(f"  ratio scalar / tensor: {s / t:,.0f}x;  same losses: {same}")

    worst = size_table()

    moons, digits = results["moons"], results["digits"]
    print(
        f"\nsummary: tensor / PyTorch (median, total)  moons {moons[0]:.2f}x, {moons[1]:.2f}x;"
        f"  digits {digits[0]:.2f}x, {digits[1]:.2f}x;  size table at most {worst:.2f}x"
    )


if __name__ == "__main__":
    main()
