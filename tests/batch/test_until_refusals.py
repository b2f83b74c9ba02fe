"""No wrong or misleading answer (issue 38): ``simulate --until``'s metric, non-finite
numbers, the flag an error names, and strict JSON.

- An ``--until`` metric that does not exist for the run (misspelt, a pattern the
  variant lacks, a seat it has not) is refused before any hand is played, naming the
  user's metric and the valid ones.
- A non-finite number (``nan``, ``inf``, ``1e309``) is refused wherever a float is
  read: ``--until``'s half-width and the agents' float parameters.
- An error names the flag the user gave (``--max-hands``, not ``--matches``).
- Every ``--format json`` output is strict JSON: it parses with ``NaN`` and
  ``Infinity`` refused (undefined figures are ``null``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile import refused, run

DATA = Path(__file__).resolve().parents[2] / "data"
SIM = [
    "simulate",
    "--variant",
    "yuxi",
    "--seed",
    "3",
    "--agents",
    "random",
    "--hands-per-match",
    "2",
    "--hands-per-shard",
    "20",
    "--events",
    "none",
    "--workers",
    "1",
    "--quiet",
]


def strict_loads(text: str):
    """``json.loads`` that refuses NaN, Infinity and -Infinity."""

    def refuse(name):
        raise AssertionError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


def until_refused(tmp_path: Path, until: str, needle: str, *extra: str, max_hands: str = "60"):
    res = refused(
        [*SIM, *extra, "--until", until, "--max-hands", max_hands, "--out", "r"],
        tmp_path,
        needle=needle,
        isolate=False,
    )
    assert res.code == 2, res.stderr
    assert not (tmp_path / "r").exists()
    return res


# ------------------------------------------------------------ metrics that do not exist


@pytest.mark.parametrize(
    "until, extra, named, valid",
    [
        ("dealer_advantag=0.1", (), "'dealer_advantag'", "dealer_advantage"),
        ("pattern_rate[pinhu]=0.1", (), "'pinhu'", "pinghu"),  # misspelt pattern
        ("pattern_rate[facai]=0.1", (), "'facai'", "shilaotou"),  # huangmei's, not yuxi's
        ("mean_points[4]=0.1", (), "'mean_points[4]'", "mean_points[3]"),
        ("mean_points[3]=0.1", ("--players", "3"), "'mean_points[3]'", "mean_points[2]"),
    ],
    ids=[
        "misspelt",
        "misspelt-pattern",
        "other-variant-pattern",
        "no-such-seat",
        "no-such-seat-3p",
    ],
)
def test_unknown_until_metric_is_refused_before_play(tmp_path, until, extra, named, valid):
    line = until_refused(tmp_path, until, named, *extra).stderr.strip()
    assert valid in line and "'?" not in line


def test_every_pattern_of_the_variant_is_a_metric(tmp_path):
    """The variant's own patterns pass the check (the half-width is another matter)."""
    from mjlog.rules import VARIANTS, resolve
    from simulate.until import check_metric

    for name in VARIANTS:
        rules = resolve(name)
        for key in rules.spec.patterns(rules):
            check_metric(f"pattern_rate[{key}]", rules)


# ------------------------------------------------------------ non-finite numbers

NON_FINITE = ["nan", "inf", "-inf", "1e309", "NaN", "Infinity"]
FLOAT_OPTIONS = {  # every float a command reads: a template of its arguments
    "--until": [*SIM, "--until", "draw_rate={v}", "--max-hands", "60", "--out", "r"],
    "strategic aggression": [
        *SIM,
        "--agents",
        "strategic:aggression={v}",
        "--matches",
        "1",
        "--out",
        "r",
    ],
    "strategic defense": [
        *SIM,
        "--agents",
        "strategic:defense={v}",
        "--matches",
        "1",
        "--out",
        "r",
    ],
    "expert z": [*SIM, "--agents", "expert:z={v}", "--matches", "1", "--out", "r"],
    "expert tilt": [*SIM, "--agents", "expert:tilt={v}", "--matches", "1", "--out", "r"],
    "ladder agent": [
        "ladder",
        "--variant",
        "yuxi",
        "--agents",
        "strategic:aggression={v}",
        "--hands",
        "4",
        "--workers",
        "1",
        "--quiet",
    ],
    "balance agent": [
        "balance",
        "yuxi",
        "--agents",
        "expert:z={v}",
        "--hands",
        "2",
        "--workers",
        "1",
        "--quiet",
    ],
}


@pytest.mark.parametrize("value", NON_FINITE)
@pytest.mark.parametrize("option", FLOAT_OPTIONS)
def test_non_finite_numbers_are_refused(tmp_path, option, value):
    args = [a.format(v=value) for a in FLOAT_OPTIONS[option]]
    res = refused(args, tmp_path, needle="finite", isolate=False)
    assert res.code == 2
    assert f"{value}'" in res.stderr  # the user's own text, not the float it became


# ------------------------------------------------------------ the flag the user gave


@pytest.mark.parametrize(
    "max_hands, extra",
    [
        (str(10**13), ()),  # past the log's int32 match
        (str(2 * (2**20 + 1)), ("--hands-per-shard", "2")),  # past the shard limit
    ],
    ids=["int32-matches", "shards"],
)
def test_too_large_max_hands_names_max_hands(tmp_path, max_hands, extra):
    res = until_refused(
        tmp_path, "draw_rate=0.1", f"--max-hands {max_hands}", *extra, max_hands=max_hands
    )
    assert "--matches" not in res.stderr


def test_bad_until_names_the_users_text(tmp_path):
    until_refused(tmp_path, "draw_rate=abc", "'draw_rate=abc'")


# ------------------------------------------------------------ strict JSON everywhere

JSON_COMMANDS = {  # every command that takes --format json, on data/ or a tiny run
    "simulate": [*SIM, "--matches", "1", "--out", "{tmp}/sim"],
    # one match: the half-width is undefined (null), in stdout and the manifest
    "simulate --until": [
        *SIM,
        "--until",
        "draw_rate=0.1",
        "--max-hands",
        "2",
        "--out",
        "{tmp}/until",
    ],
    "sweep": [
        "sweep",
        "--variant",
        "xuezhan",
        "--grid",
        "cap=1,2",
        "--matches",
        "1",
        "--hands-per-match",
        "1",
        "--workers",
        "1",
        "--quiet",
        "--out",
        "{tmp}/sw",
    ],
    "ladder": [
        "ladder",
        "--variant",
        "yuxi",
        "--agents",
        "greedy,random,greedy,random",
        "--hands",
        "4",
        "--hands-per-match",
        "1",
        "--workers",
        "1",
        "--quiet",
    ],
    "balance": [
        "balance",
        "yuxi",
        "--agents",
        "random",
        "--hands",
        "2",
        "--hands-per-match",
        "1",
        "--workers",
        "1",
        "--quiet",
    ],
    "validate": ["validate", "{data}/sweep/xuezhan-cap/cap=1", "--workers", "1"],
    "replay": ["replay", "{data}/yuxi", "--hand", "0:0"],
    "report": ["report", "{data}/sweep/xuezhan-cap/cap=1", "--out", "{tmp}/report"],
    "compare": ["compare", "{data}/sweep/xuezhan-cap"],
    "rules": ["rules", "huangmei"],
    "score": ["score", "yuxi", "1112345678999m", "--win", "9m", "--by", "self"],
    "import": ["import", "{tmp}/hand.jsonl", "--out", "{tmp}/imported"],
    # a zero-width draw rate on tiny runs is a figure tune must print as a number or null
    "tune": [
        "tune",
        "yuxi",
        "--vary",
        "base=1:2",
        "--target",
        "draw_rate<=0.5",
        "--agents",
        "greedy",
        "--budget",
        "64",
        "--trials",
        "2",
        "--hands-per-match",
        "1",
        "--workers",
        "1",
        "--quiet",
        "--out",
        "{tmp}/tune",
    ],
    "plan": [
        "plan",
        "{data}/yuxi",
        "--metric",
        "draw_rate",
        "--detect",
        "0.02",
        "--time-hands",
        "2",
    ],
}


def test_the_table_holds_every_json_command():
    from mjlog.cli import main

    takes_json = {
        name
        for name, cmd in main.commands.items()
        if any(
            "--format" in p.opts and "json" in getattr(p.type, "choices", ()) for p in cmd.params
        )
    }
    assert takes_json == {k.split()[0] for k in JSON_COMMANDS}


@pytest.mark.parametrize("command", JSON_COMMANDS)
def test_json_output_is_strict_json(tmp_path, command):
    if command == "import":
        res = run(
            ["export", str(DATA / "yuxi"), "--hand", "0:0", "--out", "hand.jsonl"],
            tmp_path,
            isolate=False,
        )
        assert res.code == 0, res.stderr
    args = [a.format(tmp=tmp_path, data=DATA) for a in JSON_COMMANDS[command]]
    res = run([*args, "--format", "json"], tmp_path, isolate=False)
    assert res.code == 0, res.stderr
    doc = strict_loads(res.stdout)
    assert doc
    if command == "simulate --until":
        assert doc["until"]["achieved_half_width"] is None and not doc["until"]["reached"]
        strict_loads((tmp_path / "until" / "manifest.json").read_text())


@pytest.mark.parametrize("variant", ["yuxi", "huangmei"])
def test_until_metrics_are_the_figures_precision_gives(variant):
    """The metrics --until accepts are those analysis.compare.precision computes
    (every pattern of the variant, not only those the sample happened to log)."""
    from analysis.compare import precision
    from mjlog.logio import read_manifest
    from mjlog.rules import Rules
    from simulate.until import until_metrics

    given = set(precision(DATA / variant).metric)
    allowed = until_metrics(Rules.recorded(variant, read_manifest(DATA / variant)["rules"]))
    assert given <= set(allowed)
    assert given >= {m for m in allowed if not m.startswith("pattern_rate[")}
    assert any(m.startswith("pattern_rate[") for m in given)
