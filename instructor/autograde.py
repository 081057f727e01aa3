"""Grade one exercise in the kernel a notebook ran in, as `make grade` does: the support module that
the otter-grader and nbgrader exports (instructor/export.py) ship beside their tests.

    from course_autograde import grade
    ok, hint = grade("ch07.widest_hidden")                # the notebook's check, then the hidden cases
    ok, hint = grade("ch07.widest_hidden", hidden=False)  # the notebook's check only

It takes the answer the learner last passed to the exercise's check, imports the checks afresh (a
check, a Verdict or the registry patched in the notebook is not the one that grades), runs the check
and then every hidden case, as instructor/grade.py's grading cell does, and puts the notebook's
modules back, so that each call stands alone (otter and nbgrader run one test at a time). The export writes
this file with HIDDEN and REFERENCES filled in (instructor/hidden/chNN.py and the references its
cases compare with): it holds the hidden cases, so it goes only where the learner cannot read it
(otter's autograder zip, nbgrader's hidden tests).
"""

import importlib
import sys
import types

HIDDEN = {}  # "ch07" -> the source of instructor/hidden/ch07.py
REFERENCES = {}  # "ch07" -> the source of the chapter's @reference functions
CHECK_TIMEOUT = 60  # s one check or hidden case may take while grading, as in `make grade`


def _exercises_modules():
    return [key for key in sys.modules if key.split(".")[:2] == ["micrograd_lesson", "exercises"]]


def grade(name, hidden=True):
    """(True, "correct") if the learner's last answer to exercise `name` passes its check (and, with
    `hidden`, every hidden case); else (False, the hint `make grade` gives)."""
    chapter = name.split(".")[0]
    learners = sys.modules.get("micrograd_lesson.exercises._core")
    exercise = getattr(learners, "EXERCISES", {}).get(name)
    if exercise is None or exercise.last_answer is learners.NO_ANSWER:
        return False, "not attempted: its check was never called (did its cell run?)"
    answer = exercise.last_answer
    saved = {key: sys.modules.pop(key) for key in _exercises_modules()}  # the notebook's, put back after
    try:  # fresh checks: none that the notebook patched grades it
        core = importlib.import_module("micrograd_lesson.exercises._core")
        importlib.import_module("micrograd_lesson.exercises")
        core.TIME_LIMIT = CHECK_TIMEOUT
        if hidden and chapter in HIDDEN:
            module = importlib.import_module("micrograd_lesson.exercises." + chapter)
            exec(REFERENCES.get(chapter, ""), vars(module))  # what the hidden cases compare with
            cases = types.ModuleType(f"course_hidden_{chapter}")
            exec(compile(HIDDEN[chapter], f"hidden/{chapter}.py", "exec"), vars(cases))
        exercise = core.EXERCISES[name]
        verdict = exercise.check(answer, record=False)
        for case in exercise.hidden if verdict and hidden else ():
            extra = case(answer, record=False)
            if not extra:
                return False, "passes the notebook's check, not a hidden case: " + extra.hint
        return bool(verdict), "correct" if verdict else verdict.hint
    finally:
        for key in _exercises_modules():
            del sys.modules[key]
        sys.modules.update(saved)
