"""A seat's view of a hand set by hand, for tests of one decision."""

from __future__ import annotations

from mjlog.agent import SeatView
from mjlog.rules import Rules
from mjlog.state import HandState
from mjlog.tiles import parse_counts


def seat_view(variant: str, hand: str, wall_left: int = 60, void: int | None = None) -> SeatView:
    """Seat 0's view with ``hand`` its tiles, ``void`` its void suit and ``wall_left``
    tiles live, nothing discarded or melded: a real view, as the engine gives (the
    compiled build's agents take no stand-in)."""
    rules = Rules(variant)
    st = HandState(rules, rules.spec.wall_tiles(rules), 0)
    st.hands[0][:] = parse_counts(hand)
    st.void[0] = void
    st.pos.front = st.pos.back + 1 - wall_left
    return SeatView(st, 0)
