"""The tune's calibration harness (research/tune_calibration.py): the real Tuner on
emulated draws. Seeded and deterministic."""

import math

import numpy as np
import pytest

from analysis.stats import estimate
from research import tune_calibration as tc


def test_the_emulated_share_is_the_truth_curve():
    # 40,000 matches at fan.qidui 40 (truth 0.0582): the drawn share of wins lies within
    # its 95 % interval of it, and the wins per hand within theirs of WIN_RATE
    m = tc.draw(tc.rising, {"fan.qidui": "40"}, seed=5, matches=40_000)
    y, x = m.arrays[tc.METRIC]
    e = estimate(y, x)
    assert e.lo <= tc.rising({"fan.qidui": "40"}) <= e.hi
    w = estimate(x, np.full(len(x), float(tc.HPM)))
    assert w.lo <= tc.WIN_RATE <= w.hi
    # the same run draws the same figures (the race re-reads explored runs)
    again = tc.draw(tc.rising, {"fan.qidui": "40"}, seed=5, matches=40_000)
    assert np.array_equal(y, again.arrays[tc.METRIC][0])


def test_a_huge_budget_recovers_the_truth():
    # At 2,000,000 hands each of the 12 grid values is explored on ~83,000 hands (its
    # share to about ±0.0015, the grid's steps are 0.0055 apart) and the confirmation
    # holds ~475,000 wins (±0.0006): the whole tune must propose a value truly within
    # 0.05 ± 0.01, its confirmation interval must cover that value's truth, and it must
    # say met.
    r = tc.replicate(tc.SCENARIOS[0], seed=3, budget=2_000_000)
    assert r["within"], r
    assert r["lo"] <= r["truth"] <= r["hi"] and r["hi"] - r["lo"] < 0.002, r
    assert r["met"], r


@pytest.fixture(scope="module")
def quick():
    return tc.run(quick=True)


def test_the_quick_study_counts_every_replicate(quick):
    reps = quick["reps"]
    assert reps == tc.QUICK.reps
    assert {s.name for s in tc.SCENARIOS} == set(quick["rows"])
    for rows in quick["rows"].values():
        assert [r["seed"] for r in rows] == list(range(reps))
        for r in rows:  # --budget auto stays within its bounds
            assert 64 <= r["budget"] <= tc.MAX_HANDS and r["hands"] > 0
    f = quick["figures"]
    assert f["within"].n == f["kept"].n == reps
    assert f["met_within"].n == f["within"].k  # met is counted among the within only
    assert f["covers"].n == reps * len(tc.SCENARIOS)
    for s in f.values():
        assert 0 <= s.k <= s.n
        if s.n:
            lo, hi = s.interval
            assert 0.0 <= lo <= s.value <= hi <= 1.0
        else:
            assert math.isnan(s.value)
    for name, rows in quick["size"].items():  # the confirmation alone, on the edge
        assert [r["seed"] for r in rows] == list(range(tc.QUICK.size_reps))
        assert all(math.isclose(r["truth"], tc.EDGES[name]) for r in rows)
    assert f["size"].n == 2 * tc.QUICK.size_reps
    assert quick["section"].startswith("## Tune: does its proposal mean what it says?")
    assert f"both: {f['size'].show(2)}" in quick["section"]
    assert f"({f['within'].k} of {reps})" in quick["section"]


def test_the_edge_points_are_those_on_the_edge():
    lower, upper = (next(s for s in tc.SCENARIOS if s.name == n) for n in tc.EDGES)
    assert [p["fan.qidui"] for p in tc.edge_points(lower)] == [str(v) for v in range(25, 61, 5)]
    assert [p["fan.qidui"] for p in tc.edge_points(upper)] == [str(v) for v in range(5, 41, 5)]


@pytest.mark.parametrize("name", list(tc.EDGES))
def test_the_confirmation_alone_is_the_whole_tunes(name):
    # The size part draws the confirmation without the search: for the proposal the
    # whole tune made on the same seed it must draw the very figures and verdict the
    # tune's own confirmation drew (its budget, its matches, its seed).
    s = next(s for s in tc.SCENARIOS if s.name == name)
    r = tc.replicate(s, seed=1)
    c = tc.confirmation(s, seed=1, point=r["best"])
    assert (c["budget"], c["truth"], c["met"]) == (r["budget"], r["truth"], r["met"])
    assert (c["value"], c["judged_lo"], c["judged_hi"]) == (
        r["value"],
        r["judged_lo"],
        r["judged_hi"],
    )
    assert c["wins"] > 0.9 * c["matches"] * tc.HPM  # a win in 95 % of hands
