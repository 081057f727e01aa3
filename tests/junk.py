"""Hypothesis strategies for answers a learner should never get a traceback for."""

import contextlib
import itertools
import math
import threading

from hints import Hostile
from hypothesis import strategies as st


def _raiser(error):
    def fn(*args, **kwargs):
        raise error

    return fn


ERRORS = st.sampled_from([ValueError("bad"), TypeError("type"), ZeroDivisionError("zero"), KeyError("k")])

# Values of every kind a half-finished cell might hold.
PLAIN = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.floats(-10, 10), max_size=4),
    st.tuples(st.integers(-20, 20), st.integers(-20, 20)),
    st.just(math.sin),
    st.just(object()),
)

# ... plus functions that return such values, or raise.
JUNK = st.one_of(
    PLAIN,
    PLAIN.map(lambda v: lambda *args, **kwargs: v),
    ERRORS.map(_raiser),
)


# Objects that break the usual ways a check looks at an answer (every hook of Hostile raises,
# and an endless iterator must not hang a check), plus functions returning them.
HOSTILE_VALUES = st.sampled_from([Hostile, itertools.count, lambda: itertools.repeat(1.0)]).map(
    lambda make: make()  # made fresh: hypothesis itself cannot hash or compare a Hostile
)
HOSTILE = st.one_of(HOSTILE_VALUES, HOSTILE_VALUES.map(lambda v: lambda *args, **kwargs: v))


@contextlib.contextmanager
def short_time_limit(seconds=0.5):
    """Checks give up after 0.5 s inside, so a test of the time limit stays quick."""
    from micrograd_lesson.exercises import _core

    saved, _core.TIME_LIMIT = _core.TIME_LIMIT, seconds
    try:
        yield
    finally:
        _core.TIME_LIMIT = saved


STOP = threading.Event()  # set when a test ends (tests/conftest.py): its endless answers end with it


def forever(*args, **kwargs):
    """An answer that never returns while its test runs: a check must give up on it.

    Where a check cannot interrupt it (outside the main thread) it abandons the thread it runs
    in; the loop then stops when its test ends, instead of holding the interpreter's lock against
    every later test in the same process."""
    while not STOP.is_set():
        pass
