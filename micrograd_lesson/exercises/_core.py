"""What every chapter's exercises share: verdicts, solutions and revealing them.

A check returns a Verdict that shows as "correct" or one specific hint and is
truthy only when the answer is right (so tests write `assert check(...)`). It
never raises: a learner's half-written function should get a hint, not a
traceback. Each worked solution is registered with the check it must pass,
so the tests can run every solution through its check.
"""

import functools
import html
import inspect
import itertools
import math
import textwrap

SOLUTIONS = {}  # name -> (solution function, check function)


class Verdict:
    """A check's outcome: shows as "correct" or "not yet: <hint>", and is truthy only if correct.

    Returned rather than printed, so the check on a cell's last line shows one line.
    """

    def __init__(self, ok, hint=""):
        self.ok, self.hint = bool(ok), hint

    def __bool__(self):
        return self.ok

    def __eq__(self, other):
        return bool(self) == other if isinstance(other, (bool, Verdict)) else NotImplemented

    __hash__ = None

    def __repr__(self):
        return "correct" if self.ok else f"not yet: {self.hint}"


def as_number(x):
    """x as a float if it is a real number (int, float, numpy scalar, 0-d array), else None. Never raises."""
    if isinstance(x, (bool, str, bytes)):  # float("4.75") would turn text into a number
        return None
    try:
        if getattr(x, "shape", ()) != ():
            return None
        value = float(x)
    except Exception:  # junk of any kind is "not a number", never an error
        return None
    return value


def as_array(x):
    """x as a float NumPy array if it is an array (or nested list) of numbers, else None. Never raises."""
    if x is None or isinstance(x, (str, bytes, dict, set)):
        return None
    try:
        import numpy as np  # here, so chapters without arrays do not pay for the import

        return np.asarray(x, dtype=float)
    except Exception:  # junk of any kind is "not an array"
        return None


def shown(x, width=40):
    """repr(x) cut to `width` characters for a hint, or "a <type>" if repr fails. Never raises."""
    try:
        return repr(x)[:width]
    except Exception:  # a learner's class may have a broken __repr__
        return f"a {type(x).__name__}"


def first(items, n):
    """Up to n items of an iterable as a list, or None if it cannot be iterated. Never raises or hangs."""
    try:
        return list(itertools.islice(items, n))
    except Exception:  # not iterable, or its iterator raised
        return None


def close(got, want, rel=1e-6, abs_tol=1e-9):
    """True when `got` is a real number within tolerance of `want`; False for junk. Never raises."""
    got = as_number(got)
    return got is not None and math.isclose(got, want, rel_tol=rel, abs_tol=abs_tol)


def not_a_function(fn, what):
    """A Verdict with a hint if `fn` is not callable (e.g. the learner called it), else None."""
    if callable(fn):
        return None
    return Verdict(False, f"pass {what} itself (its name, without calling it); got {type(fn).__name__}")


def call_or_value(x, *args):
    """A learner may pass a number or a function that computes it: (value, None) or (None, hint)."""
    return attempt(x, *args) if callable(x) else (x, None)


def attempt(fn, *args):
    """Call the learner's fn; return (result, None) or (None, hint) if it raised."""
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - any error becomes a hint, not a traceback
        return None, f"your function raised {type(e).__name__}: {e}"


def never_raises(check):
    """Wrap a check so that an answer which misbehaves when it is read (a property that
    raises, a dict whose lookups fail) still gets a hint instead of a traceback."""

    @functools.wraps(check)
    def guarded(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - a hostile answer becomes a hint, not a traceback
            return Verdict(
                False,
                f"reading your answer raised {type(e).__name__}: {e}. "
                "Submit plain numbers, dicts of numbers, Values or functions, as the exercise asks",
            )

    return guarded


def solution(name, check):
    """Register a worked solution under `name`, to be passed to `check`."""

    def register(fn):
        SOLUTIONS[name] = (fn, check)
        return fn

    return register


def reveal(name):
    """Offer a worked solution, folded away until clicked, and run its check.

    In Jupyter the code sits in a collapsed "Show the solution" block, so a
    stored notebook does not give it away; elsewhere it is printed.
    """
    if name not in SOLUTIONS:
        raise KeyError(f"no solution named {name!r}; there are: {', '.join(sorted(SOLUTIONS))}")
    fn, check = SOLUTIONS[name]
    code = textwrap.dedent(inspect.getsource(fn))
    code = "\n".join(line for line in code.splitlines() if not line.startswith("@solution"))
    try:
        from IPython.display import HTML, display
    except ImportError:
        print(code)
    else:
        display(
            HTML(
                f"<details><summary>Show the solution ({html.escape(name)})</summary>"
                f"<pre><code>{html.escape(code)}</code></pre></details>"
            )
        )
    return SolutionRun(check(fn))


class SolutionRun(Verdict):
    """What `reveal` returns: the worked solution run through its own check.

    It says so in words, so a stored notebook never reads as if the learner's
    own answer had been accepted.
    """

    def __init__(self, outcome):
        super().__init__(outcome, getattr(outcome, "hint", ""))

    def __repr__(self):
        if self.ok:
            return "the worked solution above passes its own check"
        return f"the worked solution fails its check (please report this): {self.hint}"
