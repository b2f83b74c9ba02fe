"""The observations of :mod:`mjlog.env` (the fields of its docstring).

:class:`FlatEncoder` keeps every seat's flat vector up to date event by event
(the environment asks for one at every decision); :func:`observation_dict` builds
the documented dict from the state's lists; :func:`observe_view` the flat vector
from what an agent sees (:class:`~mjlog.agent.SeatView`). A test holds the three
equal for every seat at every decision.

>>> flat_size(4), flat_size(3)
(403, 328)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mjlog.agent import SeatView
from mjlog.events import BONUS, DEAL, DISCARD, DRAW, KONG, PON, TRANSFER, VOID, WIN, Event
from mjlog.rules import Rules
from mjlog.state import HandState, Phase
from mjlog.variants import wall_tiles

__all__ = ["FlatEncoder", "Field", "fields", "flat_size", "observation_dict", "observe_view"]

#: (key, shape, dtype, low, high) of one field of the dict observation
Field = tuple[str, tuple[int, ...], type[np.integer[Any]], int, int]

# (tiles a meld takes from the claimer's hand, tiles it adds to the melds), by kind
_MELD_CHANGE = {
    PON: (2.0, 3.0),
    "exposed": (3.0, 4.0),
    "concealed": (4.0, 4.0),
    "added": (1.0, 1.0),
}
_HAND = frozenset((DEAL, BONUS, WIN))  # rarer events that change hands
_F32 = np.dtype(np.float32)


def fields(n: int) -> list[Field]:
    """The fields of the dict observation for ``n`` players, in flat order."""
    return [
        ("hand", (34,), np.int8, 0, 4),
        ("drawn", (34,), np.int8, 0, 1),
        ("window", (34,), np.int8, 0, 1),
        ("melds", (n, 34), np.int8, 0, 4),
        ("discards", (n, 34), np.int8, 0, 4),
        ("voids", (n, 3), np.int8, 0, 1),
        ("won", (n,), np.int8, 0, 1),
        ("bonus", (n,), np.int8, 0, 8),
        ("wall", (1,), np.int16, 0, 144),
        ("scores", (n,), np.int32, -(2**31), 2**31 - 1),
        ("dealer", (n,), np.int8, 0, 1),
    ]


def flat_size(n: int) -> int:
    """The length of the flat observation for ``n`` players."""
    return sum(int(np.prod(shape)) for _, shape, *_ in fields(n))


class FlatEncoder:
    """Every seat's flat observation of one table, kept in one ``array.array``
    (seat o's at ``o * size``, seats relative to it; its item updates cost half
    of numpy's) and brought up to the state's events when one is asked for
    (:meth:`flat`). Made once per environment, blanked at every :meth:`reset`."""

    def __init__(self, rules: Rules):
        self.n = n = rules.n
        self.size = size = flat_size(n)
        self.wall_size = len(wall_tiles(rules))
        # _rel[o][s]: where seat s sits as observer o sees the table (0: o itself)
        self._rel = [[(s - o) % n for s in range(n)] for o in range(n)]
        self._wall_at = 102 + 68 * n + 5 * n
        # _meld_at[s][t], _discard_at[s][t]: where seat s's melds and discards of
        # tile t sit in each seat's part (a claim or a discard adds to each)
        self._meld_at = [
            [[o * size + 102 + 34 * self._rel[o][s] + t for o in range(n)] for t in range(34)]
            for s in range(n)
        ]
        self._discard_at = [[[i + 34 * n for i in at] for at in row] for row in self._meld_at]
        # _void_at[s], _bonus_at[s]: where seat s's void (3 flags) and its count
        # of bonus tiles sit in each seat's part
        self._void_at = [
            [o * size + 102 + 68 * n + 3 * self._rel[o][s] for o in range(n)] for s in range(n)
        ]
        self._bonus_at = [
            [o * size + 102 + 72 * n + self._rel[o][s] for o in range(n)] for s in range(n)
        ]
        self._blank = array("f", bytes(4 * size * n))
        self._buf = array("f", self._blank)
        # a numpy view of each seat's part, for the copy handed out
        whole = np.frombuffer(self._buf, _F32)
        self._views = [whole[o * size : (o + 1) * size] for o in range(n)]
        self._seen = 0  # events taken into _buf

    def reset(self, st: HandState) -> None:
        """Blank every vector for the new hand ``st`` (its dealer set)."""
        n, size, buf = self.n, self.size, self._buf
        buf[:] = self._blank
        for o in range(n):
            buf[o * size + size - n + self._rel[o][st.dealer]] = 1.0
        self._seen = 0

    def flat(self, st: HandState, seat: int) -> NDArray[np.float32]:
        """The flat observation of ``seat``: :func:`observation_dict`'s fields in
        order, flattened, the wall and the scores scaled. It runs at every
        decision, so each seat's vector is kept up to date by :meth:`_sync`, and
        the wall and the drawn and open tiles, which change at every step, are
        written into the copy returned."""
        if len(st.events) != self._seen:
            self._sync(st)
        v = self._views[seat].copy()
        pos = st.pos
        v[self._wall_at] = pos.live / self.wall_size
        drawn = pos.drawn
        if pos.turn == seat and pos.phase is Phase.ACT and drawn is not None:
            v[34 + drawn] = 1.0
        w = st.claims.window
        if w is not None:
            v[68 + w.tile] = 1.0
        return v

    def _sync(self, st: HandState) -> None:
        """Bring each seat's vector up to the state's events. The common events
        change a few counts: a draw adds its tile to the drawer's hand; a discard
        moves it to the discards; a pon or an exposed kong takes it back into a
        meld with two or three of the claimer's tiles, a concealed kong four, an
        added kong one. Anything rarer refreshes from the state's own lists what
        it may change, once the events are counted: a win (it may take the discard
        of the seat it names, or undo its robbed kong) that seat's melds and
        discards, and every seat's void, win and bonus flags; a void or a bonus
        tile that seat's void or bonus count; a transfer the scores; the deal, a
        bonus tile or a win the hand."""
        evs = st.events
        buf, at, size = self._buf, self._discard_at, self.size
        rare = None
        for ev in evs[self._seen :]:
            t, s, tile = ev.type, ev.seat, ev.tile
            if t == DISCARD:
                assert s is not None and tile is not None  # a discard names both
                buf[size * s + tile] -= 1.0
                where = at[s][tile]  # the seat's discards of the tile, in every seat's view
                c = buf[where[0]] + 1.0  # (the same count in each)
                for i in where:
                    buf[i] = c
            elif t == DRAW:
                assert s is not None and tile is not None  # a draw names both
                buf[size * s + tile] += 1.0
            elif rare is None:
                rare = [ev]
            else:
                rare.append(ev)
        self._seen = len(evs)
        if rare is not None:
            self._sync_rare(st, rare)

    def _sync_rare(self, st: HandState, evs: list[Event]) -> None:
        """:meth:`_sync` of the events other than draws and discards: their counts
        add up in any order, and the refreshes read the state as it is now."""
        buf, size = self._buf, self.size
        meld_at, discard_at = self._meld_at, self._discard_at
        rows: tuple[int | None, ...] = ()
        hands: tuple[int | None, ...] = ()
        tail = scores = False
        for ev in evs:
            t, s = ev.type, ev.seat
            if t == PON or t == KONG:
                tile, kind = ev.tile, ev.kind
                assert s is not None and tile is not None  # a claim names both
                took, meld = _MELD_CHANGE[kind if t == KONG and kind is not None else PON]
                buf[size * s + tile] -= took
                for i in meld_at[s][tile]:
                    buf[i] += meld
                if kind != "concealed" and kind != "added" and ev.from_seat is not None:
                    for i in discard_at[ev.from_seat][tile]:
                        buf[i] -= 1.0
            elif t == TRANSFER:
                scores = True
            elif (t == VOID or t == BONUS) and s is not None:
                # one seat's void or bonus count, as it is now
                if t == VOID:
                    v = st.void[s]
                    if v is not None:
                        for i in self._void_at[s]:
                            buf[i + v] = 1.0
                else:
                    hands += (s,)
                    c = st.bonus[s]
                    for i in self._bonus_at[s]:
                        buf[i] = c
            else:
                if t == WIN:
                    rows += (s, ev.from_seat)
                    tail = True
                if t in _HAND:
                    hands += (s, ev.from_seat)
        self._refresh(
            st,
            {s for s in hands if s is not None},
            {s for s in rows if s is not None},
            tail,
            scores,
        )

    def _refresh(
        self, st: HandState, hands: Iterable[int], rows: Iterable[int], tail: bool, scores: bool
    ) -> None:
        """Set counts from the state's lists: the ``hands`` of these seats, the
        melds and discards of the seats in ``rows`` (in every seat's view), every
        seat's void, win and bonus tiles (``tail``), and the scores."""
        n, buf, size = self.n, self._buf, self.size
        for s in hands:
            buf[size * s : size * s + 34] = array("f", st.hands[s])
        for s in rows:
            melds, discards = [0] * 34, [0] * 34
            for m in st.melds[s]:
                melds[m.tile] += m.size
            for t in st.discards[s]:
                discards[t] += 1
            for row, at in (
                (array("f", melds), self._meld_at[s][0]),
                (array("f", discards), self._discard_at[s][0]),
            ):
                for i in at:
                    buf[i : i + 34] = row
        if tail:
            voids = [0] * (3 * n)
            for s, v in enumerate(st.void):
                if v is not None:
                    voids[3 * s + v] = 1
            voids += voids
            won, bonus = [int(w) for w in st.won] * 2, st.bonus * 2
            start = 102 + 68 * n
            for o in range(n):
                buf[size * o + start : size * o + start + 5 * n] = array(
                    "f", voids[3 * o : 3 * o + 3 * n] + won[o : o + n] + bonus[o : o + n]
                )
        if scores:
            points = [d / 100.0 for d in st.deltas] * 2
            start = self._wall_at + 1
            for o in range(n):
                buf[size * o + start : size * o + start + n] = array("f", points[o : o + n])


def observation_dict(st: HandState, seat: int) -> dict[str, NDArray[Any]]:
    """The documented dict observation of ``seat`` (seats relative to it)."""
    n = st.n
    order = [(seat + k) % n for k in range(n)]
    hand = np.array(st.hands[seat], np.int8)
    drawn = np.zeros(34, np.int8)
    if st.turn == seat and st.drawn is not None and st.phase is Phase.ACT:
        drawn[st.drawn] = 1
    window = np.zeros(34, np.int8)
    if st.window is not None:
        window[st.window.tile] = 1
    melds = np.zeros((n, 34), np.int8)
    discards = np.zeros((n, 34), np.int8)
    voids = np.zeros((n, 3), np.int8)
    for i, s in enumerate(order):
        for m in st.melds[s]:
            melds[i, m.tile] += m.size
        if st.discards[s]:
            discards[i] = np.bincount(st.discards[s], minlength=34)
        void = st.void[s]
        if void is not None:
            voids[i, void] = 1
    dealer = np.zeros(n, np.int8)
    dealer[order.index(st.dealer)] = 1
    return {
        "hand": hand,
        "drawn": drawn,
        "window": window,
        "melds": melds,
        "discards": discards,
        "voids": voids,
        "won": np.array([st.won[s] for s in order], np.int8),
        "bonus": np.array([st.bonus[s] for s in order], np.int8),
        "wall": np.array([st.live], np.int16),
        "scores": np.array([st.deltas[s] for s in order], np.int32),
        "dealer": dealer,
    }


def observe_view(view: SeatView) -> NDArray[np.float32]:
    """The flat observation (as :meth:`FlatEncoder.flat` gives it) of the seat of a
    :class:`~mjlog.agent.SeatView`: what an agent trained in the environment sees
    when it plays in ``mjlog simulate`` or ``mjlog ladder``."""
    n, seat = view.n, view.seat
    order = [(seat + k) % n for k in range(n)]
    v = np.zeros(flat_size(n), np.float32)
    v[0:34] = view.hand
    drawn, window = view.drawn, view.window_tile
    if drawn is not None:
        v[34 + drawn] = 1.0
    if window is not None:
        v[68 + window] = 1.0
    mo, do, vo = 102, 102 + 34 * n, 102 + 68 * n
    for i, s in enumerate(order):
        for m in view.melds[s]:
            v[mo + 34 * i + m.tile] += m.size
        for t in view.discards[s]:
            v[do + 34 * i + t] += 1.0
        void = view.void[s]
        if void is not None:
            v[vo + 3 * i + void] = 1.0
    o = vo + 3 * n
    v[o : o + n] = [view.won[s] for s in order]
    v[o + n : o + 2 * n] = [view.bonus[s] for s in order]
    v[o + 2 * n] = view.wall_left / len(wall_tiles(view.rules))
    v[o + 2 * n + 1 : o + 3 * n + 1] = [view.scores[s] / 100.0 for s in order]
    v[o + 3 * n + 1 + order.index(view.dealer)] = 1.0
    return v
