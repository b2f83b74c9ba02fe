"""The hostile-input suite for ``mjlog plan`` and ``simulate --until`` (issue 40).

- ``plan`` refuses, in one line with exit 2, a pilot that is missing, corrupt or no
  run, a pilot too small or too flat to size from, an unknown metric, a question
  that is not one (both or neither of ``--detect`` and ``--margin``), and a number
  that is not finite or not above 0; it writes nothing.
- ``simulate --until`` refuses an ``--out`` it cannot write *before* the stopping
  pass, and leaves nothing beside ``--out`` (its scratch run) when it refuses.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hostile import refused, run

DATA = Path(__file__).resolve().parents[2] / "data"
SIM = [
    "simulate",
    "--variant",
    "yuxi",
    "--seed",
    "3",
    "--agents",
    "random",
    "--hands-per-match",
    "2",
    "--hands-per-shard",
    "20",
    "--events",
    "none",
    "--workers",
    "1",
    "--quiet",
]


@pytest.fixture(scope="module")
def pilot(tmp_path_factory) -> Path:
    """A small pilot: 4 matches of 8 hands, greedy agents."""
    d = tmp_path_factory.mktemp("pilot") / "p"
    res = run(
        [
            "simulate",
            "--variant",
            "yuxi",
            "--matches",
            "4",
            "--hands-per-match",
            "8",
            "--seed",
            "2026",
            "--agents",
            "greedy",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(d),
        ],
        d.parent,
        isolate=False,
    )
    assert res.code == 0, res.stderr
    return d


@pytest.fixture
def p(pilot, tmp_path) -> Path:
    dst = tmp_path / "p"
    shutil.copytree(pilot, dst, symlinks=True)
    return dst


def plan_refused(args, tmp_path, inputs=(), needle=None):
    res = refused(["plan", *args], tmp_path, inputs=inputs, needle=needle, isolate=False)
    assert res.code == 2, res.stderr
    return res


# ------------------------------------------------------------------ plan: the pilot


def test_plan_refuses_a_missing_pilot(tmp_path):
    plan_refused(
        ["nowhere", "--metric", "draw_rate", "--detect", "0.01"], tmp_path, needle="nowhere"
    )


def test_plan_refuses_a_folder_that_is_no_run(tmp_path):
    (tmp_path / "empty").mkdir()
    plan_refused(
        [str(tmp_path / "empty"), "--metric", "draw_rate", "--detect", "0.01"],
        tmp_path,
        needle="no manifest",
    )


@pytest.mark.parametrize("damage", ["manifest", "shard"])
def test_plan_refuses_a_corrupt_pilot(p, tmp_path, damage):
    if damage == "manifest":
        (p / "manifest.json").write_text("{not json")
    else:
        victim = p / "hands" / "part-00000.parquet"
        victim.write_bytes(victim.read_bytes()[:100])
    plan_refused(
        [str(p), "--metric", "draw_rate", "--detect", "0.01", "--time-hands", "0"],
        tmp_path,
        inputs=[p],
    )


def test_plan_refuses_a_pilot_of_one_match(tmp_path):
    one = tmp_path / "one"
    res = run([*SIM, "--matches", "1", "--out", str(one)], tmp_path, isolate=False)
    assert res.code == 0, res.stderr
    plan_refused(
        [str(one), "--metric", "dealer_advantage", "--detect", "0.1"],
        tmp_path,
        inputs=[one],
        needle="two at least",
    )


def test_plan_refuses_a_metric_without_spread(tmp_path):
    """random agents draw every hand: a draw rate of 1 in every match sizes nothing."""
    flat = tmp_path / "flat"
    res = run([*SIM, "--matches", "3", "--out", str(flat)], tmp_path, isolate=False)
    assert res.code == 0, res.stderr
    plan_refused(
        [str(flat), "--metric", "draw_rate", "--detect", "0.01"],
        tmp_path,
        inputs=[flat],
        needle="does not vary",
    )


# ------------------------------------------------------------------ plan: the question


@pytest.mark.parametrize(
    "metric, named",
    [
        ("draw_rat", "'draw_rat'"),
        ("pattern_rate[facai]", "'pattern_rate[facai]'"),  # huangmei's, not yuxi's
        ("mean_points[4]", "'mean_points[4]'"),
        ("", "''"),
    ],
)
def test_plan_refuses_an_unknown_metric(pilot, tmp_path, metric, named):
    line = plan_refused(
        [str(pilot), "--metric", metric, "--detect", "0.01"], tmp_path, inputs=[pilot], needle=named
    ).stderr
    assert "dealer_advantage" in line  # the valid ones are named


@pytest.mark.parametrize("option", ["--detect", "--margin", "--within"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e309", "abc"])
def test_plan_refuses_a_number_that_is_not_finite(pilot, tmp_path, option, value):
    line = plan_refused(
        [str(pilot), "--metric", "draw_rate", option, value],
        tmp_path,
        inputs=[pilot],
        needle=f"'{value}'",
    ).stderr
    assert option in line


@pytest.mark.parametrize("option", ["--detect", "--margin", "--within"])
@pytest.mark.parametrize("value", ["-0.01", "0", "-1e-300"])
def test_plan_refuses_a_number_not_above_zero(pilot, tmp_path, option, value):
    plan_refused(
        [str(pilot), "--metric", "draw_rate", option, value],
        tmp_path,
        inputs=[pilot],
        needle="above 0",
    )


@pytest.mark.parametrize(
    "args",
    [[], ["--detect", "0.01", "--margin", "0.01"], ["--within", "0.01", "--detect", "0.01"]],
    ids=["neither", "both", "level-and-detect"],
)
def test_plan_asks_one_question(pilot, tmp_path, args):
    plan_refused(
        [str(pilot), "--metric", "draw_rate", *args],
        tmp_path,
        inputs=[pilot],
        needle="one question",
    )


@pytest.mark.parametrize("args", [["--workers", "0"], ["--time-hands", "-1"], ["--workers", "nan"]])
def test_plan_refuses_bad_counts(pilot, tmp_path, args):
    plan_refused(
        [str(pilot), "--metric", "draw_rate", "--detect", "0.01", *args], tmp_path, inputs=[pilot]
    )


def test_plan_refuses_an_effect_no_run_can_reach(pilot, tmp_path):
    plan_refused(
        [str(pilot), "--metric", "draw_rate", "--detect", "1e-12"],
        tmp_path,
        inputs=[pilot],
        needle="larger --detect",
    )


# ------------------------------------------------------------------ simulate --until


def _beside(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if ".until-" in p.name)


def test_until_refuses_another_run_in_out_before_playing(tmp_path):
    other = tmp_path / "r"
    res = run([*SIM, "--matches", "1", "--seed", "9", "--out", str(other)], tmp_path, isolate=False)
    assert res.code == 0, res.stderr
    refused(
        [*SIM, "--until", "draw_rate=0.1", "--max-hands", "60", "--out", str(other)],
        tmp_path,
        inputs=[other],
        needle="holds run",
        isolate=False,
    )
    assert _beside(tmp_path) == []


def test_until_refuses_a_folder_that_is_no_run_before_playing(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    refused(
        [*SIM, "--until", "draw_rate=0.1", "--max-hands", "60", "--out", str(mine)],
        tmp_path,
        inputs=[mine],
        needle="not empty",
        isolate=False,
    )
    assert _beside(tmp_path) == []


def test_until_reruns_into_its_own_run(tmp_path):
    """The same command again finds its own run in --out: accepted, bytes unchanged."""
    args = [*SIM, "--until", "draw_rate=0.1", "--max-hands", "60", "--out", "r"]
    assert run(args, tmp_path, isolate=False).code == 0
    before = (tmp_path / "r" / "manifest.json").read_bytes()
    res = run(args, tmp_path, isolate=False)
    assert res.code == 0, res.stderr
    assert (tmp_path / "r" / "manifest.json").read_bytes() == before
    assert _beside(tmp_path) == []
