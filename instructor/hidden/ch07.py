"""Hidden cases for chapter 7: other sizes than the notebook's check tries."""

from micrograd_lesson.engine import Value
from micrograd_lesson.exercises._core import Missed, Verdict, as_number, attempt, hidden, shown


def _params(nin, nouts):
    sizes = [nin, *nouts]
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


@hidden("ch07.widest_hidden")
def widest_hidden_far_from_the_examples(widest_hidden):
    """Budgets exactly at and one below a count, for inputs and sizes the check does not try:
    an answer fitted to the check's cases, or a float square root that rounds wrongly, fails; so does
    one that builds networks, as in the check."""
    from micrograd_lesson.exercises.ch07 import WIDTH_BUILT_HINT, predicting

    guarded, tried = predicting(widest_hidden) if callable(widest_hidden) else (widest_hidden, [])
    for size, nin, h in [
        ("the smallest network", 1, 1),
        ("a small network", 7, 3),
        ("a network of many inputs", 64, 100),
        ("a very wide network of one input", 1, 10**6),
        ("a wide network of many inputs", 300, 12345),
    ]:
        at = _params(nin, [h, h, 1])
        for where, budget, want in [("exactly at", at, h), ("one below", at - 1, h - 1)]:
            got, error = attempt(guarded, nin, budget)
            if tried:
                return Verdict(False, WIDTH_BUILT_HINT)
            if error or as_number(got) != want:
                gave = error or shown(got)
                kind = f"{size}, with a budget {where} a width's parameter count"
                return Missed(kind, gave, f"widest_hidden({nin}, {budget}) should be {want}, got {gave}")
    return Verdict(True)


@hidden("ch07.leaky_neuron")
def leaky_neuron_of_another_size(LeakyNeuron):
    """LeakyNeuron(5) on 5 inputs: a neuron that reads only the first 3 passes the check but not this."""
    neuron, error = attempt(LeakyNeuron, 5)
    params, error = attempt(neuron.parameters) if not error else (None, error)
    if error or not isinstance(params, list) or len(params) != 6:
        gave = error or f"parameters() {shown(params)}"
        return Missed(
            "a neuron of five inputs", gave, f"LeakyNeuron(5).parameters() should hold 6 Values: {gave}"
        )
    weights = [0.3, -0.2, 0.5, 1.0, -0.4, 0.05]  # w1..w5, then b, in the order parameters() lists them
    for p, v in zip(params, weights):
        p.data, p.grad = v, 0.0
    for kind, x in [
        ("a neuron of five inputs, positive pre-activation", [1.0, 2.0, 3.0, 1.0, 2.0]),
        ("a neuron of five inputs, negative pre-activation", [-1.0, 0.0, -2.0, -3.0, 1.0]),
    ]:
        a = sum(w * xi for w, xi in zip(weights, x)) + weights[-1]
        want = a if a > 0 else 0.01 * a
        out, error = attempt(neuron, x)
        if not error and not isinstance(out, Value):
            error = f"a {type(out).__name__}, not a Value"
        if error or abs(out.data - want) > 1e-9:
            gave = error or shown(out)
            return Missed(kind, gave, f"LeakyNeuron(5) on {x} should give {want:.4f}, got {gave}")
    return Verdict(True)


@hidden("ch07.count_loss_nodes")
def count_loss_nodes_on_other_networks(count_loss_nodes):
    """Deeper, wider and single-neuron networks than the check tries, and two too big to build, with
    Value construction refused as in the check."""
    from micrograd_lesson.exercises.ch07 import BUILT_HINT, _loss_nodes, _true_loss_node_count, predicting

    built = [(2, [3, 3, 3, 1], 2), (6, [8, 1], 7), (1, [1], 1), (3, [2, 4, 2, 1], 3)]
    too_big = [(3072, [2048, 1024, 1], 50000), (20, [300, 1], 10**7)]
    guarded, tried = predicting(count_loss_nodes) if callable(count_loss_nodes) else (count_loss_nodes, [])
    for case in built + too_big:
        got, error = attempt(guarded, *case)
        if tried:
            return Verdict(False, BUILT_HINT)
        want = _true_loss_node_count(*case) if case in built else _loss_nodes(*case)
        if error or as_number(got) != want:
            gave = error or shown(got)
            kind = (
                "a network too big to build"
                if case in too_big
                else "a deeper, wider or single-neuron network"
            )
            return Missed(kind, gave, f"count_loss_nodes{case} should be {want}, got {gave}")
    return Verdict(True)
