"""``Tidy``: a small agent written against :mod:`mjlog.agent`, to copy and change.

It wins whenever it can. Otherwise it keeps its shanten (the tiles it still
needs, less one) as low as it can: it discards the tile that leaves the lowest,
and among equally good discards lets go of the tile the table has seen most of
(the fewer copies are left, the fewer hands can be waiting on it). In a claim
window it pons or kongs when that does not set it back, unless ``claims=none``.
In xuezhan it chooses as its void the suit it holds fewest of, and lets that
suit go first.

The engine gives it, at every decision, a :class:`~mjlog.agent.SeatView` (what
its seat may know) and the legal choices; it returns one of them. Parameters
arrive as strings from the command line: ``--agents tidy:claims=none``.
"""

from __future__ import annotations

from collections.abc import Sequence

from mjlog.agent import SeatView
from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event
from mjlog.hand import shanten
from mjlog.phase import SUIT_LETTERS
from mjlog.rng import Stream
from mjlog.ukeire import after_discards

CLAIMS = ("pon", "none")


class Tidy:
    """Wins when it can, keeps shanten low, lets go of the most-seen tile first."""

    name = "tidy"
    # It reads tiles only, never what a hand pays (base, cap, compensation): a
    # line-up of such agents can be settled again under other money rules from its
    # log (mjlog.agent.Agent lists the capabilities an agent may declare).
    money_blind = True

    def __init__(self, claims: str = "pon") -> None:
        if claims not in CLAIMS:
            raise ValueError(f"claims must be one of {', '.join(CLAIMS)}, not {claims!r}")
        # Only what differs from the defaults: the run id and the manifest record it.
        self.params: dict = {"claims": claims} if claims != "pon" else {}
        self.claims = claims == "pon"
        self.seat = 0
        self.rng: Stream | None = None

    def start_hand(self, seat: int, rng: Stream) -> None:
        # Draw any randomness from rng only: the same seed then plays the same hand.
        self.seat, self.rng = seat, rng

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        first = options[0]
        if first is not None and first.type == WIN:
            return first
        if first is not None and first.type == VOID:
            return self.void(view, options)
        if options[-1] is None:  # a claim window: the claims, then None (pass)
            return self.claim(view, options)
        return self.turn(view, options)

    def void(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        """xuezhan's void (定缺): the suit with the fewest tiles in hand."""
        hand = view.hand

        def held(o: Event | None) -> int:  # a void choice's kind is its suit: m, p or s
            suit = SUIT_LETTERS.index(o.kind)
            return sum(hand[9 * suit : 9 * suit + 9])

        return min(options, key=held)

    def claim(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        """A pon or kong that keeps shanten where it is, else pass."""
        if not self.claims:
            return None
        hand, melds, tile = view.hand, len(view.melds[self.seat]), view.window_tile
        before = shanten(hand, melds)
        for o in options:
            if o is None or o.type not in (PON, KONG):
                continue
            taken = 2 if o.type == PON else 3
            after = shanten(_without(hand, tile, taken), melds + 1)
            if after <= before:
                return o
        return None

    def turn(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        """Its own turn: a void-suit tile while it holds one (xuezhan), else the
        discard that leaves the lowest shanten, the most-seen tile among equals; a
        kong only when no discard is offered."""
        discards = [o for o in options if o is not None and o.type == DISCARD]
        if not discards:
            return options[0]
        seen = _seen(view)
        void = view.void[self.seat]
        if void is not None:  # no win while holding the void suit: those go first
            gone = [o for o in discards if o.tile // 9 == void]
            if gone:
                return max(gone, key=lambda o: (seen[o.tile], -o.tile))
        after = after_discards(view.hand, len(view.melds[self.seat]))
        return min(discards, key=lambda o: (after[o.tile], -seen[o.tile], o.tile))


def _without(hand: list[int], tile: int, k: int) -> list[int]:
    """A copy of ``hand`` with ``k`` copies of ``tile`` taken out (the view's lists
    are the live state: never change them)."""
    out = hand[:]
    out[tile] -= k
    return out


def _seen(view: SeatView) -> list[int]:
    """Copies of each tile this seat can see: its hand, every discard, every meld."""
    seen = view.hand[:]
    for pile in view.discards:
        for t in pile:
            seen[t] += 1
    for melds in view.melds:
        for m in melds:
            seen[m.tile] += m.size
    return seen
