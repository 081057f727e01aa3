"""Training in the browser: the playground's train example in Chromium (Pyodide) against CPython.

The workload is one step of the playground's train example (website/playground/examples.json):
MLP(2, [16, 16, 1]) on its 100 two-moons points, the hinge loss plus L2, zero_grad, backward and
an Adam step. The loop body is taken from the example itself, with show_training left out, and
each step is timed in the Python that runs it (time.perf_counter: wall clock).

- Chromium: build/html served on 127.0.0.1 (run website/build.py first), the code typed into the
  playground and run by its worker, as a reader runs it. Pyodide has no CPU clock of its own, so
  CPU time is read from outside: the CPU seconds of every Chromium process (psutil), over a run of
  SHORT steps and one of LONG steps; their difference over LONG - SHORT steps is the CPU time of
  a step, without the start-up both runs share.
- CPython: the same code, run by this Python (the course's .venv), in a process of its own, with
  time.process_time per step beside the wall clock.

Runs alternate (browser, CPython, browser, ...). The page's overhead is one more row each: the
example as the page runs it, with show_training (a picture every 5 steps).

    python benchmarks/bench_playground.py [--rounds 2] [--chromium /usr/bin/chromium]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import run as browser  # noqa: E402  (the browser test's server, flags and page conditions)

EXAMPLES = json.loads((ROOT / "website" / "playground" / "examples.json").read_text(encoding="utf-8"))
EXAMPLE = next(e for e in EXAMPLES if e.get("train"))["code"]
SHORT, LONG = 2, 12
GOAL = 1 / 3  # the browser's rate aimed for, as a fraction of CPython's


def timed_code(steps, pictures=False):
    """The example with `steps` steps, each one timed; with pictures, show_training stays in."""
    head, loop = EXAMPLE.split("for step in range(STEPS):\n")
    body = [line for line in loop.splitlines() if pictures or "show_training" not in line]
    head = "\n".join(
        f"STEPS = {steps}" if line.startswith("STEPS = ") else line for line in head.splitlines()
    )
    return (
        "import json, time\n" + head + "\ntimes = []\nfor step in range(STEPS):\n"
        "    wall, cpu = time.perf_counter(), time.process_time()\n"
        + "\n".join(body)
        + "\n    times.append([time.perf_counter() - wall, time.process_time() - cpu, loss.data])\n"
        "print(json.dumps(times))\n"
        'steps_timed = Value(len(times), label="steps timed")  # something for the page to draw\n'
    )


def chromium_cpu():
    """CPU seconds (user + system) of every Chromium process this script started."""
    total = 0.0
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name().lower():
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def in_browser(page, code):
    """Run code in the playground: (per-step [wall, cpu, loss] as Python saw them, CPU s, wall s)."""
    page.fill("#code", code)
    cpu, wall = chromium_cpu(), time.perf_counter()
    page.click("#run")
    page.wait_for_function(browser.PLAYGROUND_DONE, timeout=600_000)
    cpu, wall = chromium_cpu() - cpu, time.perf_counter() - wall
    if page.locator("#error").is_visible():
        sys.exit(f"the playground stopped at an error: {page.inner_text('#error')}")
    return json.loads(page.inner_text("#printed")), cpu, wall


def in_cpython(code):
    """Run code in a fresh CPython process: per-step [wall, cpu, loss]."""
    runner = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import runner;"
        "r = runner.run(sys.stdin.read()); print(r.get('error') or r['printed'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", runner, str(ROOT), str(ROOT / "website" / "playground")],
        input=code, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    if not (browser.SITE / "playground.html").exists():
        sys.exit("no build/html/playground.html: run website/build.py (make html) first")
    rows = {"browser": [], "browser pictures": [], "cpython": [], "cpython pictures": []}
    server, base = browser.serve_site()
    try:
        with sync_playwright() as pw:
            chromium = pw.chromium.launch(
                executable_path=args.chromium, headless=True, args=browser.CHROMIUM_FLAGS
            )
            page = chromium.new_page(viewport=browser.VIEWPORT)
            page.goto(base + "playground.html")
            page.wait_for_function(browser.PLAYGROUND_READY, timeout=180_000)
            for r in range(args.rounds):
                for pictures in (False, True):
                    name = "browser pictures" if pictures else "browser"
                    short = in_browser(page, timed_code(SHORT, pictures))
                    long = in_browser(page, timed_code(LONG, pictures))
                    steps = long[0][1:]  # the first step is the same in both runs: left out
                    cpu_per_step = (long[1] - short[1]) / (LONG - SHORT)
                    losses = [s[2] for s in long[0]]
                    rows[name].append(
                        {"wall": [s[0] for s in steps], "losses": losses, "cpu_per_step": cpu_per_step}
                    )
                    theirs = in_cpython(timed_code(LONG, pictures))
                    walls, cpus = [s[0] for s in theirs[1:]], [s[1] for s in theirs[1:]]
                    losses = [s[2] for s in theirs]
                    rows[name.replace("browser", "cpython")].append(
                        {"wall": walls, "cpu": cpus, "losses": losses}
                    )
                    print(f"round {r + 1}, {'with' if pictures else 'without'} pictures: done", flush=True)
            chromium.close()
    finally:
        server.shutdown()
    report(rows)


def report(rows):
    import platform

    agree = max(
        abs(a - b)
        for mine, theirs in zip(rows["browser"], rows["cpython"])
        for a, b in zip(mine["losses"], theirs["losses"])
    )
    print(f"\nCPython {platform.python_version()} against Pyodide in Chromium, {psutil.cpu_count()} cores;"
          f" {LONG} steps per run, the first left out; largest loss difference {agree:.1e}")  # fmt: skip
    print("steps per second: wall clock (all steps' total, and the median step) and CPU time (total)")
    print(f"{'':32}{'wall':>8}{'median':>8}{'CPU':>8}")
    rates = {}
    for name in rows:
        walls = [w for run in rows[name] for w in run["wall"]]
        wall, median = len(walls) / sum(walls), 1 / statistics.median(walls)
        if name.startswith("browser"):  # CPU seconds per step, from outside, one figure per round
            cpu = len(rows[name]) / sum(run["cpu_per_step"] for run in rows[name])
        else:
            cpus = [c for run in rows[name] for c in run["cpu"]]
            cpu = len(cpus) / sum(cpus)
        rates[name] = (wall, cpu)
        engine = "Chromium (Pyodide)" if name.startswith("browser") else "CPython"
        label = engine + (", with pictures" if name.endswith("pictures") else "")
        print(f"{label:32}{wall:8.2f}{median:8.2f}{cpu:8.2f}")
    wall_ratio = rates["browser"][0] / rates["cpython"][0]
    cpu_ratio = rates["browser"][1] / rates["cpython"][1]
    verdict = "met" if min(wall_ratio, cpu_ratio) >= GOAL else "MISSED"
    print(f"browser / CPython: {wall_ratio:.2f} (wall), {cpu_ratio:.2f} (CPU); goal >= {GOAL:.2f}: {verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
