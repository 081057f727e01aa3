"""The shared run-then-judge pattern of chapters 7-13: right answers pass, a known mistake gets its
own hint only when it explains every case, anything else gets the fallback for the first wrong case."""

from micrograd_lesson.exercises._shared import judge, run_cases

CASES = [(1,), (2,), (3,)]
MISTAKES = [(lambda k: k + 1, "off by one"), (lambda k: 2, "always two")]


def test_run_cases_reads_every_case_and_refuses_what_it_cannot_read():
    assert run_cases(lambda k: k * k, "sq", CASES) == [1.0, 4.0, 9.0]
    assert "pass sq itself" in run_cases(None, "sq", CASES).hint
    assert "sq(2): return a number, got 'x'" in run_cases(lambda k: "x" if k == 2 else k, "sq", CASES).hint
    assert "ZeroDivisionError" in run_cases(lambda k: 1 / (k - 3), "sq", CASES).hint
    opened = run_cases(lambda k: 1 / (k - 3), "sq", CASES, where=lambda c: f"for k = {c[0]}")
    assert opened.hint.startswith("for k = 3: ")


def test_judge_names_a_mistake_only_when_it_explains_every_case():
    def verdict(answers):
        return judge(answers, CASES, lambda k: k, MISTAKES, otherwise=lambda i: f"case {i} is wrong")

    assert verdict([1.0, 2.0, 3.0])
    assert verdict([2.0, 3.0, 4.0]).hint == "off by one"
    assert verdict([2.0, 2.0, 2.0]).hint == "always two"  # right on case 2 does not hide the mistake
    assert verdict([1.0, 2.0, 4.0]).hint == "case 2 is wrong"  # off by one on one case only
    assert verdict([1.0, 3.0, 4.0]).hint == "case 1 is wrong"


def test_run_cases_hands_the_learner_copies_so_in_place_edits_never_reach_the_cases():
    import numpy as np

    cases = [([1.0, 2.0], np.array([3.0, 4.0]))]

    def vandal(xs, arr):  # changes its arguments in place, then answers
        xs.append(9.0)
        arr *= 0
        return 1.0

    assert run_cases(vandal, "vandal", cases) == [1.0]
    assert cases[0][0] == [1.0, 2.0] and cases[0][1].tolist() == [3.0, 4.0]
