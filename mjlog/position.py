"""A hand in play as plain data: the position every part of the hand reads.

:class:`Position` holds what a hand is at a moment: the rules and the deal, the
seats' tiles (:class:`~mjlog.seats.Seats`), the books
(:class:`~mjlog.ledger.Ledger`), where the wall is drawn to, whose turn and
which phase it is, the drawn tile, the replacement chain, the events logged and
the events due. It decides nothing and calls no part: the parts above it
(:class:`~mjlog.claims.Claims`, :class:`~mjlog.choices.Choices`,
:class:`~mjlog.wins.WinFlow`) each hold it and read it, and
:class:`~mjlog.state.HandState`, which owns it and them, changes it only while
it applies an event (WinFlow's share of that included). Types flow one way:
this module imports none of those.

The seats' lists and the ledger's books are bound here once as the position's
own (never rebound, changed only by their owners), so a part reads
``pos.hands[s]`` without a call. The variants' hooks that take "the state"
(:meth:`Variant.kong_money <mjlog.variants.base.Variant.kong_money>`,
``settle_exhaustion``, ``compensation``) are handed the position.

>>> from mjlog.rules import Rules
>>> pos = Position(Rules("yuxi"), range(108), dealer=1)
>>> pos.live, pos.phase.name, pos.turn, pos.hands is pos.seats.hands
(108, 'DEAL', 1, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mjlog.compiled import mypyc_attr
from mjlog.events import Event
from mjlog.ledger import Ledger, WinRecord
from mjlog.phase import Phase
from mjlog.seats import Seats

if TYPE_CHECKING:
    from mjlog.rules import Rules
    from mjlog.variants.base import Variant

__all__ = ["Position"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class Position:
    """One hand's data: seats are 0..n-1; hands are 34-count lists."""

    # slots: the hot paths read these all the time, and a slot is read fastest
    __slots__ = (
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
        "ledger",
        "deltas",
        "transfers",
        "wins",
        "winners",
        "front",
        "back",
        "phase",
        "turn",
        "need_tail",
        "after_pon",
        "drawn",
        "drawn_may_win",
        "chain",
        "chain_kongs",
        "kong_this_turn",
        "late",
        "pending",
        "events",
        "deal_next",
        "calls_made",
        "honor_run",
        "exhausted",
        "next_dealer",
        "horses",
        "due_draw",
        "replacing",
        "won_tiles",
    )

    def __init__(
        self,
        rules: Rules,
        wall: Iterable[int],
        dealer: int,
        dice: tuple[int, int] = (1, 1),
        break_pos: int = 0,
    ):
        n = rules.n
        self.rules = rules
        self.variant: str = rules.variant
        self.spec: Variant = rules.spec  # the variant's facts and hooks
        self.n: int = n
        self.wall = tuple(wall)
        self.dealer = dealer
        self.dice = tuple(dice)
        self.break_pos = break_pos
        self.seats = seats = Seats(n)  # the seats' tiles and their caches
        self.hands, self.melds, self.discards = seats.hands, seats.melds, seats.discards
        self.void, self.won, self.bonus = seats.void, seats.won, seats.bonus
        self.draws = seats.draws
        self.ledger = book = Ledger(n)  # money, transfers and the wins rows
        self.deltas, self.transfers = book.deltas, book.transfers
        self.wins: list[WinRecord] = book.wins
        self.winners = book.winners
        self.front = 0  # next live draw: wall[front]
        self.back = len(self.wall) - 1  # next tail draw: wall[back]
        self.phase = Phase.DEAL
        self.turn = dealer
        self.need_tail = False  # the turn's draw is from the tail (a kong's)
        self.after_pon = False
        self.drawn: int | None = None  # the tile this seat just drew
        self.drawn_may_win = True  # the drawn tile may complete the hand
        self.chain: str | None = None  # first link of the replacement chain
        self.chain_kongs = 0  # kongs in the chain (dian_gang_hua_link)
        self.kong_this_turn = False  # for 杠上炮
        self.late = False  # the added kong being declared is late
        self.pending: list[Event] = []  # events that must come next, in order
        self.events: list[Event] = []
        self.deal_next = 0  # seat index (from dealer) to deal next
        self.calls_made = False  # any pon or kong so far (地胡)
        self.honor_run = [0] * n  # yuxi 十老头 count
        self.exhausted = False
        self.next_dealer: int | None = None
        self.horses: tuple[int, ...] = ()
        self.due_draw: str | None = None  # huangmei: the draw due after dealt 发
        self.replacing = False  # huangmei: a 发's tail replacement is due
        self.won_tiles: list[int] = []  # discards / kong tiles that left play by a win

    @property
    def live(self) -> int:
        """Tiles left in the wall (both ends)."""
        return self.back - self.front + 1

    def active_seats(self) -> list[int]:
        """The seats that have not won."""
        return self.seats.active()

    def holds_void(self, seat: int) -> bool:
        """The seat holds a tile of its void suit (a 花猪)."""
        return self.seats.holds_void(seat)
