"""Progress when the output is not a terminal: long commands piped into a file or a
log print plain lines on stderr (one a finished shard, at most about 20 a run), not
minutes of nothing; `--quiet` silences them; stdout keeps only the result."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LINE = re.compile(
    r"^(?P<label>.+): (?P<done>\d+)/(?P<shards>\d+) shards, "
    r"(?P<hands>[\d,]+)/(?P<total>[\d,]+) hands, \d+ s(, about \d+ s left)?$"
)


def piped(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m mjlog ARGS`` with stdout and stderr pipes (not a terminal)."""
    p = subprocess.run(
        [sys.executable, "-m", "mjlog", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, p.stderr
    return p


def lines(stderr: str) -> list[dict]:
    got = [LINE.match(ln) for ln in stderr.splitlines()]
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
