"""What engine.py checks and prints, kept apart so that engine.py shows the calculus.

Each function here either turns what a learner passed into what a `Value` stores, or
words an error or a repr; none of them takes part in a derivative.
"""

import math
import numbers


def real_number(data):
    """data as a float, or a TypeError that names what was passed instead."""
    if hasattr(data, "_prev") and hasattr(data, "data"):  # a Value (ours or micrograd's)
        raise TypeError("Value(data) needs a real number, got a Value; use it directly")
    if not isinstance(data, numbers.Real):
        raise TypeError(f"Value(data) needs a real number, got {type(data).__name__}: {data!r}")
    return float(data)


def input_slots(op, children, local_grads):
    """A node's slots (a, b, da, db) from the inputs and local derivatives given to Value(), checked.

    Inputs stay in order, repeats kept: b = a + a holds `a` in both slots (so it
    gets both contributions), and a fixed order draws the same every run.
    """
    children, local_grads = tuple(children), tuple(local_grads)
    if len(children) > 2:
        raise ValueError(f"a Value remembers at most 2 inputs, got {len(children)} for {op!r}: "
                         f"build it from operations with one or two inputs")  # fmt: skip
    if local_grads and len(local_grads) != len(children):  # else an input would be dropped
        raise ValueError(f"a {op!r} node has {len(children)} inputs but {len(local_grads)} local derivatives")
    return (children + (None,))[:2] + ((local_grads + (None,))[:2] if local_grads else (None, None))


def no_local_derivative(node):
    """The error for a node that has inputs but no local derivative to pass back."""
    if node._rule is not None:  # of the engine's rules only x ** n at x = 0 gives none
        return ZeroDivisionError(
            f"the derivative of x{node._op} does not exist at x = {node._a.data} (it is infinite)"
        )
    return RuntimeError(
        f"a {node._op!r} node has {len(node._prev)} inputs but 0 local derivatives: "
        f"pass _local_grads=(...) to Value, or set out._backward to a function"
    )


def short(x):
    """x to 6 significant digits (every digit from a million up), so a repr is short and stable."""
    return repr(x) if abs(x) >= 1e6 else repr(float(f"{x:.6g}"))


def check_power(x, exponent):
    """The exponent, once x ** exponent is a real number with a derivative to follow."""
    if not isinstance(exponent, float):  # a Value: its slope is x**y * log(x), which needs x > 0
        if x <= 0:
            raise ValueError(
                f"Value ** Value needs a positive base (the exponent's gradient is x**y * log(x)); "
                f"got base {x}. Use a plain number as the exponent instead."
            )
        return exponent
    if x < 0 and not exponent.is_integer():
        raise ValueError(f"({x}) ** {exponent} is not a real number: negative base, fractional power")
    if x == 0 and exponent < 0:
        raise ZeroDivisionError(f"0.0 ** {exponent}: a negative power of zero is infinite")
    return exponent


def checked_exp(x):
    """math.exp(x), or an OverflowError that names x (math's own says only "math range error")."""
    try:
        return math.exp(x)
    except OverflowError:
        raise OverflowError(f"exp({x}) overflows a float (inputs above ~709.78)") from None
