"""The hostile-input suite, ``mjlog compare``: runs that do not measure the same
things, and comparisons that succeed on degenerate samples.

Across variants a pattern only one side has is not a metric of the comparison (a
rate of 0 there is not measured, the pattern cannot happen), and points counted by
two scoring systems are on different scales: their rows keep each side's figure
and say so, with no difference, interval or p-value. A compare that succeeds
prints nothing on stderr, a SciPy ``RuntimeWarning`` on constant data included.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from analysis.stats import compare_units, estimate
from analysis.studies.sample import data_dir
from mjlog.cli import main
from mjlog.variants import VARIANTS
from simulate.runner import RunSpec, simulate
from tests.hostile import run

DATA = data_dir()
POINTS = ("mean_points[0]", "dealer_advantage", "mean_points_per_win", "money_moved_per_hand")
"""Metrics counted in points (the others are shares of hands or of wins)."""
RATES = ("draw_rate", "capped_share")


def compare_json(*paths: Path) -> list[dict]:
    res = CliRunner().invoke(main, ["compare", *map(str, paths), "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def yuxi_xuezhan() -> list[dict]:
    return compare_json(DATA / "yuxi", DATA / "xuezhan")


def test_a_pattern_only_one_variant_has_is_not_a_difference(yuxi_xuezhan):
    yuxi, xuezhan = set(VARIANTS["yuxi"].patterns()), set(VARIANTS["xuezhan"].patterns())
    compared = {
        r["metric"][len("pattern_rate[") : -1]
        for r in yuxi_xuezhan
        if r["metric"].startswith("pattern_rate[")
    }
    assert compared and compared <= yuxi & xuezhan
    # xuezhan's wins do carry patterns yuxi lacks (根): they are left out, not zeros
    xz = CliRunner().invoke(
        main, ["compare", str(DATA / "sweep" / "xuezhan-cap"), "--format", "json"]
    )
    only_xuezhan = {
        r["metric"][len("pattern_rate[") : -1]
        for r in json.loads(xz.stdout)
        if r["metric"].startswith("pattern_rate[")
    } - yuxi
    assert only_xuezhan, "the sample sweep should show a pattern yuxi lacks"
    assert not only_xuezhan & compared
    # and the patterns both have stay compared
    assert "pattern_rate[qingyise]" in {r["metric"] for r in yuxi_xuezhan}


def test_the_text_names_the_patterns_left_out():
    res = CliRunner().invoke(main, ["compare", str(DATA / "yuxi"), str(DATA / "xuezhan")])
    assert res.exit_code == 0, res.output
    assert "pattern_rate[gen]" not in res.output
    line = next(ln for ln in res.output.splitlines() if "only one side has" in ln)
    assert "gen" in [k.strip() for k in line.split(":", 1)[1].split(",")]


def test_points_of_two_scoring_systems_are_not_compared(yuxi_xuezhan):
    rows = {r["metric"]: r for r in yuxi_xuezhan}
    for m in POINTS:
        r = rows[m]
        assert r["comparable"] is False and "different scales, not comparable" in r["note"]
        assert all(
            r[k] is None
            for k in ("diff", "lo", "hi", "p", "p_adjusted", "paired_se", "unpaired_se")
        ), r
        assert r["baseline"] is not None and r["value"] is not None  # each on its scale
    for m in RATES:  # shares of hands and of wins are one scale everywhere
        assert rows[m]["comparable"] is True and rows[m]["note"] is None
        assert rows[m]["diff"] is not None and rows[m]["p"] is not None


def test_the_text_says_the_scales_differ():
    res = CliRunner().invoke(main, ["compare", str(DATA / "huangmei"), str(DATA / "yuxi")])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "different scales, not comparable" in out
    # the points rows stand after that line, without a difference or a p-value
    table, _, apart = out.partition("different scales, not comparable")
    assert "mean_points_per_win" not in table and "mean_points_per_win" in apart
    assert "draw_rate" in table
    row = next(ln for ln in apart.splitlines() if "mean_points_per_win" in ln)
    assert "[" not in row.replace("mean_points_per_win", "")  # no CI


def test_one_variant_compares_its_points():
    rows = compare_json(DATA / "sweep" / "xuezhan-cap")
    assert rows and all(r["comparable"] and r["note"] is None for r in rows)
    assert all(r["diff"] is not None for r in rows if r["metric"] in POINTS)


# ------------------------------------------------------------ nothing on stderr


@pytest.mark.parametrize(
    "paths, fmt",
    [
        (["yuxi", "xuezhan", "huangmei"], "text"),  # across variants: every part of the text
        (["sweep/xuezhan-cap"], "json"),
        (["yuxi", "expert/yuxi"], "text"),  # paired on the same walls
    ],
    ids=lambda p: "+".join(p) if isinstance(p, list) else p,
)
def test_compare_on_the_sample_data_prints_nothing_on_stderr(paths, fmt, tmp_path):
    res = run(["compare", *(DATA / p for p in paths), "--format", fmt], tmp_path)
    assert res.code == 0 and res.stdout, res.stderr
    assert res.stderr == "", res.stderr


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, Path]:
    """Runs of one or two hands a match: many matches of one sample hold the same
    figure (constant data)."""
    d = tmp_path_factory.mktemp("tiny")
    out = {}
    for name, matches, hpm in (("a", 2, 1), ("b", 3, 2)):
        spec = RunSpec.build(
            "yuxi",
            seed=1,
            matches=matches,
            hands_per_match=hpm,
            agents=["random", "greedy", "random", "greedy"],
            events=False,
        )
        simulate(spec, d / name, workers=1, progress=False)
        out[name] = d / name
    return out


def test_compare_on_constant_samples_prints_nothing_on_stderr(tiny, tmp_path):
    res = run(["compare", tiny["a"], tiny["b"], "--format", "json"], tmp_path)
    assert res.code == 0, res.stderr
    assert res.stderr == "", res.stderr
    assert json.loads(res.stdout)


@pytest.mark.parametrize(
    "base, other, paired",
    [
        (([1, 0], [1, 1]), ([1, 1, 1], [2, 2, 2]), False),  # one side constant
        (([1, 2, 3], [3, 6, 9]), ([1, 2, 3], [3, 6, 9]), False),  # both constant (1/3)
        (([1, 1, 1], [10, 10, 10]), ([2, 2, 2], [10, 10, 10]), True),  # a constant shift
    ],
)
def test_constant_samples_are_handled_without_a_warning(base, other, paired):
    arrays = [np.array(a, dtype=float) for a in (*base, *other)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = compare_units(*arrays, paired=paired)
    assert math.isclose(d.diff, d.value - d.baseline)
    assert d.lo <= d.diff <= d.hi and 0 <= d.p <= 1


def test_a_constant_shift_is_certain_and_no_shift_is_none():
    one = np.array([1.0, 1, 1])
    ten = np.array([10.0, 10, 10])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shift = compare_units(one, ten, 2 * one, ten, paired=True)
        same = compare_units(one, ten, one, ten, paired=False)
        e = estimate(one, ten)
    assert shift.paired_se == 0 and shift.lo == shift.hi == shift.diff and shift.p == 0
    assert same.diff == 0 and same.unpaired_se == 0 and same.p == 1
    assert e.se == 0 and e.lo == e.hi == e.value
