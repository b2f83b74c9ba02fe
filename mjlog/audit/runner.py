"""The auditor's runner: every run's manifest, then its hands in chunks, shared out
over worker processes, then the run-level checks.

A chunk is :data:`BATCH_HANDS` consecutive hands of one shard. A worker reads the
shard whole once (:func:`mjlog.logio.shards.load_shard`, kept for its next chunk),
deals the chunk's walls from the seed in one batch, and audits each hand
(:func:`mjlog.audit.checks.audit_hand`). Results come back in file order, so the
report is the same for any number of workers.
"""

from __future__ import annotations

import gc
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from mjlog.audit.checks import HandResult, RunContext, audit_hand, name_files, rules_of
from mjlog.audit.report import AuditResult, Problem, run_problem
from mjlog.audit.run_checks import check_manifest, cross_hand, file_of
from mjlog.engine import Dealt, deal_walls
from mjlog.logio import LogError, RunFiles, read_table, shard_path
from mjlog.logio.shards import load_shard
from mjlog.replay import Check
from mjlog.rng import RNG
from mjlog.rules import Rules

__all__ = ["BATCH_HANDS", "audit_runs"]

BATCH_HANDS = 100


def audit_runs(
    runs: Sequence[str | os.PathLike[str]], workers: int | None = 1, progress: Any = None
) -> AuditResult:
    """Audit run directories; every hand in parallel over ``workers`` processes
    (None: one per core). ``progress``, when given, is called with the number of
    hands of each chunk done."""
    res = AuditResult()
    t0 = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    load_shard.cache_clear()  # files may have changed since a previous call in this process
    pool = _Workers(workers)
    try:
        for run_dir in runs:
            run = Path(run_dir)
            res.runs += 1
            ctx, manifest = check_manifest(run, res)
            if ctx is None or manifest is None:  # (a context comes with its manifest)
                continue
            if not ctx.events:
                res.notes.append(
                    run_problem(
                        ctx.run,
                        Check.EVENTS,
                        "",
                        "not logged (--events none): event legality, win "
                        "scoring and the hands row replay are not checked; wall, dice, seed, "
                        "transfers, deltas, winners, win totals and the next dealer are",
                        rid=ctx.run_id,
                        level="note",
                    )
                )
            before = len(res.problems)
            results = list(_hand_results(run, ctx, res, pool, progress))
            unreadable = any(p.check == Check.READ_ERROR for p in res.problems[before:])
            for hr in results:
                res.hands += 1
                res.events += hr.events
                for p in hr.problems:
                    if p.level == "note" and p.seq is not None:  # about this hand
                        res.notes.append(p)
                    elif p.level == "note":
                        if not any(q.check == p.check and q.run == p.run for q in res.notes):
                            res.notes.append(
                                Problem(p.run, p.check, "", p.rules, run_id=p.run_id, level="note")
                            )
                    else:
                        res.problems.append(p)
            cross_hand(ctx, manifest, results, Rules(ctx.variant, ctx.rules).n, res, unreadable)
    finally:
        pool.shutdown()
        load_shard.cache_clear()
    res.seconds = time.perf_counter() - t0
    return res


# ------------------------------------------------------------------ chunks


def _chunks(run: Path, ctx: RunContext, res: AuditResult) -> list[tuple[int, int, int]]:
    """(shard, first hand row, end row) for every chunk of every readable shard."""
    shards = sorted(RunFiles(run, hashes=False, strict=False).shards)  # checked already
    if not shards:
        res.problems.append(
            run_problem(
                ctx.run,
                Check.READ_ERROR,
                f"{run}: no hands files",
                "hands/part-*.parquet",
                file="hands",
                rid=ctx.run_id,
            )
        )
    out = []
    for shard in shards:
        try:
            rows = read_table(run / shard_path("hands", shard), "hands", columns=["match"]).num_rows
        except LogError as e:
            res.problems.append(
                run_problem(
                    ctx.run,
                    Check.READ_ERROR,
                    str(e),
                    "a readable file of the declared schema",
                    file=file_of(str(e), run),
                    rid=ctx.run_id,
                )
            )
            continue
        out += [(shard, i, min(i + BATCH_HANDS, rows)) for i in range(0, rows, BATCH_HANDS)]
    return out


def _hand_results(
    run: Path,
    ctx: RunContext,
    res: AuditResult,
    pool: _Workers,
    progress: Callable[[int], Any] | None,
) -> Iterator[HandResult]:
    """Every hand of the run audited, in file order; a file problem is reported once."""
    seen_files: set[tuple[str, str]] = set()
    for results, probs in pool.map(_audit_chunk, [(ctx, *c) for c in _chunks(run, ctx, res)]):
        for p in probs:
            if (p.check, p.log) not in seen_files:
                seen_files.add((p.check, p.log))
                res.problems.append(p)
        if progress is not None:
            progress(len(results))
        yield from results


def _audit_chunk(
    ctx: RunContext, shard: int, i0: int, i1: int
) -> tuple[list[HandResult], list[Problem]]:
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


def _audit_chunk_now(
    ctx: RunContext, shard: int, i0: int, i1: int
) -> tuple[list[HandResult], list[Problem]]:
    try:
        tabs = load_shard(
            ctx.run, shard, ctx.events and (Path(ctx.run) / shard_path("events", shard)).is_file()
        )
    except LogError as e:
        return [], [
            run_problem(
                ctx.run,
                Check.READ_ERROR,
                str(e),
                "a readable file of the declared schema",
                file=file_of(str(e), Path(ctx.run)),
                rid=ctx.run_id,
            )
        ]
    hands = tabs.hands(i0, i1)
    keys = tabs.hand_keys[i0:i1].tolist()
    children = {t: tabs.by_hand(t, keys[0], keys[-1]) for t in tabs.children}
    events = children.get("events")
    out = []
    for k, h, dealt in zip(keys, hands, _deal_walls(ctx, hands), strict=True):
        evs = events.get(k, []) if events is not None else None
        out.append(
            audit_hand(
                ctx, h, evs, children["wins"].get(k, []), children["transfers"].get(k, []), dealt
            )
        )
        name_files(out[-1], shard, events is not None)
    probs = []
    if i0 == 0:
        for f, stray in tabs.orphans:
            more = f" and {len(stray) - 3} more" if len(stray) > 3 else ""
            probs.append(
                run_problem(
                    ctx.run,
                    Check.ORPHAN_ROWS,
                    f"rows for (match, rotation, hand) {', '.join(map(str, stray[:3]))}{more}",
                    f"rows only for hands of {shard_path('hands', shard)}",
                    file=f,
                    rid=ctx.run_id,
                )
            )
    return out, probs


def _deal_walls(ctx: RunContext, hands: list[dict[str, Any]]) -> Sequence[Dealt | None]:
    """What the seed gives each hands row, dealt in one batch for the seed check;
    None for every hand when the seed check will not run or a row is malformed
    (each hand is then dealt on its own, and a bad row reported there)."""
    if ctx.seed is None or ctx.rng != RNG:
        return [None] * len(hands)
    try:
        want = [(h["match"], h["hand"], None if h["hand"] == 0 else h["dealer"]) for h in hands]
        return deal_walls(rules_of(ctx), ctx.seed, want)
    except Exception:  # a malformed row: audit_hand reports it
        return [None] * len(hands)


# ------------------------------------------------------------------ workers


_R = TypeVar("_R")


class _Workers:
    """Chunks shared out over a process pool, results in submission order.

    The pool is started only when a run has more than one chunk, and kept for the
    next run; at most two chunks per worker are in flight, so the results waiting
    to be collected stay few. (``simulate``'s pool is not this one: its workers
    write shards, report progress through a queue and are killed on Ctrl-C.)
    """

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[..., _R], tasks: Sequence[tuple[Any, ...]]) -> Iterator[_R]:
        if self.workers == 1 or len(tasks) <= 1:
            for t in tasks:
                yield fn(*t)
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers)
        inflight: deque[Future[_R]] = deque()
        for t in tasks:
            inflight.append(self._pool.submit(fn, *t))
            while len(inflight) > 2 * self.workers:
                yield inflight.popleft().result()
        while inflight:
            yield inflight.popleft().result()

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
