"""Chapter 0 exercises: find the bug in a reflected operator and in a closure; predict what zip does."""

import operator

from ._core import Verdict, as_number, attempt, call_or_value, check, close, first, shown, solution


def _value_of(result):
    """(number, None) if `result` is a Num-like object with a numeric .value, else (None, what it is)."""
    value, err = attempt(getattr, result, "value")  # a .value property may raise anything
    if err:
        return None, f"a {type(result).__name__} without a readable .value"
    number = None if isinstance(value, (str, bytes)) else as_number(value)
    if number is None:
        return None, f".value {shown(value)}"
    return number, None


# ---- 1. debug: a reflected subtraction -----------------------------------------------------------


@check("ch00.rsub")
def check_rsub(Num):
    """Num(v) keeps v in .value; Num - Num, Num - number and number - Num all give the right Num."""
    if not isinstance(Num, type):
        return Verdict(False, f"pass the class itself, e.g. check_rsub(Num); got {shown(Num)}")
    cases = [  # (text, left operand, right operand, expected); None means "a plain number"
        ("Num(10) - Num(3)", (Num, 10), (Num, 3), 7),
        ("Num(10) - 3", (Num, 10), (None, 3), 7),
        ("Num(3) - Num(10)", (Num, 3), (Num, 10), -7),
        ("10 - Num(3)", (None, 10), (Num, 3), 7),
        ("0 - Num(5)", (None, 0), (Num, 5), -5),
        ("2.5 - Num(10)", (None, 2.5), (Num, 10), -7.5),
        ("Num(10) - 2.5", (Num, 10), (None, 2.5), 7.5),
    ]
    for text, (left_cls, left), (right_cls, right), expected in cases:
        operands = []
        for cls, v in ((left_cls, left), (right_cls, right)):
            operand, error = attempt(cls, v) if cls else (v, None)
            if error:
                error = error.replace("your function raised", "it raised")
                return Verdict(False, f"Num({v}) failed: {error} (Num(v) should keep v in .value)")
            operands.append(operand)
        result, error = attempt(operator.sub, *operands)
        if error:
            error = error.replace("your function raised", "it raised")  # a class, not a function
            if left_cls and right_cls:
                error += f" (Python calls Num({left}).__sub__(Num({right})): is __sub__ defined?)"
            elif left_cls:
                error += (
                    " (wrap any plain number, int or float, in Num: isinstance(other, Num) tells them apart)"
                )
            else:
                error += (
                    f" (the number gives up, so Python calls Num({right}).__rsub__({left}): "
                    "is it defined, and does it run?)"
                )
            return Verdict(False, f"{text} failed: {error}")
        got, what = _value_of(result)
        if what:
            return Verdict(False, f"{text} should return a Num with a number in .value, got {what}")
        if close(got, expected):
            for cls, v, operand in zip((left_cls, right_cls), (left, right), operands):
                kept, _ = _value_of(operand)
                if cls and not close(kept, v):
                    return Verdict(
                        False,
                        f"{text} changed its operand Num({v}): subtraction must return a NEW Num and leave "
                        "self and other as they were",
                    )
            continue
        if close(got, -expected) and not left_cls:
            return Verdict(
                False,
                f"{text} gave {got:g}, the wrong sign: the operands are swapped. When Python calls "
                "__rsub__ for this, which of self and other holds the plain number on the left?",
            )
        return Verdict(False, f"{text} gave .value {got:g}, expected {expected}")
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


@check("ch00.scalers")
def check_scalers(scalers):
    """scalers: a list of three functions; scalers[k](x) must be (k + 1) * x."""
    if callable(scalers):  # a function that builds the list is fine too
        scalers, hint = call_or_value(scalers)
        if hint:
            return Verdict(False, f"pass the list of three functions itself ({hint})")
    functions = first(scalers, 4)  # never more: an endless iterator must not hang the check
    if functions is None or len(functions) != 3:
        return Verdict(False, f"pass a list of three functions, one per n in (1, 2, 3); got {shown(scalers)}")
    if not all(callable(f) for f in functions):
        return Verdict(False, "every entry of the list should be a function (a lambda, or make_scaler(n))")
    for x in (10, -2.5):
        outputs = []
        for k, f in enumerate(functions, start=1):
            out, err = attempt(f, x)
            if err:
                err = err.replace("your function raised ", "")
                return Verdict(False, f"scalers[{k - 1}]({x:g}) failed: {err}")
            outputs.append(out)
        if all(close(out, k * x) for k, out in enumerate(outputs, start=1)):
            continue
        if all(close(out, 3 * x) for out in outputs):
            return Verdict(
                False,
                f"every function gives {3 * x:g} for x = {x:g}, as if n were 3 in all of them: a closure "
                "reads n when it is CALLED, not when it is made. What is n by the time you call them? "
                "Give each function its own n that never changes (section 4 shows one way)",
            )
        k, out = next((k, o) for k, o in enumerate(outputs, start=1) if not close(o, k * x))
        return Verdict(False, f"scalers[{k - 1}]({x:g}) gave {shown(out)}, expected {k * x:g}")
    return Verdict(True)


@solution("ch00.scalers")
def fixed_scalers():
    def make_scaler(n):
        return lambda x: n * x  # this n belongs to one call of make_scaler, and never changes

    return [make_scaler(n) for n in (1, 2, 3)]  # or: [lambda x, n=n: n * x for n in (1, 2, 3)]


# ---- 3. predict: a neuron given too few inputs -------------------------------------------------------

ZIP_ANSWER = 0.5 * 4.0 + (-1.0) * 1.0  # zip stops after two pairs; the weight 2.0 is never used


def _is_error(answer):
    if isinstance(answer, BaseException) or (isinstance(answer, type) and issubclass(answer, BaseException)):
        return True
    return isinstance(answer, str) and any(w in answer.lower() for w in ("error", "raise", "exception"))


@check("ch00.zip_prediction")
def check_zip_prediction(answer):
    """answer: the number TinyNeuron([0.5, -1.0, 2.0])([4.0, 1.0]) returns (or a function returning it)."""
    if _is_error(answer):
        return Verdict(
            False,
            "it raises nothing: zip stops as soon as the shorter list runs out, without a word; "
            "look at list(zip([0.5, -1.0, 2.0], [4.0, 1.0]))",
        )
    value, hint = call_or_value(answer)
    if hint:
        return Verdict(False, hint)
    if value is None:
        return Verdict(False, "your answer is still None; replace it with the number you predict")
    number = None if isinstance(value, (str, bytes)) else as_number(value)
    if number is None:
        return Verdict(False, f"predict a number; got {type(value).__name__}")
    if close(number, ZIP_ANSWER):
        return Verdict(True)
    if close(number, 3.0):
        return Verdict(
            False, "the third weight is not multiplied by a stand-in input: zip never pairs it with anything"
        )
    if close(number, 9.0):
        return Verdict(False, "zip does not go back to the start of the shorter list; it stops")
    return Verdict(False, "write out the pairs list(zip(weights, inputs)) makes, then add the products")


@solution("ch00.zip_prediction")
def predict_short_neuron():
    # zip pairs (0.5, 4.0) and (-1.0, 1.0), then stops because the inputs have run out:
    # the third weight, 2.0, is silently left out, and no error is raised.
    return 0.5 * 4.0 + (-1.0) * 1.0
