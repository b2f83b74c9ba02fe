"""Batch runs: same bytes for 1 worker, 2 workers and Dask; duplicate play; --events
none; progress only on a terminal; layout mismatches refused."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.logio import read_manifest, read_table, verify_manifest
from simulate.runner import RunSpec, simulate
from tests import bounded

# 6 shards of 4 matches × 5 hands: enough for two workers to interleave.
SPEC = dict(
    variant="yuxi", seed=5, matches=24, hands_per_match=5, agents=["random"], hands_per_shard=20
)
CLI = [
    "simulate",
    "--variant",
    "yuxi",
    "--seed",
    "5",
    "--matches",
    "24",
    "--hands-per-match",
    "5",
    "--agents",
    "random",
    "--hands-per-shard",
    "20",
    "--quiet",
]


def files(run: Path) -> dict[str, bytes]:
    """Every file of a run directory but the resume marker, by relative path."""
    return {
        str(p.relative_to(run)): p.read_bytes()
        for p in sorted(run.rglob("*"))
        if p.is_file() and p.name != ".run_id"
    }


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("w1")
    simulate(RunSpec.build(**SPEC), out, workers=1, progress=False)
    return out


def test_two_workers_write_the_same_bytes_as_one(one_worker, tmp_path):
    ref = files(one_worker)
    assert len([p for p in ref if p.startswith("hands/")]) == 6
    assert verify_manifest(one_worker) == []
    res = CliRunner().invoke(main, CLI + ["--workers", "2", "--out", str(tmp_path / "w2")])
    assert res.exit_code == 0, res.output
    assert files(tmp_path / "w2") == ref


def test_dask_cluster_writes_the_same_bytes(one_worker, tmp_path):
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        res = CliRunner().invoke(
            main, CLI + ["--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")]
        )
    assert res.exit_code == 0, res.output
    assert files(tmp_path / "dask") == files(one_worker)


def test_layout_is_in_the_manifest_and_cannot_be_mixed(one_worker, tmp_path):
    m = read_manifest(one_worker)
    assert (m["hands_per_shard"], m["events"]) == (20, "all")
    # The layout does not enter the run id: the rows are the same at any shard size.
    big = tmp_path / "big"
    m2 = simulate(
        RunSpec.build(**{**SPEC, "hands_per_shard": 1000}), big, workers=1, progress=False
    )
    assert m2["run_id"] == m["run_id"] and len(m2["files"]) == 4
    assert read_table(big, "events").to_pylist() == read_table(one_worker, "events").to_pylist()
    res = CliRunner().invoke(main, CLI + ["--workers", "1", "--out", str(big)])
    assert res.exit_code == 2
    assert "hands_per_shard=1000" in res.output and "choose another --out" in res.output


def test_a_complete_run_is_not_rewritten(one_worker):
    before = {p: p.stat().st_mtime_ns for p in one_worker.rglob("*") if p.is_file()}
    simulate(RunSpec.build(**SPEC), one_worker, workers=2, progress=False)
    assert {p: p.stat().st_mtime_ns for p in one_worker.rglob("*") if p.is_file()} == before


def test_events_none_writes_hands_wins_transfers_only(one_worker, tmp_path):
    out = tmp_path / "lean"
    m = simulate(RunSpec.build(**SPEC, events=False), out, workers=2, progress=False)
    assert {f["table"] for f in m["files"]} == {"hands", "wins", "transfers"}
    assert not (out / "events").exists() and m["events"] == "none"
    assert verify_manifest(out) == []
    for t in ("hands", "wins", "transfers"):
        assert read_table(out, t).to_pylist() == read_table(one_worker, t).to_pylist()


def test_duplicate_play_fixes_walls_and_dealers_and_rotates_agents(tmp_path):
    lineup = ["greedy", "random", "random", "random"]
    spec = RunSpec.build(
        "yuxi",
        seed=3,
        matches=2,
        hands_per_match=4,
        agents=lineup,
        duplicate=True,
        hands_per_shard=16,
    )
    m = simulate(spec, tmp_path, workers=2, progress=False)
    assert m["duplicate"] is True and spec.total_hands == 2 * 4 * 4
    hands = read_table(tmp_path, "hands").to_pylist()
    assert len(hands) == 32
    by = {(h["match"], h["rotation"], h["hand"]): h for h in hands}
    for match in range(2):
        first = by[(match, 0, 0)]["dealer"]
        for k in range(4):
            same = [by[(match, r, k)] for r in range(4)]
            assert len({tuple(h["wall"]) for h in same}) == 1
            assert len({(h["hand_seed"], h["break"], tuple(h["dice"])) for h in same}) == 1
            for r, h in enumerate(same):
                assert h["dealer"] == (first + k) % 4
                assert h["agents"] == [lineup[(s - r) % 4] for s in range(4)]
    for table in ("events", "wins", "transfers"):
        keys = read_table(tmp_path, table, columns=["match", "rotation", "hand"]).to_pylist()
        assert {tuple(k.values()) for k in keys} <= by.keys(), table
        if table == "events":
            assert {k["rotation"] for k in keys} == {0, 1, 2, 3}
    # Outcomes differ between rotations (the agents moved), so the rotation is real.
    assert len({tuple(by[(0, r, 0)]["deltas"]) for r in range(4)}) > 1


def test_progress_bar_only_on_a_terminal(tmp_path):
    args = [*CLI[:-1], "--matches", "2", "--workers", "1"]
    # Not a terminal: plain lines on stderr, no bar (the summary line goes to stdout);
    # tests/batch/test_progress.py holds them to their form.
    r = CliRunner().invoke(main, args + ["--out", str(tmp_path / "a")])
    assert r.exit_code == 0 and "10 hands of yuxi" in r.stdout
    announced, progress = r.stderr.split("\n", 1)  # the estimate, then the progress
    assert announced.startswith("simulate: 10 hands (")
    assert progress.startswith("simulate: 1/1 shards, 10/10 hands, ") and "\r" not in r.stderr
    # --quiet: nothing at all.
    r = CliRunner().invoke(main, args + ["--quiet", "--out", str(tmp_path / "b")])
    assert r.exit_code == 0 and r.output == ""
    # A terminal: tqdm's bar with the hands done, the rate and the ETA. Its CPU is
    # bounded, not the wall clock: on a loaded machine the child may print nothing
    # for a minute (tests/bounded.py); the end of its output is the sign it is done.
    cmd = bounded.python(120, "-m", "mjlog", *args)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    p = subprocess.Popen(
        cmd + ["--out", str(tmp_path / "c")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], bounded.WALL)
        try:
            chunk = os.read(master, 4096) if ready else b""
        except OSError:  # the child closed the terminal
            chunk = b""
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert p.wait(bounded.WALL) == 0
    text = seen.decode()
    assert "10/10" in text and "hand/s" in text and "<00:00" in text


@pytest.mark.parametrize("where", ["workers", "dask"])
def test_runs_played_side_by_side_write_each_run_as_alone(one_worker, tmp_path, where):
    """simulate_runs: the shards of several runs on one pool (or cluster) write each
    run's bytes as simulate writes it alone, and tell of each run once complete."""
    from simulate.runner import RunJob, simulate_runs

    other = RunSpec.build(**{**SPEC, "seed": 6, "matches": 9})
    alone = tmp_path / "alone"
    simulate(other, alone, workers=1, progress=False)
    jobs = [RunJob(RunSpec.build(**SPEC), tmp_path / "a"), RunJob(other, tmp_path / "b")]
    told: list[int] = []

    def run(scheduler=None):
        return simulate_runs(
            jobs,
            workers=2,
            scheduler=scheduler,
            on_run=lambda i, m: told.append(i) or (tmp_path / "ab"[i] / "manifest.json").exists(),
        )

    if where == "dask":
        from distributed import LocalCluster

        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster:
            made = run(cluster.scheduler_address)
    else:
        made = run()
    assert sorted(told) == [0, 1]  # each told once, its manifest written by then
    assert [m["seed"] for m in made] == [5, 6]
    assert files(tmp_path / "a") == files(one_worker)
    assert files(tmp_path / "b") == files(alone)
    told.clear()  # complete already: told again, nothing replayed
    assert run() == made and sorted(told) == [0, 1]
