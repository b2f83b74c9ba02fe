"""User-facing errors: each prints as one line and exits non-zero, never a traceback.

>>> str(MjlogError("bad input"))
'bad input'
"""


class MjlogError(Exception):
    """Base for every error mjlog reports to a user as one line."""


class InputError(MjlogError, ValueError):
    """Malformed input: bad notation, unknown rule key, bad value, unreadable file."""


def clip(text: str, limit: int = 200) -> str:
    """``text`` cut to about ``limit`` characters for an error message: a value from a
    hostile file may be megabytes long, and a message quotes it on one line.

    >>> clip("x" * 500, 20)
    'xxxxxxxxxxxxxxxxxxxx… (500 characters)'
    >>> clip("short")
    'short'
    """
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"
