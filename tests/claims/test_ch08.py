"""Chapter 8's verdicts, re-run on starting networks the chapter does not show."""

import math
import random

import pytest
from claimlib import chapter_namespace, claim

from micrograd_lesson import MLP, fit, xor


@pytest.fixture(scope="module")
def ch():
    return chapter_namespace("08")


@claim("ch08-forget-never-settles")
def test_without_zero_grad_no_network_learns_at_0_05(ch):
    for seed in range(10, 15):
        with_zeroing = ch["train"](ch["new_network"](seed), 300, lr=0.05)[-1]
        without = ch["train"](ch["new_network"](seed), 300, lr=0.05, zero_grad=False)[-1]
        assert with_zeroing < 1e-3, f"seed {seed}: with zero_grad() the loss ends at {with_zeroing:.3g}"
        assert 1e-3 < without < math.inf, f"seed {seed}: without zero_grad() the loss ends at {without:.3g}"


@claim("ch08-gradcheck-catches-bug")
def test_the_gradient_check_flags_every_parameter_behind_a_hidden_unit(ch):
    for seed in range(10, 20):
        with ch["engine_with_assigning_tanh"]():
            net = ch["SkipNet"](seed)
            check = ch["gradcheck_parameters"](lambda net=net: ch["squared_error"](net), net.parameters())
        wrong = [k for k, r in enumerate(check.rel_errors) if r > 1e-4]
        assert wrong == list(range(16)), f"seed {seed}: rows failing the check: {wrong}"
    right = ch["SkipNet"](10)  # and the right engine passes it
    check = ch["gradcheck_parameters"](lambda: ch["squared_error"](right), right.parameters())
    assert max(check.rel_errors) < 1e-4


@pytest.mark.slow
@claim("ch08-bug-race-spread")
def test_the_cost_of_the_bug_has_no_typical_size_and_its_sign_depends_on_the_grid(ch):
    ratios = []
    for seed in range(10, 15):
        runs = ch["race"](seed)
        (right_rate, right_edge), (buggy_rate, buggy_edge) = (
            ch["best_rate"](runs["right"]),
            ch["best_rate"](runs["buggy"]),
        )
        assert not (right_edge or buggy_edge), f"seed {seed}: a best rate at an end of the grid"
        ratios.append(
            ch["final_loss"](runs["buggy"][buggy_rate]) / ch["final_loss"](runs["right"][right_rate])
        )
    assert max(ratios) / min(ratios) > 100, f"the ratio is nearly the same on every seed: {ratios}"
    finer = ch["FINER"]
    runs = ch["race"](9, finer)
    right = ch["final_loss"](runs["right"][ch["best_rate"](runs["right"], finer)[0]])
    buggy = ch["final_loss"](runs["buggy"][ch["best_rate"](runs["buggy"], finer)[0]])
    assert buggy < right, "on the finer grid the buggy engine no longer wins seed 9"


@claim("ch08-xor-needs-bend")
def test_linear_models_are_stuck_on_xor_and_a_tanh_layer_solves_it(ch):
    X, y = xor()
    points, labels = X.tolist(), y.tolist()
    solved = 0
    for seed in range(10, 20):
        finals = {}
        for name, kwargs in (
            ("linear", {}),
            ("tanh", {"activation": "tanh"}),
            ("no tanh", {"activation": "linear"}),
        ):
            random.seed(seed)
            net = MLP(2, [1]) if name == "linear" else MLP(2, [4, 1], **kwargs)
            loss = lambda net=net: sum((net(p) - t) ** 2 for p, t in zip(points, labels))  # noqa: E731
            finals[name] = fit(net, loss, steps=200, lr=0.05, progress=False).loss[-1]
        assert finals["linear"] > 3.99 and finals["no tanh"] > 3.99, f"seed {seed}: {finals}"
        solved += finals["tanh"] < 0.01
    assert solved >= 8, f"the tanh network solved XOR on only {solved} of 10 seeds"


@claim("ch08-three-phases")
def test_every_start_falls_fast_then_slowly_then_creeps(ch):
    for seed in range(10, 16):
        rapid, flat, falling, final = ch["phase_borders"](seed)
        assert falling, f"seed {seed}: the loss rose on some step"
        assert rapid is not None and rapid <= 6, f"seed {seed}: below 5 % only at step {rapid}"
        assert flat is not None and flat <= 18, f"seed {seed}: below 0.1 % only at step {flat}"
        assert final < 2e-3, f"seed {seed}: loss {final:.2g} at step 59"


@claim("ch08-rate-sweep")
def test_rate_0_2_diverges_everywhere_and_0_05_beats_0_005_on_most_starts(ch):
    wins = []
    for seed in range(10, 15):
        runs = ch["rate_sweep"](seed)
        assert runs[0.2].stopped, f"seed {seed}: rate 0.2 did not blow up"
        assert not (runs[0.05].stopped or runs[0.005].stopped), f"seed {seed}: a small rate blew up"
        wins.append(runs[0.05].loss[-1] < runs[0.005].loss[-1])
    assert wins == [True, True, False, True, True], f"0.05 beat 0.005 on seeds 10-14: {wins}"


@claim("ch08-friction-mostly-fixes")
def test_friction_at_0_05_learns_on_four_of_five_starts(ch):
    finals = [
        ch["train_with_momentum"](ch["new_network"](seed), 500, lr=0.05, mu=0.9)[-1] for seed in range(10, 15)
    ]
    learned = [final < 1e-4 for final in finals]
    assert learned == [True, False, True, True, True], f"mu = 0.9 finals on seeds 10-14: {finals}"
    assert 3.9 < finals[1] < 4.1, f"seed 11 no longer stalls near 4: {finals[1]:.3g}"
