"""The action numbers of :mod:`mjlog.env` (the table of its docstring).

>>> action_of(Event("kong", 0, 5, None, "added")), action_of(None)
(73, 108)
"""

from __future__ import annotations

from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event

__all__ = ["N_ACTIONS", "PASS", "action_of"]

N_ACTIONS = 109
CONCEALED, ADDED, EXPOSED, PON_A, WIN_A, VOID_A, PASS = 34, 68, 102, 103, 104, 105, 108
_SUITS = "mps"


def action_of(ev: Event | None) -> int:
    """The action number of a legal choice (``None`` = pass)."""
    if ev is None:
        return PASS
    t, tile, kind = ev.type, ev.tile, ev.kind
    if t == DISCARD and tile is not None:
        return tile
    if t == WIN:
        return WIN_A
    if t == PON:
        return PON_A
    if t == KONG:
        if kind != "concealed" and kind != "added":
            return EXPOSED
        if tile is not None:
            return (CONCEALED if kind == "concealed" else ADDED) + tile
    if t == VOID and kind is not None and kind in _SUITS:
        return VOID_A + _SUITS.index(kind)
    raise ValueError(f"no action for event {ev!r}")
