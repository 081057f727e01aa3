"""Every verdict in the prose has a claims test, and every claims test has its verdict in the prose.

IDs pair both ways, each ID names its chapter (`ch07-...` lives in 07_*.py), and every
chapter from 1 to 13 has registered the verdicts it makes. The held-out draws never meet a
seed a notebook shows.
"""

import ast
import math
import re
from pathlib import Path

import pytest
from claimlib import (
    HELD_OUT_FROM,
    SOURCES,
    bound_power,
    claims_block,
    fraction_test,
    held_out_seeds,
    least_count,
    median_power,
    power,
    prose_claims,
    range_power,
)

from notebooks.chapters import numbered

HERE = Path(__file__).resolve().parent
CHAPTERS_WITH_VERDICTS = [f"{n:02d}" for n in range(1, 14)]


def claims_with_tests():
    """{claim ID: [test names]} from the `@claim("...")` decorators of the tests in tests/claims/.

    Read from the source (not imported), so listing them runs no experiment.
    """
    found = {}
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
                continue
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "claim" and deco.args:
                    found.setdefault(ast.literal_eval(deco.args[0]), []).append(f"{path.name}::{node.name}")
    return found


PROSE = prose_claims()
TESTS = claims_with_tests()


def test_every_claim_in_the_prose_has_a_test():
    missing = sorted(set(PROSE) - set(TESTS))
    assert not missing, f"claims with no test in tests/claims/: {missing}"


def test_every_claims_test_has_its_claim_in_the_prose():
    orphans = sorted(set(TESTS) - set(PROSE))
    assert not orphans, f"tests for claims that no chapter makes: {orphans}"


def test_each_claim_has_exactly_one_test():
    doubled = {k: v for k, v in TESTS.items() if len(v) > 1}
    assert not doubled, f"claims tested more than once: {doubled}"


def test_each_claim_id_names_its_chapter():
    wrong = {k: v for k, v in PROSE.items() if any(not src.startswith(k[2:4] + "_") for src in v)}
    assert not wrong, f"claim IDs must start with chNN- for the chapter they are in: {wrong}"
    assert all(k.startswith("ch") and k[2:4].isdigit() and k[4] == "-" for k in PROSE), sorted(PROSE)


@pytest.mark.parametrize("chapter", CHAPTERS_WITH_VERDICTS)
def test_every_chapter_registers_its_verdicts(chapter):
    assert any(src.startswith(chapter + "_") for srcs in PROSE.values() for src in srcs), (
        f"chapter {chapter} ({sorted(SOURCES.glob(chapter + '_*.py'))[0].name}) has no claim IDs"
    )


# A seed in a chapter's code: random.seed(7), default_rng(7), seed=7, make_moons(200, 0.1, 7) is not
# matched (a positional seed), so chapters name their seeds (seed=7) when they pass them on.
SHOWN_SEED = re.compile(r"(?:\bseed\s*[=(]\s*|default_rng\(\s*|manual_seed\(\s*|Random\(\s*)(\d[\d_]*)")


def test_no_notebook_shows_a_seed_a_held_out_block_can_draw():
    shown = {}
    for src in numbered(SOURCES, ".py"):
        for number in SHOWN_SEED.findall(src.read_text()):
            shown.setdefault(int(number), src.name)
    assert shown, "no seed found in the chapters: has the pattern stopped matching?"
    too_big = {seed: name for seed, name in shown.items() if seed >= HELD_OUT_FROM}
    assert not too_big, f"seeds at or above {HELD_OUT_FROM:,} are for held-out draws only: {too_big}"


def test_each_block_is_its_own_draw_of_the_same_size_above_every_shown_seed(monkeypatch):
    blocks = {}
    for value in ("", "1", "271828", "1000000"):
        monkeypatch.setenv("CLAIMS_SEED", value)
        seeds = held_out_seeds(25, "ch99-example")
        assert len(set(seeds)) == 25 and min(seeds) >= HELD_OUT_FROM
        assert seeds == held_out_seeds(25, "ch99-example"), "the same block must give the same draws"
        assert seeds != held_out_seeds(25, "ch99-other"), "two experiments must not share their draws"
        blocks[value] = seeds
    assert len({tuple(s) for s in blocks.values()}) == len(blocks), "two blocks gave the same draws"


@pytest.mark.parametrize("value", ["0", "1000001", "-3", "seven", "1.5"])
def test_a_claims_seed_out_of_range_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv("CLAIMS_SEED", value)
    with pytest.raises(ValueError, match="CLAIMS_SEED must be a whole number from 1 to 1,000,000"):
        claims_block()


def test_least_count_is_the_binomial_floor_at_the_stated_risk():
    assert least_count(1.0, 20) == 20  # "every draw" tolerates no miss
    assert least_count(0.97, 5000) > 4800  # thousands of draws: no overflow
    for rate, n in ((0.9, 20), (0.5, 40), (0.97, 100)):
        k = least_count(rate, n, risk=1e-3)
        below = sum(math.comb(n, i) * rate**i * (1 - rate) ** (n - i) for i in range(k))
        below_next = below + math.comb(n, k) * rate**k * (1 - rate) ** (n - k)
        assert below <= 1e-3 < below_next, (rate, n, k, below, below_next)


def test_power_is_the_chance_a_count_test_fails():
    for n, k, rate in ((30, 24, 0.7), (16, 16, 0.9), (200, 150, 0.8)):
        fails = sum(math.comb(n, i) * rate**i * (1 - rate) ** (n - i) for i in range(k))
        assert math.isclose(power(n, k, rate), fails, rel_tol=1e-9), (n, k, rate)
    assert power(16, 16, 0.9) == pytest.approx(1 - 0.9**16)  # "every draw": one miss fails it


def test_a_fraction_test_too_weak_to_catch_an_overstatement_is_refused():
    with pytest.raises(ValueError, match="too few to test a rate of 0.8"):
        fraction_test(0.8, 30)  # 30 draws cannot tell 80 % from 70 %
    strong = fraction_test(0.8, 30, says=0.5)  # "most", measured at 80 %: caught if the truth is 40 %
    assert strong.power >= 0.8 and strong.k == least_count(0.8, 30)
    assert fraction_test(1.0, 16).power >= 0.8  # "every": 16 draws catch a 90 % truth
    with pytest.raises(ValueError, match="too few"):
        fraction_test(1.0, 15)
    with pytest.raises(ValueError, match="more than the rate"):
        fraction_test(0.6, 100, says=0.8)


def test_a_fraction_test_passes_a_true_rate_and_fails_an_overstated_one_as_often_as_it_says():
    import random

    test = fraction_test(0.9, 200)
    draws = random.Random(5).random
    passes = sum(sum(draws() < 0.9 for _ in range(200)) >= test.k for _ in range(2000))
    caught = sum(sum(draws() < 0.8 for _ in range(200)) < test.k for _ in range(2000))
    assert passes >= 1990, passes  # 0.999 expected
    assert abs(caught / 2000 - test.power) < 0.03, (caught, test.power)


def test_range_and_median_power_see_a_range_too_wide_to_catch_anything():
    tight = [1.0, 1.05, 0.95, 1.1, 0.9] * 4
    assert range_power(tight, 0.8, 1.25) == 1.0  # every value leaves the range when 1.5x off
    assert range_power(tight, 0.1, 10) == 0.0  # a range 100x wide passes whatever the truth
    assert median_power(tight, 0.8, 1.25) > 0.99
    assert median_power(tight, 0.1, 10) < 0.01


def test_bound_power_sees_whether_draws_1_5_times_nearer_the_bound_would_cross_it():
    spread = [1.0, 1.05, 0.95, 1.1, 0.9] * 4  # a median 1.5x lower leaves them all below 1/1.5 * 1.1
    assert bound_power([100 * v for v in spread], 50) == 1.0  # rescaled to a median of 33: all fail
    assert bound_power(spread, 10, above=False) == 1.0  # rescaled to a median of 15: all above 10
    # two draws a million times apart: rescaled, one still clears 1, so both clear it 1 time in 4
    assert math.isclose(bound_power([1.0, 1e6], 1.0), 0.75)
