"""The calibration of compare's verdicts on real play (research/verdict_calibration.py)
at its --quick sizes: its emulation of ``mjlog compare`` gives compare's verdicts,
p-values and MDEs on the pools themselves, a points change that greedy does not read
leaves every rate identical hand for hand, and every figure it checks is a share."""

from __future__ import annotations

import pytest

from research import verdict_calibration as vc


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("MJLOG_BENCH_CACHE", str(tmp_path_factory.mktemp("pools")))
    try:
        yield vc.run(quick=True)
    finally:
        mp.undo()


def test_the_emulation_decides_as_compare_does(quick):
    # run() raises when any verdict differs; the numbers agree to rounding
    assert quick["gap"] <= 1e-9


def test_a_points_change_greedy_does_not_read_moves_only_the_money(quick):
    assert {"draw_rate", "pattern_rate[pinghu]", "capped_share"} <= set(quick["identical"])
    assert {"mean_points_per_win", "mean_total_per_win", "money_moved_per_hand"} <= set(
        quick["effects"]
    )
    # 七对 paid one point more per payer: every points figure rises
    assert all(v > 0 for v in quick["effects"].values())


def test_the_study_sizes_and_figures(quick):
    s1, s2 = vc.QUICK.sizes
    assert len(quick["aa"][s1]) == vc.QUICK.base // (2 * s1)
    assert len(quick["known"][s2]) == vc.QUICK.changed // s2
    assert len(quick["paired_aa"][s1]) == vc.QUICK.fixed // s1
    assert [(x["size"], x["metric"]) for x in quick["mde_as_run"]] == [
        (s, m) for s in vc.QUICK.mde_sizes for m in quick["effects"]
    ]
    assert all(x["n"] == vc.QUICK.changed // x["size"] for x in quick["mde_alone"])
    assert all(0 <= share <= 1 for _what, share, _n, _t in quick["checked"])
    section = quick["section"]
    for heading in ("### A/A", "### A known effect", "### The MDE as printed", "holds its level"):
        assert heading in section


def test_the_expected_power_at_the_mde_is_four_in_five():
    assert vc.expected_power(1.0, 1, 100_000) == pytest.approx(0.8, abs=0.005)
    assert vc.expected_power(1.0, 20, 50) == pytest.approx(0.8, abs=0.02)
    assert vc.expected_power(0.0, 20, 50) == pytest.approx(0.05 / 20, rel=0.01)
