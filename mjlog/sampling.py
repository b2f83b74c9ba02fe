"""The hidden tiles, drawn so that they agree with everything a seat has seen.

:func:`sample_wall` gives a whole wall (the hand's tiles in draw order) on
which the seat's history replays: its own tiles where it saw them, every tile
another seat showed (discards, melds, bonus tiles, a shown winning hand) on a
position that seat had received, the rest shuffled, and then optionally moved
toward the hands the other seats' play makes likely (:func:`_tilt`).
:func:`rebuild` replays the history on such a wall through the state's checked
step, so a sample that does not fit raises :class:`Inconsistent`. ``expert``
searches on these samples (:mod:`simulate.agents.expert`).

>>> from mjlog.agent import SeatView
>>> from mjlog.engine import play_hand
>>> from mjlog.rng import Stream
>>> from mjlog.rules import Rules
>>> from mjlog.agent import GreedyAgent
>>> rules = Rules("yuxi")
>>> done = play_hand(rules, [GreedyAgent() for _ in range(4)], seed=2, match=0, hand=0,
...                  dealer=0).state
>>> view = SeatView(done, 0)
>>> wall = sample_wall(view, view.history, Stream(1), tilt=0.35, steps=100)
>>> sorted(wall) == sorted(done.wall), rebuild(view, view.history, wall).hands[0] == view.hand
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from mjlog.agent import SeatView
from mjlog.claims import PASS
from mjlog.events import BONUS, DEAL, DISCARD, DRAW, HORSE, KONG, PON, VOID, WIN, Event
from mjlog.hand import shanten
from mjlog.phase import TAIL
from mjlog.rng import Stream
from mjlog.rules import Rules
from mjlog.scoring.base import Method
from mjlog.state import HandState

#: tiles a meld takes from its maker's concealed hand
_KONG_TAKES = {"exposed": 3, "concealed": 4, "added": 1}
#: wins whose shown tiles include one the winner never held (the discard, the robbed tile)
_SHOWN_LESS_TILE = (str(Method.DISCARD), str(Method.ROBBED_KONG))


class Inconsistent(Exception):
    """A sample the seat's history cannot be replayed on."""


@lru_cache(maxsize=64)
def _deal_positions(rules: Rules, dealer: int) -> dict[int, tuple[int, ...]]:
    """Seat → the wall positions it is dealt, in its deal event's order: the
    engine's own deal read off a wall whose tiles are their positions."""
    size = len(rules.spec.wall_tiles(rules))
    probe = HandState(rules, tuple(range(size)), dealer)
    out = {}
    for i in range(rules.n):
        probe.deal_next = i
        ev = probe.choices.deal_event()
        assert ev.seat is not None and ev.tiles is not None  # a deal names its seat and tiles
        out[ev.seat] = ev.tiles
    return out


@dataclass
class Hidden:
    """A wall drawn uniformly (:func:`sample_hidden`), and where its hidden tiles lie."""

    wall: list[int]
    """the hand's tiles in draw order"""
    held: list[list[int]]
    """seat → the positions of its concealed tiles the seat cannot see"""
    unknown: list[int]
    """every position whose tile was drawn, not seen, in wall order"""
    draws: list[int]
    """seat → the draws it has made (how long it has been building)"""


def sample_wall(
    view: SeatView,
    history: list[Event],
    rng: Stream,
    tilt: float = 0.0,
    steps: int = 0,
    lean: dict[int, list[float]] | None = None,
) -> list[int]:
    """The hand's wall with every tile the seat cannot see drawn at random
    (:func:`sample_hidden`).

    With ``tilt`` > 0 or a reading ``lean`` (:func:`simulate.agents.reading.utilities`)
    the other seats' concealed tiles are then moved toward the hands their play
    makes likely (:func:`tilt_hidden`, ``steps`` proposals).
    """
    hidden = sample_hidden(view, history, rng)
    if (tilt > 0 or lean) and steps:
        tilt_hidden(view, hidden, rng, tilt, steps, lean)
    return hidden.wall


def tilt_hidden(
    view: SeatView,
    hidden: Hidden,
    rng: Stream,
    tilt: float,
    steps: int,
    lean: dict[int, list[float]] | None = None,
) -> None:
    """Move ``hidden``'s tiles toward the hands the other seats' play makes likely
    (:func:`_tilt`: ``steps`` proposals; a seat that has drawn ``d`` tiles weighs
    ``tilt × d``), in place."""
    weight = [tilt * d for d in hidden.draws]
    _tilt(view, hidden.wall, hidden.held, hidden.unknown, weight, rng, steps, lean)


def sample_hidden(view: SeatView, history: list[Event], rng: Stream) -> Hidden:
    """The hand's wall with every tile the seat cannot see drawn at random.

    Each wall position is known (this seat's deal and draws, a horse), a tile
    another seat was dealt or drew, or still in the wall. The tiles the other
    seats gave up (discards, melds, bonus tiles, a shown winning hand) are
    placed, each when it left its hand, on a position that seat had received and
    not yet placed, chosen at random; the unseen tiles are then shuffled onto the
    positions left: the other seats' concealed hands and the live wall. A
    self-drawn winning tile goes on the position its winner drew last, a bonus
    tile laid out right after a draw on the drawn position (else on a dealt one),
    and an unseen bonus tile only where it could still be unseen.
    """
    placing = _Placing(view, rng)
    event = placing.event
    for prev, e in zip([None, *history], history, strict=False):
        event(prev, e)
    return placing.fill()


class _Placing:
    """The tiles a seat's history shows, placed on wall positions as it unfolds."""

    def __init__(self, view: SeatView, rng: Stream) -> None:
        rules = view.rules
        self.rng, self.me, self.n = rng, view.seat, view.n
        self.tiles = rules.spec.wall_tiles(rules)
        self.bonus = rules.spec.bonus_tile
        size = len(self.tiles)
        self.wall: list[int | None] = [None] * size
        self.held: list[list[int]] = [[] for _ in range(self.n)]  # received, not yet placed
        self.last_draw = [-1] * self.n
        self.draws = [0] * self.n  # draws each seat has made (how long it has been building)
        self.turned: set[int] = set()  # seats that have discarded
        self.front, self.back = 13 * self.n + 1, size - 1
        self.dealt = _deal_positions(rules, view.dealer)

    def place(self, s: int, t: int, where: list[int]) -> None:
        """Tile ``t`` left seat ``s``'s hand from one of the positions ``where``
        (any it holds when it holds none of them)."""
        h = self.held[s]
        where = [p for p in where if p in h]
        if not where:
            self.give_up(s, t)
            return
        p = where[self.rng.below(len(where))] if len(where) > 1 else where[0]
        h.remove(p)
        self.wall[p] = t

    def give_up(self, s: int, t: int, k: int = 1) -> None:
        """``k`` copies of tile ``t`` left seat ``s``'s hand from positions it holds."""
        h, wall, below = self.held[s], self.wall, self.rng.below
        for _ in range(k):
            if not h:
                raise Inconsistent(f"S{s} gives up more tiles than it holds")
            j = below(len(h))
            wall[h[j]] = t
            h[j] = h[-1]
            h.pop()

    def event(self, prev: Event | None, e: Event) -> None:
        ty, s = e.type, e.seat
        if ty == HORSE:  # no seat's: the tail's tiles, shown at the end
            assert e.tiles is not None  # a horse event shows its tiles
            for t in e.tiles:
                self.wall[self.back] = t
                self.back -= 1
        elif s is None:  # the end
            return
        elif ty == DEAL:
            if s == self.me:
                assert e.tiles is not None  # the seat sees its own deal
                for p, t in zip(self.dealt[s], e.tiles, strict=True):
                    self.wall[p] = t
            else:
                self.held[s].extend(self.dealt[s])
        elif ty == DRAW:
            self.draw(s, e)
        elif s != self.me:
            self.shown(prev, s, e)

    def draw(self, s: int, e: Event) -> None:
        if e.kind == TAIL:
            p, self.back = self.back, self.back - 1
        else:
            p, self.front = self.front, self.front + 1
        if s == self.me:
            self.wall[p] = e.tile
        else:
            self.held[s].append(p)
            self.last_draw[s] = p
            self.draws[s] += 1

    def shown(self, prev: Event | None, s: int, e: Event) -> None:
        """Another seat's event that shows tiles from its hand."""
        ty = e.type
        if ty == BONUS:
            assert e.tile is not None  # a bonus tile laid out is shown
            # laid out at once when drawn, a dealt one at the seat's first turn (a
            # hint to the sampler only: the replay through the checked step judges)
            drew = prev is not None and prev.type == DRAW and prev.seat == s
            where = [self.last_draw[s]] if drew else []
            self.place(s, e.tile, where + ([] if s in self.turned else list(self.dealt[s])))
        elif ty == DISCARD:
            assert e.tile is not None  # a discard shows its tile
            self.turned.add(s)
            self.give_up(s, e.tile)
        elif ty == PON:
            assert e.tile is not None  # a pon shows its tile
            self.give_up(s, e.tile, 2)
        elif ty == KONG:
            assert e.tile is not None and e.kind is not None  # a kong shows its tile and kind
            self.give_up(s, e.tile, _KONG_TAKES[e.kind])
        elif ty == WIN:
            assert e.tile is not None and e.tiles is not None  # a win shows its tile and hand
            shown = list(e.tiles)
            if e.kind in _SHOWN_LESS_TILE:
                shown.remove(e.tile)
            elif e.kind == Method.SELF_DRAW:
                # the winning tile is the one it just drew, not any of its tiles
                shown.remove(e.tile)
                self.place(s, e.tile, [self.last_draw[s]])
            for t in shown:
                self.give_up(s, t)

    def fill(self) -> Hidden:
        """The unseen tiles shuffled onto the positions left."""
        wall, b = self.wall, self.bonus
        left = [0] * 34
        for t in self.tiles:
            left[t] += 1
        for w in wall:
            if w is not None:
                left[w] -= 1
        if min(left) < 0:
            raise Inconsistent("more copies seen than the hand has")
        if b is not None and left[b]:
            self.place_bonus(b, left[b])
            left[b] = 0
        pool = [t for t in range(34) for _ in range(left[t])]
        self.rng.shuffle(pool)
        it = iter(pool)
        unknown = [p for p, t in enumerate(wall) if t is None]
        out = [next(it) if t is None else t for t in wall]
        return Hidden(out, self.held, unknown, self.draws)

    def place_bonus(self, b: int, k: int) -> None:
        """``k`` unseen bonus tiles: in the live wall or dealt to a seat yet to play
        (a drawn one is laid out at once, a dealt one at the first turn)."""
        wall = self.wall
        unplayed = {p for s in range(self.n) if s not in self.turned for p in self.dealt[s]}
        holding = set().union(*self.held)  # positions some seat still holds
        fits = [
            p for p in range(len(wall)) if wall[p] is None and (p in unplayed or p not in holding)
        ]
        if len(fits) < k:
            raise Inconsistent("no room for the unseen bonus tiles")
        for _ in range(k):
            j = self.rng.below(len(fits))
            wall[fits[j]] = b
            fits[j] = fits[-1]
            fits.pop()


def _tilt(
    view: SeatView,
    wall: list[int],
    held: list[list[int]],
    unknown: list[int],
    weight: list[float],
    rng: Stream,
    steps: int,
    lean: dict[int, list[float]] | None = None,
) -> None:
    """Metropolis moves of the hidden tiles toward hands that play has shaped.

    A uniform sample gives the other seats random concealed tiles: late in a hand
    they sit about two steps further from ready than the table's real hands
    (``tests/agents/test_expert.py``, the tilt's test), so rollouts on them see too
    little danger and too few rival wins. Each move swaps the tiles of a
    position some other seat still holds and of another hidden position
    (another seat's or the live wall's);
    it is kept with the probability ``exp(-Δ)``, where the energy is the sum
    over seats of ``weight[seat]`` × its shanten (plus one per void-suit tile it
    holds): the posterior of a seat that has drawn ``d`` tiles, each an
    occasion to keep what connects, is tilted by ``tilt × d``. With a reading
    ``lean`` (seat → a utility per tile, :mod:`simulate.agents.reading`) the energy also
    loses ``lean[seat][t]`` for each copy of ``t`` the seat holds: the samples then
    follow the learned odds of where each hidden copy lies. Bonus tiles are
    never moved (where one may lie is pinned by the history). The tile counts,
    and every tile the history shows, stay as they were."""
    me = view.seat
    bonus = view.rules.spec.bonus_tile
    lean = lean or {}
    opp = [s for s in range(view.n) if s != me and held[s] and (weight[s] > 0 or s in lean)]
    if not opp or len(unknown) < 2:
        return
    flat = [0.0] * 34
    like = {s: lean.get(s, flat) for s in opp}
    owner = {p: s for s in opp for p in held[s]}
    counts = {s: [0] * 34 for s in opp}
    for s in opp:
        c = counts[s]
        for p in held[s]:
            c[wall[p]] += 1
    melds = {s: len(view.melds[s]) for s in opp}
    voids = {s: view.void[s] for s in opp}

    def energy(s: int) -> int:
        if weight[s] <= 0:  # a seat held by the reading alone (it has drawn nothing)
            return 0
        c = counts[s]
        v = voids[s]
        return shanten(c, melds[s]) + (sum(c[9 * v : 9 * v + 9]) if v is not None else 0)

    e = {s: energy(s) for s in opp}
    below, random = rng.below, rng.random
    for _ in range(steps):
        s = opp[below(len(opp))] if len(opp) > 1 else opp[0]
        hs = held[s]
        p = hs[below(len(hs))]
        q = unknown[below(len(unknown))]
        a, b = wall[p], wall[q]
        s2 = owner.get(q)
        if a == b or s2 == s or a == bonus or b == bonus:
            continue
        cs = counts[s]
        cs[a] -= 1
        cs[b] += 1
        new = energy(s)
        u = like[s]
        delta = weight[s] * (new - e[s]) - u[b] + u[a]
        if s2 is not None:
            c2 = counts[s2]
            c2[b] -= 1
            c2[a] += 1
            new2 = energy(s2)
            u = like[s2]
            delta += weight[s2] * (new2 - e[s2]) - u[a] + u[b]
        if delta <= 0 or random() < math.exp(-delta):
            wall[p], wall[q] = b, a
            e[s] = new
            if s2 is not None:
                e[s2] = new2
        else:
            cs[a] += 1
            cs[b] -= 1
            if s2 is not None:
                c2[b] += 1
                c2[a] -= 1


def rebuild(view: SeatView, history: list[Event], wall: list[int], read: bool = False) -> HandState:
    """The hand dealt from ``wall``, ``history`` replayed on it through the state's
    checked step: this seat's position, the hidden tiles those of ``wall``.
    Raises :class:`Inconsistent` when the history does not replay on it, and with
    ``read`` also when another seat could have won at a decision where the hand
    went on without a win (every agent takes its wins: such a sample is one the
    other seats' play rules out, e.g. a wait on a tile they let go by)."""
    st = HandState(view.rules, wall, view.dealer)
    auto, options, claims = st.choices.auto, st.choices.options, st.claims  # bound once
    me = view.seat
    for e in history:
        ty = e.type
        if (
            read
            and ty != WIN
            and auto() is None
            and any(s != me and any(o.type == WIN for o in opts) for s, opts in options().items())
        ):
            raise Inconsistent(f"another seat could have won before {e!r}")
        if ty in (DISCARD, PON, KONG, VOID) or (ty == WIN and auto() is None):
            if not st.try_apply(e):
                raise Inconsistent(f"{e!r} is not legal on the sample")
            continue
        a = auto()
        if a is None and claims.window is not None:  # every seat passed the window
            st.apply(PASS)
            a = auto()
        if (
            a is None
            or a.type != ty
            or a.seat != e.seat
            or (
                a != e
                and not (ty == DEAL and e.tiles is None)
                and not (ty == DRAW and e.tile is None)
            )
        ):
            raise Inconsistent(f"the sample's {a!r} where the hand had {e!r}")
        st.apply(a)
    if st.hands[view.seat] != view.hand or st.live != view.wall_left or auto() is not None:
        # (a forced event due here: a win the sample gives another seat)
        raise Inconsistent("the replay does not reach the seat's decision")
    return st
