"""A hand's state and the one transition function every reader shares.

The engine, the replayer and the auditor all drive a :class:`HandState` the same
way (python-chess's ``Board.push``):

- :meth:`HandState.auto` is the next event that must happen whatever the agents
  want (deals, draws, bonus tiles, transfers, forced wins, the end), or None;
- :meth:`HandState.options` lists, per seat, the legal choices at a decision point
  (both from :class:`mjlog.choices.Choices`, a base of the state);
- :meth:`HandState.apply` is the only code that changes the state; applying
  :data:`PASS` (never logged) ends a claim window (discard or kong robbing) once
  every claim on it is applied: it sets the pass locks and moves play on;
- :attr:`HandState.claims` (:class:`mjlog.claims.Claims`) judges wins and claims
  on the position, holds the open claim window and the pass locks, and claim
  priority (``claims.resolve``: what the seats' picks on a window make happen:
  wins in turn order, else the pon or kong, else PASS);
  :attr:`HandState.seats` holds the tiles and :attr:`HandState.ledger` the
  money. Each is changed only while an event applies. The parts that read the
  state (claims, wins) hold it weakly: a hand has no reference cycle and is freed
  by reference counting.

Chance is logged: the state is built from the logged wall, dice and dealer, so
a replay needs no random generator.
"""

from __future__ import annotations

from copy import deepcopy
from weakref import ref

from mjlog.choices import Choices
from mjlog.claims import PASS, Claims, Window
from mjlog.events import (
    BONUS,
    DEAL,
    DISCARD,
    DRAW,
    END,
    HORSE,
    KONG,
    PON,
    TRANSFER,
    VOID,
    WIN,
    Event,
    IllegalEvent,
    transfer,
)
from mjlog.ledger import Ledger, WinRecord
from mjlog.phase import LIVE, SUIT_LETTERS, TAIL, Phase
from mjlog.rules import Rules
from mjlog.scoring.base import Method
from mjlog.seats import Seats
from mjlog.wins import WinFlow

__all__ = ["PASS", "HandState", "IllegalEvent", "Phase", "Window", "WinRecord", "kong_payments"]

# The phases as module constants: the hot paths read them without an attribute lookup.
_DEAL, _VOID, _DRAW, _ACT, _CLAIM, _ROB, _OVER = Phase


def kong_payments(st, s: int, kind: str, t: int, late: bool) -> list[tuple]:
    """(payer, amount, reason) of the kong money seat ``s`` earns when its kong of
    ``kind`` on ``t`` stands: the variant's table (:meth:`Variant.kong_money
    <mjlog.variants.base.Variant.kong_money>`), and nothing for a late added kong
    (``late``) under ``late_added_kong = no_pay``, in every variant. ``st``: the
    state, or anything with its ``rules``, ``spec``, ``n``, ``melds`` and ``won``
    (:func:`simulate.agents.values.kong_money` asks with a stand-in)."""
    if late and st.rules["late_added_kong"] == "no_pay":
        return []
    return st.spec.kong_money(st, s, kind, t, late)


class HandState(Choices):
    """Everything about one hand in play. Seats are 0..n-1; hands are 34-count lists."""

    # slots: some sixty attributes are too many for a plain instance's fast attribute
    # reads, and the hot paths read them all the time; __weakref__ for the parts
    __slots__ = (
        "rules", "variant", "spec", "_shilaotou", "_bonus_tile", "_blood", "_locks",
        "_may_force", "n", "seats", "hands", "melds", "discards", "void", "won", "bonus",
        "draws", "claims", "hu_lock", "pon_lock", "bonus_tile", "forced_tiles",
        "late_forbidden", "void_first", "_sd_key", "_sd", "flow", "wall", "dealer", "dice",
        "break_pos", "front", "back", "phase", "turn", "need_tail", "after_pon", "drawn",
        "chain", "chain_kongs", "kong_this_turn", "pending", "events", "deal_next",
        "calls_made", "ledger", "deltas", "transfers", "wins", "winners", "honor_run",
        "exhausted", "next_dealer", "horses", "due_draw", "replacing", "drawn_may_win",
        "_late", "won_tiles", "__weakref__")

    def __init__(self, rules: Rules, wall: list[int] | tuple[int, ...], dealer: int,
                 dice: tuple[int, int] = (1, 1), break_pos: int = 0):
        n = rules.n
        self.rules = rules
        self.variant = rules.variant
        self.spec = spec = rules.spec  # the variant's facts and hooks
        self._shilaotou = spec.counts_honor_discards(rules)  # 十老头 counting is on
        self._bonus_tile = spec.bonus_tile      # huangmei 发, else None
        self._blood = spec.blood_battle         # xuezhan: winners leave, play goes on
        self._locks = spec.pass_locks           # passing a win may lock (not huangmei)
        # Choices.forced_act() applies: a bonus tile is laid out, or a win is forced
        self._may_force = self._bonus_tile is not None or spec.forced_tiles >= 0
        self.n = n
        self.seats = seats = Seats(n)         # the seats' tiles and their caches
        # the seats' lists, read as the state's own (never rebound; changed by seats)
        self.hands, self.melds, self.discards = seats.hands, seats.melds, seats.discards
        self.void, self.won, self.bonus = seats.void, seats.won, seats.bonus
        self.draws = seats.draws
        self.claims = claims = Claims(self)  # what the seats may win and claim now
        # the claims' pass locks, read as the state's own (never rebound)
        self.hu_lock, self.pon_lock = claims.hu_lock, claims.pon_lock
        self._init_choices()                 # what may happen next: self.choices
        self.flow = WinFlow(self)            # what wins do, and how the hand ends
        self.wall = tuple(wall)
        self.dealer = dealer
        self.dice = tuple(dice)
        self.break_pos = break_pos
        self.front = 0                       # next live draw: wall[front]
        self.back = len(wall) - 1            # next tail draw: wall[back]
        self.phase = _DEAL
        self.turn = dealer
        self.need_tail = False
        self.after_pon = False
        self.drawn: int | None = None        # the tile this seat just drew
        self.chain: str | None = None        # first link of the replacement chain
        self.chain_kongs = 0                 # kongs in the chain (dian_gang_hua_link)
        self.kong_this_turn = False          # for 杠上炮
        self.pending: list[Event] = []       # events that must come next, in order
        self.events: list[Event] = []
        self.deal_next = 0                   # seat index (from dealer) to deal next
        self.calls_made = False              # any pon or kong so far (地胡)
        self.ledger = book = Ledger(n)       # money, transfers and the wins rows
        # the ledger's books, read as the state's own (never rebound; changed by it)
        self.deltas, self.transfers = book.deltas, book.transfers
        self.wins: list[WinRecord] = book.wins
        self.winners = book.winners
        self.honor_run = [0] * n             # yuxi 十老头 count
        self.exhausted = False
        self.next_dealer: int | None = None
        self.horses: tuple[int, ...] = ()
        self.due_draw: str | None = None     # huangmei: the draw due after dealt 发
        self.replacing = False               # huangmei: a 发's tail replacement is due
        self.drawn_may_win = True            # the drawn tile may complete the hand
        self._late = False                   # the added kong being declared is late
        self.won_tiles: list[int] = []       # discards / kong tiles that left play by a win

    def __deepcopy__(self, memo: dict) -> HandState:
        """A copy whose parts read the copy: their weak references to the state (which
        keep a hand free of reference cycles) are not copied by :func:`copy.deepcopy`.
        Immutable parts are shared: the rules, the variant (the registry's), the wall
        and the events."""
        new = object.__new__(HandState)
        memo[id(self)] = new
        memo[id(self.rules)], memo[id(self.spec)] = self.rules, self.spec
        memo[id(self.wall)] = self.wall
        memo.update((id(e), e) for e in self.events)
        for k in HandState.__slots__[:-1]:  # all but __weakref__
            if hasattr(self, k):
                setattr(new, k, deepcopy(getattr(self, k), memo))
        for part in (new.claims, new.flow):
            part.state = ref(new)
        return new

    # ------------------------------------------------------------------ basics
    @property
    def window(self) -> Window | None:
        """The open claim window (a discard, or a kong that may be robbed), or None."""
        return self.claims.window

    @property
    def live(self) -> int:
        """Tiles left in the wall (both ends)."""
        return self.back - self.front + 1

    @property
    def over(self) -> bool:
        return self.phase is _OVER

    def active_seats(self) -> list[int]:
        return self.seats.active()

    def next_active(self, seat: int) -> int:
        """The first seat after ``seat`` still in play (``seat`` itself if none)."""
        return self.seats.next_active(seat)

    def held(self, seat: int) -> list[int]:
        """34 counts of hand + melds (for the four-copies rule and 根)."""
        return self.seats.held(seat)

    def holds_void(self, seat: int) -> bool:
        """The seat holds a tile of its void suit (a 花猪)."""
        return self.seats.holds_void(seat)

    # ------------------------------------------------------------------ what's next
    def try_apply(self, ev: Event) -> bool:
        """The checked apply: apply ``ev`` and return True when the rules allow it
        now (it is the event due, or one of its seat's choices, winners on one tile
        in claim order: :meth:`mjlog.claims.Claims.allows`); otherwise return
        False having changed nothing, except that a claim window the log has left
        (``ev`` claims nothing on it and no forced win is due) is closed first, as
        :data:`PASS` would. The one path of
        :func:`mjlog.replay.apply_checked`; :meth:`auto` and :meth:`options`, the
        plain reference, explain a refusal, and a test holds the two equal."""
        pending = self.pending
        if pending:
            if ev != pending[0]:
                return False
            self.apply(ev)
            return True
        claims, ch = self.claims, self
        w = claims.window
        if w is not None:
            if not claims.fits(ev):
                if w.forced and ch.auto() is not None:  # a forced win is still due
                    return False
                self._close_window()  # everyone passed: the log has moved on
                return self.try_apply(ev)
            if not claims.allows(ev):
                return False
            self.apply(ev)
            return True
        ph = self.phase
        # the two commonest events go straight to their transition (what apply()
        # would call, nothing being pending)
        if ph is _DRAW:
            if ev != ch.draw_event():
                return False
            if ev.type == DRAW:  # not a huangmei 发 laid out before the draw
                self.events.append(ev)
                self._apply_draw(ev)
                return True
        elif ph is _ACT:
            forced = ch.forced_act() if self._may_force else None
            if forced is not None:
                if ev != forced:
                    return False
            elif ch.is_plain_discard(ev):
                self.events.append(ev)
                self._apply_discard(ev)
                return True
            elif ev.type == DISCARD or not ch.is_legal(ev):
                return False
        elif ph is _DEAL:
            if ev != ch.deal_event():
                return False
        elif ph is not _VOID or not ch.is_legal(ev):
            return False
        self.apply(ev)
        return True

    # ------------------------------------------------------------------ apply
    def apply(self, ev: Event) -> None:
        """Apply one event: the only code that changes the state. Unchecked: the
        engine only applies legal events; the auditor checks before it applies.
        A pending (forced) event must match exactly."""
        if self.pending:
            if ev != self.pending[0]:
                raise IllegalEvent("expected_event",
                                   f"expected {self.pending[0]!r}, got {ev!r}")
            self.pending.pop(0)
        elif ev is PASS:
            self._close_window()
            return
        events = self.events
        events.append(ev)
        t = ev.type
        if t == DRAW:
            self._apply_draw(ev)
        elif t == DISCARD:
            self._apply_discard(ev)
        elif t == TRANSFER:
            self._apply_transfer(ev, len(events) - 1)
        elif t == WIN:
            self.flow.apply_win(ev, len(events) - 1)
        elif t == PON:
            self._apply_pon(ev)
        elif t == KONG:
            self._apply_kong(ev)
        elif t == DEAL:
            self._apply_deal(ev)
        elif t == VOID:
            self._apply_void(ev)
        elif t == BONUS:
            self._apply_bonus(ev)
        elif t == HORSE:
            self.back -= len(ev.tiles)  # turned from the tail; its transfers are queued
            self.horses = ev.tiles
        elif t == END:
            self.phase = _OVER
            book = self.ledger
            self.next_dealer = self.spec.next_dealer(self.rules, self.dealer, book.winners,
                                                     book.first_batch, book.first_payer)
        else:
            raise IllegalEvent("event_type", f"unknown event type {t!r}")

    def _apply_deal(self, ev: Event) -> None:
        self.seats.deal(ev.seat, ev.tiles)
        self.deal_next += 1
        if self.deal_next == self.n:
            self.front = 13 * self.n + 1
            self.turn = self.dealer
            self.phase = _VOID if self.spec.has_void else _ACT
            self.drawn = self.wall[13 * self.n]  # a win on the dealt 14 is a self-draw
            self.drawn_may_win = True

    def _apply_void(self, ev: Event) -> None:
        self.void[ev.seat] = SUIT_LETTERS.index(ev.kind)
        nxt = (ev.seat + 1) % self.n
        if nxt == self.dealer:
            self.turn = self.dealer
            self.phase = _ACT
        else:
            self.turn = nxt

    def _apply_draw(self, ev: Event) -> None:
        s = ev.seat
        if ev.kind == TAIL:
            self.back -= 1
        else:
            self.front += 1
            self.chain = None
            self.kong_this_turn = False
        self.need_tail = False
        self.replacing = False
        t = ev.tile
        seats = self.seats
        self.drawn_may_win = seats.draw(s, t)  # may the tile complete the hand
        self.drawn = t
        self.after_pon = False
        if self.hu_lock[s] is not None or self.pon_lock[s]:
            self.claims.end_locks(s)  # a draw ends the pass locks
        if self.due_draw is not None:
            if not self.hands[s][self._bonus_tile]:
                # dealt 发 laid out before the seat's first draw: now the draw that was due
                self.need_tail = self.due_draw == TAIL
                self.due_draw = None
            self.phase = _DRAW
            return
        self.phase = _ACT

    def _apply_bonus(self, ev: Event) -> None:
        s = ev.seat
        self.seats.lay_out(s, ev.tile)
        if self.phase is _DRAW and self.due_draw is None:
            self.due_draw = TAIL if self.need_tail else LIVE
        if self.chain is None and self.phase is _ACT:
            self.chain = "bonus"
        if self.live == 0:
            # an unreplaceable 发 ends the hand as an exhaustive draw
            self.flow.exhaust()
            return
        self.replacing = True
        self.phase = _DRAW

    def _apply_discard(self, ev: Event) -> None:
        s, t = ev.seat, ev.tile
        if self.drawn is not None and self._locks and self.drawn_may_win:
            # 弃胡 / 过手胡: discarding instead of a legal self-draw win locks too
            # (drawn_may_win False: the drawn tile completes nothing, no win to pass)
            key = len(self.events) - 1  # the state before this discard
            sc = self.self_draw_score(key)
            if sc is not None:
                self.claims.lock_passed_win(s, sc)
        self.seats.discard(s, t)
        self.drawn = None
        self.after_pon = False
        self._open_discard_window(s, t)

    def _open_discard_window(self, d: int, t: int) -> None:
        if self.claims.open_discard_window(d, t, self.back < self.front):
            self.phase = _CLAIM
        else:  # nobody can claim: the discard passes at once
            self._discard_passed(d, t)

    def _open_rob_window(self, k: int, t: int, kind: str, barred: set[int]) -> bool:
        if not self.claims.open_rob_window(k, t, kind, barred):
            return False
        self.phase = _ROB
        return True

    def _close_window(self) -> None:
        """:data:`PASS`: the window closes (the claims set the pass locks), then play
        moves on (the next draw, the kong settled, or the end after wins)."""
        if self.claims.window is None:
            return
        w = self.claims.close()
        if w.winners:
            self.flow.after_window_wins(w)
        elif w.kind == "discard":
            self._discard_passed(w.from_seat, w.tile)
        else:
            self._kong_stands(w.from_seat, w.tile, w.kong_kind)

    def _discard_passed(self, d: int, tile: int) -> None:
        """Nobody claimed ``d``'s discard: count 十老头, then the next draw (or the end)."""
        if self._shilaotou:
            self.honor_run[d] = self.honor_run[d] + 1 if tile >= 27 else 0
            if self.honor_run[d] >= 10 and self.claims.shilaotou_score(d, tile).legal:
                h = self.hands[d]
                tiles = tuple(t for t in range(34) for _ in range(h[t]))
                self.pending.append(Event(WIN, d, tile, None, str(Method.SHILAOTOU), tiles))
                return
        if self.back < self.front:  # the last discard
            self.flow.exhaust()
            return
        self.turn = self.seats.next_active(d) if self._blood else (d + 1) % self.n
        self.phase = _DRAW

    def _apply_pon(self, ev: Event) -> None:
        w = self.claims.take(ev.seat)
        s, t = ev.seat, ev.tile
        self.honor_run[w.from_seat] = 0
        self.seats.pon(s, t, w.from_seat)
        self.calls_made = True
        self.after_pon = True
        self.drawn = None
        self.chain = None
        self.kong_this_turn = False
        self.turn = s
        self.phase = _ACT

    def _apply_kong(self, ev: Event) -> None:
        s, t, kind = ev.seat, ev.tile, ev.kind
        self.calls_made = True
        if kind == "exposed":
            w = self.claims.take(s)  # locks who passed; 过手碰: ends s's own locks
            self.honor_run[w.from_seat] = 0
            self.seats.kong(s, t, kind, w.from_seat)
            self.turn = s
            self.chain = None
            self.kong_this_turn = False
            if self.rules["rob_exposed_kong"]:
                barred = set(w.wins) | {w.from_seat}
                if self._open_rob_window(s, t, "exposed", barred):
                    return
            self._kong_stands(s, t, kind)
            return
        if self.spec.pon_lock:  # 过手胡 and 过手碰 end at the seat's own kong too
            self.claims.end_locks(s)
        if kind == "added":
            self.seats.kong(s, t, kind)
            self._late = t != self.drawn
            if self._open_rob_window(s, t, "added", {s}):
                return
            self._kong_stands(s, t, kind)
        else:
            self.seats.kong(s, t, kind)
            self._kong_stands(s, t, kind)

    def _kong_stands(self, s: int, t: int, kind: str) -> None:
        """The kong was not robbed: pay kong money, then the tail draw."""
        if self.chain is None:
            self.chain = "kong"
            self.chain_kongs = 0
        self.chain_kongs += 1
        self.kong_this_turn = True
        self.drawn = None
        for payer, amount, reason in kong_payments(self, s, kind, t,
                                                   kind == "added" and self._late):
            self.pending.append(transfer(payer, s, amount, reason))
            self.ledger.kong_paid(payer, s, amount, t)
        self.turn = s
        self.need_tail = True
        self.phase = _DRAW

    def _apply_transfer(self, ev: Event, seq: int) -> None:
        self.ledger.pay(seq, ev.from_seat, ev.seat, ev.amount, ev.kind)

    # ------------------------------------------------------------------ summary
    def hand_row(self) -> dict:
        return {
            "players": self.n, "dealer": self.dealer, "dice": list(self.dice),
            "break": self.break_pos, "wall": list(self.wall), **self.outcome_row(),
        }

    def outcome_row(self) -> dict:
        """The hands row's columns play decides (:meth:`hand_row` less the deal)."""
        return {
            "outcome": "win" if self.winners else "draw",
            "winners": list(self.winners), "deltas": list(self.deltas),
            "n_events": len(self.events), "wall_left": self.live,
            "next_dealer": self.next_dealer,
        }

