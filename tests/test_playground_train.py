"""Training live in the playground, on its Python side (website/playground/playground.py), run here in
CPython: the train example, what show_training sends the page, and that the network and its
optimisers need no NumPy (the browser's Python has none). The browser test drives the page."""

import contextlib
import gc
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAYGROUND = ROOT / "website" / "playground"
sys.path.insert(0, str(PLAYGROUND))
import playground  # noqa: E402
import runner  # noqa: E402

from micrograd_lesson.engine import Value  # noqa: E402
from micrograd_lesson.nn import MLP, Layer, Neuron  # noqa: E402

EXAMPLES = json.loads((PLAYGROUND / "examples.json").read_text(encoding="utf-8"))
TRAIN = next(e for e in EXAMPLES if e.get("train"))


def shortened(code, steps):
    """The train example with `steps` steps instead of its own number."""
    assert "STEPS = " in code
    lines = code.splitlines()
    return "\n".join(f"STEPS = {steps}" if line.startswith("STEPS = ") else line for line in lines)


@contextlib.contextmanager
def collector_paused():
    """Training's graphs hold no cycles (chapter 9): with the cycle collector paused a step costs
    about half the CPU time, and trains the same."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_the_network_and_its_optimisers_train_without_numpy():
    """What the playground imports in the browser, where there is no NumPy: nn, optim's SGD and Adam."""
    code = """
import sys
sys.modules["numpy"] = None  # import numpy now fails, as in the browser
from micrograd_lesson.nn import MLP
from micrograd_lesson.optim import SGD, Adam
import random
random.seed(1)
for make in (lambda ps: SGD(ps, lr=0.05, momentum=0.9), lambda ps: Adam(ps, lr=0.05)):
    model = MLP(2, [4, 1])
    opt = make(model.parameters())
    losses = []
    for _ in range(20):
        loss = sum((model(x) - y) ** 2 for x, y in [([0.0, 1.0], 1.0), ([1.0, 0.0], -1.0)])
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.data)
    assert losses[-1] < losses[0] / 4, losses
try:
    SGD([1.0], lr=0.1)
except TypeError as e:
    print(e)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "needs Value or Tensor parameters, but item 0 is float" in out.stdout


def test_the_site_copies_nn_optim_and_playground_but_no_tensor_module():
    sys.path.insert(0, str(ROOT / "website"))
    import build

    files = build.python_files()
    assert {"playground.py", "micrograd_lesson/nn.py", "micrograd_lesson/optim.py"} <= set(files)
    assert "micrograd_lesson/tensor.py" not in files  # it needs NumPy: the browser could not import it


def test_a_short_run_of_the_train_example_sends_the_losses_and_the_boundary():
    with collector_paused():
        result = runner.run(shortened(TRAIN["code"], 6))
    assert "error" not in result, result.get("error")
    sent = [*playground.SENT, result["training"]]
    assert [m["step"] for m in sent] == [0, 4, 5]  # the first call, every 5th, and the end
    losses = [loss for m in sent for _, loss in m["losses"]]
    assert [s for m in sent for s, _ in m["losses"]] == list(range(6))  # each step's loss once
    assert losses[-1] < losses[0]
    for picture in sent:
        assert len(picture["cells"]) == playground.GRID**2 and set(picture["cells"]) <= {"0", "1"}
        assert len(picture["points"]) == 100 and {p[2] for p in picture["points"]} == {-1, 1}
        x0, x1, y0, y1 = picture["box"]
        assert all(x0 < x < x1 and y0 < y < y1 for x, y, _ in picture["points"])
        json.dumps(picture, allow_nan=False)  # what the worker posts: plain JSON
    assert result["training"]["summary"]["steps"] == 6


@pytest.mark.slow
def test_the_train_example_learns_the_moons():
    """The example as the page runs it: the loss falls and the points are learned (4 s of CPU)."""
    with collector_paused():
        summary = runner.run(TRAIN["code"])["training"]["summary"]
    assert summary["last_loss"] < summary["first_loss"] / 5, summary
    assert summary["accuracy"] >= 0.95, summary


def test_after_a_training_run_other_code_gets_its_graph_again():
    runner.run(shortened(TRAIN["code"], 1))
    result = runner.run('a = Value(2.0, label="a"); b = a * a; b.backward()')
    assert "training" not in result and result["root"] == "b" and playground.SENT == []


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid"])
def test_the_boundary_scores_in_floats_are_the_models_own(activation):
    random.seed(3)
    models = [MLP(2, [5, 4, 1], activation=activation), Layer(2, 1, activation=activation),
              Neuron(2, activation=activation)]  # fmt: skip
    for model in models:
        for point in ([0.3, -1.2], [2.0, 0.5], [-40.0, 7.0]):
            ours = playground.predict(model, point)
            assert math.isclose(ours, model(point).data, rel_tol=1e-12, abs_tol=1e-12), (model, point)


def test_an_nn_model_is_scored_without_calling_it_even_from_another_copy_of_nn(monkeypatch):
    """The boundary's hundreds of points are scored in floats, not by building Values; and a model
    whose class is not playground's own nn.MLP (a reloaded module's, the reader's) counts as well."""
    random.seed(4)
    model = MLP(2, [3, 1])
    expected = model([0.5, -0.5]).data
    monkeypatch.setattr(MLP, "__call__", lambda *_: pytest.fail("the model was called"))
    assert math.isclose(playground.predict(model, [0.5, -0.5]), expected, rel_tol=1e-12)

    class LookAlike:  # nn.MLP's shape, another class
        layers = model.layers

    assert math.isclose(playground.predict(LookAlike(), [0.5, -0.5]), expected, rel_tol=1e-12)


def test_any_callable_model_is_scored_by_calling_it():
    def model(p):
        return Value(p[0]) - p[1]

    assert playground.predict(model, [3.0, 1.0]) == 2.0


@pytest.mark.parametrize(
    "call, error",
    [
        ("show_training('a', loss, model, points, labels)", "show_training needs the step number"),
        ("show_training(0, loss, 'model', points, labels)", "show_training needs the model"),
        ("show_training(0, loss, model, points, [0, 1])", "labels are -1 or +1"),
        ("show_training(0, loss, model, points, [1])", "one label per point, got 2 points and 1 labels"),
        ("show_training(0, loss, model, [[1, 2, 3], [0, 0]], labels)", "point 0 should be [x, y]"),
        ("show_training(0, loss, model, [[1, float('nan')], [0, 0]], labels)", "point 0 is not finite"),
        ("show_training(0, 'big', model, points, labels)", "loss should be one number"),
        ("show_training(0, loss, model, points, labels, every=0)", "every must be a whole number >= 1"),
        ("show_training(0, loss, model, [[0, 0]] * 5000, [1] * 5000)", "at most 2000 points"),
    ],
)
def test_bad_input_to_show_training_is_a_clear_one_line_error(call, error):
    code = (
        "from micrograd_lesson.nn import MLP\nfrom playground import show_training\n"
        "model = MLP(2, [3, 1]); points = [[0.0, 1.0], [1.0, 0.0]]; labels = [1, -1]; loss = Value(1.0)\n"
        f"{call}\n"
    )
    result = runner.run(code)
    assert error in result.get("error", "") and "(line 4)" in result["error"], result


def test_a_loss_that_is_not_finite_is_sent_as_null_not_as_invalid_json():
    code = (
        "from micrograd_lesson.nn import MLP\nfrom playground import show_training\n"
        "model = MLP(2, [3, 1])\n"
        "for step, loss in enumerate([1.0, float('nan'), float('inf')]):\n"
        "    show_training(step, loss, model, [[0.0, 1.0], [1.0, 0.0]], [1, -1])\n"
    )
    result = runner.run(code)
    losses = [loss for m in [*playground.SENT, result["training"]] for _, loss in m["losses"]]
    assert losses == [1.0, None, None]
    json.dumps(result["training"], allow_nan=False)
