"""Reading a check's verdict in tests: the hint a wrong answer gets."""


def hint_of(check, answer):
    """The hint a wrong answer gets; fails the test if the answer passes."""
    result = check(answer)
    assert not result, f"a wrong answer passed: {answer!r}"
    return repr(result)


def failed_with(result, *words):
    """The check said "not yet", and its hint mentions each of `words`."""
    hint = repr(result)
    return (not result) and hint.startswith("not yet:") and all(w in hint for w in words)
