"""Rates (analysis.rates): intervals that are never zero-width, at the match unit,
that cover, and a flag on counts under 10, wherever a rate is reported."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from analysis import compare, queries
from analysis.rates import RARE, rate
from mjlog.cli import main


@pytest.fixture(scope="module")
def nothing_wins(tmp_path_factory):
    """32 hands of `random` agents in yuxi: every hand is drawn, no seat ever wins."""
    out = tmp_path_factory.mktemp("rates") / "r"
    res = CliRunner().invoke(
        main,
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
            "random",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    return out


def test_no_event_and_all_events_are_not_certain(nothing_wins):
    o = queries.outcomes(nothing_wins).iloc[0]
    assert o.draws == o.hands == 32
    assert o.draw_rate == 1 and 0.5 < o.draw_rate_lo < 1 and o.draw_rate_hi == 1
    s = queries.seat_stats(nothing_wins, by="seat")
    assert (s.win_rate == 0).all() and (s.win_rate_lo == 0).all()
    assert ((s.win_rate_hi > 0) & (s.win_rate_hi < 0.3)).all()
    assert (s.win_rate_count == 0).all() and s.win_rate_rare.all()
    assert not o.draw_rate_rare and o.draw_rate_count == 32


def test_precision_bounds_a_rate_never_seen(nothing_wins):
    p = compare.precision(nothing_wins, 0.01).set_index("metric")
    d = p.loc["draw_rate"]
    assert d.value == 1 and d.lo < 1 and d.half_width > 0 and not d.rare and d["count"] == 32
    # a point metric keeps its t interval and has no count
    assert np.isnan(p.loc["dealer_advantage", "count"])


def test_precision_lists_every_pattern_of_the_rules():
    """A pattern no win carried is still a row: 0 with an upper bound, flagged rare."""
    from mjlog.logio import read_manifest
    from mjlog.rules import Rules

    run = sample_run()
    rules = Rules.recorded("yuxi", read_manifest(run)["rules"])
    p = compare.precision(run, 0.01)
    got = {m[len("pattern_rate[") : -1] for m in p.metric if m.startswith("pattern_rate[")}
    assert got == set(rules.spec.patterns(rules))
    never = p[p.metric.str.startswith("pattern_rate[") & (p["count"] == 0)]
    assert len(never) and (never.value == 0).all() and (never.lo == 0).all()
    assert (never.hi > 0).all() and never.rare.all()


def sample_run():
    from analysis.studies.sample import data_dir

    return data_dir() / "yuxi"


def test_pattern_rates_flag_rare_counts():
    from analysis.studies.sample import data_dir

    p = queries.pattern_frequencies(data_dir() / "huangmei")  # 海底捞月 on one win
    assert (p.per_win_count == p.wins_with).all()
    assert (p.per_win_rare == (p.wins_with < RARE)).all() and p.per_win_rare.any()
    assert (p.per_win_lo < p.per_win).all() and (p.per_win < p.per_win_hi).all()


def test_capped_share_is_a_rate():
    d = queries.distribution(sample_run(), "win_points").iloc[0]
    assert d.share_capped_lo <= d.share_capped < d.share_capped_hi
    assert d.share_capped_count >= 0 and isinstance(bool(d.share_capped_rare), bool)


@pytest.mark.parametrize(
    "p, matches, hands, icc",
    [
        (0.002, 30, 8, 0.0),  # a 清一色-like rare pattern: mostly 0 or 1 event
        (0.01, 50, 32, 0.02),  # rare, clustered within matches
        (0.2, 30, 8, 0.05),  # a common rate, clustered
    ],
)
def test_coverage_on_clustered_counts(p, matches, hands, icc):
    """Seeded simulation: per match a rate from Beta(mean p, intra-match correlation
    icc), then its hands. The interval covers the true rate 93 % of the time or more
    (the t interval it replaces: 9 % to 55 % on rare patterns)."""
    rng = np.random.default_rng(40)
    reps, covered = 800, 0
    for _ in range(reps):
        if icc:
            a, b = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
            pi = rng.beta(a, b, matches)
        else:
            pi = np.full(matches, p)
        y = rng.binomial(hands, pi).astype(float)
        r = rate(y, np.full(matches, float(hands)))
        assert r.hi > r.lo  # never zero-width
        covered += r.lo <= p <= r.hi
    assert covered / reps >= 0.93


def test_rate_refuses_counts_past_their_trials():
    with pytest.raises(ValueError):
        rate([3.0, 1.0], [2.0, 2.0])


def test_the_reports_findings_flag_a_rare_rate(tmp_path):
    """Few drawn hands among 30 matches (enough to state it): the finding says "(n<10)"
    beside its interval."""
    from analysis.report import findings

    out = tmp_path / "r"
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            "yuxi",
            "--matches",
            "30",
            "--hands-per-match",
            "1",
            "--seed",
            "2",
            "--agents",
            "greedy",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    t = queries.tables(out)
    assert int(t["outcomes"].draws.iloc[0]) < RARE
    drawn = [f for f in findings(t) if "of hands are drawn" in f]
    assert len(drawn) == 1 and f"(n<{RARE})" in drawn[0]


@pytest.fixture(scope="module")
def rare_sweep(tmp_path_factory):
    """A huangmei sweep of three 七对 values, played by an agent that responds to them
    (strategic: greedy plays the same hands at every value, which compare now calls
    identical): most patterns seen a handful of times."""
    out = tmp_path_factory.mktemp("rare") / "sweep"
    r = CliRunner().invoke(
        main,
        [
            "sweep",
            "--variant",
            "huangmei",
            "--grid",
            "fan.qidui=15,30,45",
            "--agents",
            "strategic",
            "--matches",
            "12",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["compare", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_rare_rates_difference_is_never_certain(rare_sweep):
    # a rate resting on fewer than 10 events: its difference reaches at least the
    # square-and-add of the two rates' own intervals, never a near-zero width
    # square-and-add of the two rates' own intervals, never a near-zero width; unless
    # the paired hands are alike on every match: then the difference is exactly 0
    # (identical, a fact of these hands, issue 47)
    shares = [
        r
        for r in rare_sweep
        if r["unit"].startswith("share of ")
        and r["lo"] is not None
        and min(r["baseline"], r["value"]) < 0.05
    ]
    rare = [r for r in shares if not r["identical"]]
    assert rare, "the premise: rare rates in the sweep"
    for r in rare:
        assert r["hi"] - r["lo"] > 0.005, r
        assert r["lo"] <= r["diff"] <= r["hi"]
        assert r["paired_se"] is None or r["paired_se"] <= r["unpaired_se"] + 1e-12
    for r in shares:
        if r["identical"]:
            assert r["lo"] == r["diff"] == r["hi"] == 0 and r["verdict"] == "identical", r


def test_a_rare_rates_trend_has_no_interval(rare_sweep):
    trends = {r["metric"]: r["trend"] for r in rare_sweep if r.get("trend")}
    never = [m for m, t in trends.items() if max(t["values"]) == 0]
    assert never, "the premise: a pattern never seen at any point"
    assert all(trends[m]["lo"] is None and trends[m]["p"] is None for m in never)
