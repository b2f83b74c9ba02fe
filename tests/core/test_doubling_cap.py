"""huangmei ``doubling_cap`` (封顶 of ``payment = doubling``).

A capped win pays ``base × 2^doubling_cap`` and its breakdown says so; runs under
doubling now play and validate (they used to overflow the int32 money columns);
rules whose most money passes those columns are refused before any hand; a run
from before the key reads with the cap its log could hold.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.errors import InputError
from mjlog.logio import read_table
from mjlog.rulekeys import INT32_MAX
from mjlog.rules import Rules, keys, resolve
from mjlog.scoring import huangmei
from mjlog.scoring.base import Method, WinContext
from mjlog.tiles import parse_counts, parse_tile

# 碰碰胡 + 单吊 + 平胡 + 门前清 = 18 fan on a discard: 16 doublings above min_fan 2
PENGPENG = WinContext(
    tuple(parse_counts("111m222p333s444m11z")), (), parse_tile("1z"), Method.DISCARD
)


def doubling(*sets: str) -> Rules:
    return resolve("huangmei", sets=["payment=doubling", *sets])


@pytest.mark.parametrize(
    "cap, base, points, capped",
    [
        (0, 3, 3, True),  # every win pays base
        (10, 1, 2**10, True),  # the default
        (15, 2, 2 * 2**15, True),  # one short of the hand's 16
        (16, 2, 2 * 2**16, False),  # exactly the hand's: paid in full
        (30, 1, 2**16, False),
    ],
)
def test_a_capped_win_pays_base_times_two_to_the_cap(cap, base, points, capped):
    rules = doubling(f"doubling_cap={cap}", f"base={base}")
    s = huangmei.score(PENGPENG, rules)
    assert (s.legal, s.fan, s.points, s.capped) == (True, 18, points, capped)
    b = huangmei.explain(s.patterns, "discard", rules)
    assert (b.points, b.capped) == (s.points, s.capped)
    assert ("capped at 2^" in b.formula) is capped
    assert b.formula.endswith(f"= {points} points")


def test_the_cap_matters_only_under_doubling():
    s = huangmei.score(PENGPENG, resolve("huangmei", sets=["doubling_cap=0"]))
    assert (s.points, s.capped) == (18, False)


def test_points_past_the_int32_column_are_refused_not_built():
    big = doubling("doubling_cap=30", "fan.pinghu=100")
    assert huangmei.score(PENGPENG, big).points == 2**30  # the most a payer can be logged
    with pytest.raises(InputError, match="int32.*doubling_cap"):
        huangmei.score(PENGPENG, big.replace(base=2))
    huge = doubling("doubling_cap=2147483647", "fan.pinghu=2147483647")
    with pytest.raises(InputError, match="int32"):  # at once, not 2^(2^31) first
        huangmei.score(PENGPENG, huge)


def test_mjlog_score_shows_where_the_cap_bites():
    args = [
        "score",
        "huangmei",
        "111m222p333s444m1z",
        "--win",
        "1z",
        "--by",
        "discard",
        "--set",
        "payment=doubling",
        "--set",
        "doubling_cap=4",
        "--set",
        "base=5",
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert "1 × 2^(18 − 2)" not in res.output  # base 5 is shown, not 1
    assert "5 × 2^(18 − 2) → capped at 2^4 (doubling_cap) = 80 points" in res.output
    res = CliRunner().invoke(main, [*args, "--format", "json"])
    got = json.loads(res.output)
    assert (got["points"], got["capped"], got["breakdown"]["capped"]) == (80, True, True)


def test_a_run_from_before_the_key_reads_the_cap_its_log_could_hold():
    old = {k: v for k, v in Rules("huangmei").to_json().items() if k != "doubling_cap"}
    cap = Rules.recorded("huangmei", old)["doubling_cap"]
    # an uncapped doubling win was only logged when base × 2^doublings fit int32
    # (base ≥ 1): at most 30 doublings, all of them paid the same under cap 30
    assert cap == keys("huangmei")["doubling_cap"].absent == 30
    assert 2**cap <= INT32_MAX < 2 ** (cap + 1)


@pytest.mark.parametrize(
    "sets, refused",
    [
        (["doubling_cap=28"], False),  # 6 × 2^28 a hand at most: fits
        (["doubling_cap=29"], True),
        (["doubling_cap=2147483647"], True),  # huge: refused, not computed
        (["doubling_cap=20", "base=4096"], True),
        (["doubling_cap=2147483647", "payment=linear"], False),  # the cap is not in play
        (
            [
                "doubling_cap=2147483647",
                "min_fan=0",
                *[f"fan.{k}=0" for k in huangmei.PATTERNS],
                "fan.facai_all=0",
            ],
            False,
        ),  # no fan at all: nothing to double
    ],
)
def test_money_past_int32_is_refused_before_any_hand(sets, refused, tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            "huangmei",
            "--set",
            "payment=doubling",
            *[a for s in sets for a in ("--set", s)],
            "--matches",
            "1",
            "--hands-per-match",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    if refused:
        assert res.exit_code != 0 and "int32" in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1 and not out.exists()
    else:
        assert res.exit_code == 0, res.output


def test_simulate_under_doubling_plays_caps_and_validates(tmp_path):
    out = tmp_path / "run"
    sets = ["payment=doubling", "doubling_cap=2", "base=3"]
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            "huangmei",
            "--seed",
            "5",
            *[a for s in sets for a in ("--set", s)],
            "--matches",
            "2",
            "--hands-per-match",
            "4",
            "--agents",
            "strategic,efficient,greedy,random",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    wins = read_table(out, "wins").to_pylist()
    assert wins and all(w["points"] == 3 * 2 ** min(w["fan"] - 2, 2) for w in wins)
    assert any(w["capped"] for w in wins)
    assert all(w["capped"] == (w["fan"] - 2 > 2) for w in wins)
    res = CliRunner().invoke(main, ["validate", str(out), "--workers", "1"])
    assert res.exit_code == 0 and "problems 0" in res.output, res.output


def test_the_ladder_under_doubling_runs():
    # before the cap this stopped: "cannot log ... hands.deltas: Value -3276800000 too
    # large to fit in C integer type"
    res = CliRunner().invoke(
        main,
        [
            "ladder",
            "--variant",
            "huangmei",
            "--set",
            "payment=doubling",
            "--set",
            "base=100000",
            "--agents",
            "greedy,random,greedy,random",
            "--hands",
            "16",
            "--seed",
            "1",
            "--workers",
            "1",
            "--format",
            "json",
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    rows = {r["agent"]: r for r in json.loads(res.output)}
    assert rows["greedy"]["win_rate"] > 0
    # a win takes at most 2^10 × base from each of three payers
    assert 0 < rows["greedy"]["mean_points_per_win"] <= 3 * 2**10 * 100000


def test_the_rules_page_states_the_cap_as_the_rulebooks_decision():
    # RULES.md §4 now holds doubling_cap (default 10) as the project's decision, the
    # seed naming no 封顶: docs/rules/huangmei.md says so, with the code's default
    # and meaning (base × 2^min(fan − min_fan, doubling_cap))
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs/rules/huangmei.md").read_text()
    para = page.split("- `doubling_cap`", 1)[1].split("\n- `", 1)[0]
    key = keys("huangmei")["doubling_cap"]
    assert "rulebook" in para and "decision" in para
    assert f"({key.default}: " in para and f"with {key.absent}" in para
    s = huangmei.score(PENGPENG, doubling(f"doubling_cap={key.default}"))
    assert s.points == 2 ** min(s.fan - 2, key.default)
