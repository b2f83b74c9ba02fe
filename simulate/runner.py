"""Batch simulation: a run split into shards of whole matches, written atomically.

Shard boundaries depend only on the run's arguments (and ``hands_per_shard``,
recorded in the manifest), never on the number of workers, so 1 worker, N
workers or a Dask cluster write the same bytes. A shard whose files are complete
is skipped on a rerun: an interrupted run resumes. Only complete shards ever
carry their final names (see :class:`mjlog.logio.ShardWriter`); temporary files
left by a killed worker are removed when the run is started again.

>>> import tempfile
>>> spec = RunSpec.build("yuxi", seed=1, matches=2, hands_per_match=2,
...                      agents=["greedy"] * 4)
>>> m = simulate(spec, tempfile.mkdtemp(), workers=1, progress=False)
>>> m["variant"], sum(f["rows"] for f in m["files"] if f["table"] == "hands")
('yuxi', 4)
>>> m["hands_per_shard"], m["events"]
(2000, 'all')
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from mjlog.engine import PlayedHand, play_match
from mjlog.errors import MjlogError
from mjlog.logio import (
    LogError,
    RunFiles,
    ShardWriter,
    build_manifest,
    check_file,
    file_entry,
    hand_records,
    read_manifest,
    remove_temporaries,
    shard_complete,
    shard_path,
    write_manifest,
)
from mjlog.resettle import NotResettled
from mjlog.rundir import RunClaim
from mjlog.schema import TABLES
from simulate.agents import make_agents
from simulate.dask_runner import run_many_on_dask, run_on_dask
from simulate.resettled import donor_problem, resettled_hands
from simulate.spec import HANDS_PER_SHARD, RunSpec

_REPORT_EVERY = 0.25  # seconds between a worker's progress reports


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the complete shards stay and a rerun finishes the rest."""

    def __init__(self, done: int, total: int, out: Path):
        super().__init__(f"{done} of {total} shards complete in {out}")
        self.done, self.total, self.out = done, total, out


def play_shard(
    spec: RunSpec,
    out: str | os.PathLike,
    shard: int,
    first: int,
    end: int,
    report: Callable[[int], None] | None = None,
    settle_from: str | None = None,
) -> tuple[list[dict], int, bool]:
    """Play matches [first, end) and write them as one shard; returns its manifest
    entries, the number of hands and whether they were settled (not played).
    ``report(n)`` is told of the hands played, at most every quarter second and once
    at the end. Memory is bounded by the writer's row group. With ``settle_from`` (a
    run :func:`donor_problem` accepts) the hands are settled from that run's shard
    instead of played (:func:`resettled_hands`): the same bytes, at the cost of a
    replay; should a hand not settle, the writer drops what it had and the shard is
    played (and said to be)."""
    if settle_from:
        try:  # told once at the end: a shard abandoned halfway reports nothing twice
            entries, hands = _write(
                spec, out, shard, resettled_hands(spec, settle_from, shard, first, end), None
            )
        except NotResettled:
            pass
        else:
            if report is not None:
                report(hands)
            return entries, hands, True
    return (*_write(spec, out, shard, _played(spec, first, end), report), False)


def _write(
    spec: RunSpec,
    out: str | os.PathLike,
    shard: int,
    played: Iterable[PlayedHand],
    report: Callable[[int], None] | None,
) -> tuple[list[dict], int]:
    """Write the hands of ``played`` as shard ``shard``, reporting as they come."""
    hands = reported = 0
    last = time.monotonic()
    try:
        with ShardWriter(out, shard, spec.run_id, spec.variant, events=spec.events) as w:
            for p in played:
                w.add_hand(p.match, p.rotation, p.hand, *hand_records(p))
                hands += 1
                if report is not None and time.monotonic() - last > _REPORT_EVERY:
                    report(hands - reported)
                    reported, last = hands, time.monotonic()
    except ValueError as e:  # a value past its column's width (see RunSpec.build)
        raise MjlogError(f"{out}: cannot log {e}; nothing of shard {shard} was kept") from None
    if report is not None and hands > reported:
        report(hands - reported)
    return w.entries, hands


def _played(spec: RunSpec, first: int, end: int) -> Iterator[PlayedHand]:
    """The hands of matches [first, end), played."""
    n = spec.rules.n
    for m in range(first, end):
        for r in range(spec.rotations):
            agents = make_agents([spec.agents[(s - r) % n] for s in range(n)])
            yield from play_match(
                spec.rules, agents, spec.seed, m, spec.hands_per_match, r, spec.duplicate
            )


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def simulate(
    spec: RunSpec,
    out: str | os.PathLike,
    workers: int | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
    desc: str | None = None,
    inside: str | os.PathLike | None = None,
    settle_from: str | os.PathLike | None = None,
) -> dict:
    """Play the run into ``out``, skipping complete shards; write the manifest last.

    ``workers`` local processes (default: every core), or the shards go to the
    dask.distributed ``scheduler`` at that address (its workers must see ``out``).
    ``progress`` None shows a bar (labelled ``desc``) when stderr is a terminal. A
    run that is already complete is returned as it is, without rewriting anything.

    ``out`` must be new, empty, or this run (resumed); ``inside`` names the sweep
    directory a sweep point is written in. Another writer, another run, or a
    directory inside a run raises :class:`~mjlog.rundir.LogError` (see
    :class:`~mjlog.rundir.RunClaim`). Shards already on disk are verified before
    they are kept (:func:`verified_shards`).

    Ctrl-C raises :class:`RunInterrupted` once the workers are stopped; a worker
    that dies raises :class:`MjlogError`. Either way only complete shards are left.

    ``settle_from`` names a finished run whose play this one may reuse (only money
    rules differ: :mod:`simulate.resettled`); a run it cannot stand for is an error.
    The manifest then says which shards were settled, and from which run
    (:func:`settled_shards`); a shard that did not settle was played and is not
    listed.
    """
    with ExitStack() as stack:
        run = _OpenRun(spec, out, settle_from, inside, stack)
        if run.manifest is not None:
            return run.manifest
        play_shards(
            spec,
            run.out,
            run.shards,
            run.todo,
            workers,
            progress,
            scheduler,
            desc,
            run.finished,
            run.donor,
        )
        return run.close()


@dataclass(frozen=True)
class RunJob:
    """One run of :func:`simulate_runs`: its spec, its directory, and the finished run
    whose play it may reuse (``settle_from``, as :func:`simulate`'s)."""

    spec: RunSpec
    out: Path
    settle_from: Path | None = None


def simulate_runs(
    jobs: Sequence[RunJob],
    workers: int | None = None,
    scheduler: str | None = None,
    on_run: Callable[[int, dict], None] | None = None,
) -> list[dict]:
    """Play several runs at once: every shard of every run to one pool of ``workers``
    local processes (or to the dask.distributed ``scheduler``), so that the workers
    stay busy to the last shard of the last run rather than waiting at the end of
    each. Each run is written, resumed and verified as :func:`simulate` writes it
    (the same bytes: its shards depend on the run alone); returns each run's
    manifest, in order. No progress is shown (a study's own lines say it).
    ``on_run(i, manifest)`` is told as soon as run ``i`` is complete (its manifest
    written), while the others still play: a study reads it meanwhile.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> jobs = [RunJob(RunSpec.build("yuxi", seed, 2, 2, ["greedy"]), d / str(seed))
    ...         for seed in (1, 2)]
    >>> [m["seed"] for m in simulate_runs(jobs, workers=1)]
    [1, 2]
    """
    if len({Path(j.out).resolve() for j in jobs}) < len(jobs):
        raise MjlogError("simulate_runs: two runs share a directory")
    told = on_run or (lambda _i, _manifest: None)
    if len(jobs) == 1:
        j = jobs[0]
        made = simulate(j.spec, j.out, workers, False, scheduler, settle_from=j.settle_from)
        told(0, made)
        return [made]
    with ExitStack() as stack:
        runs = [_OpenRun(j.spec, j.out, j.settle_from, None, stack) for j in jobs]
        for i, r in enumerate(runs):
            if r.manifest is not None:
                told(i, r.manifest)
        live = [r for r in runs if r.manifest is None]
        left = {id(r): len(r.todo) for r in live}

        def placed(r: _OpenRun, shard: int, entries=None, settled: bool = False) -> None:
            r.finished(shard, entries, settled)
            left[id(r)] -= 1
            if not left[id(r)]:  # its last shard: the run is complete
                told(runs.index(r), r.close())

        for r in live:
            if not left[id(r)]:  # every shard verified on disk: only its manifest left
                told(runs.index(r), r.close())
        try:
            _play_runs(live, workers, scheduler, placed)
        except KeyboardInterrupt:
            if not scheduler:
                for r in live:
                    clean_shards(r.out, r.shards)
            done = sum(_complete(r.spec, r.out, r.shards) for r in runs)
            raise RunInterrupted(
                done, sum(len(r.shards) for r in runs), (live or runs)[0].out
            ) from None
        except BrokenProcessPool:
            for r in live:
                clean_shards(r.out, r.shards)
            raise MjlogError(
                "a worker process died (killed, or out of memory); the complete "
                "shards are kept: rerun the same command to finish the runs"
            ) from None
        return [r.close() for r in runs]


def _play_runs(
    live: Sequence[_OpenRun],
    workers: int | None,
    scheduler: str | None,
    placed: Callable[..., None],
) -> None:
    """Every shard left of the runs ``live``, on the cluster or one local pool, in
    order; ``placed(run, shard, entries, settled)`` as each is in place."""
    tasks = [(r, shard, a, b) for r in live for shard, a, b in r.todo]
    workers = min(workers or default_workers(), len(tasks))
    if scheduler:
        run_many_on_dask(
            scheduler,
            [(r.spec, r.out, list(r.todo), partial(play_shard, settle_from=r.donor)) for r in live],
            lambda i, shard, settled: placed(live[i], shard, settled=settled),
        )
    elif workers <= 1:
        for r, shard, a, b in tasks:
            entries, _, settled = play_shard(r.spec, r.out, shard, a, b, settle_from=r.donor)
            placed(r, shard, entries, settled)
    elif tasks:
        _run_local(
            [(r.spec, r.out, s, a, b, r.donor) for r, s, a, b in tasks],
            workers,
            _Silent(),
            lambda i, shard, entries, settled: placed(tasks[i][0], shard, entries, settled),
        )


class _Silent:
    """No progress: what :func:`_run_local` reports to when nothing is shown."""

    def update(self, n: int) -> None:
        pass


class _OpenRun:
    """A run claimed for writing (held by ``stack``): ``manifest`` when it is already
    complete, else the shards ``todo`` to play (or settle from ``donor``); tell it of
    each shard in place (:meth:`finished`), then :meth:`close` writes its manifest."""

    def __init__(
        self,
        spec: RunSpec,
        out: str | os.PathLike,
        settle_from: str | os.PathLike | None,
        inside: str | os.PathLike | None,
        stack: ExitStack,
    ):
        self.spec, self.out = spec, Path(out)
        self.shards = shards = spec.shards()
        self.donor = self.donor_id = None
        if settle_from is not None:
            self.donor = str(Path(settle_from).resolve())
            why = donor_problem(spec, self.donor)
            if why is not None:
                raise MjlogError(f"{settle_from}: cannot stand for the play of {out}: {why}")
            self.donor_id = str(read_manifest(self.donor)["run_id"])
        self.claim = stack.enter_context(
            RunClaim(self.out, spec.run_id, layout_text(spec.layout()), inside=inside)
        )
        self.manifest = _finished_run(spec, self.out, shards)
        if self.manifest is not None:
            return
        clean_shards(self.out, shards)
        self.good = verified_shards(spec, self.out, shards, self.claim.journal())
        # how the shards kept from an earlier attempt were made, as it journalled them
        self.made = {s: d for s, d in self.claim.settled().items() if s in self.good}
        self.todo = Todo(shards, set(self.good))

    def finished(
        self, shard: int, entries: list[dict] | None = None, settled: bool = False
    ) -> None:
        self.good[shard] = entries or written_entries(self.spec, self.out, shard)
        self.made.pop(shard, None)
        if settled and self.donor_id:
            self.made[shard] = self.donor_id
        self.claim.record(shard, self.good[shard], self.made.get(shard))

    def close(self) -> dict:
        """The run's manifest, written once its shards are all in place."""
        if self.manifest is None:
            entries = [e for shard, _a, _b in self.shards for e in self.good[shard]]
            made = self.made
            extra = (
                {"settled": [{"shard": s, "from": made[s]} for s in sorted(made)]} if made else {}
            )
            self.manifest = build_manifest(self.spec.meta(), entries, **extra, **self.spec.layout())
            write_manifest(self.out, self.manifest)
        return self.manifest


def settled_shards(manifest: Mapping[str, Any]) -> dict[int, str]:
    """The shards of a run that were settled from another run's logged play (each with
    that run's id), by its manifest: none for a run played throughout.

    >>> settled_shards({"settled": [{"shard": 1, "from": "ab12"}]}), settled_shards({})
    ({1: 'ab12'}, {})
    >>> settled_shards({"settled": [{"shard": "1"}, 7]})
    {}
    """
    rows = manifest.get("settled")
    return {
        r["shard"]: r["from"]
        for r in (rows if isinstance(rows, list) else [])
        # a row not as the runner writes it says nothing: its shard counts as played
        if isinstance(r, dict) and type(r.get("shard")) is int and isinstance(r.get("from"), str)
    }


def settled_hands(manifest: Mapping[str, Any]) -> int:
    """How many of a run's hands were settled, not played (:func:`settled_shards`).

    >>> settled_hands({"settled": [{"shard": 1, "from": "ab12"}], "files": [
    ...     {"table": "hands", "path": "hands/part-00001.parquet", "rows": 12},
    ...     {"table": "hands", "path": "hands/part-00000.parquet", "rows": 12}]})
    12
    """
    shards = settled_shards(manifest)
    return sum(
        int(f["rows"])
        for f in manifest.get("files", [])
        if f.get("table") == "hands"
        and any(f.get("path") == shard_path("hands", s) for s in shards)
    )


class Todo:
    """The shards of ``shards`` not in ``done``, in order: counted without a walk,
    iterated lazily."""

    def __init__(self, shards: Sequence[tuple[int, int, int]], done: set[int]):
        self.shards = shards
        self.done = {s for s in done if 0 <= s < len(shards)}
        self.count = len(shards) - len(self.done)

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def __iter__(self) -> Iterator[tuple[int, int, int]]:
        return (s for s in self.shards if s[0] not in self.done)


def play_shards(
    spec: RunSpec,
    out: Path,
    shards,
    todo,
    workers,
    progress,
    scheduler,
    desc,
    finished: Callable[..., None],
    donor: str | None = None,
) -> None:
    """Play (or settle from ``donor``) the ``todo`` shards; ``finished(shard, entries,
    settled)`` as each is in place (``settled``: its hands were settled, not played)."""
    if isinstance(todo, Todo):  # counted from the shards done: no walk of the rest
        left = spec.total_hands - sum(
            spec.shard_hands(a, b) for _, a, b in (shards[s] for s in todo.done)
        )
    else:
        left = sum(spec.shard_hands(a, b) for _, a, b in todo)
    bar = _progress(
        spec.total_hands,
        spec.total_hands - left,
        progress,
        desc,
        shards=(len(shards) - len(todo), len(shards)),
    )

    def placed(shard: int, entries: list[dict] | None = None, settled: bool = False) -> None:
        finished(shard, entries, settled)
        bar.shard_done()

    try:
        if scheduler:

            def on_done(shard: int, settled: bool = False) -> None:
                _, a, b = shards[shard]
                bar.update(spec.shard_hands(a, b))
                placed(shard, settled=settled)

            run_on_dask(
                scheduler,
                spec,
                out,
                list(todo),
                on_done,
                partial(play_shard, settle_from=donor) if donor else play_shard,
            )
        else:
            workers = min(workers or default_workers(), len(todo))
            if workers <= 1:
                for shard, a, b in todo:
                    entries, _, settled = play_shard(
                        spec, out, shard, a, b, report=bar.update, settle_from=donor
                    )
                    placed(shard, entries, settled)
            elif todo:
                _run_local(
                    ((spec, out, s, a, b, donor) for s, a, b in todo),
                    workers,
                    bar,
                    lambda _i, shard, entries, settled: placed(shard, entries, settled),
                )
    except KeyboardInterrupt:
        if not scheduler:  # dask tasks already running finish their shard
            clean_shards(out, shards)
        raise RunInterrupted(_complete(spec, out, shards), len(shards), out) from None
    except BrokenProcessPool:
        clean_shards(out, shards)
        done = _complete(spec, out, shards)
        raise MjlogError(
            f"a worker process died (killed, or out of memory); {done} of "
            f"{len(shards)} shards are complete in {out}: rerun the same "
            f"command to finish the run"
        ) from None
    finally:
        bar.close()


# ------------------------------------------------------------------ local pool

_queue: Any = None  # a worker's progress queue (set by _init_worker)


def _init_worker(queue) -> None:
    """In each worker: leave Ctrl-C to the parent, report to ``queue``, and exit if
    the parent dies (a killed run must not leave workers behind)."""
    global _queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _queue = queue
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _worker_shard(
    spec: RunSpec, out: str, shard: int, first: int, end: int, donor: str | None = None
) -> tuple[list[dict], bool]:
    def report(n: int) -> None:
        _queue.put(((out, shard), n))

    entries, _, settled = play_shard(spec, out, shard, first, end, report=report, settle_from=donor)
    return entries, settled


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold SIGINT back meanwhile and deliver it on leaving (to the handler in place
    before: Ctrl-C pressed meanwhile still stops the run).

    Blocking it (``pthread_sigmask``) holds it for this thread only: the kernel hands
    a process's signal to any thread that does not block it (DuckDB's, tqdm's
    monitor, a test runner's), and Python then runs the handler in the main thread
    at once, mid-fork. So a handler that only notes the signal stands in meanwhile
    (in the main thread, where a handler can be set); the block stays, so that the
    workers forked meanwhile start with SIGINT blocked until :func:`_init_worker`
    ignores it."""
    caught: list[int] = []
    # (a handler set outside Python, which getsignal cannot hand back, is left alone)
    note = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is not None
    )
    old = signal.signal(signal.SIGINT, lambda sig, _frame: caught.append(sig)) if note else None
    block = hasattr(signal, "pthread_sigmask")
    if block:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if block:  # one held back in this thread reaches a handler now, noted or not
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if note:
            signal.signal(signal.SIGINT, old)
            if caught:  # the handler before decides: KeyboardInterrupt, as a rule
                signal.raise_signal(signal.SIGINT)


def _run_local(
    tasks: Iterable[tuple[RunSpec, Path, int, int, int, str | None]],
    workers: int,
    bar,
    finished: Callable[[int, int, list[dict], bool], None],
) -> None:
    """Play ``tasks`` ((spec, run directory, shard, first match, end match, donor)
    each) on a pool of ``workers`` processes; ``finished(i, shard, entries, settled)``
    as task ``i`` (that shard) is in place, ``bar.update(hands)`` as hands are played."""
    import multiprocessing as mp
    import queue as queue_mod

    ctx = mp.get_context()
    progress = ctx.Queue()
    reported: dict[tuple[str, int], int] = {}  # the shards in flight: hands reported so far
    sizes: dict[tuple[str, int], int] = {}
    running: dict[Any, tuple[int, tuple[str, int]]] = {}  # future -> (task, its shard)
    queued = enumerate(tasks)

    def submit(pending: set) -> None:
        """Keep two shards a worker in flight: a run of millions of shards is never
        queued whole (its set-up would take minutes before the first hand)."""
        while len(pending) < 2 * workers:
            nxt = next(queued, None)
            if nxt is None:
                return
            i, (spec, out, s, a, b, donor) = nxt
            tag = (str(out), s)
            reported[tag], sizes[tag] = 0, spec.shard_hands(a, b)
            f = pool.submit(_worker_shard, spec, str(out), s, a, b, donor)
            running[f] = (i, tag)
            pending.add(f)

    def drain() -> None:
        while True:
            try:
                tag, n = progress.get_nowait()
            except queue_mod.Empty:
                return
            if tag in reported:  # not yet finished: late reports are dropped
                reported[tag] += n
                bar.update(n)

    # Forked workers inherit every lock of the parent's threads but not the threads: a
    # DuckDB connection a study read its last run through, unreachable but not yet
    # collected (a cycle), keeps a pool of threads whose locks a worker would then
    # wait on for ever (a worker "died"). Collect it before forking.
    gc.collect()
    pool = ProcessPoolExecutor(
        workers, mp_context=ctx, initializer=_init_worker, initargs=(progress,)
    )
    try:
        # Workers are forked while Ctrl-C is held back, so none of them sees it before
        # _init_worker ignores it; the parent alone handles it, once released. (Held
        # back, not ignored: a Ctrl-C pressed meanwhile must still stop the run.)
        pending: set = set()
        with _ctrl_c_held():
            submit(pending)
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            drain()
            for f in done:
                entries, settled = f.result()
                i, tag = running.pop(f)
                bar.update(sizes.pop(tag) - reported.pop(tag))
                finished(i, tag[1], entries, settled)
            submit(pending)
    except BaseException:
        # Killing workers mid-write can make the pool's own threads hit a closed pipe
        # (EBADF) and print a traceback; the run is stopping, so keep the one line.
        quiet_threads = threading.excepthook
        threading.excepthook = lambda args: None
        try:
            _stop(pool)
        finally:
            threading.excepthook = quiet_threads
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.close()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers now (a half-written shard only has temporary files),
    and wait for the pool's manager thread to finish its cleanup.

    The wait matters: ``shutdown(wait=False)`` forgets the manager thread, and one
    still closing its wake-up pipe when the interpreter exits races the exit hook of
    ``concurrent.futures`` writing to that pipe (Python 3.11 takes no lock there,
    cpython gh-125451), which prints an ``OSError: [Errno 9]`` traceback after the
    run's one-line error.
    """
    procs = list(pool._processes.values()) if pool._processes else []
    manager: Any = pool._executor_manager_thread  # (typeshed misnames its type)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.kill()
    for p in procs:
        p.join(5)
    if manager is not None:
        manager.join(10)


# ------------------------------------------------------------------ run directory


def _tables(spec: RunSpec) -> tuple[str, ...]:
    return (
        ("hands", "events", "wins", "transfers") if spec.events else ("hands", "wins", "transfers")
    )


def written_entries(spec: RunSpec, out: Path, shard: int) -> list[dict]:
    """Manifest entries of a shard just written, computed from its files on disk."""
    import pyarrow.parquet as pq

    return [
        file_entry(
            out / shard_path(t, shard),
            t,
            shard_path(t, shard),
            pq.ParquetFile(out / shard_path(t, shard)).metadata.num_rows,
        )
        for t in _tables(spec)
    ]


def layout_text(layout: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in layout.items())


def _finished_run(spec: RunSpec, out: Path, shards) -> dict | None:
    """The manifest, when ``out`` already holds this run complete and every file is
    as its manifest says (nothing is rewritten then); None when work is left."""
    if not (out / "manifest.json").exists():
        return None
    old = read_manifest(out)
    old_layout = layout_text(
        {
            "hands_per_shard": old.get("hands_per_shard", HANDS_PER_SHARD),
            "events": old.get("events", "all"),
        }
    )
    if old_layout != layout_text(spec.layout()):
        raise MjlogError(
            f"{out} holds run {spec.run_id} written with {old_layout}, "
            f"not {layout_text(spec.layout())}: choose another --out"
        )
    try:
        files = RunFiles(out)
        for t in _tables(spec):
            files.files(t)
    except LogError:
        return None  # a damaged file: the shards are verified one by one next
    want = {shard_path(t, s) for s, _, _ in shards for t in _tables(spec)}
    return old if set(files.entries) == want else None


def verified_shards(
    spec: RunSpec, out: Path, shards, journal: dict[int, list[dict]]
) -> dict[int, list[dict]]:
    """The manifest entries of every shard on disk that passes its checks: each file
    a regular file whose pages all read (checksums included), whose rows all carry
    this run's id, with the hands count the spec gives it, and with the sha256 it
    was written with when the run's journal (or an earlier manifest) has it. A
    shard that fails is removed, to be played again: it is never folded into the
    manifest."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    listed: dict[Any, Any] = {}  # path -> sha256, as the manifests hold them
    if (out / "manifest.json").exists():
        try:
            listed = {
                f["path"]: f["sha256"]
                for f in read_manifest(out).get("files", [])
                if isinstance(f, dict) and isinstance(f.get("path"), str)
            }
        except (LogError, AttributeError):
            listed = {}
    for entries in journal.values():  # the hashes each shard was written with
        listed.update({f.get("path"): f.get("sha256") for f in entries if isinstance(f, dict)})
    good: dict[int, list[dict]] = {}
    for shard, a, b in (shards[i] for i in _on_disk(out, shards)):
        if not shard_complete(out, shard, events=spec.events):
            continue
        entries = []
        try:
            for t in _tables(spec):
                rel = shard_path(t, shard)
                p = out / rel
                if p.is_symlink() or not p.is_file():
                    raise LogError(f"{p}: not a regular file")
                rows = check_file(p, t)
                entry = file_entry(p, t, rel, rows)
                if rel in listed and listed[rel] != entry["sha256"]:
                    raise LogError(f"{p}: sha256 differs from the manifest's")
                ids = (
                    pc.unique(
                        pq.read_table(p, columns=["run_id"]).column("run_id").cast("string")
                    ).to_pylist()
                    if rows
                    else [spec.run_id]
                )
                if ids != [spec.run_id]:
                    raise LogError(f"{p}: rows of run(s) {ids}, not {spec.run_id}")
                if t == "hands":
                    match = pq.read_table(p, columns=["match"]).column("match")
                    mm = pc.min_max(match).as_py()
                    if rows != spec.shard_hands(a, b) or (
                        rows and (mm["min"] != a or mm["max"] != b - 1)
                    ):
                        raise LogError(
                            f"{p}: {rows} hands of matches {mm['min']}.."
                            f"{mm['max']}, not {spec.shard_hands(a, b)} of "
                            f"{a}..{b - 1}"
                        )
                entries.append(entry)
        except LogError:
            for t in TABLES:
                (out / shard_path(t, shard)).unlink(missing_ok=True)
            continue
        good[shard] = entries
    return good


def _on_disk(out: Path, shards: Sequence[tuple[int, int, int]]) -> list[int]:
    """The shards of ``shards`` with any file in ``out``, from a listing of its table
    directories (what is there, not every shard the run will have)."""
    found = set()
    for t in TABLES:
        d = out / t
        if not d.is_dir():
            continue
        for name in os.listdir(d):
            if name.startswith("part-") and name.endswith(".parquet"):
                num = name[len("part-") : -len(".parquet")]
                if num.isdigit() and int(num) < len(shards):
                    found.add(int(num))
    return sorted(found)


def _complete(spec: RunSpec, out: Path, shards) -> int:
    return sum(shard_complete(out, s, events=spec.events) for s in _on_disk(out, shards))


def clean_shards(out: Path, shards) -> None:
    """Remove what unfinished shards left: temporary files, and the files of a shard
    whose writer died between its renames (its hands file, renamed last, is missing)."""
    remove_temporaries(out)
    for s in _on_disk(out, shards):
        if not (out / shard_path("hands", s)).is_file():
            for t in TABLES:
                (out / shard_path(t, s)).unlink(missing_ok=True)


def _progress(
    total: int,
    initial: int,
    enabled: bool | None,
    desc: str | None = None,
    shards: tuple[int, int] = (0, 0),
):
    """Progress on stderr: a bar of hands done, hands/s and ETA on a terminal, plain
    lines (:class:`_Lines`) when stderr is not one, nothing when ``enabled`` is False.
    ``shards`` is (done, total). The result has ``update(hands)``, ``shard_done()`` and
    ``close()``."""
    import sys

    from tqdm import tqdm

    if enabled is None and not sys.stderr.isatty():
        return _Lines(desc or "simulate", total, initial, *shards)
    bar = tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit="hand",
        disable=enabled is False,
        smoothing=0.1,
        dynamic_ncols=True,
        file=sys.stderr,
    )
    bar.shard_done = lambda: None  # the bar counts hands only
    return bar


class _Lines:
    """Progress as plain lines on stderr, for a pipe or a log file where a bar would be
    noise: ``LABEL: 4/10 shards, 8,000/20,000 hands, 42 s, about 63 s left``.

    A line when a shard finishes (at most :data:`LINES` of them per run, evenly
    spread, so a run of many small shards does not flood the log), one every
    :data:`EVERY` seconds while a long shard plays (the first after :data:`FIRST`
    when the shards are large), and the last state on close."""

    LINES = 20
    EVERY = 10.0
    FIRST = 2.0  # the first line of a run of large shards comes sooner: it has started
    LARGE_SHARD = 500  # hands; a smaller shard's own line comes soon enough

    def __init__(self, label: str, total: int, done: int, shards_done: int, shards: int):
        self.label, self.total, self.done = label, total, done
        self.shards_done, self.shards = shards_done, shards
        self.first = done
        self.start = self.last = time.monotonic()
        self.shown: tuple[int, int] | None = None
        self.step = max(1, -(-shards // self.LINES))  # ceil: shards per line
        large = total >= self.LARGE_SHARD * max(shards, 1)
        self.first_after = self.FIRST if large else self.EVERY

    def update(self, n: int) -> None:
        self.done += n
        if time.monotonic() - self.last >= (self.EVERY if self.shown else self.first_after):
            self._line()

    def shard_done(self) -> None:
        self.shards_done += 1
        if self.shards_done % self.step == 0 or self.shards_done == self.shards:
            self._line()

    def close(self) -> None:
        if self.done > self.first and self.shown != (self.done, self.shards_done):
            self._line()

    def _line(self) -> None:
        import sys

        now = time.monotonic()
        took = now - self.start
        line = (
            f"{self.label}: {self.shards_done}/{self.shards} shards, "
            f"{self.done:,}/{self.total:,} hands, {took:.0f} s"
        )
        played = self.done - self.first
        if played > 0 and self.done < self.total:
            line += f", about {(self.total - self.done) * took / played:.0f} s left"
        print(line, file=sys.stderr, flush=True)
        self.last, self.shown = now, (self.done, self.shards_done)
