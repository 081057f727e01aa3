"""Every chapter's exercises: each worked solution passes its check; each check refuses None politely.

A check returns a Verdict: truthy only when the answer is right, shown as
"correct" or "not yet: <a specific hint>". The lists below are read from the registry at import time, so a new
micrograd_lesson/exercises/chNN.py is covered as soon as it exists.
"""

import inspect

import pytest

import micrograd_lesson.exercises as exercises
from micrograd_lesson.exercises import SOLUTIONS, reveal
from micrograd_lesson.exercises._core import Verdict

NAMES = sorted(SOLUTIONS)
CHECKS = {f"{check.__module__}.{check.__name__}": check for _, check in SOLUTIONS.values()}
EXPORTED_CHECKS = {
    f"{obj.__module__}.{name}": obj
    for name, obj in vars(exercises).items()
    if name.startswith("check_") and callable(obj)
}


def test_the_registry_is_not_empty():
    assert NAMES, "no worked solutions are registered"


@pytest.mark.parametrize("name", NAMES)
def test_every_solution_passes_its_check(name):
    solution, check = SOLUTIONS[name]
    result = check(solution)
    assert isinstance(result, Verdict)
    assert bool(result) is True, repr(result)
    assert repr(result) == "correct"
    assert name.split(".")[0] == check.__module__.rsplit(".", 1)[-1]  # ch03.x is checked by ch03.py


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_every_check_refuses_none_with_a_hint(key):
    result = CHECKS[key](None)  # must not raise
    assert isinstance(result, Verdict)
    assert bool(result) is False
    assert repr(result).startswith("not yet: ") and result.hint.strip()


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_every_check_takes_exactly_one_argument(key):
    assert len(inspect.signature(CHECKS[key]).parameters) == 1


@pytest.mark.parametrize("key", sorted(EXPORTED_CHECKS))
def test_every_exported_check_has_a_worked_solution(key):
    assert key in CHECKS, (
        f"{key} is exported but no @solution is registered with it, so reveal() cannot show one"
    )


@pytest.mark.parametrize("name", NAMES)
def test_reveal_shows_the_solution_and_runs_its_check(name, capsys):
    result = reveal(name)
    assert bool(result) is True and repr(result) == "correct"
    assert capsys.readouterr().out  # the solution was shown (as HTML in Jupyter, printed elsewhere)


def test_reveal_of_an_unknown_name_lists_the_known_ones():
    with pytest.raises(KeyError, match=NAMES[0]):
        reveal("ch99.nothing")
