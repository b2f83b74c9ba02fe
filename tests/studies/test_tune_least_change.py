"""``mjlog tune`` proposes the least change: the rules as they are measured beside the
candidates, a key no target responds to kept, no change when nothing moves a target.

``greedy`` never reads the rules' values, so under it a money-only key changes no
choice: every candidate plays the same hands. That makes these answers known.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analysis.studies.tune import parse_target, parse_vary
from analysis.studies.tune.choice import distance
from mjlog.cli import main

QUIET = ["--agents", "greedy", "--workers", "1", "--quiet", "--format", "json"]


def _tune(out, *args):
    r = CliRunner().invoke(main, [*args, *QUIET, "--out", str(out)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_target_no_key_moves_proposes_no_change_and_says_why(tmp_path):
    # greedy's draws do not depend on the cap, and the rulebook's cap (16) lies
    # outside the searched range: it is measured anyway, as trial 0, and kept
    args = ["tune", "xuezhan", "--vary", "cap=20:32", "--target", "draw_rate<=0.5"]
    args += ["--budget", "256", "--trials", "4"]
    res = _tune(tmp_path / "t", *args)
    assert res["trials"][0]["point"] == {"cap": "16"}
    assert res["best"] == {"cap": "16"} and res["changed"] == []
    assert "no varied key moves draw_rate" in res["no_change"]
    assert res["targets_before"] is None  # the proposal is the rulebook: nothing beside
    text = (tmp_path / "t" / "report.txt").read_text(encoding="utf-8")
    assert "proposal: no change (no varied key moves draw_rate" in text
    # the journal holds a point outside --vary (the rulebook's): a rerun reads it back
    journal = (tmp_path / "t" / "tune.json").read_bytes()
    assert _tune(tmp_path / "t", *args) == res
    assert (tmp_path / "t" / "tune.json").read_bytes() == journal


TWO = ["tune", "yuxi", "--vary", "base=1:10", "--vary", "points.longqidui=4/5:14/15"]
TWO += ["--target", "money_moved_per_hand=30±1", "--budget", "400", "--trials", "6"]


@pytest.fixture(scope="module")
def two_keys(tmp_path_factory):
    out = tmp_path_factory.mktemp("least") / "t"
    return out, _tune(out, *TWO)


def test_a_key_no_target_responds_to_keeps_the_rulebooks_value(two_keys):
    # money moved scales with base exactly; 龙七对's points change it on no hand of
    # these walls: the proposal moves base and leaves points.longqidui at 6/7
    out, res = two_keys
    assert res["changed"] == ["base"] and res["best"]["points.longqidui"] == "6/7"
    # held with evidence: over the explored trials money's slope on it is 0, so the
    # race only ran candidates with it at the rulebook's value
    choice = res["choice"]
    assert choice["held"] == ["points.longqidui"]
    assert "no target responds to it" in res["kept"]["points.longqidui"]
    raced = {k for r in res["race"] for k in r["trials"]}
    assert raced and all(res["trials"][k]["point"]["points.longqidui"] == "6/7" for k in raced)
    # explored values of it were many, and read as the same base at 6/7 does
    explored = {t["point"]["points.longqidui"] for t in res["trials"]}
    assert len(explored) > 1
    assert choice["chosen"] in choice["close"]
    rules = (out / "rules.toml").read_text(encoding="utf-8")
    assert "points.longqidui: 6/7 before" in rules and "kept at 6/7" in rules


def test_a_tune_killed_before_its_race_resumes_to_the_same_choice(two_keys, tmp_path):
    out, res = two_keys
    doc = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    # as killed after the trials nearer the rulebook were played, before the race
    for k in ("race", "choice", "confirm", "finished"):
        doc.pop(k, None)
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    assert _tune(out, *TWO) == res


def test_the_distance_counts_keys_changed_then_how_far():
    vary = parse_vary(["base=1:10", "zimo_bonus=none|add_base"], "xuezhan")
    rule = {"base": 1, "zimo_bonus": "none"}
    assert distance(vary, rule, rule) == (0, 0.0)
    assert distance(vary, {"base": 10, "zimo_bonus": "none"}, rule) == (1, 1.0)
    one_far = distance(vary, {"base": 10, "zimo_bonus": "none"}, rule)
    two_near = distance(vary, {"base": 2, "zimo_bonus": "add_base"}, rule)
    assert one_far < two_near  # fewer keys changed wins before distance moved


def test_a_grid_smaller_than_the_trials_gives_its_points_the_whole_half():
    from analysis.studies.tune import Plan

    def plan(vary, trials):
        targets = (parse_target("money_moved_per_hand=30±1"),)
        return Plan(
            "yuxi", tuple(parse_vary(vary, "yuxi")), targets, ("greedy",), (), 800, trials, 8, 0
        )

    # base=1:4 is 4 points with the rulebook's (1) among them: 800 // 2 // 4 // 8 = 12
    assert plan(["base=1:4"], 16).split()[0] == 12
    # base=2:4 leaves the rulebook out: it is explored too, 4 trials of 12 matches
    assert plan(["base=2:4"], 16).explored() == 4
    # more points than trials: the sampler explores --trials of them, 800 // 2 // 16 // 8
    assert plan(["base=1:40"], 16).split()[0] == 3


def test_a_resumed_tune_verifies_the_runs_it_reads_back(tmp_path):
    args = ["tune", "xuezhan", "--vary", "cap=20:32", "--target", "draw_rate<=0.5"]
    args += ["--budget", "256", "--trials", "4"]
    out = tmp_path / "t"
    _tune(out, *args)
    doc = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    for k in ("race", "choice", "confirm", "finished"):  # as killed before the race
        doc.pop(k, None)
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    # a byte of trial 0's hands changed, its size and manifest left as they were
    victim = sorted((out / "trials" / "000" / "hands").rglob("*.parquet"))[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    r = CliRunner().invoke(main, [*args, *QUIET, "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert "sha256" in r.output and victim.name in r.output
