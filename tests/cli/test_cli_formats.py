"""One output convention: every reporting command's `--format json` is the documented
shape (docs/cli.md), text stays short, and errors give the valid range."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main


def cli(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("fmt") / "r"
    res = cli(
        "simulate",
        "--variant",
        "xuezhan",
        "--matches",
        "2",
        "--hands-per-match",
        "2",
        "--seed",
        "5",
        "--workers",
        "1",
        "--quiet",
        "--format",
        "json",
        "--out",
        out,
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert {"run_id", "variant", "out", "seed", "matches", "hands", "files"} <= doc.keys()
    assert (doc["variant"], doc["hands"], doc["seed"]) == ("xuezhan", 4, 5)
    return out


def test_validate_json_lists_every_finding(run):
    res = cli("validate", run, "--workers", "1", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["hands"] == 4 and doc["problems"] == [] and doc["runs"] == 1


def test_validate_writes_no_report_unless_asked(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("validate", run, "--workers", "1").exit_code == 0
    assert list(tmp_path.iterdir()) == []


def test_replay_prints_a_summary_by_default_and_every_step_on_request(run):
    short = cli("replay", run, "--hand", "0:1", "--notation")
    assert short.exit_code == 0, short.output
    steps = cli("replay", run, "--hand", "0:1", "--notation", "--step")
    n_events = json.loads(cli("replay", run, "--hand", "0:1", "--format", "json").stdout)[
        "n_events"
    ]
    assert "money:" in short.output and "--step" in short.output
    assert len(short.output.splitlines()) < 20 < n_events
    assert steps.output.count("seq ") == n_events  # one table per event
    at = cli("replay", run, "--hand", "0:1", "--at", n_events)
    assert at.exit_code == 2 and f"events 0..{n_events - 1}" in at.output


def test_no_such_hand_gives_the_valid_ranges(run):
    res = cli("replay", run, "--hand", "5:0")
    assert res.exit_code == 2 and "matches 0..1, hands 0..1" in res.output


def test_ladder_prints_text_json_or_csv(tmp_path):
    base = (
        "ladder",
        "--variant",
        "yuxi",
        "--agents",
        "greedy,random,greedy,random",
        "--hands",
        "8",
        "--hands-per-match",
        "1",
        "--workers",
        "1",
        "--quiet",
    )
    rows = json.loads(cli(*base, "--format", "json").stdout)
    table = list(csv.DictReader(io.StringIO(cli(*base, "--format", "csv").stdout)))
    assert [r["agent"] for r in rows] == [r["agent"] for r in table]
    assert {r["agent"] for r in rows} == {"greedy", "random"}


# mjlog report --format json: tests/analysis/test_report_cli.py (its shared page is asked so)


def test_agents_help_lists_the_registered_agents():
    from simulate.agents import agent_names

    for cmd in ("simulate", "sweep", "ladder"):
        text = " ".join(cli(cmd, "--help").output.split())
        assert all(name in text for name in agent_names()), cmd
