"""The pattern most checks follow: run the learner's function on fixed cases, compare with a
reference, and only then look the answers up among known mistaken rules."""

from ._core import CORRECT, Verdict, as_number, attempt, close, kind, known_mistake, shown


def exact(got, want):
    """Equal to within rounding: the tolerance every derived formula must meet."""
    return close(got, want, rel=1e-9, abs_tol=1e-12)


def run_cases(fn, name, cases, read=as_number, want="a number", where=None):
    """[read(fn(*case)) for every case], or a failed Verdict at the first case that raises or reads
    None; its hint opens with where(case), by default the call itself."""
    if not callable(fn):  # the learner called their function, or passed something else
        return Verdict(False, f"pass {name} itself (its name, without calling it); got {kind(fn)}")
    results = []
    for case in cases:  # each list or array a copy: a learner's in-place edit never reaches the reference
        got, error = attempt(fn, *(c.copy() if callable(getattr(c, "copy", None)) else c for c in case))
        value = None if error else attempt(read, got)[0]
        if value is None:
            opening = where(case) if where else f"{name}({', '.join(shown(c) for c in case)})"
            return Verdict(False, f"{opening}: " + (error or f"return {want}, got {shown(got)}"))
        results.append(value)
    return results


def _at(rule, i, case):  # a rule is a function of the case, or its recorded outputs (a list, one per case)
    return rule[i] if isinstance(rule, list) else rule(*case)


def judge(results, cases, reference, mistakes=(), same=exact, otherwise=None, where=lambda i: ""):
    """Right when every result is `same` as reference(*case); else the hint of the first mistaken
    rule (rule, hint) that gives every result; else otherwise(i) for the first wrong case i.
    where(i) opens the hint, e.g. by naming case i. A reference or rule may be given as its
    recorded outputs instead, a list with one per case (see _core.recorded)."""
    if isinstance(results, Verdict):  # run_cases refused the answer already
        return results
    wrong = [i for i, (r, c) in enumerate(zip(results, cases)) if not same(r, _at(reference, i, c))]
    if not wrong:
        return CORRECT

    def follows(_, rule):
        return all(same(r, _at(rule, i, c)) for i, (r, c) in enumerate(zip(results, cases)))

    hint = known_mistake(results, mistakes, same=follows) or otherwise(wrong[0])
    return Verdict(False, where(wrong[0]) + hint)


def numbers(items):
    """A list of numbers read as floats, or None if any item is not one."""
    values = [as_number(x) for x in items] if isinstance(items, (list, tuple)) else [None]
    return None if None in values else values


def all_exact(got, want, rel=1e-9, abs_tol=1e-12):
    """Two lists of numbers, equal item by item to within rounding."""
    return len(got) == len(want) and all(close(g, w, rel, abs_tol) for g, w in zip(got, want))


def _plain(x):  # as JSON keeps it: arrays and tuples as lists
    if callable(getattr(x, "tolist", None)):
        return x.tolist()
    return [_plain(v) for v in x] if isinstance(x, (tuple, list)) else x


def record(cases, reference, rules=None):
    """What a @recorder returns: {"want": reference(*case) for every case, label: rule(*case) for
    every case and every known mistaken rule}, as plain lists."""
    out = {"want": [_plain(reference(*c)) for c in cases]}
    out.update({label: [_plain(rule(*c)) for c in cases] for label, rule in (rules or {}).items()})
    return out


def recorded_mistakes(records, hints):
    """[(recorded outputs, hint)] for judge(), for every mistake labelled in `hints` {label: hint}."""
    return [(records[label], hint) for label, hint in hints.items()]
