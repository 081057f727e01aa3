"""The curriculum's numbers, chapter by chapter, are in the stored notebook outputs.

nbval re-runs every notebook and compares it with what is stored; this test pins what
the stored outputs must *say*, so an edit that loses a number the course promises
fails here, naming the chapter and the missing line.
"""

import re

import pytest
from notebook_outputs import load, row, text_outputs

# Each pattern is a curriculum number as its chapter prints it.
EXPECTED = {
    "00": [
        re.escape("Num(3)\nNum(6)"),  # 1 + Num(2) and sum([...]) once __radd__ exists
        re.escape("int's own answer: NotImplemented"),
        re.escape("sum([Num(1), Num(2)]) -> TypeError: unsupported operand type(s) for +: 'int' and 'Num'"),
        re.escape("Num(7) Num(-7)"),  # exercise 0.1's stub: __rsub__ = __sub__ swaps the operands
        re.escape("[30, 30, 30]"),  # exercise 0.2's stub: closures made in a loop all read the last n
        re.escape("ValueError: this Neuron takes 3 inputs, got 2"),  # zip would silently drop a weight
    ],
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
        # the -0.0000 at x = 2/3 is one float gap of f, divided by 2h
        re.escape("at x = 2/3: numerical -2.22e-10, symbolic 0.00e+00, automatic 0.00e+00"),
        re.escape("f(x + h) - f(x - h) = -4.44e-16; gap between floats near f(x) = 4.44e-16"),
        # the round-off line drawn is eps * |g(2)| / h, and the measured errors stay near it
        re.escape("machine epsilon = 2.22e-16; eps * |g(2)| = 1.78e-15"),
        re.escape("forward: error falls like h^1.00 for large h; smallest error 3e-08 at h = 2e-08"),
        re.escape("central: error falls like h^2.00 for large h; smallest error 2e-11 at h = 3e-06"),
        re.escape("for h <= 1e-9, error * h / (eps * |g(2)|) is at most 1.45"),
        re.escape("for h <= 1e-9, error * h / (eps * |g(2)|) is at most 0.70"),
        # each V's bottom, median against median: central several hundred times lower
        re.escape("forward: the lines meet at h = 1.7e-08; median error for 1e-9 <= h <= 1e-7: 3e-07"),
        re.escape("central: the lines meet at h = 1.2e-05; median error for 1e-6 <= h <= 1e-4: 4e-10"),
        re.escape("the central difference's bottom is 729 times below the forward one's"),
        # the forward gap from autodiff is its truncation term: subtract it and the gap goes
        re.escape("largest difference from autodiff, forward differences: below 1e-04"),
        re.escape("largest difference from autodiff, forward differences minus h/2 * L'': below 1e-08"),
        # a backward pass costs at most ~2 evaluations: one multiply-add per input of each operation
        re.escape("operations run by the evaluation: 336"),
        re.escape("most inputs of any one operation: 2"),
        re.escape("multiply-adds in the backward pass: 636 (1.89 per operation)"),
        re.escape("nudging needs 1,000,001 evaluations (forward) or 2,000,000 (central)"),
        # expression swell: the derivative formula outgrows the program; Value records the program
        row("12", "36", "12,285", "143,361", "36"),
        re.escape("each line multiplies the derivative formula by 2.19 to 4.20"),
        re.escape("y multiplied out, its degree for n = 1 to 6: 2, 4, 8, 16, 32, 64"),
        re.escape("dy/dx at n = 12 multiplied out, in Horner's form: 8,190 operations"),
        # central beats forward in every case, bottom against bottom and at the same h
        re.escape(
            "20 cases: forward's median / central's median, each around its V's bottom: 200 to 3,365 times"
        ),
        re.escape("20 cases: forward error / central error, both at h = 1e-6: 1,617 to 211,245 times"),
    ],
    "02": [
        re.escape("L = -8.0000"),
        re.escape("<computation graph: 7 values, 3 operations; L = -8.0000>"),
        re.escape("leaves: a, b, c, f"),
        re.escape("inputs remembered in the tuple: 2"),
        # micrograd's set does not cost a + a half its gradient (its closures name both operands) ...
        re.escape("micrograd's constructor: Value(self, data, _children=(), _op='')"),
        re.escape("micrograd, s = a + a: inputs kept in its set: 1; ds/da = 2.0000"),
        re.escape("            self.grad += out.grad\n            other.grad += out.grad"),  # its closure
        # ... a set does, in a design that pairs each input with one local derivative
        re.escape("inputs kept in a tuple: 2; ds/da = 2.0000"),
        re.escape("inputs kept in a set  : 1; ds/da = 1.0000"),
        # a set's order flips with what was made before, through a hash from the memory address;
        # hashed from its data it does not, and a tuple's order never does
        re.escape("hash(v) == id(v) // 16: True"),
        re.escape("set   (hash from address): k = 0 to 19 gives 2 orders: a b or b a"),
        re.escape("set   (hash from data   ): k = 0 to 19 gives 1 order: a b"),
        re.escape("tuple (hash from address): k = 0 to 19 gives 1 order: a b"),
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
        re.escape("ten times shorter, missed by 101.3 times less"),  # the miss falls like the square
        re.escape("o = 0.7071"),
        row("x1", "-1.5000", "-1.5000"),
        row("w1", "1.0000", "1.0000"),
        row("x2", "0.5000", "0.5000"),
        row("w2", "0.0000", "0.0000"),
        re.escape("random moves that beat the gradient: 0 of 2000"),  # the gradient is the steepest ascent
        # ... for short steps only
        re.escape("step length 0.05:      0 of 200,000 random directions beat the gradient"),
        re.escape("step length  0.1:      1 of 200,000 random directions beat the gradient"),
        re.escape("step length  0.5:    411 of 200,000 random directions beat the gradient (0.205 %)"),
        re.escape("1 - o**2 in full: 0.4999999999999998"),  # one half, up to rounding
    ],
    "04": [
        re.escape("o = 0.7071"),
        re.escape("do/dx1 = -1.5000  do/dw1 =  1.0000  do/dx2 =  0.5000  do/dw2 =  0.0000"),
        re.escape("engine:  db/da = 1.0000"),  # b = a + a with assignment
        re.escape("b = a + a:  db/da = 2.0000"),  # ... and with accumulation
        re.escape("engine with '=':  df/da = 3.0000, df/db = -2.0000"),
        re.escape("f = d * e:  df/da = -3.0000, df/db = -8.0000"),
        re.escape("nudge only the a inside d:  slope 3.0000"),  # contributions add up, path by path
        re.escape("nudge only the a inside e:  slope -6.0000"),
        re.escape("nudge a everywhere at once: slope -3.0000"),
        re.escape("push and recurse:  dd/da = 10.0000"),  # b = 2a, d = b + 3b without a sort
        re.escape("topological order: dd/da = 8.0000"),
        re.escape("d = b*w + 3b at w = 0: push and recurse dd/da = 6.0000, sorted 6.0000"),  # right by luck
        re.escape("d = b*w + 3b at w = 1: push and recurse dd/da = 10.0000, sorted 8.0000"),
        re.escape("step 2: p (*) fires: x.grad 1.0000 -> 4.0000, y.grad 0.0000 -> 2.0000"),
        re.escape("z = 8.0000, dz/dx = 4.0000, dz/dy = 2.0000"),
        re.escape("RecursionError: maximum recursion depth exceeded"),
        re.escape("3,000-step sum:   y = 3001.0, dy/dx = 3001.0"),
        re.escape("package engine: z = 8.0000, dz/dx = 4.0000, dz/dy = 2.0000"),
        re.escape("closure engine: result still in memory after del: True"),
        re.escape("package engine: result still in memory after del: False"),
        re.escape("closure engine, closure removed: still in memory after del: False"),  # the loop alone
        re.escape("limit 5000, chain 3,000 deep: dy/dx = 3001.0"),  # a higher limit only moves the wall
        re.escape("limit 5000, chain 6,000 deep: RecursionError"),
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
        re.escape("do/dx1   -1.5000   -0.4537"),  # the self-test catches a planted wrong exp derivative
        re.escape("bad / right, each nonzero gradient: 0.3024 to 0.3024"),  # one factor, (2n) e^(-2n) <= 1/e
        re.escape("(2n) e^(-2n) at 2n = 1.7627: 0.3024"),
        re.escape("relu(0.0) = 0.0000, d/dx = 0.0000"),
        re.escape("naive_tanh(1000) -> OverflowError"),
        re.escape("naive_sigmoid(-1000) -> OverflowError"),
        re.escape("package tanh(+1000) = +1.0000, gradient 0.0000"),
        re.escape("package sigmoid(-1000) = +0.0000, gradient 0.0000"),
        re.escape("cube_with_local_grads: 8.0000, d/dx = 12.0000"),
        re.escape("mean: loss = 0.2050, gradients of the four predictions: -0.1000"),
        re.escape("closure: c = 6.0000, dc/da = 10.0000"),  # .data changed between the passes
        re.escape("stored at forward: c = 6.0000, dc/da = 3.0000"),
        # what the engine refuses, and what it lets through as inf/nan like micrograd and PyTorch
        re.escape("Value(-1.0).log()\n    -> ValueError: log needs a positive input, got -1.0"),
        r"^1e308 \* 10 +inf +(inf|\(absent\))$",
        r"^tanh\(nan\) +nan +(\(no tanh\)|\(absent\))$",
        r"^inf \* 0 +nan +(nan|\(absent\))$",
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
        re.escape("micrograd, call 3: a.grad = 72.0000, b.grad = 9.0000"),
        # the whole-network check: every parameter agrees; a tanh without its square fails
        # every parameter behind a tanh (all but the linear output neuron's 5)
        re.escape("<gradcheck passed: 41 inputs"),
        r"largest relative error over all 41 parameters: \d\.\de-(0[7-9]|1\d)$",
        re.escape("parameters that fail the check: 36 of 41"),
        re.escape("of those, wrong in the first digit (relative error above 0.5): 24"),
        re.escape("output neuron with a tanh as well: 41 of 41 fail"),  # the one change: why 5 passed
        # ... but summed over ten points a row's errors can cancel: p282 passes, and fails point by point
        re.escape("summed over the 10 points: engine +6.529e-04, nudge +6.529e-04, relative error 5.1e-05,")
        + re.escape(" passed: True"),
        re.escape("sum of the ten gaps: -3.4e-08"),
        # what the tolerance misses: a log off by 1/(x + 1e-4) passes at 2, fails at 0.5
        re.escape("x = 2.0 : engine 0.499975, nudge 0.500000, relative error 5.0e-05, passed: True"),
        re.escape("x = 0.5 : engine 1.999600, nudge 2.000000, relative error 2.0e-04, passed: False"),
        # where the gradient is tiny, the fixed 1e-6 decides: a tanh off by a factor of 2 passes at x = 8
        re.escape(" 8.0  2.251e-07  4.501e-07  2.25e-07  1.00e-06   2.25e-01  True"),
    ],
    "07": [
        re.escape("MLP(3, [4, 4, 1]): 41 parameters;  (3 + 1)*4 + (4 + 1)*4 + (4 + 1)*1 = 41"),
        re.escape("MLP(2, [16, 16, 1]): 337 parameters;  (2 + 1)*16 + (16 + 1)*16 + (16 + 1)*1 = 337"),
        # how many nodes one forward pass builds, and the loss over the four examples
        # copies get the same gradient, so they stay copies after an update; a random start does not
        r"^copies start: grads (?P<g>[-+]\d\.\d{4}), (?P=g), (?P=g), (?P=g); after the update "
        r"(?P<w>[-+]\d\.\d{4}), (?P=w), (?P=w), (?P=w)$",
        re.escape("new nodes: 353; tracked by the collector: 353"),
        re.escape("other tracked objects the new nodes refer to: 5 (function)"),
        re.escape("one input, given as Values: 116 nodes"),
        re.escape("one input, given as floats: 125 nodes"),
        re.escape(": 394 nodes"),
        re.escape("of which parameters: 41"),
    ],
    "08": [
        re.escape("step 0: loss 2.50000"),
        re.escape("step 1: loss 0.62500"),
        re.escape("step 2: loss 0.15625"),
        re.escape("after 10 updates: w1 = 1.0010, w2 = 4.9980"),
        r"largest miss: 0\.0[01]\d\d",  # every prediction within 0.02 of its target
        # without zero_grad: infinite at 0.12, finite but never settling at 0.05 and 0.01
        re.escape("at step 448 inf"),
        # the gradient's length falls with the loss (the phases' explanation)
        re.escape("step 13: loss 0.0060, gradient length 0.1222"),
        re.escape("without, lr 0.05: lowest 0.0036 (step 25); at step 499 0.1570"),
        re.escape("without, lr 0.01: lowest 0.0011 (step 487); at step 499 0.2363"),
        # ... and it is momentum with mu = 1, to rounding
        r"largest relative difference \d\.\de-1\d$",
        # the = bug in tanh: no effect on an MLP, slower training with skip connections
        re.escape("largest difference between the two loss curves = 0.0"),
        # ... each engine at its own best rate from the same grid
        re.escape("right engine: best lr 0.014: loss 3.51e-09 after 200 steps; first below 1e-4 at step 26"),
        re.escape("= in tanh  : best lr 0.014: loss 3.35e-08 after 200 steps; first below 1e-4 at step 65"),
        re.escape("0.01         1.68e-08    1.42e-06"),
        # on other starts: without zero_grad() at 0.05 the loss keeps climbing back; friction's rate
        r"^lr 0\.05, without zero_grad\(\): +\d\.\d+ \(peak \d\.?\d*\)$",
        re.escape("seed 11: mu = 0.9, lr 0.05: loss at step 499 = 4"),
        re.escape("seed 11: mu = 0.9, lr 0.02: loss at step 499 = 8.3e-24"),
        # a layer of copies stays copies on XOR and is stuck, like one hidden neuron; random starts solve it
        r"MLP\(2, \[4, 1\]\), copies start: loss after 400 steps 2\.\d{4}, 2\.\d{4}\n.*"
        r" (\+1\.9011, ){3}\+1\.9011$",
        re.escape("MLP(2, [4, 1]), random start: loss after 400 steps 0.0000, 0.0000"),
        re.escape("; 16 of 21 rows wrong"),
        # ... and why the buggy run ends elsewhere: its gradient points downhill, never the true way
        re.escape("the same losses as the buggy run in the table: True"),
        re.escape("cosine of the buggy gradient with the true one: from 0.73 to 0.94"),
        re.escape("its length over the true length: from 0.60 to 0.91"),
        # the pace of phase 3 on seed 8, which the prose calls its own
        re.escape("in phase 3 the loss falls ten times every 37 steps"),
        # lr 0.2 overshoots: the first example's error flips sign every step
        re.escape("lr 0.2, step 1: loss    7.99   prediction - target:   +0.45"),
        re.escape("lr 0.2, step 2: loss    9.00   prediction - target:   -2.04"),
        re.escape("16 of 21 rows wrong"),
    ],
    "09": [
        re.escape("layer widths [16, 16, 1], 337 parameters"),
        re.escape("nodes in one graph: 68818"),
        re.escape("training accuracy 100%"),
        re.escape("NumPy and Value scores agree to 1e-9 on all 100 points: True"),
        r"mini-batch run after 100 steps: training accuracy \d+%",
        r"^alpha 0\.0 : after 800 steps train loss",
        r"^alpha 0\.01: after 800 steps train loss",
        re.escape("the scalar run and the tensor engine's 50 steps end with scores equal to 1e-9: True"),
        r"^full batch, 20 steps, rate 1\.0 -> 0\.1 \(also 2,000 points\): hinge",
        # the race changes only the batch: 20 full steps against 100 mini-batches of 20
        re.escape(
            "full batch, 20 steps, rate 1.0 -> 0.1 (also 2,000 points): hinge 0.1299, training accuracy 94%"
        ),
    ],
    "10": [
        re.escape("kappa = 100, derived best rate 2/(1 + 100) = 0.0198, factor 0.9802"),
        re.escape("predicted limit 2(1 + 0.9)/100 = 0.0380"),
        re.escape("derived: mu* = 0.6694, lr* = 0.0331, factor sqrt(mu*) = 0.8182"),
        re.escape("fastest measured rate on the grid: 0.01975, factor 0.9790"),
        r"^lr 0\.0375: loss after 400 steps \d\.\d+e-\d+$",
        r"^lr 0\.0385: loss after 400 steps .*\(diverged\)$|^lr 0\.0385: loss after 400 steps \d\.\d+e\+\d+$",
        re.escape(
            "momentum, valley's setting: the turned valley's 101 losses equal the valley's to 9 digits: True"
        ),
        re.escape(
            "every tuned run, re-run through the package's optimisers, scores what the race gave it: True"
        ),
        re.escape("gradients of size 1: steady, mean step 1.0000 lr;  noise, 0.1848 lr"),
        re.escape("the same rate from (-8, 0), the flat direction alone: factor 0.9802, predicted 0.9802"),
        re.escape("Adam + L2, weight A: 0.5368 after 50 steps, below 0.01 from step 213"),
    ],
    "11": [
        re.escape("largest difference from central differences: below 1e-8? True"),
        re.escape("the package's Tensor gives shape (4,): [3. 3. 3. 3.]"),
        re.escape("matmul (@) of shapes (5, 3) and (4, 2): the left's last axis (3) must match"),
        r"^18 +3,814,697,265,625 +3,814,697,265,625 +1,048,573 +55$",  # recursive vs topological visits
        re.escape("337 gradients, largest difference between the engines below 1e-12: True"),
        re.escape("log-sum-exp version:    [    0. -1000. -2000.]"),
        r"after 500 steps: training accuracy \d+\.\d%, on 300 new points 9\d\.\d%",
    ],
    "12": [
        re.escape("objects freed by all the scans in 6 steps: fewer than 100? True"),
        re.escape("full scans under 'no full scans': 0"),
        re.escape("the same losses to 10 significant digits: True"),
        re.escape("tensor engine after 100 steps: loss 0.0114, accuracy 100%"),
        re.escape("collections started in the graph walk or backward(): 0"),  # the collector lands elsewhere
        re.escape("or the expressions calling them: more than 9 in 10? True"),
        r"^split 0, batches of 64: +\d+\.\d%$",  # one thing changed on the same split
    ],
    "13": [
        re.escape("f(3 + ε) = Dual(val=20.0000, dot=14.0000)"),  # forward mode: exact f'(3)
        re.escape("one backward pass:  dd/da = -3.0000, dd/db = 2.0000, dd/dc = 1.0000"),
        r"^  128 \|\s+98304\s+768 \|\s+510\s+16639$",  # forward vs reverse, same steps counted: they cross
        re.escape("backward pass of f: 4 steps, now at step 4; done: x.grad = 24.0000"),  # x sums two
        re.escape("f(2) = 8.0000, f'(2) = 24.0000 (a Value), f''(2) = 44.0000"),
        re.escape("step 7: x = 1.000000000000000, error 0.0e+00"),  # Newton from 2 reaches 1
        re.escape("Newton: 6 steps"),
        r"^one rate for all four starts: lr = 0\.\d+, \d{2,} steps from its slowest start$",  # shared rate
        r"^ten times finer, 0\.\d{4} to 0\.\d{4}: the best shared rate needs \d{2,} steps$",  # it settles
        re.escape("error / previous error squared = 1.500"),  # quadratic convergence
        re.escape("inside:  z = 7.0000, z has 0 inputs, its graph 1 value"),  # no_grad builds no graph
        re.escape("a Tensor inside no_grad(): 0 inputs recorded, requires_grad=False; outside: 2 inputs"),
        re.escape("PyTorch (optional): PowBackward0 -> SubBackward0 -> TanhBackward0 -> AddBackward0"),
    ],
}


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_curriculum_numbers_are_in_the_stored_outputs(prefix):
    text = text_outputs(load(prefix))
    missing = [p for p in EXPECTED[prefix] if not re.search(p, text, re.MULTILINE)]
    assert not missing, f"chapter {prefix} no longer prints: {missing}"


def test_chapter_2s_drawings_of_one_graph_each_say_what_makes_them_different():
    alts = []
    for cell in load("02")["cells"]:
        for out in cell.get("outputs", []):
            html = "".join(out.get("data", {}).get("text/html", ""))
            if "L = ((a * b) + c) * f" in html:
                alts.append(re.search(r'alt="([^"]+)"', html)[1])
    assert len(alts) == 3 and len(set(alts)) == 3, alts
    assert "no grad" in alts[0] and "leaf" in alts[1] and "grad row" in alts[2], alts


def test_chapter_3_folded_note_on_the_last_digits_of_the_slope():
    """Chapter 3's "Why not exactly one half?" note shows a snippet and says what it prints: the
    last digits come from n, not from the squaring; one float of n moves the slope across 1/2."""
    import math
    from fractions import Fraction

    from notebooks.chapters import source

    assert "for n_value in (n.data, math.nextafter(n.data, 0.0)):" in source("03").read_text()
    n = 2.0 * -3.0 + 0.0 * 1.0 + 6.8813735870195432  # the neuron's n
    printed = []
    for n_value in (n, math.nextafter(n, 0.0)):
        o_value = math.tanh(n_value)
        printed.append((repr(o_value), repr(1 - o_value**2), repr(float(1 - Fraction(o_value) ** 2))))
    assert printed == [
        ("0.7071067811865477", "0.4999999999999998", "0.4999999999999998"),
        ("0.7071067811865475", "0.5000000000000001", "0.5000000000000001"),
    ]
    assert Fraction(o_value) ** 2 < Fraction(1, 2) < Fraction(math.tanh(n)) ** 2  # below 1/sqrt(2), above


def test_chapter_8_learns_every_example_within_0_02():
    (miss,) = re.findall(r"largest miss: (\S+)", text_outputs(load("08")))
    assert float(miss) < 0.02


def test_chapter_12_digits_reach_97_percent_held_out():
    text = text_outputs(load("12"))
    (accuracy,) = re.findall(r"held-out accuracy: (\S+)%", text)
    assert float(accuracy) >= 97.0


def test_chapter_9_overfits_without_a_penalty_and_the_penalty_shrinks_the_weights():
    text = text_outputs(load("09"))
    runs = {}
    for alpha, train, val, lowest, squares in re.findall(
        r"alpha (\S+)\s*: after 800 steps train loss (\S+) .*validation loss (\S+) .*\n\s*"
        r"lowest validation loss (\S+) at step \d+;  sum of squared weights (\S+)",
        text,
    ):
        runs[float(alpha)] = [float(train), float(val), float(lowest), float(squares)]
    assert set(runs) == {0.0, 0.01}
    train, val, lowest, squares = runs[0.0]
    assert train < lowest < val - 0.05  # it overfits: validation loss rose well above its lowest point
    assert runs[0.01][3] < squares / 2  # the penalty keeps the weights smaller


def test_chapter_9_mini_batches_beat_full_batches_with_the_same_work_and_schedule():
    text = text_outputs(load("09"))
    (rival,) = re.findall(r"also 2,000 points\): hinge (\S+),", text)
    (minibatch,) = re.findall(r"after 2,000 points processed: .*mini-batch of 20 hinge (\S+)", text)
    assert float(minibatch) < float(rival)


def test_chapter_10_momentum_shrinks_both_directions_by_sqrt_mu():
    text = text_outputs(load("10"))
    factors = re.findall(r"momentum (\d\.\d+) \(predicted (\d\.\d+)\)", text)
    assert len(factors) == 2
    for measured, predicted in factors:
        assert abs(float(predicted) - 0.9**0.5) < 1e-4
        assert abs(float(measured) - float(predicted)) < 0.002


def test_chapter_10_race_leaves_no_winner_at_an_edge_of_its_grid():
    text = text_outputs(load("10"))
    # 5 methods on 3 problems, none of them tuned at an edge of its grid
    assert "runners whose best grid setting lies at an edge of its grid: 0 of 15" in text
    assert len(re.findall(r"^  \S.{12} (below 1e-20 from step|worst of last 10 steps) ", text, re.M)) == 15


def test_chapter_10_adagrad_s_huge_rate_solves_each_coordinate_at_once_only_on_the_valley():
    text = text_outputs(load("10"))
    steps = re.findall(
        r"(\w+) on the (valley|turned valley):\n.*\n    step 3 = gradient x \((\S+), (\S+)\); "
        r"loss after 100 steps (\S+)",
        text,
    )
    assert len(steps) == 4
    for method, problem, rate1, rate2, loss in steps:
        if problem == "valley":  # 1/lambda in each coordinate: a one-step solve of each
            assert (rate1, rate2, loss) == ("1.0002", "0.0100", "0"), method
        else:  # the steep direction's 1/lambda in both; the flat one crawls
            assert (rate1, rate2) == ("0.0100", "0.0100") and float(loss) > 1, method
