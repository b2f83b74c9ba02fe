"""What a pon or a kong does to a hand: the discard taken, the meld, the window a
kong opens for robbing, the kong money and the replacement draw.

:class:`Calls` is the part of :meth:`mjlog.state.HandState.apply` that pon and
kong events run, and it settles a kong nobody robbed when the state closes the
robbing window. It changes the hand's :class:`~mjlog.position.Position` and
asks the :class:`~mjlog.claims.Claims` (the window a pon or an exposed kong
takes, the window a kong opens, the pass locks a seat's own kong ends); it holds
both, which are below it, and nothing of the state. It is called only while an
event applies.
"""

from __future__ import annotations

from typing import Any

from mjlog.claims import Claims
from mjlog.compiled import mypyc_attr
from mjlog.events import Event, transfer
from mjlog.phase import Phase
from mjlog.position import Position

__all__ = ["Calls", "kong_payments"]

_DRAW, _ACT, _ROB = Phase.DRAW, Phase.ACT, Phase.ROB


def kong_payments(st: Any, s: int, kind: str, t: int, late: bool) -> list[tuple[int, int, str]]:
    """(payer, amount, reason) of the kong money seat ``s`` earns when its kong of
    ``kind`` on ``t`` stands: the variant's table (:meth:`Variant.kong_money
    <mjlog.variants.base.Variant.kong_money>`), and nothing for a late added kong
    (``late``) under ``late_added_kong = no_pay``, in every variant. ``st``: the
    position, or anything with its ``rules``, ``spec``, ``n``, ``melds`` and ``won``
    (:func:`simulate.agents.values.kong_money` asks with a stand-in)."""
    if late and st.rules["late_added_kong"] == "no_pay":
        return []
    payments: list[tuple[int, int, str]] = st.spec.kong_money(st, s, kind, t, late)
    return payments


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class Calls:
    """The pons and kongs of one hand, applied to its position."""

    __slots__ = ("pos", "claims", "rob_exposed", "own_kong_ends_locks")

    def __init__(self, pos: Position, claims: Claims):
        self.pos = pos
        self.claims = claims
        self.rob_exposed = bool(pos.rules["rob_exposed_kong"])
        self.own_kong_ends_locks = pos.spec.pon_lock  # 过手胡 and 过手碰 end at it too

    def pon(self, ev: Event) -> None:
        """Seat ``ev.seat`` pons the open discard and acts next."""
        s, t = ev.seat, ev.tile
        assert s is not None and t is not None  # an applied pon is legal
        w = self.claims.take(s)
        p = self.pos
        p.honor_run[w.from_seat] = 0
        p.seats.pon(s, t, w.from_seat)
        p.calls_made = True
        p.after_pon = True
        p.drawn = None
        p.chain = None
        p.kong_this_turn = False
        p.turn = s
        p.phase = _ACT

    def kong(self, ev: Event) -> None:
        """A kong: exposed on the open discard, added to a pon, or concealed; an
        exposed or added kong may open a window for robbing, else it stands."""
        s, t, kind = ev.seat, ev.tile, ev.kind
        assert s is not None and t is not None and kind is not None  # an applied kong is legal
        p = self.pos
        p.calls_made = True
        if kind == "exposed":
            w = self.claims.take(s)  # locks who passed; 过手碰: ends s's own locks
            p.honor_run[w.from_seat] = 0
            p.seats.kong(s, t, kind, w.from_seat)
            p.turn = s
            p.chain = None
            p.kong_this_turn = False
            if self.rob_exposed:
                barred = set(w.wins) | {w.from_seat}
                if self._open_rob_window(s, t, "exposed", barred):
                    return
            self.kong_stands(s, t, kind)
            return
        if self.own_kong_ends_locks:
            self.claims.end_locks(s)
        p.seats.kong(s, t, kind)
        if kind == "added":
            p.late = t != p.drawn
            if self._open_rob_window(s, t, "added", {s}):
                return
        self.kong_stands(s, t, kind)

    def _open_rob_window(self, k: int, t: int, kind: str, barred: set[int]) -> bool:
        if not self.claims.open_rob_window(k, t, kind, barred):
            return False
        self.pos.phase = _ROB
        return True

    def kong_stands(self, s: int, t: int, kind: str) -> None:
        """The kong was not robbed: pay kong money, then the tail draw."""
        p = self.pos
        if p.chain is None:
            p.chain = "kong"
            p.chain_kongs = 0
        p.chain_kongs += 1
        p.kong_this_turn = True
        p.drawn = None
        for payer, amount, reason in kong_payments(p, s, kind, t, kind == "added" and p.late):
            p.pending.append(transfer(payer, s, amount, reason))
            p.ledger.kong_paid(payer, s, amount, t)
        p.turn = s
        p.need_tail = True
        p.phase = _DRAW
