"""How fast is the course's engine? A head-to-head with micrograd 0.1.0.

The workload is micrograd's own demo: 100 two-moons points, MLP(2, [16, 16, 1]),
the max-margin loss mean(relu(1 - y * score)) plus an L2 penalty 1e-4 * sum(p * p),
and plain SGD with the learning rate 1.0 - 0.9 * k / 100 at step k.

Both engines start from the same weights (ours are copied into micrograd's model)
and take their steps alternately (ours, theirs, ours, ...), so a machine that gets
busier or quieter during the run affects both alike. The garbage collector stays
on. Every timed step ends with gc.collect(): an engine whose graphs hold reference
cycles (micrograd's closures refer to their own node) pays for freeing them in its
own step, and the next step, of either engine, starts from a clean heap.

Run with `make bench` (it installs micrograd==0.1.0 into .venv first). Every figure
printed comes from this run; nothing is stored or hard-coded.
"""

import gc
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections import namedtuple
from pathlib import Path

# Import the package from this checkout, whether or not it is pip-installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from micrograd_lesson import nn as our_nn  # noqa: E402
from micrograd_lesson.datasets import make_moons  # noqa: E402
from micrograd_lesson.engine import Value as OurValue  # noqa: E402

try:
    from micrograd import nn as their_nn
    from micrograd.engine import Value as TheirValue
except ImportError:
    sys.exit("micrograd 0.1.0 is not installed: run `make bench`, or `pip install micrograd==0.1.0`.")

STEPS = 20
DATA_SEED = 0
WEIGHT_SEED = 1337
CHAIN_LENGTH = 1_000_000
SUM_TERMS = 100_000
THEIR_CHAIN = 1_000  # deep enough for micrograd's recursive topological sort to fail


# ---- the workload: the same code drives both engines ----


def loss_and_accuracy(Value, model, X, y):
    """micrograd's demo loss: the hinge loss averaged over the points, plus L2."""
    inputs = [[Value(a), Value(b)] for a, b in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -yi * score).relu() for yi, score in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    accuracy = sum((yi > 0) == (score.data > 0) for yi, score in zip(y, scores)) / len(y)
    return data_loss + reg_loss, accuracy


Step = namedtuple("Step", "seconds gc_seconds loss accuracy")


def train_step(Value, model, X, y, k):
    """One SGD step, timed, including the gc.collect() that frees its graph."""
    start = time.perf_counter()
    loss, accuracy = loss_and_accuracy(Value, model, X, y)
    model.zero_grad()
    loss.backward()
    learning_rate = 1.0 - 0.9 * k / 100
    for p in model.parameters():
        p.data -= learning_rate * p.grad
    loss_value = loss.data
    del loss  # the graph is now garbage
    collect_start = time.perf_counter()
    gc.collect()
    end = time.perf_counter()
    return Step(end - start, end - collect_start, loss_value, accuracy)


def same_start():
    """Our MLP and micrograd's, with identical weights."""
    random.seed(WEIGHT_SEED)
    ours = our_nn.MLP(2, [16, 16, 1])
    theirs = their_nn.MLP(2, [16, 16, 1])
    ours_params, their_params = ours.parameters(), theirs.parameters()
    assert len(ours_params) == len(their_params) == 337
    for p, q in zip(ours_params, their_params):  # both list each neuron's w, then b
        q.data = p.data
    return ours, theirs


def count_nodes(root):
    """Distinct nodes reachable from root (an explicit stack: no recursion limit)."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(node._prev)
    return len(seen)


def graph_memory(Value, model, X, y):
    """Bytes allocated while building and backpropagating one step's graph, and its node count."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    loss, _ = loss_and_accuracy(Value, model, X, y)
    loss.backward()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    nodes = count_nodes(loss)
    del loss
    gc.collect()
    return held - before, peak - before, nodes


# ---- the parts ----


def compare_training():
    X, y = make_moons(100, noise=0.1, seed=DATA_SEED)
    X = [(float(a), float(b)) for a, b in X]
    y = [float(v) for v in y]
    ours, theirs = same_start()

    ours_steps, their_steps = [], []
    for k in range(STEPS):  # alternate: a step of ours, then a step of theirs
        ours_steps.append(train_step(OurValue, ours, X, y, k))
        their_steps.append(train_step(TheirValue, theirs, X, y, k))

    print(f"Training: micrograd's demo, {len(X)} points, MLP(2, [16, 16, 1]), {STEPS} steps each")
    header = ("step", "ours s", "theirs s", "loss (ours)", "loss (theirs)", "|diff|", "acc")
    print("{:>4} {:>8} {:>9} {:>16} {:>16} {:>8} {:>5}".format(*header))
    for k, (o, t) in enumerate(zip(ours_steps, their_steps)):
        diff = abs(o.loss - t.loss)
        times = f"{k:4d} {o.seconds:8.3f} {t.seconds:9.3f}"
        print(f"{times} {o.loss:16.12f} {t.loss:16.12f} {diff:8.1e} {o.accuracy:5.0%}")

    mean_ours = statistics.mean(s.seconds for s in ours_steps)
    mean_theirs = statistics.mean(s.seconds for s in their_steps)
    median_ours = statistics.median(s.seconds for s in ours_steps)
    median_theirs = statistics.median(s.seconds for s in their_steps)
    gc_ours = statistics.mean(s.gc_seconds for s in ours_steps)
    gc_theirs = statistics.mean(s.gc_seconds for s in their_steps)
    worst = max(abs(o.loss - t.loss) for o, t in zip(ours_steps, their_steps))
    same_accuracy = all(o.accuracy == t.accuracy for o, t in zip(ours_steps, their_steps))
    ratio = mean_theirs / mean_ours
    print()
    print("seconds per step: mean (median); of which the closing gc.collect()")
    print(f"  ours            {mean_ours:.3f} ({median_ours:.3f}); {gc_ours:.3f}")
    print(f"  micrograd 0.1.0 {mean_theirs:.3f} ({median_theirs:.3f}); {gc_theirs:.3f}")
    print(f"ours is {ratio:.1f}x faster (goal: at least 5x): {'met' if ratio >= 5 else 'NOT met'}")
    agree = "within" if worst <= 1e-9 else "OUTSIDE"
    print(f"losses agree step by step: largest difference {worst:.1e} ({agree} 1e-9)")
    print(f"training accuracies {'identical' if same_accuracy else 'DIFFER'} at every step")
    return X, y


def deep_graphs():
    print()
    print("Deep graphs (ours):")
    x = OurValue(1.0)
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

    terms = [OurValue(float(i)) for i in range(SUM_TERMS)]
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
    del terms, total

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
    del z
    gc.collect()


def memory(X, y):
    ours, theirs = same_start()
    print()
    print("Memory for one step's graph (tracemalloc, after forward and backward):")
    for name, Value, model in (("ours", OurValue, ours), ("micrograd 0.1.0", TheirValue, theirs)):
        held, peak, nodes = graph_memory(Value, model, X, y)
        mib = 2**20
        print(
            f"  {name:16} {nodes:,} nodes: {held / mib:5.1f} MiB held, {held / nodes:4.0f} bytes per node",
            end="",
        )
        print(f" (peak {peak / mib:.1f} MiB)")


def main():
    gc.enable()
    print(
        f"Python {platform.python_version()} on {platform.machine()}; garbage collector on: {gc.isenabled()}"
    )
    print()
    X, y = compare_training()
    memory(X, y)
    deep_graphs()


if __name__ == "__main__":
    main()
