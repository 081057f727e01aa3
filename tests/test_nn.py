"""Neurons, layers and MLPs: sizes, activations, gradients, reprs, errors."""

import math
import random

import pytest

from micrograd_lesson.engine import Value
from micrograd_lesson.nn import MLP, Layer, Module, Neuron


def count_by_formula(nin, nouts):
    """Each layer has (inputs + 1 bias) weights per neuron."""
    sizes = [nin] + list(nouts)
    return sum((sizes[i] + 1) * sizes[i + 1] for i in range(len(nouts)))


@pytest.mark.parametrize("nin, nouts, expected", [(3, [4, 4, 1], 41), (2, [16, 16, 1], 337)])
def test_parameter_counts(nin, nouts, expected):
    model = MLP(nin, nouts)
    assert len(model.parameters()) == expected == count_by_formula(nin, nouts)
    assert len({id(p) for p in model.parameters()}) == expected  # no parameter listed twice
    assert all(isinstance(p, Value) for p in model.parameters())


def test_last_layer_is_linear_and_the_others_are_not():
    model = MLP(3, [4, 5, 2])
    *hidden, last = model.layers
    assert all(n.nonlin and n.activation == "relu" for layer in hidden for n in layer.neurons)
    assert all(not n.nonlin and n.activation == "linear" for n in last.neurons)


def test_hidden_relu_outputs_are_never_negative_but_the_output_can_be():
    random.seed(3)
    model = MLP(2, [8, 1])
    outputs = []
    for x in ([1.0, -2.0], [-3.0, 0.5], [2.5, 2.5], [-1.0, -1.0]):
        hidden = model.layers[0](x)
        assert all(h.data >= 0 for h in hidden)
        outputs.append(model(x).data)
    assert min(outputs) < 0  # the linear output layer is not clipped at zero
    random.seed(3)
    assert MLP(2, [8, 1])([1.0, -2.0]).data == outputs[0]


def test_a_neuron_computes_activation_of_w_dot_x_plus_b():
    random.seed(1)
    n = Neuron(3, activation="tanh")
    n.b.data = 0.25
    x = [0.5, -1.0, 2.0]
    pre = sum(w.data * xi for w, xi in zip(n.w, x)) + 0.25
    assert n(x).data == pytest.approx(math.tanh(pre), rel=1e-15)
    assert Neuron(3, nonlin=False)(x)._op == "+"  # linear: the sum itself


def test_tanh_option_reaches_every_hidden_neuron():
    model = MLP(2, [3, 3, 1], activation="tanh")
    ops = {n._op for n in model([0.3, -0.7]).topological_order()}
    assert "tanh" in ops and "ReLU" not in ops
    assert all(n.activation == "tanh" for layer in model.layers[:-1] for n in layer.neurons)
    assert all(-1 < h.data < 1 for h in model.layers[0]([5.0, -4.0]))


def test_neuron_gradients_are_the_inputs_times_the_activation_slope():
    n = Neuron(2, activation="tanh")
    out = n([2.0, -1.0])
    out.backward()
    slope = 1 - out.data**2
    assert n.w[0].grad == pytest.approx(2.0 * slope)
    assert n.w[1].grad == pytest.approx(-1.0 * slope)
    assert n.b.grad == pytest.approx(slope)


def test_zero_grad_resets_every_parameter():
    random.seed(0)
    model = MLP(3, [4, 4, 1])
    loss = sum((model(x) - y) ** 2 for x, y in [([1.0, 2.0, 3.0], 1.0), ([-1.0, 0.5, 2.0], -1.0)])
    loss.backward()
    assert any(p.grad != 0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_a_layer_returns_one_value_or_a_list_and_reads_generators_once():
    one, three = Layer(2, 1), Layer(2, 3)
    assert isinstance(one([1.0, 2.0]), Value)
    out = three(x for x in [1.0, 2.0])  # a generator: every neuron must see both inputs
    assert isinstance(out, list) and len(out) == 3
    assert [o.data for o in out] == [o.data for o in three([1.0, 2.0])]


def test_reprs_name_the_structure():
    assert repr(Neuron(2)) == "ReLUNeuron(2)"
    assert repr(Neuron(2, nonlin=False)) == "LinearNeuron(2)"
    assert repr(Neuron(4, activation="tanh")) == "TanhNeuron(4)"
    assert repr(MLP(2, [3, 1])) == (
        "MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2), ReLUNeuron(2)], Layer of [LinearNeuron(3)]]"
    )


def test_seeded_construction_is_reproducible():
    random.seed(42)
    a = [p.data for p in MLP(3, [4, 4, 1]).parameters()]
    random.seed(42)
    b = [p.data for p in MLP(3, [4, 4, 1]).parameters()]
    random.seed(43)
    c = [p.data for p in MLP(3, [4, 4, 1]).parameters()]
    assert a == b
    assert a != c
    assert all(-1 <= w <= 1 for w in a)


def test_module_base_class():
    m = Module()
    assert m.parameters() == []
    m.zero_grad()  # nothing to do, and no error


def test_wrong_number_of_inputs_names_both_counts():
    with pytest.raises(ValueError, match="takes 3 inputs, got 2"):
        Neuron(3)([1.0, 2.0])
    with pytest.raises(ValueError, match="takes 2 inputs, got 3"):
        MLP(2, [4, 1])([1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "make", [lambda: Neuron(2, activation="softmax"), lambda: MLP(2, [3, 1], activation="softmax")]
)
def test_unknown_activation_is_refused(make):
    with pytest.raises(ValueError, match="activation must be one of.*'softmax'"):
        make()


@pytest.mark.parametrize("make, text", [(lambda: Neuron(0), "nin=0"), (lambda: Layer(2, 0), "nout=0")])
def test_sizes_must_be_positive(make, text):
    with pytest.raises(ValueError, match=text):
        make()


def test_nonlin_is_a_plain_settable_attribute_kept_in_step_with_activation():
    random.seed(0)
    n = Neuron(2, activation="tanh")
    x = [1.5, -0.5]
    assert n(x)._op == "tanh" and n.nonlin is True
    n.nonlin = False  # as micrograd's code may do
    assert n(x)._op == "+" and n.activation == "linear" and repr(n) == "LinearNeuron(2)"
    n.nonlin = True  # back to the nonlinearity it was made with
    assert n(x)._op == "tanh" and n.activation == "tanh"
    n.activation = "linear"
    assert n.nonlin is False and n(x)._op == "+"
    n.activation = "sigmoid"
    assert n.nonlin is True and n(x)._op == "sigmoid"
    with pytest.raises(ValueError, match="activation must be one of.*'gelu'"):
        n.activation = "gelu"
    assert not Neuron(2, activation="linear").nonlin


def test_micrograd_demo_code_runs_unchanged_and_matches_micrograd():
    """The loss cell of micrograd's demo.ipynb, written as there (NumPy inputs, map, a
    batch), run on both engines from the same weights: the same loss and gradients."""
    micrograd = pytest.importorskip("micrograd.nn")
    from micrograd.engine import Value as TheirValue

    from micrograd_lesson.datasets import make_moons

    X, y = make_moons(20, noise=0.1, seed=1)

    def demo_loss(Value, model):
        Xb, yb = X, y
        inputs = [list(map(Value, xrow)) for xrow in Xb]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(yb, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum(p * p for p in model.parameters())
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(yb, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    random.seed(5)
    ours = MLP(2, [16, 16, 1])
    theirs = micrograd.MLP(2, [16, 16, 1])
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        q.data = p.data
    for k in range(3):  # the demo's optimisation loop, three steps
        results = []
        for engine, model in ((Value, ours), (TheirValue, theirs)):
            total_loss, acc = demo_loss(engine, model)
            model.zero_grad()
            total_loss.backward()
            learning_rate = 1.0 - 0.9 * k / 100
            for p in model.parameters():
                p.data -= learning_rate * p.grad
            results.append((total_loss.data, acc, [p.grad for p in model.parameters()]))
        (loss, acc, grads), (their_loss, their_acc, their_grads) = results
        assert loss == pytest.approx(their_loss, rel=1e-12) and acc == their_acc
        assert grads == pytest.approx(their_grads, rel=1e-9, abs=1e-15)


def test_make_copies_makes_every_layer_one_neuron_repeated_and_backward_keeps_it_so():
    from micrograd_lesson.nn import make_copies

    random.seed(3)
    net = MLP(2, [3, 3, 1], activation="tanh")
    make_copies(net)
    loss = sum((net(x) - y) ** 2 for x, y in [([0.5, -1.0], 1.0), ([1.5, 0.25], -1.0)])
    loss.backward()
    for layer in net.layers:
        first = layer.neurons[0].parameters()
        for other in layer.neurons[1:]:
            assert [p.data for p in other.parameters()] == [p.data for p in first]
            assert [p.grad for p in other.parameters()] == [p.grad for p in first]  # the same gradient
    for layer in net.layers[1:]:  # each neuron weighs its input copies alike
        assert len({w.data for w in layer.neurons[0].w}) == 1
    assert len({n.w[0].grad for n in net.layers[0].neurons}) == 1
