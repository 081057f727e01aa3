"""The playground's Python side (website/playground/runner.py), run here in CPython: the very file
the page runs in the browser. Its examples, errors and sliders; the browser test drives the page."""

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
    """d(root)/d(leaf) for each labelled leaf, from the root's data with that leaf nudged by -h and +h."""

    def root_data(overrides):
        namespace = {"Value": Value}
        exec(compile(runner._with_overrides(runner.ast.parse(code), overrides), "<test>", "exec"), namespace)
        return runner._last_value(runner.ast.parse(code), namespace).data

    return {
        leaf["label"]: (
            root_data({leaf["label"]: leaf["data"] + h}) - root_data({leaf["label"]: leaf["data"] - h})
        )
        / (2 * h)
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
        ("x = 3\n", "no Value to draw: assign one to a name, e.g. L = a * b (the last one is drawn)"),
        ("a = Value(1.0)\nb = a / 0\n", "ZeroDivisionError: division by zero: Value(data=1.0, grad=0.0) / "),
    ],
)
def test_an_error_is_one_line_that_names_it_and_its_line(code, error):
    result = runner.run(code)
    assert set(result) <= {"error", "printed"}
    assert result["error"].startswith(error) and "\n" not in result["error"]


def test_a_slider_changes_its_input_and_nothing_else():
    code = 'a = Value(2.0, label="a")\nk = Value(2.0, label="k")\nb = a * k\nb.backward()\n'
    result = runner.run(code, overrides={"a": 5.0})
    values = {v["label"]: (v["data"], v["grad"]) for v in result["values"]}
    assert values == {"a": ("5.0000", "2.0000"), "k": ("2.0000", "5.0000"), "b": ("10.0000", "1.0000")}


def test_what_the_code_prints_is_kept_and_a_big_graph_is_drawn_without_steps():
    result = runner.run("print('hello')\nx = Value(1.0)\nfor _ in range(60):\n    x = x * 1.0\n")
    assert result["printed"] == "hello\n" and result["frames"] == [] and result["dot"].startswith("digraph")
