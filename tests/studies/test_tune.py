"""``mjlog tune``: known answers, trade-offs, resumption, and what it writes.

``greedy`` ignores the rules' values, so under it a money-only key changes no
choice: every trial plays the same hands, and money moved is the base times the
money of base 1, exactly. That makes the first test's answer arithmetic.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from click.testing import CliRunner

from analysis.studies.tune import parse_target, parse_vary
from mjlog.cli import main
from mjlog.errors import InputError

BASE = [
    "tune",
    "yuxi",
    "--vary",
    "base=1:10",
    "--agents",
    "greedy",
    "--budget",
    "800",
    "--trials",
    "10",
    "--workers",
    "1",
    "--quiet",
    "--format",
    "json",
]


def _tune(tmp_path, *args, name="t"):
    r = CliRunner().invoke(main, [*args, "--out", str(tmp_path / name)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def money(tmp_path_factory):
    d = tmp_path_factory.mktemp("tune")
    return d, _tune(d, *BASE, "--target", "money_moved_per_hand=30±1", "--recheck", "random")


def test_a_money_only_key_lands_on_its_arithmetic_answer(money):
    _, res = money
    by_base = {int(t["point"]["base"]): t["values"]["money_moved_per_hand"] for t in res["trials"]}
    m1 = by_base[1]
    # a money-only key under a rule-blind line-up: the same hands, money × base exactly
    assert all(v == pytest.approx(b * m1) for b, v in by_base.items())
    assert res["best"] == {"base": str(round(30 / m1))}
    assert res["before"] == {"base": "1"}
    row = res["targets"][0]
    assert set(row) >= {"metric", "target", "tol", "value", "lo", "hi", "met"}
    assert row["lo"] < row["value"] < row["hi"]
    assert res["confirm_seed"] != res["seed"] and res["hands"] > 0


def test_it_writes_a_rules_file_that_rules_read(money, tmp_path):
    d, res = money
    text = (d / "t" / "rules.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text) == {"base": int(res["best"]["base"])}
    assert "money_moved_per_hand=30±1" in text  # the evidence, commented
    r = CliRunner().invoke(main, ["rules", "yuxi", "--rules", str(d / "t" / "rules.toml")])
    assert r.exit_code == 0 and f"base = {res['best']['base']}" in r.stdout


def test_a_finished_tune_answers_from_its_journal_alone(money, tmp_path):
    d, res = money
    out = tmp_path / "t"
    out.mkdir()
    (out / "tune.json").write_bytes((d / "t" / "tune.json").read_bytes())  # no runs
    assert (
        _tune(tmp_path, *BASE, "--target", "money_moved_per_hand=30±1", "--recheck", "random")
        == res
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "report.txt",
        "result.json",
        "rules.toml",
        "tune.json",
    ]


def test_a_rerun_is_the_same_answer_and_plays_nothing(money):
    d, res = money
    journal = (d / "t" / "tune.json").read_bytes()
    again = _tune(d, *BASE, "--target", "money_moved_per_hand=30±1", "--recheck", "random")
    assert again == res and (d / "t" / "tune.json").read_bytes() == journal


def test_a_killed_tune_resumes_to_the_same_answer(money, tmp_path):
    d, res = money
    doc = json.loads((d / "t" / "tune.json").read_text(encoding="utf-8"))
    # as killed after trial 4: the journal holds four trials and no race or confirmation
    doc["trials"], doc["race"], doc["confirm"] = doc["trials"][:4], [], None
    doc.pop("recheck", None), doc.pop("finished"), doc.pop("choice")
    out = tmp_path / "t"
    out.mkdir()
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    for k in range(4):
        (out / "trials").mkdir(exist_ok=True)
        src = d / "t" / "trials" / f"{k:03d}"
        dst = out / "trials" / f"{k:03d}"
        dst.mkdir()
        for f in src.rglob("*"):
            if f.is_file():
                (dst / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
                (dst / f.relative_to(src)).write_bytes(f.read_bytes())
    assert (
        _tune(tmp_path, *BASE, "--target", "money_moved_per_hand=30±1", "--recheck", "random")
        == res
    )


def test_money_only_trials_are_settled_from_logged_play_with_the_same_answer(money, tmp_path):
    _, res = money
    # base is money-only and greedy never reads money: after the first trial every
    # candidate is settled from its logged play, not played again
    first, *rest = [t for t in res["trials"] if "same_as" not in t]
    assert first["hands"] > 0 and "settled_from" not in first
    assert rest and all(
        t["settled_from"] == first["run"] and t["hands"] == 0 and t["settled"] == first["hands"]
        for t in rest
    )
    assert res["settled"]["confirm-before"] == "confirm"
    played = _tune(
        tmp_path,
        *BASE,
        "--target",
        "money_moved_per_hand=30±1",
        "--recheck",
        "random",
        "--play-all",
    )
    assert played["settled"] == {} and played["hands"] > 2 * res["hands"]

    def answer(r):
        return (
            r["best"],
            r["targets"],
            r["targets_before"],
            [(t["point"], t["loss"], t["values"]) for t in r["trials"]],
            [(x["trials"], x["share_best"], x["losses"]) for x in r["race"]],
            [(x["agents"], x["targets"], x["before"]) for x in r["recheck"]],
        )

    assert answer(played) == answer(res)


def test_candidates_the_targets_cannot_tell_apart_are_a_tie_not_a_winner(tmp_path):
    # no xuezhan hand of these walls pays past a cap of 20, so every cap from 20 up
    # moves the same money on every match: the race must not call one "best"
    res = _tune(
        tmp_path,
        "tune",
        "xuezhan",
        "--vary",
        "cap=20:64:4",
        "--agents",
        "efficient",
        "--target",
        "money_moved_per_hand=10±1",
        "--budget",
        "960",
        "--trials",
        "6",
        "--workers",
        "1",
        "--quiet",
        "--format",
        "json",
    )
    values = {t["values"]["money_moved_per_hand"] for t in res["trials"]}
    assert len(values) == 1  # the premise: the same figures
    # no target responds to the cap (its slope is 0): it is held at the rulebook's
    # value before any race, so nothing is raced and no winner is named
    assert res["choice"]["held"] == ["cap"] and res["race"] == []
    assert res["changed"] == [] and "no varied key moves" in res["no_change"]
    text = (tmp_path / "t" / "report.txt").read_text(encoding="utf-8")
    assert "best in 100%" not in text and "no target responds to it" in text


def test_two_conflicting_targets_report_the_trade_off(tmp_path):
    # money per hand wants base 8, points per win of that scale want base 2: not both
    res = _tune(
        tmp_path,
        *BASE,
        "--target",
        "money_moved_per_hand=30±1",
        "--target",
        "mean_points_per_win=6±0.5",
    )
    assert [r["met"] for r in res["targets"]] != [True, True]
    assert any(r["met"] is False for r in res["targets"])
    text = (
        CliRunner()
        .invoke(
            main,
            [
                *[a for a in BASE if a not in ("--format", "json")],
                "--target",
                "money_moved_per_hand=30±1",
                "--target",
                "mean_points_per_win=6±0.5",
                "--out",
                str(tmp_path / "t"),
            ],
        )
        .stdout
    )
    assert "trade-off" in text and "NOT MET" in text


def test_targets_and_ranges_parse():
    assert parse_target("draw_rate<=0.02").op == "<="
    assert parse_target("draw_rate>=0.01+-0.002").tol == 0.002
    assert [v.values for v in parse_vary(["mult.qidui=2:16"], "xuezhan")] == [(2, 4, 8, 16)]
    pair = parse_vary(["points.longqidui=4/5:14/15"], "yuxi")[0]
    assert pair.values[0] == (4, 5) and pair.values[-1] == (14, 15)
    assert parse_vary(["zimo_bonus=none|add_base"], "xuezhan")[0].values == ("none", "add_base")


@pytest.mark.parametrize(
    "bad, needle",
    [
        ("pattern_rate[qidui]=0.05", "needs a tolerance"),
        ("draw_rate<=nan", "finite"),
        ("draw_rate=0.1±0", "above 0"),
        ("draw rate", "expected METRIC=VALUE±TOL"),
    ],
)
def test_bad_targets_are_refused(bad, needle):
    with pytest.raises(InputError, match=needle):
        parse_target(bad)


def test_on_a_dask_cluster_the_same_answer(money, tmp_path):
    """``--scheduler``: each trial's shards on a dask.distributed cluster; the journal
    and the answer are those of one local worker."""
    from distributed import LocalCluster

    d, res = money
    cmd = [a for a in BASE if a not in ("--workers", "1")]
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        there = _tune(
            tmp_path,
            *cmd,
            "--target",
            "money_moved_per_hand=30±1",
            "--recheck",
            "random",
            "--scheduler",
            cluster.scheduler_address,
        )
        moved = cluster.scheduler.transition_counter
    assert moved > 0 and there == res
    assert (tmp_path / "t" / "tune.json").read_bytes() == (d / "t" / "tune.json").read_bytes()


def test_a_proposal_is_rechecked_under_another_line_up(money):
    _, res = money
    [rc] = res["recheck"]
    assert rc["agents"] == "random" and rc["hands"] > 0
    assert [r["metric"] for r in rc["targets"]] == ["money_moved_per_hand"]
    # random plays other hands: its money is its own, judged on the same fresh walls
    assert rc["targets"][0]["value"] != res["targets"][0]["value"]


def test_it_lands_where_a_plain_sweep_says(tmp_path):
    """A plain sweep on the same walls says which cap brings the money moved per hand
    nearest a value; tune, asked for that value, ranks that cap first on those walls
    (its trials are the sweep's figures exactly: common random numbers) and proposes
    it, or a neighbour once fresh walls have raced the best three."""
    from analysis.compare import precision

    common = [
        "--agents",
        "greedy",
        "--seed",
        "5",
        "--hands-per-match",
        "8",
        "--workers",
        "1",
        "--quiet",
    ]
    caps = [1, 2, 3, 4, 5, 6]
    # tune explores the six caps and the rulebook's (16): 640 // 2 // 7 // 8 = 5 matches
    # each, and the sweep plays those
    r = CliRunner().invoke(
        main,
        [
            "sweep",
            "--variant",
            "xuezhan",
            "--grid",
            "cap=" + ",".join(map(str, caps)),
            "--matches",
            "5",
            *common,
            "--out",
            str(tmp_path / "sweep"),
        ],
    )
    assert r.exit_code == 0, r.output
    metric = "money_moved_per_hand"
    moved = {
        c: float(
            precision(tmp_path / "sweep" / f"cap={c}").set_index("metric").loc[metric, "value"]
        )
        for c in caps
    }
    want = 3
    gap = min(abs(moved[want] - moved[c]) for c in caps if c != want)
    assert gap > 0  # the sweep names one cap nearest the value
    res = _tune(
        tmp_path,
        "tune",
        "xuezhan",
        "--vary",
        "cap=1:6",
        "--budget",
        "640",
        "--trials",
        "6",
        *common,
        "--format",
        "json",
        "--target",
        f"{metric}={moved[want]}±{gap / 2}",
    )
    got = {int(t["point"]["cap"]): t["values"][metric] for t in res["trials"]}
    assert res["trials"][0]["point"] == {"cap": "16"}  # the rulebook's, measured beside
    assert {c: got[c] for c in caps} == pytest.approx(moved)
    first = min(res["trials"], key=lambda t: t["loss"])
    assert first["point"] == {"cap": str(want)}
    assert abs(int(res["best"]["cap"]) - want) <= 1
