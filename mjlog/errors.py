"""User-facing errors: each prints as one line and exits non-zero, never a traceback.

>>> str(MjlogError("bad input"))
'bad input'
"""


class MjlogError(Exception):
    """Base for every error mjlog reports to a user as one line."""


class InputError(MjlogError, ValueError):
    """Malformed input: bad notation, unknown rule key, bad value, unreadable file."""
