"""Claims and wins: what a seat may win or claim now, the open claim window and
the pass locks.

:class:`Claims` judges wins and claims on a hand's
:class:`~mjlog.position.Position`, which it holds (the position is below it; it
holds nothing of the state, and nothing above it: a hand is freed by reference
counting): the verdict on a win (its score, or the check it breaks), the window
a discard or a kong opens (who may win, pon or kong), each seat's claims on it,
and claim priority (what the seats' picks make happen). It owns the open window
and the pass locks (弃胡 / 过手胡 ``hu_lock``, 过手碰 ``pon_lock``), which change
only while :class:`~mjlog.state.HandState` applies an event: a discard or a
kong opens a window, :data:`PASS` closes it, a pon or an exposed kong takes it;
a draw, a pon or a kong of the seat's own ends its locks. Whether a claim may be
taken now, which asks the seat's choices too, is
:meth:`mjlog.choices.Choices.allows`, a part above this one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from operator import getitem
from typing import Any

from mjlog import scoring
from mjlog.compiled import mypyc_attr
from mjlog.events import DISCARD, KONG, PON, WIN, Event
from mjlog.hand import MISS_OTHER_SUITS, is_win
from mjlog.position import Position
from mjlog.scoring.base import Method, Reason, Score, WinContext
from mjlog.tiles import fmt_tile

__all__ = ["PASS", "Claims", "Window", "claim_order"]

# _COPIES[t][c]: c copies of kind t (a hand's counts expand to its tiles in C)
_COPIES = [[(t,) * c for c in range(5)] for t in range(34)]

# The checks a scorer's refusal breaks (see Claims.win_verdict).
_REFUSED: dict[Reason | None, str] = {
    Reason.PLAIN_ON_DISCARD: "plain_on_discard",
    Reason.BELOW_MIN_FAN: "min_fan",
    Reason.HOLDS_VOID: "flower_pig",
}


#: Every seat passes the open claim window (or the log has moved past it): the
#: window closes. Applied like an event, never logged.
PASS = Event("pass")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
@dataclass(slots=True)
class Window:
    """An open claim window: a discard, or a kong that may be robbed."""

    kind: str  # "discard" | "rob"
    tile: int
    from_seat: int  # the discarder or the kong player
    wins: dict[int, Score]  # seat → score of its legal win
    pons: list[int]
    kongs: list[int]
    forced: bool = False  # every legal win is taken (yuxi 尾牌强制)
    last: bool = False  # the last discard: win only
    kong_kind: str | None = None  # rob windows: "added" | "exposed"
    winners: list[int] = field(default_factory=list)


@cache
def claim_order(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Claim order, the one statement of it, for ``n`` seats: after a discard (or a
    kong) of seat d, the others from d's 下家 on. Returns (rank, order): rank[d][s]
    is s's place (d itself 0), order[d] the others in that order (claims, and
    winners on one tile). Built once per player count and shared (tuples).

    >>> claim_order(3)
    (((0, 1, 2), (2, 0, 1), (1, 2, 0)), ((1, 2), (2, 0), (0, 1)))
    """
    rank = tuple(tuple((s - d) % n for s in range(n)) for d in range(n))
    return rank, tuple(tuple(sorted(range(n), key=r.__getitem__)[1:]) for r in rank)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class Claims:
    """The claims and wins of one hand's seats, judged on its position, with the
    open claim window and the pass locks (changed only while an event applies)."""

    __slots__ = (
        "pos",
        "seats",
        "hands",
        "order",
        "rank",
        "bonus_tile",
        "forced_tiles",
        "blood",
        "spec",
        "rules",
        "pon_locks",
        "window",
        "hu_lock",
        "pon_lock",
        "_seen",
    )

    def __init__(self, pos: Position):
        self.pos = pos
        n, spec = pos.n, pos.spec
        self.spec, self.rules = spec, pos.rules
        self.rank, self.order = claim_order(n)
        self.bonus_tile = spec.bonus_tile  # huangmei 发, else None
        self.forced_tiles = spec.forced_tiles  # yuxi 尾牌强制: 4, else -1
        self.blood = spec.blood_battle  # xuezhan: winners leave, play goes on
        self.pon_locks = spec.pon_lock  # xuezhan 过手碰
        self.window: Window | None = None  # the open claim window
        # yuxi: True when locked; xuezhan: the highest multiplier passed (the variant's)
        self.hu_lock: list[Any] = [None] * n
        self.pon_lock: list[set[int]] = [set() for _ in range(n)]
        self.seats = seats = pos.seats
        self.hands = seats.hands
        # what a discard window reads of the seats, bound once (no list is rebound)
        self._seen = (
            seats.hands,
            seats.melds,
            seats.won,
            seats.void,
            self.pon_lock,
            seats.misses,
            seats.miss,
        )

    def forced_zone(self) -> bool:
        """尾牌强制: the wall holds ``forced_tiles`` tiles or fewer (yuxi: the last
        four), where every legal win is taken. The one test of the zone."""
        p = self.pos
        return p.back - p.front < self.forced_tiles  # live <= forced_tiles, without a call

    def _dead_green(self, seat: int) -> bool:
        """huangmei: a dealt 发 not yet laid out blocks every win of its holder."""
        b = self.bonus_tile
        return b is not None and self.hands[seat][b] > 0

    # ------------------------------------------------------------ wins
    def win_context(self, seat: int, tile: int, method: Method) -> WinContext:
        st = self.pos
        h = st.hands[seat][:]
        if method is not Method.SELF_DRAW:
            h[tile] += 1
        if method is Method.SELF_DRAW:
            after_kong = st.chain == "kong"
            after_bonus = st.chain == "bonus"
            last = st.live == 0
            first = (seat == st.dealer and st.draws[seat] == 0) or (
                seat != st.dealer and st.draws[seat] == 1 and not st.calls_made
            )
        else:
            after_kong = method is Method.DISCARD and st.kong_this_turn
            after_bonus = False
            last = method is Method.DISCARD and st.live == 0
            first = False
        return WinContext(
            concealed=tuple(h),
            melds=tuple(st.melds[seat]),
            win_tile=tile,
            method=method,
            after_kong=after_kong,
            after_bonus=after_bonus,
            last_tile=last,
            first_turn=first,
            dealer=seat == st.dealer,
            bonus=st.bonus[seat],
            void=st.void[seat],
            chain_kongs=st.chain_kongs if after_kong else 1,
            forced_zone=self.forced_zone(),
        )

    def win_score(self, seat: int, tile: int, method: Method, shape: bool = False) -> Score | None:
        """The score of a win ``seat`` may legally take now, or None. ``shape``:
        the caller found the hand complete already."""
        v = self.win_verdict(seat, tile, method, shape)
        return v if type(v) is Score else None

    def win_verdict(self, seat: int, tile: int, method: Method, shape: bool = False) -> Score | str:
        """The score of the win ``seat`` would take now, or the check it breaks
        (a :class:`mjlog.replay.Check` value: ``win_legal``, ``dead_green``,
        ``flower_pig``, ``plain_on_discard``, ``min_fan``, ``pass_lock``).
        ``shape``: the caller found the hand complete already."""
        st = self.pos
        h = st.hands[seat]
        nm = len(st.melds[seat])
        if not shape:
            if method is Method.SELF_DRAW:
                ok = is_win(h, nm)
            else:
                h[tile] += 1
                ok = is_win(h, nm)
                h[tile] -= 1
            if not ok:
                return "win_legal"
        if self._dead_green(seat):
            return "dead_green"
        if self.seats.holds_void(seat):
            return "flower_pig"
        ctx = self.win_context(seat, tile, method)
        sc = scoring.score(ctx, st.rules)
        if not sc.legal:
            return _REFUSED.get(sc.reason, "win_legal")
        lock = self.hu_lock[seat]
        if lock is not None and st.spec.lock_refuses(
            lock, sc, method is Method.SELF_DRAW, ctx.forced_zone
        ):
            return "pass_lock"
        return sc

    def claim_refusal(self, target: Event, ev: Event) -> tuple[str, str] | None:
        """Why ``ev``, a claim on ``target`` (the discard or kong about to be
        applied to this state), is not among its seat's options: (check, the rule
        in words), or None when the rules would have offered it (the log is then
        wrong in some other way). The auditor's explanation of a refused claim."""
        st = self.pos
        s, t = ev.seat, ev.tile
        d = target.seat
        if type(s) is not int or not 0 <= s < st.n or s == d or t is None or t != target.tile:
            return None
        name = fmt_tile(t)
        if st.won[s]:
            return "illegal_action", f"S{s} has won already and makes no claim"
        if ev.type == WIN and ev.kind == str(Method.ROBBED_KONG):
            if target.type != KONG:
                return None
            if target.kind == "concealed":
                return "barred_rob", "a concealed kong cannot be robbed"
            if target.kind == "exposed":
                barred = self._exposed_rob_refusal(target, s, name)
                if barred is not None:
                    return barred
            method = Method.ROBBED_KONG
        else:
            if target.type != DISCARD:
                return None
            if st.void[s] == t // 9:
                if ev.type == WIN:
                    return "flower_pig", f"{name} is of S{s}'s void suit: no win on it (花猪)"
                return "void_suit", f"{name} is of S{s}'s void suit: no {ev.type} of it"
            if t == self.bonus_tile:
                return "dead_green", "发 is a bonus tile: it is laid out, never claimed"
            if ev.type != WIN:
                return self._meld_refusal(ev, s, t, name)
            method = Method.DISCARD
        v = self.win_verdict(s, t, method)
        if isinstance(v, Score):
            return None
        return v, self._refusal_text(v, s, name, t, method)

    def _exposed_rob_refusal(self, target: Event, s: int, name: str) -> tuple[str, str] | None:
        """Why seat ``s`` may not rob the exposed kong ``target``, or None."""
        if not self.pos.rules["rob_exposed_kong"]:
            return "barred_rob", "an exposed kong may not be robbed (rob_exposed_kong)"
        w = self.window
        if s == target.from_seat:
            return "barred_rob", f"S{s} discarded the {name} S{target.seat} konged"
        if w is not None and s in w.wins:
            return "barred_rob", (
                f"S{s} could win on the discarded {name} and did not: it may not rob the kong of it"
            )
        return None

    def _meld_refusal(self, ev: Event, s: int, t: int, name: str) -> tuple[str, str] | None:
        """Why seat ``s``'s pon or kong ``ev`` of the discarded ``t`` is refused, or None."""
        st = self.pos
        held = st.hands[s][t]
        need = 2 if ev.type == PON else 3
        if st.back < st.front:
            return "illegal_action", "the last discard may only be won"
        if held < need:
            return "illegal_action", f"S{s} holds {held} {name}; a {ev.type} needs {need}"
        if ev.type == PON and t in self.pon_lock[s]:
            return "pon_lock", (f"过手碰: S{s} passed a pon of {name} since its last draw")
        return None

    def _refusal_text(self, check: str, s: int, name: str, t: int, method: Method) -> str:
        st = self.pos
        if check == "plain_on_discard":
            # the scorer's own words for a rule key behind it (kong_wins_big)
            why = scoring.score(self.win_context(s, t, method), st.rules).extra.get("why")
            return f"S{s}'s hand is plain (平胡 only): it must be won by self-draw" + (
                f"; {why}" if why else ""
            )
        if check == "min_fan":
            return f"S{s}'s win on {name} has fewer fan than min_fan = {st.rules['min_fan']}"
        if check == "flower_pig":
            return f"S{s} holds a tile of its void suit: no win (花猪)"
        if check == "dead_green":
            return f"S{s} holds a dealt 发 not laid out: no win"
        if check == "pass_lock":
            return st.spec.pass_lock_text(s, self.hu_lock[s])
        return f"S{s}'s hand with {name} is no legal win"

    def shilaotou_score(self, seat: int, tile: int) -> Score:
        """十老头 on ``seat``'s 10th honor discard ``tile``, valued by the scorer
        (``mjlog score --by shilaotou`` says the same); not legal: no win."""
        st = self.pos
        ctx = WinContext(
            concealed=tuple(st.hands[seat]),
            melds=tuple(st.melds[seat]),
            win_tile=tile,
            method=Method.SHILAOTOU,
            dealer=seat == st.dealer,
        )
        return scoring.score(ctx, st.rules)

    def options_of(self, s: int) -> list[Event]:
        """Seat ``s``'s claims on the open window: win, then kong, then pon."""
        w = self.window
        assert w is not None  # asked only while a window is open
        opts = []
        if s in w.wins and s not in w.winners:
            opts.append(self.window_win_event(w, s))
        if not w.winners:
            if s in w.kongs:
                opts.append(Event(KONG, s, w.tile, w.from_seat, "exposed"))
            if s in w.pons:
                opts.append(Event(PON, s, w.tile, w.from_seat))
        return opts

    def resolve(self, picks: dict[int, Event | None]) -> list[Event]:
        """What the seats' picks on the open window make happen, to apply in order
        (claim priority: docs/rules/README.md, 'A turn, and claims'): every win,
        in claim order (each followed by its pending payments), then
        :data:`PASS`; else the first pon or kong in claim order; else
        :data:`PASS`. ``picks`` maps each seat asked to its choice, None for a
        pass."""
        w = self.window
        assert w is not None  # asked only while a window is open
        chosen = [p for p in map(picks.get, self.order[w.from_seat]) if p is not None]
        wins = [p for p in chosen if p.type == WIN]
        if wins:
            return wins + [PASS]
        return [chosen[0]] if chosen else [PASS]

    def win_event(self, s: int, tile: int, method: Method, from_seat: int | None) -> Event:
        """A win event of seat ``s`` on ``tile``, its tiles the hand with the tile."""
        tiles = list(chain.from_iterable(map(getitem, _COPIES, self.hands[s])))  # sorted
        if method is not Method.SELF_DRAW:
            tiles.append(tile)
            tiles.sort()
        return Event(WIN, s, tile, from_seat, str(method), tuple(tiles))

    def window_win_event(self, w: Window, s: int) -> Event:
        method = Method.DISCARD if w.kind == "discard" else Method.ROBBED_KONG
        return self.win_event(s, w.tile, method, w.from_seat)

    def fits(self, ev: Event) -> bool:
        """Whether ``ev`` is a claim on the open window (a win, or a pon or exposed
        kong before anyone won); anything else means the window must close first."""
        w = self.window
        if w is None:
            return False
        if ev.type == WIN:
            return ev.tile == w.tile and ev.seat in w.wins and ev.seat not in w.winners
        if w.winners or ev.tile != w.tile:
            return False
        if ev.type == PON:
            return ev.seat in w.pons
        return ev.type == KONG and ev.kind == "exposed" and ev.seat in w.kongs

    # ------------------------------------------------------------ the window
    # The methods below change the window and the locks; the state calls them
    # while it applies an event, and nothing else does.
    def open_discard_window(self, d: int, t: int, last: bool) -> bool:
        """Open the window seat ``d``'s discard ``t`` opens (``last``: the wall is
        empty, the last discard); False when nobody may claim it (the hot path: a
        cheap shape lookup before any scoring)."""
        wins: dict[int, Score] = {}
        pons: list[int] = []
        kongs: list[int] = []
        hands, melds, won, void, pon_lock, misses, miss_of = self._seen  # misses: read inline
        blood = self.blood
        other_suits = MISS_OTHER_SUITS[t]
        suit = t // 9
        for s in self.order[d]:
            if blood and won[s]:  # only the blood battle goes on after a win
                continue
            if void[s] == suit:  # its void suit: no win (a 花猪), no pon, no kong
                continue
            h = hands[s]
            miss = misses[s]
            if miss is None:
                miss = miss_of(s)
            if not miss & other_suits:
                h[t] += 1
                shape = is_win(h, len(melds[s]))  # cheap lookup first; scoring is rare
                h[t] -= 1
                if shape:
                    sc = self.win_score(s, t, Method.DISCARD, shape=True)
                    if sc is not None:
                        wins[s] = sc
            c = h[t]
            if c >= 2 and not last:
                if t not in pon_lock[s]:
                    pons.append(s)
                if c >= 3:  # the wall is not empty here, so a kong can be replaced
                    kongs.append(s)
        if not (wins or pons or kongs):
            return False
        self.window = Window(
            "discard", t, d, wins, pons, kongs, forced=bool(wins) and self.forced_zone(), last=last
        )
        return True

    def open_rob_window(self, k: int, t: int, kind: str, barred: set[int]) -> bool:
        """Open the window seat ``k``'s kong of ``t`` opens for robbing; False when
        nobody may rob it (``barred``: seats that may not)."""
        won = self.pos.won
        wins = {}
        for s in self.order[k]:
            if s in barred or won[s]:
                continue
            sc = self.win_score(s, t, Method.ROBBED_KONG)
            if sc is not None:
                wins[s] = sc
        if not wins:
            return False
        self.window = Window("rob", t, k, wins, [], [], forced=self.forced_zone(), kong_kind=kind)
        return True

    def close(self) -> Window:
        """:data:`PASS`: the open window closes. Every seat that passed a legal win
        on it is locked; on a discard nobody won, so is every seat that passed a pon
        (过手碰). Returns the window closed."""
        w = self.window
        assert w is not None  # PASS closes an open window
        self.window = None
        for s, sc in w.wins.items():
            if s not in w.winners:
                self.lock_passed_win(s, sc)
        if w.kind == "discard" and not w.winners and self.pon_locks:
            for s in w.pons:  # could pon, nobody won, did not pon
                self.pon_lock[s].add(w.tile)
        return w

    def take(self, claimer: int) -> Window:
        """Seat ``claimer`` pons or kongs the discard: the window closes, every seat
        that could win on it passed, every other seat that could pon passed its pon.
        Under 过手碰 the claim then ends the claimer's own locks, the lock for the
        win it passed to claim included: a pon and an exposed kong alike (a robbed
        kong too, though no replacement draw follows). Returns the window taken."""
        w = self.window
        assert w is not None  # a pon or an exposed kong claims an open window
        self.window = None
        for s, sc in w.wins.items():
            self.lock_passed_win(s, sc)
        if self.pon_locks:
            for s in w.pons:
                if s != claimer:
                    self.pon_lock[s].add(w.tile)
            self.end_locks(claimer)
        return w

    def lock_passed_win(self, s: int, sc: Score) -> None:
        """Seat ``s`` passed the legal win ``sc`` (on a discard, a kong, or its own
        draw): its pass lock, as the variant says."""
        self.hu_lock[s] = self.spec.lock_after_pass(self.rules, self.hu_lock[s], sc)

    def end_locks(self, s: int) -> None:
        """Seat ``s``'s pass locks end (its draw; its own pon or kong under 过手碰)."""
        self.hu_lock[s] = None
        if self.pon_lock[s]:
            self.pon_lock[s] = set()
