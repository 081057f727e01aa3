"""What the claims tests share: the claim IDs in the chapters' prose, the chapters' own code,
and the held-out draws every verdict is re-run on.

A verdict in a chapter (X beats Y, X causes Y, a number is typical) carries an ID in its
Markdown, `<!-- claim: ch10-banana-tie -->`, invisible when rendered. Each ID has one test
in tests/claims/, marked `@claim("ch10-banana-tie")`, that re-runs the experiment behind
the verdict across seeds, data draws or a refined grid and asserts it as the prose states it.

So that a test re-runs the chapter's own experiment rather than a copy of it, a chapter
can tag the cells that define its experiment (`# %% tags=["claim-setup"]`), and
`chapter_namespace("10", "claim-setup")` runs just those cells, in order, and returns
their names.

Held-out draws. A test never re-runs the seeds a notebook shows or the seeds its prose was
measured on: it takes its seeds from `held_out_seeds(n, "ch08-three-phases")`, a block
chosen by the environment variable CLAIMS_SEED. Unset, that is the committed default block;
any whole number from 1 to 1,000,000 picks another block of the same size:

    CLAIMS_SEED=271828 pytest tests/claims

Every held-out seed is at least HELD_OUT_FROM (1,000,000). Seeds a notebook shows, and the
draws the prose's margins were measured on, stay below it (tests/claims/test_inventory.py
checks the notebooks), so no block can contain them. A verdict that holds on most draws
but not all is tested as a fraction: `least_count(rate, n)` is how many of n draws must
agree when the true rate is `rate`, so that a fresh block fails only by a 1-in-1000 fluke.

Power. A test that passes whatever the truth is proves nothing, so every fraction or range test
must also catch an overstatement: fail with probability at least POWER (0.8) when the truth is
OVERSTATED_BY (10 points) lower than a fraction the sentence gives, or RATIO_OFF (1.5) times off
a number or range it gives. `fraction_test(rate, n)` gives the count to assert and its power, and
refuses (ValueError) a number of draws too small for that; `range_power(values, ...)` estimates
the power of a range test from the draws themselves. Each test's docstring states its power.
"""

import math
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from notebooks.chapters import numbered
from notebooks.chapters import source as chapter_source

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "notebooks" / "src"
CLAIM_ID = re.compile(r"<!--\s*claim:\s*([a-z0-9][a-z0-9.-]*)\s*-->")
HELD_OUT_FROM = 1_000_000  # every seed shown or written from is below this; every held-out one above
_SEED_RANGE = range(HELD_OUT_FROM, 2**31)  # 2**31: a seed any generator (random, NumPy, torch) takes


def claim(claim_id):
    """Mark a test as the one that re-runs the verdict `claim_id`."""
    return pytest.mark.claim(claim_id)


def claims_block():
    """The block of held-out draws in use: CLAIMS_SEED (1 .. 1,000,000), or 0 when it is unset."""
    raw = os.environ.get("CLAIMS_SEED", "").strip()
    if not raw:
        return 0
    try:
        block = int(raw)
    except ValueError:
        raise ValueError(f"CLAIMS_SEED must be a whole number from 1 to 1,000,000; got {raw!r}") from None
    if not 1 <= block <= 1_000_000:
        raise ValueError(f"CLAIMS_SEED must be a whole number from 1 to 1,000,000; got {block}")
    return block


def held_out_seeds(n, purpose):
    """`n` distinct seeds for the experiment `purpose` (its claim ID), from the CLAIMS_SEED block.

    The same block and purpose give the same seeds on every machine and Python; two purposes get
    unrelated seeds. Every seed is at least HELD_OUT_FROM, so none is a seed a notebook shows.
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number >= 1, got {n!r}")
    return random.Random(f"{claims_block()}/{purpose}").sample(_SEED_RANGE, n)


def least_count(rate, n, risk=1e-3):
    """The fewest of `n` draws that must agree for a verdict true on a fraction `rate` of all draws.

    The largest k with P(X < k) <= risk for X ~ Binomial(n, rate): asserting `count >= k` fails on
    a fresh block only with probability `risk` when the rate is what the prose says.
    """
    if not 0 < rate <= 1:
        raise ValueError(f"rate must be in (0, 1], got {rate!r}")
    below = 0.0  # P(X < k), as k goes up
    for k in range(n + 1):
        p_k = _binomial(n, k, rate)
        if below + p_k > risk:
            return k
        below += p_k
    return n


OVERSTATED_BY = 0.10  # a fraction this much lower than the sentence says must be caught ...
RATIO_OFF = 1.5  # ... and so must a number or range this many times off
POWER = 0.8  # ... with at least this probability


def power(n, k, rate):
    """The chance that the test `count >= k` fails on n draws when the true rate is `rate`:
    P(X < k) for X ~ Binomial(n, rate)."""
    if not 0 <= rate <= 1:
        raise ValueError(f"rate must be in [0, 1], got {rate!r}")
    if rate == 0:
        return float(k > 0)
    return min(1.0, sum(_binomial(n, i, rate) for i in range(k)))


class FractionTest:
    """`count >= k` on n draws, for a verdict true on a fraction `rate` of draws: it passes with
    probability at least 0.999 when that is so, and fails with probability `power` when the truth
    is OVERSTATED_BY lower than what the sentence `says` (`rate` itself, unless the sentence says
    less: "most" is 0.5 where the folded note measured 0.8)."""

    def __init__(self, rate, n, says=None):
        self.rate, self.n, self.says = rate, n, rate if says is None else says
        if self.says > rate:
            raise ValueError(f"the sentence says {self.says:.3g}, more than the rate {rate:.3g} tested")
        self.k = least_count(rate, n)
        self.against = max(0.0, self.says - OVERSTATED_BY)
        self.power = power(n, self.k, self.against)

    def __repr__(self):
        return (
            f"at least {self.k} of {self.n} for {self.rate:.3g}; "
            f"power {self.power:.2f} against {self.against:.3g}"
        )

    def check(self, count, what="draws"):
        """Assert the count, with a message that says what was asked."""
        assert count >= self.k, f"{count} of {self.n} {what}; the sentence needs {self!r}"


def fraction_test(rate, n, says=None):
    """The test of a verdict true on a fraction `rate` of draws (the sentence says `says`, by
    default `rate`) on n draws; ValueError if n draws cannot catch an overstatement of
    OVERSTATED_BY with probability POWER (`fewest_draws` says how many can)."""
    test = FractionTest(rate, n, says)
    if test.power < POWER:
        raise ValueError(
            f"{n} draws are too few to test a rate of {rate:.3g}: {test!r} (need at least "
            f"{fewest_draws(rate, says)} draws, or a humbler sentence)"
        )
    return test


def fewest_draws(rate, says=None, most=5000):
    """The smallest n for which `fraction_test(rate, n, says)` has power at least POWER."""
    for n in range(1, most + 1):
        if FractionTest(rate, n, says).power >= POWER:
            return n
    raise ValueError(f"no n up to {most} tests a rate of {rate:.3g} with power {POWER}")


def range_power(values, low=-math.inf, high=math.inf, k=None, off=RATIO_OFF):
    """The power of the test "at least k of these n values lie in [low, high]" (k = n by default)
    against a truth `off` times larger or smaller, estimated from the values themselves: each is
    multiplied (then divided) by `off`, the fraction that then lands in the range is the per-draw
    rate, and the power is the smaller of the two chances that fewer than k land there."""
    values = [float(v) for v in values]
    n = len(values)
    k = n if k is None else k
    powers = []
    for factor in (off, 1 / off):
        inside = sum(low <= v * factor <= high for v in values) / n
        powers.append(power(n, k, inside))
    return min(powers)


def median_power(values, low=-math.inf, high=math.inf, off=RATIO_OFF):
    """The power of the test "the median of these n values lies in [low, high]" against a truth
    `off` times larger or smaller, from the values themselves: the median of n draws is at most
    `high` exactly when at least half of them are, a binomial count."""
    values = [float(v) for v in values]
    n, half = len(values), len(values) // 2 + 1
    powers = []
    for factor in (off, 1 / off):
        below_high = sum(v * factor <= high for v in values) / n
        above_low = sum(v * factor >= low for v in values) / n
        fails = power(n, half, below_high) + power(n, half, above_low)
        powers.append(min(1.0, fails))
    return min(powers)


def bound_power(values, bound, above=True, n=None):
    """The power of "all n draws clear `bound`" (above it, or below it if not `above`) against a
    truth RATIO_OFF times past the bound: the draws rescaled so that their median is bound / 1.5
    (bound * 1.5 for a bound from above), and `range_power` of the rescaled draws."""
    values = [float(v) for v in values]
    target = bound / RATIO_OFF if above else bound * RATIO_OFF
    rescaled = [v * target / statistics.median(values) for v in values]
    low, high = (bound, math.inf) if above else (-math.inf, bound)
    return range_power(rescaled, low, high, k=n, off=1.0)


def _binomial(n, k, rate):
    """P(X = k) for X ~ Binomial(n, rate), in logarithms so that n in the thousands cannot overflow."""
    if rate == 1:
        return float(k == n)
    log_p = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.exp(log_p + k * math.log(rate) + (n - k) * math.log1p(-rate))


def prose_claims():
    """{claim ID: [chapter source names it appears in]} over every chapter's Markdown."""
    found = {}
    for src in numbered(SOURCES, ".py"):
        nb = jupytext.read(src, fmt="py:percent")
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                for claim_id in CLAIM_ID.findall(cell.source):
                    found.setdefault(claim_id, []).append(src.name)
    return found


def tagged_cells(prefix, tag):
    """The sources of chapter `prefix`'s code cells tagged `tag`, in order, without magics."""
    src = chapter_source(prefix)
    nb = jupytext.read(src, fmt="py:percent")
    cells = [c for c in nb.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]
    if not cells:
        raise LookupError(f"{src.name} has no code cell tagged {tag!r}")
    magic = ("%", "!")  # %matplotlib, !pip: lines plain Python cannot run
    return ["\n".join(x for x in c.source.splitlines() if not x.lstrip().startswith(magic)) for c in cells]


def chapter_namespace(prefix, tag="claim-setup"):
    """Run the cells of chapter `prefix` tagged `tag`, in order, and return their globals."""
    namespace = {"__name__": f"chapter_{prefix}"}
    for i, code in enumerate(tagged_cells(prefix, tag)):
        exec(compile(code, f"{chapter_source(prefix).name}[{tag} cell {i + 1}]", "exec"), namespace)
    return namespace


def in_fresh_interpreter(script, *args, env=None):
    """The lines `script` prints, run by this Python in a new process, with this folder as
    sys.argv[1] (so that it can import claimlib) and `args` after it: for a verdict about what a
    fresh kernel does, which a test process holding other tests' objects would not show."""
    done = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).resolve().parent), *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()
