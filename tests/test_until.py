"""`mjlog simulate --until METRIC=HALF_WIDTH --max-hands N`: whole shards until precise."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analysis import compare
from mjlog.cli import main
from simulate.until import MIN_MATCHES, parse_until

ARGS = ["simulate", "--variant", "yuxi", "--seed", "3", "--agents", "random",
        "--hands-per-match", "2", "--hands-per-shard", "20", "--events", "none", "--quiet"]


def _files(d):
    """The run's data files and manifest (not the runner's hidden marker, which journals
    shards in the order they finished)."""
    return {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def until_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("until")
    for w in ("1", "2"):
        res = CliRunner().invoke(main, [*ARGS, "--until", "money_moved_per_hand=0.15",
                                        "--max-hands", "300", "--workers", w,
                                        "--out", str(d / f"w{w}")])
        assert res.exit_code == 0, res.output
    return d


def test_same_bytes_whatever_the_workers_and_as_plain_matches(until_runs):
    d = until_runs
    assert _files(d / "w1") == _files(d / "w2")
    m = json.loads((d / "w1" / "manifest.json").read_text())
    rule = m["until"]
    assert rule["reached"] and rule["achieved_half_width"] <= 0.15
    assert m["matches"] * 2 == rule["hands"] and m["matches"] >= MIN_MATCHES
    assert m["matches"] % 10 == 0  # whole shards of 10 matches
    # the run is the one --matches M writes
    res = CliRunner().invoke(main, [*ARGS, "--matches", str(m["matches"]), "--workers", "1",
                                    "--out", str(d / "plain")])
    assert res.exit_code == 0, res.output
    plain = _files(d / "plain")
    got = _files(d / "w1")
    assert {k: v for k, v in got.items() if k.name != "manifest.json"} == \
        {k: v for k, v in plain.items() if k.name != "manifest.json"}
    # no scratch left beside it
    assert not [p for p in d.iterdir() if ".until-" in p.name]


def test_the_rule_stops_at_the_first_precise_prefix(until_runs):
    m = json.loads((until_runs / "w1" / "manifest.json").read_text())
    p = compare.precision(until_runs / "w1", 0.15).set_index("metric")
    assert p.loc["money_moved_per_hand", "half_width"] <= 0.15
    assert p.loc["money_moved_per_hand", "matches"] == m["matches"]
    # one shard fewer was not precise enough (or too small to judge)
    if m["matches"] - 10 >= MIN_MATCHES:
        CliRunner().invoke(main, [*ARGS, "--matches", str(m["matches"] - 10), "--workers", "1",
                                  "--out", str(until_runs / "fewer")])
        q = compare.precision(until_runs / "fewer", 0.15).set_index("metric")
        assert q.loc["money_moved_per_hand", "half_width"] > 0.15


def test_max_hands_stops_and_says_so(tmp_path):
    res = CliRunner().invoke(main, [*ARGS[:-1], "--until", "draw_rate=0.0001",
                                    "--max-hands", "60", "--workers", "1",
                                    "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert "NOT reached" in res.output
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert m["matches"] == 30 and not m["until"]["reached"]


@pytest.mark.parametrize("args", [["--until", "draw_rate"], ["--until", "x=1",
                                                              "--max-hands", "10"],
                                  ["--until", "draw_rate=0.1"], ["--max-hands", "10"],
                                  ["--until", "draw_rate=-1", "--max-hands", "10"],
                                  ["--until", "draw_rate=0.1", "--max-hands", str(10**13)]])
def test_bad_until_is_one_line(tmp_path, args):
    res = CliRunner().invoke(main, [*ARGS, *args, "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert res.output.startswith("mjlog: error:")


def test_parse_until():
    assert parse_until(" capped_share = 0.01 ") == ("capped_share", 0.01)
    with pytest.raises(ValueError):
        parse_until("draw_rate=abc")
