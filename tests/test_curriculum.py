"""The curriculum's numbers, chapter by chapter, are in the stored notebook outputs.

nbval re-runs every notebook and compares it with what is stored; this test pins what
the stored outputs must *say*, so an edit that loses a number CURRICULUM.md promises
fails here, naming the chapter and the missing line.
"""

import re

import pytest
from notebook_outputs import load, row, text_outputs

# Each pattern is a curriculum number as its chapter prints it.
EXPECTED = {
    "01": [
        re.escape("f(3) = 20.0000"),
        re.escape("x = 0.6667   slope by nudging = 0.0000"),  # slope ~ 0 at x = 2/3
        re.escape("d = 4.0000"),
        re.escape("dd/da ~ -3.0000"),
        re.escape("dd/db ~ 2.0000"),
        re.escape("dd/dc ~ 1.0000"),
        re.escape("forward: error falls like h^1.00"),
        re.escape("central: error falls like h^2.00"),
        re.escape("parameters: 41"),
        re.escape("evaluations for one gradient by nudging: 42"),
        re.escape("1,000,000 parameters: nudging needs 1,000,001 evaluations"),
        row("0.6667", "0.0000", "-0.0000", "0.0000"),  # symbolic, numerical, automatic at x = 2/3
        row("3.0000", "14.0000", "14.0000", "14.0000"),
    ],
    "02": [
        re.escape("L = -8.0000"),
        re.escape("<computation graph: 7 values, 3 operations; L = -8.0000>"),
        re.escape("leaves: a, b, c, f"),
        re.escape("inputs remembered in the tuple: 2"),
        re.escape("AttributeError: 'int' object has no attribute 'data'"),
    ],
    "03": [
        row("L", "1.0000", "1.0000"),
        row("d", "-2.0000", "-2.0000"),
        row("f", "4.0000", "4.0000"),
        row("e", "-2.0000", "-2.0000"),
        row("c", "-2.0000", "-2.0000"),
        row("a", "6.0000", "6.0000"),
        row("b", "-4.0000", "-4.0000"),
        re.escape("L after the step:  -7.2865"),
        re.escape("o = 0.7071"),
        row("x1", "-1.5000", "-1.5000"),
        row("w1", "1.0000", "1.0000"),
        row("x2", "0.5000", "0.5000"),
        row("w2", "0.0000", "0.0000"),
    ],
    "04": [
        re.escape("o = 0.7071"),
        re.escape("do/dx1 = -1.5000  do/dw1 =  1.0000  do/dx2 =  0.5000  do/dw2 =  0.0000"),
        re.escape("engine:  db/da = 1.0000"),  # b = a + a with assignment
        re.escape("b = a + a:  db/da = 2.0000"),  # ... and with accumulation
        re.escape("engine with '=':  df/da = 3.0000, df/db = -2.0000"),
        re.escape("f = d * e:  df/da = -3.0000, df/db = -8.0000"),
        re.escape("step 2: p (*) fires: x.grad 1.0000 -> 4.0000, y.grad 0.0000 -> 2.0000"),
        re.escape("z = 8.0000, dz/dx = 4.0000, dz/dy = 2.0000"),
        re.escape("RecursionError: maximum recursion depth exceeded"),
        re.escape("3,000-step sum:   y = 3001.0, dy/dx = 3001.0"),
        re.escape("package engine: z = 8.0000, dz/dx = 4.0000, dz/dy = 2.0000"),
        re.escape("closure engine: result still in memory after del: True"),
        re.escape("package engine: result still in memory after del: False"),
    ],
    "05": [
        re.escape("AttributeError: 'int' object has no attribute 'data'"),
        re.escape("TypeError: unsupported operand type(s) for *: 'int' and 'Value'"),
        re.escape("c = 1 - a = -2.0000, dc/da = -1.0000"),
        re.escape("x = 2.0: x**3 = 8.0000, engine d/dx = 12.0000"),
        re.escape("engine:  dq/da = 0.2500, dq/db = -0.3750"),
        re.escape("sigmoid: slope at 0 = 0.2500"),
        re.escape("do/dw1    1.0000    1.0000"),
        re.escape("largest difference between the two: below 1e-12? True"),
        re.escape("naive_tanh(1000) -> OverflowError"),
        re.escape("naive_sigmoid(-1000) -> OverflowError"),
        re.escape("package tanh(+1000) = +1.0000, gradient 0.0000"),
        re.escape("package sigmoid(-1000) = +0.0000, gradient 0.0000"),
        re.escape("cube_with_local_grads: 8.0000, d/dx = 12.0000"),
    ],
    "06": [
        re.escape("central difference: 12.000000"),
        re.escape("L = 49.0000; dL/da = 42.0000, dL/db = 28.0000, dL/dc = 14.0000"),
        re.escape("loss = 2.5000; dloss/dw1 = 1.0000, dloss/dw2 = -2.0000"),
        re.escape("all 18 operations passed: True"),
        re.escape("the property held on all 200 generated inputs"),
        re.escape("AssertionError: gradient check failed at x = -1.0"),
        re.escape("package engine, call 2: a.grad = 24.0000, b.grad = 3.0000"),
        re.escape("lecture-style engine, call 1: a.grad = 12.0000"),
        re.escape("lecture-style engine, call 2: a.grad = 36.0000, b.grad = 6.0000"),
    ],
    "07": [
        re.escape("MLP(3, [4, 4, 1]): 41 parameters;  (3 + 1)*4 + (4 + 1)*4 + (4 + 1)*1 = 41"),
        re.escape("MLP(2, [16, 16, 1]): 337 parameters;  (2 + 1)*16 + (16 + 1)*16 + (16 + 1)*1 = 337"),
    ],
    "08": [
        re.escape("step 0: loss 2.50000"),
        re.escape("step 1: loss 0.62500"),
        re.escape("step 2: loss 0.15625"),
        re.escape("after 10 updates: w1 = 1.0010, w2 = 4.9980"),
        r"largest miss: 0\.0[01]\d\d",  # every prediction within 0.02 of its target
    ],
    "09": [
        re.escape("layer widths [16, 16, 1], 337 parameters"),
        re.escape("training accuracy 100%"),
        re.escape("objects the cycle collector freed during the 2 steps with it on: 0"),
        re.escape("NumPy and Value scores agree to 1e-9 on all 100 points: True"),
        r"mini-batch run after 100 steps: training accuracy \d+%",
        r"^alpha 0\.0 : after 200 steps train loss",
        r"^alpha 0\.01: after 200 steps train loss",
    ],
    "10": [
        re.escape("kappa = 100, derived best rate 2/(1 + 100) = 0.0198, factor 0.9802"),
        re.escape("predicted limit 2(1 + 0.9)/100 = 0.0380"),
        re.escape("derived: mu* = 0.6694, lr* = 0.0331, factor sqrt(mu*) = 0.8182"),
        r"^lr 0\.0375: loss after 400 steps \d\.\d+e-\d+$",
        r"^lr 0\.0385: loss after 400 steps .*\(diverged\)$|^lr 0\.0385: loss after 400 steps \d\.\d+e\+\d+$",
    ],
}


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_curriculum_numbers_are_in_the_stored_outputs(prefix):
    text = text_outputs(load(prefix))
    missing = [p for p in EXPECTED[prefix] if not re.search(p, text, re.MULTILINE)]
    assert not missing, f"chapter {prefix} no longer prints: {missing}"


def test_chapter_8_learns_every_example_within_0_02():
    (miss,) = re.findall(r"largest miss: (\S+)", text_outputs(load("08")))
    assert float(miss) < 0.02


def test_chapter_9_overfits_without_a_penalty_and_the_penalty_shrinks_the_weights():
    text = text_outputs(load("09"))
    runs = {}
    for alpha, train, val, lowest, squares in re.findall(
        r"alpha (\S+)\s*: after 200 steps train loss (\S+) .*validation loss (\S+) .*"
        r"lowest validation loss (\S+) at step \d+;  sum of squared weights (\S+)",
        text,
    ):
        runs[float(alpha)] = [float(train), float(val), float(lowest), float(squares)]
    assert set(runs) == {0.0, 0.01}
    train, val, lowest, squares = runs[0.0]
    assert train < val and lowest < val  # it overfits: validation loss rose after its lowest point
    assert runs[0.01][3] < squares / 2  # the penalty keeps the weights smaller


def test_chapter_10_momentum_shrinks_both_directions_by_sqrt_mu():
    text = text_outputs(load("10"))
    factors = re.findall(r"momentum (\d\.\d+) \(predicted (\d\.\d+)\)", text)
    assert len(factors) == 2
    for measured, predicted in factors:
        assert abs(float(predicted) - 0.9**0.5) < 1e-4
        assert abs(float(measured) - float(predicted)) < 0.002


def test_chapter_10_race_leaves_no_winner_at_an_edge_of_its_grid():
    text = text_outputs(load("10"))
    assert text.count("(inside its grid") == 15  # 5 methods on 3 problems
    assert "EDGE" not in text
