"""What every chapter's exercises share: one registry of checks and solutions, and the guard.

    @check("ch05.softsign", takes="function")  # registers, exports and guards `check_softsign`
    def check_softsign(softsign): ...          # True if right, else the hint (a str)

    @solution("ch05.softsign")  # the worked solution (the student edition strips these)
    def softsign(x): ...

The guard makes sure a check never raises (an error, even from a hostile answer's __repr__,
becomes a hint), gives up after a time limit (an endless loop gets a hint, not a hung kernel),
and records the answer for grading.
"""

import hashlib
import html
import inspect
import itertools
import json
import math
import signal
import textwrap
import threading
from dataclasses import dataclass, field
from functools import wraps

TIME_LIMIT = 15.0  # seconds a check may run before it gives up; tests lower it
NO_ANSWER = object()  # an exercise's last answer before the learner submits one


@dataclass
class Exercise:
    name: str
    check: object = None  # the guarded check, as exported
    solution: object = None
    hidden: list = field(default_factory=list)  # guarded extra cases for a grader (instructor/hidden)
    last_answer: object = NO_ANSWER


EXERCISES = {}  # "chNN.exercise" -> Exercise, in the order they are registered
SOLUTIONS = {}  # "chNN.exercise" -> (worked solution, check), for exercises that have both


def _register(name, **parts):
    ex = EXERCISES.setdefault(name, Exercise(name))
    for key, value in parts.items():
        setattr(ex, key, value)
    if ex.solution is not None and ex.check is not None:
        SOLUTIONS[name] = (ex.solution, ex.check)
    return ex


def _wrap(text):
    """Wrapped at word boundaries, so a long hint fits a laptop's notebook without breaking mid-word."""
    return textwrap.fill(text, width=100, break_long_words=False)


class Verdict:
    """Shows as "correct" or "not yet: <hint>" (returned, not printed: one line under the cell)."""

    def __init__(self, ok, hint=""):
        self.ok, self.hint = bool(ok), hint

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return "correct" if self.ok else _wrap(f"not yet: {self.hint}")


CORRECT = Verdict(True)


# ---- the guard ------------------------------------------------------------------------------------


class _TimeUp(BaseException):
    """Raised into a check that ran too long; a BaseException, so `except Exception` cannot swallow it."""


def _message(error):
    """'TypeError: text' for an exception, even one whose str() raises."""
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001 - a hostile exception's __str__
        text = ""
    return f"{type(error).__name__}: {text}"[:200]


def _run_with_time_limit(fn, seconds):
    """fn() within `seconds`, or raise _TimeUp. In the main thread on Unix (a notebook's kernel) a
    SIGALRM timer interrupts the loop itself; elsewhere fn runs in a daemon thread, abandoned when
    time is up: the check still answers, the loop runs on."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        if _TIMING:  # an outer check is timing us already: its limit holds
            return fn()

        state = ["starting"]  # then "running" fn, then "done": what a ring may do depends on it

        def time_up(signum, frame):
            if state[0] == "starting":  # a busy machine kept fn from starting: it still gets its time
                signal.setitimer(signal.ITIMER_REAL, seconds)
            elif state[0] == "running":  # ring again, in case the spot swallows it (gc callbacks do)
                signal.setitimer(signal.ITIMER_REAL, 0.05)
                raise _TimeUp
            # "done": a late ring does nothing, so the clean-up below is never cut short

        previous = signal.signal(signal.SIGALRM, time_up)
        _TIMING.append(fn)
        try:
            signal.setitimer(signal.ITIMER_REAL, seconds)
            state[0] = "running"
            return fn()
        finally:
            state[0] = "done"
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)
            _TIMING.clear()
    box = {}

    def target():
        try:
            box["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the caller below
            box["error"] = e

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise _TimeUp
    if "error" in box:
        raise box["error"]
    return box["result"]


_TIMING = []  # not empty while a check's timer runs


def _the_packages_own(answer):
    """'central_difference (micrograd_lesson.gradcheck)' if the answer is a function or class of the
    course's package itself (the engine, its tools), not of its exercises; else None."""
    try:
        module = answer.__module__ if callable(answer) else None
        name = answer.__qualname__
    except Exception:  # noqa: BLE001 - no such attributes: the learner's own object
        return None
    package = __name__.split(".")[0] + "."  # micrograd_lesson.
    if isinstance(module, str) and module.startswith(package) and ".exercises." not in module + ".":
        return f"{name} ({module})"
    return None


def _reader(fn, takes):
    """What the check reads before fn sees the answer: a function, a class, a number, or a value that
    may come as a function returning it (how reveal() passes a worked solution). A str is a hint."""
    what = next(iter(inspect.signature(fn).parameters))  # the check's parameter: softsign, Num, ...

    def read(answer):
        if own := _the_packages_own(answer):
            return f"that is the course package's own {own}: the exercise is to write your own"
        got = kind(answer)  # never a repr with a memory address in it
        if takes == "function" and not callable(answer):
            return f"pass your {what} function itself (its name, without calling it); got {got}"
        if takes == "class" and not isinstance(answer, type):
            return f"pass the class itself, e.g. {fn.__name__}({what}); got {got}"
        if takes == "number":
            number, hint = read_number(answer)
            return hint or fn(number)
        if takes == "value":
            value, hint = attempt(answer) if callable(answer) else (answer, None)  # reveal passes a function
            return hint or fn(value)
        return fn(answer)

    return read


def _guarded(ex, fn, takes=None):
    """fn as a check that never raises, gives up after a time limit, and records the answer."""
    read = _reader(fn, takes)

    @wraps(fn)
    def guarded(answer, record=True):
        if record:
            ex.last_answer = answer
        seconds = TIME_LIMIT  # read at each call: tests lower it
        try:
            result = _run_with_time_limit(lambda: read(answer), seconds)
        except _TimeUp:
            result = (
                f"the check gave up after {seconds:g} s: does your answer loop forever (a while "
                "loop whose condition never turns false, a generator that never ends), or try far "
                "more cases than it needs (building every candidate instead of reasoning about one)?"
            )
        except (Exception, SystemExit) as e:  # noqa: BLE001 - a hostile answer becomes a hint
            result = (
                f"reading your answer raised {_message(e)}. Submit plain numbers, lists, dicts, "
                "Values or functions, as the exercise asks"
            )
        if result is True or isinstance(result, Verdict):
            return CORRECT if result is True else result
        return Verdict(
            False, result if isinstance(result, str) and result else "the check found nothing to say"
        )

    return guarded


def check(name, takes=None):
    """Register the decorated function as the guarded check of exercise `name` ("chNN.short");
    `micrograd_lesson.exercises` exports it under the function's own name. takes="function",
    "class", "number" or "value" reads the answer first (see _reader): the check gets it only if
    it is of that kind."""
    return lambda fn: _register(name, check=_guarded(_register(name), fn, takes)).check


def solution(name):
    """Register the decorated function (or class) as the worked solution of exercise `name`."""
    return lambda fn: _register(name, solution=fn).solution


def hidden(name):
    """Register a hidden case of exercise `name`, for grading: it tries an answer the check accepts
    on other inputs. The student edition leaves these out."""

    def register(fn):
        ex = _register(name)
        ex.hidden.append(_guarded(ex, fn))
        return fn

    return register


REVEAL_CASES = False  # the grader sets it when the instructor asks for hidden cases in feedback


class Missed(Verdict):
    """A hidden case the answer failed: what kind of case it was and what the answer gave, and,
    kept apart, the input and the expected value (`told`), which a learner sees only when the
    instructor grades with --reveal-cases (else feedback would hand over the hidden cases)."""

    def __init__(self, kind, got, told):
        self.kind, self.got, self.told = kind, got, told
        super().__init__(False, told if REVEAL_CASES else f"on {kind}, your code gave {got}")


def reveal(name):
    """Show a worked solution folded away until clicked (printed outside Jupyter); run its check."""
    if name in EXERCISES and EXERCISES[name].solution is None:  # the student edition
        return _Said(f"Worked solutions are not part of this edition ({name}): ask your instructor.")
    if name not in SOLUTIONS:
        raise KeyError(f"no solution named {name!r}; there are: {', '.join(sorted(SOLUTIONS))}")
    ex = EXERCISES[name]
    code = textwrap.dedent(inspect.getsource(ex.solution))
    code = "\n".join(line for line in code.splitlines() if not line.startswith("@solution"))
    try:
        from IPython.display import HTML, display
    except ImportError:
        print(code)
    else:
        summary = f"<summary>Show the solution ({html.escape(name)})</summary>"
        display(HTML(f"<details>{summary}<pre><code>{html.escape(code)}</code></pre></details>"))
    run = ex.check(ex.solution, record=False)  # in words: a stored notebook must not read "correct"
    if run:
        return _Said("the worked solution above passes its own check")
    return _Said(_wrap(f"the worked solution fails its check (please report this): {run.hint}"))


class _Said(str):  # text shown under a cell as it is (a str's repr would add quotes)
    __repr__ = str.__str__


# ---- what a check knows of the answer: records, not references --------------------------------
# A check never calls a reference implementation: the student edition has none (it ships the
# checks, not the answers). It compares with what the references gave on its fixed inputs,
# recorded in recorded.json beside this file, or, where that record would itself be an answer
# (a single number, a dict of gradients, a diagnosis), with a digest of the rounded answer.
# The references and the functions that record them are marked @reference and @recorder; the
# student edition leaves them out, and tests/test_student_keys.py makes the records
# again from them and fails if recorded.json differs (`python instructor/student.py --record`
# writes it).

RECORD_FILE = __file__.rsplit("_core.py", 1)[0] + "recorded.json"
RECORDERS = {}  # "chNN.name" -> fn() giving that exercise's records (full edition only)


def reference(fn):
    """Mark fn as a reference implementation: checks use its recorded outputs, never fn itself,
    and the student edition leaves it out."""
    return fn


def recorder(name):
    """Register the decorated function as the maker of exercise `name`'s records: a dict of lists
    (the reference's outputs on the check's inputs, and those of each known mistake)."""

    def register(fn):
        RECORDERS[name] = fn
        return fn

    return register


def _load_records():
    try:
        with open(RECORD_FILE, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


_RECORDS = _load_records()


def recorded(name):
    """The records of exercise `name` (see recorder), as stored in recorded.json."""
    if name not in _RECORDS:  # a package installed without its data file
        raise LookupError(f"the package has no records for {name} (recorded.json): reinstall it")
    return _RECORDS[name]


def digest(name, *parts):
    """A short one-way digest of what an answer must be (e.g. a rounded number), salted by exercise."""
    return hashlib.sha256("\x1f".join(map(str, (name, *parts))).encode()).hexdigest()[:16]


def number_digest(name, x, step):
    """digest of x on a grid of `step` (the check's tolerance): what a check stores of a number."""
    return digest(name, round(x / step))


def matches_number(name, x, want_digest, step):
    """True if x is within `step` of the grid point whose number_digest is want_digest (the answer
    rounded to the grid: the tolerance is the check's as long as the answer lies on the grid)."""
    x = as_number(x)
    if x is None or not math.isfinite(x) or abs(x / step) > 1e15:
        return False
    q = x / step
    near = range(math.floor(q) - 1, math.ceil(q) + 2)
    return any(abs(q - k) <= 1 and digest(name, k) == want_digest for k in near)


# ---- small helpers every check uses; none of them raises or hangs ---------------------------------


def as_number(x):
    """x as a float if it is a real number (int, float, numpy scalar, 0-d array), else None."""
    if isinstance(x, (bool, str, bytes)):  # float("4.75") would turn text into a number
        return None
    try:
        return float(x) if getattr(x, "shape", ()) == () else None
    except Exception:  # junk of any kind is "not a number", never an error
        return None


def as_array(x):
    """x as a float NumPy array if it is an array (or nested list) of numbers, else None."""
    if x is None or isinstance(x, (str, bytes, dict, set)):
        return None
    try:
        import numpy as np  # here, so chapters without arrays do not pay for the import

        return np.asarray(x, dtype=float)
    except Exception:  # junk of any kind is "not an array"
        return None


def shown(x, width=40):
    """repr(x) cut to `width` characters for a hint, or "a <type>" if repr fails."""
    try:
        text = repr(x)
    except Exception:  # a learner's class may have a broken __repr__
        return kind(x)
    return text if len(text) <= width else text[: width - 3] + "..."


def kind(x):  # for "got ...": None, 3 or 'text' as it is; anything else by its type, 'a Value'
    if type(x) in (type(None), bool, int, float, str):  # exact types: their repr cannot fail
        return shown(x)
    name = type(x).__name__
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def first(items, n):
    """Up to n items of an iterable as a list (never more: an endless one must not hang), or None."""
    try:
        return list(itertools.islice(items, n))
    except Exception:  # not iterable, or its iterator raised
        return None


def close(got, want, rel=1e-6, abs_tol=1e-9):
    """True when `got` is a real number within tolerance of `want`; False for junk."""
    got = as_number(got)
    return got is not None and math.isclose(got, want, rel_tol=rel, abs_tol=abs_tol)


def attempt(fn, *args):
    """Call the learner's fn; return (result, None) or (None, hint) if it raised."""
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - any error becomes a hint, not a traceback
        return None, f"your function raised {_message(e)}"


def read_number(answer):
    """(float, None) for a finite number or a function returning one, else (None, hint)."""
    value, hint = attempt(answer) if callable(answer) else (answer, None)
    number = as_number(value)
    if hint is None and value is None:
        hint = "your answer is still None: replace it with your number (or a function returning it)"
    elif hint is None and (number is None or not math.isfinite(number)):
        hint = f"expected a finite number, got {shown(value)}"
    return (None, hint) if hint else (number, None)


def known_mistake(got, mistakes, same=close):
    """The hint of the first (wrong answer, hint) pair that `got` matches, or None. Called only
    once `got` is known to be wrong; `same(got, wrong)` decides a match (by default: numbers within
    tolerance); a wrong answer of None is skipped."""
    for wrong, hint in mistakes:
        try:
            if wrong is not None and same(got, wrong):
                return hint
        except Exception:  # noqa: BLE001 - a learner's odd object matches no known mistake
            continue
    return None
