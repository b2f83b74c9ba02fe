"""The auditor: check every hand of a run against the rules (RULES.md §5).

For each hand, in the order §5 lists them:

1. the wall is a permutation of the variant's tile set (``wall_permutation``);
2. the dice give the logged break (``dice_break``);
3. the root seed reproduces the hand seed, the wall, the dice and (hand 0) the
   first dealer (``hand_seed``, ``seed_wall``, ``seed_dice``, ``first_dealer``,
   ``dealer_rolls``), only when the log's ``rng`` is :data:`mjlog.rng.RNG`;
4. every event, stepped through :class:`~mjlog.state.HandState` by
   :func:`mjlog.replay.check_step`: forced events (deal, draws from the right
   end, 发, transfers, forced wins, horses, the end) must be exactly what the
   state gives, choices must be among the seat's legal options, no forced win
   skipped (``draw_tile``, ``illegal_action``, ``out_of_turn``,
   ``skipped_forced_win``, ``transfer``, …); the first discrepancy ends the
   hand's event checks;
5. the tables against the events and the state: every win's row
   (``win_patterns``, ``win_fan``, ``win_points``, …), the transfers table
   (``transfers_table``), the hands row (``hand_deltas``, ``hand_winners``,
   ``next_dealer``, ``wall_left``, ``hand_n_events``, ``hand_outcome``);

and for the run: the manifest (files, rows, checksums, rules, run id), the set
of hands, and the dealer passing from hand to hand (``dealer_sequence``).

A problem names the run, match, rotation, hand, seq, the Parquet file it was
read from, the check, what the log says and what the rules say. A file that
cannot be read is a problem naming the file, never a traceback. Hands are
checked in parallel worker processes.
"""

from __future__ import annotations

import csv
import gc
import io
import json
import os
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import repeat
from operator import attrgetter, itemgetter
from pathlib import Path
from sys import intern
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from mjlog.engine import Dealt, deal_wall, deal_walls
from mjlog.events import TRANSFER, WIN, Event
from mjlog.logio import (
    RUN_ID_KEYS,
    LogError,
    read_manifest,
    read_table,
    run_id,
    shard_path,
    verify_manifest,
)
from mjlog.replay import (
    Check,
    Discrepancy,
    describe,
    play_wall,
    run_checked,
    to_event,
    truncated,
)
from mjlog.rng import RNG
from mjlog.rules import Rules
from mjlog.rundir import RunFiles, write_atomic
from mjlog.schema import HAND_KEY, data_columns
from mjlog.state import HandState
from mjlog.tiles import fmt_tile
from mjlog.variants import break_position, next_dealer, wall_tiles

__all__ = ["Problem", "AuditResult", "RunContext", "audit_hand", "audit_runs", "write_report"]

WIN_FIELDS = ("seat", "from_seat", "tile", "method", "win_order", "patterns", "fan",
              "multiplier", "points", "total", "capped")
_win_of_record, _win_of_row = attrgetter(*WIN_FIELDS), itemgetter(*WIN_FIELDS)
_PATTERNS = WIN_FIELDS.index("patterns")
BATCH_HANDS = 100


@dataclass(slots=True)
class Problem:
    """One finding. ``level`` is ``problem`` (exit 1) or ``note`` (what was not
    checked, and why)."""

    run: str
    check: str
    log: str = ""
    rules: str = ""
    match: int | None = None
    rotation: int | None = None
    hand: int | None = None
    seq: int | None = None
    file: str | None = None
    run_id: str | None = None
    level: str = "problem"

    def line(self) -> str:
        where = [self.run]
        for k in ("match", "rotation", "hand", "seq"):
            v = getattr(self, k)
            if v is not None:
                where.append(f"{k} {v}")
        if self.file:
            where.append(self.file)
        text = f"{', '.join(where)}: {self.check}"
        if self.log:
            text += f": the log says {self.log}"
        if self.rules:
            text += f"; the rules say {self.rules}" if self.log else f": {self.rules}"
        return text


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
    problems: list[Problem]
    events: int
    key: tuple[int, int, int]
    dealer: int | None
    next_dealer: int | None
    file: str | None = None  # the hands file the row was read from


_WINS_CHECKS = frozenset({"wins_rows", "win_event", "win_seat", "win_from_seat", "win_tile",
                          "win_method", "win_patterns", "win_fan", "win_multiplier",
                          "win_points", "win_total", "win_capped"})
_TRANSFERS_CHECKS = frozenset({"transfers_table", "transfer_row"})


def _name_files(r: HandResult, shard: int, events: bool) -> None:
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


@dataclass(slots=True)
class AuditResult:
    runs: int = 0
    hands: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


# ------------------------------------------------------------------ one hand


_RULES_CACHE: dict[tuple, Rules] = {}
_LAST_RULES: list = [None, None]  # (context, rules): every hand of a chunk shares one


def _rules(ctx: RunContext) -> Rules:
    if _LAST_RULES[0] is ctx:
        return _LAST_RULES[1]
    key = (ctx.variant, json.dumps(ctx.rules, sort_keys=True))
    r = _RULES_CACHE.get(key)
    if r is None:
        r = _RULES_CACHE[key] = Rules(ctx.variant, ctx.rules)
    _LAST_RULES[:] = [ctx, r]
    return r


def _counts_diff(got: Iterable[int], want: Iterable[int]) -> str:
    g, w = Counter(got), Counter(want)
    extra = g - w
    missing = w - g

    def show(c: Counter) -> str:
        return " ".join(f"{fmt_tile(t) if isinstance(t, int) and 0 <= t < 34 else t}"
                        f"×{k}" for t, k in sorted(c.items(), key=lambda x: str(x[0])))
    parts = []
    if extra:
        parts.append(f"extra {show(extra)}")
    if missing:
        parts.append(f"missing {show(missing)}")
    return "; ".join(parts)


def _first_diff(a: Sequence, b: Sequence) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


class _Hand:
    """Collects a hand's problems (one per check and seq)."""

    def __init__(self, ctx: RunContext, row: Mapping[str, Any]):
        self.ctx = ctx
        self.key = (row.get("match"), row.get("rotation"), row.get("hand"))
        self.problems: list[Problem] = []
        self._seen: set[tuple[str, int | None]] = set()

    def add(self, check: str, log: Any, rules: Any, seq: int | None = None) -> None:
        if (check, seq) in self._seen:
            return
        self._seen.add((check, seq))
        m, r, h = self.key
        self.problems.append(Problem(self.ctx.run, check, str(log), str(rules), m, r, h, seq,
                                     run_id=self.ctx.run_id))

    def note(self, check: str, text: str) -> None:
        if (check, "note") in self._seen:
            return
        self._seen.add((check, "note"))
        m, r, h = self.key
        self.problems.append(Problem(self.ctx.run, check, "", text, m, r, h, None,
                                     run_id=self.ctx.run_id, level="note"))


class LoggedEvents(NamedTuple):
    """A hand's events rows, already split into their seq column and events."""

    seqs: list[int]
    events: list[Event]


def audit_hand(ctx: RunContext, hand: Mapping[str, Any], events: Sequence[Sequence] | None,
               wins: Sequence[Mapping[str, Any]],
               transfers: Sequence[Mapping[str, Any]], dealt: Dealt | None = None) -> HandResult:
    """Every check of one hand. ``events`` None means the run logged no events.
    ``dealt`` is what the seed gives the hand, when the caller dealt it already
    (:func:`mjlog.engine.deal_walls`, for a batch of hands)."""
    out = _Hand(ctx, hand)
    rules = _rules(ctx)
    n = rules.n
    try:
        checked = _audit(out, ctx, rules, n, hand, events, wins, transfers, dealt)
    except Exception as e:  # a malformed row is a finding, never a traceback
        out.add(Check.MALFORMED_HAND, f"{type(e).__name__}: {e}", "rows of the declared shape")
        checked = 0
    return HandResult(out.problems, checked, out.key, hand.get("dealer"),
                      hand.get("next_dealer"))


def _audit(out: _Hand, ctx: RunContext, rules: Rules, n: int, hand: Mapping[str, Any],
           events: Sequence[Sequence] | None, wins: Sequence[Mapping[str, Any]],
           transfers: Sequence[Mapping[str, Any]], dealt: Dealt | None) -> int:
    m, _rot, k = out.key
    # 0. identity
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
        return 0
    if events is None:
        evs = seqs = None
    elif isinstance(events, LoggedEvents):
        seqs, evs = events.seqs, events.events
    else:
        seqs = [e[0] if len(e) == 8 else i for i, e in enumerate(events)]
        evs = [to_event(e) for e in events]

    # 1. the wall
    full = wall_tiles(rules)
    N = len(full)
    wall = list(hand["wall"] or ())
    if wall:
        # the seed's wall (dealt already in a batch) is a permutation by construction
        if (dealt is None or dealt.wall != wall) and sorted(wall) != list(full):
            out.add(Check.WALL_PERMUTATION, f"a wall of {len(wall)} tiles: "
                    f"{_counts_diff(wall, full)}", f"a permutation of the {N}-tile set")
    else:
        out.note(Check.WALL_PERMUTATION, "not applicable: the wall is not logged; it is rebuilt "
                 "from the deal and the draws")
    # 2. dice → break
    dice = tuple(hand["dice"])
    if len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
        out.add(Check.DICE_BREAK, f"dice {list(dice)}", "two dice, 1..6 each")
    else:
        b = break_position(rules.variant, dice, dealer, n, N)
        if hand["break"] != b:
            out.add(Check.DICE_BREAK, f"break {hand['break']} for dice {list(dice)} and dealer "
                    f"S{dealer}", f"break {b}")
    # 3. the seed
    _check_seed(out, ctx, rules, hand, wall, dice, dealer, m, k, dealt)

    # 4. the events
    state = None
    checked = 0
    stop: Discrepancy | None = None
    if evs is None:
        out.note(Check.EVENTS, "not logged (--events none): event legality, win scoring and "
                 "the hands row replay are not checked; wall, dice, seed, transfers, deltas, "
                 "winners, win totals and the next dealer are")
    else:
        on_wall, wall_problems = play_wall(rules, wall, evs)
        for p in wall_problems:
            out.add(Check.DRAWN_TILES, p, f"draws that fit one {N}-tile wall")
        if seqs != list(range(len(seqs))):
            i = _first_diff(seqs, range(len(seqs)))
            out.add(Check.EVENT_SEQ, f"seq {seqs[i]} at position {i}", f"seq {i}", seq=i)
            stop = Discrepancy(i, Check.EVENT_SEQ, "", "")
        if stop is None:
            state = HandState(rules, on_wall, dealer, dice, hand["break"])
            checked, stop = run_checked(state, evs)
            if stop is None and not state.over:
                stop = truncated(state)
            if stop is not None:
                out.add(stop.check, stop.log, stop.rules, seq=stop.seq)

    # 5. the tables
    done = state if state is not None and stop is None and state.over else None
    _check_tables(out, rules, n, hand, evs, wins, transfers, done)
    if state is not None and stop is None:
        _check_against_state(out, hand, state, wins, evs)
    elif evs is None:
        exp = _next_dealer_from_rows(rules, hand, wins)
        if exp is not None and hand["next_dealer"] != exp:
            out.add(Check.NEXT_DEALER, f"S{hand['next_dealer']}", f"S{exp}")
    return checked


def _check_seed(out: _Hand, ctx: RunContext, rules: Rules, hand: Mapping[str, Any],
                wall: list[int], dice: tuple, dealer: int, m: int, k: int,
                dealt: Dealt | None) -> None:
    if ctx.seed is None:
        out.note(Check.SEED, "not applicable: the log gives no root seed")
        return
    if ctx.rng != RNG:
        out.note(Check.SEED, f"not checked: the log's rng {ctx.rng!r} is not the one this mjlog "
                 f"implements ({RNG})")
        return
    st = dealt or deal_wall(rules, ctx.seed, m, k, None if k == 0 else dealer)
    hs = st.hand_seed
    if hand["hand_seed"] != hs:
        out.add(Check.HAND_SEED, hand["hand_seed"],
                f"{hs} from seed {ctx.seed}, match {m}, hand {k}")
    rolls = st.rolls
    if k == 0 and st.dealer != dealer:
        out.add(Check.FIRST_DEALER, f"S{dealer}", f"S{st.dealer} from the seed")
        return
    got_rolls = hand.get("dealer_rolls")
    if (list(got_rolls) if got_rolls is not None else None) != (
            list(rolls) if rolls is not None else None):
        out.add(Check.DEALER_ROLLS, got_rolls, list(rolls) if rolls is not None else None)
    if tuple(st.dice) != dice:
        out.add(Check.SEED_DICE, list(dice), f"{list(st.dice)} from the seed")
    if not wall:
        out.note(Check.SEED_WALL, "not applicable: the wall is not logged")
    elif st.wall != wall:
        i = _first_diff(wall, st.wall)
        got = fmt_tile(wall[i]) if i < len(wall) and 0 <= wall[i] < 34 else "-"
        want = fmt_tile(st.wall[i]) if i < len(st.wall) else "-"
        out.add(Check.SEED_WALL, f"wall[{i}] = {got}", f"wall[{i}] = {want} from the seed")


def _transfers_and_wins(evs: Sequence, st: HandState | None) -> tuple[list[tuple], list[int]]:
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


def _check_tables(out: _Hand, rules: Rules, n: int, hand: Mapping[str, Any],
                  evs: Sequence | None, wins: Sequence[Mapping[str, Any]],
                  transfers: Sequence[Mapping[str, Any]], done: HandState | None) -> None:
    """Checks of the log against itself (they need no replay; ``done``, the state
    after every event applied, saves scanning them again)."""
    rows = [(t["seq"], t["payer"], t["payee"], t["amount"], t["reason"]) for t in transfers]
    if evs is not None:
        if hand["n_events"] != len(evs):
            out.add(Check.HAND_N_EVENTS, hand["n_events"], f"{len(evs)} events logged")
        want, win_seqs = _transfers_and_wins(evs, done)
        if rows != want:
            i = _first_diff(rows, want)
            got = rows[i] if i < len(rows) else "no row"
            exp = want[i] if i < len(want) else "no row"
            seq = (want[i][0] if i < len(want) else rows[i][0])
            out.add(Check.TRANSFERS_TABLE, _tr(got), f"{_tr(exp)} (the transfer event)",
                    seq=seq)
        by_seq = {w["seq"]: w for w in wins}
        for i in win_seqs:
            if i not in by_seq:
                out.add(Check.WINS_ROWS, "no wins row",
                        f"a row for the win event {describe(evs[i])}", seq=i)
        for w in wins:
            s = w["seq"]
            e = evs[s] if 0 <= s < len(evs) else None
            if e is None or e.type != WIN:
                out.add(Check.WINS_ROWS, f"a wins row at seq {s}", "a win event there", seq=s)
            elif (e.seat, e.tile, e.kind) != (w["seat"], w["tile"], w["method"]):
                out.add(Check.WIN_EVENT, f"seat {w['seat']} tile {w['tile']} {w['method']}",
                        f"{describe(e)} (the event)", seq=s)
    for seq, payer, payee, amount, reason in rows:
        if not (0 <= payer < n and 0 <= payee < n) or payer == payee or amount <= 0:
            out.add(Check.TRANSFER_ROW, _tr((seq, payer, payee, amount, reason)),
                    "a positive amount between two different seats", seq=seq)
    d = [0] * n
    for _s, payer, payee, amount, _r in rows:
        if 0 <= payer < n and 0 <= payee < n:
            d[payer] -= amount
            d[payee] += amount
    if list(hand["deltas"]) != d:
        out.add(Check.HAND_DELTAS, list(hand["deltas"]), f"{d} (the sum of the transfers)")
    winners = [w["seat"] for w in sorted(wins, key=lambda w: w["seq"])]
    if list(hand["winners"]) != winners:
        out.add(Check.HAND_WINNERS, list(hand["winners"]), f"{winners} (the wins rows)")
    outcome = "win" if wins else "draw"
    if hand["outcome"] != outcome:
        out.add(Check.HAND_OUTCOME, hand["outcome"], outcome)
    # totals: a win's transfers follow its event, before the next win of another tile
    ws = sorted(wins, key=lambda w: w["seq"])
    for w in ws:
        nxt = min((v["seq"] for v in ws if v["win_order"] > w["win_order"]), default=1 << 31)
        total = sum(a for s, _p, payee, a, r in rows
                    if w["seq"] < s < nxt and payee == w["seat"]
                    and r in ("win", "horse", "call_transfer"))
        if w["total"] != total:
            out.add(Check.WIN_TOTAL, w["total"], f"{total} (its win, horse and call_transfer "
                    f"transfers)", seq=w["seq"])
        if evs is None:
            bad = [a for s, _p, payee, a, r in rows
                   if w["seq"] < s < nxt and payee == w["seat"] and r == "win"
                   and a != w["points"]]
            if bad:
                out.add(Check.WIN_POINTS, w["points"], f"{bad[0]} (its win transfers)",
                        seq=w["seq"])


def _tr(row: Any) -> str:
    if not isinstance(row, tuple):
        return str(row)
    seq, payer, payee, amount, reason = row
    return f"seq {seq}: S{payer} pays S{payee} {amount} ({reason})"


def _next_dealer_from_rows(rules: Rules, hand: Mapping[str, Any],
                           wins: Sequence[Mapping[str, Any]]) -> int | None:
    ws = sorted(wins, key=lambda w: w["seq"])
    first = [w for w in ws if w["win_order"] == 1]
    payer = first[0]["from_seat"] if first else None
    if len(first) > 1 and payer is None:
        return None
    try:
        return next_dealer(rules, hand["dealer"], [w["seat"] for w in ws],
                           [w["seat"] for w in first], payer)
    except TypeError:
        return None


def _check_against_state(out: _Hand, hand: Mapping[str, Any], st, wins: Sequence[Mapping],
                         evs: Sequence) -> None:
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
                check = Check.WIN_ORDER if f == "win_order" else f"win_{f}"
                out.add(check, g, w, seq=rec.seq)
    recomputed = {rec.seq for rec in st.wins}
    for s in logged:
        if s not in recomputed:
            out.add(Check.WINS_ROWS, f"a wins row at seq {s}", "no win there", seq=s)
    row = st.outcome_row()
    for col, check in (("deltas", Check.HAND_DELTAS), ("winners", Check.HAND_WINNERS),
                       ("next_dealer", Check.NEXT_DEALER), ("wall_left", Check.WALL_LEFT),
                       ("n_events", Check.HAND_N_EVENTS), ("outcome", Check.HAND_OUTCOME)):
        got = hand[col]
        got = list(got) if isinstance(got, list | tuple) else got
        if got != row[col]:
            out.add(check, got, row[col])


# ------------------------------------------------------------------ runs


def _run_problem(run: str, check: str, log: str = "", rules: str = "", file: str | None = None,
                 rid: str | None = None, level: str = "problem") -> Problem:
    return Problem(run, check, log, rules, file=file, run_id=rid, level=level)


def _file_of(msg: str, run: Path) -> str | None:
    head = msg.split(":", 1)[0].strip()
    if head.endswith((".parquet", ".json", ".jsonl")):
        try:
            return str(Path(head).relative_to(run)) if Path(head).is_absolute() else head
        except ValueError:
            return head
    return None


def _check_manifest(run: Path, res: AuditResult) -> tuple[RunContext | None, dict | None]:
    name = str(run)
    try:
        manifest = read_manifest(run)
    except LogError as e:
        res.problems.append(_run_problem(name, Check.MANIFEST, str(e), "a readable manifest.json",
                                         file="manifest.json"))
        return None, None
    rid = manifest.get("run_id")
    try:  # nothing is read from a manifest that cannot be trusted as a list of files
        RunFiles(run, hashes=False, strict=False)
    except LogError as e:
        res.problems.append(_run_problem(name, Check.MANIFEST_FILES, str(e),
                                         "a manifest whose every entry is a regular file of "
                                         "the run, listed once, of its listed size",
                                         file=_file_of(str(e), run) or "manifest.json",
                                         rid=rid if isinstance(rid, str) else None))
        return None, None
    for msg in verify_manifest(run, read_pages=False):  # the shards are read in full below
        res.problems.append(_run_problem(name, Check.MANIFEST_FILES, msg,
                                         "files as the manifest lists them (rows, sha256, "
                                         "schema)", file=_file_of(msg, run), rid=rid))
    variant = manifest.get("variant")
    try:
        rules = Rules(variant, manifest.get("rules") or {})
    except Exception as e:
        res.problems.append(_run_problem(name, Check.MANIFEST_RULES, f"{e}",
                                         "valid resolved rules for a known variant",
                                         file="manifest.json", rid=rid))
        return None, manifest
    if rules.to_json() != manifest.get("rules"):
        missing = sorted(set(rules.to_json()) - set(manifest.get("rules") or {}))
        diff = [k for k in rules.to_json() if k in (manifest.get("rules") or {})
                and manifest["rules"][k] != rules.to_json()[k]]
        res.problems.append(_run_problem(
            name, Check.MANIFEST_RULES, f"rules not fully resolved (missing {missing}, "
            f"not canonical {diff})", "every rule key with its resolved value",
            file="manifest.json", rid=rid))
    if manifest.get("players") != rules.n:
        res.problems.append(_run_problem(name, Check.MANIFEST_PLAYERS, manifest.get("players"),
                                         f"{rules.n} (rules.players)", "manifest.json", rid))
    if all(k in manifest for k in RUN_ID_KEYS):
        want = run_id(manifest)
        if rid != want:
            res.problems.append(_run_problem(name, Check.MANIFEST_RUN_ID, rid,
                                             f"{want} (the hash of the run's arguments)",
                                             "manifest.json", rid))
    else:
        missing = [k for k in RUN_ID_KEYS if k not in manifest]
        res.problems.append(_run_problem(name, Check.MANIFEST_KEYS, f"missing {missing}",
                                         "every key of the run's arguments", "manifest.json",
                                         rid))
    seed = manifest.get("seed")
    rng = manifest.get("rng")
    if seed is not None and rng != RNG:
        res.notes.append(_run_problem(name, Check.SEED, "", f"not checked: the log's rng {rng!r} "
                                      f"is not the one this mjlog implements ({RNG})",
                                      rid=rid, level="note"))
    has_events = RunFiles(run, hashes=False, strict=False).has_events
    ctx = RunContext(name, rid, variant, rules.to_json(), seed, rng, has_events)
    return ctx, manifest


def _shards_of(run: Path) -> list[int]:
    """The shards the manifest lists (checked by _check_manifest before)."""
    return sorted(RunFiles(run, hashes=False, strict=False).shards)


_NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32}


def _ints(col) -> np.ndarray:
    """An int column as numpy, read from its buffer (to_numpy would import pandas)."""
    arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    if arr.null_count:
        raise LogError(f"nulls in the key column {arr.type}")
    dtype = _NP[str(arr.type)]
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr) + arr.offset)[
        arr.offset:]


def _key_array(tab) -> np.ndarray:
    """(match, rotation, hand) of every row as one sortable int64: match << 24 |
    rotation << 16 | hand (the last two as unsigned 8 and 16 bits). In-place
    steps: an events table has some 10^5 rows."""
    m, r, h = (_ints(tab.column(c)) for c in HAND_KEY)
    k = m.astype(np.int64)
    k <<= 24
    part = np.bitwise_and(r, 0xFF, dtype=np.int64)
    part <<= 16
    k |= part
    k |= np.bitwise_and(h, 0xFFFF, dtype=np.int64)
    return k


_SHARD: dict[tuple[str, int], dict] = {}


def _load_shard(run: str, shard: int, with_events: bool) -> dict:
    """The shard's four tables and their hand keys; kept for the next chunk (one
    shard per process at a time). Raises LogError naming a bad file."""
    key = (run, shard)
    got = _SHARD.get(key)
    if got is not None:
        return got
    _SHARD.clear()
    tabs: dict[str, Any] = {}
    for t in ("hands", "events", "wins", "transfers"):
        if t == "events" and not with_events:
            continue
        tab = read_table(Path(run) / shard_path(t, shard), t)
        keys = _key_array(tab)
        steps = np.diff(keys)
        if len(keys) and np.any(steps < 0 if t != "hands" else steps <= 0):
            raise LogError(f"{Path(run) / shard_path(t, shard)}: rows not in (match, rotation, "
                           f"hand) order")
        # the keys in order, once each (the rows are sorted by key)
        firsts = keys[np.concatenate(([0], np.flatnonzero(steps) + 1))] if len(keys) else keys
        tabs[t] = (tab, keys, firsts)
    hand_keys = tabs["hands"][1]
    orphans = []
    for t, (_tab, _keys, firsts) in list(tabs.items()):
        if t != "hands" and len(firsts):
            stray = np.setdiff1d(firsts, hand_keys, assume_unique=True)
            if len(stray):
                orphans.append((shard_path(t, shard), [_unkey(k) for k in stray.tolist()]))
    tabs["_orphans"] = orphans
    _SHARD[key] = tabs
    return tabs


def _unkey(k: int) -> tuple[int, int, int]:
    return (k >> 24, (k >> 16) & 0xFF, k & 0xFFFF)


def _pylist(col) -> list:
    """``to_pylist``, fast for dictionary columns (decoded through their indices,
    in numpy)."""
    arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    if not pa.types.is_dictionary(arr.type) or str(arr.indices.type) not in _NP:
        return arr.to_pylist()
    # interned: the same objects as the code's own constants ("discard", "live"...),
    # so the replay's comparisons with them succeed on identity
    values = [intern(v) if type(v) is str else v for v in arr.dictionary.to_pylist()]
    table = np.array([*values, None], dtype=object)  # the last entry stands for null
    idx = arr.indices
    ind = np.frombuffer(idx.buffers()[1], dtype=_NP[str(idx.type)],
                        count=len(idx) + idx.offset)[idx.offset:]
    if idx.null_count:
        ind = np.where(_valid(idx), ind, len(values))
    return table[ind].tolist()


def _valid(arr) -> np.ndarray:
    """The validity bitmap of ``arr`` (which has nulls) as a bool array."""
    bits = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[arr.offset:arr.offset + len(arr)].astype(bool)


def _tuples(col) -> list:
    """A list column as tuples, None for a null row: only the rows set are built
    (the events' ``tiles`` is null but for deals and wins)."""
    arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    n = len(arr)
    out: list = [None] * n
    rows = np.flatnonzero(_valid(arr)) if arr.null_count else np.arange(n)
    if not len(rows):
        return out
    offs = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=n + 1 + arr.offset)[arr.offset:]
    lo = int(offs[0])
    values = arr.values.slice(lo, int(offs[-1]) - lo).to_pylist()
    for i, a, b in zip(rows.tolist(), (offs[rows] - lo).tolist(), (offs[rows + 1] - lo).tolist(),
                       strict=True):
        out[i] = tuple(values[a:b])
    return out


def _rows(tab, lo: int, hi: int, cols: Sequence[str], tuples: Sequence[str] = ()) -> list[list]:
    """Rows lo..hi-1 of ``tab`` as one Python list per column; the ``tuples``
    columns (lists) as tuples."""
    part = tab.slice(lo, hi - lo)
    return [(_tuples if c in tuples else _pylist)(part.column(c)) for c in cols]


_new_tuple = tuple.__new__


def _events_by_hand(keys: np.ndarray, data: list[list]) -> dict[int, LoggedEvents]:
    """Events rows (columns ``data``, sorted by hand ``keys``) as one
    :class:`LoggedEvents` per hand: the columns are cut at the hand boundaries,
    and each row becomes an Event without a Python-level call per row."""
    seq, *fields = data
    evs = list(map(_new_tuple, repeat(Event), zip(*fields, strict=True)))
    cuts = [0, *(np.flatnonzero(np.diff(keys)) + 1).tolist(), len(evs)]
    return {int(keys[a]): LoggedEvents(seq[a:b], evs[a:b])
            for a, b in zip(cuts, cuts[1:], strict=False) if b > a}


def _audit_chunk(ctx: RunContext, shard: int, i0: int, i1: int) -> tuple[list, list]:
    """Audit hands i0..i1-1 (file order) of one shard; returns (results, file problems).

    The cyclic garbage collector is paused meanwhile: a chunk holds some 10^4 live
    rows and events, which made every collection walk them all (15 % of the time);
    a chunk makes no reference cycles worth collecting early.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        return _audit_chunk_now(ctx, shard, i0, i1)
    finally:
        if was_on:
            gc.enable()


def _audit_chunk_now(ctx: RunContext, shard: int, i0: int, i1: int) -> tuple[list, list]:
    try:
        tabs = _load_shard(ctx.run, shard, ctx.events and (
            Path(ctx.run) / shard_path("events", shard)).is_file())
    except LogError as e:
        return [], [_run_problem(ctx.run, Check.READ_ERROR, str(e),
                                 "a readable file of the declared schema",
                                 file=_file_of(str(e), Path(ctx.run)), rid=ctx.run_id)]
    htab, hkeys, _ = tabs["hands"]
    names = htab.column_names
    hcols = _rows(htab, i0, i1, names)
    hands = [dict(zip(names, r, strict=True)) for r in zip(*hcols, strict=True)]
    k0, k1 = hkeys[i0], hkeys[i1 - 1]
    children: dict[str, dict[int, list]] = {}
    for t in ("events", "wins", "transfers"):
        if t not in tabs:
            continue
        tab, keys, _ = tabs[t]
        lo = int(np.searchsorted(keys, k0, "left"))
        hi = int(np.searchsorted(keys, k1, "right"))
        cols = data_columns(t)
        data = _rows(tab, lo, hi, cols, ("tiles",))
        if t == "events":
            children[t] = _events_by_hand(keys[lo:hi], data)
            continue
        groups: dict[int, list] = {}
        recs = (dict(zip(cols, r, strict=True)) for r in zip(*data, strict=True))
        for k, r in zip(keys[lo:hi].tolist(), recs, strict=True):
            groups.setdefault(k, []).append(r)
        children[t] = groups
    out = []
    for k, h, dealt in zip(hkeys[i0:i1].tolist(), hands, _deal_walls(ctx, hands), strict=True):
        evs = children["events"].get(k, []) if "events" in children else None
        out.append(audit_hand(ctx, h, evs, children["wins"].get(k, []),
                              children["transfers"].get(k, []), dealt))
        _name_files(out[-1], shard, "events" in children)
    probs = []
    if i0 == 0:
        for f, keys in tabs["_orphans"]:
            more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
            probs.append(_run_problem(
                ctx.run, Check.ORPHAN_ROWS, f"rows for (match, rotation, hand) "
                f"{', '.join(map(str, keys[:3]))}{more}",
                f"rows only for hands of {shard_path('hands', shard)}", file=f,
                rid=ctx.run_id))
    return out, probs


def _deal_walls(ctx: RunContext, hands: list[dict]) -> list[Dealt | None]:
    """What the seed gives each hands row, dealt in one batch for the seed check;
    None for every hand when the seed check will not run or a row is malformed
    (each hand is then dealt on its own, and a bad row reported there)."""
    if ctx.seed is None or ctx.rng != RNG:
        return [None] * len(hands)
    try:
        want = [(h["match"], h["hand"], None if h["hand"] == 0 else h["dealer"]) for h in hands]
        return deal_walls(_rules(ctx), ctx.seed, want)
    except Exception:  # a malformed row: audit_hand reports it
        return [None] * len(hands)


def _chunks(run: Path, ctx: RunContext, res: AuditResult) -> list[tuple[int, int, int]]:
    """(shard, first hand row, end row) for every chunk of every readable shard."""
    shards = _shards_of(run)
    if not shards:
        res.problems.append(_run_problem(ctx.run, Check.READ_ERROR, f"{run}: no hands files",
                                         "hands/part-*.parquet", file="hands", rid=ctx.run_id))
    out = []
    for shard in shards:
        try:
            rows = read_table(run / shard_path("hands", shard), "hands",
                              columns=["match"]).num_rows
        except LogError as e:
            res.problems.append(_run_problem(ctx.run, Check.READ_ERROR, str(e),
                                             "a readable file of the declared schema",
                                             file=_file_of(str(e), run), rid=ctx.run_id))
            continue
        out += [(shard, i, min(i + BATCH_HANDS, rows)) for i in range(0, rows, BATCH_HANDS)]
    return out


def _cross_hand(ctx: RunContext, manifest: Mapping[str, Any], results: list[HandResult],
                n: int, res: AuditResult, unreadable: bool = False) -> None:
    keys = [r.key for r in results]
    rid = ctx.run_id
    if unreadable:
        res.notes.append(_run_problem(ctx.run, Check.HAND_SET, "", "not checked: some files could "
                                      "not be read", rid=rid, level="note"))
    elif manifest.get("imported"):
        res.notes.append(_run_problem(ctx.run, Check.HAND_SET, "", "not checked: an imported run "
                                      "holds the hands it was given", rid=rid, level="note"))
    else:
        try:
            rot = n if manifest.get("duplicate") else 1
            want = {(m, r, h) for m in range(int(manifest["matches"])) for r in range(rot)
                    for h in range(int(manifest["hands_per_match"]))}
        except (KeyError, TypeError, ValueError):
            want = None
        if want is not None:
            got = Counter(keys)
            missing = sorted(want - set(got))
            extra = sorted(set(got) - want)
            dup = sorted(k for k, c in got.items() if c > 1)
            if missing or extra or dup:
                res.problems.append(_run_problem(
                    ctx.run, Check.HAND_SET, f"{len(keys)} hands; missing {missing[:5]}"
                    f"{'…' if len(missing) > 5 else ''}, unexpected {extra[:5]}, "
                    f"duplicated {dup[:5]}", f"{len(want)} hands: matches × rotations × "
                    f"hands_per_match", rid=rid))
    by_key = {r.key: r for r in results}
    duplicate = bool(manifest.get("duplicate"))
    for r in results:
        m, rot, h = r.key
        if h == 0 or r.dealer is None:
            continue
        prev = by_key.get((m, rot, h - 1))
        first = by_key.get((m, rot, 0))
        if duplicate:
            if first is None or first.dealer is None:
                continue
            want_d, why = (first.dealer + h) % n, f"hand 0's dealer S{first.dealer} + {h}"
        else:
            if prev is None or prev.next_dealer is None:
                continue
            want_d, why = prev.next_dealer, f"hand {h - 1}'s next_dealer"
        if r.dealer != want_d:
            res.problems.append(Problem(ctx.run, Check.DEALER_SEQUENCE, f"dealer S{r.dealer}",
                                        f"S{want_d} ({why})", m, rot, h, None, file=r.file,
                                        run_id=rid))


def audit_runs(runs: Sequence[str | os.PathLike], workers: int | None = 1,
               progress: Any = None) -> AuditResult:
    """Audit run directories; every hand in parallel over ``workers`` processes."""
    res = AuditResult()
    t0 = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    _SHARD.clear()  # files may have changed since a previous call in this process
    pool = _LazyPool(workers)
    try:
        for run_dir in runs:
            run = Path(run_dir)
            res.runs += 1
            ctx, manifest = _check_manifest(run, res)
            if ctx is None:
                continue
            if not ctx.events:
                res.notes.append(_run_problem(
                    ctx.run, Check.EVENTS, "", "not logged (--events none): event legality, win "
                    "scoring and the hands row replay are not checked; wall, dice, seed, "
                    "transfers, deltas, winners, win totals and the next dealer are",
                    rid=ctx.run_id, level="note"))
            before = len(res.problems)
            results = list(_hand_results(run, ctx, res, pool, workers, progress))
            unreadable = any(p.check == "read_error" for p in res.problems[before:])
            for hr in results:
                res.hands += 1
                res.events += hr.events
                for p in hr.problems:
                    if p.level == "note":
                        if not any(q.check == p.check and q.run == p.run for q in res.notes):
                            res.notes.append(Problem(p.run, p.check, "", p.rules,
                                                     run_id=p.run_id, level="note"))
                    else:
                        res.problems.append(p)
            _cross_hand(ctx, manifest, results, Rules(ctx.variant, ctx.rules).n, res,
                        unreadable)
    finally:
        pool.shutdown()
        _SHARD.clear()
    res.seconds = time.perf_counter() - t0
    return res


class _LazyPool:
    """A process pool started only when a run has more than one chunk of hands."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def get(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers)
        return self._pool

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)


def _hand_results(run: Path, ctx: RunContext, res: AuditResult, pool: _LazyPool, workers: int,
                  progress) -> Iterator[HandResult]:
    seen_files: set[tuple[str, str]] = set()

    def collect(rs: list, probs: list) -> list:
        for p in probs:
            if (p.check, p.log) not in seen_files:
                seen_files.add((p.check, p.log))
                res.problems.append(p)
        if progress is not None:
            progress(len(rs))
        return rs

    chunks = _chunks(run, ctx, res)
    if pool.workers == 1 or len(chunks) <= 1:
        for c in chunks:
            yield from collect(*_audit_chunk(ctx, *c))
        return
    inflight: deque[Future] = deque()
    for c in chunks:
        inflight.append(pool.get().submit(_audit_chunk, ctx, *c))
        while len(inflight) > 2 * workers:
            yield from collect(*inflight.popleft().result())
    while inflight:
        yield from collect(*inflight.popleft().result())


# ------------------------------------------------------------------ report


def write_report(path: str | os.PathLike, res: AuditResult) -> Path:
    """Every problem, then every note: JSON lines, or CSV when the name ends in .csv."""
    p = Path(path)
    rows = [asdict(x) for x in res.problems + res.notes]
    cols = ["level", "run", "run_id", "match", "rotation", "hand", "seq", "check", "log",
            "rules", "file"]
    f = io.StringIO(newline="")
    if p.suffix == ".csv":
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({c: r[c] for c in cols})
    else:
        for r in rows:
            f.write(json.dumps({c: r[c] for c in cols}, ensure_ascii=False) + "\n")
    return write_atomic(p, f.getvalue(), "--report")  # never into a run; whole or not at all
