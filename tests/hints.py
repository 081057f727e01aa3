"""Reading a check's verdict in tests: the hint a wrong answer gets."""


def hint_of(check, answer):
    """The hint a wrong answer gets; fails the test if the answer passes or gets no hint."""
    from micrograd_lesson.exercises import Verdict

    result = check(answer)  # must not raise
    assert isinstance(result, Verdict)
    assert not result, f"a wrong answer passed: {answer!r}"
    assert repr(result).startswith("not yet: ") and result.hint.strip()
    return f"not yet: {result.hint}"  # as shown, but not wrapped into lines (a phrase stays whole)


def failed_with(result, *words):
    """The check said "not yet", and its hint mentions each of `words`."""
    hint = f"not yet: {getattr(result, 'hint', '')}"  # as shown, not wrapped into lines
    return (not result) and repr(result).startswith("not yet:") and all(w in hint for w in words)


class Hostile:
    """An object every one of whose hooks raises: a check must still answer with a hint."""

    def __repr__(self):
        raise RuntimeError("repr")

    def __float__(self):
        raise RuntimeError("float")

    def __eq__(self, other):
        raise RuntimeError("eq")

    def __hash__(self):
        raise RuntimeError("hash")

    def __iter__(self):
        raise RuntimeError("iter")

    def __getattr__(self, name):
        raise RuntimeError("getattr")


class HostileDict(dict):
    """A dict whose lookups raise: a check reading a dict of answers must still answer with a hint."""

    def __contains__(self, key):
        raise RuntimeError("contains")

    def __getitem__(self, key):
        raise RuntimeError("getitem")


def hostile_value():
    """A package Value whose data raises when read, as a learner's odd subclass might."""
    from micrograd_lesson import Value

    class HostileValue(Value):
        __slots__ = ()

        @property
        def data(self):
            raise RuntimeError("data")

        @data.setter
        def data(self, value):
            pass

    return HostileValue(1.0)
