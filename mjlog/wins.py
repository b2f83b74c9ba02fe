"""What wins do to a hand: who pays, horses, who plays on, and how a hand ends.

:class:`WinFlow` is the part of :meth:`mjlog.state.HandState.apply` that a win
event and the end of the wall run: it values and records a win (the ledger),
queues its payments, 呼叫转移 and 买马, lets the blood battle go on or ends the
hand, and settles an exhaustive draw by the variant's rules. It is called only
while an event applies, and changes the hand's
:class:`~mjlog.position.Position`, which it holds with the parts it asks (the
claims for a win's verdict and the claim order, the choices for the acting
seat's self-draw); all three are below it, and it holds nothing of the state.
"""

from __future__ import annotations

from mjlog.choices import Choices
from mjlog.claims import Claims, Window
from mjlog.compiled import mypyc_attr
from mjlog.events import END, HORSE, Event, IllegalEvent
from mjlog.phase import Phase
from mjlog.position import Position
from mjlog.scoring.base import Method, Score
from mjlog.variants import horse_seat_number

__all__ = ["WinFlow"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class WinFlow:
    """The wins and the end of one hand, applied to its position."""

    __slots__ = ("pos", "claims", "choices", "blood", "call_transfer_on")

    def __init__(self, pos: Position, claims: Claims, choices: Choices):
        self.pos = pos
        self.claims = claims
        self.choices = choices
        self.blood = pos.spec.blood_battle  # winners leave, play goes on
        self.call_transfer_on = pos.spec.call_transfer(pos.rules)

    def apply_win(self, ev: Event, seq: int) -> None:
        """A win event: value it, record it and queue its payments (and 呼叫转移);
        a self-draw or 十老头 ends its batch at once, a window's wins when it closes."""
        st = self.pos
        s, t, kind = ev.seat, ev.tile, ev.kind
        assert s is not None and t is not None and kind is not None  # a win names them
        method = Method(kind)
        w = self.claims.window
        sc: Score | None
        payer: int | None
        if method is Method.SHILAOTOU:
            sc = self.claims.shilaotou_score(s, t)
            payer = None
            payers = [o for o in range(st.n) if o != s]
        elif method is Method.SELF_DRAW:
            # the acting seat's win on its drawn tile: scored once per state
            # (options() and the checked path asked already)
            sc = (
                self.choices.self_draw_score(seq)
                if s == st.turn and t == st.drawn
                else self.claims.win_score(s, t, method)
            )
            if sc is None:
                raise IllegalEvent("win_legal", f"seat {s} cannot win by self-draw now")
            if sc.feeder_pays:
                payer = self.choices.kong_feeder(s)
                payers = [payer]
            else:
                payer = None
                payers = [o for o in range(st.n) if o != s and not st.won[o]]
        else:
            assert w is not None  # a win on a discard or a kong claims its window
            sc = w.wins[s]
            payer = w.from_seat
            payers = [payer]
            if method is Method.ROBBED_KONG and not w.winners:
                self.undo_kong(w)
        if w is None or not w.winners:  # the first win on this tile
            st.ledger.new_tile(w.from_seat if w is not None else None)
            if w is not None and method in (Method.DISCARD, Method.ROBBED_KONG):
                st.won_tiles.append(t)
                if method is Method.DISCARD:
                    st.seats.take_discard(w.from_seat)
        st.pending += st.ledger.add_win(seq, s, payer, t, str(method), sc, payers)
        if self.call_transfer_on and method is Method.DISCARD and w is not None:
            self.call_transfer(w, s)
        if w is not None:
            w.winners.append(s)
            return
        # a self-draw (or 十老头) is a batch of its own
        self.after_wins([s], s)

    def call_transfer(self, w: Window, s: int) -> None:
        """呼叫转移: on 杠上炮, the kong player's kong money goes to the first winner."""
        st = self.pos
        if not st.kong_this_turn or w.winners:
            return
        d = w.from_seat
        kong = next((m for m in reversed(st.melds[d]) if m.is_kong), None)
        if kong is None:
            return
        st.pending += st.ledger.move_kong_money(d, kong.tile, s)

    def undo_kong(self, w: Window) -> None:
        """A robbed kong does not happen."""
        assert w.kong_kind is not None  # a rob window names the kong's kind
        self.pos.seats.undo_kong(w.from_seat, w.tile, w.kong_kind)

    def after_window_wins(self, w: Window) -> None:
        """The window closes on its wins."""
        self.after_wins(list(w.winners), w.from_seat)

    def after_wins(self, batch: list[int], d: int) -> None:
        """Move on after a batch of wins on one tile (or a self-draw)."""
        st = self.pos
        st.seats.win(batch)
        if not self.blood:
            self.horses(batch)
            self.end()
            return
        active = st.active_seats()
        if len(active) <= 1:
            self.end()
            return
        if st.live == 0:
            self.exhaust()
            return
        last = max(batch, key=self.claims.rank[d].__getitem__)
        st.turn = st.seats.next_active(last)
        st.need_tail = False
        st.after_pon = False
        st.phase = Phase.DRAW

    def end(self) -> None:
        """The hand is over: seat compensation, after every other payment, then the end."""
        st = self.pos
        st.pending += st.spec.compensation(st)
        st.pending.append(Event(END))

    def horses(self, batch: list[int]) -> None:
        """买马: the horses turned from the tail, and each hit's payments."""
        st = self.pos
        k = st.spec.horses(st.rules)
        if not k or st.live == 0:
            return
        take = min(k, st.live)
        horses = tuple(st.wall[st.back - i] for i in range(take))
        st.pending.append(Event(HORSE, None, None, None, None, horses))
        n = st.n
        for h in horses:
            num = horse_seat_number(h)
            if num > n:
                continue
            seat = (st.dealer + num - 1) % n
            if seat in batch:
                st.pending += st.ledger.horse_payments(seat)

    def exhaust(self) -> None:
        """The hand ends by exhaustion: the variant's payments, then the end."""
        st = self.pos
        st.exhausted = True
        st.phase = Phase.DRAW
        st.pending.extend(st.spec.settle_exhaustion(st))
        self.end()
