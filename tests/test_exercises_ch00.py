"""Chapter 0 exercise checks: every right answer passes, wrong ones get a hint naming the mistake."""

import pytest
from hints import hint_of
from hypothesis import assume, given
from hypothesis import strategies as st

from micrograd_lesson.exercises import check_rsub, check_scalers, check_zip_prediction
from micrograd_lesson.exercises.ch00 import Num, fixed_scalers, predict_short_neuron


def test_worked_solutions_pass():
    assert check_rsub(Num)
    assert check_scalers(fixed_scalers) and check_scalers(fixed_scalers())
    assert check_zip_prediction(predict_short_neuron) and check_zip_prediction(predict_short_neuron())


# ---- 0.1 reflected subtraction ---------------------------------------------------------------------


def num_class(sub, rsub, wrap=True):
    """A Num-like class whose __sub__ and __rsub__ compute sub(a, b) and rsub(a, b) on the values.

    rsub=None leaves __rsub__ out.
    """

    def as_num(cls, other):
        if isinstance(other, cls) or not wrap:
            return other
        return cls(other)

    def __init__(self, value):
        self.value = value

    def __sub__(self, other):
        return type(self)(sub(self.value, as_num(type(self), other).value))

    def __rsub__(self, other):
        return type(self)(rsub(self.value, as_num(type(self), other).value))

    methods = {"__init__": __init__, "__sub__": __sub__, "__rsub__": __rsub__}
    if rsub is None:
        del methods["__rsub__"]
    return type("Attempt", (), methods)


def test_rsub_accepts_other_correct_classes():
    assert check_rsub(num_class(lambda a, b: a - b, lambda a, b: b - a))
    assert check_rsub(num_class(lambda a, b: a + -b, lambda a, b: -a + b))


FORMULAS = [
    lambda a, b: a - b,
    lambda a, b: b - a,
    lambda a, b: a + b,
    lambda a, b: abs(a - b),
    lambda a, b: -(a + b),
    lambda a, b: a * b,
]


@given(sub=st.integers(0, len(FORMULAS) - 1), rsub=st.integers(0, len(FORMULAS) - 1))
def test_rsub_rejects_every_wrong_pair_of_formulas(sub, rsub):
    assume((sub, rsub) != (0, 1))
    assert not check_rsub(num_class(FORMULAS[sub], FORMULAS[rsub]))


def test_rsub_hints():
    swapped = num_class(lambda a, b: a - b, lambda a, b: a - b)  # the stub's bug: __rsub__ = __sub__
    assert "operands are swapped" in hint_of(check_rsub, swapped)
    assert "__rsub__(10) if it exists" in hint_of(check_rsub, num_class(lambda a, b: a - b, None))
    assert "isinstance" in hint_of(check_rsub, num_class(lambda a, b: a - b, lambda a, b: b - a, wrap=False))
    assert "Num(v) should keep v" in hint_of(check_rsub, type("Empty", (), {}))
    no_sub = type("NoSub", (), {"__init__": lambda self, v: setattr(self, "value", v)})
    assert "__sub__ defined" in hint_of(check_rsub, no_sub)
    assert "with a number in .value" in hint_of(check_rsub, int)
    assert "class itself" in hint_of(check_rsub, Num(3))
    raising_rsub = num_class(lambda a, b: a - b, lambda a, b: 1 / 0)  # defined, but it fails
    assert "ZeroDivisionError" in hint_of(check_rsub, raising_rsub)


def test_rsub_rejects_a_subtraction_that_changes_its_operand():
    class InPlace(num_class(lambda a, b: a - b, None)):
        def __rsub__(self, other):  # right answer, but Num(3) itself becomes Num(7)
            self.value = other - self.value
            return self

    assert "changed its operand Num(3)" in hint_of(check_rsub, InPlace)


def test_rsub_never_raises_when_value_cannot_be_read():
    class NoValue:
        def __init__(self, value):
            pass

        def __sub__(self, other):
            return self

        __rsub__ = __sub__

        @property
        def value(self):
            raise ValueError("no value")

    assert "number in .value" in hint_of(check_rsub, NoValue)


# ---- 0.2 closures made in a loop ---------------------------------------------------------------------


def test_scalers_accepts_every_fix():
    assert check_scalers([lambda x, n=n: n * x for n in (1, 2, 3)])
    assert check_scalers((lambda x: x, lambda x: 2 * x, lambda x: x + x + x))
    assert check_scalers(lambda: [lambda x, n=n: x * n for n in range(1, 4)])


@given(ks=st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3))
def test_scalers_rejects_any_other_multipliers(ks):
    assume(ks != [1.0, 2.0, 3.0])
    assert not check_scalers([lambda x, k=k: k * x for k in ks])


@given(offset=st.floats(-5, 5, allow_nan=False).filter(lambda v: abs(v) > 1e-3))
def test_scalers_rejects_functions_that_are_right_only_at_ten(offset):
    assert not check_scalers([lambda x, n=n: n * 10 + offset * (x - 10) for n in (1, 2, 3)])


def test_scalers_hints():
    late = [lambda x: n * x for n in (1, 2, 3)]  # noqa: B023 - the bug the exercise is about
    assert "CALLED" in hint_of(check_scalers, late)
    assert "three functions" in hint_of(check_scalers, [lambda x: x, lambda x: 2 * x])
    assert "three functions, one per n" in hint_of(check_scalers, [1, 2, 3])
    assert "scalers[1](10) gave 25" in hint_of(check_scalers, [lambda x: x, lambda x: 25, lambda x: 3 * x])
    assert "ZeroDivisionError" in hint_of(check_scalers, [lambda x: x / 0] * 3)
    assert "list of three functions" in hint_of(check_scalers, lambda x: 2 * x)  # one scaler, not the list


# ---- 0.3 predict what zip does ------------------------------------------------------------------------


@given(value=st.floats(-100, 100, allow_nan=False))
def test_zip_prediction_rejects_every_other_number(value):
    assume(abs(value - predict_short_neuron()) > 1e-6)
    assert not check_zip_prediction(value)


@pytest.mark.parametrize(
    "answer, words",
    [
        ("error", "raises nothing"),
        ("TypeError", "raises nothing"),
        (ValueError, "raises nothing"),
        (3.0, "never pairs it"),  # the missing input taken as 1
        (9.0, "does not go back"),  # the inputs reused from the start
        (0.0, "pairs"),
        (None, "None"),
        ("1.0", "number"),
    ],
)
def test_zip_prediction_hints(answer, words):
    assert words in hint_of(check_zip_prediction, answer)


def test_zip_prediction_matches_what_python_does():
    weights, inputs = [0.5, -1.0, 2.0], [4.0, 1.0]
    assert check_zip_prediction(sum(w * x for w, x in zip(weights, inputs)))


def test_rsub_refuses_a_num_that_wraps_only_ints():
    class WrapsInts:
        def __init__(self, value):
            self.value = value

        def __sub__(self, other):
            other = WrapsInts(other) if isinstance(other, int) else other  # a float stays bare
            return WrapsInts(self.value - other.value)

        def __rsub__(self, other):
            return WrapsInts(other) - self

    verdict = check_rsub(WrapsInts)
    assert not verdict and "Num(10) - 2.5" in verdict.hint and "int or float" in verdict.hint


def test_rsub_that_calls_itself_is_told_why_it_recurses():
    class Recursing(Num):
        def __rsub__(self, other):
            return other - self  # Python calls this __rsub__ again

    assert "calls __rsub__ again" in hint_of(check_rsub, Recursing)


def test_rsub_that_drops_the_sign_is_told_about_abs_not_a_swap():
    """abs(other - self) is right on 10 - Num(3) and wrong on 0 - Num(5): not a swap, a lost sign."""
    absolute = num_class(lambda a, b: a - b, lambda a, b: abs(b - a))
    hint = hint_of(check_rsub, absolute)
    assert "abs" in hint and "swapped" not in hint


def test_zip_prediction_of_3_names_the_sign_slip_too():
    """3.0 is 0.5*4 + (-1)*1 + 2*1 (a stand-in input of 1) and also 0.5*4 + 1*1 (the -1 lost its sign)."""
    hint = hint_of(check_zip_prediction, 3.0)
    assert "never pairs it" in hint and "sign" in hint
