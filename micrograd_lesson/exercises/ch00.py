"""Chapter 0 exercises: find the bug in a reflected operator and in a closure; predict what zip does."""

import operator

from ._core import Verdict, as_number, attempt, check, close, first, read_number, shown, solution
from ._shared import run_cases

# ---- 1. debug: a reflected subtraction -----------------------------------------------------------

# Each case is a - b with [v] standing for Num(v); each should give Num(a - b).
RSUB_CASES = [([10], [3]), ([10], 3), ([3], [10]), (10, [3]), (0, [5]), (2.5, [10]), ([10], 2.5)]
IF_SUB_FAILS = {  # what Python calls for a - b
    "Num - Num": "Python calls Num({a:g}).__sub__(Num({b:g})): is __sub__ defined?",
    "Num - number": "wrap any plain number, int or float, in Num: isinstance(other, Num) tells them apart",
    "number - Num": "the number gives up, so Python calls Num({b:g}).__rsub__({a:g}) if it exists",
}
SWAPPED = (
    ", the wrong sign: the operands are swapped. When Python calls __rsub__ for this, which of self "
    "and other holds the plain number on the left?"
)


def _value(num):
    return as_number(attempt(getattr, num, "value")[0])  # a .value property may raise anything


@check("ch00.rsub")
def check_rsub(Num):
    if not isinstance(Num, type):
        return f"pass the class itself, e.g. check_rsub(Num); got {shown(Num)}"
    for case in RSUB_CASES:
        is_num = [isinstance(v, list) for v in case]
        kind = " - ".join("Num" if num else "number" for num in is_num)
        a, b = (v[0] if num else v for v, num in zip(case, is_num))
        text = " - ".join(f"Num({v:g})" if num else f"{v:g}" for v, num in zip((a, b), is_num))
        operands = []
        for v, num in zip((a, b), is_num):
            made, error = attempt(Num, v) if num else (v, None)
            if error:
                return f"Num({v:g}) failed: {error} (Num(v) should keep v in .value)"
            operands.append(made)
        result, error = attempt(operator.sub, *operands)
        if error:
            why = IF_SUB_FAILS[kind]
            if kind == "number - Num" and hasattr(Num, "__rsub__"):  # yours ran, and raised
                why = "Python called Num({b:g}).__rsub__({a:g}): there `other` is the plain number {a:g}"
            return f"{text} failed: {error} ({why.format(a=a, b=b)})"
        got = _value(result)
        if got is None:
            return f"{text} should return a Num with a number in .value, got {shown(result)}"
        if not close(got, a - b):
            swapped = not is_num[0] and close(got, b - a)
            return f"{text} gave {got:g}" + (SWAPPED if swapped else f", expected {a - b:g}")
        changed = [v for v, num, o in zip((a, b), is_num, operands) if num and not close(_value(o), v)]
        if changed:
            return (
                f"{text} changed its operand Num({changed[0]:g}): subtraction must return a NEW Num and "
                "leave self and other as they were"
            )
    return Verdict(True)


@solution("ch00.rsub")
class Num:
    def __init__(self, value):
        self.value = value

    def __sub__(self, other):  # self - other
        other = other if isinstance(other, Num) else Num(other)
        return Num(self.value - other.value)

    def __rsub__(self, other):  # other - self, when other (a plain number) gives up
        return Num(other) - self  # the order matters: not self - other

    def __repr__(self):
        return f"Num({self.value})"


# ---- 2. debug: closures made in a loop -------------------------------------------------------------

LATE_BINDING = (
    "every function gives 30 for x = 10, as if n were 3 in all of them: a closure reads n when it is "
    "CALLED, not when it is made. What is n by the time you call them? Give each function its own n that "
    "never changes (section 4 shows one way)"
)


@check("ch00.scalers")
def check_scalers(scalers):
    """scalers: a list of three functions (or a function returning it); scalers[k](x) must be (k + 1) * x."""
    if callable(scalers):
        scalers, error = attempt(scalers)
        if error:
            return f"pass the list of three functions itself ({error})"
    functions = first(scalers, 4)  # never more: an endless iterator must not hang the check
    if not functions or len(functions) != 3 or not all(map(callable, functions)):
        return f"pass a list of three functions, one per n in (1, 2, 3); got {shown(scalers)}"
    xs = [10, -2.5]
    outputs = [run_cases(f, f"scalers[{k}]", [(x,) for x in xs]) for k, f in enumerate(functions)]
    if (refused := next((out for out in outputs if isinstance(out, Verdict)), None)) is not None:
        return refused
    if all(close(y, 3 * x) for row in outputs for y, x in zip(row, xs)):
        return LATE_BINDING
    for k, row in enumerate(outputs):
        for y, x in zip(row, xs):
            if not close(y, (k + 1) * x):
                return f"scalers[{k}]({x:g}) gave {y:g}, expected {(k + 1) * x:g}"
    return Verdict(True)


@solution("ch00.scalers")
def fixed_scalers():
    def make_scaler(n):
        return lambda x: n * x  # this n belongs to one call of make_scaler, and never changes

    return [make_scaler(n) for n in (1, 2, 3)]  # or: [lambda x, n=n: n * x for n in (1, 2, 3)]


# ---- 3. predict: a neuron given too few inputs -------------------------------------------------------

ZIP_ANSWER = 0.5 * 4.0 + (-1.0) * 1.0  # zip stops after two pairs; the weight 2.0 is never used
ZIP_MISTAKES = [
    (3.0, "the third weight is not multiplied by a stand-in input: zip never pairs it with anything"),
    (9.0, "zip does not go back to the start of the shorter list; it stops"),
]


def _is_error(answer):
    if isinstance(answer, BaseException) or (isinstance(answer, type) and issubclass(answer, BaseException)):
        return True
    return isinstance(answer, str) and any(w in answer.lower() for w in ("error", "raise", "exception"))


@check("ch00.zip_prediction")
def check_zip_prediction(answer):
    """answer: the number TinyNeuron([0.5, -1.0, 2.0])([4.0, 1.0]) returns (or a function returning it)."""
    if _is_error(answer):
        return (
            "it raises nothing: zip stops as soon as the shorter list runs out, without a word; "
            "look at list(zip([0.5, -1.0, 2.0], [4.0, 1.0]))"
        )
    number, hint = read_number(answer)
    if hint:
        return hint
    if close(number, ZIP_ANSWER):
        return Verdict(True)
    hint = next((hint for wrong, hint in ZIP_MISTAKES if close(number, wrong)), None)
    return hint or "write out the pairs list(zip(weights, inputs)) makes, then add the products"


@solution("ch00.zip_prediction")
def predict_short_neuron():
    # zip pairs (0.5, 4.0) and (-1.0, 1.0), then stops because the inputs have run out:
    # the third weight, 2.0, is silently left out, and no error is raised.
    return 0.5 * 4.0 + (-1.0) * 1.0
