"""analysis.decide: the verdicts' tests hold their level and power, checked against
statsmodels and by simulation (seeded)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.stats import norm
from statsmodels.stats.weightstats import ttost_paired

from analysis.decide import ALPHA, adjust, decide, margin_for, mde, parse_margins, tost
from analysis.stats import compare_units
from mjlog.errors import InputError


def _paired(rng, n, shift, sd=1.0):
    base = rng.normal(0, sd, n)
    other = base + shift + rng.normal(0, sd / 2, n)
    return base, other


def test_tost_is_statsmodels_paired_tost():
    rng = np.random.default_rng(1)
    base, other = _paired(rng, 60, 0.05)
    d = compare_units(base, None, other, None, paired=True)
    p, *_ = ttost_paired(other, base, -0.3, 0.3)
    assert tost(d, 0.3) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize("shift, want", [(0.0, "equivalent"), (1.0, "differs")])
def test_clear_cases_get_their_verdict(shift, want):
    rng = np.random.default_rng(2)
    base, other = _paired(rng, 400, shift)
    d = compare_units(base, None, other, None, paired=True)
    assert decide(d, margin=0.3, hands=400).verdict == want


def test_an_inconclusive_verdict_says_how_many_hands_settle_it():
    rng = np.random.default_rng(3)
    base, other = _paired(rng, 20, 0.1)
    d = compare_units(base, None, other, None, paired=True)
    dec = decide(d, margin=0.3, hands=160)
    assert dec.verdict == "inconclusive" and dec.hands_needed > 160
    # at the hands it names, the same difference and spread decide
    se = d.paired_se * math.sqrt(160 / dec.hands_needed)
    p = 2 * norm.sf(abs(d.diff) / se)
    settled = dataclasses.replace(d, paired_se=se, units=10**6, p=p)
    assert decide(settled, margin=0.3).verdict != "inconclusive"


def test_the_mde_is_found_four_times_in_five():
    rng = np.random.default_rng(4)
    n, hits, trials = 50, 0, 400
    base, other = _paired(rng, n, 0.0)
    effect = mde(compare_units(base, None, other, None, paired=True))
    for _ in range(trials):
        b, o = _paired(rng, n, effect)
        hits += compare_units(b, None, o, None, paired=True).p < ALPHA
    assert 0.72 <= hits / trials <= 0.88


def test_equivalence_holds_its_level_at_the_margin():
    rng = np.random.default_rng(5)
    false_eq = sum(
        decide(compare_units(*_swap(_paired(rng, 80, 0.3))), 0.3).verdict == "equivalent"
        for _ in range(400)
    )
    assert false_eq / 400 <= ALPHA + 0.03


def _swap(pair):
    base, other = pair
    return base, None, other, None, True


def test_bh_adjusts_over_the_whole_study():
    p = [0.001, 0.01, 0.02, 0.04, float("nan"), 0.5]
    got = adjust(p)
    assert math.isnan(got[4])
    assert got.tolist()[:4] == pytest.approx([0.005, 0.025, 1 / 30, 0.05])
    assert got[5] == pytest.approx(0.5)


def test_margins_default_by_family_and_are_overridden_by_metric():
    assert margin_for("pattern_rate[qidui]") == 0.01
    assert margin_for("pattern_rate[qidui]", {"pattern_rate": 0.02}) == 0.02
    assert (
        margin_for("pattern_rate[qidui]", {"pattern_rate[qidui]": 0.005, "pattern_rate": 0.02})
        == 0.005
    )
    assert math.isnan(margin_for("nonsense"))


@pytest.mark.parametrize(
    "bad, needle",
    [
        ("draw_rate", "expected METRIC=MARGIN"),
        ("draw_rate=0", "above 0"),
        ("draw_rate=nan", "finite"),
        ("drawrate=0.1", "no metric 'drawrate'"),
        ("draw_rate=x", "expected a number"),
    ],
)
def test_bad_margins_are_refused_in_one_line(bad, needle):
    with pytest.raises(InputError, match=needle):
        parse_margins([bad])


def test_a_negligible_difference_shown_within_the_margin_is_equivalent_and_says_it_is_not_0():
    """Much data shows a difference of 0.05 from 0 (its 95 % interval clear of it) and
    inside ±0.1 (its 90 % interval too): the question "within the margin?" is answered
    yes, and the verdict keeps that it is not 0."""
    from analysis.stats import Difference

    d = Difference(0.0, 0.05, 0.05, 0.03, 0.07, 1e-6, 0.01, math.nan, 10_000, True)
    assert d.lo > 0 and d.diff + 1.645 * d.paired_se < 0.1
    dec = decide(d, margin=0.1, hands=80_000)
    assert dec.verdict == "equivalent" and dec.differs_from_zero is True
    assert dec.as_dict()["differs_from_zero"] is True and math.isnan(dec.hands_needed)
    # outside the margin it differs; within it and not shown off 0, plainly equivalent
    assert decide(d, margin=0.04).verdict == "differs"
    assert decide(d, margin=0.04).differs_from_zero is True
    zero = dataclasses.replace(d, value=0.0, diff=0.0, lo=-0.02, hi=0.02, p=1.0)
    assert (decide(zero, 0.1).verdict, decide(zero, 0.1).differs_from_zero) == ("equivalent", False)
