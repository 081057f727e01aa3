"""How fast is the course's engine? A head-to-head with micrograd 0.1.0.

The workload is micrograd's own demo: 100 two-moons points, MLP(2, [16, 16, 1]),
the max-margin loss mean(relu(1 - y * score)) plus an L2 penalty 1e-4 * sum(p * p),
and plain SGD with the learning rate 1.0 - 0.9 * k / 100 at step k.

Each engine runs in a process of its own (a "worker"), so each has its own heap
and its own garbage collector, exactly as in a learner's session. The two workers
take their steps alternately (ours, theirs, ours, ...), so a machine that gets
busier or quieter affects both alike. Both start from the same weights and must
report the same loss at every step.

Three ways of running the same loop, each with a fresh pair of workers:

- plain (the headline): the loop as micrograd's demo writes it, default garbage
  collector, the previous step's loss still alive while the next graph is built;
- collector off: gc.disable() before the loop, to show what the collector costs;
- collect after each step: the loss is dropped and gc.collect() is called at the
  end of every timed step, so every step starts from a clean heap.

Run with `make bench`. Every figure printed comes from this run; nothing is stored.
"""

import gc
import json
import platform
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_SEED = 0
WEIGHT_SEED = 1337
MODES = {  # name: (steps, what the row shows)
    "plain": (20, "plain loop, default collector (the headline)"),
    "gc-off": (10, "collector off: gc.disable() before the loop"),
    "collect": (10, "gc.collect() at the end of every step"),
}
GOAL = 15  # the plain loop's ratio of total times aimed for (benchmarks/README.md)
CHAIN_LENGTH = 1_000_000
SUM_TERMS = 100_000
THEIR_CHAIN = 1_000  # deep enough for micrograd's recursive topological sort to fail


# ---- a worker: one engine, one training loop, driven step by step over a pipe ----


def load_engine(engine):
    """(Value, MLP) of one engine.

    Both workers import the course's package first (and with it NumPy and
    matplotlib, as in a notebook), so both collectors start from the same heap:
    a full collection walks every tracked object, and a heap of another size
    would make it cost more or less for reasons that are not the engine's.
    """
    sys.path.insert(0, str(ROOT))  # this checkout, whether or not it is pip-installed
    import micrograd_lesson  # noqa: F401

    if engine == "ours":
        from micrograd_lesson.engine import Value
        from micrograd_lesson.nn import MLP
    else:
        from micrograd.engine import Value
        from micrograd.nn import MLP
    return Value, MLP


def loss_and_accuracy(Value, model, X, y):
    """micrograd's demo loss: the hinge loss averaged over the points, plus L2."""
    inputs = [[Value(a), Value(b)] for a, b in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -yi * score).relu() for yi, score in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    accuracy = sum((yi > 0) == (score.data > 0) for yi, score in zip(y, scores)) / len(y)
    return data_loss + reg_loss, accuracy


def count_nodes(root):
    """Distinct nodes reachable from root (an explicit stack: no recursion limit)."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(node._prev)
    return len(seen)


def worker(engine, mode):
    """Read the setup, then one command per line: "step" or "memory"; answer in JSON."""
    Value, MLP = load_engine(engine)
    setup = json.loads(sys.stdin.readline())
    X, y = setup["X"], setup["y"]
    model = MLP(2, [16, 16, 1])
    for p, w in zip(model.parameters(), setup["weights"], strict=True):
        p.data = w
    gc.collect()
    heap = len(gc.get_objects())  # the tracked objects a full collection starts from
    if mode == "gc-off":
        gc.disable()
    loss, k = None, 0
    for command in sys.stdin:
        if command.strip() == "memory":
            print(json.dumps(graph_memory(Value, model, X, y)), flush=True)
            continue
        start, start_cpu = time.perf_counter(), time.process_time()
        # The loop body of micrograd's demo. `loss` still holds the previous
        # step's graph while this one is built, as in a plain Python loop.
        loss, accuracy = loss_and_accuracy(Value, model, X, y)
        model.zero_grad()
        loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        loss_value = loss.data
        if mode == "collect":
            loss = None  # the graph is now garbage; free it inside this step
            gc.collect()
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        answer = {"seconds": seconds, "cpu": cpu, "loss": loss_value, "accuracy": accuracy, "heap": heap}
        print(json.dumps(answer), flush=True)
        k += 1


def graph_memory(Value, model, X, y):
    """Bytes allocated while building and backpropagating one step's graph, and its node count."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    loss, _ = loss_and_accuracy(Value, model, X, y)
    loss.backward()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return {"bytes": held, "nodes": count_nodes(loss)}


class Worker:
    """The parent's handle on a worker process."""

    def __init__(self, engine, mode, setup):
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", engine, mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.send(json.dumps(setup))

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def ask(self, command):
        self.send(command)
        answer = self.process.stdout.readline()
        if not answer:
            sys.exit(f"a benchmark worker died (exit code {self.process.wait()})")
        return json.loads(answer)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


# ---- the parent: the same start for both, steps alternated, figures printed ----


def setup():
    """The data and our MLP's initial weights, sent to both workers."""
    from micrograd_lesson.datasets import make_moons
    from micrograd_lesson.nn import MLP

    X, y = make_moons(100, noise=0.1, seed=DATA_SEED)
    random.seed(WEIGHT_SEED)
    weights = [p.data for p in MLP(2, [16, 16, 1]).parameters()]
    assert len(weights) == 337
    return {"X": [[float(a), float(b)] for a, b in X], "y": [float(v) for v in y], "weights": weights}


def run_mode(mode, start):
    """Both engines, steps alternated; {engine: [step answers]}."""
    steps = MODES[mode][0]
    workers = {engine: Worker(engine, mode, start) for engine in ("ours", "micrograd")}
    answers = {engine: [] for engine in workers}
    for _ in range(steps):
        for engine, w in workers.items():
            answers[engine].append(w.ask("step"))
    memory = {engine: w.ask("memory") for engine, w in workers.items()} if mode == "plain" else None
    for w in workers.values():
        w.close()
    return answers, memory


def report_mode(mode, answers):
    """Print one row's figures; return its mean seconds per step (wall and CPU) and loss gap."""
    ours, theirs = answers["ours"], answers["micrograd"]
    worst = max(abs(o["loss"] - t["loss"]) for o, t in zip(ours, theirs))
    same_accuracy = all(o["accuracy"] == t["accuracy"] for o, t in zip(ours, theirs))
    figures = {}
    for clock in ("seconds", "cpu"):
        figures[clock] = {e: statistics.mean(a[clock] for a in answers[e]) for e in answers}
    # The median hides the odd step that pays for a full collection; the mean (total time) does not.
    median = {e: statistics.median(a["seconds"] for a in answers[e]) for e in answers}
    figures["median"] = median
    print(f"{MODES[mode][1]}: {len(ours)} steps each; seconds per step, mean (median) and CPU")
    print(
        f"  (objects tracked by the collector before the loop: {ours[0]['heap']:,} and {theirs[0]['heap']:,})"
    )
    for engine, name in (("ours", "ours"), ("micrograd", "micrograd 0.1.0")):
        wall, cpu = figures["seconds"][engine], figures["cpu"][engine]
        print(f"  {name:16} {wall:.3f} ({median[engine]:.3f}), CPU {cpu:.3f}")
    ratios = [figures[c]["micrograd"] / figures[c]["ours"] for c in ("seconds", "cpu")]
    median_ratio = median["micrograd"] / median["ours"]
    print(
        f"  ours is {ratios[0]:.1f}x faster in total time ({median_ratio:.1f}x by the median step, "
        f"{ratios[1]:.1f}x in CPU time)"
    )
    print(
        f"  losses: largest difference at any step {worst:.1e}; "
        f"accuracies {'identical' if same_accuracy else 'DIFFER'} at every step"
    )
    return figures, worst


def report_steps(answers):
    ours, theirs = answers["ours"], answers["micrograd"]
    print("step by step (plain loop):")
    print(
        "{:>4} {:>8} {:>9} {:>16} {:>16} {:>5}".format(
            "step", "ours s", "theirs s", "loss (ours)", "loss (theirs)", "acc"
        )
    )
    for k, (o, t) in enumerate(zip(ours, theirs)):
        print(
            f"{k:4d} {o['seconds']:8.3f} {t['seconds']:9.3f} "
            f"{o['loss']:16.12f} {t['loss']:16.12f} {o['accuracy']:5.0%}"
        )


def report_memory(memory):
    print("memory for one step's graph (tracemalloc, after forward and backward):")
    for engine, m in memory.items():
        name = "micrograd 0.1.0" if engine == "micrograd" else engine
        print(
            f"  {name:16} {m['nodes']:,} nodes, {m['bytes'] / 2**20:5.1f} MiB: "
            f"{m['bytes'] / m['nodes']:4.0f} bytes per node"
        )


def deep_graphs():
    from micrograd.engine import Value as TheirValue

    from micrograd_lesson.engine import Value

    print("deep graphs (ours):")
    x = Value(1.0)
    y = x
    start = time.perf_counter()
    for _ in range(CHAIN_LENGTH):
        y = -y
    built = time.perf_counter()
    y.backward()
    done = time.perf_counter()
    print(
        f"  a chain of {CHAIN_LENGTH:,} negations: built in {built - start:.2f} s, "
        f"backward in {done - built:.2f} s (d out / d x = {x.grad:+.1f})"
    )
    del x, y
    terms = [Value(float(i)) for i in range(SUM_TERMS)]
    start = time.perf_counter()
    total = sum(terms)
    built = time.perf_counter()
    total.backward()
    done = time.perf_counter()
    ok = all(t.grad == 1.0 for t in terms)
    print(
        f"  sum() of {SUM_TERMS:,} terms: built in {built - start:.2f} s, backward in {done - built:.2f} s "
        f"(every term's grad is 1: {ok})"
    )
    z = TheirValue(1.0)
    for _ in range(THEIR_CHAIN):
        z = z + 1
    try:
        z.backward()
        print(
            f"  micrograd 0.1.0 on a chain of {THEIR_CHAIN:,} additions: no error (recursion limit raised?)"
        )
    except RecursionError as e:
        print(f"  micrograd 0.1.0 on a chain of {THEIR_CHAIN:,} additions: RecursionError: {e}")


def main():
    sys.path.insert(0, str(ROOT))
    try:
        import micrograd  # noqa: F401
    except ImportError:
        sys.exit("micrograd 0.1.0 is not installed: run `make bench`, or `pip install micrograd==0.1.0`.")
    print(f"Python {platform.python_version()} on {platform.machine()}")
    print("micrograd's demo: 100 two-moons points, MLP(2, [16, 16, 1]), hinge loss + L2, SGD")
    print("each engine in its own process, steps alternated (ours, theirs, ...)")
    print()
    start = setup()
    results = {}
    for mode in MODES:
        answers, memory = run_mode(mode, start)
        if mode == "plain":
            report_steps(answers)
            print()
        results[mode] = report_mode(mode, answers)
        if memory:
            report_memory(memory)
        print()
    print("summary, seconds per step (mean of the steps; ratios of the means, of the medians, of CPU time):")
    print(f"  {'':46} {'ours':>6} {'micrograd':>9} {'ratio':>6} {'median':>6} {'CPU ratio':>9}")
    for mode, (figures, _) in results.items():
        wall, cpu, median = figures["seconds"], figures["cpu"], figures["median"]
        ratio, cpu_ratio = wall["micrograd"] / wall["ours"], cpu["micrograd"] / cpu["ours"]
        print(
            f"  {MODES[mode][1][:46]:46} {wall['ours']:6.3f} {wall['micrograd']:9.3f} "
            f"{ratio:5.1f}x {median['micrograd'] / median['ours']:5.1f}x {cpu_ratio:8.1f}x"
        )
    wall, median = results["plain"][0]["seconds"], results["plain"][0]["median"]
    ratio = wall["micrograd"] / wall["ours"]
    print(
        f"headline (plain loop): {ratio:.1f}x micrograd 0.1.0 in total time "
        f"({median['micrograd'] / median['ours']:.1f}x by the median step); "
        f"goal at least {GOAL:.0f}x: {'met' if ratio >= GOAL else 'NOT met'}"
    )
    worst = max(w for _, w in results.values())
    print(f"losses agree with micrograd's at every step of every row to {worst:.1e}")
    print()
    deep_graphs()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(*sys.argv[2:4])
    else:
        main()
