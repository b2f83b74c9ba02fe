"""`mjlog simulate --until METRIC=HALF_WIDTH --max-hands N`: whole shards until precise."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from analysis import compare
from mjlog.cli import main
from simulate.until import MIN_MATCHES, parse_until

ARGS = [
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
    "--quiet",
]


def _files(d):
    """The run's data files and manifest (not the runner's hidden marker, which journals
    shards in the order they finished)."""
    return {
        p.relative_to(d): p.read_bytes()
        for p in sorted(d.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


@pytest.fixture(scope="module")
def until_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("until")
    for w in ("1", "2"):
        res = CliRunner().invoke(
            main,
            [
                *ARGS,
                "--until",
                "money_moved_per_hand=0.15",
                "--max-hands",
                "300",
                "--workers",
                w,
                "--out",
                str(d / f"w{w}"),
            ],
        )
        assert res.exit_code == 0, res.output
    return d


def _plain(d, name: str, seed, matches) -> dict:
    """The run ``--seed SEED --matches M`` writes, its files but the manifest."""
    args = [a if a != "3" else str(seed) for a in ARGS]
    res = CliRunner().invoke(
        main, [*args, "--matches", str(matches), "--workers", "1", "--out", str(d / name)]
    )
    assert res.exit_code == 0, res.output
    return {k: v for k, v in _files(d / name).items() if k.name != "manifest.json"}


def test_same_bytes_whatever_the_workers_and_as_plain_matches(until_runs):
    d = until_runs
    assert _files(d / "w1") == _files(d / "w2")
    m = json.loads((d / "w1" / "manifest.json").read_text())
    rule = m["until"]
    assert rule["reached"] and rule["achieved_half_width"] <= 0.15
    assert m["matches"] * 2 == rule["hands"] and m["matches"] >= MIN_MATCHES
    assert m["matches"] % 10 == 0  # whole shards of 10 matches
    # the run is the one --seed FRESH --matches M writes
    assert m["seed"] == rule["seed"] != rule["stopping_seed"] == 3
    got = {k: v for k, v in _files(d / "w1").items() if k.name != "manifest.json"}
    assert got == _plain(d, "plain", rule["seed"], m["matches"])
    # no scratch left beside it
    assert not [p for p in d.iterdir() if ".until-" in p.name]


def test_the_run_written_is_not_the_hands_the_rule_chose(until_runs):
    """The stopping pass played --seed 3; the hands written are others (issue 40: a
    figure read on the hands that made the rule stop is biased by the stop)."""
    d = until_runs
    m = json.loads((d / "w1" / "manifest.json").read_text())
    got = {k: v for k, v in _files(d / "w1").items() if k.name != "manifest.json"}
    assert got != _plain(d, "chosen", 3, m["matches"])
    p = compare.precision(d / "w1", 0.15).set_index("metric")
    assert p.loc["money_moved_per_hand", "matches"] == m["matches"]
    assert p.loc["money_moved_per_hand", "half_width"] == pytest.approx(
        m["until"]["run_half_width"]
    )


def test_the_rule_stops_at_the_first_precise_prefix(until_runs):
    """On the stopping pass's seed: M matches are precise enough, one shard fewer not."""
    m = json.loads((until_runs / "w1" / "manifest.json").read_text())
    _plain(until_runs, "pass", 3, m["matches"])
    p = compare.precision(until_runs / "pass", 0.15).set_index("metric")
    assert p.loc["money_moved_per_hand", "half_width"] == pytest.approx(
        m["until"]["achieved_half_width"]
    )
    assert p.loc["money_moved_per_hand", "half_width"] <= 0.15
    if m["matches"] - 10 >= MIN_MATCHES:
        _plain(until_runs, "fewer", 3, m["matches"] - 10)
        q = compare.precision(until_runs / "fewer", 0.15).set_index("metric")
        assert q.loc["money_moved_per_hand", "half_width"] > 0.15


def test_fresh_hands_cover_where_the_chosen_ones_are_biased():
    """Seeded simulation of --until on a rare rate with small shards (2 matches of 2
    hands), through the real stopping rule and the real interval: the figure of the
    hands the rule stopped on is biased low (the issue measured 12–16 %); the figure
    of M fresh matches, what --until now writes, is not, and its 95% interval covers
    the true rate at least 94 % of the time."""
    from analysis.rates import metric_estimate
    from simulate.until import stopping_rule

    rng = np.random.default_rng(40)
    p, hands, per_shard, target, most = 0.03, 2, 2, 0.025, 500
    ends = list(range(per_shard, most + 1, per_shard))
    chosen, fresh, covered, reps = [], [], 0, 500
    for _ in range(reps):
        y = rng.binomial(hands, p, most).astype(float)
        x = np.full(most, float(hands))

        def measure(es, y=y, x=x):  # prefixes under MIN_MATCHES the rule skips anyway
            return [
                metric_estimate(y[:e], x[:e], "share of hands").half_width
                if e >= MIN_MATCHES
                else np.nan
                for e in es
            ]

        m, _hw, reached = stopping_rule(ends, 1, lambda i, j: None, measure, target)
        assert reached
        chosen.append(y[:m].sum() / x[:m].sum() / p - 1)
        again = rng.binomial(hands, p, m).astype(float)
        e = metric_estimate(again, np.full(m, float(hands)), "share of hands")
        fresh.append(e.value / p - 1)
        covered += e.lo <= p <= e.hi
    chosen, fresh = np.array(chosen), np.array(fresh)
    se = fresh.std() / np.sqrt(reps)
    assert chosen.mean() < -3 * se  # what the old --until wrote
    assert abs(fresh.mean()) < 3 * se  # what it writes now
    assert covered / reps >= 0.94


def test_max_hands_stops_and_says_so(tmp_path):
    res = CliRunner().invoke(
        main,
        [
            *ARGS[:-1],
            "--until",
            "draw_rate=0.0001",
            "--max-hands",
            "60",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "NOT reached" in res.output
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert m["matches"] == 30 and not m["until"]["reached"]


@pytest.mark.parametrize(
    "args",
    [
        ["--until", "draw_rate"],
        ["--until", "x=1", "--max-hands", "10"],
        ["--until", "draw_rate=0.1"],
        ["--max-hands", "10"],
        ["--until", "draw_rate=-1", "--max-hands", "10"],
        ["--until", "draw_rate=0.1", "--max-hands", str(10**13)],
    ],
)
def test_bad_until_is_one_line(tmp_path, args):
    res = CliRunner().invoke(main, [*ARGS, *args, "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert res.output.startswith("mjlog: error:")


def test_parse_until():
    assert parse_until(" capped_share = 0.01 ") == ("capped_share", 0.01)
    with pytest.raises(ValueError):
        parse_until("draw_rate=abc")
