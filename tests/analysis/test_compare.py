"""`mjlog compare` and compare.paired_comparison: paired by walls, unpaired otherwise."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from analysis import compare, queries
from mjlog.cli import main
from mjlog.logio import read_table
from simulate.runner import RunSpec, simulate

KEYS = {"metric", "baseline", "value", "diff", "lo", "hi", "p", "paired_se", "unpaired_se"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    out = {}
    for name, seed, sets in (("base", 5, ()), ("cap2", 5, ("cap=2",)), ("other", 6, ())):
        spec = RunSpec.build(
            "yuxi",
            seed=seed,
            matches=24,
            hands_per_match=4,
            agents=["random", "greedy", "random", "greedy"],
            sets=sets,
            events=False,
        )
        simulate(spec, d / name, workers=1, progress=False)
        out[name] = d / name
    return out


def test_same_walls_are_paired_and_reproduced_by_scipy(runs):
    df = compare.paired_comparison([runs["base"], runs["cap2"]])
    assert df["paired"].all() and (df["units"] == 24).all()
    assert np.allclose(df["diff"], df["value"] - df["baseline"])
    ok = df["lo"].notna()
    assert (df.loc[ok, "lo"] <= df.loc[ok, "diff"] + 1e-12).all()
    assert (df.loc[ok, "diff"] <= df.loc[ok, "hi"] + 1e-12).all()
    # independently: per-match money moved per hand from raw rows, then a paired t test
    per = []
    for name in ("base", "cap2"):
        h = read_table(runs[name], "hands", columns=["match", "deltas"]).to_pandas()
        h["moved"] = h["deltas"].map(lambda d: sum(x for x in d if x > 0))
        per.append(h.groupby("match")["moved"].mean())
    r = stats.ttest_rel(per[1], per[0])
    ci = r.confidence_interval()
    row = df.set_index("metric").loc["money_moved_per_hand"]
    assert np.isclose(row["diff"], (per[1] - per[0]).mean())
    assert np.isclose(row["lo"], ci.low) and np.isclose(row["hi"], ci.high)
    assert np.isclose(row["p"], r.pvalue)
    assert np.isclose(row["paired_se"], stats.sem(per[1] - per[0]))
    assert np.isclose(row["unpaired_se"], np.hypot(stats.sem(per[0]), stats.sem(per[1])))


def test_a_cap_change_pairs_out_the_walls(runs):
    # the cap changes payments only: capped wins get cheaper, the draws do not move
    df = compare.paired_comparison([runs["base"], runs["cap2"]]).set_index("metric")
    assert df.loc["draw_rate", "diff"] == 0 and df.loc["draw_rate", "paired_se"] == 0
    assert df.loc["draw_rate", "unpaired_se"] > 0
    assert df.loc["capped_share", "diff"] > 0
    assert df.loc["mean_points_per_win", "diff"] < 0
    assert df.loc["mean_points_per_win", "paired_se"] < df.loc["mean_points_per_win", "unpaired_se"]


def test_other_walls_are_compared_unpaired_and_the_text_says_so(runs):
    df = compare.paired_comparison([runs["base"], runs["other"]])
    assert not df["paired"].any() and df["paired_se"].isna().all()
    res = CliRunner().invoke(main, ["compare", str(runs["base"]), str(runs["other"])])
    assert res.exit_code == 0, res.output
    assert "UNPAIRED" in res.output and "dealer_advantage" in res.output


def test_same_walls_asks_every_shared_hand_for_one_equal_wall(runs, tmp_path):
    r = {name: queries.Runs(path) for name, path in runs.items()}
    assert compare.same_walls(r["base"], r["cap2"])  # another cap, the same deal
    assert not compare.same_walls(r["base"], r["other"])  # another seed
    assert compare.same_walls(r["base"], r["cap2"], matches=[3, 7])
    assert not compare.same_walls(r["base"], r["cap2"], matches=[999])  # no hand shared
    # a folder of two seeds' runs holds two walls per hand: it pairs with neither
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for name in ("base", "other"):
        (mixed / name).symlink_to(runs[name], target_is_directory=True)
    assert not compare.same_walls(queries.Runs(mixed), r["base"])


def test_json_lists_every_metric_with_its_keys(runs):
    res = CliRunner().invoke(
        main,
        ["compare", str(runs["base"]), str(runs["cap2"]), str(runs["other"]), "--format", "json"],
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert all(KEYS <= set(r) for r in rows)
    metrics = {r["metric"] for r in rows}
    # random and greedy share the table: their points, not the seat positions'
    assert {
        "mean_points[random]",
        "mean_points[greedy]",
        "dealer_advantage",
        "draw_rate",
        "mean_points_per_win",
        "money_moved_per_hand",
        "capped_share",
        "pattern_rate[pinghu]",
    } <= metrics
    assert {r["paired"] for r in rows} == {True, False}
    assert len({r["group"] for r in rows}) == 2


def test_bad_input_is_one_line(tmp_path, runs):
    (tmp_path / "empty").mkdir()
    for args in (
        ["compare", str(tmp_path / "empty"), str(runs["base"])],
        ["compare", str(runs["base"])],
    ):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert res.output.startswith("mjlog: error:") and res.output.count("\n") == 1


def test_dealer_advantage_equals_position_advantage(runs):
    adv = queries.position_advantage(runs["base"])
    df = compare.paired_comparison([runs["base"], runs["cap2"]]).set_index("metric")
    assert np.isclose(
        adv[adv.position == 0]["advantage"].iloc[0], df.loc["dealer_advantage", "baseline"]
    )
    # random and greedy sit at fixed seats, not duplicate: flagged for the caveat
    assert adv["mixed"].all() and not adv["duplicate"].any()


def test_the_same_seed_under_another_tile_set_is_not_paired():
    from analysis.studies.sample import data_dir

    # data/yuxi and the xuezhan sweep share seed 2026, but 136 and 108 tiles deal other walls
    df = compare.paired_comparison(
        [data_dir() / "yuxi", data_dir() / "sweep" / "xuezhan-cap" / "cap=16"]
    )
    assert not df["paired"].any()


@pytest.mark.parametrize("constant_side", ["baseline", "other"])
def test_welch_with_one_constant_side_is_scipys_welch(constant_side):
    from analysis.stats import compare_units

    rng = np.random.default_rng(7)
    flat, varied = np.full(9, 0.25), rng.random(12)
    ones_flat, ones_varied = np.ones(9), np.ones(12)
    if constant_side == "baseline":
        args, (a, b) = (flat, ones_flat, varied, ones_varied), (varied, flat)
    else:
        args, (a, b) = (varied, ones_varied, flat, ones_flat), (flat, varied)
    d = compare_units(*args, paired=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy's "nearly identical": what the fix avoids
        r = stats.ttest_ind(a, b, equal_var=False)
    ci = r.confidence_interval()
    assert np.isclose(d.p, r.pvalue) and np.isclose(d.lo, ci.low) and np.isclose(d.hi, ci.high)
    assert np.isclose(d.unpaired_se, stats.sem(varied))


def test_the_sample_sweep_pairs_by_match_where_a_moved_dealer_moved_the_break():
    from analysis.studies.sample import data_dir

    # the sample sweep's points share their seed and their first walls; a cap changes
    # the strategic agents' play, a dealer moves and with it the break: later walls
    # differ, the matches still pair (they were dealt from one seed before play)
    sweep = data_dir() / "sweep" / "xuezhan-cap"
    a, b = (queries.Runs(sweep / p) for p in ("cap=1", "cap=2"))
    assert compare.same_walls(a, b, matches=[0]) and not compare.same_walls(a, b)
    res = CliRunner().invoke(main, ["compare", str(sweep / "cap=1"), str(sweep / "cap=2")])
    assert res.exit_code == 0, res.output
    assert "UNPAIRED" not in res.output
    how = next(ln for ln in res.output.splitlines() if ln.startswith("paired by match"))
    assert "walls agree on 376 of 400 hands" in how and "dealer" in how and "break" in how


def test_pairing_never_makes_the_standard_error_wider_and_still_covers():
    """Shared walls make runs alike, not opposed: a negative sample covariance is taken
    as 0 (analysis.stats.compare_units), so the paired SE is never above the unpaired
    one; with no true correlation at all (the worst case the floor can meet) the
    paired interval still covers the true difference about 95 % of the time. (Two
    seats of one table are opposed: without shared_walls the ladder keeps ttest_rel,
    tests/agents/test_agents.py.)"""
    from analysis.stats import compare_units

    rng = np.random.default_rng(40)
    reps, covered, floored = 3000, 0, 0
    for _ in range(reps):
        a, b = rng.normal(0, 1, 30), rng.normal(0, 1, 30)  # independent: true cov 0
        d = compare_units(a, None, b, None, paired=True, shared_walls=True)
        assert d.paired_se <= d.unpaired_se
        raw = stats.sem(b - a)
        if raw > d.unpaired_se:
            floored += 1
            t = stats.t.ppf(0.975, 29)
            assert np.isclose(d.hi - d.lo, 2 * t * d.unpaired_se)
        else:
            assert np.isclose(d.paired_se, raw)
        covered += d.lo <= 0 <= d.hi
    assert 0.3 < floored / reps < 0.7  # about half the samples: the case is exercised
    assert 0.94 <= covered / reps <= 0.975, covered / reps


def test_two_runs_labels_name_the_key_they_differ_in_even_at_its_default(tmp_path):
    """Run directories compared side by side (as the report compares a sweep's points)
    are labelled by the keys they differ in: ``cap=64`` beside ``cap=8``, never
    ``default``, which says nothing of which default."""
    import json

    from click.testing import CliRunner

    from mjlog.cli import main

    for cap in ("64", "8"):
        r = CliRunner().invoke(
            main,
            [
                "simulate",
                "--variant",
                "yuxi",
                "--agents",
                "greedy",
                "--matches",
                "4",
                "--set",
                f"cap={cap}",
                "--workers",
                "1",
                "--quiet",
                "--out",
                str(tmp_path / cap),
            ],
        )
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(
        main, ["compare", str(tmp_path / "64"), str(tmp_path / "8"), "--format", "json"]
    )
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)[0]
    # named by its value, not 'default', and marked as the variant's default
    assert row["baseline_group"].startswith("yuxi cap=64 (default) [")
    assert row["group"].startswith("yuxi cap=8 [")
