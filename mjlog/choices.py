"""What may happen next: the event no one chooses, and each seat's legal choices.

:class:`Choices` is the generator and the predicate of python-chess's three
parts (the state's :meth:`~mjlog.state.HandState.apply` is the third). It is a
part of :class:`~mjlog.state.HandState` (``st.choices``) that holds the hand's
:class:`~mjlog.position.Position` and its :class:`~mjlog.claims.Claims`, both
below it, and nothing above: it reads them and never changes the position (no
back-reference to the state, no reference cycle). It keeps one cache, the
acting seat's self-draw verdict, keyed by the number of events so it can never
be stale.
"""

from __future__ import annotations

from itertools import compress

from mjlog.claims import Claims
from mjlog.compiled import mypyc_attr
from mjlog.events import BONUS, DEAL, DISCARD, DRAW, KONG, VOID, WIN, Event
from mjlog.melds import MeldKind
from mjlog.phase import LIVE, SUIT_LETTERS, TAIL, Phase
from mjlog.position import Position
from mjlog.scoring.base import Method, Score

__all__ = ["Choices"]

_DEAL, _VOID, _DRAW, _ACT, _CLAIM, _ROB, _OVER = Phase
# Events are immutable tuples, so the common ones are built once and shared.
_DISCARD_EV = [[Event(DISCARD, s, t) for t in range(34)] for s in range(4)]
_LIVE_EV = [[Event(DRAW, s, t, None, LIVE) for t in range(34)] for s in range(4)]
_TAIL_EV = [[Event(DRAW, s, t, None, TAIL) for t in range(34)] for s in range(4)]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class Choices:
    """The next forced event and the legal choices of one hand's seats, read from
    its position and its claims."""

    __slots__ = ("pos", "claims", "bonus_tile", "late_forbidden", "void_first", "_sd_key", "_sd")

    def __init__(self, pos: Position, claims: Claims):
        self.pos = pos
        self.claims = claims
        spec = pos.spec
        self.bonus_tile = spec.bonus_tile  # huangmei 发, else None
        self.late_forbidden = pos.rules["late_added_kong"] == "forbidden"
        self.void_first = spec.void_first(pos.rules)  # xuezhan 打缺 enforced
        self._sd_key = -1  # the event count _sd was computed at
        self._sd: Score | None = None

    def self_draw_score(self, key: int | None = None) -> Score | None:
        """The legal self-draw win of the acting seat now, computed once per event."""
        st = self.pos
        if key is None:
            key = len(st.events)
        if self._sd_key != key:
            self._sd_key = key
            t = st.drawn
            self._sd = (
                self.claims.win_score(st.turn, t, Method.SELF_DRAW)
                if t is not None and st.drawn_may_win
                else None
            )
        return self._sd

    # ------------------------------------------------------------ what's next
    def auto(self) -> Event | None:
        """The next event no agent chooses, or None at a decision point."""
        st = self.pos
        if st.pending:
            return st.pending[0]
        ph = st.phase
        if ph is _DRAW:
            return self.draw_event()
        if ph is _ACT:
            return self.forced_act()
        if ph is _DEAL:
            return self.deal_event()
        if ph in (_CLAIM, _ROB):
            w = self.claims.window
            assert w is not None  # a claim or rob phase has its window open
            if w.forced:
                for s in self.claims.order[w.from_seat]:
                    if s in w.wins and s not in w.winners:
                        return self.claims.window_win_event(w, s)
            return None
        return None

    def forced_act(self) -> Event | None:
        """The event forced on the acting seat before it may choose: a dealt 发 laid
        out (huangmei), the forced self-draw win in the last four tiles (yuxi)."""
        st = self.pos
        s = st.turn
        b = self.bonus_tile
        if b is not None and st.hands[s][b] and not st.after_pon:
            return Event(BONUS, s, b)
        if st.drawn is not None and st.drawn_may_win and self.claims.forced_zone():
            sc = self.self_draw_score()
            if sc is not None:
                return self.self_draw_event(s, sc)
        return None

    def options(self) -> dict[int, list[Event]]:
        """Legal choices per seat at a decision point (passing is always allowed in
        claim windows and is not an event)."""
        st = self.pos
        ph = st.phase
        if ph is _VOID:
            s = st.turn
            return {s: [Event(VOID, s, None, None, c) for c in SUIT_LETTERS]}
        if ph is _ACT:
            return {st.turn: self.act_options()}
        if ph in (_CLAIM, _ROB):
            w = self.claims.window
            assert w is not None  # a claim or rob phase has its window open
            out: dict[int, list[Event]] = {}
            for s in self.claims.order[w.from_seat]:
                opts = self.claims.options_of(s)
                if opts:
                    out[s] = opts
            return out
        return {}

    def is_legal(self, ev: Event) -> bool:
        """Whether ``ev`` is one of its seat's choices now (the checked path's
        predicate; :meth:`options` lists them). A plain discard, the commonest
        choice, is judged without building the list; a claim, from its seat's
        claims alone."""
        st = self.pos
        ph = st.phase
        if ev.type == DISCARD and ph is _ACT and not st.pending:
            return self.is_plain_discard(ev)
        if ph in (_CLAIM, _ROB):  # only seats other than the discarder have claims
            w = self.claims.window
            assert w is not None  # a claim or rob phase has its window open
            s = ev.seat
            return type(s) is int and s != w.from_seat and ev in self.claims.options_of(s)
        if ph is _ACT and ev.type != DISCARD:  # a self-draw win or a kong
            return ev.seat == st.turn and ev in self.act_claims()
        s = ev.seat
        mine = None if s is None else self.options().get(s)
        return mine is not None and ev in mine

    def allows(self, ev: Event) -> bool:
        """Whether ``ev``, a claim that :meth:`Claims.fits <mjlog.claims.Claims.fits>`
        the open window, may be taken now: while wins are forced, exactly the next
        one (what :meth:`auto` says); else one of its seat's choices, a win only
        after every win taken on the tile in claim order (the checked step's test)."""
        w = self.claims.window
        assert w is not None  # fits() found it open
        if w.forced:
            return ev == self.auto()
        if not self.is_legal(ev):
            return False
        if ev.type == WIN and w.winners:
            rank = self.claims.rank[w.from_seat]
            s = ev.seat
            assert s is not None  # is_legal: a claim names its seat
            return max(rank[o] for o in w.winners) < rank[s]
        return True

    def is_plain_discard(self, ev: Event) -> bool:
        """``ev`` is the acting seat's discard of a kind it holds, as act_options()
        lists them (never a dealt 发, which is laid out)."""
        st = self.pos
        t = ev.tile
        return (
            type(t) is int
            and 0 <= t < 34
            and ev == _DISCARD_EV[st.turn][t]
            and st.hands[st.turn][t] > 0
            and t != self.bonus_tile
            and not (self.void_first and self.void_first_refuses(st.turn, t))
        )

    def void_first_refuses(self, s: int, t: int) -> bool:
        """打缺 (``void_first``): seat ``s`` holds a tile of its void suit and ``t`` is
        not one."""
        seats = self.pos.seats
        v = seats.void[s]
        return v is not None and t // 9 != v and seats.holds_void(s)

    def discard_refusal(self, ev: Event) -> tuple[str, str] | None:
        """Why the acting seat's discard ``ev`` of a tile it holds is refused: (check,
        the rule in words), or None (the auditor's explanation)."""
        st = self.pos
        s, t = st.turn, ev.tile
        if (
            ev.type == DISCARD
            and ev.seat == s
            and type(t) is int
            and 0 <= t < 34
            and st.hands[s][t]
            and self.void_first
            and self.void_first_refuses(s, t)
        ):
            v = st.void[s]
            assert v is not None  # void_first_refuses: the seat has chosen its void
            return "void_first", (
                f"打缺 (void_first): S{s} holds a tile of its void suit "
                f"{SUIT_LETTERS[v]}: it must discard those first"
            )
        return None

    def act_options(self) -> list[Event]:
        """The acting seat's choices: self-draw win, kongs, discards (ACT phase)."""
        st = self.pos
        s = st.turn
        h = st.hands[s]
        opts = self.act_claims()
        evs = _DISCARD_EV[s]
        v = st.void[s]
        if self.void_first and v is not None and st.seats.holds_void(s):
            opts += compress(evs[9 * v : 9 * v + 9], h[9 * v : 9 * v + 9])  # 打缺
        else:
            opts += compress(evs, h)  # the kinds held, in C
        b = self.bonus_tile
        if b is not None and h[b]:
            opts.remove(evs[b])  # a dead dealt 发 is never discarded
        return opts

    def act_claims(self) -> list[Event]:
        """The acting seat's self-draw win and kongs (act_options() less the discards)."""
        st = self.pos
        s = st.turn
        h = st.hands[s]
        opts: list[Event] = []
        if st.drawn is not None:  # not after a pon
            sc = self.self_draw_score()
            if sc is not None:
                opts.append(self.self_draw_event(s, sc))
            if st.back >= st.front:  # a kong needs a tile to replace it
                void = st.void[s]
                if st.seats.fours[s]:  # some kind held four times
                    opts += [
                        Event(KONG, s, t, None, "concealed")
                        for t in range(34)
                        if h[t] == 4 and (void is None or t // 9 != void)
                    ]
                for m in st.melds[s]:
                    if m.kind is MeldKind.PON and h[m.tile]:
                        if self.late_forbidden and m.tile != st.drawn:
                            continue
                        opts.append(Event(KONG, s, m.tile, None, "added"))
        return opts

    def self_draw_event(self, s: int, sc: Score) -> Event:
        """The acting seat's self-draw win: ``from_seat`` is who pays as the
        discarder, the kong's feeder of a 点杠花 paid by the feeder (the wins row's
        ``from_seat`` too), else None."""
        t = self.pos.drawn
        assert t is not None  # a self-draw wins on the drawn tile
        feeder = self.kong_feeder(s) if sc.feeder_pays else None
        return self.claims.win_event(s, t, Method.SELF_DRAW, feeder)

    def kong_feeder(self, s: int) -> int:
        """Who fed the exposed kong that makes the acting seat's self-draw 点杠花 (a
        score with ``feeder_pays``): the chain's last kong, or its first under
        ``dian_gang_hua_link = first`` (the scorer's :meth:`WinContext.deciding_kong`)."""
        st = self.pos
        t = st.drawn
        assert t is not None  # a self-draw wins on the drawn tile
        ctx = self.claims.win_context(s, t, Method.SELF_DRAW)
        kong = ctx.deciding_kong(st.rules["dian_gang_hua_link"])
        # feeder_pays: the deciding kong is an exposed one, fed by a seat
        assert kong is not None and kong.from_seat is not None
        return kong.from_seat

    # ------------------------------------------------------------ auto events
    def deal_event(self) -> Event:
        """The next deal event: the wall's tiles for the next seat (docs/rules/,
        "Dealing and turn flow")."""
        st = self.pos
        n, i = st.n, st.deal_next
        w = st.wall
        tiles: list[int] = []
        for r in range(3):
            a = 4 * (r * n + i)
            tiles.extend(w[a : a + 4])
        tiles.append(w[12 * n + i])
        if i == 0:
            tiles.append(w[13 * n])
        return Event(DEAL, (st.dealer + i) % n, None, None, None, tuple(tiles))

    def draw_event(self) -> Event:
        """The draw due: a 发's replacement, a dealt 发 laid out first, a kong's tail
        draw, or the next live tile."""
        st = self.pos
        s = st.turn
        if st.replacing:
            return _TAIL_EV[s][st.wall[st.back]]
        # huangmei: dealt 发 are laid out before the seat's first draw of either kind
        b = self.bonus_tile
        if b is not None and st.hands[s][b]:
            return Event(BONUS, s, b)
        if st.need_tail:
            return _TAIL_EV[s][st.wall[st.back]]
        return _LIVE_EV[s][st.wall[st.front]]
