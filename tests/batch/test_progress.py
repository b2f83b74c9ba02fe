"""Progress when the output is not a terminal: long commands piped into a file or a
log print plain lines on stderr (one a finished shard, at most about 20 a run), not
minutes of nothing; `--quiet` silences them; stdout keeps only the result."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bounded

LINE = re.compile(
    r"^(?P<label>.+): (?P<done>\d+)/(?P<shards>\d+) shards, "
    r"(?P<hands>[\d,]+)/(?P<total>[\d,]+) hands, \d+ s(, about \d+ s left)?$"
)


def piped(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m mjlog ARGS`` with stdout and stderr pipes (not a terminal)."""
    p = subprocess.run(
        bounded.python(120, "-m", "mjlog", *args),  # CPU-bounded: load cannot fail it
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=bounded.WALL,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, p.stderr
    return p


ANNOUNCED = re.compile(
    r"^(?P<label>\w+): (?P<hands>[\d,]+) hands \((?P<what>.+)\), (?P<eta>under 1 s|about [\d.]+ "
    r"(s|min|h|days)) on (?P<workers>\d+) workers? \([\d.e+]+ ms a hand, timed here\)$"
)


def lines(stderr: str) -> list[dict]:
    """The progress lines, after the one line that announces the work (checked)."""
    first, *rest = stderr.splitlines()
    assert ANNOUNCED.match(first), stderr
    got = [LINE.match(ln) for ln in rest]
    assert got and all(got), stderr
    return [m.groupdict() for m in got]


SIM = [
    "simulate",
    "--variant",
    "yuxi",
    "--agents",
    "random",
    "--hands-per-match",
    "2",
    "--hands-per-shard",
    "2",
    "--seed",
    "3",
]


def test_simulate_prints_a_line_per_shard_when_piped(tmp_path):
    p = piped([*SIM, "--matches", "4", "--workers", "1", "--out", "a"], tmp_path)
    got = lines(p.stderr)
    assert [g["done"] for g in got] == ["1", "2", "3", "4"]
    assert all(g["label"] == "simulate" and g["shards"] == "4" and g["total"] == "8" for g in got)
    assert [g["hands"] for g in got] == ["2", "4", "6", "8"]
    assert p.stdout.startswith("run ") and "shards" not in p.stdout  # the result alone
    # several workers: shards finish in any order, the count still climbs to the end
    got = lines(piped([*SIM, "--matches", "4", "--workers", "2", "--out", "b"], tmp_path).stderr)
    assert [g["done"] for g in got] == ["1", "2", "3", "4"] and got[-1]["hands"] == "8"


def test_many_small_shards_do_not_flood_the_log(tmp_path):
    got = lines(piped([*SIM, "--matches", "50", "--workers", "1", "--out", "a"], tmp_path).stderr)
    assert 10 <= len(got) <= 21
    assert got[-1]["done"] == "50" and got[-1]["hands"] == "100"


def test_quiet_is_silent_and_a_sweep_names_its_points(tmp_path):
    p = piped([*SIM, "--matches", "2", "--quiet", "--out", "a"], tmp_path)
    assert p.stderr == "" and p.stdout == ""
    args = [a if a != "simulate" else "sweep" for a in SIM]
    p = piped(
        [*args, "--matches", "2", "--workers", "1", "--grid", "cap=2,8", "--out", "s"], tmp_path
    )
    got = lines(p.stderr)
    assert [(g["label"], g["done"]) for g in got] == [
        ("cap=2", "1"),
        ("cap=2", "2"),
        ("cap=8", "1"),
        ("cap=8", "2"),
    ]
    p = piped(
        [*args, "--matches", "2", "--workers", "1", "--grid", "cap=2,16", "--quiet", "--out", "t"],
        tmp_path,
    )
    assert p.stderr == ""


def test_a_report_on_large_runs_says_which_step_it_is_at(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import analysis.report
    from mjlog.cli import main

    run = tmp_path / "run"
    assert (
        CliRunner().invoke(main, [*SIM, "--matches", "2", "--quiet", "--out", str(run)]).exit_code
        == 0
    )
    monkeypatch.setattr(analysis.report, "LARGE", 4)  # these 4 hands are "large"
    res = CliRunner().invoke(main, ["report", str(run), "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    steps = res.stderr.splitlines()
    assert steps[0].startswith("report: 1 runs, 4 hands: computing the tables, ")
    assert steps[-1].startswith("report: page written, ") and len(steps) == 4
    assert res.stdout.strip() == str(tmp_path / "r" / "index.html")
    res = CliRunner().invoke(main, ["report", str(run), "--quiet", "--out", str(tmp_path / "q")])
    assert res.exit_code == 0 and res.stderr == ""
    # (runs below LARGE print no line: tests/analysis/test_report_shapes.py)


# ------------------------------------------------------------------ long work announced


def _cpu_bounded(args: list[str], cwd: Path, cpu_seconds: int, until: str) -> tuple[str, int]:
    """``python -m mjlog ARGS`` with its CPU time bounded (:mod:`tests.bounded`, so a
    loaded machine cannot fail it): stderr read line by line until a line holds
    ``until``, then the process is stopped; (stderr so far, return code or 0 when
    stopped)."""
    import os
    import signal

    p = subprocess.Popen(
        bounded.python(cpu_seconds, "-m", "mjlog", *args),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    seen = []
    assert p.stderr is not None
    for line in p.stderr:
        seen.append(line)
        if until in line:
            os.killpg(p.pid, signal.SIGKILL)  # the run and its workers
            p.wait()
            return "".join(seen), 0
    return "".join(seen), p.wait()


def test_a_huge_run_announces_itself_and_refuses_without_yes_when_piped(tmp_path):
    args = [*SIM, "--matches", "1000000000", "--hands-per-shard", "2000", "--out", "big"]
    p = subprocess.run(
        [sys.executable, "-m", "mjlog", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 2, p.stderr
    first, second = p.stderr.splitlines()
    m = ANNOUNCED.match(first)
    assert m and m["hands"] == "2,000,000,000", first
    assert "pass --yes" in second and not (tmp_path / "big").exists()


def test_a_huge_run_shows_progress_after_a_few_cpu_seconds(tmp_path):
    """Before: the set-up walked every one of its 10^6 shards before the first line
    (killed at 15 CPU seconds with nothing printed). Bounded by CPU time, not by the
    clock: a busy machine cannot fail it."""
    args = [*SIM, "--matches", "1000000000", "--hands-per-shard", "2000", "--yes"]
    args += ["--workers", "1", "--out", "big"]
    err, code = _cpu_bounded(args, tmp_path, 15, "/1000000 shards, ")
    assert code == 0, err  # stopped by the test after its first progress line
    first = err.splitlines()[0]
    assert ANNOUNCED.match(first), err


@pytest.mark.parametrize(
    "args, hands",
    [
        (
            ["sweep", "--variant", "xuezhan", "--grid", "cap=8,16", "--matches", "10000000"],
            "160,000,000",
        ),
        (["balance", "xuezhan", "--hands", "100000000"], "200,000,000"),
        (
            ["ladder", "--variant", "xuezhan", "--agents", "greedy", "--hands", "100000000"],
            "100,000,000",
        ),
        (
            ["tune", "xuezhan", "--vary", "cap=8:64", "--target", "draw_rate=0.3±0.1"]
            + ["--budget", "100000000"],
            "100,000,000",
        ),
    ],
    ids=["sweep", "balance", "ladder", "tune"],
)
def test_every_playing_command_announces_and_refuses_past_the_bound(args, hands, tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "mjlog", *args, "--out", "o", "--agents", "random"]
        if args[0] in ("balance", "tune", "sweep")
        else [sys.executable, "-m", "mjlog", *args, "--out", "o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 2, p.stderr
    first, second = p.stderr.splitlines()
    m = ANNOUNCED.match(first)
    assert m and m["label"] == args[0] and m["hands"] == hands, first
    assert "pass --yes" in second and not (tmp_path / "o").exists()


def test_a_sweep_by_default_plays_a_size_that_can_say_something(tmp_path):
    """--matches defaults to 250 a point (2,000 hands at 8 a match), announced."""
    args = ["sweep", "--variant", "xuezhan", "--agents", "random", "--grid", "cap=8,16"]
    err, code = _cpu_bounded([*args, "--workers", "1", "--out", "s"], tmp_path, 30, "hands (")
    assert code == 0, err
    m = ANNOUNCED.match(err.splitlines()[0])
    assert m and m["hands"] == "4,000", err
    assert m["what"] == "2 points × 2,000 hands, 250 matches of 8 a point"


def test_at_a_terminal_long_work_is_asked_for_and_no_declines_it(tmp_path):
    """At a terminal, past the bound, the command asks; 'n' starts nothing (exit 2)."""
    import os
    import pty

    master, slave = pty.openpty()
    args = [*SIM, "--matches", "1000000000", "--hands-per-shard", "2000", "--out", "big"]
    p = subprocess.Popen(
        bounded.python(60, "-m", "mjlog", *args),
        cwd=tmp_path,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    while b"start it?" not in seen:
        try:
            chunk = os.read(master, 1024)
        except OSError:  # the child closed the terminal without asking
            chunk = b""
        assert chunk, seen
        seen += chunk
    os.write(master, b"n\n")
    assert p.wait(timeout=bounded.WALL) == 2
    try:
        while chunk := os.read(master, 1024):
            seen += chunk
    except OSError:  # the terminal closed with the child
        pass
    os.close(master)
    text = seen.decode()
    assert "2,000,000,000 hands" in text and "not started" in text
    assert not (tmp_path / "big").exists()
