"""Replay a logged hand event by event, through the one transition function.

A replay rebuilds :class:`~mjlog.state.HandState` from the logged wall, dice,
dealer and break under the run's resolved rules, then takes the *checked* step
for every logged event (python-chess: check, then push): :func:`apply_checked`
applies the event when :meth:`HandState.try_apply` finds it allowed (closing a
claim window the log has moved past), and otherwise names the rule it breaks
with :func:`check_step`, which compares a forced event with
:meth:`HandState.auto` and a choice with :meth:`HandState.options`. No rule is
re-implemented here; the auditor (:mod:`mjlog.audit`), the viewer and the
importer use the same step.

>>> from mjlog.rules import Rules
>>> from mjlog.engine import play_hand
>>> from mjlog.agent import GreedyAgent
>>> p = play_hand(Rules("yuxi"), [GreedyAgent() for _ in range(4)], seed=3, match=0, hand=0,
...               dealer=None)
>>> r = Replay.from_parts(p.state.rules, p.state.hand_row(), p.state.events)
>>> last = r.state_at(len(p.state.events) - 1)
>>> last.event.type, list(last.deltas) == p.state.deltas, last.over
('end', True, True)
>>> first = r.state_at(0)
>>> first.event.type, len(first.hands[first.event.seat]), first.live   # 14 off the wall
('deal', 14, 122)
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from mjlog.errors import MjlogError
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
)
from mjlog.rules import Rules
from mjlog.state import PASS, HandState, IllegalEvent
from mjlog.tiles import fmt, fmt_tile, glyph, glyphs
from mjlog.variants import wall_tiles

if TYPE_CHECKING:
    from mjlog.logio import RunFiles

__all__ = [
    "Check",
    "Discrepancy",
    "Replay",
    "ReplayError",
    "Snapshot",
    "check_step",
    "run_checked",
    "run_events",
    "describe",
    "fmt_ordered",
    "load_hand",
    "rebuild_wall",
    "summarise",
    "to_event",
]


class Check(StrEnum):
    """What the replayer and the auditor check: the ``check`` of every finding."""

    AFTER_END = "after_end"  # an event after the end event
    SKIPPED_FORCED_WIN = "skipped_forced_win"  # a forced win (尾牌强制) is missing
    FORCED_WIN = "forced_win"  # a forced win logged with the wrong fields
    DEAL_TILES = "deal_tiles"  # a deal event that is not the wall's tiles for that seat
    DRAW_TILE = "draw_tile"  # a draw that is not the next tile from the right end
    BONUS_TILE = "bonus_tile"  # a 发 laid out (or not) where the rules say otherwise
    HORSE_TILES = "horse_tiles"  # horses that are not the wall's tail tiles
    TRANSFER = "transfer"  # a payment that is not the one due next
    END = "end"  # the end event missing or misplaced
    UNEXPECTED_EVENT = "unexpected_event"  # an event where nothing can happen
    ILLEGAL_ACTION = "illegal_action"  # a choice not among the seat's legal options
    OUT_OF_TURN = "out_of_turn"  # a seat acting when it is not its turn
    WIN_ORDER = "win_order"  # winners on one tile out of turn order, or a wrong win_order
    APPLY_ERROR = "apply_error"  # an event the transition function rejects
    EXPECTED_EVENT = "expected_event"  # an event other than the one that must come next
    WIN_LEGAL = "win_legal"  # a win that is not legal
    # a claim the rules refuse, by the rule it breaks (Claims.claim_refusal)
    PLAIN_ON_DISCARD = "plain_on_discard"  # yuxi: a plain hand (平胡 only) on a discard
    PASS_LOCK = "pass_lock"  # a discard win after a passed win (弃胡, 过手胡)
    PON_LOCK = "pon_lock"  # a pon of a tile passed since the last draw (过手碰)
    VOID_SUIT = "void_suit"  # a pon or kong of a tile of the void suit
    FLOWER_PIG = "flower_pig"  # a win holding or on the void suit (花猪)
    MIN_FAN = "min_fan"  # huangmei: a win below min_fan
    VOID_FIRST = "void_first"  # xuezhan: a discard of another suit while holding the void suit
    DEAD_GREEN = "dead_green"  # huangmei: a claim of a 发, or a win holding a dealt 发
    BARRED_ROB = "barred_rob"  # a kong that may not be robbed, or by that seat
    EVENT_TYPE = "event_type"  # an unknown event type
    EVENT_SEQ = "event_seq"  # events.seq not 0, 1, 2, …
    TRUNCATED_EVENTS = "truncated_events"  # the events stop before the hand is over
    MALFORMED_HAND = "malformed_hand"  # rows that cannot be read as a hand
    HAND_IDS = "hand_ids"  # run_id or variant columns that disagree with the manifest
    PLAYERS = "players"  # hands.players not the rules' number of players
    AGENTS = "agents"  # not one agent per seat
    DEALER = "dealer"  # a dealer that is not a seat
    WALL_PERMUTATION = "wall_permutation"  # the wall is not a permutation of the tile set
    DRAWN_TILES = "drawn_tiles"  # drawn tiles that fit no wall (a wall rebuilt from the draws)
    DICE_BREAK = "dice_break"  # dice that do not give the logged break
    SEED = "seed"  # the seed checks (notes: not checked / not applicable)
    HAND_SEED = "hand_seed"  # hands.hand_seed not derived from the root seed
    FIRST_DEALER = "first_dealer"  # hand 0's dealer not the one the seed draws
    DEALER_ROLLS = "dealer_rolls"  # huangmei first-dealer rolls not the seed's
    SEED_DICE = "seed_dice"  # dice not the seed's
    SEED_WALL = "seed_wall"  # the wall not the seed's shuffle
    EVENTS = "events"  # the events table (note: not logged)
    TRANSFERS_TABLE = "transfers_table"  # a transfers row that is not its transfer event
    TRANSFER_ROW = "transfer_row"  # a transfer that is not a positive amount between two seats
    WINS_ROWS = "wins_rows"  # a win event without its wins row, or a row without its event
    WIN_EVENT = "win_event"  # a wins row that disagrees with its win event
    WIN_SEAT = "win_seat"  # wins.seat
    WIN_FROM_SEAT = "win_from_seat"  # wins.from_seat
    WIN_TILE = "win_tile"  # wins.tile
    WIN_METHOD = "win_method"  # wins.method
    WIN_PATTERNS = "win_patterns"  # wins.patterns
    WIN_FAN = "win_fan"  # wins.fan
    WIN_MULTIPLIER = "win_multiplier"  # wins.multiplier
    WIN_POINTS = "win_points"  # wins.points
    WIN_TOTAL = "win_total"  # wins.total not the sum of its transfers
    WIN_CAPPED = "win_capped"  # wins.capped
    HAND_DELTAS = "hand_deltas"  # hands.deltas not the sum of the transfers
    HAND_WINNERS = "hand_winners"  # hands.winners
    HAND_OUTCOME = "hand_outcome"  # hands.outcome
    HAND_N_EVENTS = "hand_n_events"  # hands.n_events
    WALL_LEFT = "wall_left"  # hands.wall_left
    NEXT_DEALER = "next_dealer"  # hands.next_dealer not the rules' next dealer
    MANIFEST = "manifest"  # manifest.json missing or unreadable
    MANIFEST_FILES = "manifest_files"  # a file not as the manifest lists it (rows, sha256, schema)
    MANIFEST_RULES = "manifest_rules"  # the manifest's rules not valid resolved rules
    MANIFEST_PLAYERS = "manifest_players"  # manifest.players not the rules' players
    MANIFEST_RUN_ID = "manifest_run_id"  # run_id not the hash of the run's arguments
    MANIFEST_KEYS = "manifest_keys"  # manifest keys of the run's arguments missing
    READ_ERROR = "read_error"  # a file that cannot be read (corrupt, truncated, schema drift)
    ORPHAN_ROWS = "orphan_rows"  # rows for hands that are not in the shard's hands file
    HAND_SET = "hand_set"  # hands missing, unexpected or duplicated
    DEALER_SEQUENCE = "dealer_sequence"  # a dealer not following the last hand
    NOT_CHECKED = "not_checked"  # (note) what a hand's replay, stopped early, leaves unchecked
    REPRODUCE = "reproduce"  # (--reproduce) the log is not what its recorded agents play
    NOT_REPRODUCIBLE = "not_reproducible"  # (--reproduce) the run's agents cannot be replayed


# The check named when a forced event (HandState.auto) is not what the log says.
AUTO_CHECKS = {
    DEAL: Check.DEAL_TILES,
    DRAW: Check.DRAW_TILE,
    BONUS: Check.BONUS_TILE,
    HORSE: Check.HORSE_TILES,
    TRANSFER: Check.TRANSFER,
    END: Check.END,
    WIN: Check.FORCED_WIN,
}


class ReplayError(MjlogError):
    """A logged event the rules do not allow; carries the :class:`Discrepancy`."""

    def __init__(self, where: str, d: Discrepancy):
        super().__init__(
            f"{where}: seq {d.seq}: {d.check}: the log says {d.log}; the rules say {d.rules}"
        )
        self.discrepancy = d


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """The first event of a hand that the rules do not allow, and why."""

    seq: int | None
    check: str
    log: str
    rules: str


# ------------------------------------------------------------------ formatting


def fmt_ordered(tiles: Sequence[int]) -> str:
    """Notation that keeps the order (a wall, a deal): consecutive tiles of one
    suit share a letter. :func:`mjlog.tiles.parse` reads it back in order.

    >>> fmt_ordered([0, 13, 13, 29, 1])
    '1m55p3z2m'
    >>> from mjlog.tiles import parse
    >>> parse(fmt_ordered([26, 0, 33])) == [26, 0, 33]
    True
    """
    out: list[str] = []
    cur = None
    for t in tiles:
        s = "mpsz"[t // 9]
        if cur is not None and s != cur:
            out.append(cur)
        out.append(str(t % 9 + 1))
        cur = s
    if cur is not None:
        out.append(cur)
    return "".join(out)


def _tile(t: int | None, notation: bool) -> str:
    if t is None:
        return "-"
    return fmt_tile(t) if notation else glyph(t)


def _tiles(ts: Sequence[int] | None, notation: bool, ordered: bool = False) -> str:
    if not ts:
        return "-"
    if notation:
        return fmt_ordered(ts) if ordered else fmt(ts)
    return "".join(glyph(t) for t in ts) if ordered else glyphs(ts)


def describe(ev: Event, notation: bool = True) -> str:
    """One line for an event.

    >>> describe(Event("pon", 2, 13, 1))
    'S2 pon 5p from S1'
    >>> describe(Event("transfer", 1, None, 0, "win", None, 4))
    'S0 pays S1 4 (win)'
    >>> describe(Event("win", 3, 0, 1, "discard", (0, 0, 0)))
    'S3 win 1m (discard from S1) with 111m'
    """
    t = ev.type
    tile = _tile(ev.tile, notation) if ev.tile is not None else None
    seat = f"S{ev.seat}"
    if t == DEAL:
        return f"{seat} deal {_tiles(ev.tiles, notation)}"
    if t == VOID:
        return f"{seat} void {ev.kind}"
    if t == DRAW:
        return f"{seat} draw {tile} ({ev.kind})"
    if t == BONUS:
        return f"{seat} bonus {tile}"
    if t == DISCARD:
        return f"{seat} discard {tile}"
    if t == PON:
        return f"{seat} pon {tile} from S{ev.from_seat}"
    if t == KONG:
        src = f" from S{ev.from_seat}" if ev.from_seat is not None else ""
        return f"{seat} kong {tile} ({ev.kind}{src})"
    if t == WIN:
        src = f" from S{ev.from_seat}" if ev.from_seat is not None else ""
        return f"{seat} win {tile} ({ev.kind}{src}) with {_tiles(ev.tiles, notation)}"
    if t == HORSE:
        return f"horses {_tiles(ev.tiles, notation, ordered=True)}"
    if t == TRANSFER:
        return f"S{ev.from_seat} pays {seat} {ev.amount} ({ev.kind})"
    if t == END:
        return "end"
    return repr(ev)


def summarise(options: Sequence[Event], notation: bool = True) -> str:
    """A seat's legal choices in one line (discards grouped).

    >>> summarise([Event("win", 0, 4, None, "self_draw", ()), Event("discard", 0, 4),
    ...            Event("discard", 0, 9)])
    'win 5m (self_draw), discard 5m1p'
    """
    parts: list[str] = []
    discards: list[int] = []
    for ev in options:
        if ev.type == DISCARD and ev.tile is not None:
            discards.append(ev.tile)
        elif ev.type == WIN:
            parts.append(f"win {_tile(ev.tile, notation)} ({ev.kind})")
        elif ev.type == KONG:
            parts.append(f"kong {_tile(ev.tile, notation)} ({ev.kind})")
        elif ev.type == PON:
            parts.append(f"pon {_tile(ev.tile, notation)}")
        elif ev.type == VOID:
            parts.append(f"void {ev.kind}")
        else:
            parts.append(describe(ev, notation))
    if discards:
        parts.append("discard " + _tiles(discards, notation))
    return ", ".join(parts) if parts else "nothing"


# ------------------------------------------------------------------ the checked step


def to_event(row: Sequence[Any]) -> Event:
    """A logged events row (with or without its leading seq) as an :class:`Event`."""
    if len(row) == 8:
        row = row[1:]
    typ, seat, tile, from_seat, kind, tiles, amount = row
    return Event(
        typ, seat, tile, from_seat, kind, tuple(tiles) if tiles is not None else None, amount
    )


def _close_passed_window(st: HandState, ev: Event, seq: int, notation: bool) -> Discrepancy | None:
    """Close a claim window the log has moved past (everyone passed), unless that
    skipped a forced win: that discrepancy."""
    w = st.window
    if w is not None and not st.pending and not st.claims.fits(ev):
        forced = st.auto()
        if forced is not None and forced.type == WIN:
            return Discrepancy(
                seq,
                Check.SKIPPED_FORCED_WIN,
                describe(ev, notation),
                f"must be {describe(forced, notation)} (forced win)",
            )
        st.apply(PASS)  # everyone passed: the log has moved on
    return None


def _against_forced(
    st: HandState, ev: Event, exp: Event, seq: int, notation: bool
) -> Discrepancy | None:
    """``ev`` where the forced event ``exp`` is due: None when they are equal."""
    if ev == exp:
        return None
    check: str
    if exp.type == WIN and not (ev.type == WIN and ev.seat == exp.seat):
        check = Check.SKIPPED_FORCED_WIN
    else:
        d = _refused_claim(st, ev, notation)
        if d is not None:
            return d
        check = AUTO_CHECKS.get(exp.type) or exp.type
    return Discrepancy(seq, check, describe(ev, notation), f"must be {describe(exp, notation)}")


def check_step(st: HandState, ev: Event, notation: bool = True) -> Discrepancy | None:
    """The reference check, and the explanation of a refusal: bring ``st`` to the
    point where the logged ``ev`` happens and check it there, by
    :meth:`HandState.auto` and :meth:`HandState.options` alone.

    A claim window the log has moved past is closed first (once it is checked
    that no forced win was skipped). Then a forced event must equal
    :meth:`HandState.auto` exactly, and a choice must be one of the seat's
    :meth:`HandState.options`. Returns the discrepancy, or None when ``ev`` may
    be applied. The state is not changed by a failed check beyond the closing of
    a window the log has left.
    """
    seq = len(st.events)
    if st.over:
        return Discrepancy(seq, Check.AFTER_END, describe(ev, notation), "the hand is over")
    skipped = _close_passed_window(st, ev, seq, notation)
    if skipped is not None:
        return skipped
    exp = st.auto()
    if exp is not None:
        return _against_forced(st, ev, exp, seq, notation)
    if st.is_legal(ev) and not (ev.type == WIN and st.window is not None and st.window.winners):
        return None  # the common case; the slow path below explains a refusal
    opts = st.options()
    seat = ev.seat if isinstance(ev.seat, int) else None
    mine = opts.get(seat) if seat is not None else None
    if not opts:
        return Discrepancy(
            seq,
            Check.UNEXPECTED_EVENT,
            describe(ev, notation),
            f"no event is due in phase {st.phase.name}",
        )
    if mine is None or ev not in mine:
        d = _refused_claim(st, ev, notation)
        if d is not None:
            return d
    if seat is None or mine is None:
        who = "; ".join(f"S{s} may: {summarise(o, notation)}" for s, o in sorted(opts.items()))
        check = Check.ILLEGAL_ACTION if st.window is not None else Check.OUT_OF_TURN
        return Discrepancy(seq, check, describe(ev, notation), who)
    if ev not in mine:
        why = st.choices.discard_refusal(ev)
        if why is not None:
            return Discrepancy(seq, Check(why[0]), describe(ev, notation), why[1])
        return Discrepancy(
            seq,
            Check.ILLEGAL_ACTION,
            describe(ev, notation),
            f"S{ev.seat} may: {summarise(mine, notation)}",
        )
    w = st.window
    if ev.type == WIN and w is not None and w.winners:
        rank = st.claims.rank[w.from_seat]  # claim order, stated once (Claims.rank)
        if any(rank[s] > rank[seat] for s in w.winners):
            return Discrepancy(
                seq,
                Check.WIN_ORDER,
                describe(ev, notation),
                f"winners on one tile come in turn order from "
                f"S{w.from_seat}; S{w.winners[-1]} is already listed",
            )
    return None


def is_claim(ev: Event) -> bool:
    """A claim on a discard or a kong: a pon, an exposed kong, a win on a discard
    or robbing a kong."""
    return (
        ev.type == PON
        or (ev.type == KONG and ev.kind == "exposed")
        or (ev.type == WIN and ev.kind in ("discard", "robbed_kong"))
    )


def _refused_claim(st: HandState, ev: Event, notation: bool) -> Discrepancy | None:
    """The rule a refused claim breaks, asked of the state just before the discard
    or kong it claims (rebuilt from the events the log gave so far); None when
    ``ev`` is no claim on the last discard or kong, or the rules would allow it."""
    if not is_claim(ev):
        return None
    events = st.events
    k = len(events) - 1
    while k >= 0 and events[k].type in (WIN, TRANSFER):  # wins on the tile, kong money
        k -= 1
    if k < 0 or events[k].type not in (DISCARD, KONG) or events[k].tile != ev.tile:
        return None
    before = HandState(
        st.rules,
        st.wall,
        st.dealer,
        st.dice,  # type: ignore[arg-type]  # #39
        st.break_pos,
    )
    applied, d = run_checked(before, events[:k], notation)
    if d is not None or applied != k:
        return None
    why = before.claims.claim_refusal(events[k], ev)
    if why is None:
        return None
    return Discrepancy(len(events), Check(why[0]), describe(ev, notation), why[1])


def apply_checked(st: HandState, ev: Event, notation: bool = True) -> Discrepancy | None:
    """The one checked step: apply ``ev`` if the rules allow it now
    (:meth:`HandState.try_apply`, the only path that accepts), else return the
    discrepancy naming the rule it breaks (:func:`check_step`, the plain
    reference, which only explains). The replayer, the auditor, the viewer and
    the importer all step through here; tests/logs/test_checked_step.py holds the two
    equal on thousands of mutated events."""
    seq = len(st.events)
    try:
        if st.try_apply(ev):
            return None
    except Exception as e:  # a malformed event must be a finding, never a traceback
        return _apply_error(seq, ev, e, notation)
    return _refusal(st, ev, seq, notation)


def _refusal(st: HandState, ev: Event, seq: int, notation: bool) -> Discrepancy:
    """Why :meth:`HandState.try_apply` refused ``ev`` at ``seq``: the reference
    check's discrepancy."""
    try:
        d = check_step(st, ev, notation)
    except Exception as e:
        return _apply_error(seq, ev, e, notation)
    if d is None:  # never: the test above holds the checked apply to the reference
        d = Discrepancy(
            seq,
            Check.APPLY_ERROR,
            describe(ev, notation),
            "refused by the checked step, allowed by its reference",
        )
    return d


def _apply_error(seq: int, ev: Event, e: Exception, notation: bool) -> Discrepancy:
    if isinstance(e, IllegalEvent):
        check = e.check if e.check in Check._value2member_map_ else Check.APPLY_ERROR
        return Discrepancy(seq, Check(check), describe(ev, notation), str(e))
    return Discrepancy(seq, Check.APPLY_ERROR, describe(ev, notation), f"{type(e).__name__}: {e}")


def run_checked(
    st: HandState, events: Sequence[Event], notation: bool = True
) -> tuple[int, Discrepancy | None]:
    """:func:`apply_checked` over ``events`` in order, stopping at the first
    discrepancy: (events applied, discrepancy or None). A log that stops before
    the hand is over is left to the caller (:func:`truncated`)."""
    # apply_checked inlined: this loop runs once per logged event of an audit
    try_apply = st.try_apply
    for i, ev in enumerate(events):
        seq = len(st.events)
        try:
            if try_apply(ev):
                continue
        except Exception as e:  # a malformed event must be a finding, never a traceback
            return i, _apply_error(seq, ev, e, notation)
        return i, _refusal(st, ev, seq, notation)
    return len(events), None


def run_events(
    st: HandState,
    events: Sequence[Event],
    on_step: Callable[[int, Event, HandState], None] | None = None,
    notation: bool = True,
) -> tuple[int, Discrepancy | None]:
    """Check and apply ``events`` in order; stop at the first discrepancy.

    Returns (events applied, discrepancy or None). A log that stops before the
    hand is over is the discrepancy ``truncated_events``.
    """
    for i, ev in enumerate(events):
        d = apply_checked(st, ev, notation)
        if d is not None:
            return i, d
        if on_step is not None:
            on_step(i, ev, st)
    if not st.over:
        return len(events), truncated(st, notation)
    return len(events), None


def truncated(st: HandState, notation: bool = True) -> Discrepancy:
    """The discrepancy of a log that stops before its hand is over."""
    n = len(st.events)
    exp = st.auto()
    due = (
        describe(exp, notation)
        if exp is not None
        else summarise([e for o in st.options().values() for e in o], notation)
    )
    return Discrepancy(
        n, Check.TRUNCATED_EVENTS, f"{n} events, then nothing", f"the hand goes on: {due}"
    )


# ------------------------------------------------------------------ wall rebuilding


def play_wall(
    rules: Rules, logged: list[int], events: Sequence[Event]
) -> tuple[list[int], list[str]]:
    """The wall a hand is replayed on: the ``logged`` one, or when the log gives
    none, the one its deal and draws imply (:func:`rebuild_wall`, with its problems)."""
    if logged:
        return logged, []
    return rebuild_wall(rules, events)


def rebuild_wall(rules: Rules, events: Sequence[Event]) -> tuple[list[int], list[str]]:
    """A wall consistent with a log that gives the drawn tiles but not the wall.

    Deal events fill their positions (docs/rules/README.md, 'The wall, the dice and
    the break'), live draws the front from 13n + 1 on, tail draws and horses the
    back; the undrawn rest gets the remaining tiles of the variant's set in sorted
    order. Returns the wall and the problems met (a tile seen more often than the
    set holds, ends crossing).
    """
    full = list(wall_tiles(rules))
    N, n = len(full), rules.n
    pos: list[int | None] = [None] * N
    problems: list[str] = []
    deals = [e for e in events if e.type == DEAL]
    for i, e in enumerate(deals[:n]):
        idx = [4 * (r * n + i) + k for r in range(3) for k in range(4)] + [12 * n + i]
        if i == 0:
            idx.append(13 * n)
        if e.tiles is None or len(e.tiles) != len(idx):
            problems.append(f"deal {i} gives {len(e.tiles or ())} tiles, expected {len(idx)}")
            continue
        for p, t in zip(idx, e.tiles, strict=True):
            pos[p] = t
    front, back = 13 * n + 1, N - 1
    take: list[int | None]
    for e in events:
        if e.type == DRAW:
            if e.kind == "tail":
                take = [e.tile]
            else:
                if front <= back:
                    pos[front] = e.tile
                front += 1
                continue
        elif e.type == HORSE and e.tiles:
            take = list(e.tiles)
        else:
            continue
        for tile in take:
            if front <= back:
                pos[back] = tile
            back -= 1
    if front > back + 1:
        problems.append(f"the log draws {N - (back - front + 1)} tiles from a wall of {N}")
    seen = Counter(t for t in pos if t is not None)
    rest = Counter(full)
    rest.subtract(seen)
    over = {t: -c for t, c in rest.items() if c < 0}
    if over:
        problems.append(
            "tiles seen more often than the tile set holds: "
            + ", ".join(
                f"{fmt_tile(t)} ×{seen[t]}" if 0 <= t < 34 else f"{t} ×{seen[t]}"
                for t in sorted(over)
            )
        )
    fill = iter(sorted(t for t, c in rest.items() if c > 0 for _ in range(c)))
    wall = [t if t is not None else next(fill, 0) for t in pos]
    return wall, problems


# ------------------------------------------------------------------ snapshots


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The table right after event ``seq``: what a replayer shows and a test reads.

    ``options`` are the legal choices per seat at this moment (claims in an open
    window, the acting seat's turn), ``forced`` the event no one chooses that
    comes next (:meth:`HandState.auto`), both taken from the state itself.
    """

    seq: int
    event: Event
    phase: str
    turn: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    melds: tuple[tuple[tuple[str, int, int | None], ...], ...]
    discards: tuple[tuple[int, ...], ...]
    bonus: tuple[int, ...]
    void: tuple[int | None, ...]
    won: tuple[bool, ...]
    live: int
    deltas: tuple[int, ...]
    winners: tuple[int, ...]
    window: dict[str, Any] | None
    options: dict[int, tuple[Event, ...]]
    forced: Event | None
    over: bool
    next_dealer: int | None

    @classmethod
    def of(cls, seq: int, ev: Event, st: HandState) -> Snapshot:
        w = st.window
        window = None
        if w is not None:
            window = {
                "kind": w.kind,
                "tile": w.tile,
                "from_seat": w.from_seat,
                "wins": sorted(w.wins),
                "pons": list(w.pons),
                "kongs": list(w.kongs),
                "forced": w.forced,
                "last": w.last,
                "winners": list(w.winners),
            }
        over = st.over
        forced = None if over else st.auto()
        opts = {} if over or forced is not None else st.options()
        live = st.live
        if st.pos.deal_next < st.n:  # mid-deal: the state moves the front once, at the end
            live -= sum(sum(h) for h in st.hands)
        return cls(
            seq=seq,
            event=ev,
            phase=st.phase.name,
            turn=st.turn,
            dealer=st.dealer,
            hands=tuple(tuple(t for t in range(34) for _ in range(h[t])) for h in st.hands),
            melds=tuple(tuple((str(m.kind), m.tile, m.from_seat) for m in ms) for ms in st.melds),
            discards=tuple(tuple(d) for d in st.discards),
            bonus=tuple(st.bonus),
            void=tuple(st.void),
            won=tuple(st.won),
            live=live,
            deltas=tuple(st.deltas),
            winners=tuple(st.winners),
            window=window,
            options={s: tuple(o) for s, o in sorted(opts.items())},
            forced=forced,
            over=over,
            next_dealer=st.next_dealer,
        )

    def to_json(self, notation: bool = False) -> dict[str, Any]:
        """A JSON-ready dict; tiles as ids, or in notation with ``notation``."""

        def tl(ts: Sequence[int], ordered: bool = False) -> str | list[int]:
            return (fmt_ordered(ts) if ordered else fmt(ts)) if notation else list(ts)

        def t1(t: int | None) -> str | int | None:
            return fmt_tile(t) if notation and t is not None else t

        def evj(ev: Event) -> dict[str, Any]:
            d = {k: v for k, v in ev._asdict().items() if v is not None}
            if "tile" in d:
                d["tile"] = t1(d["tile"])
            if "tiles" in d:
                d["tiles"] = tl(d["tiles"], ordered=ev.type in (DEAL, HORSE))
            return d

        win = None
        if self.window is not None:
            win = dict(self.window, tile=t1(self.window["tile"]))
        return {
            "seq": self.seq,
            "event": evj(self.event),
            "text": describe(self.event, True),
            "phase": self.phase,
            "turn": self.turn,
            "dealer": self.dealer,
            "hands": [tl(h) for h in self.hands],
            "melds": [
                [{"kind": k, "tile": t1(t), "from_seat": f} for k, t, f in ms] for ms in self.melds
            ],
            "discards": [tl(d, ordered=True) for d in self.discards],
            "bonus": list(self.bonus),
            "void": ["mps"[v] if v is not None else None for v in self.void],
            "won": list(self.won),
            "wall_left": self.live,
            "deltas": list(self.deltas),
            "winners": list(self.winners),
            "window": win,
            "options": {str(s): [evj(e) for e in o] for s, o in self.options.items()},
            "forced": evj(self.forced) if self.forced is not None else None,
            "over": self.over,
            "next_dealer": self.next_dealer,
        }


# ------------------------------------------------------------------ the replay


class Replay:
    """One logged hand, ready to step through.

    ``hand`` is the hands row (dealer, dice, break, wall, …), ``events`` the
    logged events in order. A hand logged without its wall (an import that
    gave only the drawn tiles) is replayed on a wall rebuilt from its draws.
    """

    def __init__(
        self,
        rules: Rules,
        hand: Mapping[str, Any],
        events: Sequence[Event],
        wins: Sequence[Mapping[str, Any]] = (),
        transfers: Sequence[Mapping[str, Any]] = (),
        where: str = "hand",
    ):
        self.rules = rules
        self.hand = dict(hand)
        self.events = list(events)
        self.wins = list(wins)
        self.transfers = list(transfers)
        self.where = where
        logged = list(self.hand.get("wall") or ())
        self.wall_logged = bool(logged)
        self.wall, self.wall_problems = play_wall(rules, logged, self.events)

    @classmethod
    def from_parts(
        cls, rules: Rules, hand: Mapping[str, Any], events: Sequence[Any], **kw: Any
    ) -> Replay:
        return cls(rules, hand, [e if isinstance(e, Event) else to_event(e) for e in events], **kw)

    def new_state(self) -> HandState:
        h = self.hand
        return HandState(self.rules, self.wall, h["dealer"], tuple(h["dice"]), h["break"])

    def states(self, notation: bool = True) -> Iterator[tuple[int, Event, Snapshot]]:
        """(seq, event, snapshot after it) for every event; raises :class:`ReplayError`
        at the first event the rules do not allow."""
        st = self.new_state()
        for seq, ev in enumerate(self.events):
            d = apply_checked(st, ev, notation)
            if d is not None:
                raise ReplayError(self.where, d)
            yield seq, ev, Snapshot.of(seq, ev, st)
        if not st.over:
            raise ReplayError(self.where, truncated(st, notation))

    def state_at(self, seq: int) -> Snapshot:
        """The snapshot right after event ``seq``."""
        if not 0 <= seq < len(self.events):
            raise MjlogError(
                f"{self.where}: no event {seq}; the hand has "
                f"{len(self.events)} events (0..{len(self.events) - 1})"
            )
        st = self.new_state()
        for i, ev in enumerate(self.events[: seq + 1]):
            d = apply_checked(st, ev)
            if d is not None:
                raise ReplayError(self.where, d)
            if i == seq:
                return Snapshot.of(seq, ev, st)
        raise AssertionError("unreachable")

    def final_state(self) -> HandState:
        """The state after every event (checked); raises :class:`ReplayError`."""
        st = self.new_state()
        _, d = run_events(st, self.events)
        if d is not None:
            raise ReplayError(self.where, d)
        return st


def _shards_with_match(run: RunFiles, match: int) -> list[int]:
    """The shards whose hands file may hold ``match``, from the footers' statistics
    (every shard when a file has none)."""
    import pyarrow.parquet as pq

    from mjlog.logio import LogError

    out = []
    for shard in sorted(run.shards):
        path = run.path / run.shards[shard]["hands"]
        try:
            md = pq.ParquetFile(path).metadata
            col = md.schema.to_arrow_schema().get_field_index("match")
            stats = [md.row_group(i).column(col).statistics for i in range(md.num_row_groups)]
        except Exception as e:  # noqa: BLE001 - any footer damage: name the file
            raise LogError(f"{path}: not a readable Parquet file: {e}") from None
        if any(st is None or not st.has_min_max or st.min <= match <= st.max for st in stats):
            out.append(shard)
    return out


def load_hand(run_dir: str | os.PathLike[str], match: int, hand: int, rotation: int = 0) -> Replay:
    """Read one hand of a run directory (hands row, events, wins, transfers).

    The manifest is verified first (:class:`mjlog.logio.RunFiles`), and the files
    read, those of the shard holding the hand, have their sha256 checked.
    """
    from mjlog.logio import LogError, RunFiles, read_table

    run = RunFiles(run_dir)
    manifest = run.manifest
    rules = run.rules()
    where = f"{run_dir} match {match} rotation {rotation} hand {hand}"
    if not run.has_events:
        raise LogError(f"{run_dir}: written without events (--events none): nothing to replay")
    flt = [("match", "=", match), ("rotation", "=", rotation), ("hand", "=", hand)]
    found = []
    for shard in _shards_with_match(run, match):
        rows = read_table(run.file("hands", shard), "hands", filters=flt).to_pylist()
        found += [(shard, r) for r in rows]
    if not found:
        m = manifest
        raise LogError(
            f"{where}: no such hand in the run (matches 0..{m.get('matches', 0) - 1}"
            f", hands 0..{m.get('hands_per_match', 0) - 1}"
            + (f", rotations 0..{m.get('players', 1) - 1}" if m.get("duplicate") else "")
            + ")"
        )
    if len(found) > 1:
        raise LogError(f"{where}: {len(found)} hands rows with this key")
    shard, row = found[0]

    def rows_of(table: str) -> list[dict[str, Any]]:
        tab = read_table(run.file(table, shard), table, filters=flt).to_pylist()
        return sorted(tab, key=lambda r: r["seq"])

    ev_rows = rows_of("events")
    cols = ("type", "seat", "tile", "from_seat", "kind", "tiles", "amount")
    events = [to_event([r[c] for c in cols]) for r in ev_rows]
    return Replay(rules, row, events, rows_of("wins"), rows_of("transfers"), where=where)
