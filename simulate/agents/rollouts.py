"""The players of ``expert``'s rollouts: fast policies that play a sampled hand
out after each candidate choice (:func:`rollout_agents`).

:class:`Quick` is a few microseconds a decision; :class:`Fold` plays the fold
plan; :class:`Committed` is strategic held to one plan; any registered agent
may play too. The searching seat plays its candidate first (:class:`_Then`).

>>> agents = rollout_agents("quick", "strategic", 4, seat=1, first=None, seed=7)
>>> [a.name for a in agents]
['quick', 'strategic', 'quick', 'quick']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from mjlog.agent import SeatView
from mjlog.events import DISCARD, KONG, VOID, WIN, Event
from mjlog.events import tile_of as _tile
from mjlog.rng import Stream, derive
from simulate.agents.efficient import unseen_counts
from simulate.agents.registry import make_agent
from simulate.agents.strategic import StrategicAgent


class _Then:
    """Plays ``first`` at its first decision, then as ``inner``."""

    __slots__ = ("inner", "first", "name", "params", "pending")

    def __init__(self, inner, first: Event | None):
        self.inner, self.first, self.pending = inner, first, True
        self.name, self.params = inner.name, inner.params

    def start_hand(self, seat: int, rng: Stream) -> None:
        self.inner.start_hand(seat, rng)

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        if self.pending:
            self.pending = False
            return self.first
        return self.inner.choose(view, options)


class Committed(StrategicAgent):
    """A rollout policy: strategic held to one plan (``plain``, ``pairs``,
    ``flush``, ``half`` or ``triplets``) while the hand stays eligible for it,
    plain strategic once it is not. Where strategic re-weighs its plans at every
    discard, this plays a plan out, so a rollout values the plan and not one
    discard of it.

    >>> Committed("pairs").name
    'plan:pairs'
    """

    def __init__(self, target: str):
        super().__init__()
        self.target = target
        self.name = f"plan:{target}"

    def choose_plan(self, forced, plain_value, cands):
        if forced is None:
            if self.target == "plain":
                return "plain", None, 0.0
            held = [c for c in cands if c[2] == self.target]
            if held:
                return max(held)[2:]
        return super().choose_plan(forced, plain_value, cands)


class Quick:
    """The default rollout policy, a few microseconds a decision: wins when it
    can; keeps the tiles that connect (copies, then neighbours within two in the
    suit) and throws the loosest, void tiles first; pons a pair that connects
    to nothing else; kongs whenever it may."""

    name = "quick"
    params: dict = {}

    def start_hand(self, seat: int, rng: Stream) -> None:
        self.seat, self.rng = seat, rng

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        first = options[0]
        if first is not None and first.type in (WIN, VOID):
            if first.type == WIN:
                return first
            h = view.hand
            voids = cast("Sequence[Event]", options)  # a void choice names its suit
            return min(voids, key=lambda o: sum(h[9 * "mps".index(cast(str, o.kind)) :][:9]))
        h = view.hand
        if options[-1] is None:  # a claim window
            for o in options:
                if o is None:
                    continue
                if o.type == KONG or _loose(h, _tile(o), h[_tile(o)]) < 3:
                    return o
            return None
        best, best_key = None, None
        void = view.void[view.seat]
        for o in cast("Sequence[Event]", options):  # the seat's own turn: no pass
            t = _tile(o)
            if o.type == KONG:
                if void is None or t // 9 != void:
                    return o
                continue
            key = -1 if void is not None and t // 9 == void else _loose(h, t, 1)
            if best_key is None or key < best_key:
                best, best_key = o, key
        return best


class Fold:
    """The fold plan of a rollout: wins when it can, claims nothing else, and
    discards the safest tile: one every live opponent has discarded, then one
    another opponent has, then the most seen (fewest unseen copies), honours
    before terminals before middle tiles (void tiles first)."""

    name = "fold"
    params: dict = {}

    def start_hand(self, seat: int, rng: Stream) -> None:
        self.seat = seat

    def choose(self, view: SeatView, options: Sequence[Event | None]) -> Event | None:
        first = options[0]
        if first is not None and first.type in (WIN, VOID):
            return first if first.type == WIN else Quick.choose(Quick(), view, options)
        if options[-1] is None:
            return None
        return self.discard(view, options)

    @staticmethod
    def discard(view: SeatView, options: Sequence[Event | None]) -> Event:
        me, void = view.seat, view.void[view.seat]
        live = [o for o in range(view.n) if o != me and not view.won[o]]
        unseen = unseen_counts(view)

        def risk(o: Event) -> tuple:
            t = _tile(o)
            if void is not None and t // 9 == void:
                return (-1,)
            safe_from = sum(t in view.discards[s] for s in live)
            edge = 0 if t >= 27 else (1 if t % 9 in (0, 8) else 2)
            return (len(live) - safe_from, unseen[t], edge, t)

        return min((o for o in options if o is not None and o.type == DISCARD), key=risk)


def _loose(h: list[int], t: int, own: int) -> int:
    """How much tile ``t`` connects in hand ``h`` (``own`` copies of it are the
    tile itself): 4 per other copy, 2 per neighbour, 1 per tile two away."""
    k = 4 * (h[t] - own)
    if t < 27:
        r = t % 9
        for d, w in ((-2, 1), (-1, 2), (1, 2), (2, 1)):
            if 0 <= r + d < 9 and h[t + d]:
                k += w
        k += 1 if 0 < r < 8 else 0  # a middle tile makes more runs
    return k


def rollout_agents(
    policy: str, own: str, n: int, seat: int, first: Event | None, seed: int
) -> list:
    """Agents of ``policy`` in the other seats and of ``own`` in ``seat``, each
    with its stream from ``seed``; ``seat``'s plays ``first`` at its next decision."""
    agents = []
    for s in range(n):
        p = own if s == seat else policy
        a = (
            Quick()
            if p == "quick"
            else Fold()
            if p == "fold"
            else Committed(p.removeprefix("plan:"))
            if p.startswith("plan:")
            else make_agent(p)
        )
        a.start_hand(s, Stream(derive(seed, s)))
        agents.append(_Then(a, first) if s == seat else a)
    return agents
