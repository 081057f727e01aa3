"""Hypothesis strategies for answers a learner should never get a traceback for."""

import itertools
import math

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


class _BrokenRepr:
    def __repr__(self):
        raise RuntimeError("repr")


class _RaisingAttributes:
    """Every attribute a check might read (value, data, _prev, _op, ...) raises."""

    def __getattr__(self, name):
        raise ValueError(f"reading {name}")


class _RaisingIter:
    def __iter__(self):
        raise ValueError("iter")


# Objects that break the usual ways a check looks at an answer: repr, attribute reads,
# iteration (including iterators that never end), plus functions returning them.
HOSTILE_VALUES = st.sampled_from(
    [_BrokenRepr(), _RaisingAttributes(), _RaisingIter(), itertools.count(), itertools.repeat(1.0)]
)
HOSTILE = st.one_of(HOSTILE_VALUES, HOSTILE_VALUES.map(lambda v: lambda *args, **kwargs: v))
