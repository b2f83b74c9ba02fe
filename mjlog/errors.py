"""User-facing errors: each prints as one line and exits non-zero, never a traceback.

Every message that quotes user input quotes it through :func:`quote`, so a
25 MB value on the command line or in a file is shown as its first ~200
characters and its length, never in full.

>>> str(MjlogError("bad input"))
'bad input'
>>> quote("x" * 1000)[-20:], len(quote("x" * 1000))
("'… (1000 characters)", 221)
>>> quote("5m"), quote(1.5), quote("\\ud800")
("'5m'", '1.5', "'\\\\ud800'")
"""

from __future__ import annotations

import math
from typing import Any

LIMIT = 200
"""About how many characters of a user's value a message quotes."""


class MjlogError(Exception):
    """Base for every error mjlog reports to a user as one line."""


class InputError(MjlogError, ValueError):
    """Malformed input: bad notation, unknown rule key, bad value, unreadable file."""


def quote(value: Any, limit: int = LIMIT) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters.

    A string longer than ``limit`` is shown as its start and its length; any
    other value as the start of its repr. Non-printable characters and lone
    surrogates come out escaped (repr), so the message can always be printed.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value)} characters)"
    if isinstance(value, bytes | bytearray) and len(value) > limit:
        return f"{bytes(value[:limit])!r}… ({len(value)} bytes)"
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested too deeply; an int too long to print
        return f"<a {type(value).__name__} too large to show>"
    return cut(text, limit)


def cut(text: str, limit: int = LIMIT) -> str:
    """``text`` cut to about ``limit`` characters, newlines and all control
    characters escaped so that it stays on one line.

    >>> cut("a\\nb"), cut("y" * 300, 10)
    ('a\\\\nb', 'yyyyyyyyyy… (300 characters)')
    """
    short = text if len(text) <= limit else text[:limit]
    short = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in short)
    short = short.encode("utf-8", "backslashreplace").decode("utf-8")
    return short if len(text) <= limit else f"{short}… ({len(text)} characters)"


def finite_float(text: str, what: str) -> float:
    """``text`` as a finite float; ``what`` names it in the one-line error (a
    non-finite value would pass every ``<=`` bound check unseen, or print as
    ``NaN`` in JSON).

    >>> finite_float("0.5", "the margin")
    0.5
    >>> finite_float("1e309", "the margin")
    Traceback (most recent call last):
    ...
    mjlog.errors.InputError: the margin must be a finite number, got '1e309'
    """
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(f"bad value {quote(text)} for {what}; expected a number") from None
    if not math.isfinite(v):
        raise InputError(f"{what} must be a finite number, got {quote(text)}")
    return v
