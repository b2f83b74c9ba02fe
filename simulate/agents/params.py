"""An agent's parameters (``--agents name:key=value;key=value``), typed by their
defaults and checked, with one-line errors naming the agent, the key and the value.

>>> parse_params("demo", {"depth": "3", "style": "calm"}, {"depth": 1, "style": "bold"},
...              choices={"style": ("bold", "calm")})
{'depth': 3, 'style': 'calm'}
>>> parse_params("demo", {"depth": "0"}, {"depth": 1},
...              check=lambda k, v: None if v >= 1 else "at least 1")
Traceback (most recent call last):
...
mjlog.errors.InputError: demo parameter 'depth' must be at least 1, got '0'

Every float a command reads from its text (``--until``'s half-width, an agent's
float parameter) goes through :func:`finite_float`: ``nan``, ``inf`` and ``1e309``
(an overflow to infinity) are refused there, once for all.

>>> finite_float("1e309", "--until draw_rate's half-width")
Traceback (most recent call last):
...
mjlog.errors.InputError: --until draw_rate's half-width must be a finite number, got '1e309'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mjlog.errors import InputError, finite_float, quote

__all__ = ["finite_float", "parse_params"]


def parse_params(
    agent: str,
    given: Mapping[str, str],
    defaults: Mapping[str, Any],
    choices: Mapping[str, tuple[str, ...]] | None = None,
    check: Callable[[str, Any], str | None] | None = None,
) -> dict[str, Any]:
    """``defaults`` updated by ``given``: a key of ``choices`` must be one of its
    names; any other value is converted to its default's type, then ``check(key,
    value)`` returns what is wrong with it (the end of "must be …") or None."""
    choices = choices or {}
    out = dict(defaults)
    for k, v in given.items():
        if k not in defaults:
            raise InputError(f"unknown {agent} parameter {quote(k)}; valid: {', '.join(defaults)}")
        if k in choices:
            if v not in choices[k]:
                raise InputError(
                    f"bad value {quote(v)} for {agent} parameter {quote(k)}; "
                    f"valid: {', '.join(choices[k])}"
                )
            out[k] = v
            continue
        val: Any  # not inferred: a compiled (mypyc) float local would make an int a float
        if isinstance(defaults[k], float):
            val = finite_float(v, f"{agent} parameter {quote(k)}")
        else:
            try:
                val = type(defaults[k])(v)
            except ValueError:
                raise InputError(f"bad value {quote(v)} for {agent} parameter {quote(k)}") from None
        wrong = check(k, val) if check is not None else None
        if wrong is not None:
            raise InputError(f"{agent} parameter {quote(k)} must be {wrong}, got {quote(v)}")
        out[k] = val
    return out
