"""Hidden cases: extra inputs the grader tries on an answer that the notebook's check accepts.

One module per chapter (`ch05.py`), each case registered with `@hidden("ch05.sin")` from
`micrograd_lesson.exercises._core`. A case takes the learner's answer and returns a
Verdict. They live here, outside the package, so the student edition and any copy of
the package leave them out; `instructor/grade.py` loads a chapter's cases into the
kernel it grades in (`load_hidden`).
"""
