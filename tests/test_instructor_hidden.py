"""Hidden cases earn their place: the worked solution passes each one, a plausible wrong answer
that the notebook's check accepts is refused by it, and junk never makes one raise or hang.

Wrong answers come in two kinds: a slip written out below (a rate fixed to the check's, a test
that divides by zero where the check never looks), and a "memorised" answer, right on exactly
the inputs the check tries (their hints print the expected values) and a lookup error elsewhere.
"""

import sys
import time
from pathlib import Path

import junk
import numpy as np
import pytest

import micrograd_lesson.exercises  # noqa: F401 - registers every chapter's exercises
from micrograd_lesson import nn
from micrograd_lesson.engine import Value
from micrograd_lesson.exercises import _core, ch02
from micrograd_lesson.exercises._core import EXERCISES, Missed, Verdict
from micrograd_lesson.gradcheck import gradcheck

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from instructor import grade  # noqa: E402

for _chapter in sorted({name.split(".")[0] for name in EXERCISES}):
    grade.load_hidden(_chapter)

CASES = [(name, case) for name, ex in EXERCISES.items() for case in ex.hidden]


def memorised(name):
    """The worked solution, answering only the inputs the check tries; a KeyError elsewhere."""
    ex, seen = EXERCISES[name], set()

    def recorder(*args):
        seen.add(repr(args))
        return ex.solution(*args)

    assert ex.check(recorder, record=False)

    def table(*args):
        if repr(args) not in seen:
            raise KeyError(args)
        return ex.solution(*args)

    return table


# ---- slips the notebooks' checks let through ----


def train_step_on_four(model, xs, ys, lr):
    model.zero_grad()
    total = 0.0
    for i in range(4):  # the check's 4 examples, not len(xs)
        loss = (model(xs[i]) - ys[i]) ** 2
        loss.backward()
        total += loss.data
    for p in model.parameters():
        p.data -= lr * p.grad
    return total


def sample_batch_for_the_checks_shapes(X, y, batch_size, rng):
    """Right on the check's two shapes of X and batch sizes (its hints name them); a KeyError elsewhere."""
    if (len(X), batch_size) not in {(20, 8), (12, 12)}:
        raise KeyError((len(X), batch_size))
    idx = rng.choice(len(X), size=batch_size, replace=False)
    return np.asarray(X)[idx], np.asarray(y)[idx]


class NumMemorised:
    """Num that knows only the subtractions the check tries (its hints print them)."""

    TABLE = {(10, 3): 7, (3, 10): -7, (0, 5): -5, (2.5, 10): -7.5, (10, 2.5): 7.5}

    def __init__(self, value):
        self.value = value

    def __sub__(self, other):
        other = other if isinstance(other, NumMemorised) else NumMemorised(other)
        return NumMemorised(self.TABLE[self.value, other.value])

    def __rsub__(self, other):
        return NumMemorised(other) - self


class SubtractionMemorised(ch02.Value):
    """Knows only the differences the check takes: 5 - 3, 5 - 5, 2 - 1 and 3 - 5."""

    def __sub__(self, other):
        table = {(5, 3): 2, (5, 5): 0, (2, 1): 1, (3, 5): -2}
        return type(self)(float(table[self.data, other.data]), (self, other), "-")


class FirstThree(nn.Module):
    """A leaky neuron that reads only the first 3 inputs, as many as the check gives it."""

    def __init__(self, nin):
        self.w, self.b = [Value(0.0) for _ in range(nin)], Value(0.0)

    def __call__(self, x):
        a = sum((wi * xi for wi, xi in zip(self.w[:3], x)), self.b)
        return a if a.data > 0 else 0.01 * a

    def parameters(self):
        return self.w + [self.b]


def gradient_relative_nudge(fn, inputs):
    grads = []
    for i, x in enumerate(inputs):
        h = 1e-6 * abs(x)  # no nudge at all where x = 0
        up, down = list(inputs), list(inputs)
        up[i], down[i] = x + h, x - h
        grads.append((fn(*up) - fn(*down)) / (2 * h))
    return grads


def grad_check_relative_nudge(f, x):
    v = Value(x)
    f(v).backward()
    h = 1e-6 * abs(x)  # no nudge at all where x = 0
    return v.grad, (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)


def find_bugs_at_three_points(suspects):  # 1.1 finds the check's middle bug; [1.2, 1.9] stays unseen
    return {name for name, op in suspects.items() if not all(gradcheck(op, [x]) for x in (0.5, 1.1, 2.5))}


WRONG = {  # hidden case's function name -> plausible wrong answers the check accepts
    "rsub_with_floats_and_chains": [lambda: NumMemorised],
    "numerical_gradient_at_zero_and_other_sizes": [lambda: gradient_relative_nudge],
    "subtraction_with_negative_results": [lambda: SubtractionMemorised],
    "softsign_at_zero": [lambda: memorised("ch05.softsign")],
    "max_of_negative_numbers": [lambda: memorised("ch05.max")],
    "grad_check_at_zero": [lambda: grad_check_relative_nudge],
    "find_bugs_on_a_third_set": [lambda: find_bugs_at_three_points, lambda: memorised("ch06.find_bugs")],
    "widest_hidden_far_from_the_examples": [lambda: memorised("ch07.widest_hidden")],
    "leaky_neuron_of_another_size": [lambda: FirstThree],
    "count_loss_nodes_on_other_networks": [lambda: memorised("ch07.count_loss_nodes")],
    "train_step_on_another_batch_and_rate": [lambda: train_step_on_four],
    "clip_gradients_of_other_lengths": [lambda: memorised("ch08.clip_gradients")],
    "squared_hinge_on_other_batches": [lambda: memorised("ch09.squared_hinge_grads")],
    "sample_batch_from_fifty_rows": [lambda: sample_batch_for_the_checks_shapes],
    "bce_loss_on_other_batches": [lambda: memorised("ch09.bce_loss")],
    "momentum_step_with_other_rates": [lambda: memorised("ch10.momentum_step")],
    "stability_limit_at_other_points": [lambda: memorised("ch10.stability_limit")],
    "adam_step_for_a_zero_gradient": [lambda: memorised("ch10.adam_constant_step")],
    "recursive_visits_for_deeper_stacks": [lambda: memorised("ch11.recursive_visits")],
    "dual_pow_at_other_points": [lambda: memorised("ch13.dual_pow")],
    "cheaper_mode_for_other_shapes": [lambda: memorised("ch13.cheaper_mode")],
    "safe_newton_step_at_zero_curvature": [lambda: memorised("ch13.safe_newton_step")],
    "reverse_rules_for_other_lengths": [lambda: memorised("ch13.reverse_rules")],
}


def ids(cases):
    return [case.__name__ for _, case in cases]


def test_every_hidden_case_has_a_wrong_answer_here():
    assert sorted(case.__name__ for _, case in CASES) == sorted(WRONG)


@pytest.mark.parametrize("name, case", CASES, ids=ids(CASES))
def test_the_worked_solution_passes_every_hidden_case(name, case):
    verdict = case(EXERCISES[name].solution, record=False)
    assert verdict, verdict.hint


@pytest.mark.parametrize("name, case", CASES, ids=ids(CASES))
def test_a_wrong_answer_the_check_accepts_is_refused(name, case):
    for make in WRONG[case.__name__]:
        wrong = make()
        assert EXERCISES[name].check(wrong, record=False), "the check should accept this wrong answer"
        verdict = case(wrong, record=False)
        assert isinstance(verdict, Verdict) and not verdict and verdict.hint.strip()


def _raises(*args, **kwargs):
    raise ValueError("broken")


@pytest.mark.parametrize(
    "answer", [None, 3.0, _raises, junk.forever], ids=["none", "number", "raises", "loops"]
)
@pytest.mark.parametrize("name, case", CASES, ids=ids(CASES))
def test_junk_never_makes_a_hidden_case_raise_or_hang(name, case, answer):
    start = time.monotonic()
    with junk.short_time_limit():
        verdict = case(answer, record=False)
    assert isinstance(verdict, Verdict) and not verdict and verdict.hint.strip()
    assert time.monotonic() - start < 3


# ---- what a learner is told when a hidden case fails ----


def _spellings(x):
    """The ways a hint could print the number x."""
    x = float(x)
    return {
        repr(x),
        str(x),
        f"{x:g}",
        f"{x:.4f}",
        f"{x:.6f}",
        f"{x:.6g}",
        f"{x:.12g}",
        str(int(x)) * x.is_integer(),
    }


def _numbers_in(value):
    """Every number inside a value a worked solution returns (nested tuples, lists, arrays)."""
    if isinstance(value, (bool, type(None))):
        return []
    if isinstance(value, (int, float, np.number)):
        return [value]
    if isinstance(value, (tuple, list, np.ndarray)):
        return [n for v in value for n in _numbers_in(v)]
    return []


LOOKUP = {case.__name__: make for case, make in ((c, WRONG[c.__name__][-1]) for _, c in CASES)}
TABLES = [(n, c) for n, c in CASES if "memorised" in str(WRONG[c.__name__][-1].__code__.co_names)]


@pytest.mark.parametrize("name, case", CASES, ids=ids(CASES))
def test_a_failed_hidden_case_says_its_kind_and_what_the_answer_gave(name, case, monkeypatch):
    for make in WRONG[case.__name__]:
        verdict = case(make(), record=False)
        if not isinstance(verdict, Missed):  # e.g. "the check refuses a function that builds Values"
            assert "should be" not in verdict.hint and "want" not in verdict.hint, verdict.hint
            continue
        assert verdict.hint == f"on {verdict.kind}, your code gave {verdict.got}"
        assert verdict.kind and verdict.got and verdict.told != verdict.hint
        monkeypatch.setattr(_core, "REVEAL_CASES", True)  # the instructor's --reveal-cases
        assert case(make(), record=False).hint == verdict.told
        monkeypatch.setattr(_core, "REVEAL_CASES", False)


@pytest.mark.parametrize("name, case", TABLES, ids=ids(TABLES))
def test_a_lookup_table_learns_no_expected_value_from_the_hint(name, case):
    """The attack of issue 31: hand in an answer that knows only the inputs seen so far and read the
    hint for the next one. No number the worked solution gives on the hidden inputs may be in the
    hint, unless the learner's own answer printed it."""
    solution, outputs = EXERCISES[name].solution, []

    def spy(*args):
        out = solution(*args)
        outputs.extend(_numbers_in(out))
        return out

    assert case(spy, record=False)
    verdict = case(LOOKUP[case.__name__](), record=False)
    assert isinstance(verdict, Missed) and not verdict
    for x in outputs:
        for text in _spellings(x) - {"", "0", "1", "0.0", "1.0", "-1", "-1.0"}:
            assert text not in verdict.hint or text in verdict.got, (x, verdict.hint)
    assert any(text in verdict.told for x in outputs for text in _spellings(x)) or not outputs
