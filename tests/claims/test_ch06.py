"""Chapter 6's verdicts, re-run at other inputs, seeds and bug sizes."""

import math
import random

import numpy as np
import pytest
from claimlib import chapter_namespace, claim

from micrograd_lesson import MLP, Value, four_examples, gradcheck, make_moons
from micrograd_lesson.gradcheck import gradcheck_parameters

try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:
    MicrogradValue = None


@pytest.fixture(scope="module")
def ch06():
    return chapter_namespace("06")


def log_off_by(factor):
    """A log whose local derivative is (1/x) * factor."""

    def log(x):
        return Value(math.log(x.data), (x,), "log", _local_grads=(factor / x.data,))

    return log


@claim("ch06-tolerance-blind-spot")
def test_the_tolerance_misses_small_mistakes_and_catches_larger_ones(ch06):
    log_slightly_off = ch06["log_slightly_off"]
    assert gradcheck(log_slightly_off, [2.0])  # the notebook's miss
    assert not gradcheck(log_slightly_off, [0.5]) and not gradcheck(log_slightly_off, [0.05])
    for x in np.random.default_rng(6).uniform(0.2, 5.0, size=5).tolist():
        # the same wrong derivative passes wherever its relative error is below 1e-4, fails where above
        relative = 1e-4 / (x + 1e-4)
        assert bool(gradcheck(log_slightly_off, [x])) == (relative < 1e-4 - 1e-6), x
        for sign in (1, -1):
            assert gradcheck(log_off_by(1 + sign * 3e-5), [x]), x  # three times below the line: missed
            assert not gradcheck(log_off_by(1 + sign * 3e-4), [x]), x  # three times above: caught


@claim("ch06-every-operation-passes")
def test_every_operation_passes_on_other_draws(ch06):
    largest = []
    for seed in range(40):  # the notebook's draw and 39 more
        max_errors, passed = ch06["check_every_operation"](seed)
        assert all(passed.values()), (seed, passed)
        largest.append(max(max_errors.values()))
    assert max(largest) < 1.2e-8, max(largest)  # about two powers of ten under the 1e-6 line
    assert sum(e >= 1e-8 for e in largest) == 2, largest  # below 1e-8 on 38 of the 40 draws


def whole_network_check(seed, tanh=None):
    """gradcheck of the 41-parameter network's loss on the four examples, optionally with another tanh."""
    xs4, ys4 = four_examples()
    random.seed(seed)
    net = MLP(3, [4, 4, 1], activation="tanh")

    def loss():
        return sum((net(x) - y) ** 2 for x, y in zip(xs4, ys4))

    real_tanh = Value.tanh
    Value.tanh = tanh or real_tanh
    try:
        return gradcheck_parameters(loss, net.parameters())
    finally:
        Value.tanh = real_tanh


@claim("ch06-whole-network-passes")
def test_the_whole_network_check_passes_for_networks_from_other_seeds(ch06):
    for seed in range(1, 28):  # 26 seeds besides the notebook's 1
        right = whole_network_check(seed)
        assert right.ok and right.max_rel_error < 1e-6, (seed, right.max_rel_error)


@claim("ch06-bug-behind-every-tanh")
@pytest.mark.slow
def test_the_tanh_bug_fails_exactly_the_parameters_behind_a_tanh(ch06):
    wrong_first_digit = []
    for seed in range(1, 28):
        broken = whole_network_check(seed, tanh=ch06["tanh_forgot_square"])
        failing = [i for i, r in enumerate(broken.rel_errors) if r > 1e-4]
        assert failing == list(range(36)), (seed, failing)  # all but the linear output neuron's 5
        wrong_first_digit.append(sum(r > 0.5 for r in broken.rel_errors))
    assert min(wrong_first_digit) == 13 and max(wrong_first_digit) == 31, wrong_first_digit  # it varies


@claim("ch06-composite-property")
def test_the_composite_property_holds_on_a_thousand_more_pairs(ch06):
    composite = ch06["composite"]
    for a, b in np.random.default_rng(7).uniform(-3, 3, size=(1000, 2)).tolist():
        assert gradcheck(composite, [a, b]), (a, b)


@claim("ch06-micrograd-compounds")
@pytest.mark.skipif(MicrogradValue is None, reason="micrograd is not installed")
def test_micrograd_compounds_a_stale_interior_gradient_on_every_call():
    for a0 in (2.0, -1.5, 0.7):
        a = MicrogradValue(a0)
        b = a * a
        c = b * 3
        for call in range(1, 11):
            c.backward()
            assert b.grad == 3 * call  # one more stale copy per call
            assert math.isclose(a.grad, 6 * a0 * call * (call + 1) / 2)  # 6a, 6a + 12a, ...: not 6a per call


@claim("ch06-sampled-bug-behind-tanh")
@pytest.mark.slow
def test_the_tanh_bug_fails_every_row_behind_a_tanh_of_the_big_network(ch06):
    tanh_forgot_square = ch06["tanh_forgot_square"]
    smallest = []
    for data_seed, weight_seed in [(0, 3), (1, 2), (2, 4), (3, 5), (4, 6)]:
        X, y = make_moons(n_samples=10, noise=0.1, seed=data_seed)
        random.seed(weight_seed)
        big = MLP(2, [16, 16, 1], activation="tanh")

        def big_loss(big=big, X=X, y=y):
            return sum((big(x) - t) ** 2 for x, t in zip(X.tolist(), y.tolist()))

        real_tanh = Value.tanh
        Value.tanh = tanh_forgot_square
        try:
            broken = gradcheck_parameters(big_loss, big.parameters())
        finally:
            Value.tanh = real_tanh
        behind, output = broken.rel_errors[:320], broken.rel_errors[320:]
        assert len(output) == 17
        assert all(r > 1e-4 for r in behind), (data_seed, weight_seed, min(behind))
        assert all(r <= 1e-4 for r in output), (data_seed, weight_seed, max(output))
        smallest.append(min(behind))
    assert min(smallest) < 3e-4  # the close call the prose names: just over the line
