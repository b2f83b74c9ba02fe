"""One judgement (mjlog.judgement): one vocabulary, byte-compatible in JSON; one level
that compare, balance and tune all read; a tune target judged by compare's own test
of equivalence (seeded)."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from analysis import compensation, decide
from analysis.decide import from_zero, tost
from analysis.stats import estimate
from analysis.studies.tune import parse_target, sizing
from analysis.studies.tune.measuring import judge
from mjlog import judgement
from mjlog.judgement import ALPHA, INTERVAL, Verdict, of_difference, of_target

ROOT = Path(__file__).resolve().parents[2]

#: What JSON has always written: a verdict read back is equal to what was written.
WORDS = ("identical", "equivalent", "differs", "inconclusive", "exploratory", "met", "not met")


def test_the_vocabulary_is_exactly_the_json_words_and_round_trips():
    assert [v.value for v in Verdict] == list(WORDS)
    for v in Verdict:
        text = json.dumps({"verdict": v})
        assert text == json.dumps({"verdict": v.value})  # byte for byte
        back = json.loads(text)["verdict"]
        assert Verdict(back) is v and back == v
    assert set(judgement.MEANINGS) == set(Verdict)  # every word has its row


def test_one_level_read_by_compare_balance_and_tune():
    assert (ALPHA, INTERVAL) == (0.05, 0.9)
    assert decide.ALPHA is ALPHA  # compare's and balance's verdicts (analysis.decide)
    assert sizing.Z == pytest.approx(st.norm.ppf(1 - ALPHA))  # tune's reachability
    # no module states a level of its own: ALPHA is assigned in mjlog.judgement alone
    own = []
    for pkg in ("mjlog", "analysis", "simulate"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "ALPHA" for t in node.targets
                ):
                    own.append(str(path.relative_to(ROOT)))
    assert own == ["mjlog/judgement.py"]


def test_verdicts_are_compared_as_members_not_strings():
    """Where a verdict is decided or read, it is a Verdict member, not a string
    literal (a typo of a string would silently never match)."""
    modules = [
        "analysis/decide.py",
        "analysis/compensation.py",
        "analysis/compare.py",
        "analysis/report.py",
        "analysis/studies/balance.py",
        "analysis/studies/tune/measuring.py",
        "analysis/studies/tune/effects.py",
        "analysis/studies/tune/outputs.py",
        "analysis/studies/tune/search.py",
        "mjlog/commands/balance.py",
    ]
    words = set(WORDS)
    found = []
    for m in modules:
        for node in ast.walk(ast.parse((ROOT / m).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                consts = [node.left, *node.comparators]
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                consts = list(node.value.elts)
            else:
                continue
            found += [
                f"{m}:{c.lineno} {c.value!r}"
                for c in consts
                if isinstance(c, ast.Constant) and c.value in words
            ]
    assert not found, found


def test_a_difference_in_words():
    assert of_difference(p=0.001, p_equivalence=0.01) is Verdict.EQUIVALENT  # margin first
    assert of_difference(p=0.001, p_equivalence=0.2) is Verdict.DIFFERS
    assert of_difference(p=0.3, p_equivalence=0.2) is Verdict.INCONCLUSIVE
    assert of_difference(p=math.nan, p_equivalence=math.nan) is Verdict.INCONCLUSIVE
    # the balance study's word for its positions is the same rule
    rows = [{"verdict": Verdict.EQUIVALENT, "hands_needed": math.nan}] * 2
    assert compensation.study_verdict(rows)[0] is Verdict.EQUIVALENT


@pytest.mark.parametrize(
    "lo, hi, op, value, tol, want",
    [
        (0.041, 0.059, "=", 0.05, 0.01, Verdict.MET),
        (0.035, 0.059, "=", 0.05, 0.01, Verdict.INCONCLUSIVE),
        (0.061, 0.07, "=", 0.05, 0.01, Verdict.NOT_MET),
        (0.01, 0.039, "=", 0.05, 0.01, Verdict.NOT_MET),
        (0.1, 0.2, "<=", 0.2, None, Verdict.MET),
        (0.1, 0.21, "<=", 0.2, None, Verdict.INCONCLUSIVE),
        (0.21, 0.3, "<=", 0.2, None, Verdict.NOT_MET),
        (0.2, 0.3, ">=", 0.2, None, Verdict.MET),
        (0.1, 0.19, ">=", 0.2, None, Verdict.NOT_MET),
        (math.nan, math.nan, "=", 0.05, 0.01, Verdict.INCONCLUSIVE),
    ],
)
def test_a_target_in_words(lo, hi, op, value, tol, want):
    assert of_target(lo, hi, op, value, tol) is want
    assert judgement.met(want) == {"met": True, "not met": False}.get(want)


def _between(rng, n=40):
    """A seeded sample and a tolerance about its value that the 90 % t interval fits
    inside and the 95 % one does not."""
    y = rng.normal(6.0, 1.0, n)
    e95, e90 = estimate(y), estimate(y, level=0.9)
    v = round(float(y.mean()), 2)  # the target: near the value, not at it
    reach95 = max(v - e95.lo, e95.hi - v)
    reach90 = max(v - e90.lo, e90.hi - v)
    return y, v, (reach90 + reach95) / 2


def test_a_target_whose_90_but_not_95_interval_is_inside_is_met():
    y, v, tol = _between(np.random.default_rng(46))
    row = judge(parse_target(f"money_moved_per_hand={v}±{tol}"), y, None)
    assert row["verdict"] is Verdict.MET and row["met"] is True
    # the 95 % interval shown reaches past the tolerance; the 90 % one it reads does not
    assert row["lo"] < v - tol or row["hi"] > v + tol
    assert v - tol <= row["judged_lo"] and row["judged_hi"] <= v + tol
    # and the 90 % interval is Student's t on the matches, as scipy gives it
    lo, hi = st.t.interval(0.9, len(y) - 1, loc=y.mean(), scale=st.sem(y))
    assert (row["judged_lo"], row["judged_hi"]) == pytest.approx((lo, hi), rel=1e-12)


def test_a_rate_target_reads_its_90_interval_too():
    rng = np.random.default_rng(7)
    wins = np.full(300, 8.0)
    y = rng.binomial(8, 0.05, 300).astype(float)  # 七对 on about 5 % of wins
    p = y.sum() / wins.sum()
    found = False
    for tol in np.linspace(0.004, 0.02, 161):
        row = judge(
            parse_target(f"pattern_rate[qidui]={p:.6f}±{tol:.6f}"), y, wins, "share of wins"
        )
        assert row["judged_lo"] > row["lo"] and row["judged_hi"] < row["hi"]  # nested
        inside95 = p - tol <= row["lo"] and row["hi"] <= p + tol
        if row["verdict"] == Verdict.MET and not inside95:
            found = True
    assert found  # tolerances a 95 % interval would have left inconclusive are met


def test_met_is_compares_equivalence_with_the_tolerance_as_margin():
    """For a figure that is a mean per match, ``met`` for ``V ± T`` is exactly
    compare's TOST of (figure − V) within ±T at α: one test, one level."""
    rng = np.random.default_rng(2046)
    agree = 0
    for _ in range(200):
        y = rng.normal(6.0, rng.uniform(0.5, 2.0), int(rng.integers(10, 60)))
        v, tol = 6.0, float(rng.uniform(0.1, 0.8))
        met = judge(parse_target(f"money_moved_per_hand={v}±{tol}"), y, None)["met"]
        equivalent = tost(from_zero(estimate(y - v)), tol) < ALPHA
        assert (met is True) == equivalent
        agree += equivalent
    assert 20 < agree < 180  # both outcomes were tried
