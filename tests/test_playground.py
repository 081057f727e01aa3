"""The playground's Python side (website/playground/runner.py), run here in CPython: the very file
the page runs in the browser. Its examples, errors and sliders; the browser test drives the page."""

import builtins
import json
import math
import sys
from pathlib import Path

import pytest

PLAYGROUND = Path(__file__).resolve().parents[1] / "website" / "playground"
sys.path.insert(0, str(PLAYGROUND))
import runner  # noqa: E402

from micrograd_lesson.engine import Value  # noqa: E402

EXAMPLES = json.loads((PLAYGROUND / "examples.json").read_text(encoding="utf-8"))
EXAMPLES = [e for e in EXAMPLES if not e.get("train")]  # the train example: test_playground_train.py


def leaf_grads_by_central_differences(code, result, h=1e-6):
    """d(root)/d(leaf) for each leaf with a slider, from the root's value with that leaf nudged by -h and +h
    through the slider's own override."""

    def root_data(leaf, x):
        return runner.run(code, overrides={leaf["key"]: x})["value"]

    return {
        leaf["label"]: (root_data(leaf, leaf["data"] + h) - root_data(leaf, leaf["data"] - h)) / (2 * h)
        for leaf in result["leaves"]
    }


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"ch{e['chapter']:02d}" for e in EXAMPLES])
def test_each_example_shows_the_gradients_that_central_differences_give(example):
    result = runner.run(example["code"])
    assert "error" not in result, result.get("error")
    grads = {v["label"]: float(v["grad"]) for v in result["values"]}
    numeric = leaf_grads_by_central_differences(example["code"], result)
    assert numeric and all(math.isclose(grads[k], numeric[k], abs_tol=1e-4) for k in numeric), (
        grads,
        numeric,
    )
    assert len(result["frames"]) >= 2 and result["frames"][0]["caption"].startswith("step 0")
    assert result["dot"].startswith("digraph")


def test_the_examples_come_from_chapters_2_to_5_and_show_the_a_plus_a_case():
    assert sorted(e["chapter"] for e in EXAMPLES) == [2, 3, 4, 5]
    twice = runner.run(next(e["code"] for e in EXAMPLES if "a + a" in e["code"]))
    assert {v["label"]: v["grad"] for v in twice["values"]}["a"] == "2.0000"  # both uses of a count


def test_the_readme_example_gives_its_gradients():
    result = runner.run('a = Value(2.0, label="a"); b = Value(-3.0, label="b"); c = a*b + a; c.backward()')
    assert {v["label"]: v["grad"] for v in result["values"]} == {"a": "-2.0000", "b": "2.0000", "c": "1.0000"}
    assert result["root"] == "c"  # named c, so labelled c
    assert "a: data 2.0000, grad -2.0000" in result["summary"]  # the drawing's text alternative


@pytest.mark.parametrize(
    "code, error",
    [
        ("a = Value(2.0)\nb = a *\n", "SyntaxError: invalid syntax (line 2)"),
        ("a = Value(-1.0)\nb = a.log()\n", "ValueError: log needs a positive input, got -1.0 (line 2)"),
        ("x = y + 1\n", "NameError: name 'y' is not defined (line 1)"),
        ("x = 3\n", "no Value to draw: the last Value assigned to a name outside any function is drawn"),
        ("a = Value(1.0)\nb = a / 0\n", "ZeroDivisionError: division by zero: Value(data=1.0, grad=0.0) / "),
    ],
)
def test_an_error_is_one_line_that_names_it_and_its_line(code, error):
    result = runner.run(code)
    assert set(result) <= {"error", "printed"}
    assert result["error"].startswith(error) and "\n" not in result["error"]


def slider(result, label):
    return next(leaf["key"] for leaf in result["leaves"] if leaf["label"] == label)


def test_a_slider_changes_its_input_and_nothing_else():
    code = 'a = Value(2.0, label="a")\nk = Value(2.0, label="k")\nb = a * k\nb.backward()\n'
    result = runner.run(code, overrides={slider(runner.run(code), "a"): 5.0})
    values = {v["label"]: (v["data"], v["grad"]) for v in result["values"]}
    assert values == {"a": ("5.0000", "2.0000"), "k": ("2.0000", "5.0000"), "b": ("10.0000", "1.0000")}


def test_what_the_code_prints_is_kept_and_a_big_graph_is_drawn_without_steps():
    result = runner.run("print('hello')\nx = Value(1.0)\nfor _ in range(60):\n    x = x * 1.0\n")
    assert result["printed"] == "hello\n" and result["frames"] == [] and result["dot"].startswith("digraph")


@pytest.mark.parametrize(
    "code, label, other",
    [
        ("a = Value(2.0)\nb = Value(-3.0)\nc = a * b\nc.backward()\n", "a", "b"),  # labelled by its name
        (
            'xs = [Value(float(i + 1), label=f"x{i}") for i in range(2)]\ny = xs[0] * xs[1]\ny.backward()\n',
            "x0",
            "x1",
        ),
        ("a = Value(2.0)\na.label = 'a'\nb = Value(-3.0, label='b')\nc = a * b\nc.backward()\n", "a", "b"),
    ],
    ids=["name", "f-string", "label set later"],
)
def test_every_labelled_input_gets_a_slider_that_works_however_it_got_its_label(code, label, other):
    result = runner.run(code)
    moved = runner.run(code, overrides={slider(result, label): 7.0})
    grads = {v["label"]: v["grad"] for v in moved["values"]}
    assert grads[other] == "7.0000"  # d(a*b)/db is a, now 7


def test_a_value_made_inside_a_library_gets_no_slider_rather_than_one_that_does_nothing():
    code = "from micrograd_lesson.nn import Neuron\nimport random\nrandom.seed(1)\n"
    code += "n = Neuron(2)\nout = n([1.0, 2.0])\n"
    result = runner.run(code)
    assert result["leaves"] == [] and {"w0", "w1", "b"} <= {v["label"] for v in result["values"]}


def test_an_mlps_parameters_are_named_by_layer_neuron_and_weight():
    code = "from micrograd_lesson.nn import MLP\nimport random\nrandom.seed(0)\nmodel = MLP(2, [3, 1])\n"
    result = runner.run(code + "out = model([1.0, -2.0])\nout.backward()\n")
    labels = {v["label"] for v in result["values"]}
    assert {"L0.N0.w0", "L0.N2.w1", "L0.N1.b", "L1.N0.w2", "L1.N0.b"} <= labels


def test_a_patch_lasts_one_run():
    patches = [
        "from micrograd_lesson.engine import Value as V\nV.__mul__ = lambda s, o: V(42.0)\n",
        "import runner\nrunner.describe = lambda *args, **kwargs: 1 / 0\n",
        "import builtins\nbuiltins.abs = lambda x: 42\nbuiltins.extra = 1\n",
        "import sys\nsys.setrecursionlimit(50)\n",
    ]
    plain = "a = Value(-2.0)\nb = a * a\nb.backward()\nc = abs(3)\n"
    limit = sys.getrecursionlimit()
    for patch in patches:
        runner.run_fresh(patch + "x = Value(1.0)\n")
        after = runner.run_fresh(plain)
        assert {v["label"]: v["data"] for v in after["values"]}["b"] == "4.0000", patch
    assert sys.getrecursionlimit() == limit and abs(-3) == 3 and not hasattr(builtins, "extra")
    assert sys.modules["micrograd_lesson.engine"].Value is Value and sys.modules["runner"] is runner


@pytest.mark.parametrize(
    "code, expected",
    [
        ("import sys\na = Value(2.0)\nsys.exit()\n", {"note": "The code ended with sys.exit() (line 3)"}),
        ("x = input('x? ')\n", {"error": "input() has no keyboard to read in the playground"}),
        ("raise KeyboardInterrupt\n", {"error": "KeyboardInterrupt: the run was interrupted (line 1)"}),
        ("raise SystemExit(3)\na = Value(1.0)\n", {"error": "no Value to draw"}),
        (
            "def f():\n    a = Value(2.0)\n    return a * 3\nf()\n",
            {
                "error": "no Value to draw: the last Value assigned to a name outside any function is drawn,"
                " and this code made its Values only inside a function"
            },
        ),
    ],
    ids=["sys.exit", "input", "KeyboardInterrupt", "exit before any Value", "only in a function"],
)
def test_every_way_code_ends_has_a_message(code, expected):
    result = runner.run(code)
    for key, start in expected.items():
        assert result[key].startswith(start), result


def test_a_value_made_in_a_loop_is_drawn():
    result = runner.run("for i in range(3):\n    x = Value(float(i))\n    y = x * 2\n")
    assert result["root"] == "y" and result["value"] == 4.0


def test_nan_inf_and_huge_numbers_are_shown_as_text_and_leave_as_valid_json():
    code = 'a = Value(float("nan"), label="a")\nb = Value(1e308, label="b")\n'
    code += 'c = Value(float("-inf"), label="c")\nd = a + b + c\n'
    result = runner.run(code)
    json.dumps(result, allow_nan=False)  # what the worker sends: no NaN, which JSON.parse rejects
    shown = {v["label"]: v["data"] for v in result["values"]}
    assert shown == {"d": "nan", "a": "nan", "b": "1.0000e+308", "c": "-inf"}
    assert {leaf["label"]: leaf["data"] for leaf in result["leaves"]} == {"a": None, "b": 1e308, "c": None}


def test_printing_a_lot_is_capped_with_a_count_of_the_rest():
    result = runner.run("for i in range(100000):\n    print(i)\na = Value(1.0)\n")
    lines = result["printed"].splitlines()
    assert lines[: runner.MAX_PRINTED_LINES] == [str(i) for i in range(runner.MAX_PRINTED_LINES)]
    assert lines[-1] == f"… {100000 - runner.MAX_PRINTED_LINES:,} more lines"
    one_long_line = runner.run("print('x' * 10**6)\na = Value(1.0)\n")["printed"]
    assert len(one_long_line) < 2 * runner.MAX_PRINTED_CHARS


def test_a_graph_too_big_to_draw_still_lists_its_values_and_grads_and_says_what_to_do():
    code = 'x = Value(0.5, label="x")\ny = x\nfor i in range(600):\n    y = y * 1.0001 + 0.0\ny.backward()\n'
    result = runner.run(code)
    assert "error" not in result and result["dot"] is None and result["frames"] == []
    assert "too many to draw" in result["too_big"] and "assign a smaller piece last" in result["too_big"]
    grads = {v["label"]: float(v["grad"]) for v in result["values"]}
    assert math.isclose(grads["x"], 1.0001**600, rel_tol=1e-4)
