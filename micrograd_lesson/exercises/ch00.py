"""Chapter 0 exercises: the Python the course leans on."""

import math

from ._core import attempt, solution, verdict

__all__ = ["check_num_class", "check_make_scaler", "check_dot"]


def _value_of(x):
    return getattr(x, "value", x)


def check_num_class(Num):
    """Num(v) keeps v in .value and supports Num + Num, Num + 2, 2 + Num and sum([...])."""
    if not isinstance(Num, type):
        return verdict(False, "pass the class itself, e.g. check_num_class(Num)")
    cases = [
        ("Num(2) + Num(3)", lambda: Num(2) + Num(3), 5),
        ("Num(2) + 1", lambda: Num(2) + 1, 3),
        ("1 + Num(2)", lambda: 1 + Num(2), 3),
        ("sum([Num(1), Num(2), Num(3)])", lambda: sum([Num(1), Num(2), Num(3)]), 6),
    ]
    for text, run, expected in cases:
        result, error = attempt(run)
        if error:
            error = error.replace("your function raised", "it raised")  # a class, not a function
            if text == "Num(2) + Num(3)":
                error += " (Python calls Num(2).__add__(Num(3)): is __add__ defined?)"
            elif text.startswith("1 +") or text.startswith("sum"):
                error += " (Python tries int.__add__ first, then your __radd__: is it defined?)"
            elif text == "Num(2) + 1":
                error += " (wrap a plain number in Num with isinstance before adding)"
            return verdict(False, f"{text} failed: {error}")
        if not hasattr(result, "value"):
            return verdict(False, f"{text} should return a Num (with .value), got {type(result).__name__}")
        if _value_of(result) != expected:
            return verdict(False, f"{text} gave .value {_value_of(result)!r}, expected {expected}")
    return verdict(True)


@solution("ch00.num_class", check=check_num_class)
class Num:
    def __init__(self, value):
        self.value = value

    def __add__(self, other):
        other = other if isinstance(other, Num) else Num(other)
        return Num(self.value + other.value)

    def __radd__(self, other):  # other + self, when other does not know how
        return self + other

    def __repr__(self):
        return f"Num({self.value})"


def check_make_scaler(make_scaler):
    """make_scaler(n) returns a function f with f(x) == n * x, remembering n."""
    if not callable(make_scaler):
        return verdict(False, "pass your make_scaler function itself")
    double, error = attempt(make_scaler, 2)
    if error:
        return verdict(False, f"make_scaler(2) failed: {error}")
    if not callable(double):
        return verdict(False, f"make_scaler(2) should return a function, got {type(double).__name__}")
    triple, _ = attempt(make_scaler, 3)
    for f, n in ((double, 2), (triple, 3)):
        out, error = attempt(f, 5)
        if error:
            return verdict(False, f"make_scaler({n})(5) failed: {error}")
        if n == 2 and out == 15:
            return verdict(False, "make_scaler(2) triples once make_scaler(3) exists: keep n in the closure")
        if out != n * 5:
            return verdict(False, f"make_scaler({n})(5) gave {out!r}, expected {n * 5}")
    return verdict(True)


@solution("ch00.make_scaler", check=check_make_scaler)
def make_scaler(n):
    def scale(x):
        return n * x  # n is remembered from make_scaler's call

    return scale


def check_dot(dot):
    """dot(ws, xs) returns the sum of w * x over matching pairs."""
    if not callable(dot):
        return verdict(False, "pass your dot function itself")
    cases = [([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), ([0.5, -1.0], [2.0, 3.0]), ([], [])]
    for ws, xs in cases:
        out, error = attempt(dot, ws, xs)
        if error:
            return verdict(False, f"dot({ws}, {xs}) failed: {error}")
        expected = sum(w * x for w, x in zip(ws, xs))
        if not isinstance(out, (int, float)) or not math.isclose(out, expected, abs_tol=1e-12):
            return verdict(False, f"dot({ws}, {xs}) gave {out!r}, expected {expected}")
    return verdict(True)


@solution("ch00.dot", check=check_dot)
def dot(ws, xs):
    return sum(w * x for w, x in zip(ws, xs))
