"""Bad input to ``mjlog balance`` and to the rule keys it and a sweep use → one line,
exit 2, nothing written, before a hand is played: a bad ``--margin``, a bad or
unreachable ``--scheduler`` (or one without ``--out``), a bad value of
``dealer_rotation`` or ``dealer_compensation_unit``."""

from __future__ import annotations

import pytest

from tests.hostile import refused

BAL = ["balance", "yuxi", "--agents", "greedy", "--hands", "8", "--quiet"]
SIM = [
    "simulate",
    "--variant",
    "huangmei",
    "--matches",
    "1",
    "--hands-per-match",
    "2",
    "--quiet",
    "--out",
    "out",
]

CASES = [
    # ---- --margin: a finite number above 0, points per hand
    ("margin-zero", [*BAL, "--margin", "0"], "--margin must be above 0"),
    ("margin-negative", [*BAL, "--margin=-0.1"], "--margin must be above 0"),
    ("margin-words", [*BAL, "--margin", "tenth"], "for --margin; expected a number"),
    ("margin-nan", [*BAL, "--margin", "nan"], "--margin must be a finite number"),
    ("margin-inf", [*BAL, "--margin", "inf"], "--margin must be a finite number"),
    ("margin-overflow", [*BAL, "--margin", "1e309"], "--margin must be a finite"),
    ("margin-empty", [*BAL, "--margin", ""], "for --margin; expected a number"),
    # ---- --scheduler: its form, that it answers, and a place its workers can write
    (
        "scheduler-not-a-url",
        [*BAL, "--scheduler", "not a url", "--out", "out"],
        "expected tcp://HOST:PORT",
    ),
    (
        "scheduler-unreachable",
        [*BAL, "--scheduler", "tcp://127.0.0.1:1", "--out", "out"],
        "cannot reach",
    ),
    ("scheduler-empty", [*BAL, "--scheduler", "", "--out", "out"], "expected tcp://HOST:PORT"),
    # ---- the rule keys of a balance study and of a sweep's study design
    (
        "rotation-unknown",
        [*BAL, "--set", "dealer_rotation=sometimes"],
        "'sometimes' for yuxi rule key 'dealer_rotation'; valid values: rules, fixed",
    ),
    ("rotation-case", [*BAL, "--set", "dealer_rotation=FIXED"], "valid values: rules, fixed"),
    (
        "unit-unknown",
        [*BAL, "--set", "dealer_compensation_unit=cents"],
        "'dealer_compensation_unit'; valid values: base, money",
    ),
    ("unit-number", [*BAL, "--set", "dealer_compensation_unit=1"], "valid values: base, money"),
    (
        "simulate-rotation-unknown",
        [*SIM, "--set", "dealer_rotation=winner"],
        "valid values: rules, fixed",
    ),
    (
        "sweep-rotation-unknown",
        [
            "sweep",
            "--variant",
            "xuezhan",
            "--grid",
            "dealer_rotation=rules,random",
            "--out",
            "out",
            "--quiet",
        ],
        "valid values: rules, fixed",
    ),
    (
        "rules-file-rotation-number",
        [*SIM[:-2], "--rules", "r.toml", "--out", "out"],
        "valid values: rules, fixed",
    ),
    # a compensation in money whose payment overflows the log's int32 columns
    (
        "unit-money-past-int32",
        [
            *BAL,
            "--set",
            "dealer_compensation_unit=money",
            "--set",
            "dealer_compensation=2000000000",
        ],
        "int32",
    ),
]

FILES = {"rules-file-rotation-number": {"r.toml": "dealer_rotation = 1\n"}}


@pytest.mark.parametrize("args, needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused(args, needle, request, tmp_path):
    inputs = []
    for name, text in FILES.get(request.node.callspec.id, {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        inputs.append(tmp_path / name)
    # a child process only where a hang is possible (a scheduler that never answers)
    child = any(str(a).startswith("--scheduler") for a in args)
    res = refused(args, tmp_path, inputs=inputs, needle=needle, isolate=child)
    assert res.code == 2, res.stderr


def test_cases_have_unique_ids():
    assert len({c[0] for c in CASES}) == len(CASES)
