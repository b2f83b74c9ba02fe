"""`mjlog plan`: hands a question needs, checked against statsmodels' power and by
seeded simulation; how long they take, linear in shards; text and JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

from analysis.studies.plan import matches_needed
from analysis.studies.sample import data_dir
from mjlog.cli import main


def _plan(*args) -> dict:
    res = CliRunner().invoke(main, ["plan", *map(str, args), "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))


@pytest.mark.parametrize("effect", [0.2, 0.5, 1.0])
def test_detect_agrees_with_statsmodels_power(effect):
    """Paired: a one-sample t test on the differences; unpaired: two samples, the
    difference of a pair having SD ``sd`` (each side sd/√2)."""
    from statsmodels.stats.power import TTestIndPower, TTestPower

    sd = 1.0
    exact = TTestPower().solve_power(effect_size=effect / sd, alpha=0.05, power=0.8)
    assert abs(matches_needed(sd, effect) - exact) <= 2
    exact = TTestIndPower().solve_power(
        effect_size=effect / (sd / math.sqrt(2)), alpha=0.05, power=0.8
    )
    assert abs(matches_needed(sd, effect, paired=False) - exact) <= 2


def test_equivalence_has_80_percent_power_at_no_difference():
    """Seeded: at the planned matches, TOST (90 % interval inside ±margin) says
    equivalent about 4 times in 5 when the true difference is 0."""
    sd, margin = 1.0, 0.3
    m = matches_needed(sd, margin, equivalence=True)
    d = np.random.default_rng(40).normal(0, sd, size=(4000, m))
    se = d.std(axis=1, ddof=1) / math.sqrt(m)
    t = st.t.ppf(0.95, m - 1)
    power = np.mean((d.mean(axis=1) - t * se > -margin) & (d.mean(axis=1) + t * se < margin))
    assert 0.78 <= power <= 0.86
    # one match fewer falls short of 80 % on the normal approximation
    assert (st.norm.ppf(0.95) + st.norm.ppf(0.9)) * sd / math.sqrt(m - 1) > margin * 0.97


def test_plan_from_one_pilot_run_json():
    p = _plan(
        data_dir() / "yuxi",
        "--metric",
        "draw_rate",
        "--detect",
        "0.02",
        "--workers",
        "2",
        "--time-hands",
        "4",
    )
    for key in ("metric", "hands", "matches", "seconds", "workers"):
        assert key in p
    assert p["metric"] == "draw_rate" and p["question"] == "detect" and p["paired"]
    assert p["hands"] == 8 * p["matches"] and p["total_hands"] == 2 * p["hands"]
    assert "upper bound" in p["how"] and not p["pairing_measured"]  # one run cannot
    assert matches_needed(p["sd"], 0.02) == p["matches"]
    # the size holds for the metric tested alone: the plan names the compare that does
    assert p["compare_as"] == "mjlog compare RUN_A RUN_B --primary draw_rate"
    # time: linear in shards, the sides one after the other
    assert p["seconds_one_worker"] == pytest.approx(p["seconds_per_hand"] * p["total_hands"])
    assert p["seconds"] == pytest.approx(
        2 * math.ceil(p["shards"] / 2) * p["hands"] / p["shards"] * p["seconds_per_hand"]
    )
    # half the difference: about four times the hands
    q = _plan(data_dir() / "yuxi", "--metric", "draw_rate", "--detect", "0.01", "--time-hands", "0")
    assert 3.8 < q["matches"] / p["matches"] < 4.2
    assert q["seconds"] is None and "not timed" in q["timing"]


def test_a_rare_pattern_is_sized_from_its_binomial_spread_at_least():
    p = _plan(
        data_dir() / "huangmei",
        "--metric",
        "pattern_rate[haidilaoyue]",
        "--margin",
        "0.002",
        "--time-hands",
        "0",
    )
    wins = 3026  # 海底捞月 on one win of the pilot's
    assert p["sd"] >= math.sqrt(2 * (1 / wins) * (1 - 1 / wins) / wins * 375) * 0.99
    assert p["question"] == "equivalence" and p["matches"] > 0


def test_two_pilot_runs_measure_the_paired_spread(tmp_path):
    """Same seed, greedy agents (who play alike under any points) and the points
    doubled: the same walls, so the pairing is measured."""
    base = [
        "simulate",
        "--variant",
        "yuxi",
        "--matches",
        "6",
        "--hands-per-match",
        "4",
        "--seed",
        "7",
        "--agents",
        "greedy",
        "--workers",
        "1",
        "--quiet",
    ]
    for name, sets in (("a", []), ("b", ["--set", "base=2"])):
        res = CliRunner().invoke(main, [*base, *sets, "--out", str(tmp_path / name)])
        assert res.exit_code == 0, res.output
    p = _plan(
        tmp_path / "a",
        tmp_path / "b",
        "--metric",
        "mean_points[0]",
        "--detect",
        "0.5",
        "--time-hands",
        "0",
    )
    assert p["paired"] and p["pairing_measured"] and "paired by their walls" in p["how"]
    assert p["pilot"] == [str(tmp_path / "a"), str(tmp_path / "b")]
    u = _plan(
        tmp_path / "a",
        tmp_path / "b",
        "--metric",
        "mean_points[0]",
        "--detect",
        "0.5",
        "--time-hands",
        "0",
        "--unpaired",
    )
    assert not u["paired"]


def test_text_says_what_it_assumed():
    res = CliRunner().invoke(
        main,
        [
            "plan",
            str(data_dir() / "xuezhan"),
            "--metric",
            "dealer_advantage",
            "--margin",
            "0.1",
            "--workers",
            "4",
            "--time-hands",
            "2",
        ],
    )
    assert res.exit_code == 0, res.output
    out = res.output
    assert "equivalence within ±0.1" in out and "paired by match" in out
    assert "matches a side" in out and "on 4 worker(s)" in out and "hands of xuezhan" in out


def test_two_pilots_of_different_variants_are_timed_each_on_its_own(tmp_path):
    """Issue 47: a yuxi and a xuezhan pilot were timed as if both were the first.
    Each side is timed as its pilot is played, and the text says so."""
    for name, variant in (("y", "yuxi"), ("x", "xuezhan")):
        args = ["simulate", "--variant", variant, "--matches", "6", "--hands-per-match", "3"]
        args += ["--seed", "2", "--agents", "greedy", "--workers", "1", "--quiet"]
        res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / name)])
        assert res.exit_code == 0, res.output
    p = _plan(tmp_path / "y", tmp_path / "x", "--metric", "draw_rate", "--detect", "0.2")
    assert "timed apart" in p["timing"] and "differ in variant" in p["timing"]
    assert "of yuxi [" in p["timing"] and "of xuezhan [" in p["timing"]
    assert p["seconds_one_worker"] > 0 and not p["paired"]


def test_a_level_within_a_tolerance_is_one_runs_size():
    """--within: one run whose figure's 90 % interval lies within ±TOL of its truth
    80 % of the time (TOST around the truth, as mjlog tune confirms a target): the
    fewest matches m with (t₀.₉₅ + t₀.₉)·sd/√m ≤ TOL on m − 1 degrees of freedom, sd a
    match's spread; one side, not two."""
    p = _plan(
        data_dir() / "huangmei",
        "--metric",
        "pattern_rate[qidui]",
        "--within",
        "0.01",
        "--time-hands",
        "0",
    )
    assert p["question"] == "level" and p["total_hands"] == p["hands"]
    m, sd = p["matches"], p["sd"]

    def width(n: int) -> float:
        return (st.t.ppf(0.95, n - 1) + st.t.ppf(0.9, n - 1)) * sd / math.sqrt(n)

    assert width(m) <= 0.01 < width(m - 1)
    assert p["hands"] == m * 8 and p["pilot"] == [str(data_dir() / "huangmei")]
    # a difference of two such runs needs twice the matches a side and more: √2 the sd
    d = _plan(
        data_dir() / "huangmei",
        "--metric",
        "pattern_rate[qidui]",
        "--margin",
        "0.01",
        "--time-hands",
        "0",
    )
    assert abs(d["matches"] - 2 * m) <= 3 and d["total_hands"] > 3.9 * p["hands"]


def test_a_level_says_what_it_sizes():
    res = CliRunner().invoke(
        main,
        [
            "plan",
            str(data_dir() / "yuxi"),
            "--metric",
            "draw_rate",
            "--within",
            "0.02",
            "--time-hands",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "within ±0.02 of its true value by one run" in res.output
    assert "90% interval" in res.output and "--target 'draw_rate=V±0.02'" in res.output
