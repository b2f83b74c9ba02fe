"""``mjlog tune`` shows every side effect: the proposal against the rules as they are,
paired on the confirmation's walls, on every figure of ``mjlog compare`` through
compare's own decision; where a changed pattern value stands; ``--keep-order``.

Under ``greedy`` a money-only key changes no choice, so the figures it scales are
known: base 1 → N multiplies points per win by N on the same hands, and draws do not
move at all.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main

QUIET = ["--agents", "greedy", "--workers", "1", "--quiet", "--format", "json"]


def _run(*args):
    r = CliRunner().invoke(main, [*args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def money(tmp_path_factory):
    out = tmp_path_factory.mktemp("effects") / "t"
    args = ["tune", "yuxi", "--vary", "base=1:10", "--target", "money_moved_per_hand=30±1"]
    return out, _run(*args, "--budget", "256", "--trials", "4", *QUIET, "--out", str(out))


def test_every_other_figure_is_a_side_effect_differs_first(money):
    _, res = money
    effects = res["side_effects"]
    assert effects and all(
        set(e) >= {"metric", "before", "after", "diff", "lo", "hi", "verdict"} for e in effects
    )
    assert "money_moved_per_hand" not in {e["metric"] for e in effects}
    order = {"differs": 0, "inconclusive": 1, "equivalent": 2, "identical": 3}
    assert [order[e["verdict"]] for e in effects] == sorted(order[e["verdict"]] for e in effects)
    by = {e["metric"]: e for e in effects}
    # points per win scale with base on the same hands: a side effect that differs
    per_win = by["mean_points_per_win"]
    assert per_win["verdict"] == "differs"
    base = int(res["best"]["base"])
    assert per_win["after"] == pytest.approx(base * per_win["before"])
    assert by["draw_rate"]["diff"] == 0  # the same hands: not one draw more or less
    assert by["draw_rate"]["verdict"] == "identical"  # compare's word for the same hands


def test_the_side_effects_are_compares_own_decision(money):
    out, res = money
    rows = _run(
        "compare",
        str(out / "confirm-before"),
        str(out / "confirm"),
        "--margin",
        "money_moved_per_hand=1",
        "--format",
        "json",
    )
    theirs = {r["metric"]: (r["diff"], r["verdict"]) for r in rows}
    for e in res["side_effects"]:
        assert (e["diff"], e["verdict"]) == pytest.approx(theirs[e["metric"]])
    [target] = res["targets"]
    vs = target["vs_rulebook"]
    assert (vs["diff"], vs["verdict"]) == pytest.approx(theirs["money_moved_per_hand"])
    assert vs["verdict"] == "differs" and vs["margin"] == 1  # the tolerance is its margin
    text = (out / "report.txt").read_text(encoding="utf-8")
    assert "side effects (proposal − rules as they are" in text
    assert text.index("mean_points_per_win:") < text.index("draw_rate:")  # differs first


PENG = ["tune", "huangmei", "--vary", "fan.pengpenghu=15|40"]
PENG += ["--target", "mean_points_per_win>=100", "--trials", "4", *QUIET]


def test_keep_order_leaves_out_a_value_that_breaks_containment(tmp_path):
    # 全求人 (30) contains 碰碰胡: at 40 碰碰胡 would pay more than a pattern holding it
    res = _run(*PENG, "--budget", "256", "--out", str(tmp_path / "t"))
    assert res["changed"] == [] and res["order"]["kept"] is True
    assert res["order"]["left_out"] == {"1": ["quanqiuren (30) < pengpenghu (40)"]}
    assert "breaks the containment order" in res["no_change"]


def test_without_keep_order_the_break_and_the_new_standing_are_reported(tmp_path):
    # a budget whose race, on its own fresh hands, tells 40 from 15 (at 1024 it
    # cannot, and least change keeps the rulebook's 15)
    res = _run(*PENG, "--budget", "2048", "--no-keep-order", "--out", str(tmp_path / "t"))
    assert res["changed"] == ["fan.pengpenghu"] and res["best"] == {"fan.pengpenghu": "40"}
    assert res["order"]["broken"] == ["quanqiuren (30) < pengpenghu (40)"]
    st = res["standing"]["fan.pengpenghu"]
    assert st["was"] == "15" and "quanqiuren (30)" in st["passes"]
    text = (tmp_path / "t" / "report.txt").read_text(encoding="utf-8")
    assert "pengpenghu at 40 (was 15): now above" in text
