"""Every verdict in the prose has a claims test, and every claims test has its verdict in the prose.

IDs pair both ways, each ID names its chapter (`ch07-...` lives in 07_*.py), and every
chapter from 1 to 13 has registered the verdicts it makes.
"""

import ast
from pathlib import Path

import pytest
from claimlib import SOURCES, prose_claims

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
