"""What every chapter's exercises share: verdicts, solutions and revealing them.

A check prints "correct" or one specific hint, and returns True or False. It
never raises: a learner's half-written function should get a hint, not a
traceback. Each worked solution is registered with the check it must pass,
so the tests can run every solution through its check.
"""

import inspect
import textwrap

SOLUTIONS = {}  # name -> (solution function, check function)


def verdict(ok, hint=""):
    """Print the outcome of a check and return it."""
    print("correct" if ok else f"not yet: {hint}")
    return bool(ok)


def attempt(fn, *args):
    """Call the learner's fn; return (result, None) or (None, hint) if it raised."""
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - any error becomes a hint, not a traceback
        return None, f"your function raised {type(e).__name__}: {e}"


def solution(name, check):
    """Register a worked solution under `name`, to be passed to `check`."""

    def register(fn):
        SOLUTIONS[name] = (fn, check)
        return fn

    return register


def reveal(name):
    """Show a worked solution's code (as Markdown in Jupyter) and run its check."""
    if name not in SOLUTIONS:
        raise KeyError(f"no solution named {name!r}; there are: {', '.join(sorted(SOLUTIONS))}")
    fn, check = SOLUTIONS[name]
    code = textwrap.dedent(inspect.getsource(fn))
    code = "\n".join(line for line in code.splitlines() if not line.startswith("@solution"))
    try:
        from IPython.display import Markdown, display

        display(Markdown(f"```python\n{code}\n```"))
    except ImportError:
        print(code)
    return check(fn)
