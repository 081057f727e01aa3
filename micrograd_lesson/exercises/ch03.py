"""Chapter 3 exercises: backpropagation by hand."""

import math

from ._core import Verdict, as_number, call_or_value, check, close, shown, solution

TOL = 1e-3  # answers worked by hand are often rounded to 3 or 4 decimals


def _close(x, y):
    return close(x, y, rel=0.0, abs_tol=TOL)


def _unwrap(x, attr):
    """x.grad or x.data when x is a Value (its number is the answer), else x itself; never raises."""
    try:
        return getattr(x, attr, x)
    except Exception:
        return x


def _grads(answer, keys):
    """The learner's dict of gradients as {key: float}, or (None, hint). Never raises."""
    answer, hint = call_or_value(answer)
    if hint:
        return None, hint
    example = ", ".join(f"{k!r}: ..." for k in keys)
    if not isinstance(answer, dict):
        return None, f"submit a dict of gradients such as {{{example}}}; got {shown(answer)}"
    missing = [k for k in keys if k not in answer]
    if missing:
        return None, f"the dict is missing {', '.join(repr(k) for k in missing)}"
    out = {}
    for k in keys:
        v = as_number(_unwrap(answer[k], "grad"))
        if v is None or not math.isfinite(v):
            return None, f"the gradient for {k!r} should be a finite number, got {shown(answer[k])}"
        out[k] = v
    return out, None


# ---- 1. g = (a + b) * c, h = g * d + e ------------------------------------------------------------

H_LEAVES = {"a": 2.0, "b": 1.0, "c": -4.0, "d": 3.0, "e": 5.0}


def _h_grads():
    a, b, c, d = (H_LEAVES[k] for k in "abcd")
    s = a + b  # 3
    g = s * c  # -12
    g_grad = d  # h = g*d + e, so dh/dg = d
    s_grad = c * g_grad
    return {"a": s_grad, "b": s_grad, "c": s * g_grad, "d": g, "e": 1.0}


@check("ch03.backprop_h")
def check_backprop_h(grads):
    """grads: {"a": ..., "b": ..., "c": ..., "d": ..., "e": ...}, dh/dx for h = (a + b) * c * d + e."""
    got, hint = _grads(grads, "abcde")
    if hint:
        return Verdict(False, hint)
    want = _h_grads()
    # Checked from the root back, in the order backpropagation finds them.
    if not _close(got["e"], want["e"]):
        return Verdict(False, "dh/de: e is added last, so a nudge to e passes straight to h: slope 1")
    if not _close(got["d"], want["d"]):
        if _close(got["d"], H_LEAVES["d"]):
            return Verdict(False, "dh/dd: in the product g * d the slope for d is the OTHER factor, g = -12")
        if _close(got["d"], 1.0):
            return Verdict(False, "dh/dd: d is multiplied by g, not added; its local slope is g")
        return Verdict(False, "dh/dd: h = g * d + e, so d's slope is g (= (a + b) * c) times h's grad, 1")
    if not _close(got["c"], want["c"]):
        if _close(got["c"], -want["c"]):
            return Verdict(False, "dh/dc has the wrong sign: (a + b) = 3 and dh/dg = d = 3 are both positive")
        if _close(got["c"], H_LEAVES["a"] + H_LEAVES["b"]):
            return Verdict(
                False, "dh/dc: a + b is only c's local slope in g; multiply by g's grad, dh/dg = d"
            )
        return Verdict(False, "dh/dc: chain rule, (local slope of g for c = a + b) × (grad of g = d)")
    for leaf in "ab":
        if _close(got[leaf], want[leaf]):
            continue
        if _close(got[leaf], H_LEAVES["c"]):
            return Verdict(
                False, f"dh/d{leaf}: c is the slope of g for (a + b); multiply by g's own grad, dh/dg = d = 3"
            )
        if _close(got[leaf], 1.0):
            return Verdict(False, f"dh/d{leaf}: 1 is only the + node's local slope; times the grad of a + b")
        if _close(got[leaf], -want[leaf]):
            return Verdict(False, f"dh/d{leaf} has the wrong sign: it is 1 × c × d with c = -4 and d = 3")
        return Verdict(
            False, f"dh/d{leaf}: {leaf} reaches h through a + b, then g, then h; multiply 1 × c × d"
        )
    return Verdict(True)


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


# ---- 2. values used twice ------------------------------------------------------------------------

TWICE = {"a": 3.0, "b": -2.0}


def _twice_grads(a, b):
    """u = a*b, v = u + a, h = v*u: dh/da, dh/db and dh/du, by the chain rule with fan-out sums."""
    u = a * b
    v = u + a
    v_grad = u  # h = v * u
    u_grad = v + v_grad  # from h directly (slope v) and through v (slope 1)
    return {"a": b * u_grad + v_grad, "b": a * u_grad, "u": u_grad}


@check("ch03.used_twice")
def check_used_twice(grads):
    """grads: {"a", "b", "u"} -> dh/d(that value) for u = a*b, v = u + a, h = v*u at a = 3, b = -2."""
    got, hint = _grads(grads, ["a", "b", "u"])
    if hint:
        return Verdict(False, hint)
    a, b = TWICE["a"], TWICE["b"]
    want = _twice_grads(a, b)  # a: 12, b: -27, u: -9
    if all(_close(got[k], want[k]) for k in want):
        return Verdict(True)
    if all(_close(got[k], 0.0) for k in want):
        return Verdict(False, "every gradient is 0: start at h with dh/dh = 1 and work back, v and u first")
    u, v = a * b, a * b + a
    if not _close(got["u"], want["u"]):
        if _close(got["u"], v):
            return Verdict(
                False,
                f"dh/du = {v:g} counts only the path u -> h; u is also used by v = u + a, "
                "which sends back v's grad times 1: add the two contributions",
            )
        if _close(got["u"], u):
            return Verdict(
                False,
                "dh/du: u = -6 is v's grad (the other factor of h = v*u); "
                "u's own grad is the sum of its two uses",
            )
        return Verdict(
            False, "dh/du: u is used twice, by h = v*u (slope v) and by v = u + a (slope 1); add both"
        )
    one_path_a = {b * want["u"]: "through u only", want["a"] - b * want["u"]: "through v only"}
    for value, path in one_path_a.items():
        if _close(got["a"], value):
            return Verdict(
                False,
                f"dh/da = {value:g} counts a's contribution {path}; a is used twice, by u = a*b and by "
                "v = u + a, and the two contributions add up",
            )
    if not _close(got["a"], want["a"]):
        return Verdict(False, "dh/da: (b × u's grad) from u = a*b, plus (1 × v's grad) from v = u + a")
    if _close(got["b"], a * v):
        return Verdict(
            False, "dh/db: multiply by u's full grad, both of its contributions, not only the one from h"
        )
    return Verdict(False, "dh/db: b is used once, in u = a*b, so it gets a × u's grad")


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


# ---- 3. one knob, a budget of 0.1 ---------------------------------------------------------------

STEP_LEAVES = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}  # the chapter's L, restated: no notebook state
STEP_GRADS = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
BUDGET = 0.1


def _L(a, b, c, f):
    return (a * b + c) * f


def _moved_L(leaf, by):
    leaves = dict(STEP_LEAVES)
    leaves[leaf] += by
    return _L(*leaves.values())


@check("ch03.one_knob")
def check_one_knob(move):
    """move: {leaf: change}, one leaf of L = (a*b + c)*f moved by at most 0.1, making L as small as it can."""
    move, hint = call_or_value(move)
    if hint:
        return Verdict(False, hint)
    if not isinstance(move, dict) or len(move) != 1:
        return Verdict(
            False, f'submit a dict with ONE leaf and its change, such as {{"b": 0.1}}; got {shown(move)}'
        )
    ((leaf, by),) = move.items()
    by = as_number(by)
    if leaf not in STEP_LEAVES or by is None:
        return Verdict(
            False, f'the leaf is one of "a", "b", "c", "f" and the change a number; got {shown(move)}'
        )
    if abs(by) > BUDGET + 1e-9:
        return Verdict(False, f"the budget is 0.1: a change of {by:g} is too large")
    best_leaf, best_by = min(
        ((k, s * BUDGET) for k in STEP_LEAVES for s in (-1, 1)), key=lambda m: _moved_L(*m)
    )
    if leaf == best_leaf and close(by, best_by, rel=0, abs_tol=1e-6):
        return Verdict(True)
    got = _moved_L(leaf, by)
    if by == 0:
        return Verdict(False, f"a change of 0 leaves L at -8: move {leaf} (or another leaf) by up to 0.1")
    if by * STEP_GRADS[leaf] > 0:
        return Verdict(
            False,
            f"that raises L, to {got:.4f}: {leaf}'s gradient is {STEP_GRADS[leaf]:g}, so to lower L move "
            f"{leaf} the opposite way to the sign of its gradient",
        )
    if abs(by) < BUDGET - 1e-9:
        return Verdict(False, "right way, but you left budget unused: L changes in proportion to the move")
    return Verdict(
        False,
        f"moving {leaf} by {by:g} gives L = {got:.4f}, a change of {got - _L(*STEP_LEAVES.values()):.4f}. "
        "Which leaf's gradient is largest in size? Each 0.1 of that leaf moves L by 0.1 times it",
    )


@solution("ch03.one_knob")
def one_knob():
    grads = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    # Moving one leaf by d changes L by grad * d, to first order; L is linear in each leaf on its
    # own, so here that is exact. The largest |grad| is a's 6, and its sign is +: move a DOWN.
    leaf = max(grads, key=lambda k: abs(grads[k]))
    return {leaf: -0.1 if grads[leaf] > 0 else 0.1}  # L = -8 - 0.6 = -8.6
