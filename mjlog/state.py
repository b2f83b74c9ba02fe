"""A hand's state and the one transition function every reader shares.

The engine, the replayer and the auditor all drive a :class:`HandState` the same
way (python-chess's ``Board.push``):

- :meth:`HandState.auto` is the next event that must happen whatever the agents
  want (deals, draws, bonus tiles, transfers, forced wins, the end), or None;
- :meth:`HandState.options` lists, per seat, the legal choices at a decision point
  (both from :attr:`HandState.choices`, a :class:`mjlog.choices.Choices`);
- :meth:`HandState.apply` is the only code that changes the state; applying
  :data:`PASS` (never logged) ends a claim window (discard or kong robbing) once
  every claim on it is applied: it sets the pass locks and moves play on;
- :attr:`HandState.claims` (:class:`mjlog.claims.Claims`) judges wins and claims
  on the position, holds the open claim window and the pass locks, and claim
  priority (``claims.resolve``: what the seats' picks on a window make happen:
  wins in turn order, else the pon or kong, else PASS);
  :attr:`HandState.calls` (:class:`mjlog.calls.Calls`) is what pons and kongs
  do, and :attr:`HandState.flow` (:class:`mjlog.wins.WinFlow`) what wins do and
  how a hand ends.

The state is composed, one way: it owns the position (:attr:`HandState.pos`, a
:class:`mjlog.position.Position`: the plain data of the hand, its
:attr:`~mjlog.position.Position.seats` holding the tiles and its
:attr:`~mjlog.position.Position.ledger` the money) and the parts above it, each
handed at construction what it reads: the claims the position; the choices and
the calls the position and the claims; the win flow the position, the claims
and the choices. No part holds the state, so a hand has no reference cycle and
is freed by reference counting, and a deep copy's parts read the copy's own
position. The choices only read; the other parts change the position (or their
own window and locks) only while the state applies an event.

The position's lists and fixed facts are also the state's own attributes (bound
once, never rebound: ``st.hands``, ``st.events``, ``st.deltas``, ``st.rules`` …);
what an event rebinds (``phase``, ``turn``, ``drawn``, ``front`` …) is read
through a property of the state, or straight from ``st.pos`` on a hot path.

Chance is logged: the state is built from the logged wall, dice and dealer, so
a replay needs no random generator.
"""

from __future__ import annotations

from collections.abc import Iterable
from copy import deepcopy
from typing import Any

from mjlog.calls import Calls, kong_payments
from mjlog.choices import Choices
from mjlog.claims import PASS, Claims, Window
from mjlog.compiled import mypyc_attr
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
)
from mjlog.ledger import WinRecord
from mjlog.phase import LIVE, SUIT_LETTERS, TAIL, Phase
from mjlog.position import Position
from mjlog.rules import Rules
from mjlog.scoring.base import Method
from mjlog.wins import WinFlow

__all__ = ["PASS", "HandState", "IllegalEvent", "Phase", "Window", "WinRecord", "kong_payments"]

# The phases as module constants: the hot paths read them without an attribute lookup.
_DEAL, _VOID, _DRAW, _ACT, _CLAIM, _ROB, _OVER = Phase


#: HandState's fields, named once (its ``__slots__``; a copy copies all but
#: ``__weakref__``). Slots: the hot paths read these all the time; ``__weakref__``
#: for those who watch a hand go (tests).
FIELDS = (
    "pos",
    "claims",
    "choices",
    "calls",
    "flow",
    "_shilaotou",
    "_bonus_tile",
    "_blood",
    "_locks",
    "_may_force",
    "rules",
    "variant",
    "spec",
    "n",
    "wall",
    "dealer",
    "dice",
    "break_pos",
    "seats",
    "hands",
    "melds",
    "discards",
    "void",
    "won",
    "bonus",
    "draws",
    "hu_lock",
    "pon_lock",
    "ledger",
    "deltas",
    "transfers",
    "wins",
    "winners",
    "pending",
    "events",
    "honor_run",
    "won_tiles",
    "__weakref__",
)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class HandState:
    """Everything about one hand in play. Seats are 0..n-1; hands are 34-count lists."""

    __slots__ = FIELDS

    def __init__(
        self,
        rules: Rules,
        wall: Iterable[int],
        dealer: int,
        dice: tuple[int, int] = (1, 1),
        break_pos: int = 0,
    ):
        self.pos = p = Position(rules, wall, dealer, dice, break_pos)
        self.claims = claims = Claims(p)  # what the seats may win and claim now
        self.choices = choices = Choices(p, claims)  # what may happen next
        self.calls = Calls(p, claims)  # what pons and kongs do
        self.flow = WinFlow(p, claims, choices)  # what wins do, and how the hand ends
        spec = p.spec
        self._shilaotou = spec.counts_honor_discards(rules)  # 十老头 counting is on
        self._bonus_tile = spec.bonus_tile  # huangmei 发, else None
        self._blood = spec.blood_battle  # xuezhan: winners leave, play goes on
        self._locks = spec.pass_locks  # passing a win may lock (not huangmei)
        # Choices.forced_act() applies: a bonus tile is laid out, or a win is forced
        self._may_force = self._bonus_tile is not None or spec.forced_tiles >= 0
        # the position's fixed facts and lists, and the claims' pass locks, read as the
        # state's own (never rebound; changed by their owners)
        self.rules, self.variant, self.spec, self.n = p.rules, p.variant, spec, p.n
        self.wall, self.dealer, self.dice, self.break_pos = p.wall, p.dealer, p.dice, p.break_pos
        self.seats, self.ledger = p.seats, p.ledger
        self.hands, self.melds, self.discards = p.hands, p.melds, p.discards
        self.void, self.won, self.bonus, self.draws = p.void, p.won, p.bonus, p.draws
        self.hu_lock, self.pon_lock = claims.hu_lock, claims.pon_lock
        self.deltas, self.transfers, self.wins, self.winners = (
            p.deltas,
            p.transfers,
            p.wins,
            p.winners,
        )
        self.pending, self.events = p.pending, p.events
        self.honor_run, self.won_tiles = p.honor_run, p.won_tiles

    def __deepcopy__(self, memo: dict[int, Any]) -> HandState:
        """A copy whose parts read its own position (each object is copied once, so
        they share it as the original's parts share the original's). What never
        changes is shared: the rules (a plain deep copy would rebuild them, as they
        pickle by name), the variant (the registry's object, which a plain copy
        would duplicate), the wall and the logged events (a calibration copies a
        hand at every decision it prices, the checked step's test at every event it
        mutates)."""
        p = self.pos
        for fixed in (p.rules, p.spec, p.wall, *p.events):
            memo[id(fixed)] = fixed
        new = HandState.__new__(HandState)  # blank: compiled, serializable skips __init__
        memo[id(self)] = new
        for k in _COPIED:
            setattr(new, k, deepcopy(getattr(self, k), memo))
        return new

    # ------------------------------------------------------------------ the position, the choices
    @property
    def window(self) -> Window | None:
        """The open claim window (a discard, or a kong that may be robbed), or None."""
        return self.claims.window

    @property
    def live(self) -> int:
        """Tiles left in the wall (both ends)."""
        p = self.pos
        return p.back - p.front + 1

    @property
    def over(self) -> bool:
        return self.pos.phase is _OVER

    @property
    def phase(self) -> Phase:
        return self.pos.phase

    @property
    def turn(self) -> int:
        """The seat to draw or act (in a void choice, to choose)."""
        return self.pos.turn

    @property
    def drawn(self) -> int | None:
        """The tile the seat to act just drew, None after a pon or a discard."""
        return self.pos.drawn

    @property
    def drawn_may_win(self) -> bool:
        """The drawn tile may complete the hand (False: it surely cannot)."""
        return self.pos.drawn_may_win

    @property
    def front(self) -> int:
        """The next live draw: ``wall[front]``."""
        return self.pos.front

    @property
    def back(self) -> int:
        """The next tail draw: ``wall[back]``."""
        return self.pos.back

    @property
    def deal_next(self) -> int:
        """Which seat, counted from the dealer, is dealt next (settable: a probe of
        the deal asks :meth:`deal_event` for each seat)."""
        return self.pos.deal_next

    @deal_next.setter
    def deal_next(self, i: int) -> None:
        self.pos.deal_next = i

    @property
    def exhausted(self) -> bool:
        """The hand ended by exhaustion (or is ending)."""
        return self.pos.exhausted

    @property
    def next_dealer(self) -> int | None:
        """The next hand's dealer, once the hand is over."""
        return self.pos.next_dealer

    @property
    def horses(self) -> tuple[int, ...]:
        """买马: the horses turned from the tail."""
        return self.pos.horses

    def auto(self) -> Event | None:
        """The event due, or None: :meth:`mjlog.choices.Choices.auto`."""
        return self.choices.auto()

    def options(self) -> dict[int, list[Event]]:
        """Each seat's choices: :meth:`mjlog.choices.Choices.options`."""
        return self.choices.options()

    def act_options(self) -> list[Event]:
        """The acting seat's choices: :meth:`mjlog.choices.Choices.act_options`."""
        return self.choices.act_options()

    def is_legal(self, ev: Event) -> bool:
        """``ev`` is one of its seat's choices: :meth:`mjlog.choices.Choices.is_legal`."""
        return self.choices.is_legal(ev)

    def deal_event(self) -> Event:
        """The next deal: :meth:`mjlog.choices.Choices.deal_event`."""
        return self.choices.deal_event()

    def try_apply(self, ev: Event) -> bool:
        """The checked apply: apply ``ev`` and return True when the rules allow it
        now (it is the event due, or one of its seat's choices, winners on one tile
        in claim order: :meth:`mjlog.choices.Choices.allows`); otherwise return
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
        ch = self.choices
        if self.claims.window is not None:
            return _try_in_window(self, ev)
        ph = self.pos.phase
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

    # ------------------------------------------------------------------ apply, and the rows
    # An applied event is legal (the engine's choice, or checked first), so the
    # fields its type names are set: the transitions below assert so, for the type
    # checker, at the cost of a comparison.
    def apply(self, ev: Event) -> None:
        """Apply one event: the only code that changes the state. Unchecked: the
        engine only applies legal events; the auditor checks before it applies.
        A pending (forced) event must match exactly."""
        pending = self.pending
        if pending:
            if ev != pending[0]:
                raise IllegalEvent("expected_event", f"expected {pending[0]!r}, got {ev!r}")
            pending.pop(0)
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
            self.calls.pon(ev)
        elif t == KONG:
            self.calls.kong(ev)
        elif t == DEAL:
            self._apply_deal(ev)
        elif t == VOID:
            self._apply_void(ev)
        elif t == BONUS:
            self._apply_bonus(ev)
        elif t == HORSE:
            assert ev.tiles is not None
            p = self.pos
            p.back -= len(ev.tiles)  # turned from the tail; its transfers are queued
            p.horses = ev.tiles
        elif t == END:
            p = self.pos
            p.phase = _OVER
            book = self.ledger
            p.next_dealer = self.spec.next_dealer(
                self.rules, p.dealer, book.winners, book.first_batch, book.first_payer
            )
        else:
            raise IllegalEvent("event_type", f"unknown event type {t!r}")

    def _apply_deal(self, ev: Event) -> None:
        assert ev.seat is not None and ev.tiles is not None
        p = self.pos
        self.seats.deal(ev.seat, ev.tiles)
        p.deal_next += 1
        if p.deal_next == p.n:
            p.front = 13 * p.n + 1
            p.turn = p.dealer
            p.phase = _VOID if self.spec.has_void else _ACT
            p.drawn = p.wall[13 * p.n]  # a win on the dealt 14 is a self-draw
            p.drawn_may_win = True

    def _apply_void(self, ev: Event) -> None:
        s, kind = ev.seat, ev.kind
        assert s is not None and kind is not None
        p = self.pos
        self.void[s] = SUIT_LETTERS.index(kind)
        nxt = (s + 1) % p.n
        if nxt == p.dealer:
            p.turn = p.dealer
            p.phase = _ACT
        else:
            p.turn = nxt

    def _apply_draw(self, ev: Event) -> None:
        s, t = ev.seat, ev.tile
        assert s is not None and t is not None
        p = self.pos
        if ev.kind == TAIL:
            p.back -= 1
        else:
            p.front += 1
            p.chain = None
            p.kong_this_turn = False
        p.need_tail = False
        p.replacing = False
        p.drawn_may_win = self.seats.draw(s, t)  # may the tile complete the hand
        p.drawn = t
        p.after_pon = False
        if self.hu_lock[s] is not None or self.pon_lock[s]:
            self.claims.end_locks(s)  # a draw ends the pass locks
        if p.due_draw is not None:
            b = self._bonus_tile
            assert b is not None  # a draw is due after a dealt 发 only in huangmei
            if not self.hands[s][b]:
                # dealt 发 laid out before the seat's first draw: now the draw that was due
                p.need_tail = p.due_draw == TAIL
                p.due_draw = None
            p.phase = _DRAW
            return
        p.phase = _ACT

    def _apply_bonus(self, ev: Event) -> None:
        s, t = ev.seat, ev.tile
        assert s is not None and t is not None
        p = self.pos
        self.seats.lay_out(s, t)
        if p.phase is _DRAW and p.due_draw is None:
            p.due_draw = TAIL if p.need_tail else LIVE
        if p.chain is None and p.phase is _ACT:
            p.chain = "bonus"
        if p.live == 0:
            # an unreplaceable 发 ends the hand as an exhaustive draw
            self.flow.exhaust()
            return
        p.replacing = True
        p.phase = _DRAW

    def _apply_discard(self, ev: Event) -> None:
        s, t = ev.seat, ev.tile
        assert s is not None and t is not None
        p = self.pos
        if p.drawn is not None and self._locks and p.drawn_may_win:
            # 弃胡 / 过手胡: discarding instead of a legal self-draw win locks too
            # (drawn_may_win False: the drawn tile completes nothing, no win to pass)
            key = len(self.events) - 1  # the state before this discard
            sc = self.choices.self_draw_score(key)
            if sc is not None:
                self.claims.lock_passed_win(s, sc)
        self.seats.discard(s, t)
        p.drawn = None
        p.after_pon = False
        if self.claims.open_discard_window(s, t, p.back < p.front):
            p.phase = _CLAIM
        else:  # nobody can claim: the discard passes at once
            self._discard_passed(s, t)

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
            assert w.kong_kind is not None  # a rob window names the kong's kind
            self.calls.kong_stands(w.from_seat, w.tile, w.kong_kind)

    def _discard_passed(self, d: int, tile: int) -> None:
        """Nobody claimed ``d``'s discard: count 十老头, then the next draw (or the end)."""
        p = self.pos
        if self._shilaotou:
            run = self.honor_run
            run[d] = run[d] + 1 if tile >= 27 else 0
            if run[d] >= 10 and self.claims.shilaotou_score(d, tile).legal:
                h = self.hands[d]
                tiles = tuple(t for t in range(34) for _ in range(h[t]))
                self.pending.append(Event(WIN, d, tile, None, str(Method.SHILAOTOU), tiles))
                return
        if p.back < p.front:  # the last discard
            self.flow.exhaust()
            return
        p.turn = self.seats.next_active(d) if self._blood else (d + 1) % p.n
        p.phase = _DRAW

    def _apply_transfer(self, ev: Event, seq: int) -> None:
        payee, payer, amount, reason = ev.seat, ev.from_seat, ev.amount, ev.kind
        assert None not in (payee, payer, amount, reason)
        self.ledger.pay(seq, payer, payee, amount, reason)  # type: ignore[arg-type]

    def hand_row(self) -> dict[str, Any]:  # the hands row: the deal, then play's columns
        return {
            "players": self.n,
            "dealer": self.dealer,
            "dice": list(self.dice),
            "break": self.break_pos,
            "wall": list(self.wall),
            **self.outcome_row(),
        }

    def outcome_row(self) -> dict[str, Any]:
        """The hands row's columns play decides (:meth:`hand_row` less the deal)."""
        return {
            "outcome": "win" if self.winners else "draw",
            "winners": list(self.winners),
            "deltas": list(self.deltas),
            "n_events": len(self.events),
            "wall_left": self.live,
            "next_dealer": self.pos.next_dealer,
        }


# What a deep copy copies (the weak-reference slot is not data).
_COPIED = tuple(k for k in FIELDS if k != "__weakref__")


def _try_in_window(st: HandState, ev: Event) -> bool:
    """:meth:`HandState.try_apply` while a claim window is open."""
    claims, ch = st.claims, st.choices
    w = claims.window
    assert w is not None  # the caller saw it open
    if not claims.fits(ev):
        if w.forced and ch.auto() is not None:  # a forced win is still due
            return False
        st._close_window()  # everyone passed: the log has moved on
        return st.try_apply(ev)
    if not ch.allows(ev):
        return False
    st.apply(ev)
    return True
