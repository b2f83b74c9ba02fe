"""Where a hand is: the phase of its state (what kind of event comes next)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Phase", "LIVE", "TAIL", "SUIT_LETTERS"]

LIVE, TAIL = "live", "tail"  # a draw's kind: from the wall's front or its tail
SUIT_LETTERS = "mps"  # a void choice's kind, by suit


class Phase(IntEnum):
    DEAL = 0
    VOID = 1  # xuezhan 定缺, seat by seat from the dealer
    DRAW = 2  # ``turn`` draws (live, or tail when ``need_tail``)
    ACT = 3  # ``turn`` wins, kongs or discards
    CLAIM = 4  # a discard is open to win / kong / pon
    ROB = 5  # a kong is open to robbing
    OVER = 6
