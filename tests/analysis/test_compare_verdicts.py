"""`mjlog compare` as a decision: pairing that survives play diverging, a verdict per
metric, multiplicity over the whole sweep, a trend along a numeric key, and agents
instead of seat positions where seats rotate. Every run here is tiny and seeded."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from analysis import compare, queries
from analysis.decide import adjust, decide, equivalence_family, mde, tost
from analysis.stats import Difference
from analysis.studies.sample import data_dir
from mjlog.cli import main
from mjlog.logio import read_table
from simulate.runner import RunSpec, simulate
from simulate.sweep import parse_grid, sweep

SAMPLE = data_dir() / "sweep" / "xuezhan-cap"


def _sweep(out, variant, grid, agents, matches, hands, seed, duplicate=False):
    sweep(
        variant,
        parse_grid([grid]),
        out,
        workers=1,
        progress=False,
        seed=seed,
        matches=matches,
        hands_per_match=hands,
        agents=agents,
        events="none",
        duplicate=duplicate,
    )
    return out


@pytest.fixture(scope="module")
def qidui(tmp_path_factory):
    """huangmei, 七对 re-scored: the strategic agents play for it, a win changes hands,
    and since the winner deals next the later walls of that match differ."""
    return _sweep(
        tmp_path_factory.mktemp("qidui") / "s",
        "huangmei",
        "fan.qidui=15,30",
        ["strategic"],
        10,
        8,
        3,
    )


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """yuxi, base 1, 2, 3 with agents that ignore the rules: every payment scales with
    the base and nothing else moves (the effect is known)."""
    return _sweep(
        tmp_path_factory.mktemp("base") / "s",
        "yuxi",
        "base=1,2,3",
        ["greedy", "random", "greedy", "random"],
        12,
        4,
        4,
    )


def _cli(*args):
    res = CliRunner().invoke(main, ["compare", *map(str, args)])
    assert res.exit_code == 0, res.output
    return res.stdout


def _json(*args):
    return json.loads(_cli(*args, "--format", "json"))


def _same_walls(a, b):
    """(hands whose walls agree, hands both runs hold), from the raw hands tables."""
    key = ["match", "rotation", "hand"]
    ta, tb = (read_table(r, "hands", columns=[*key, "wall"]).to_pandas() for r in (a, b))
    m = ta.merge(tb, on=key, suffixes=("_a", "_b"))
    same = sum(list(x) == list(y) for x, y in zip(m.wall_a, m.wall_b, strict=True))
    return same, len(m)


# ------------------------------------------------------------------ pairing


def test_a_sweep_whose_play_diverges_is_paired_by_match(qidui):
    a, b = qidui / "fan.qidui=15", qidui / "fan.qidui=30"
    same, shared = _same_walls(a, b)
    assert 0 < same < shared, "the fixture should diverge after a changed result"
    df = compare.paired_comparison([qidui])
    assert df["paired"].all() and (df["units"] == 10).all()
    assert (df["pairing"] == "match").all()
    assert (df["hands_same_walls"] == same).all() and (df["hands_shared"] == shared).all()
    out = _cli(qidui)
    assert "UNPAIRED" not in out
    line = next(ln for ln in out.splitlines() if ln.startswith("paired by match"))
    assert "same seed and match" in line and f"walls agree on {same:,} of {shared:,} hands" in line
    assert "seed, tile set or match size" not in out  # nothing blamed on the setup


def test_paired_standard_errors_are_never_wider_on_the_sample_sweep():
    df = compare.paired_comparison([SAMPLE])
    assert df["paired"].all()
    ok = df["paired_se"].notna() & df["unpaired_se"].notna()
    assert ok.sum() > 40
    assert (df.loc[ok, "paired_se"] <= df.loc[ok, "unpaired_se"] * (1 + 1e-9)).all()
    # and clearly narrower for the money figures, whose luck the pairs share
    # (not the points per payer: at cap 1 every payer pays 1, no luck to share)
    money = df[
        df.metric.str.startswith(("mean_points", "dealer_", "money_"))
        & (df.metric != "mean_points_per_win")
    ]
    assert (money["paired_se"] < money["unpaired_se"]).all()


def test_a_run_of_another_seed_or_match_size_is_unpaired_and_the_text_says_which(tmp_path):
    made = {}
    for name, seed, hands in (("base", 5, 4), ("seed6", 6, 4), ("size2", 5, 2)):
        spec = RunSpec.build(
            "yuxi", seed=seed, matches=6, hands_per_match=hands, agents=["greedy"], events=False
        )
        simulate(spec, tmp_path / name, workers=1, progress=False)
        made[name] = tmp_path / name
    for other, says, not_says in (
        ("seed6", "another seed (5 vs 6)", "another match size"),
        ("size2", "another match size (4 vs 2 hands a match)", "another seed"),
    ):
        df = compare.paired_comparison([made["base"], made[other]])
        assert not df["paired"].any() and (df["pairing"] == "none").all()
        line = next(
            ln for ln in _cli(made["base"], made[other]).splitlines() if ln.startswith("UNPAIRED")
        )
        assert says in line and not_says not in line.split(";")[0], line


def test_the_same_seed_under_another_tile_set_says_tile_set():
    line = next(
        ln
        for ln in _cli(data_dir() / "yuxi", SAMPLE / "cap=16").splitlines()
        if ln.startswith("UNPAIRED")
    )
    assert "another tile set (136 vs 108 tiles)" in line and "another seed" not in line


# ------------------------------------------------------------------ verdicts

VERDICT_KEYS = {
    "verdict",
    "differs_from_zero",
    "margin",
    "mde",
    "p_adjusted",
    "p_equivalence",
    "hands_needed",
    "hands",
}


def _difference(r):
    return Difference(
        r["baseline"],
        r["value"],
        r["diff"],
        r["lo"],
        r["hi"],
        r["p"],
        _nan(r["paired_se"]),
        _nan(r["unpaired_se"]),
        r["units"],
        r["paired"],
    )


def _nan(v):
    return math.nan if v is None else v


def test_every_metric_gets_a_verdict_resting_on_the_whole_study(bases):
    rows = _json(bases)
    assert len({r["group"] for r in rows}) == 2
    assert all(VERDICT_KEYS <= set(r) for r in rows)
    by = {(r["group"].split()[1], r["metric"]): r for r in rows}
    # nothing but money moves: the draws are the same hands on every match, a fact
    # (identical) rather than a test, and no test of the study's family
    draw = by[("base=2", "draw_rate")]
    assert draw["diff"] == 0 and draw["verdict"] == "identical"
    assert draw["margin"] == pytest.approx(0.2 * min(draw["baseline"], 1 - draw["baseline"]))
    assert draw["p_adjusted"] is None and draw["identical"] is True
    money = by[("base=3", "money_moved_per_hand")]
    assert money["verdict"] == "differs" and money["margin"] == 0.5
    assert money["identical"] is False and money["hands_differing"] > 0
    # p_adjusted is Benjamini-Hochberg over every point × metric that is not identical,
    # not per comparison
    tested = [r for r in rows if not r["identical"]]
    assert all(r["verdict"] == "identical" for r in rows if r["identical"])
    p = np.array([_nan(r["p"]) for r in tested])
    assert np.allclose([_nan(r["p_adjusted"]) for r in tested], adjust(p), equal_nan=True)
    # equivalence: adjusted within its family (the headline figures; each other
    # metric family), not over every metric of the study
    fam = [equivalence_family(r["metric"]) for r in tested]
    assert {"headline", "mean_points"} <= set(fam)  # the patterns: identical here
    eq = np.full(len(tested), np.nan)
    for f in set(fam):
        at = [i for i, x in enumerate(fam) if x == f]
        eq[at] = adjust([tost(_difference(tested[i]), tested[i]["margin"]) for i in at])
    assert np.allclose([_nan(r["p_equivalence"]) for r in tested], eq, equal_nan=True)
    for r, pa, pe in zip(tested, adjust(p), eq, strict=True):
        dec = decide(_difference(r), r["margin"], r["hands"], p=pa, p_equivalence=pe)
        assert r["verdict"] == dec.verdict
        assert r["differs_from_zero"] is dec.differs_from_zero
        # the MDE at the level BH leaves a lone finding among the study's tests
        assert r["mde"] == pytest.approx(mde(_difference(r), 0.05 / len(tested)))
        assert r["mde"] > dec.mde
        assert _nan(r["hands_needed"]) == pytest.approx(dec.hands_needed, nan_ok=True)
    assert {r["verdict"] for r in rows} == {"differs", "identical", "inconclusive"}
    assert all(r["hands_needed"] > r["hands"] for r in rows if r["verdict"] == "inconclusive")
    assert all(r["hands_needed"] is None for r in rows if r["verdict"] != "inconclusive")


def test_the_text_gives_each_metric_its_verdict(bases):
    out = _cli(bases)
    assert "verdict" in out and "Benjamini-Hochberg over every point × metric" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("draw_rate"))
    assert line.rstrip().endswith("identical on every one of 12 matches")
    assert any("inconclusive: ~" in ln and "more hands" in ln for ln in out.splitlines())


def test_a_difference_shown_within_a_wide_margin_is_equivalent_though_not_0(bases):
    """base 3 moves three times the money of base 1, a difference clear of 0; under a
    margin that is far wider (a designer who does not care below it) the answer to
    "within the margin?" is yes, and the row and the text say it differs from 0."""
    rows = _json(bases, "--margin", "money_moved_per_hand=1000")
    money = next(
        r for r in rows if r["metric"] == "money_moved_per_hand" and "base=3" in r["group"]
    )
    assert money["p_adjusted"] < 0.05 and money["lo"] > 0  # it is not 0
    assert money["verdict"] == "equivalent" and money["differs_from_zero"] is True
    assert money["p_equivalence"] < 0.05
    draw = next(r for r in rows if r["metric"] == "draw_rate" and "base=2" in r["group"])
    assert draw["verdict"] == "identical" and draw["differs_from_zero"] is False
    out = _cli(bases, "--margin", "money_moved_per_hand=1000")
    _, _, block = out.partition("base=3")
    line = next(ln for ln in block.splitlines() if ln.strip().startswith("money_moved"))
    assert line.rstrip().endswith("equivalent ±1000 (differs from 0, by less than the margin)")


def test_margins_by_family_or_by_metric(bases):
    rows = _json(
        bases,
        "--margin",
        "draw_rate=0.002",
        "--margin",
        "mean_points_per_win=2",
        "--margin",
        "pattern_rate=0.005",
    )
    for r in rows:
        want = {"draw_rate": 0.002, "mean_points_per_win": 2.0}.get(r["metric"])
        if r["metric"].startswith("pattern_rate["):
            want = 0.005
        if want is not None:
            assert r["margin"] == want, r["metric"]


def test_points_margins_are_in_units_of_the_baselines_base(bases):
    """base 2 as the baseline: a point is worth twice base 1's, and so are the
    points margins (the rates' margins follow their baseline rate)."""
    at1 = {r["metric"]: r for r in _json(bases / "base=1", bases / "base=3")}
    at2 = {r["metric"]: r for r in _json(bases / "base=2", bases / "base=3")}
    for m in ("money_moved_per_hand", "mean_points_per_win", "dealer_advantage"):
        assert at2[m]["margin"] == pytest.approx(2 * at1[m]["margin"]), m
    assert at2["draw_rate"]["margin"] == at1["draw_rate"]["margin"]  # the same draws


def test_primary_metrics_alone_are_adjusted_and_decided(bases):
    rows = _json(bases, "--primary", "draw_rate", "--primary", "money_moved_per_hand")
    primary = [r for r in rows if r["metric"] in ("draw_rate", "money_moved_per_hand")]
    rest = [r for r in rows if r not in primary]
    assert len(primary) == 4 and rest
    tested = [r for r in primary if not r["identical"]]  # the draws: identical, no test
    assert len(tested) == 2
    assert np.allclose([r["p_adjusted"] for r in tested], adjust([r["p"] for r in tested]))
    # an identical figure is a fact, not a test: it is said, primary or not
    assert all(r["p_adjusted"] is None for r in rest)
    assert all(r["verdict"] == ("identical" if r["identical"] else "exploratory") for r in rest)
    assert {r["verdict"] for r in rest} == {"identical", "exploratory"}
    assert {r["verdict"] for r in primary} == {"differs", "identical"}
    assert "exploratory" in _cli(bases, "--primary", "draw_rate")


# ------------------------------------------------------------------ trend


def test_a_money_only_key_has_the_trend_it_must(bases):
    rows = _json(bases)
    trend = {r["metric"]: r["trend"] for r in rows}
    first = {r["metric"]: r["baseline"] for r in rows}
    # base b pays b times what base 1 pays, hand for hand: the slope per unit of base is
    # the figure at base 1, and as uncertain as that figure (the points share their
    # matches: nothing else varies); the draws do not move at all
    base1 = compare.precision(bases / "base=1").set_index("metric")
    for m in ("money_moved_per_hand", "mean_points_per_win"):
        t = trend[m]
        assert t["key"] == "base" and t["points"] == 3 and t["clusters"] == 12
        assert t["slope"] == pytest.approx(first[m])
        half = (t["hi"] - t["lo"]) / 2
        assert 0.9 < half / base1.loc[m, "half_width"] < 1.25
    assert trend["draw_rate"]["slope"] == pytest.approx(0, abs=1e-12)
    assert trend["draw_rate"]["lo"] == trend["draw_rate"]["hi"] == trend["draw_rate"]["slope"]
    _, _, table = _cli(bases).partition("trend per unit of base over 3 points")
    head = table.splitlines()[1].split()
    assert head[:5] == ["metric", "base=1", "(default)", "base=2", "base=3"] and "slope" in head
    line = next(ln for ln in table.splitlines() if ln.strip().startswith("money_moved"))
    assert f"{first['money_moved_per_hand']:+.4f} [" in line


def test_the_trend_is_the_slope_through_the_points_with_matches_as_clusters():
    st = compare.study([SAMPLE])
    assert st.key == "cap"
    caps = np.array([1, 2, 4, 16], dtype=float)
    rows = st.rows
    t = st.trend.set_index("metric")
    for m in ("money_moved_per_hand", "capped_share", "dealer_advantage"):
        r = rows[rows.metric == m]
        values = [r["baseline"].iloc[0], *r["value"]]
        # every point has its 50 matches: OLS on the pseudo-values is the line through
        # the points' figures
        assert t.loc[m, "slope"] == pytest.approx(np.polyfit(caps, values, 1)[0])
        assert t.loc[m, "lo"] < t.loc[m, "slope"] < t.loc[m, "hi"]
        assert t.loc[m, "clusters"] == 50  # one cluster per match, across the points
    assert t.loc["capped_share", "hi"] < 0 < t.loc["money_moved_per_hand", "lo"]
    assert np.allclose(t["p_adjusted"], adjust(t["p"]), equal_nan=True)


def test_the_clustered_interval_is_statsmodels_on_the_pseudo_values():
    import statsmodels.api as sm

    from analysis.stats import pseudo_values, slope

    rng = np.random.default_rng(11)
    luck = rng.normal(0, 1, 30)  # a match's luck, shared by every point
    xs = np.repeat([1.0, 2.0, 3.0], 30)
    y = np.concatenate([luck + 0.2 * x + rng.normal(0, 0.3, 30) for x in (1, 2, 3)])
    hands = np.full(90, 8.0)
    p = np.concatenate([pseudo_values(y[i : i + 30], hands[i : i + 30]) for i in (0, 30, 60)])
    clusters = np.tile(np.arange(30), 3)
    got = slope(p, xs, clusters)
    fit = sm.OLS(p, sm.add_constant(xs)).fit(
        cov_type="cluster", cov_kwds={"groups": clusters}, use_t=True
    )
    lo, hi = fit.conf_int(0.05)[1]
    assert got.slope == pytest.approx(fit.params[1]) and got.se == pytest.approx(fit.bse[1])
    assert (got.lo, got.hi) == pytest.approx((lo, hi)) and got.p == pytest.approx(fit.pvalues[1])
    # the matches' shared luck cancels: narrower than the points taken as independent
    alone = sm.OLS(p, sm.add_constant(xs)).fit(cov_type="HC1")
    assert got.se < alone.bse[1]


def test_no_trend_without_a_numeric_key_of_three_values(qidui):
    st = compare.study([qidui])
    assert st.key is None and st.trend.empty and "two points" in st.trend_note
    assert all(r["trend"] is None for r in _json(qidui))


# ------------------------------------------------------------------ agents, not seats


@pytest.fixture(scope="module")
def duplicate(tmp_path_factory):
    d = tmp_path_factory.mktemp("dup")
    out = {}
    for name, sets in (("base", ()), ("cap2", ("cap=2",))):
        spec = RunSpec.build(
            "yuxi",
            seed=8,
            matches=6,
            hands_per_match=2,
            sets=sets,
            agents=["greedy", "random", "greedy", "random"],
            duplicate=True,
            events=False,
        )
        simulate(spec, d / name, workers=1, progress=False)
        out[name] = d / name
    return out


def test_duplicate_runs_are_compared_per_agent_not_per_seat(duplicate):
    rows = _json(duplicate["base"], duplicate["cap2"])
    metrics = [r["metric"] for r in rows]
    assert "mean_points[greedy]" in metrics and "mean_points[random]" in metrics
    assert not any(m.startswith("mean_points[") and m[-2].isdigit() for m in metrics)
    by = {r["metric"]: r for r in rows}
    for name, col in (("base", "baseline"), ("cap2", "value")):
        agents = queries.seat_stats(duplicate[name], by="agent").set_index("agent")
        for a in ("greedy", "random"):
            assert by[f"mean_points[{a}]"][col] == pytest.approx(agents.loc[a, "mean_points"])
    assert (
        by["mean_points[greedy]"]["paired"]
        and by["mean_points[greedy]"]["unit"] == "points per seat-hand"
    )
    assert "mean_points[greedy]" in _cli(duplicate["base"], duplicate["cap2"])


def test_one_agent_in_every_seat_keeps_the_positions():
    metrics = set(compare.paired_comparison([SAMPLE / "cap=1", SAMPLE / "cap=2"]).metric)
    assert {"mean_points[0]", "mean_points[3]"} <= metrics
    assert not any(m == "mean_points[strategic]" for m in metrics)


def test_a_grid_without_any_effect_finds_nothing_in_at_most_one_study_in_twenty():
    """A/A: nine points against a baseline on shared matches, ten metrics each, no true
    difference (paired t tests, as compare runs them). Adjusted over the whole study,
    as compare adjusts, a sweep shows a finding about 5 % of the time at most; adjusted
    per comparison (the old way) far more often."""
    from scipy import stats

    rng = np.random.default_rng(40)
    studies, points, metrics, n = 300, 9, 10, 30
    luck = rng.normal(0, 1, (studies, 1, metrics, n))
    base = luck + rng.normal(0, 0.5, (studies, 1, metrics, n))
    other = luck + rng.normal(0, 0.5, (studies, points, metrics, n))
    p = stats.ttest_rel(other, np.broadcast_to(base, other.shape), axis=-1).pvalue
    whole = np.mean([(adjust(s.ravel()) < 0.05).any() for s in p])
    per_point = np.mean([any((adjust(row) < 0.05).any() for row in s) for s in p])
    assert whole <= 0.08
    assert per_point > 0.15
