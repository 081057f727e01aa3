"""Chapter 0 exercise checks: plausible wrong answers get False and a specific hint."""

import pytest
from hints import hint_of

from micrograd_lesson.exercises import check_dot, check_make_scaler, check_num_class


class NoAdd:
    def __init__(self, value):
        self.value = value


class AddOnly:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        other = other if isinstance(other, AddOnly) else AddOnly(other)
        return AddOnly(self.value + other.value)


class NoWrap:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        return NoWrap(self.value + other.value)

    def __radd__(self, other):
        return self + other


class ReturnsInt:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        return self.value + getattr(other, "value", other)

    __radd__ = __add__


@pytest.mark.parametrize(
    "cls, words",
    [
        (NoAdd, "__add__"),
        (AddOnly, "__radd__"),
        (NoWrap, "isinstance"),
        (ReturnsInt, "should return a Num"),
        (NoAdd(1), "class itself"),
    ],
)
def test_num_class_rejects(cls, words):
    assert words in hint_of(check_num_class, cls)


def test_num_class_hint_speaks_of_a_class():
    assert "your function" not in hint_of(check_num_class, NoAdd)


_shared = {}


def leaky_scaler(n):
    _shared["n"] = n  # every scaler reads the latest n: no closure
    return lambda x: _shared["n"] * x


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda n: None, "should return a function"),
        (lambda n: n * 5, "should return a function"),
        (leaky_scaler, "keep n in the closure"),
        (lambda n: lambda x: n + x, "expected 10"),
        (3, "function itself"),
    ],
)
def test_make_scaler_rejects(fn, words):
    assert words in hint_of(check_make_scaler, fn)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda ws, xs: 0.0, "expected 32.0"),
        (lambda ws, xs: [w * x for w, x in zip(ws, xs)], "expected 32.0"),
        (lambda ws, xs: sum(ws) * sum(xs), "expected 32.0"),
        (lambda ws, xs: sum(w * x for w, x in zip(ws, xs)) * len(ws) / len(xs), "ZeroDivisionError"),
        (None, "function itself"),
    ],
)
def test_dot_rejects(fn, words):
    assert words in hint_of(check_dot, fn)
