"""``mjlog balance``: a verdict of equivalence within a margin, every position with
its adjusted p-values, a lever fine enough for a tenth of a point, the confirmation
on fresh seeds, where it writes, ``--scheduler``.

Small seeded runs of greedy agents (fast); the figures are checked for behaviour
(signs, intervals, the verdict's logic), never against fixed numbers.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

import pytest
from click.testing import CliRunner
from scipy import stats as st

from analysis.decide import DEFAULT_MARGINS, adjust
from mjlog.cli import main
from mjlog.logio import read_manifest, read_table

SMALL = [
    "--agents",
    "greedy",
    "--hands",
    "96",
    "--hands-per-match",
    "4",
    "--seed",
    "3",
    "--workers",
    "1",
    "--quiet",
]
# where only the shape or the files are checked: 4 matches (the last --hands counts)
TINY = ("--hands", "16")
VERDICTS = {"differs", "equivalent", "inconclusive"}


def invoke(*args: str, variant: str = "yuxi"):
    r = CliRunner().invoke(main, ["balance", variant, *SMALL, *args])
    assert r.exit_code == 0, r.output
    return r


def balance(*args: str) -> dict:
    return json.loads(invoke("--format", "json", *args).stdout)


@pytest.fixture(scope="module")
def plain() -> dict:
    return balance()


def _interval(e):
    assert {"value", "lo", "hi"} <= set(e)
    assert e["lo"] <= e["value"] <= e["hi"]


def _decided(rows, margin, hands):
    """Each position's verdict follows from its adjusted p-values (BH across the
    positions, for 'differs' and for the two one-sided tests alike)."""
    assert [p["position"] for p in rows] == list(range(len(rows)))
    raw = [p["p"] for p in rows]
    assert [p["p_adjusted"] for p in rows] == pytest.approx(adjust(raw).tolist())
    for p in rows:
        _interval(p)
        assert p["verdict"] in VERDICTS and p["mde"] > 0
        assert p["p_adjusted"] >= p["p"]
        # equivalence first: within the margin is the answer, shown off 0 or not
        assert p["differs_from_zero"] == (p["p_adjusted"] < 0.05)
        if p["verdict"] == "equivalent":
            assert p["p_equivalence"] < 0.05
            # TOST: the 90 % interval lies inside the margin
            t = st.t.ppf(0.95, p["matches"] - 1)
            assert abs(p["value"]) + t * p["se"] < margin
        elif p["verdict"] == "differs":
            assert p["p_adjusted"] < 0.05 and p["p_equivalence"] >= 0.05
        else:
            assert p["p_adjusted"] >= 0.05 and p["p_equivalence"] >= 0.05
            assert p["hands_needed"] > hands


def test_json_shape(plain):
    assert "covers_zero" not in plain
    assert plain["margin"] == DEFAULT_MARGINS["dealer_advantage"] == 0.1
    assert isinstance(plain["equivalent"], bool) and plain["verdict"] in VERDICTS
    assert plain["equivalent"] == (plain["verdict"] == "equivalent")
    assert plain["unit"].startswith("points per hand") and plain["level"] == 0.95
    assert plain["hands"] >= 96 and plain["matches"] * plain["hands_per_match"] == plain["hands"]
    for key in ("dealer_advantage", "confirmed", "compensation_exact"):
        _interval(plain[key])
    assert plain["positions"][0]["value"] == plain["dealer_advantage"]["value"]
    _decided(plain["positions"], plain["margin"], plain["hands"])
    _decided(plain["confirmed_positions"], plain["margin"], plain["hands"])
    # the study's verdict is every position's, on the confirmation
    verdicts = {p["verdict"] for p in plain["confirmed_positions"]}
    assert plain["equivalent"] == (verdicts == {"equivalent"})
    assert (plain["verdict"] == "differs") == ("differs" in verdicts)
    top = max(plain["confirmed_positions"], key=lambda p: p["value"])
    assert plain["largest"]["position"] == top["position"]
    assert plain["runs"] is None  # nothing kept unless --out


def test_the_proposal_is_the_exact_compensation_at_the_levers_resolution(plain):
    a, n = plain["dealer_advantage"]["value"], plain["players"]
    assert plain["measured_compensation"]["points"] == 0
    assert plain["compensation_exact"]["value"] == pytest.approx(a / n)
    c = plain["compensation"]
    money = c["dealer_compensation"] * (c["base"] if c["dealer_compensation_unit"] == "base" else 1)
    assert c["points"] == pytest.approx(money / c["base"])
    assert plain["compensation_sets"] == [
        f"base={c['base']}",
        f"dealer_compensation_unit={c['dealer_compensation_unit']}",
        f"dealer_compensation={c['dealer_compensation']}",
    ]
    # fine enough: one step of the lever is at most half the margin, so what the
    # rounding leaves is at most a quarter of it
    assert plain["resolution"] <= plain["margin"] / 2
    assert abs(plain["expected_residual"]) <= plain["resolution"] / 2 + 1e-9
    assert plain["expected_residual"] == pytest.approx(a - n * c["points"])


def test_the_lever_cancels_a_tenth_of_a_point():
    from analysis.compensation import Lever, propose

    start = Lever(1, "base", 0)
    exact, lever, step = propose(0.1, 4, start, margin=0.1)
    assert exact == pytest.approx(0.025) and step <= 0.05
    assert lever.points != 0 and abs(0.1 - 4 * lever.points) <= step / 2
    assert lever.base > 1 and lever.unit == "money"  # a fraction of a point: a finer base
    # whole points stay whole units of the base as given
    assert propose(8.0, 4, start, margin=0.1)[1] == Lever(1, "base", 2)
    # a negative advantage: the others pay the dealer
    assert propose(-0.1, 4, start, margin=0.1)[1].points < 0
    # measured under a compensation already: the proposal adds to it
    assert propose(0.0, 4, Lever(100, "money", 3), margin=0.1)[1] == Lever(100, "money", 3)
    assert propose(0.04, 4, Lever(100, "money", 3), 0.1)[1].exact == Fraction(4, 100)


def test_when_no_playable_value_beats_the_rules_it_says_so():
    from analysis.compensation import Lever, propose

    start = Lever(1, "base", 0)
    assert propose(0.004, 4, start, margin=0.1)[1] == start
    # a margin so wide that whole units are the lever: a small advantage rounds to 0
    r = balance("--margin", "40")
    assert r["compensation"] == r["measured_compensation"] and r["confirm_seed"] is None
    text = invoke("--margin", "40").stdout
    assert "no playable compensation beats dealer_compensation=0" in text
    assert "no second run" in text


def test_a_tiny_run_is_inconclusive_never_equivalent():
    """The old test (does the interval cover 0?) passed small runs most readily; an
    interval far wider than the margin cannot show equivalence."""
    r = balance(*TINY)
    assert r["matches"] == 4
    assert r["equivalent"] is False and r["verdict"] in {"inconclusive", "differs"}
    if r["verdict"] == "inconclusive":
        assert r["hands_needed"] > r["hands"]


@pytest.mark.parametrize("given", [6, -6])
def test_a_large_compensation_flips_the_advantage_and_the_proposal_undoes_it(given, plain):
    r = balance("--set", f"dealer_compensation={given}")
    assert r["measured_compensation"]["points"] == given
    adv = r["dealer_advantage"]
    if given > 0:  # the dealer now pays far too much: it is behind, with confidence
        assert adv["hi"] < 0 < plain["dealer_advantage"]["hi"]
        assert r["positions"][0]["verdict"] == "differs"
    else:
        assert adv["lo"] > 0 > plain["dealer_advantage"]["lo"]
    # the same seeds play the same hands: the proposal is the plain study's
    assert r["compensation_exact"]["value"] == pytest.approx(plain["compensation_exact"]["value"])
    assert r["compensation"]["points"] == pytest.approx(plain["compensation"]["points"])
    # confirmed on fresh seeds: far closer to 0 than the measure
    assert abs(r["confirmed"]["value"]) < abs(adv["value"]) / 4


def test_a_position_shown_within_the_margin_is_balanced_though_shown_off_0():
    """Measured under a compensation of 6 points the dealer is far behind and every
    other position ahead, each clear of 0; a margin of 40 points a hand is far wider,
    so each position is equivalent (balanced), and says it differs from 0."""
    args = ("--set", "dealer_compensation=6", "--margin", "40")
    r = balance(*args)
    measured = r["positions"]
    assert all(p["hi"] < 0 or p["lo"] > 0 for p in measured)
    assert all(p["p_adjusted"] < 0.05 for p in measured)
    _decided(measured, 40, r["hands"])
    assert [(p["verdict"], p["differs_from_zero"]) for p in measured] == [("equivalent", True)] * r[
        "players"
    ]
    assert r["measured_verdict"] == "equivalent"
    lines = [ln for ln in invoke(*args).stdout.splitlines() if ln.startswith("  position")]
    assert all(
        "equivalent (TOST" in ln
        and "differs from 0 (p_adj" in ln
        and ln.endswith("by less than the margin")
        for ln in lines[: r["players"]]
    )


def test_the_calibration_case_is_balanced_and_the_headline_names_who_is_not_0(monkeypatch):
    """The calibration study's 80,000-hand case (issue 40): every position within
    ±0.1 with a tight interval, two of them clearly not 0. The figures stand in for
    the measurement (a tiny run is played, its positions replaced); the proposal keeps
    the rules, so the verdict rests on them: balanced, naming the two."""
    import analysis.studies.balance as comp  # where the study reads the positions

    se, df = 0.0128, 9999
    half = st.t.ppf(0.975, df) * se
    rows = [
        {
            "position": i,
            "value": v,
            "lo": v - half,
            "hi": v + half,
            "se": se,
            "matches": df + 1,
            "hands": 8 * (df + 1),
        }
        for i, v in enumerate((0.009, 0.049, -0.003, -0.055))
    ]
    monkeypatch.setattr(comp, "positions", lambda run: [dict(r) for r in rows])
    r = balance(*TINY)
    assert r["changes"] is False and r["confirmed_positions"] == r["positions"]
    assert r["verdict"] == "equivalent" and r["equivalent"] is True
    assert [p["differs_from_zero"] for p in r["positions"]] == [False, True, False, True]
    head = invoke(*TINY).stdout.splitlines()[0]  # the verdict first
    assert head.startswith("verdict: equivalent: every position within ±0.100 points/hand")
    assert "position 1 (the next seat) +0.049 [" in head
    assert "position 3 (the seat before) -0.055 [" in head
    assert "differ from 0, by less than the margin" in head and "position 2 (" not in head


def test_the_confirmation_plays_fresh_seeds_and_both_runs_validate(tmp_path):
    from mjlog.rng import derive

    out = tmp_path / "study"
    r = balance(*TINY, "--set", "dealer_compensation=3", "--out", str(out))
    assert r["runs"] == {"measure": str(out / "measure"), "confirm": str(out / "confirm")}
    assert r["confirm_seed"] == derive(3, 1) != r["seed"] == 3
    seeds = {name: read_manifest(out / name)["seed"] for name in ("measure", "confirm")}
    assert seeds == {"measure": 3, "confirm": r["confirm_seed"]}
    walls = [
        {
            tuple(w)
            for w in read_table(out / name, "hands", columns=["wall"]).column("wall").to_pylist()
        }
        for name in ("measure", "confirm")
    ]
    assert not walls[0] & walls[1]  # no hand of the confirmation was measured
    rules = read_manifest(out / "confirm")["rules"]
    assert [
        f"{k}={rules[k]}" for k in ("base", "dealer_compensation_unit", "dealer_compensation")
    ] == r["compensation_sets"]
    for name in ("measure", "confirm"):
        v = CliRunner().invoke(main, ["validate", str(out / name), "--workers", "1"])
        assert v.exit_code == 0, v.output
    again = balance(*TINY, "--set", "dealer_compensation=3", "--out", str(out))  # resumes
    assert again == r


def test_same_seed_same_figures(plain):
    assert balance() == plain


def test_margin_sets_the_verdict_and_the_lever(plain):
    r = balance("--margin", "0.5")
    assert r["margin"] == 0.5 and r["resolution"] <= 0.25
    assert r["dealer_advantage"] == plain["dealer_advantage"]


def test_nothing_written_without_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert balance(*TINY)["hands"] == 16
    assert [p.name for p in tmp_path.iterdir()] == ["tmp"]
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_mixed_line_up_plays_duplicate():
    r = CliRunner().invoke(
        main,
        [
            "balance",
            "yuxi",
            "--agents",
            "greedy,random,greedy,random",
            "--hands",
            "32",
            "--hands-per-match",
            "2",
            "--workers",
            "1",
            "--quiet",
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["duplicate"] is True
    assert d["hands"] == d["matches"] * 4 * d["hands_per_match"]


def test_text_gives_every_position_and_a_headline_naming_the_most_advantaged():
    r = balance()
    lines = invoke().stdout.splitlines()
    for pos in range(4):
        assert sum(line.lstrip().startswith(f"position {pos}") for line in lines) == 2
    assert any(
        line.startswith("compensation that cancels the dealer's advantage: ") and "points [" in line
        for line in lines
    )
    assert any(
        line.startswith(f"confirmed on fresh seeds (seed {r['confirm_seed']}") for line in lines
    )
    head = lines[0]  # the verdict first, the proposal after it
    assert head.startswith(f"verdict: {r['verdict']}")
    proposal = next(i for i, ln in enumerate(lines) if ln.startswith("compensation that cancels"))
    assert proposal > 0 and re.search(r"points \[[-+]\d\.\d+, [-+]\d\.\d+\]", lines[proposal])
    assert f"±{r['margin']:.3f} points/hand" in head
    top = r["largest"]
    if top["position"] != 0:
        assert f"position {top['position']}" in head and "not the dealer" in head
    else:
        assert "the dealer is the most advantaged" in head


def test_three_players_and_huangmei():
    r = json.loads(
        invoke("--format", "json", "--set", "players=3", *TINY, variant="huangmei").stdout
    )
    assert r["players"] == 3 and len(r["positions"]) == 3
    assert not math.isnan(r["compensation_exact"]["value"])


def _files(root):
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".run_id"
    }


def test_a_dask_cluster_plays_the_same_runs(tmp_path):
    """``--scheduler``: both runs' shards go to a dask.distributed cluster, with the
    same bytes and figures as on one local worker; it needs ``--out``."""
    from distributed import LocalCluster

    args = [*TINY, "--set", "dealer_compensation=3", "--format", "json"]
    local = balance(*args, "--out", str(tmp_path / "a"))
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        there = balance(
            *args, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "b")
        )
        bare = CliRunner().invoke(
            main, ["balance", "yuxi", *SMALL, *args, "--scheduler", cluster.scheduler_address]
        )
    assert bare.exit_code == 2 and "needs --out" in bare.output
    assert {k: v for k, v in there.items() if k != "runs"} == {
        k: v for k, v in local.items() if k != "runs"
    }
    for name in ("measure", "confirm"):
        assert _files(tmp_path / "b" / name) == _files(tmp_path / "a" / name)


def test_an_adjusted_inconclusive_verdict_asks_for_more_hands_not_fewer():
    """A position whose own p is under 0.05 but whose adjusted p is not (four
    positions, one family) is inconclusive: the hands that would settle it are more
    than were played, at the level its adjustment sets."""
    from analysis.decide import decide
    from analysis.stats import Difference

    d = Difference(0, 0.3, 0.3, 0.01, 0.59, 0.04, 0.14, math.nan, 24, True)
    dec = decide(d, margin=0.1, hands=96, p=0.08, p_equivalence=0.9)
    assert dec.verdict == "inconclusive" and dec.hands_needed > 96
    # at those hands the same difference, its own p halved by the adjustment, differs
    se = d.paired_se * math.sqrt(96 / dec.hands_needed)
    p_own = 2 * st.norm.sf(d.diff / se)
    assert p_own * 0.08 / 0.04 <= 0.05 * 1.01


def test_a_margin_finer_than_the_log_can_pay_keeps_the_finest_base_it_holds():
    """huangmei doubling moves up to 6 × 2^10 × base a hand: a base fine enough for a
    margin of a millionth of a point would overflow the int32 money columns, so the
    lever stops at the finest base the log holds, and says how fine that is."""
    from mjlog.rulekeys import INT32_MAX

    r = json.loads(
        invoke(
            "--format",
            "json",
            *TINY,
            "--set",
            "payment=doubling",
            "--margin",
            "0.000001",
            variant="huangmei",
        ).stdout
    )
    c = r["compensation"]
    assert r["changes"] and c["dealer_compensation_unit"] == "money"
    assert 6 * 2**10 * c["base"] <= INT32_MAX < 6 * 2**10 * c["base"] * 10
    assert r["resolution"] == pytest.approx(4 / c["base"]) and r["resolution"] > r["margin"]


def test_equivalence_is_never_easier_on_a_small_run():
    """Seeded simulation of a position's per-match advantages: at the margin itself
    (equivalence would be wrong) it is shown at most about α of the time, small run
    or large; truly balanced, the larger run shows it more often, not less."""
    import numpy as np

    from analysis.compensation import decide_positions
    from analysis.stats import estimate

    rng = np.random.default_rng(7)

    def rate(true: float, matches: int, trials: int = 200) -> float:
        hits = 0
        for _ in range(trials):
            e = estimate(rng.normal(true, 1.0, matches))
            row = {
                "position": 0,
                "value": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "se": e.se,
                "matches": matches,
                "hands": 8 * matches,
            }
            hits += decide_positions([row], 0.1, 8 * matches)[0]["verdict"] == "equivalent"
        return hits / trials

    assert rate(0.1, 40) <= 0.08 and rate(0.1, 2000) <= 0.08
    assert rate(-0.1, 2000) <= 0.08
    assert rate(0.0, 40) < 0.1 < 0.9 < rate(0.0, 2000)


def test_existing_runs_are_pooled_with_the_measure_run(tmp_path):
    """--runs: a run of the same variant, rules and line-up on another seed adds its
    matches to the measurement (its hands counted, its name said); a run of other
    rules, or of the measure run's own seed, is refused in one line."""
    first = tmp_path / "first"
    invoke(*TINY, "--seed", "4", "--out", str(first))
    alone = balance(*TINY)
    pooled = balance(*TINY, "--runs", str(first / "measure"))
    assert pooled["pooled_runs"] == [str(first / "measure")]
    assert pooled["measured_hands"] == alone["hands"] + pooled["hands"]
    assert pooled["positions"][0]["matches"] == 2 * alone["positions"][0]["matches"]
    text = invoke(*TINY, "--runs", str(first / "measure")).stdout
    assert f"pooled with {first / 'measure'}" in text
    other = tmp_path / "other"
    invoke(*TINY, "--seed", "4", "--set", "cap=8", "--out", str(other))
    for bad, why in (
        (other / "measure", "not the study's rules (cap=8, not 64)"),
        (first / "measure", ""),
    ):
        args = [*SMALL, *TINY, "--runs", str(bad)]
        if not why:  # the same seed as the measure run
            args += ["--seed", "4"]
            why = "the same hands would count twice"
        r = CliRunner().invoke(main, ["balance", "yuxi", *args])
        assert r.exit_code == 2 and why in r.output and "Traceback" not in r.output, r.output
