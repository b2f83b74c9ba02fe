"""Crash safety: a run stopped midway (Ctrl-C, its process killed, a worker killed)
leaves only complete shards, and rerunning the same command yields the bytes of an
uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mjlog.logio import check_file, shard_complete, verify_manifest
from simulate.runner import RunSpec, simulate
from tests import bounded

# 64 shards of 20 random hands: long enough to be stopped after the first shard, even
# on a loaded machine where the test process may wait a while for the CPU.
SPEC = dict(
    variant="yuxi", seed=8, matches=256, hands_per_match=5, agents=["random"], hands_per_shard=20
)
ARGS = [
    "simulate",
    "--variant",
    "yuxi",
    "--seed",
    "8",
    "--matches",
    "256",
    "--hands-per-match",
    "5",
    "--agents",
    "random",
    "--hands-per-shard",
    "20",
]
SHARDS = 64


def files(run: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(run)): p.read_bytes()
        for p in sorted(run.rglob("*"))
        if p.is_file() and p.name != ".run_id"
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("ref")
    simulate(RunSpec.build(**SPEC), out, workers=1, progress=False)
    return files(out)


# `python -m mjlog` as a terminal starts it: a job started in the background by a
# shell without job control (`make test &`, nohup) inherits SIGINT ignored, and
# Python then installs no Ctrl-C handler; the tests' Ctrl-C must reach it anyway.
AS_FROM_A_TERMINAL = (
    "import runpy, signal, sys; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'mjlog'; runpy.run_module('mjlog', run_name='__main__')"
)


def start(out: Path, workers: int) -> subprocess.Popen:
    # --quiet: no progress lines on the pipe, so stderr holds the run's last word alone
    cmd = [
        sys.executable,
        "-c",
        AS_FROM_A_TERMINAL,
        *ARGS,
        "--workers",
        str(workers),
        "--quiet",
        "--out",
        str(out),
    ]
    # Its own process group, as a shell job: Ctrl-C goes to the whole group.
    p = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    # the sign of progress is a shard on disk (a busy machine is slow, not stuck);
    # the wall-clock backstop only catches a child that waits forever
    deadline = time.monotonic() + bounded.WALL
    while not list(out.glob("hands/part-*.parquet")):
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, f"no shard after {bounded.WALL} s"
        time.sleep(0.005)
    return p


def only_complete_shards(out: Path) -> int:
    """Every file with a final name belongs to a complete, readable shard."""
    complete = 0
    for s in range(SHARDS):
        present = [
            t
            for t in ("hands", "events", "wins", "transfers")
            if (out / t / f"part-{s:05d}.parquet").exists()
        ]
        if present:
            assert shard_complete(out, s), f"shard {s} is partial: {present}"
            for t in present:
                check_file(out / t / f"part-{s:05d}.parquet", t)
            complete += 1
    return complete


def finish(out: Path, reference: dict[str, bytes]) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mjlog", *ARGS, "--workers", "2", "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert files(out) == reference
    assert verify_manifest(out) == []


def wait_gone(pids: list[int]) -> None:
    """Workers must not outlive their run (they watch for their parent's death)."""
    _, alive = psutil.wait_procs(
        # workers poll for their parent: generous, a busy machine schedules them late
        [psutil.Process(p) for p in pids if psutil.pid_exists(p)],
        timeout=300,
    )
    assert not alive, f"workers left behind: {alive}"


def test_ctrl_c_exits_130_with_one_line_and_resumes(tmp_path, reference):
    out = tmp_path / "run"
    p = start(out, workers=2)
    os.killpg(p.pid, signal.SIGINT)
    stdout, stderr = p.communicate(timeout=bounded.WALL)
    assert p.returncode == 130
    assert stderr.count("\n") == 1 and stderr.startswith("mjlog: interrupted: ")
    assert "rerun the same command to resume" in stderr and "Traceback" not in stderr
    done = only_complete_shards(out)
    assert 1 <= done < SHARDS and f"{done} of {SHARDS} shards complete" in stderr
    assert not list(out.rglob(".part-*")), "temporary files left"
    assert not (out / "manifest.json").exists()
    finish(out, reference)


def test_killed_run_resumes_to_the_same_bytes(tmp_path, reference):
    out = tmp_path / "run"
    p = start(out, workers=2)
    workers = [c.pid for c in psutil.Process(p.pid).children()]
    p.kill()
    p.wait(bounded.WALL)
    wait_gone(workers)
    assert 1 <= only_complete_shards(out) < SHARDS
    finish(out, reference)


def test_killed_worker_is_reported_and_the_rerun_finishes(tmp_path, reference):
    out = tmp_path / "run"
    p = start(out, workers=2)
    psutil.Process(p.pid).children()[0].kill()
    stdout, stderr = p.communicate(timeout=bounded.WALL)
    assert p.returncode == 2 and "Traceback" not in stderr
    assert stderr.startswith("mjlog: error: a worker process died")
    assert 1 <= only_complete_shards(out) < SHARDS
    finish(out, reference)


def test_a_died_worker_leaves_no_pool_thread_behind(tmp_path, monkeypatch):
    """When the error is raised, the pool's manager thread has finished its cleanup.

    One still closing its pipes when the interpreter exits races the exit hook of
    ``concurrent.futures`` and prints a traceback after the one-line error (seen on
    a loaded CI machine); the cleanup is slowed here so that a run which did not wait
    for it would be caught every time, not once in a hundred.
    """
    import concurrent.futures.process as cfp
    import threading

    from mjlog.errors import MjlogError

    cleanup = cfp._ExecutorManagerThread.join_executor_internals

    def slow_cleanup(self):
        time.sleep(0.5)
        cleanup(self)

    monkeypatch.setattr(cfp._ExecutorManagerThread, "join_executor_internals", slow_cleanup)
    out = tmp_path / "run"

    def kill_a_worker() -> None:
        deadline = time.monotonic() + bounded.WALL  # the sign of progress: a shard
        while not list(out.glob("hands/part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.005)
        psutil.Process().children()[0].kill()

    killer = threading.Thread(target=kill_a_worker, daemon=True)
    killer.start()
    with pytest.raises(MjlogError, match="a worker process died"):
        simulate(RunSpec.build(**SPEC), out, workers=2, progress=False)
    killer.join()
    left = [t for t in threading.enumerate() if isinstance(t, cfp._ExecutorManagerThread)]
    assert left == []
    assert 1 <= only_complete_shards(out) < SHARDS


def test_a_changed_default_is_another_run_not_resumed_into_the_old(tmp_path, monkeypatch):
    """The manifest records each agent's settings, its defaults filled in: a run
    of `strategic` made before a default changed holds a different run id, so the
    same command after the change refuses its folder instead of mixing the two."""
    import simulate.agents.strategic as strategic
    from mjlog.rundir import LogError

    args = dict(variant="yuxi", seed=3, matches=2, hands_per_match=2, agents=["strategic"])
    out = tmp_path / "run"
    manifest = simulate(RunSpec.build(**args), out, workers=1, progress=False)
    assert manifest["agents"][0]["params"] == {}
    assert manifest["agents"][0]["settings"]["fold"] == strategic.DEFAULTS["fold"]
    before = files(out)
    monkeypatch.setitem(strategic.DEFAULTS, "fold", strategic.DEFAULTS["fold"] + 1)
    spec = RunSpec.build(**args)
    assert spec.run_id != manifest["run_id"]
    with pytest.raises(LogError, match="holds shards of run"):
        simulate(spec, out, workers=1, progress=False)
    assert files(out) == before


def test_ctrl_c_while_the_workers_start_still_stops_the_run(tmp_path, monkeypatch):
    """Ctrl-C pressed while the pool forks its workers is held back, not lost: the run
    stops once they are up (the first test's flake: a run that finished at exit 0).

    Held back even with another thread in the process (an xdist worker's, DuckDB's,
    tqdm's monitor): the kernel hands the signal to a thread that does not block it,
    and Python then raised KeyboardInterrupt in the main thread at once, mid-fork
    (the flake under ``-n 2`` on a loaded machine). The thread here makes that the
    case every time; the check is on what was submitted, not on time."""
    import threading
    from concurrent.futures import ProcessPoolExecutor

    from simulate.runner import RunInterrupted

    real = ProcessPoolExecutor.submit
    sent, submitted = [], []

    def submit(self, *args, **kwargs):
        if not sent:  # Ctrl-C, as the first worker is about to be forked
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
        future = real(self, *args, **kwargs)
        submitted.append(future)
        return future

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    idle = threading.Event()
    other = threading.Thread(target=idle.wait, daemon=True)  # SIGINT not blocked in it
    other.start()
    # as from a terminal, even when the test runs in a background job (see start)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(RunInterrupted):
            simulate(RunSpec.build(**SPEC), tmp_path / "run", workers=2, progress=False)
    finally:
        signal.signal(signal.SIGINT, before)
        idle.set()
        other.join()
    # held until the pool's first shards (two a worker) were all handed to it
    assert sent and len(submitted) == 4
    assert not (tmp_path / "run" / "manifest.json").exists()
