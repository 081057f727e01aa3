"""Chapter 0 exercises: find the bug in a reflected operator and in a closure; predict what zip does."""

from ._core import (
    as_number,
    attempt,
    check,
    close,
    first,
    known_mistake,
    matches_number,
    number_digest,
    read_number,
    recorded,
    recorder,
    shown,
    solution,
)
from ._shared import run_cases

# ---- 1. debug: a reflected subtraction -----------------------------------------------------------
# Each case is a - b with [v] standing for Num(v); each should give Num(a - b).
RSUB_CASES = [([10], [3]), ([10], 3), ([3], [10]), (10, [3]), (0, [5]), (2.5, [10]), ([10], 2.5)]
IF_SUB_FAILS = {  # what Python calls for a - b, by which of a and b are Nums
    (True, True): "Python calls Num({a:g}).__sub__(Num({b:g})): is __sub__ defined?",
    (True, False): "wrap any plain number, int or float, in Num: isinstance(other, Num) tells them apart",
    (False, True): "the number gives up: Python calls Num({b:g}).__rsub__({a:g}) if it exists, other = {a:g}",
}
SWAPPED = ", the wrong sign: the operands are swapped. In __rsub__, which of self and other is the number?"


@check("ch00.rsub", takes="class")
def check_rsub(Num):
    """Num: a class whose Num(a) - b, a - Num(b) and Num(a) - Num(b) all give a new Num(a - b)."""
    for v in (10, 3, 5):  # every Num(v) the cases make
        if error := attempt(Num, v)[1]:
            return f"Num({v:g}) failed: {error} (Num(v) should keep v in .value)"
    for case in RSUB_CASES:
        is_num = tuple(isinstance(v, list) for v in case)
        a, b = (v[0] if num else v for v, num in zip(case, is_num))
        text = " - ".join(f"Num({v:g})" if num else f"{v:g}" for v, num in zip((a, b), is_num))
        operands = [Num(v) if num else v for v, num in zip((a, b), is_num)]
        result, error = attempt(lambda x, y: x - y, *operands)
        if error and "RecursionError" in error:  # __rsub__ doing other - self calls __rsub__ again
            return f"{text} failed: {error}: a - b inside __rsub__ calls __rsub__ again; subtract the .values"
        if error:
            return f"{text} failed: {error} ({IF_SUB_FAILS[is_num].format(a=a, b=b)})"
        # the .value of the result and of the operands, after the subtraction (a property may raise anything)
        got, *after = (as_number(attempt(getattr, o, "value")[0]) for o in (result, *operands))
        if got is None:
            return f"{text} should return a Num with a number in .value, got {shown(result)}"
        if not close(got, a - b):
            if close(got, abs(a - b)):  # right while a - b > 0, wrong only once it is negative
                return f"{text} gave {got:g}, expected {a - b:g}: a difference keeps its sign (no abs)"
            swapped = not is_num[0] and close(got, b - a)
            return f"{text} gave {got:g}" + (SWAPPED if swapped else f", expected {a - b:g}")
        if changed := [v for v, num, now in zip((a, b), is_num, after) if num and not close(now, v)]:
            return f"{text} changed its operand Num({changed[0]:g}): return a NEW Num, leave both alone"
    return True


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
@check("ch00.scalers")
def check_scalers(scalers):
    """scalers: a list of three functions (or a function returning it); scalers[k](x) must be (k + 1) * x."""
    scalers, error = attempt(scalers) if callable(scalers) else (scalers, None)  # or a function returning it
    functions = first(scalers, 4)  # never more: an endless iterator must not hang the check
    if error or len(functions or ()) != 3 or not all(map(callable, functions)):
        return f"pass a list of three functions, one per n in (1, 2, 3); {error or f'got {shown(scalers)}'}"
    cases = [(k, x) for k in range(3) for x in (10, -2.5)]  # scalers[k](x) should be (k + 1) * x
    call = "scalers[{}]({:g})".format
    results = run_cases(lambda k, x: functions[k](x), "scalers", cases, where=lambda case: call(*case))
    if not isinstance(results, list):  # run_cases refused an answer
        return results
    if all(close(y, 3 * x) for y, (k, x) in zip(results, cases)):
        return (
            "every function gives 30 for x = 10, as if n were 3 in all of them: a closure reads n when it is "
            "CALLED, not when it is made. Give each its own n that never changes (section 4 shows how)"
        )
    for y, (k, x) in zip(results, cases):
        if not close(y, (k + 1) * x):
            return f"{call(k, x)} gave {y:g}, expected {(k + 1) * x:g}"
    return True


@solution("ch00.scalers")
def fixed_scalers():
    def make_scaler(n):
        return lambda x: n * x  # this n belongs to one call of make_scaler, and never changes

    return [make_scaler(n) for n in (1, 2, 3)]  # or: [lambda x, n=n: n * x for n in (1, 2, 3)]


# ---- 3. predict: a neuron given too few inputs -------------------------------------------------------
ZIP_TOLERANCE = 1e-6  # the check stores a digest of the answer on this grid, not the answer
ZIP_MISTAKES = [
    (
        3.0,
        "3 needs the third weight times a stand-in input of 1, but zip never pairs it with anything "
        "(or it needs +1.0 for -1.0 * 1.0: check each product's sign)",
    ),
    (9.0, "zip does not go back to the start of the shorter list; it stops"),
]


@check("ch00.zip_prediction")
def check_zip_prediction(answer):
    """answer: the number TinyNeuron([0.5, -1.0, 2.0])([4.0, 1.0]) returns (or a function returning it)."""
    error_text = isinstance(answer, str) and any(w in answer.lower() for w in ("error", "raise", "exception"))
    if error_text or issubclass(answer if isinstance(answer, type) else type(answer), BaseException):
        return "it raises nothing: zip stops, silently, with the shorter list; try list(zip(weights, inputs))"
    number, hint = read_number(answer)
    if hint or matches_number(
        "ch00.zip_prediction", number, recorded("ch00.zip_prediction")["digest"], ZIP_TOLERANCE
    ):
        return hint or True
    return known_mistake(number, ZIP_MISTAKES) or "add up w * x over the pairs in list(zip(weights, inputs))"


@solution("ch00.zip_prediction")
def predict_short_neuron():
    # zip pairs (0.5, 4.0) and (-1.0, 1.0), then stops because the inputs have run out:
    # the third weight, 2.0, is silently left out, and no error is raised.
    return 0.5 * 4.0 + (-1.0) * 1.0


@recorder("ch00.zip_prediction")
def _record_zip():
    return {"digest": number_digest("ch00.zip_prediction", predict_short_neuron(), ZIP_TOLERANCE)}
