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


# ---- 3. a step downhill ---------------------------------------------------------------------------


def _L(a, b, c, f):
    return (a * b + c) * f


@check("ch03.step_downhill")
def check_step_downhill(new_L):
    """new_L: L = (a*b + c)*f after moving each leaf by -0.01 × its gradient."""
    got, hint = call_or_value(new_L)
    if hint:
        return Verdict(False, hint)
    new_L = as_number(_unwrap(got, "data"))
    if new_L is None or not math.isfinite(new_L):
        return Verdict(False, f"submit the new value of L as a number, got {shown(got)}")
    grads = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    start = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}
    down = _L(*(start[k] - 0.01 * grads[k] for k in "abcf"))  # -8.7263
    if _close(new_L, down):
        return Verdict(True)
    if _close(new_L, _L(*(start[k] + 0.01 * grads[k] for k in "abcf"))):
        return Verdict(False, "that is the step UPHILL (L rose); subtract 0.01 × grad to make L smaller")
    if _close(new_L, -8.0):
        return Verdict(False, "L has not changed: recompute L = (a*b + c)*f from the moved leaves")
    if _close(new_L, -8.0 - 0.01 * 72):
        return Verdict(
            False, "that is the first-order prediction -8 - 0.72; recompute L exactly from the leaves"
        )
    return Verdict(False, "move a, b, c and f each by -0.01 × its grad (6, -4, -2, 4), then recompute L")


@solution("ch03.step_downhill")
def step_downhill():
    a, b, c, f = 2.0, -3.0, 10.0, -2.0
    grads = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    a -= 0.01 * grads["a"]
    b -= 0.01 * grads["b"]
    c -= 0.01 * grads["c"]
    f -= 0.01 * grads["f"]
    return (a * b + c) * f
