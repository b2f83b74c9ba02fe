"""The hostile-input suite, ``mjlog compare --margin / --primary``: every way a margin
or a primary metric can be wrong is refused in one line (exit 2, nothing written, the
runs untouched), before or after the runs are read; and the options' edge cases
that must succeed do, with nothing on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulate.runner import RunSpec, simulate
from tests.hostile import refused, run


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> list[Path]:
    d = tmp_path_factory.mktemp("verdicts")
    out = []
    for name, sets in (("a", ()), ("b", ("cap=2",))):
        spec = RunSpec.build(
            "yuxi", seed=2, matches=4, hands_per_match=2, sets=sets, agents=["greedy"], events=False
        )
        simulate(spec, d / name, workers=1, progress=False)
        out.append(d / name)
    return out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--margin", "draw_rate"], "expected METRIC=MARGIN"),
        (["--margin", "=0.1"], "expected METRIC=MARGIN"),
        (["--margin", "draw_rate=0"], "must be above 0"),
        (["--margin", "draw_rate=-0.5"], "must be above 0"),
        (["--margin", "draw_rate=nan"], "finite number"),
        (["--margin", "draw_rate=inf"], "finite number"),
        (["--margin", "draw_rate=1e309"], "finite number"),
        (["--margin", "draw_rate=" + "9" * 5000], "finite number"),
        (["--margin", "draw_rate=0.0.1"], "expected a number"),
        (["--margin", "drawrate=0.1"], "no metric 'drawrate'"),
        (["--margin", "draw_rate=0.1", "--margin", "draw_rate=0.2"], "names 'draw_rate' twice"),
        (["--margin", "pattern_rate[nosuch]=0.01"], "this comparison has no such metric"),
        (["--margin", "mean_points[7]=0.1"], "this comparison has no such metric"),
        (["--primary", "nonsense"], "no metric 'nonsense'"),
        (["--primary", ""], "no metric ''"),
        (["--primary", "x" * 5000], "characters)"),
        (["--primary", "pattern_rate[nosuch]"], "this comparison has no such metric"),
    ],
    ids=lambda a: " ".join(a)[:40] if isinstance(a, list) else None,
)
def test_a_bad_margin_or_primary_is_refused_in_one_line(pair, tmp_path, args, needle):
    res = refused(["compare", *pair, *args], tmp_path, inputs=pair, needle=needle, isolate=False)
    assert res.code == 2


def test_refusals_run_in_a_child_too(pair, tmp_path):
    """One case end to end in its own process: no traceback, no warning, exit 2."""
    refused(
        ["compare", *pair, "--margin", "draw_rate=nan"],
        tmp_path,
        inputs=pair,
        needle="finite number",
    )


def test_a_margin_and_a_primary_that_name_a_family_succeed_quietly(pair, tmp_path):
    res = run(
        [
            "compare",
            *pair,
            "--margin",
            "pattern_rate=0.5",
            "--primary",
            "pattern_rate",
            "--primary",
            "draw_rate",
            "--format",
            "json",
        ],
        tmp_path,
        isolate=False,
    )
    assert res.code == 0 and res.stderr == "", res.stderr
    rows = json.loads(res.stdout)
    assert all(r["margin"] == 0.5 for r in rows if r["metric"].startswith("pattern_rate["))
    assert {r["verdict"] for r in rows if r["metric"] == "dealer_advantage"} == {"exploratory"}
