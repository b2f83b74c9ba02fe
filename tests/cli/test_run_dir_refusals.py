"""The hostile-input suite, run directories: every command against every way a run
directory or an output path can be wrong.

Each case copies one small run, damages the copy one way, and runs one command on
it. A refusal must be one line on stderr (a finding, for ``validate``), with a
non-zero exit, no traceback, nothing written, and the inputs unchanged
(:func:`tests.hostile.refused`). The cases that must *succeed* (resume after a
damaged shard, glob characters in a name) compare bytes with an untouched run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import bounded
from tests.hostile import refused, run, snapshot

SIM = [
    "simulate",
    "--variant",
    "yuxi",
    "--matches",
    "2",
    "--hands-per-match",
    "2",
    "--hands-per-shard",
    "2",
    "--workers",
    "1",
    "--quiet",
]


def sim(out: Path, seed: int = 3, cwd: Path | None = None, extra: tuple = ()) -> None:
    """A run the cases start from or compare with, made in this process (the commands
    under test run in a child where a process matters: killed, racing, resumed)."""
    res = run(
        [*SIM, "--seed", str(seed), *extra, "--out", str(out)], cwd or out.parent, isolate=False
    )
    assert res.code == 0, res.stderr


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A run of two shards, written once; cases work on copies."""
    d = tmp_path_factory.mktemp("pristine") / "r"
    sim(d)
    return d


@pytest.fixture(scope="module")
def hand(pristine, tmp_path_factory) -> Path:
    """Hand 0:0 of the pristine run as JSON lines, exported once."""
    path = tmp_path_factory.mktemp("hand") / "hand.jsonl"
    exp = run(["export", str(pristine), "--hand", "0:0"], path.parent, isolate=False)
    assert exp.code == 0, exp.stderr
    path.write_text(exp.stdout)
    return path


@pytest.fixture
def r(pristine, tmp_path) -> Path:
    dst = tmp_path / "r"
    shutil.copytree(pristine, dst, symlinks=True)
    return dst


def files(run_dir: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(run_dir)): p.read_bytes()
        for p in sorted(run_dir.rglob("*"))
        if p.is_file() and p.name != ".run_id"
    }


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text())


def set_manifest(run_dir: Path, m: dict) -> None:
    (run_dir / "manifest.json").write_text(json.dumps(m, indent=2))


# ------------------------------------------------------------- outputs into a run

OUTPUT_INTO_RUN = {
    "replay --html onto a shard": [
        "replay",
        "{r}",
        "--hand",
        "0:0",
        "--html",
        "{r}/hands/part-00000.parquet",
    ],
    "replay --html-dir into a table folder": ["replay", "{r}", "--html-dir", "{r}/hands"],
    "export --out onto the manifest": [
        "export",
        "{r}",
        "--hand",
        "0:0",
        "--out",
        "{r}/manifest.json",
    ],
    "validate --report onto the manifest": ["validate", "{other}", "--report", "{r}/manifest.json"],
    "report --out into a table folder": ["report", "{r}", "--out", "{r}/hands"],
    "report --out into the run": ["report", "{r}", "--out", "{r}"],
    "ladder --csv onto the manifest": [
        "ladder",
        "--variant",
        "yuxi",
        "--agents",
        "greedy,greedy,greedy,greedy",
        "--hands",
        "4",
        "--csv",
        "{r}/manifest.json",
    ],
    "ladder --out into a run": [
        "ladder",
        "--variant",
        "yuxi",
        "--agents",
        "greedy,greedy,greedy,greedy",
        "--hands",
        "4",
        "--out",
        "{r}/sub",
    ],
    "simulate --out nested in a run": [*SIM, "--out", "{r}/nested"],
    "balance --out into the run": [
        "balance",
        "yuxi",
        "--agents",
        "greedy",
        "--hands",
        "4",
        "--hands-per-match",
        "1",
        "--quiet",
        "--out",
        "{r}",
    ],
    "balance --out nested in a run": [
        "balance",
        "yuxi",
        "--agents",
        "greedy",
        "--hands",
        "4",
        "--hands-per-match",
        "1",
        "--quiet",
        "--out",
        "{r}/balance",
    ],
    "sweep --out nested in a run": [
        "sweep",
        "--variant",
        "yuxi",
        "--grid",
        "cap=8,16",
        "--matches",
        "1",
        "--hands-per-match",
        "1",
        "--quiet",
        "--out",
        "{r}/sweep",
    ],
    "import --out nested in a run": ["import", "{hand}", "--out", "{r}/imported"],
}


@pytest.mark.parametrize("case", sorted(OUTPUT_INTO_RUN))
def test_no_command_writes_into_a_run(case, r, pristine, hand, tmp_path):
    # refused before anything is read or played: nothing can hang, so in this process
    args = [a.format(r=r, other=pristine, hand=hand) for a in OUTPUT_INTO_RUN[case]]
    refused(
        args,
        tmp_path,
        inputs=[r, pristine, hand],
        needle="never written to" if "nested" not in case and "ladder --out" not in case else None,
        isolate=False,
    )


# ------------------------------------------------------------- simulate --out


def test_simulate_refuses_a_directory_that_is_not_a_run(tmp_path):
    out = tmp_path / "mine"
    (out / "hands").mkdir(parents=True)
    (out / "hands" / "part-00000.parquet").write_bytes(b"my own file, not a shard")
    (out / "notes.txt").write_text("keep me")
    refused([*SIM, "--out", str(out)], tmp_path, inputs=[out], needle="not empty")


def test_simulate_refuses_another_run_when_the_marker_is_gone(r, tmp_path):
    (r / ".run_id").unlink()
    refused([*SIM, "--seed", "4", "--out", str(r)], tmp_path, inputs=[r], needle="holds run")


def test_simulate_refuses_another_seed_into_a_run(r, tmp_path):
    refused(
        [*SIM, "--seed", "4", "--out", str(r)], tmp_path, inputs=[r], needle="holds shards of run"
    )


@pytest.mark.parametrize("damage", ["truncate", "bitflip", "foreign", "symlink"])
def test_resume_replays_a_damaged_shard_and_never_folds_it_in(damage, r, pristine, tmp_path):
    """A shard that exists is not trusted for existing: it is checked, and replayed."""
    (r / "manifest.json").unlink()  # an interrupted run: no manifest yet
    victim = r / "events" / "part-00001.parquet"
    data = victim.read_bytes()
    if damage == "truncate":
        victim.write_bytes(data[: len(data) // 2])
    elif damage == "bitflip":
        b = bytearray(data)
        b[len(b) // 2] ^= 0x04
        victim.write_bytes(b)
    elif damage == "foreign":  # a well-formed shard of another run, same shape
        other = tmp_path / "other"
        sim(other, seed=9)
        shutil.copy(other / "events" / "part-00001.parquet", victim)
    else:  # a symlink to a file outside the run
        outside = tmp_path / "outside.parquet"
        outside.write_bytes(data)
        victim.unlink()
        victim.symlink_to(outside)
    res = run([*SIM, "--seed", "3", "--out", str(r)], tmp_path)
    assert res.code == 0, res.stderr
    assert files(r) == files(pristine)


def test_two_writers_into_one_out_never_mix(tmp_path):
    """Different seeds started together into one --out: one run is written, whole;
    the other writer stops with one line."""
    out = tmp_path / "race"
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mjlog",
                *SIM[:-3],
                "--quiet",
                "--workers",
                "1",
                "--seed",
                str(seed),
                "--out",
                str(out),
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for seed in (21, 22)
    ]
    results = []
    for p in procs:
        err = p.communicate(timeout=bounded.WALL)[1]  # waits (a deadlock only), closes the pipes
        results.append((p.returncode, err))
    codes = sorted(c for c, _ in results)
    assert codes[0] == 0 and codes[1] != 0, results
    loser = next(err for c, err in results if c != 0)
    assert len(loser.strip().splitlines()) == 1 and "Traceback" not in loser, loser
    winner_seed = 21 if results[0][0] == 0 else 22
    ref = tmp_path / "ref"
    sim(ref, seed=winner_seed)
    assert files(out) == files(ref)


def test_kill_9_then_resume_is_byte_identical(pristine, tmp_path):
    out = tmp_path / "killed"
    big = ["--matches", "40", "--hands-per-shard", "8"]
    args = [sys.executable, "-m", "mjlog", *SIM, "--seed", "3", *big, "--out", str(out)]
    p = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the sign of progress is the shards on disk, not the clock (a busy machine is slow)
    deadline = time.monotonic() + bounded.WALL
    while (
        p.poll() is None
        and time.monotonic() < deadline
        and len(list((out / "hands").glob("part-*"))) < 2
    ):
        time.sleep(0.05)
    p.kill()
    p.wait()
    assert not (out / "manifest.json").exists(), "finished before it was killed: no test"
    res = run([*SIM, "--seed", "3", *big, "--out", str(out)], tmp_path)
    assert res.code == 0, res.stderr
    ref = tmp_path / "ref"
    sim(ref, seed=3, extra=tuple(big))
    assert files(out) == files(ref)


# ------------------------------------------------------------- damaged runs, every reader


def _dup_entry(r: Path) -> None:
    m = manifest(r)
    m["files"].append(dict(m["files"][0]))
    set_manifest(r, m)


def _path(value: str):
    def damage(r: Path) -> None:
        m = manifest(r)
        m["files"][0]["path"] = value.format(r=r)
        set_manifest(r, m)

    return damage


def _wrong_run_id(r: Path) -> None:
    m = manifest(r)
    m["run_id"] = "0123456789abcdef"
    set_manifest(r, m)


def _bitflip(r: Path) -> None:
    p = r / "hands" / "part-00000.parquet"
    b = bytearray(p.read_bytes())
    b[len(b) // 3] ^= 0x10
    p.write_bytes(b)


def _truncate(r: Path) -> None:
    p = r / "wins" / "part-00000.parquet"
    p.write_bytes(p.read_bytes()[:100])


def _zero_bytes(r: Path) -> None:
    (r / "transfers" / "part-00000.parquet").write_bytes(b"")


def _symlink_shard_outside(r: Path) -> None:
    p = r / "hands" / "part-00000.parquet"
    outside = r.parent / "elsewhere.parquet"
    shutil.copy(p, outside)
    p.unlink()
    p.symlink_to(outside)


def _symlink_table_outside(r: Path) -> None:
    outside = r.parent / "elsewhere_wins"
    shutil.move(str(r / "wins"), outside)
    (r / "wins").symlink_to(outside)


def _delete_events(r: Path) -> None:
    (r / "events" / "part-00000.parquet").unlink()


def _fifo(r: Path) -> None:
    p = r / "events" / "part-00000.parquet"
    p.unlink()
    os.mkfifo(p)


def _field_type(key: str, value):
    def damage(r: Path) -> None:
        m = manifest(r)
        m[key] = value
        set_manifest(r, m)

    return damage


def _rows_type(r: Path) -> None:
    m = manifest(r)
    m["files"][0]["rows"] = "12"
    set_manifest(r, m)


def _nested(r: Path) -> None:
    (r / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)


def _huge_number(r: Path) -> None:
    text = (r / "manifest.json").read_text()
    (r / "manifest.json").write_text(text.replace('"matches": 2', '"matches": ' + "9" * 5000))


def _nan(r: Path) -> None:
    text = (r / "manifest.json").read_text()
    (r / "manifest.json").write_text(text.replace('"matches": 2', '"matches": NaN'))


DAMAGE = {
    "duplicate entry": (_dup_entry, "listed twice"),
    "path with ..": (_path("hands/../../elsewhere/part-00000.parquet"), "climbs out"),
    "absolute path": (_path("{r}/hands/part-00000.parquet"), "absolute"),
    "path not in the layout": (_path("hands/part-*.parquet"), "part-NNNNN.parquet"),
    "wrong run_id": (_wrong_run_id, "not the hash"),
    "bit flip in a page": (_bitflip, "sha256"),
    "truncated shard": (_truncate, "bytes"),
    "zero-byte shard": (_zero_bytes, "bytes"),
    "shard symlinked outside": (_symlink_shard_outside, "outside the run"),
    "table folder symlinked outside": (_symlink_table_outside, "outside the run"),
    "events shard deleted": (_delete_events, "missing"),
    "shard replaced by a FIFO": (_fifo, "not a regular file"),
    "matches of the wrong type": (_field_type("matches", "2"), "'matches' must be int"),
    "files not a list": (_field_type("files", {"a": 1}), "'files' must be a list"),
    "rows of the wrong type": (_rows_type, "bad or missing 'rows'"),
    "nested 100,000 deep": (_nested, "nested too deeply"),
    "5,000-digit integer": (_huge_number, "not valid JSON"),
    "NaN in the manifest": (_nan, "not valid JSON"),
}

ISOLATE = {"shard replaced by a FIFO"}  # could hang: run in a child with a time limit

READERS = {
    "replay": ["replay", "{r}", "--hand", "0:0"],
    "replay --html": ["replay", "{r}", "--hand", "0:0", "--html", "{out}/h.html"],
    "export": ["export", "{r}", "--hand", "0:0", "--out", "{out}/h.jsonl"],
    "report": ["report", "{r}", "--out", "{out}/rep"],
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_refuses_a_damaged_run(reader, damage, r, tmp_path):
    if damage == "events shard deleted" and reader == "report":
        pytest.skip("report reads no events: a run without its events is still reportable")
    DAMAGE[damage][0](r)
    out = tmp_path / "out"
    out.mkdir()
    args = [a.format(r=r, out=out) for a in READERS[reader]]
    refused(
        args, tmp_path, inputs=[r], watch=[out], needle=DAMAGE[damage][1], isolate=damage in ISOLATE
    )


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_validate_reports_a_damaged_run_naming_the_file(damage, r, tmp_path):
    DAMAGE[damage][0](r)
    refused(
        ["validate", str(r), "--workers", "1"],
        tmp_path,
        inputs=[r],
        finding=True,
        isolate=damage in ISOLATE,
    )


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_runs_api_refuses_a_damaged_run(damage, r):
    from analysis.queries import Runs, seat_stats
    from mjlog.logio import LogError

    if damage == "events shard deleted":
        pytest.skip("the figures read no events")
    before = snapshot(r)
    DAMAGE[damage][0](r)
    damaged = snapshot(r)
    with pytest.raises(LogError, match=re.escape(DAMAGE[damage][1])) as e:
        seat_stats(Runs(r))
    assert "\n" not in str(e.value)
    assert snapshot(r) == damaged != before


def test_glob_characters_in_a_run_name_are_literal(pristine, tmp_path):
    from analysis.queries import Runs, seat_stats

    literal = tmp_path / "run[1]"
    shutil.copytree(pristine, literal)
    decoy = tmp_path / "run1"
    sim(decoy, seed=77)
    got = seat_stats(Runs(literal), by="seat")
    want = seat_stats(Runs(pristine), by="seat")
    assert got["mean_points"].tolist() == want["mean_points"].tolist()
    assert got["mean_points"].tolist() != seat_stats(Runs(decoy), by="seat")["mean_points"].tolist()


def test_runs_hash_check_can_be_turned_off_for_trusted_data(r):
    from analysis.queries import Runs, seat_stats
    from mjlog.logio import LogError

    p = r / "wins" / "part-00001.parquet"
    data = bytearray(p.read_bytes())
    data[-12] ^= 0x01  # in the footer's length field: the file is still its size
    p.write_bytes(data)
    with pytest.raises(LogError, match="sha256"):
        seat_stats(Runs(r))
    with pytest.raises(LogError, match="Parquet"):
        seat_stats(Runs(r, verify_hashes=False))


def test_a_value_the_log_cannot_hold_stops_simulate_with_one_line(tmp_path):
    """Rules whose money may pass the int32 columns are refused before any hand
    (huangmei doubling with a cap of 40 doublings); should a value still reach the
    writer (a spec made without that check), the run stops with one error naming
    the shard, keeps no part of it, and stays resumable (its complete shards, none
    here, stay)."""
    from mjlog.errors import MjlogError
    from mjlog.rules import resolve
    from simulate.runner import RunSpec, simulate

    out = tmp_path / "runs" / "overflow"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    sets = ["payment=doubling", "doubling_cap=40", "base=1000000000"]
    refused(
        [
            "simulate",
            "--variant",
            "huangmei",
            *[a for s in sets for a in ("--set", s)],
            "--matches",
            "2",
            "--hands-per-match",
            "4",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
        cwd,
        needle="int32",
        isolate=False,
    )
    assert not out.exists()
    spec = RunSpec(resolve("huangmei", sets=sets), 0, 2, 4, ("greedy",) * 4)
    with pytest.raises(MjlogError, match="cannot log") as e:
        simulate(spec, out, workers=1, progress=False)
    assert "nothing of shard 0 was kept" in str(e.value) and "\n" not in str(e.value)
    assert not list(out.rglob("*.parquet")) and not (out / "manifest.json").exists()
