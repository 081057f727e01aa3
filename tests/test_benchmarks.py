"""The benchmark scripts' own behaviour (their figures are `make bench`'s, never a test's)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_baseline_bench_names_a_commit_it_cannot_find():
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_baseline.py"), "no-such-commit"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode != 0
    assert "cannot take the package at 'no-such-commit' from git" in run.stderr
    assert "Traceback" not in run.stderr
