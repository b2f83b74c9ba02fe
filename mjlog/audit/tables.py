"""The tables of a hand against its events and the state they led to.

The log must agree with itself: the transfers table with the transfer events,
the wins rows with the win events, the hands row's deltas with the sum of the
transfers, its winners with the wins rows, a win's ``total`` with the transfers
that count toward it (:data:`mjlog.ledger.WIN_TOTAL_REASONS`). And with the
rules: every wins row as the replayed state recorded it, the hands row as the
state's outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import Any

from mjlog.audit.report import HandFindings
from mjlog.events import TRANSFER, WIN, Event, TransferReason
from mjlog.ledger import WIN_TOTAL_REASONS, win_totals
from mjlog.replay import Check, describe
from mjlog.rules import Rules
from mjlog.state import HandState
from mjlog.variants import next_dealer

__all__ = ["check_against_state", "check_tables", "first_diff", "next_dealer_from_rows"]

WIN_FIELDS = (
    "seat",
    "from_seat",
    "tile",
    "method",
    "win_order",
    "patterns",
    "fan",
    "multiplier",
    "points",
    "total",
    "capped",
)
_win_of_record, _win_of_row = attrgetter(*WIN_FIELDS), itemgetter(*WIN_FIELDS)
_PATTERNS = WIN_FIELDS.index("patterns")
_TOTAL_NAMES = [r.value for r in TransferReason if r in WIN_TOTAL_REASONS]
_TOTAL_TEXT = f"{', '.join(_TOTAL_NAMES[:-1])} and {_TOTAL_NAMES[-1]}"


def first_diff(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The first position where ``a`` and ``b`` differ (the shorter length if one
    is a prefix of the other)."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def _transfers_and_wins(
    evs: Sequence[Event], st: HandState | None
) -> tuple[list[tuple[Any, ...]], list[int]]:
    """The transfers table rows the transfer events imply, and the win events' seqs:
    what ``st``, the state that applied every event, recorded, or a scan of ``evs``."""
    if st is not None:
        return st.transfers, [rec.seq for rec in st.wins]
    rows, wins = [], []
    for i, e in enumerate(evs):
        t = e.type
        if t == TRANSFER:
            rows.append((i, e.from_seat, e.seat, e.amount, e.kind))  # payer → payee
        elif t == WIN:
            wins.append(i)
    return rows, wins


def check_tables(
    out: HandFindings,
    rules: Rules,
    n: int,
    hand: Mapping[str, Any],
    evs: Sequence[Event] | None,
    wins: Sequence[Mapping[str, Any]],
    transfers: Sequence[Mapping[str, Any]],
    done: HandState | None,
    books: HandState | None = None,
) -> None:
    """Checks of the log against itself (they need no replay; ``done``, the state
    after every event applied, saves scanning them again). ``books``, the state
    holding the money as the rules make it (:func:`mjlog.audit.checks.audit_hand`),
    is what the deltas and the win totals are set against when the log's own sums
    disagree: a finding then quotes the rules' figure, never the log's."""
    rows = [(t["seq"], t["payer"], t["payee"], t["amount"], t["reason"]) for t in transfers]
    if evs is not None:
        _against_events(out, hand, evs, wins, rows, done)
    _hand_row(out, n, hand, wins, rows, books)
    _win_totals(out, evs, wins, rows, books)


_Row = tuple[Any, Any, Any, Any, Any]  # a transfers row: (seq, payer, payee, amount, reason)


def _against_events(
    out: HandFindings,
    hand: Mapping[str, Any],
    evs: Sequence[Event],
    wins: Sequence[Mapping[str, Any]],
    rows: list[_Row],
    done: HandState | None,
) -> None:
    """The event count, the transfers rows and the wins rows against the events."""
    if hand["n_events"] != len(evs):
        out.add(Check.HAND_N_EVENTS, hand["n_events"], f"{len(evs)} events logged")
    want, win_seqs = _transfers_and_wins(evs, done)
    if rows != want:
        i = first_diff(rows, want)
        got = rows[i] if i < len(rows) else "no row"
        exp = want[i] if i < len(want) else "no row"
        seq = want[i][0] if i < len(want) else rows[i][0]
        out.add(Check.TRANSFERS_TABLE, _tr(got), f"{_tr(exp)} (the transfer event)", seq=seq)
    by_seq = {w["seq"]: w for w in wins}
    for i in win_seqs:
        if i not in by_seq:
            out.add(
                Check.WINS_ROWS,
                "no wins row",
                f"a row for the win event {describe(evs[i])}",
                seq=i,
            )
    for w in wins:
        s = w["seq"]
        e = evs[s] if 0 <= s < len(evs) else None
        if e is None or e.type != WIN:
            out.add(Check.WINS_ROWS, f"a wins row at seq {s}", "a win event there", seq=s)
        elif (e.seat, e.tile, e.kind) != (w["seat"], w["tile"], w["method"]):
            out.add(
                Check.WIN_EVENT,
                f"seat {w['seat']} tile {w['tile']} {w['method']}",
                f"{describe(e)} (the event)",
                seq=s,
            )


def _hand_row(
    out: HandFindings,
    n: int,
    hand: Mapping[str, Any],
    wins: Sequence[Mapping[str, Any]],
    rows: list[_Row],
    books: HandState | None,
) -> None:
    """Each transfers row between two seats; the hand's deltas, winners and outcome
    against the rows."""
    for seq, payer, payee, amount, reason in rows:
        if not (0 <= payer < n and 0 <= payee < n) or payer == payee or amount <= 0:
            out.add(
                Check.TRANSFER_ROW,
                _tr((seq, payer, payee, amount, reason)),
                "a positive amount between two different seats",
                seq=seq,
            )
    d = [0] * n
    for _s, payer, payee, amount, _r in rows:
        if 0 <= payer < n and 0 <= payee < n:
            d[payer] -= amount
            d[payee] += amount
    logged = list(hand["deltas"])
    if books is not None:
        _against_books(
            out, Check.HAND_DELTAS, logged, d, list(books.deltas), "the sum of the transfers"
        )
    elif logged != d:
        out.add(Check.HAND_DELTAS, logged, f"{d} (the sum of the transfers)")
    winners = [w["seat"] for w in sorted(wins, key=lambda w: w["seq"])]
    if list(hand["winners"]) != winners:
        out.add(Check.HAND_WINNERS, list(hand["winners"]), f"{winners} (the wins rows)")
    outcome = "win" if wins else "draw"
    if hand["outcome"] != outcome:
        out.add(Check.HAND_OUTCOME, hand["outcome"], outcome)


def _win_totals(
    out: HandFindings,
    evs: Sequence[Event] | None,
    wins: Sequence[Mapping[str, Any]],
    rows: list[_Row],
    books: HandState | None,
) -> None:
    """Each win's total against its transfers (and, without events, its points)."""
    # totals: a win's transfers follow its event, before the next win of another tile
    ws = sorted(wins, key=lambda w: w["seq"])
    recomputed = {rec.seq: rec.total for rec in books.wins} if books is not None else {}
    totals = win_totals(
        [(w["seq"], w["seat"], w["win_order"]) for w in ws],
        [(s, payee, a, r) for s, _p, payee, a, r in rows],
    )
    for w, total in zip(ws, totals, strict=True):
        nxt = min((v["seq"] for v in ws if v["win_order"] > w["win_order"]), default=1 << 31)
        if w["seq"] in recomputed:
            _against_books(
                out,
                Check.WIN_TOTAL,
                w["total"],
                total,
                recomputed[w["seq"]],
                f"its {_TOTAL_TEXT} transfers",
                seq=w["seq"],
            )
        elif w["total"] != total:
            out.add(
                Check.WIN_TOTAL, w["total"], f"{total} (its {_TOTAL_TEXT} transfers)", seq=w["seq"]
            )
        if evs is None:
            bad = [
                a
                for s, _p, payee, a, r in rows
                if w["seq"] < s < nxt and payee == w["seat"] and r == "win" and a != w["points"]
            ]
            if bad:
                out.add(
                    Check.WIN_POINTS, w["points"], f"{bad[0]} (its win transfers)", seq=w["seq"]
                )


def _against_books(
    out: HandFindings,
    check: str,
    logged: Any,
    summed: Any,
    rules: Any,
    what: str,
    seq: int | None = None,
) -> None:
    """A logged figure (a win's total, a hand's deltas) and the sum of the logged
    transfers, set against the rules' figure: one finding when either differs,
    quoting the rules' figure as what the rules say."""
    if logged != rules:
        out.add(check, logged, f"{rules} ({what}, as the rules make them)", seq=seq)
    elif summed != rules:
        out.add(
            check,
            f"{summed} ({what} in the log; the row says {logged})",
            f"{rules} ({what}, as the rules make them)",
            seq=seq,
        )


def _tr(row: Any) -> str:
    if not isinstance(row, tuple):
        return str(row)
    seq, payer, payee, amount, reason = row
    return f"seq {seq}: S{payer} pays S{payee} {amount} ({reason})"


def next_dealer_from_rows(
    rules: Rules, hand: Mapping[str, Any], wins: Sequence[Mapping[str, Any]]
) -> int | None:
    """The next dealer the wins rows imply (for a run logged without events), or
    None when they cannot say."""
    ws = sorted(wins, key=lambda w: w["seq"])
    first = [w for w in ws if w["win_order"] == 1]
    payer = first[0]["from_seat"] if first else None
    if len(first) > 1 and payer is None:
        return None
    try:
        return next_dealer(
            rules, hand["dealer"], [w["seat"] for w in ws], [w["seat"] for w in first], payer
        )
    except TypeError:
        return None


def check_against_state(
    out: HandFindings,
    hand: Mapping[str, Any],
    st: HandState,
    wins: Sequence[Mapping[str, Any]],
    evs: Sequence[Event],
) -> None:
    """The tables against the state the events led to (the rules' own figures)."""
    logged = {w["seq"]: w for w in wins}
    for rec in st.wins:
        row = logged.get(rec.seq)
        if row is None:
            continue  # reported as wins_rows
        want = list(_win_of_record(rec))
        want[_PATTERNS] = list(rec.patterns)
        got = list(_win_of_row(row))
        if got[_PATTERNS] is not None:
            got[_PATTERNS] = list(got[_PATTERNS])
        if got == want:
            continue
        for f, g, w in zip(WIN_FIELDS, got, want, strict=True):
            if g != w:
                check = Check.WIN_ORDER if f == "win_order" else Check(f"win_{f}")
                out.add(check, g, w, seq=rec.seq)
    recomputed = {rec.seq for rec in st.wins}
    for s in logged:
        if s not in recomputed:
            out.add(Check.WINS_ROWS, f"a wins row at seq {s}", "no win there", seq=s)
    row = st.outcome_row()
    for col, check in (
        ("deltas", Check.HAND_DELTAS),
        ("winners", Check.HAND_WINNERS),
        ("next_dealer", Check.NEXT_DEALER),
        ("wall_left", Check.WALL_LEFT),
        ("n_events", Check.HAND_N_EVENTS),
        ("outcome", Check.HAND_OUTCOME),
    ):
        got = hand[col]
        got = list(got) if isinstance(got, list | tuple) else got
        if got != row[col]:
            out.add(check, got, row[col])
