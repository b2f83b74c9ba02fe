"""The seats' tiles, and the caches derived from them.

:class:`Seats` holds what each seat has: its concealed hand (34 counts), its
melds in the order made, its discards, its void suit, the bonus tiles it laid
out, its draws and whether it has won. Every change of a hand goes through one
of its methods, which also resets the caches derived from that hand (the suit
misses that let a draw or a discard skip the win check, the next seat still in
play), so a cache can never be stale. :class:`~mjlog.state.HandState` calls
these methods while applying an event, and nothing else does.

>>> seats = Seats(4)
>>> seats.deal(1, [0, 0, 1, 2])
>>> seats.miss(1) == seats.miss(1), seats.held(1)[:3]
(True, [2, 1, 1])
>>> seats.discard(1, 0); seats.pon(2, 0, from_seat=1)
Traceback (most recent call last):
...
ValueError: S2 holds 0 of tile 0; a pon needs 2
"""

from __future__ import annotations

from collections.abc import Iterable

from mjlog.compiled import mypyc_attr
from mjlog.hand import KEY_UNITS, MISS_OTHER_SUITS, holds_void, key_misses, suit_keys
from mjlog.melds import Meld, MeldKind

__all__ = ["Seats"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class Seats:
    """The tiles of ``n`` seats (0..n-1)."""

    __slots__ = (
        "n",
        "hands",
        "melds",
        "discards",
        "void",
        "won",
        "bonus",
        "draws",
        "misses",
        "keys",
        "fours",
        "_next",
    )

    def __init__(self, n: int):
        self.n = n
        self.hands = [[0] * 34 for _ in range(n)]
        self.melds: list[list[Meld]] = [[] for _ in range(n)]
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.void: list[int | None] = [None] * n  # 定缺: 0 m, 1 p, 2 s
        self.won = [False] * n
        self.bonus = [0] * n  # huangmei 发 laid out
        self.draws = [0] * n  # front and tail draws per seat
        # per seat, suit_misses() of the hand, None when stale: a discard or draw
        # that cannot complete a hand skips is_win (the hands change far less often
        # than they are checked). Read it (hot loops do); only this class writes it.
        self.misses: list[int | None] = [None] * n
        # per seat, the hand as suit_keys() and how many kinds it holds four of, kept
        # as tiles come and go: the misses and the kong check read them, not the
        # 34 counts (what a hand changes by is one or a few tiles at a time)
        self.keys = [[0, 0, 0, 0] for _ in range(n)]
        self.fours = [0] * n
        self._next = [(s + 1) % n for s in range(n)]  # next_active(), kept as seats win

    # ------------------------------------------------------------ reading
    def miss(self, s: int) -> int:
        """suit_misses() of seat ``s``'s hand, computed once per change of it."""
        m = self.misses[s]
        if m is None:
            m = self.misses[s] = key_misses(self.keys[s])
        return m

    def may_complete(self, s: int, t: int) -> bool:
        """Tile ``t`` might complete seat ``s``'s hand (False: it surely cannot)."""
        m = self.misses[s]
        if m is None:
            m = self.misses[s] = key_misses(self.keys[s])
        return not m & MISS_OTHER_SUITS[t]

    def held(self, s: int) -> list[int]:
        """34 counts of hand + melds (for the four-copies rule and 根)."""
        h = self.hands[s][:]
        for m in self.melds[s]:
            h[m.tile] += m.size
        return h

    def holds_void(self, s: int) -> bool:
        """The seat holds a tile of its void suit (a 花猪: :func:`mjlog.hand.holds_void`)."""
        return holds_void(self.hands[s], self.melds[s], self.void[s])

    def active(self) -> list[int]:
        """The seats that have not won."""
        return [s for s in range(self.n) if not self.won[s]]

    def next_active(self, s: int) -> int:
        """The first seat after ``s`` still in play (``s`` itself if none)."""
        return self._next[s]

    # ------------------------------------------------------------ changing
    def _take(self, s: int, t: int, k: int) -> None:
        h = self.hands[s]
        if h[t] < k:
            raise ValueError(
                f"S{s} holds {h[t]} of tile {t}; a pon needs {k}"
                if k == 2
                else f"S{s} holds {h[t]} of tile {t}, not {k}"
            )
        if h[t] == 4:
            self.fours[s] -= 1
        h[t] -= k
        self.keys[s][t // 9] -= k * KEY_UNITS[t]
        self.misses[s] = None

    def deal(self, s: int, tiles: Iterable[int]) -> None:
        h = self.hands[s]
        for t in tiles:
            h[t] += 1
        self.keys[s] = suit_keys(h)
        self.fours[s] = h.count(4)
        self.misses[s] = None

    def draw(self, s: int, t: int) -> bool:
        """Seat ``s`` draws ``t``; returns :meth:`may_complete` of the hand before
        (whether the drawn tile may have completed it), read in the same step."""
        m = self.misses[s]
        keys = self.keys[s]
        if m is None:
            m = key_misses(keys)
        h = self.hands[s]
        h[t] += 1
        keys[t // 9] += KEY_UNITS[t]
        if h[t] == 4:
            self.fours[s] += 1
        self.misses[s] = None
        self.draws[s] += 1
        return not m & MISS_OTHER_SUITS[t]

    def lay_out(self, s: int, t: int) -> None:
        """A bonus tile leaves the hand and is laid out."""
        self._take(s, t, 1)
        self.bonus[s] += 1

    def discard(self, s: int, t: int) -> None:
        h = self.hands[s]
        if h[t] < 1:
            raise ValueError(f"S{s} holds no tile {t} to discard")
        if h[t] == 4:
            self.fours[s] -= 1
        h[t] -= 1
        keys = self.keys[s]
        keys[t // 9] -= KEY_UNITS[t]
        # computed now, not when first asked: the discard windows that follow ask
        # for it at once, and the hot loop then reads it without a call
        self.misses[s] = key_misses(keys)
        self.discards[s].append(t)

    def take_discard(self, d: int) -> None:
        """Seat ``d``'s last discard is claimed (a pon, a kong or a win takes it)."""
        self.discards[d].pop()

    def pon(self, s: int, t: int, from_seat: int) -> None:
        """Seat ``s`` pons ``from_seat``'s last discard ``t``."""
        self._take(s, t, 2)
        self.take_discard(from_seat)
        self.melds[s].append(Meld(MeldKind.PON, t, from_seat))

    def kong(self, s: int, t: int, kind: str, from_seat: int | None = None) -> None:
        """A kong of ``kind`` (exposed: on ``from_seat``'s last discard)."""
        ms = self.melds[s]
        if kind == "exposed":
            assert from_seat is not None  # an exposed kong takes a seat's discard
            self._take(s, t, 3)
            self.take_discard(from_seat)
            ms.append(Meld(MeldKind.EXPOSED_KONG, t, from_seat))
        elif kind == "added":
            self._take(s, t, 1)
            i = next(i for i, m in enumerate(ms) if m.kind is MeldKind.PON and m.tile == t)
            # melds stay in the order made: the added kong is now the last kong, so a
            # 杠上花 on its replacement is not 点杠花 of an earlier exposed kong
            ms.append(Meld(MeldKind.ADDED_KONG, t, ms.pop(i).from_seat))
        else:
            self._take(s, t, 4)
            ms.append(Meld(MeldKind.CONCEALED_KONG, t, None))

    def undo_kong(self, s: int, t: int, kind: str) -> None:
        """A robbed kong does not happen: an added kong is a pon again, an exposed
        kong's three tiles go back to the hand."""
        ms = self.melds[s]
        if kind == "added":
            i = next(i for i, m in enumerate(ms) if m.kind is MeldKind.ADDED_KONG and m.tile == t)
            ms[i] = Meld(MeldKind.PON, t, ms[i].from_seat)
        else:
            ms.pop()
            h = self.hands[s]
            h[t] += 3
            self.keys[s][t // 9] += 3 * KEY_UNITS[t]
            if h[t] == 4:
                self.fours[s] += 1
            self.misses[s] = None

    def win(self, batch: Iterable[int]) -> None:
        """The seats of ``batch`` have won."""
        for s in batch:
            self.won[s] = True
        self._next = [self._find_next_active(s) for s in range(self.n)]

    def _find_next_active(self, s: int) -> int:
        for k in range(1, self.n + 1):
            o = (s + k) % self.n
            if not self.won[o]:
                return o
        return s
