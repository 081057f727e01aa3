"""Is the tensor engine as fast as before a change? This checkout against an earlier commit.

`make bench` runs it against BASELINE: by default 9c0af38, the last commit in which
`Tensor.backward` had a loop of its own, before the one backward walk
(`graph.backward_pass`) served both engines. The goal is "no slower than before":
this checkout's time at most 1.05 times the baseline's, on both workloads of
bench_tensor.py:

- moons: 100 full-batch steps of MLP(2, [16, 16, 1]) on 100 two-moons points;
- digits: 5 epochs of MLP(64, [64, 10]) on 1,437 digits, mini-batches of 32, SGD
  with momentum.

The baseline's package is taken from git (`git archive`) into build/, and each
version runs in a worker process of its own, which imports only its own package.
The two workers take turns (this checkout, the baseline, this checkout, ...), so a
machine that gets busier or quieter affects both alike; each run starts from the same
weights and both must end at the same loss. Each run's CPU time (time.process_time)
is printed next to its wall time; the verdict uses CPU time, the work done.

Run: python benchmarks/bench_baseline.py [REF]
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):  # before NumPy loads
    os.environ[_var] = "1"

import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import time  # noqa: E402
from io import BytesIO  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "9c0af38d3697fe3866d3bb7e1827b94ce560a6d1"  # the last commit with Tensor's own backward loop
GOAL = 1.05  # this checkout's CPU time / the baseline's, at most
REPEATS = 15
WORKLOADS = ("moons", "digits")


# ---- a worker: one version of the package, asked for one timed run at a time ----


def worker(root):
    sys.path.insert(0, root)
    import numpy as np

    import micrograd_lesson
    from micrograd_lesson.datasets import load_digits, make_moons
    from micrograd_lesson.optim import SGD
    from micrograd_lesson.tensor_nn import MLP, cross_entropy

    if not micrograd_lesson.__file__.startswith(root):  # else both workers would time one package
        raise SystemExit(f"the worker for {root} imported {micrograd_lesson.__file__}")
    X, y = make_moons(100, noise=0.1, seed=0)
    targets = y.reshape(-1, 1).astype(float)
    digits_x, digits_y = load_digits()
    inputs = digits_x / 16.0
    train = np.random.default_rng(0).permutation(len(digits_y))[360:]
    batches = [
        perm[i : i + 32] for perm in (np.random.default_rng(0).permutation(train) for _ in range(5))
        for i in range(0, len(perm), 32)
    ]  # fmt: skip

    def moons():
        model = MLP(2, [16, 16, 1], seed=1)
        params = model.parameters()
        for k in range(100):
            loss = (1 - targets * model(X)).relu().mean() + 1e-4 * sum((p * p).sum() for p in params)
            model.zero_grad()
            loss.backward()
            for p in params:
                p.data -= (1.0 - 0.9 * k / 100) * p.grad
        return float(loss.data)

    def digits():
        model = MLP(64, [64, 10], seed=0)
        opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
        for batch in batches:
            loss = cross_entropy(model(inputs[batch]), digits_y[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
        return float(loss.data)

    runs = {"moons": moons, "digits": digits}
    for fn in runs.values():
        fn()  # untimed: first-call set-up is paid here, not in a timed run
    print("ready", flush=True)
    for line in sys.stdin:
        wall, cpu = time.perf_counter(), time.process_time()
        loss = runs[line.strip()]()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps({"cpu": cpu, "wall": wall, "loss": loss}), flush=True)


class Worker:
    def __init__(self, root):
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        if self.process.stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker for {root} did not start")

    def run(self, workload):
        self.process.stdin.write(workload + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait()


# ---- the race ----


def baseline_package(ref):
    """The package as it was at `ref`, unpacked into build/ (once per commit); its folder, or an error."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        folder = ROOT / "build" / "bench-baseline" / commit
        if not (folder / "micrograd_lesson").is_dir():
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", commit, "micrograd_lesson"],
                capture_output=True,
                check=True,
            ).stdout
            folder.mkdir(parents=True, exist_ok=True)
            with tarfile.open(fileobj=BytesIO(archive)) as tar:
                tar.extractall(folder, filter="data")
        return folder, commit
    except (OSError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", None) or e
        why = f"bench_baseline: cannot take the package at {ref!r} from git ({str(detail).strip()})"
        raise SystemExit(why) from None


def main(ref):
    folder, commit = baseline_package(ref)
    print(f"Python {sys.version.split()[0]}; this checkout against {commit[:7]} ({ref}), 1 thread")
    ours, theirs = Worker(ROOT), Worker(folder)
    verdicts = []
    try:
        for workload in WORKLOADS:
            times = {"this checkout": [], "baseline": []}
            losses = set()
            for _ in range(REPEATS):
                for name, w in (("this checkout", ours), ("baseline", theirs)):
                    answer = w.run(workload)
                    times[name].append((answer["cpu"], answer["wall"]))
                    losses.add(round(answer["loss"], 9))
            print(f"\n{workload}: {REPEATS} alternating runs each (CPU s / wall s)")
            for name, runs in times.items():
                cpu = statistics.median(c for c, _ in runs)
                wall = statistics.median(w for _, w in runs)
                listed = ", ".join(f"{c:.3f}/{w:.3f}" for c, w in runs)
                print(f"  {name:14} median CPU {cpu:.4f} s, wall {wall:.4f} s   (runs: {listed})")
            ratio = statistics.median(c for c, _ in times["this checkout"]) / statistics.median(
                c for c, _ in times["baseline"]
            )
            total = sum(c for c, _ in times["this checkout"]) / sum(c for c, _ in times["baseline"])
            verdict = "met" if max(ratio, total) <= GOAL else "MISSED"
            verdicts.append(verdict)
            print(f"  CPU time, this checkout / baseline: median {ratio:.3f}x, total {total:.3f}x"
                  f"   goal <= {GOAL:.2f}x: {verdict}")  # fmt: skip
            print(f"  both end at the same loss: {len(losses) == 1} ({', '.join(map(str, sorted(losses)))})")
    finally:
        ours.close()
        theirs.close()
    print(f"\nsummary: tensor engine against {commit[:7]}: {', '.join(verdicts)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else BASELINE)
