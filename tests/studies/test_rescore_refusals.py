"""``mjlog tune --rescore``'s refusals (tests/hostile.py's standard): one line, exit 2,
before any hand is played, nothing written and inputs left as they were."""

from __future__ import annotations

import json

import pytest

from tests.hostile import refused

OK = [
    "tune",
    "huangmei",
    "--rescore",
    "qidui",
    "--agents",
    "greedy",
    "--budget",
    "256",
    "--workers",
    "1",
    "--quiet",
]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["tune", "huangmei", "--rescore", "nothing"], "has no pattern 'nothing'"),
        (["tune", "huangmei", "--rescore", "gen"], "a pattern of xuezhan"),
        (["tune", "yuxi", "--rescore", "hunyise"], "a pattern of huangmei"),
        (["tune", "xuezhan", "--rescore", "tianhu"], "under these rules"),
        (["tune", "yuxi", "--set", "honors=false", "--rescore", "shilaotou"], "under these rules"),
        (["tune", "huangmei", "--rescore", "qidui", "qidui"], "twice"),
        ([*OK, "--vary", "fan.qidui=5:60"], "takes no --vary"),
        ([*OK, "--target", "draw_rate<=0.02"], "takes no --target"),
        ([*OK, "--weight", "draw_rate=2"], "takes no --weight"),
        ([*OK, "--trials", "4"], "takes no --trials"),
        ([*OK, "--set", "fan.qidui=x"], "expected an integer"),
        (
            [
                "tune",
                "huangmei",
                "qidui",
                "--vary",
                "fan.qidui=5:60",
                "--target",
                "pattern_rate[qidui]=0.05±0.01",
            ],
            "only with --rescore",
        ),
        (
            [
                "tune",
                "huangmei",
                "--vary",
                "fan.qidui=5:60",
                "--rounds",
                "3",
                "--target",
                "pattern_rate[qidui]=0.05±0.01",
            ],
            "--rounds",
        ),
        (["tune", "huangmei", "--target", "draw_rate<=0.02"], "--vary"),
        (["tune", "huangmei", "--vary", "fan.qidui=5:60"], "--target"),
    ],
    ids=[
        "unknown-pattern",
        "xuezhan-pattern",
        "huangmei-pattern-in-yuxi",
        "extra-left-out",
        "no-honors",
        "named-twice",
        "with-vary",
        "with-target",
        "with-weight",
        "with-trials",
        "bad-set",
        "pattern-without-rescore",
        "rounds-without-rescore",
        "no-vary",
        "no-target",
    ],
)
def test_bad_rescores_are_refused_before_any_hand(args, needle, tmp_path):
    if "--out" not in args:
        args = [*args, "--out", "r"]
    refused(args, tmp_path, needle=needle, isolate=False)


def test_a_tunes_directory_is_not_a_rescores(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "tune.json").write_text(
        json.dumps({"tune_id": "0" * 16, "trials": []}), encoding="utf-8"
    )
    refused([*OK, "--out", str(out)], tmp_path, inputs=[out], needle="another tune", isolate=False)
