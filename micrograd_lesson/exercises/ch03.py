"""Chapter 3 exercises: backpropagation by hand."""

import math
import numbers

from ._core import attempt, solution, verdict

__all__ = ["check_backprop_h", "check_neuron_grads", "check_step_downhill"]

TOL = 1e-3


def _close(x, y):
    return abs(x - y) <= TOL


def _grads(answer, keys):
    """The learner's dict of gradients as {key: float}, or (None, hint)."""
    if callable(answer):
        answer, err = attempt(answer)
        if err:
            return None, err
    if not hasattr(answer, "keys") or not hasattr(answer, "__getitem__"):
        example = ", ".join(f"{k!r}: ..." for k in keys)
        return None, f"submit a dict of gradients such as {{{example}}}; got {answer!r}"
    missing = [k for k in keys if k not in answer]
    if missing:
        return None, f"the dict is missing {', '.join(repr(k) for k in missing)}"
    out = {}
    for k in keys:
        v = getattr(answer[k], "grad", answer[k])  # a Value is fine: its grad is the answer
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            return None, f"the gradient for {k!r} should be a number, got {answer[k]!r}"
        out[k] = float(v)
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


def check_backprop_h(grads):
    """grads: {"a": ..., "b": ..., "c": ..., "d": ..., "e": ...}, dh/dx for h = (a + b) * c * d + e."""
    got, hint = _grads(grads, "abcde")
    if hint:
        return verdict(False, hint)
    want = _h_grads()
    # Checked from the root back, in the order backpropagation finds them.
    if not _close(got["e"], want["e"]):
        return verdict(False, "dh/de: e is added last, so a nudge to e passes straight to h: slope 1")
    if not _close(got["d"], want["d"]):
        if _close(got["d"], H_LEAVES["d"]):
            return verdict(False, "dh/dd: in the product g * d the slope for d is the OTHER factor, g = -12")
        if _close(got["d"], 1.0):
            return verdict(False, "dh/dd: d is multiplied by g, not added; its local slope is g")
        return verdict(False, "dh/dd: h = g * d + e, so d's slope is g (= (a + b) * c) times h's grad, 1")
    if not _close(got["c"], want["c"]):
        if _close(got["c"], -want["c"]):
            return verdict(False, "dh/dc has the wrong sign: (a + b) = 3 and dh/dg = d = 3 are both positive")
        if _close(got["c"], H_LEAVES["a"] + H_LEAVES["b"]):
            return verdict(
                False, "dh/dc: a + b is only c's local slope in g; multiply by g's grad, dh/dg = d"
            )
        return verdict(False, "dh/dc: chain rule, (local slope of g for c = a + b) × (grad of g = d)")
    for leaf in "ab":
        if _close(got[leaf], want[leaf]):
            continue
        if _close(got[leaf], H_LEAVES["c"]):
            return verdict(
                False, f"dh/d{leaf}: c is the slope of g for (a + b); multiply by g's own grad, dh/dg = d = 3"
            )
        if _close(got[leaf], 1.0):
            return verdict(False, f"dh/d{leaf}: 1 is only the + node's local slope; times the grad of a + b")
        if _close(got[leaf], -want[leaf]):
            return verdict(False, f"dh/d{leaf} has the wrong sign: it is 1 × c × d with c = -4 and d = 3")
        return verdict(
            False, f"dh/d{leaf}: {leaf} reaches h through a + b, then g, then h; multiply 1 × c × d"
        )
    return verdict(True)


@solution("ch03.backprop_h", check=check_backprop_h)
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


# ---- 2. a neuron ----------------------------------------------------------------------------------

NEURON = {"x1": 1.0, "x2": 0.5, "w1": 2.0, "w2": -2.0, "b": -0.5}
OTHER = {"x1": "w1", "w1": "x1", "x2": "w2", "w2": "x2"}  # the other factor of each product


def check_neuron_grads(grads):
    """grads: {"x1", "w1", "x2", "w2", "b"} -> do/d(leaf) for o = tanh(x1*w1 + x2*w2 + b)."""
    got, hint = _grads(grads, ["x1", "w1", "x2", "w2", "b"])
    if hint:
        return verdict(False, hint)
    v = NEURON
    n = v["x1"] * v["w1"] + v["x2"] * v["w2"] + v["b"]
    slope = 1 - math.tanh(n) ** 2  # the tanh step
    want = {k: v[OTHER[k]] * slope for k in OTHER}
    want["b"] = slope
    wrong = [k for k in ["b", "w1", "x1", "w2", "x2"] if not _close(got[k], want[k])]
    if not wrong:
        return verdict(True)
    # Each wrong gradient divided by the right one says which step was skipped.
    without_tanh = {k: w / slope for k, w in want.items()}
    if all(_close(got[k], without_tanh[k]) for k in wrong):
        return verdict(
            False, "you skipped the tanh step: multiply by its local slope, 1 - o**2, with o = tanh(n)"
        )
    if all(_close(got[k], without_tanh[k] * (1 - n * n)) for k in wrong):
        return verdict(False, "tanh's slope is 1 - o**2 with o the OUTPUT tanh(n), not 1 - n**2")
    k = wrong[0]
    if k == "b":
        return verdict(False, "do/db: b is added, so it gets n's grad unchanged: 1 - o**2")
    if _close(got[k], v[k] * slope):
        return verdict(
            False, f"do/d{k}: in the product, {k}'s slope is the OTHER factor, {OTHER[k]}, not {k}"
        )
    return verdict(False, f"do/d{k}: ({OTHER[k]}, the other factor) × (1 - o**2, the tanh step)")


@solution("ch03.neuron_grads", check=check_neuron_grads)
def neuron_grads():
    x1, x2, w1, w2, b = 1.0, 0.5, 2.0, -2.0, -0.5
    n = x1 * w1 + x2 * w2 + b  # 0.5
    o = math.tanh(n)
    n_grad = 1 - o**2  # tanh's local slope, times o's grad of 1
    # the + nodes pass n_grad on unchanged; each product swaps in the other factor
    return {"x1": w1 * n_grad, "w1": x1 * n_grad, "x2": w2 * n_grad, "w2": x2 * n_grad, "b": n_grad}


# ---- 3. a step downhill ---------------------------------------------------------------------------


def _L(a, b, c, f):
    return (a * b + c) * f


def check_step_downhill(new_L):
    """new_L: L = (a*b + c)*f after moving each leaf by -0.01 × its gradient."""
    if callable(new_L):
        new_L, err = attempt(new_L)
        if err:
            return verdict(False, err)
    new_L = getattr(new_L, "data", new_L)
    if isinstance(new_L, bool) or not isinstance(new_L, numbers.Real) or not math.isfinite(new_L):
        return verdict(False, f"submit the new value of L as a number, got {new_L!r}")
    grads = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    start = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}
    down = _L(*(start[k] - 0.01 * grads[k] for k in "abcf"))  # -8.7263
    if _close(new_L, down):
        return verdict(True)
    if _close(new_L, _L(*(start[k] + 0.01 * grads[k] for k in "abcf"))):
        return verdict(False, "that is the step UPHILL (L rose); subtract 0.01 × grad to make L smaller")
    if _close(new_L, -8.0):
        return verdict(False, "L has not changed: recompute L = (a*b + c)*f from the moved leaves")
    if _close(new_L, -8.0 - 0.01 * 72):
        return verdict(
            False, "that is the first-order prediction -8 - 0.72; recompute L exactly from the leaves"
        )
    return verdict(False, "move a, b, c and f each by -0.01 × its grad (6, -4, -2, 4), then recompute L")


@solution("ch03.step_downhill", check=check_step_downhill)
def step_downhill():
    a, b, c, f = 2.0, -3.0, 10.0, -2.0
    grads = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    a -= 0.01 * grads["a"]
    b -= 0.01 * grads["b"]
    c -= 0.01 * grads["c"]
    f -= 0.01 * grads["f"]
    return (a * b + c) * f
