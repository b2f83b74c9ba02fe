"""A hand's money and wins: transfers, each seat's delta, the ``wins`` rows.

:class:`~mjlog.state.HandState` owns one :class:`Ledger` and changes it only
while applying an event: a win records its row and queues its payments, a
transfer event moves money. The ledger decides nothing about the rules; it
keeps the books the rules write into.

>>> book = Ledger(4)
>>> book.new_tile(payer_of_first=2)
>>> from mjlog.scoring.base import Score
>>> pays = book.add_win(9, 1, 2, 5, "discard", Score(True, ("qidui",), 1, None, 4), [2])
>>> [(e.from_seat, e.seat, e.amount, e.kind) for e in pays]
[(2, 1, 4, 'win')]
>>> book.pay(10, 2, 1, 4, "win")
>>> book.deltas, book.wins[0].total, book.winners
([0, 4, -4, 0], 4, [1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mjlog.compiled import mypyc_attr
from mjlog.events import Event, TransferReason, transfer
from mjlog.scoring.base import Score

__all__ = ["WIN_TOTAL_REASONS", "Ledger", "WinRecord", "win_totals"]

#: The transfers that count toward a win's ``total``: the win's own payments, its
#: horses and the kong money moved to it by 呼叫转移.
WIN_TOTAL_REASONS = frozenset(
    {TransferReason.WIN, TransferReason.HORSE, TransferReason.CALL_TRANSFER}
)


def win_totals(
    wins: Sequence[tuple[int, int, int]], transfers: Sequence[tuple[int, int, int, str]]
) -> list[int]:
    """Each win's ``total`` as the logged transfers give it (docs/log-schema.md): the
    sum of the transfers to its winner, of a reason in :data:`WIN_TOTAL_REASONS`,
    after its win event and before the next win of a later ``win_order``.

    ``wins`` are (seq, seat, win_order); ``transfers`` (seq, payee, amount, reason).

    >>> win_totals([(5, 1, 1), (9, 2, 2)], [(6, 1, 4, "win"), (7, 1, 2, "kong_exposed"),
    ...                                     (10, 2, 3, "win"), (11, 1, 8, "horse")])
    [4, 3]
    """
    out = []
    for seq, seat, order in wins:
        nxt = min((s for s, _w, o in wins if o > order), default=1 << 62)
        out.append(
            sum(
                a
                for s, payee, a, r in transfers
                if seq < s < nxt and payee == seat and r in WIN_TOTAL_REASONS
            )
        )
    return out


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
@dataclass(slots=True)
class WinRecord:
    """One row of the ``wins`` table, filled as the win and its transfers apply."""

    seq: int
    seat: int
    from_seat: int | None
    tile: int
    method: str
    win_order: int
    patterns: tuple[str, ...]
    fan: int
    multiplier: int | None
    points: int
    total: int
    capped: bool


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # see mjlog/compiled.py
class Ledger:
    """The books of one hand of ``n`` seats."""

    __slots__ = (
        "deltas",
        "transfers",
        "wins",
        "winners",
        "first_batch",
        "first_payer",
        "win_order",
        "kong_receipts",
        "_batch",
        "_payers",
    )

    def __init__(self, n: int):
        self.deltas = [0] * n
        self.transfers: list[tuple[int, int, int, int, str]] = []  # seq, payer, payee, amt, why
        self.wins: list[WinRecord] = []
        self.winners: list[int] = []
        self.first_batch: list[int] = []  # the winners on the hand's first winning tile
        self.first_payer: int | None = None  # its discarder or kong player
        self.win_order = 0
        self.kong_receipts: list[list[int]] = []  # [payer, payee, amount, tile] for 退税
        self._batch: dict[int, WinRecord] = {}  # the wins on the current tile
        self._payers: dict[int, list[int]] = {}  # who pays each of them

    def new_tile(self, payer_of_first: int | None) -> None:
        """The first win on a new tile (or a self-draw) opens a batch."""
        self.win_order += 1
        self._batch = {}
        self._payers = {}
        if self.win_order == 1:
            self.first_payer = payer_of_first

    def add_win(
        self,
        seq: int,
        seat: int,
        payer: int | None,
        tile: int,
        method: str,
        sc: Score,
        payers: list[int],
    ) -> list[Event]:
        """Record a win (``payer``: who pays as the discarder, else None) and return
        its payments, one per payer in ``payers``."""
        if self.win_order == 1:
            self.first_batch.append(seat)
        self.winners.append(seat)
        rec = WinRecord(
            seq,
            seat,
            payer,
            tile,
            method,
            self.win_order,
            sc.patterns,
            sc.fan,
            sc.multiplier,
            sc.points,
            0,
            sc.capped,
        )
        self.wins.append(rec)
        self._batch[seat] = rec
        self._payers[seat] = payers
        if sc.points <= 0:
            return []
        return [transfer(p, seat, sc.points, TransferReason.WIN) for p in payers]

    def horse_payments(self, seat: int) -> list[Event]:
        """A horse pointing at ``seat``, a winner of the current batch: each payer of
        its win pays its points once more."""
        rec = self._batch[seat]
        if rec.points <= 0:
            return []
        return [transfer(p, seat, rec.points, TransferReason.HORSE) for p in self._payers[seat]]

    def kong_paid(self, payer: int, payee: int, amount: int, tile: int) -> None:
        """Kong money queued: remembered for 退税 and 呼叫转移."""
        self.kong_receipts.append([payer, payee, amount, tile])

    def move_kong_money(self, kong_player: int, tile: int, winner: int) -> list[Event]:
        """呼叫转移: the kong money ``kong_player`` got for its kong of ``tile`` goes
        to ``winner``; money moved this way is not refunded by 退税."""
        out = []
        for r in self.kong_receipts:
            if r[1] == kong_player and r[3] == tile and r[2] > 0:
                out.append(transfer(kong_player, winner, r[2], TransferReason.CALL_TRANSFER))
                r[2] = 0
        return out

    def pay(self, seq: int, payer: int, payee: int, amount: int, reason: str) -> None:
        """A transfer event: move the money, and count it toward the payee's win on
        the current tile when it is one of :data:`WIN_TOTAL_REASONS`."""
        self.deltas[payer] -= amount
        self.deltas[payee] += amount
        self.transfers.append((seq, payer, payee, amount, reason))
        if reason in WIN_TOTAL_REASONS:
            rec = self._batch.get(payee)
            if rec is not None:
                rec.total += amount
