"""Chapter 3 exercises: backpropagation by hand, compared with the engine's gradients."""

from ..autograd import grad
from ..engine import Value
from ._core import (
    as_number,
    check,
    close,
    known_mistake,
    matches_number,
    number_digest,
    recorded,
    recorder,
    shown,
    solution,
)


def _by_engine(build, order, **leaves):  # build returns {"h": the root, other nodes by name}
    nodes = {name: Value(x) for name, x in leaves.items()}
    nodes.update(build(**nodes))
    return dict(zip(order, grad(nodes["h"], [nodes[name] for name in order])))


STEP = 1e-3  # work by hand is often rounded to 3 or 4 decimals: the check's tolerance and its grid


def _record(exercise, grads):  # a digest of each rounded gradient, not the gradient
    return {name: number_digest(f"{exercise}:{name}", g, STEP) for name, g in grads.items()}


def _by_hand(answer, exercise, slips):
    want = recorded(exercise)  # {name: digest of its gradient}

    def right(name, x):
        return matches_number(f"{exercise}:{name}", x, want[name], STEP)

    if not isinstance(answer, dict):
        return f"submit a dict such as {dict.fromkeys(sorted(want), 0.0)}; got {shown(answer)}"
    for name in want:
        if name not in answer:
            keys = ", ".join(map(repr, sorted(want)))
            return f"the dict is missing {name!r}: its keys are {keys}; got {shown(list(answer), 60)}"
        got = as_number(getattr(answer[name], "grad", answer[name]))  # a Value counts by its grad
        if got is None:
            return f"the gradient for {name!r} should be a number, got {shown(answer[name])}"
        if not right(name, got) and right(name, getattr(answer[name], "data", None)):
            return f"dh/d{name}: right number, but in .data; a Value counts by its .grad: submit numbers"
        if not right(name, got):
            rows = [(wrong, hint) for names, wrong, hint in slips if name in names]
            mistake = known_mistake(got, rows, same=lambda got, wrong: close(got, wrong, rel=0, abs_tol=STEP))
            return f"dh/d{name}: " + (mistake or rows[-1][1])
    return True


@recorder("ch03.backprop_h")
def _record_h():
    return _record(
        "ch03.backprop_h",
        _by_engine(lambda a, b, c, d, e: {"h": (a + b) * c * d + e}, "edcab", a=2, b=1, c=-4, d=3, e=5),
    )


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


@check("ch03.backprop_h", takes="value")
def check_backprop_h(grads):
    """grads: {"a": ..., "b": ..., "c": ..., "d": ..., "e": ...}, dh/dx for h = (a + b) * c * d + e."""
    return _by_hand(grads, "ch03.backprop_h", H_SLIPS)


@solution("ch03.backprop_h")
def backprop_h():
    a, b, c, d = 2.0, 1.0, -4.0, 3.0
    s = a + b  # 3
    g = s * c  # -12
    # Node by node from h: + passes the grad on; a product gives each factor the other times it.
    e_grad = 1.0  # h = g*d + e, and dh/dh = 1
    d_grad, g_grad = g * 1.0, d * 1.0  # the two factors of g*d
    c_grad, s_grad = s * g_grad, c * g_grad  # the two factors of g = s * c
    return {"a": s_grad, "b": s_grad, "c": c_grad, "d": d_grad, "e": e_grad}  # s = a + b passes s_grad on


@recorder("ch03.used_twice")
def _record_twice():
    return _record(
        "ch03.used_twice", _by_engine(lambda a, b: {"u": (u := a * b), "h": (u + a) * u}, "uab", a=3, b=-2)
    )


TWICE_SLIPS = [
    ("u", 0.0, "start at h with dh/dh = 1 and work back, v and u first"),
    ("u", -3.0, "-3 counts only the path u -> h; u is also used by v = u + a, which sends back v's grad"),
    ("u", -6.0, "-6 is v's grad (the other factor of h = v*u); u's own grad is the sum of its two uses"),
    ("u", None, "u is used twice, by h = v*u (slope v) and by v = u + a (slope 1); add both"),
    ("a", 18.0, "18 counts a's contribution through u only; a is also used by v = u + a: add the two"),
    ("a", -6.0, "-6 counts a's contribution through v only; a is also used by u = a*b: add the two"),
    ("a", 30.0, "30 = 12 + 18: u passed its grad on twice; pass it on once, when both uses added theirs"),
    ("a", None, "(b × u's grad) from u = a*b, plus (1 × v's grad) from v = u + a"),
    ("b", -9.0, "multiply by u's full grad, both of its contributions, not only the one from h"),
    ("b", -54.0, "-54 is a × u's grad twice: u passed its grad on twice; pass it on once, when complete"),
    ("b", -36.0, "-36 = 3 × (-3) + 3 × (-9): u passed its grad on twice, once half-finished: pass it once"),
    ("b", None, "b is used once, in u = a*b, so it gets a × u's grad"),
]


@check("ch03.used_twice", takes="value")
def check_used_twice(grads):
    """grads: {"a", "b", "u"} -> dh/d(that value) for u = a*b, v = u + a, h = v*u at a = 3, b = -2."""
    return _by_hand(grads, "ch03.used_twice", TWICE_SLIPS)


@solution("ch03.used_twice")
def used_twice():
    a, b = 3.0, -2.0
    u = a * b  # -6
    v = u + a  # -3
    v_grad, u_grad = u * 1.0, v * 1.0  # h = v * u: each factor gets the other times h's grad, 1
    u_grad += v_grad  # v = u + a passes v's grad back to u: u's second contribution ...
    a_grad = v_grad  # ... and to a
    a_grad += b * u_grad  # u = a * b: a's second contribution (u's grad is whole by now)
    b_grad = a * u_grad
    return {"a": a_grad, "b": b_grad, "u": u_grad}


KNOB_GRADS = _by_engine(lambda a, b, c, f: {"h": (a * b + c) * f}, "abcf", a=2, b=-3, c=10, f=-2)
KNOB_START = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}  # the chapter's leaves, restated
KNOB_L = (2 * -3 + 10) * -2  # the chapter's L, restated (no notebook state); it is linear in each leaf
KNOB_SLIPS = [  # (does moving `leaf` by `by` show this slip?, hint), in order
    (
        lambda leaf, by: abs(by - KNOB_START[leaf]) <= 0.1 + 1e-9,
        "that looks like {leaf}'s new value: submit the change (new value minus old), at most 0.1 in size",
    ),
    (lambda leaf, by: abs(by) > 0.1 + 1e-9, "the budget is 0.1: that change is too large"),
    (lambda leaf, by: by * KNOB_GRADS[leaf] > 0, "that raises L: move the leaf against its gradient's sign"),
    (lambda leaf, by: abs(by) < 0.1 - 1e-9, "you left budget unused: L changes in proportion to the move"),
    (lambda leaf, by: True, "which leaf's gradient is largest in size? 0.1 of it moves L 0.1 times that"),
]


@check("ch03.one_knob", takes="value")
def check_one_knob(move):
    """move: {leaf: change}, one leaf of L = (a*b + c)*f moved by at most 0.1, making L as small as it can."""
    leaf, by = next(iter(move.items())) if isinstance(move, dict) and len(move) == 1 else (None, None)
    if leaf not in KNOB_GRADS or (by := as_number(by)) is None:
        return f'submit ONE leaf (one of a, b, c, f) and its change, e.g. {{"b": 0.1}}; got {shown(move)}'
    best = min(((k, s * 0.1) for k in KNOB_GRADS for s in (-1, 1)), key=lambda m: KNOB_GRADS[m[0]] * m[1])
    if leaf == best[0] and close(by, best[1], rel=0, abs_tol=1e-6):
        return True
    slip = next(hint for shows, hint in KNOB_SLIPS if shows(leaf, by)).format(leaf=leaf)
    return f"moving {leaf} by {by:g} gives L = {KNOB_L + KNOB_GRADS[leaf] * by:.4f}: {slip}"


@solution("ch03.one_knob")
def one_knob():
    # A leaf moved by d changes L by exactly grad * d; the largest |grad| is a's 6, +: move a DOWN.
    return {"a": -0.1}  # L = -8 - 0.6 = -8.6
