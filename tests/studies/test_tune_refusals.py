"""``mjlog tune``'s refusals (tests/hostile.py's standard): one line, exit 2, before any
hand is played, nothing written outside ``--out`` and inputs left as they were."""

from __future__ import annotations

import json

import pytest

from tests.hostile import refused

OK = [
    "tune",
    "yuxi",
    "--vary",
    "base=1:4",
    "--target",
    "money_moved_per_hand=10±1",
    "--agents",
    "greedy",
    "--budget",
    "256",
    "--trials",
    "4",
    "--workers",
    "1",
    "--quiet",
]


def _with(args, **swap):
    out = list(args)
    for flag, value in swap.items():
        flag = "--" + flag.replace("_", "-")
        i = out.index(flag)
        out[i + 1] = value
    return out


@pytest.mark.parametrize(
    "args, needle",
    [
        (_with(OK, vary="nokey=1:3"), "no rule key 'nokey'"),
        (_with(OK, vary="base=5:1"), "LO < HI"),
        (_with(OK, vary="base=1"), "expected KEY=LO:HI"),
        (_with(OK, vary="dealer_on_draw=1:3"), "give its values as KEY=a|b|c"),
        (_with(OK, vary="cap=8|x"), "expected an integer"),
        (_with(OK, target="money_moved=10±1"), "no metric 'money_moved'"),
        (_with(OK, target="pattern_rate[gen]=0.1±0.01"), "no metric 'pattern_rate[gen]'"),
        (_with(OK, target="draw_rate<=inf"), "finite"),
        (_with(OK, target="draw_rate=1e309±0.1"), "finite"),
        (_with(OK, target="draw_rate=0.1"), "needs a tolerance"),
        ([*OK, "--weight", "draw_rate=2"], "which no --target has"),
        ([*OK, "--weight", "money_moved_per_hand=nan"], "finite"),
        ([*OK, "--set", "base=2"], "both varied"),
        (_with(OK, agents="nobody"), "unknown agent 'nobody'"),
        (_with(OK, target="money_moved_per_hand=10±1e-320"), "would overflow the search's loss"),
        ([*OK, "--weight", "money_moved_per_hand=1e308"], "--weight money_moved_per_hand=1e+308"),
        (_with(OK, target="draw_rate=1.5±0.1"), "draw_rate is a share, in [0, 1]"),
        (_with(OK, target="pattern_rate[qidui]<=-0.1"), "pattern_rate is a share, in [0, 1]"),
        (
            _with(OK, vary="players=2:4", target="mean_points[3]=0±1"),
            "--vary players=2 leaves no seat 3",
        ),
        (_with(OK, budget="99999999999999"), "--budget 99999999999999 is beyond the log's"),
        (_with(OK, agents="greedy,greedy,greedy,gr\x1beedy"), "no control characters"),
        ([*OK, "--recheck", "random\n"], "no control characters"),
    ],
    ids=[
        "unknown-key",
        "empty-range",
        "no-range",
        "choice-as-range",
        "bad-value",
        "unknown-metric",
        "other-variants-pattern",
        "inf",
        "1e309",
        "no-tolerance",
        "weight-without-target",
        "nan-weight",
        "varied-and-held",
        "unknown-agent",
        "tolerance-1e-320",
        "weight-1e308",
        "rate-above-1",
        "rate-below-0",
        "seat-varied-away",
        "budget-beyond-the-log",
        "control-in-agents",
        "control-in-recheck",
    ],
)
def test_bad_tunes_are_refused_before_any_hand(args, needle, tmp_path):
    refused([*args, "--out", "t"], tmp_path, needle=needle, isolate=False)


def test_another_tunes_directory_is_refused(tmp_path):
    out = tmp_path / "t"
    out.mkdir()
    (out / "tune.json").write_text(json.dumps({"tune_id": "0" * 16}), encoding="utf-8")
    refused([*OK, "--out", str(out)], tmp_path, inputs=[out], needle="another tune", isolate=False)


@pytest.mark.parametrize(
    "content", [b"{not json", b"\x00\xff", b"[]"], ids=["truncated", "binary", "not-an-object"]
)
def test_a_corrupt_journal_is_named(content, tmp_path):
    out = tmp_path / "t"
    out.mkdir()
    (out / "tune.json").write_bytes(content)
    refused([*OK, "--out", str(out)], tmp_path, inputs=[out], needle="tune.json", isolate=False)


def test_a_folder_of_other_files_is_refused(tmp_path):
    out = tmp_path / "t"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    refused([*OK, "--out", str(out)], tmp_path, inputs=[out], needle="holds files", isolate=False)


def _journal(**trial):
    """A journal of the tune ``OK`` makes, holding one trial (``trial`` overrides its
    fields): what a hand-edited or damaged ``tune.json`` looks like."""
    from analysis.studies.tune import Plan, parse_target, parse_vary

    plan = Plan(
        "yuxi",
        tuple(parse_vary(["base=1:4"], "yuxi")),
        (parse_target("money_moved_per_hand=10±1"),),
        ("greedy",),
        (),
        256,
        4,
        8,
        0,
    )
    row = {
        "trial": 0,
        "point": {"base": "1"},
        "run": "trials/000",
        "hands": 64,
        "loss": 1.5,
        "values": {"money_moved_per_hand": 8.5},
        **trial,
    }
    return {
        "tune_id": plan.tune_id,
        "variant": "yuxi",
        "trials": [row],
        "race": [],
        "confirm": None,
        "settled": {},
        "played": ["trials/000"],
    }


@pytest.mark.parametrize(
    "trial, needle",
    [
        ({"run": "../elsewhere"}, "'../elsewhere' is not a run of this directory"),
        ({"run": "/tmp/abs"}, "'/tmp/abs' is not a run of this directory"),
        ({"loss": "0.5"}, "trial 0's loss is '0.5', not a finite number"),
        ({"loss": 1e999}, "not a finite number"),  # json writes it as Infinity
        ({"point": {"base": "99"}}, "base='99' lies outside --vary"),
        ({"point": {"cap": "8"}}, "not --vary's"),
        ({"trial": 3}, "trial 0 is numbered 3"),
        ({"hands": -1}, "not a whole number"),
        ({"values": {"money_moved_per_hand": float("nan")}}, "not a finite number"),
        ({"settled_from": "../x", "settled": 64}, "'../x' is not a run"),
    ],
    ids=[
        "parent-run",
        "absolute-run",
        "string-loss",
        "infinite-loss",
        "point-outside-vary",
        "other-key",
        "misnumbered",
        "negative-hands",
        "nan-figure",
        "parent-donor",
    ],
)
def test_a_damaged_journal_is_refused_in_one_line(trial, needle, tmp_path):
    out = tmp_path / "t"
    out.mkdir()
    (out / "tune.json").write_text(json.dumps(_journal(**trial)), encoding="utf-8")
    refused(
        [*OK, "--out", str(out)],
        tmp_path,
        inputs=[out],
        needle=needle,
        isolate=False,
    )


def test_a_journal_whose_played_runs_leave_the_directory_is_refused(tmp_path):
    out = tmp_path / "t"
    out.mkdir()
    doc = _journal()
    doc["played"] = ["trials/000", "../../other"]
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    refused([*OK, "--out", str(out)], tmp_path, inputs=[out], needle="'../../other'", isolate=False)


@pytest.mark.parametrize("flag", ["--detect", "--margin"])
def test_plan_refuses_an_effect_too_small_for_any_run(flag, tmp_path):
    # --detect 1e-300 needs ~1e600 matches: one line naming the flag, not an overflow
    from analysis.studies.sample import data_dir

    pilot = data_dir() / "xuezhan"
    refused(
        ["plan", str(pilot), "--metric", "draw_rate", flag, "1e-300", "--time-hands", "0"],
        tmp_path,
        needle=f"no run holds that many (ask for a larger {flag})",
        isolate=False,
    )
