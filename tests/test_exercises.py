"""Every chapter's exercises: each worked solution passes its check; each check refuses None politely.

A check returns a Verdict: truthy only when the answer is right, shown as
"correct" or "not yet: <a specific hint>". The lists below are read from the registry at import
time, so a new micrograd_lesson/exercises/chNN.py is covered as soon as it exists. Here is the one
"never raises, never hangs" contract for every registered check.
"""

import inspect
import itertools
import re
import signal
import threading
import time
from pathlib import Path

import junk
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import micrograd_lesson.exercises as exercises
from micrograd_lesson.exercises import EXERCISES, SOLUTIONS, reveal
from micrograd_lesson.exercises._core import Verdict
from notebooks.chapters import numbered

NAMES = sorted(SOLUTIONS)
NOTEBOOK_SOURCES = Path(__file__).resolve().parent.parent / "notebooks" / "src"
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


JUNK = {"None": None, "int": 42, "str": "text", "returns None": lambda *args: None}


@pytest.mark.parametrize("junk", sorted(JUNK))
@pytest.mark.parametrize("key", sorted(CHECKS))
def test_every_check_refuses_junk_with_a_hint(key, junk):
    result = CHECKS[key](JUNK[junk])  # must not raise
    assert isinstance(result, Verdict)
    assert bool(result) is False
    assert repr(result).startswith("not yet: ") and result.hint.strip()


@pytest.mark.parametrize("name", NAMES)
def test_every_check_is_deterministic(name):
    solution, check = SOLUTIONS[name]
    assert [bool(check(solution)) for _ in range(2)] == [True, True]


def test_every_revealed_solution_exists_and_every_solution_is_revealed():
    sources = numbered(NOTEBOOK_SOURCES, ".py")
    revealed = {name for src in sources for name in re.findall(r'reveal\("([^"]+)"\)', src.read_text())}
    assert revealed - set(NAMES) == set(), "a notebook reveals a solution that is not registered"
    assert set(NAMES) - revealed == set(), "a registered solution is never revealed in a notebook"


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
    # It must not read as the learner's answer being accepted ("correct").
    assert bool(result) is True and repr(result) == "the worked solution above passes its own check"
    assert capsys.readouterr().out  # the solution was shown (as HTML in Jupyter, printed elsewhere)


def test_reveal_of_an_unknown_name_lists_the_known_ones():
    with pytest.raises(KeyError, match=NAMES[0]):
        reveal("ch99.nothing")


def _endless_generator(*args, **kwargs):
    yield from itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=st.one_of(junk.JUNK, junk.HOSTILE))
@pytest.mark.parametrize("key", sorted(EXPORTED_CHECKS))
def test_no_check_raises_or_hangs_whatever_it_is_given(key, answer):
    """Values of every kind, functions returning them or raising, objects whose every hook raises,
    endless iterators: a Verdict, never a traceback, and never a hang."""
    start = time.monotonic()
    with junk.short_time_limit():
        result = EXPORTED_CHECKS[key](answer)
    assert isinstance(result, Verdict) and isinstance(result.hint, str)
    assert result or result.hint.strip()  # a refusal always says why
    assert time.monotonic() - start < 5


@pytest.mark.parametrize(
    "answer", [junk.forever, _endless_generator, _endless_generator()], ids=["loop", "gen", "it"]
)
@pytest.mark.parametrize("key", sorted(EXPORTED_CHECKS))
def test_every_check_gives_up_on_an_endless_answer(key, answer):
    start = time.monotonic()
    with junk.short_time_limit():
        result = EXPORTED_CHECKS[key](answer)
    assert isinstance(result, Verdict) and not result and result.hint
    assert time.monotonic() - start < 3


def _builds_an_endless_list(*args):
    """An endless comprehension: freeing what it built outlasts the timer's 0.05 s re-ring."""
    return [0 for _ in iter(int, 1)]


def test_a_timed_out_check_leaves_no_timer_behind_and_the_next_check_has_its_own_limit():
    previous = signal.getsignal(signal.SIGALRM)
    with junk.short_time_limit(seconds=1.0):  # a list long enough to take over 0.05 s to free
        for _ in range(2):
            assert "gave up" in exercises.check_scalers([_builds_an_endless_list] * 3).hint
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # nothing left to ring later
            assert signal.getsignal(signal.SIGALRM) is previous
        slow_but_right = [lambda x, n=n: (time.sleep(0.05), n * x)[1] for n in (1, 2, 3)]
        assert exercises.check_scalers(slow_but_right)  # not taken for an outer check's leftover timer
    time.sleep(0.2)  # a stray ring would raise here


def test_a_check_outside_the_main_thread_still_gives_up():
    """Where no SIGALRM timer can be set, the check runs in a thread it abandons when time is up."""
    box = []
    worker = threading.Thread(target=lambda: box.append(exercises.check_max(lambda a, b: junk.forever())))
    with junk.short_time_limit():
        worker.start()
        worker.join(5)
    assert box and not box[0] and "gave up" in box[0].hint


def test_every_check_records_the_last_answer_and_reveal_does_not():
    for name, ex in EXERCISES.items():
        answer = object()
        ex.check(answer)
        assert ex.last_answer is answer, name
        if name in SOLUTIONS:
            reveal(name)
            assert ex.last_answer is answer, f"reveal({name!r}) recorded the solution as the answer"


def test_the_package_exports_exactly_the_registered_checks():
    registered = {ex.check.__name__ for ex in EXERCISES.values()}
    assert registered == {n for n in exercises.__all__ if n.startswith("check_")}
    assert len(registered) == len(EXERCISES), "two exercises export a check under the same name"
