"""The checks of one hand, in order (docs/rules/README.md, 'What the auditor checks').

1. the wall is a permutation of the variant's tile set (``wall_permutation``);
2. the dice give the logged break (``dice_break``);
3. the root seed reproduces the hand seed, the wall, the dice and (hand 0) the
   first dealer (``hand_seed``, ``seed_wall``, ``seed_dice``, ``first_dealer``,
   ``dealer_rolls``), only when the log's ``rng`` is :data:`mjlog.rng.RNG`;
4. every event, stepped through :class:`~mjlog.state.HandState` by
   :func:`mjlog.replay.run_checked`, which calls the one checked step
   :meth:`HandState.try_apply <mjlog.state.HandState.try_apply>` and names the
   rule an event breaks (``draw_tile``, ``illegal_action``, ``out_of_turn``,
   ``skipped_forced_win``, ``transfer``, …); the first discrepancy ends the
   hand's event checks. No rule is restated here;
5. the tables against the events and the state (:mod:`mjlog.audit.tables`); the
   money (win totals, deltas) against the books the rules keep: the replayed
   state, or, when the log's only faults are forced transfers, the state that
   applied the rules' own transfer (:meth:`HandState.auto`) in place of each.

A malformed row is a finding (``malformed_hand``), never a traceback.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mjlog.audit.report import HandFindings, Problem
from mjlog.audit.tables import (
    check_against_state,
    check_tables,
    first_diff,
    next_dealer_from_rows,
)
from mjlog.engine import Dealt, deal_wall
from mjlog.events import TRANSFER, Event
from mjlog.logio.files import shard_path
from mjlog.logio.shards import LoggedEvents
from mjlog.replay import Check, Discrepancy, play_wall, run_checked, to_event, truncated
from mjlog.rng import RNG
from mjlog.rules import Rules
from mjlog.state import HandState
from mjlog.tiles import fmt_tile
from mjlog.variants import break_position, wall_tiles

__all__ = ["HandResult", "RunContext", "audit_hand", "name_files", "rules_of"]


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a worker needs to audit a hand of one run (picklable)."""

    run: str
    run_id: str | None
    variant: str
    rules: Mapping[str, Any]
    seed: int | None
    rng: str | None
    events: bool


@dataclass(slots=True)
class HandResult:
    """One hand audited: its findings, the events checked, and what the run-level
    checks need (its key and dealers)."""

    problems: list[Problem]
    events: int
    key: tuple[int, int, int]
    dealer: int | None
    next_dealer: int | None
    file: str | None = None  # the hands file the row was read from


_WINS_CHECKS = frozenset(
    {
        Check.WINS_ROWS,
        Check.WIN_EVENT,
        Check.WIN_SEAT,
        Check.WIN_FROM_SEAT,
        Check.WIN_TILE,
        Check.WIN_METHOD,
        Check.WIN_PATTERNS,
        Check.WIN_FAN,
        Check.WIN_MULTIPLIER,
        Check.WIN_POINTS,
        Check.WIN_TOTAL,
        Check.WIN_CAPPED,
    }
)
_TRANSFERS_CHECKS = frozenset({Check.TRANSFERS_TABLE, Check.TRANSFER_ROW})


def name_files(r: HandResult, shard: int, events: bool) -> None:
    """Fill in the Parquet file of each finding of a hand: the wins or transfers file
    for a row of theirs, the events file for an event (a seq), else the hands file."""
    r.file = shard_path("hands", shard)
    for p in r.problems:
        if p.file is not None:
            continue
        if p.check in _WINS_CHECKS:
            p.file = shard_path("wins", shard)
        elif p.check in _TRANSFERS_CHECKS:
            p.file = shard_path("transfers", shard)
        elif p.seq is not None and events:
            p.file = shard_path("events", shard)
        else:
            p.file = r.file


_RULES_CACHE: dict[tuple[str, str], Rules] = {}
_LAST_RULES: list[tuple[RunContext, Rules]] = []  # the last one: every hand of a chunk shares it


def rules_of(ctx: RunContext) -> Rules:
    """The run's :class:`Rules`, built once per process and kept."""
    if _LAST_RULES and _LAST_RULES[0][0] is ctx:
        return _LAST_RULES[0][1]
    key = (ctx.variant, json.dumps(ctx.rules, sort_keys=True))
    r = _RULES_CACHE.get(key)
    if r is None:
        r = _RULES_CACHE[key] = Rules.recorded(ctx.variant, ctx.rules)
    _LAST_RULES[:] = [(ctx, r)]
    return r


def _counts_diff(got: Iterable[int], want: Iterable[int]) -> str:
    g, w = Counter(got), Counter(want)
    extra = g - w
    missing = w - g

    def show(c: Counter[Any]) -> str:
        return " ".join(
            f"{fmt_tile(t) if isinstance(t, int) and 0 <= t < 34 else t}×{k}"
            for t, k in sorted(c.items(), key=lambda x: str(x[0]))
        )

    parts = []
    if extra:
        parts.append(f"extra {show(extra)}")
    if missing:
        parts.append(f"missing {show(missing)}")
    return "; ".join(parts)


def audit_hand(
    ctx: RunContext,
    hand: Mapping[str, Any],
    events: Sequence[Sequence[Any]] | LoggedEvents | None,
    wins: Sequence[Mapping[str, Any]],
    transfers: Sequence[Mapping[str, Any]],
    dealt: Dealt | None = None,
) -> HandResult:
    """Every check of one hand. ``events`` None means the run logged no events.
    ``dealt`` is what the seed gives the hand, when the caller dealt it already
    (:func:`mjlog.engine.deal_walls`, for a batch of hands)."""
    out = HandFindings(ctx.run, ctx.run_id, hand)
    rules = rules_of(ctx)
    n = rules.n
    try:
        checked = _audit(out, ctx, rules, n, hand, events, wins, transfers, dealt)
    except Exception as e:  # a malformed row is a finding, never a traceback
        out.add(Check.MALFORMED_HAND, f"{type(e).__name__}: {e}", "rows of the declared shape")
        checked = 0
    return HandResult(out.problems, checked, out.key, hand.get("dealer"), hand.get("next_dealer"))


def _audit(
    out: HandFindings,
    ctx: RunContext,
    rules: Rules,
    n: int,
    hand: Mapping[str, Any],
    events: Sequence[Sequence[Any]] | LoggedEvents | None,
    wins: Sequence[Mapping[str, Any]],
    transfers: Sequence[Mapping[str, Any]],
    dealt: Dealt | None,
) -> int:
    m, _rot, k = out.key
    if not _identity(out, ctx, n, hand):  # 0. identity
        return 0
    dealer = hand["dealer"]
    seqs, evs = _logged(events)
    wall, dice = _wall_and_dice(out, rules, n, hand, dealt)  # 1. the wall, 2. dice → break
    _check_seed(out, ctx, rules, hand, wall, dice, dealer, m, k, dealt)  # 3. the seed
    state, checked, stop = _replay(out, rules, hand, wall, dice, evs, seqs)  # 4. the events
    # 5. the tables
    done = state if state is not None and stop is None and state.over else None
    books = done
    if done is None and state is not None and evs is not None:
        books = _rules_books(state, evs, checked, stop)
    if stop is not None and books is None:
        _tables_before(out, stop.seq or 0, rules, n, hand, evs, wins, transfers)
        return checked
    check_tables(out, rules, n, hand, evs, wins, transfers, done, books)
    if state is not None and stop is None and evs is not None:
        check_against_state(out, hand, state, wins, evs)
    elif evs is None:
        exp = next_dealer_from_rows(rules, hand, wins)
        if exp is not None and hand["next_dealer"] != exp:
            out.add(Check.NEXT_DEALER, f"S{hand['next_dealer']}", f"S{exp}")
    return checked


def _identity(out: HandFindings, ctx: RunContext, n: int, hand: Mapping[str, Any]) -> bool:
    """The hand's ids, players, agents and dealer; False when the dealer is no seat
    (nothing else can be checked)."""
    if ctx.run_id is not None and hand.get("run_id", ctx.run_id) != ctx.run_id:
        out.add(Check.HAND_IDS, f"run_id {hand.get('run_id')}", f"the manifest's {ctx.run_id}")
    if hand.get("variant", ctx.variant) != ctx.variant:
        out.add(Check.HAND_IDS, f"variant {hand.get('variant')}", f"the manifest's {ctx.variant}")
    if hand["players"] != n:
        out.add(Check.PLAYERS, hand["players"], f"{n} players (rules)")
    if len(hand["agents"]) != n:
        out.add(Check.AGENTS, f"{len(hand['agents'])} agents", f"one per seat ({n})")
    dealer = hand["dealer"]
    if not 0 <= dealer < n:
        out.add(Check.DEALER, dealer, f"a seat 0..{n - 1}")
        return False
    return True


def _logged(
    events: Sequence[Sequence[Any]] | LoggedEvents | None,
) -> tuple[list[int], list[Event] | None]:
    """The logged events' seqs and events (None: the run logged no events)."""
    if events is None:
        return [], None
    if isinstance(events, LoggedEvents):
        return events.seqs, events.events
    return [e[0] if len(e) == 8 else i for i, e in enumerate(events)], [to_event(e) for e in events]


def _wall_and_dice(
    out: HandFindings, rules: Rules, n: int, hand: Mapping[str, Any], dealt: Dealt | None
) -> tuple[list[int], tuple[int, ...]]:
    """The wall is a permutation of the tile set, the dice give the logged break."""
    full = wall_tiles(rules)
    N = len(full)
    wall = list(hand["wall"] or ())
    if wall:
        # the seed's wall (dealt already in a batch) is a permutation by construction
        if (dealt is None or dealt.wall != wall) and sorted(wall) != list(full):
            out.add(
                Check.WALL_PERMUTATION,
                f"a wall of {len(wall)} tiles: {_counts_diff(wall, full)}",
                f"a permutation of the {N}-tile set",
            )
    else:
        out.note(
            Check.WALL_PERMUTATION,
            "not applicable: the wall is not logged; it is rebuilt from the deal and the draws",
        )
    dealer = hand["dealer"]
    dice = tuple(hand["dice"])
    if len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
        out.add(Check.DICE_BREAK, f"dice {list(dice)}", "two dice, 1..6 each")
    else:
        b = break_position(rules.variant, dice, dealer, n, N)
        if hand["break"] != b:
            out.add(
                Check.DICE_BREAK,
                f"break {hand['break']} for dice {list(dice)} and dealer S{dealer}",
                f"break {b}",
            )
    return wall, dice


def _replay(
    out: HandFindings,
    rules: Rules,
    hand: Mapping[str, Any],
    wall: list[int],
    dice: tuple[int, ...],
    evs: list[Event] | None,
    seqs: list[int],
) -> tuple[HandState | None, int, Discrepancy | None]:
    """Every event through the one checked step, to the first discrepancy: the state
    (None when none was built), the events checked, and the discrepancy."""
    if evs is None:
        out.note(
            Check.EVENTS,
            "not logged (--events none): event legality, win scoring and "
            "the hands row replay are not checked; wall, dice, seed, transfers, deltas, "
            "winners, win totals and the next dealer are",
        )
        return None, 0, None
    N = len(wall_tiles(rules))
    on_wall, wall_problems = play_wall(rules, wall, evs)
    for p in wall_problems:
        out.add(Check.DRAWN_TILES, p, f"draws that fit one {N}-tile wall")
    if seqs != list(range(len(seqs))):
        i = first_diff(seqs, range(len(seqs)))
        out.add(Check.EVENT_SEQ, f"seq {seqs[i]} at position {i}", f"seq {i}", seq=i)
        return None, 0, Discrepancy(i, Check.EVENT_SEQ, "", "")
    # (the dice as logged: a bad pair is already a finding, the replay still runs)
    state = HandState(rules, on_wall, hand["dealer"], cast(tuple[int, int], dice), hand["break"])
    checked, stop = run_checked(state, evs)
    if stop is None and not state.over:
        stop = truncated(state)
    if stop is not None:
        out.add(stop.check, stop.log, stop.rules, seq=stop.seq)
    return state, checked, stop


#: What a hand's tables hold that the rules decide only for a hand replayed to its
#: end: not checked past the first discrepancy (docs/rules/README.md).
NOT_CHECKED_AFTER_STOP = (
    "the events after it, the wins and transfers rows from it on, and the hand's "
    "deltas, winners, outcome, next dealer and wall_left (the replay stopped at "
    "the first discrepancy)"
)


def _tables_before(
    out: HandFindings,
    seq: int,
    rules: Rules,
    n: int,
    hand: Mapping[str, Any],
    evs: Sequence[Event] | None,
    wins: Sequence[Mapping[str, Any]],
    transfers: Sequence[Mapping[str, Any]],
) -> None:
    """The table checks of a hand whose replay stopped at ``seq``: the rows before it
    (and the event count) only, then a note of what was not checked. A finding about
    the rest would be a fact derived from a replay that did not happen."""
    before = len(out.problems)
    check_tables(out, rules, n, hand, evs, wins, transfers, None, None)
    out.problems[before:] = [
        p
        for p in out.problems[before:]
        if (p.seq is not None and p.seq < seq) or p.check == Check.HAND_N_EVENTS
    ]
    out.note(Check.NOT_CHECKED, f"after seq {seq}: {NOT_CHECKED_AFTER_STOP}", seq=seq)


def _rules_books(
    state: HandState, evs: Sequence[Event], i: int, stop: Discrepancy | None
) -> HandState | None:
    """The hand's books as the rules keep them, when the log went wrong only in
    forced transfers (an amount, a payer): ``state``, stopped at event ``i``, applies
    the rules' transfer (the engine's own, :meth:`HandState.auto`) in place of each
    and the log's events otherwise; None when the log went wrong another way. What a
    follow-up finding on the money quotes as what the rules say."""
    while stop is not None:
        exp = state.auto()
        if (
            stop.check != Check.TRANSFER
            or exp is None
            or exp.type != TRANSFER
            or i >= len(evs)
            or evs[i].type != TRANSFER
        ):
            return None
        state.apply(exp)
        n, stop = run_checked(state, evs[i + 1 :])
        i += 1 + n
    return state if state.over else None


def _check_seed(
    out: HandFindings,
    ctx: RunContext,
    rules: Rules,
    hand: Mapping[str, Any],
    wall: list[int],
    dice: tuple[int, ...],
    dealer: int,
    m: int,
    k: int,
    dealt: Dealt | None,
) -> None:
    if ctx.seed is None:
        out.note(Check.SEED, "not applicable: the log gives no root seed")
        return
    if ctx.rng != RNG:
        out.note(
            Check.SEED,
            f"not checked: the log's rng {ctx.rng!r} is not the one this mjlog implements ({RNG})",
        )
        return
    st = dealt or deal_wall(rules, ctx.seed, m, k, None if k == 0 else dealer)
    hs = st.hand_seed
    if hand["hand_seed"] != hs:
        out.add(
            Check.HAND_SEED, hand["hand_seed"], f"{hs} from seed {ctx.seed}, match {m}, hand {k}"
        )
    rolls = st.rolls
    if k == 0 and st.dealer != dealer:
        out.add(Check.FIRST_DEALER, f"S{dealer}", f"S{st.dealer} from the seed")
        return
    got_rolls = hand.get("dealer_rolls")
    if (list(got_rolls) if got_rolls is not None else None) != (
        list(rolls) if rolls is not None else None
    ):
        out.add(Check.DEALER_ROLLS, got_rolls, list(rolls) if rolls is not None else None)
    if tuple(st.dice) != dice:
        out.add(Check.SEED_DICE, list(dice), f"{list(st.dice)} from the seed")
    if not wall:
        out.note(Check.SEED_WALL, "not applicable: the wall is not logged")
    elif st.wall != wall:
        i = first_diff(wall, st.wall)
        got = fmt_tile(wall[i]) if i < len(wall) and 0 <= wall[i] < 34 else "-"
        want = fmt_tile(st.wall[i]) if i < len(st.wall) else "-"
        out.add(Check.SEED_WALL, f"wall[{i}] = {got}", f"wall[{i}] = {want} from the seed")
