"""``efficient``: plays for tile acceptance (进张).

It discards to keep shanten lowest and, among those discards, to maximise the
number of unseen tiles (not in its hand, any discard pile or any meld) that
would lower shanten; ties go to the discard that keeps its longest suit (a
cheap proxy for hand value), then to its random stream. It wins whenever it
can and claims a pon or kong only when that lowers shanten, or keeps it while
accepting more tiles. In xuezhan it voids the suit it holds fewest of and
discards void tiles first.

>>> from simulate.agents import make_agent
>>> make_agent("efficient").name
'efficient'
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from mjlog.agent import SeatView, obvious_choice
from mjlog.compiled import mypyc_attr
from mjlog.events import DISCARD, KONG, PON, Event, tile_of
from mjlog.ukeire import accept, accept_after, after_discards

#: what :func:`mjlog.ukeire.accept` answers: (shanten, tiles that lower it, their kinds)
Accepted = tuple[int, int, list[int]]


def unseen_counts(view: SeatView) -> list[int]:
    """4 minus the copies this seat can see: its hand, every discard, every meld."""
    seen: list[int] = list(view.hand)
    for pile in view.discards:
        for t in pile:
            seen[t] += 1
    for ms in view.melds:
        for m in ms:
            seen[m.tile] += m.size
    return [4 - x if x < 4 else 0 for x in seen]


def without_void(hand: list[int], void: int | None) -> tuple[list[int], int]:
    """The hand without its void-suit tiles, and how many there were."""
    if void is None:
        return hand, 0
    h = hand[:]
    k = sum(h[9 * void : 9 * void + 9])
    h[9 * void : 9 * void + 9] = [0] * 9
    return h, k


#: a ranked discard's sort key past its (common) shanten: more accepted, then the
#: longer suit kept
_BY_COUNT_AND_SUIT = itemgetter(1, 2)


@mypyc_attr(allow_interpreted_subclasses=True)  # so may StrategicAgent's subclasses be
class EfficientCore:
    """The acceptance arithmetic shared by ``efficient`` and ``strategic``."""

    def rank_discards(self, view: SeatView, discards: Sequence[Any], unseen: list[int]):
        """Discards sorted best first by (shanten, -acceptance, -longest suit)."""
        hand = view.hand
        nm = len(view.melds[view.seat])
        void = view.void[view.seat]
        if void is not None:
            vd = [o for o in discards if o.tile // 9 == void]
            if vd:
                return [(0, 0, 0, o) for o in vd]
        h, _ = without_void(hand, void)
        # the shanten after each discard (void suit emptied: of the rest), then the
        # acceptance of every discard that keeps it lowest, all in one pass
        sh_after = after_discards(h, nm)
        best_sh = 99
        best: list[Any] = []
        for o in discards:  # the lowest shanten's discards, in the options' order
            sh = sh_after[o.tile]
            if sh < best_sh:
                best_sh, best = sh, [o]
            elif sh == best_sh:
                best.append(o)
        counts = accept_after(h, nm, unseen, [o.tile for o in best])
        # the longest suit of the hand without the discard, per the discard's suit
        s0, s1, s2 = sum(h[0:9]), sum(h[9:18]), sum(h[18:27])
        longest = (
            max(s0 - 1, s1, s2),
            max(s0, s1 - 1, s2),
            max(s0, s1, s2 - 1),
            max(s0, s1, s2),
        )
        ranked = [
            (best_sh, -n, -longest[o.tile // 9], o)  # honors: 27 // 9 == 3
            for o, n in zip(best, counts, strict=True)
        ]
        ranked.sort(key=_BY_COUNT_AND_SUIT)  # best_sh is every discard's
        return ranked

    def claim_helps(
        self, view: SeatView, o: Event, unseen: list[int], now: Accepted | None = None
    ) -> bool:
        """A pon that lowers shanten, or keeps it while accepting more; a kong that
        keeps it. ``now``: :func:`~mjlog.ukeire.accept` of the hand as it stands
        (void tiles taken out), when the caller has it."""
        hand = view.hand
        nm = len(view.melds[view.seat])
        h, _ = without_void(hand, view.void[view.seat])
        t = tile_of(o)
        sh0, n0, _ = now or accept(h, nm, unseen)
        if o.type == PON:
            h[t] -= 2
            after = after_discards(h, nm + 1)
            h[t] += 2
            sh1 = min(after.values()) if after else 99
            if sh1 != sh0:
                return sh1 < sh0
            h[t] -= 2
            best = max(accept_after(h, nm + 1, unseen, [d for d, v in after.items() if v == sh1]))
            h[t] += 2
            return best > n0
        h[t] -= 3
        sh1, _n1, _ = accept(h, nm + 1, unseen)
        h[t] += 3
        return sh1 <= sh0

    def own_kong_helps(
        self, view: SeatView, o: Event, best_sh: int, unseen, slack: int = 0
    ) -> bool:
        """A concealed or added kong that keeps shanten within ``slack`` of the best."""
        hand = view.hand
        nm = len(view.melds[view.seat])
        h, _ = without_void(hand, view.void[view.seat])
        k = 4 if o.kind == "concealed" else 1
        h[tile_of(o)] -= k
        sh1, _, _ = accept(h, nm + (k == 4), unseen)
        h[tile_of(o)] += k
        return sh1 <= best_sh + slack


class EfficientAgent(EfficientCore):
    name = "efficient"
    money_blind = True  # tile efficiency only, never what a hand pays (mjlog.resettle)

    def __init__(self, **params):
        from mjlog.errors import InputError

        if params:
            raise InputError(f"agent 'efficient' takes no parameters, got {sorted(params)}")
        self.params: dict = {}

    def start_hand(self, seat, rng) -> None:
        self.seat, self.rng = seat, rng

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        if (plain := obvious_choice(view, options)) is not None:
            return plain
        unseen = unseen_counts(view)
        if options[-1] is None:  # claim window
            for o in options:
                if o is not None and o.type in (PON, KONG) and self.claim_helps(view, o, unseen):
                    return o
            return None
        discards = [o for o in options if o is not None and o.type == DISCARD]
        ranked = self.rank_discards(view, discards, unseen)
        for o in options:
            if (
                o is not None
                and o.type == KONG
                and self.own_kong_helps(view, o, ranked[0][0], unseen)
            ):
                return o
        top = [r[3] for r in ranked if r[:3] == ranked[0][:3]]
        return top[self.rng.below(len(top))]
