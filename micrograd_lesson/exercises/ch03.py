"""Chapter 3 exercises: backpropagation by hand, compared with what the engine's backward() gives."""

from functools import partial

from ..engine import Value
from ._core import CORRECT, Verdict, as_number, call_or_value, check, close, known_mistake, shown, solution

_close = partial(close, rel=0.0, abs_tol=1e-3)  # work by hand is often rounded to 3 or 4 decimals


def _by_engine(build, order, **leaves):
    """d(h)/d(node) for the nodes named in `order`, by backward(); build returns {"h": root, other nodes}."""
    nodes = {name: Value(x) for name, x in leaves.items()}
    nodes.update(build(**nodes))
    nodes["h"].backward()
    return {name: nodes[name].grad for name in order}


def _by_hand(answer, want, slips):
    """Compare a dict of gradients with `want`, in the order backpropagation finds them. The first
    wrong one gets the hint of its first row in slips (names, wrong number or None for any, hint)."""
    answer, hint = call_or_value(answer)
    if hint or not isinstance(answer, dict):
        example = ", ".join(f'"{name}": ...' for name in sorted(want))
        return Verdict(False, hint or f"submit a dict such as {{{example}}}; got {shown(answer)}")
    for name, right in want.items():
        if name not in answer:
            return Verdict(False, f"the dict is missing {name!r}")
        got = as_number(getattr(answer[name], "grad", answer[name]))  # a Value counts by its grad
        if got is None:
            return Verdict(False, f"the gradient for {name!r} should be a number, got {shown(answer[name])}")
        if not _close(got, right):
            rows = [(wrong, hint) for names, wrong, hint in slips if name in names]
            return Verdict(False, f"dh/d{name}: " + (known_mistake(got, rows, same=_close) or rows[-1][1]))
    return CORRECT


# ---- 1. g = (a + b) * c, h = g * d + e ------------------------------------------------------------

H_GRADS = _by_engine(lambda a, b, c, d, e: {"h": (a + b) * c * d + e}, "edcab", a=2, b=1, c=-4, d=3, e=5)
H_SLIPS = [  # (names, a wrong number or None for any other, hint): "ab" is a and b alike
    ("e", None, "e is added last, so a nudge to e passes straight to h: slope 1"),
    ("d", 3.0, "in the product g * d the slope for d is the OTHER factor, g = -12"),
    ("d", 1.0, "d is multiplied by g, not added; its local slope is g"),
    ("d", None, "h = g * d + e, so d's slope is g (= (a + b) * c) times h's grad, 1"),
    ("c", -9.0, "wrong sign: (a + b) = 3 and dh/dg = d = 3 are both positive"),
    ("c", 3.0, "a + b is only c's local slope in g; multiply by g's grad, dh/dg = d"),
    ("c", None, "chain rule, (local slope of g for c = a + b) × (grad of g = d)"),
    ("ab", -4.0, "c is the slope of g for (a + b); multiply by g's own grad, dh/dg = d = 3"),
    ("ab", 1.0, "1 is only the + node's local slope; times the grad of a + b"),
    ("ab", 12.0, "wrong sign: it is 1 × c × d with c = -4 and d = 3"),
    ("ab", None, "it reaches h through a + b, then g, then h; multiply 1 × c × d"),
]


@check("ch03.backprop_h")
def check_backprop_h(grads):
    """grads: {"a": ..., "b": ..., "c": ..., "d": ..., "e": ...}, dh/dx for h = (a + b) * c * d + e."""
    return _by_hand(grads, H_GRADS, H_SLIPS)


@solution("ch03.backprop_h")
def backprop_h():
    a, b, c, d = 2.0, 1.0, -4.0, 3.0
    s = a + b  # 3
    g = s * c  # -12
    h_grad = 1.0
    e_grad = 1.0 * h_grad  # h = g*d + e: + passes the grad through
    d_grad = g * h_grad  # product: the other factor
    g_grad = d * h_grad
    c_grad = s * g_grad  # g = s * c
    s_grad = c * g_grad
    return {"a": 1.0 * s_grad, "b": 1.0 * s_grad, "c": c_grad, "d": d_grad, "e": e_grad}


# ---- 2. values used twice: u = a*b, v = u + a, h = v*u --------------------------------------------


def _twice(a, b):
    u = a * b
    return {"u": u, "h": (u + a) * u}


TWICE_GRADS = _by_engine(_twice, "uab", a=3, b=-2)  # u: -9, a: 12, b: -27
TWICE_SLIPS = [
    ("u", 0.0, "start at h with dh/dh = 1 and work back, v and u first"),
    ("u", -3.0, "-3 counts only the path u -> h; u is also used by v = u + a, which sends back v's grad"),
    ("u", -6.0, "-6 is v's grad (the other factor of h = v*u); u's own grad is the sum of its two uses"),
    ("u", None, "u is used twice, by h = v*u (slope v) and by v = u + a (slope 1); add both"),
    ("a", 18.0, "18 counts a's contribution through u only; a is also used by v = u + a: add the two"),
    ("a", -6.0, "-6 counts a's contribution through v only; a is also used by u = a*b: add the two"),
    ("a", None, "(b × u's grad) from u = a*b, plus (1 × v's grad) from v = u + a"),
    ("b", -9.0, "multiply by u's full grad, both of its contributions, not only the one from h"),
    ("b", None, "b is used once, in u = a*b, so it gets a × u's grad"),
]


@check("ch03.used_twice")
def check_used_twice(grads):
    """grads: {"a", "b", "u"} -> dh/d(that value) for u = a*b, v = u + a, h = v*u at a = 3, b = -2."""
    return _by_hand(grads, TWICE_GRADS, TWICE_SLIPS)


@solution("ch03.used_twice")
def used_twice():
    a, b = 3.0, -2.0
    u = a * b  # -6
    v = u + a  # -3
    h_grad = 1.0
    v_grad = u * h_grad  # h = v * u: v's slope is the other factor, u
    u_grad = v * h_grad  # ... and u's slope is v: the first contribution to u
    u_grad += 1.0 * v_grad  # v = u + a sends v's grad back to u: the second contribution
    a_grad = b * u_grad  # u = a * b: the first contribution to a
    a_grad += 1.0 * v_grad  # v = u + a: the second contribution to a
    b_grad = a * u_grad
    return {"a": a_grad, "b": b_grad, "u": u_grad}


# ---- 3. one knob, a budget of 0.1: L = (a*b + c) * f ----------------------------------------------

KNOB_AT = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}  # the chapter's L, restated: no notebook state
KNOB_GRADS = _by_engine(lambda a, b, c, f: {"h": (a * b + c) * f}, "abcf", **KNOB_AT)
BUDGET = 0.1
KNOB_SLIPS = [  # (does a wrong move show this slip?, hint), in order
    (lambda leaf, by: abs(by) > BUDGET + 1e-9, "the budget is 0.1: that change is too large"),
    (lambda leaf, by: by * KNOB_GRADS[leaf] > 0, "that raises L: move the leaf against its gradient's sign"),
    (lambda leaf, by: abs(by) < BUDGET - 1e-9, "you left budget unused: L changes in proportion to the move"),
    (lambda leaf, by: True, "which leaf's gradient is largest in size? 0.1 of it moves L 0.1 times that"),
]


def _L_after(leaf, by):
    x = {**KNOB_AT, leaf: KNOB_AT[leaf] + by}
    return (x["a"] * x["b"] + x["c"]) * x["f"]


@check("ch03.one_knob")
def check_one_knob(move):
    """move: {leaf: change}, one leaf of L = (a*b + c)*f moved by at most 0.1, making L as small as it can."""
    move, hint = call_or_value(move)
    items = list(move.items()) if isinstance(move, dict) else []
    if hint or len(items) != 1 or items[0][0] not in KNOB_AT or as_number(items[0][1]) is None:
        example = '{"b": 0.1}; the leaf is one of "a", "b", "c", "f"'
        return Verdict(False, hint or f"submit ONE leaf and its change, such as {example}; got {shown(move)}")
    leaf, by = items[0][0], as_number(items[0][1])
    best = min(((k, sign * BUDGET) for k in KNOB_AT for sign in (-1, 1)), key=lambda m: _L_after(*m))
    if leaf == best[0] and close(by, best[1], rel=0, abs_tol=1e-6):
        return CORRECT
    slip = next(hint for shows, hint in KNOB_SLIPS if shows(leaf, by))
    return Verdict(False, f"moving {leaf} by {by:g} gives L = {_L_after(leaf, by):.4f}: {slip}")


@solution("ch03.one_knob")
def one_knob():
    grads = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    # Moving one leaf by d changes L by grad * d, to first order; L is linear in each leaf on its
    # own, so here that is exact. The largest |grad| is a's 6, and its sign is +: move a DOWN.
    leaf = max(grads, key=lambda k: abs(grads[k]))
    return {leaf: -0.1 if grads[leaf] > 0 else 0.1}  # L = -8 - 0.6 = -8.6
