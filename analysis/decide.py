"""From a measured difference to a decision a designer can defend.

Every comparison of two rule settings ends in one of three verdicts, each a stated
test at level α = 0.05 (the match as the unit, as everywhere in
:mod:`analysis.stats`):

- ``differs``: the difference is not 0 (two-sided t test, its p-value adjusted for
  every test of the study: :func:`adjust`);
- ``equivalent``: the difference lies within ±``margin`` (two one-sided t tests,
  TOST: the 90 % interval inside the margin; their p-value adjusted likewise);
- ``inconclusive``: neither, with how many more hands would settle it at the
  precision seen (:attr:`Decision.hands_needed`).

A run also says what it *could* have seen: the minimum detectable effect
(:attr:`Decision.mde`), the smallest true difference this run would call
``differs`` four times in five (80 % power), ``(t₁₋α/₂ + t₀.₈) · se`` on the
run's degrees of freedom.

>>> from analysis.stats import LEVEL, Difference, Estimate
>>> d = Difference(baseline=1.0, value=1.02, diff=0.02, lo=-0.01, hi=0.05, p=0.19,
...                paired_se=0.015, unpaired_se=0.04, units=200, paired=True)
>>> dec = decide(d, margin=0.1, hands=1600)
>>> dec.verdict, round(dec.mde, 3)
('equivalent', 0.042)
>>> decide(d, margin=0.01, hands=1600).verdict
'inconclusive'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as st

from analysis.stats import LEVEL, Difference, Estimate
from mjlog.errors import InputError, finite_float, quote

__all__ = ["ALPHA", "POWER", "DEFAULT_MARGINS", "Decision", "adjust", "decide", "family",
           "from_zero", "margin_for", "mde", "parse_margins", "tost"]

ALPHA = 0.05
"""Level of every test: differs, and each one-sided test of equivalence."""

POWER = 0.8
"""The power at which :attr:`Decision.mde` is stated."""

DEFAULT_MARGINS: dict[str, float] = {
    "mean_points": 0.1,            # points per seat-hand
    "dealer_advantage": 0.1,       # points per hand
    "mean_points_per_win": 0.5,    # points per win
    "money_moved_per_hand": 0.5,   # points per hand
    "draw_rate": 0.01,             # share of hands
    "capped_share": 0.01,          # share of wins
    "pattern_rate": 0.01,          # share of wins
}
"""The equivalence margin of each metric family unless ``--margin METRIC=M`` says
otherwise: a difference a designer would not change a rule for (docs/cli.md)."""


@dataclass(frozen=True)
class Decision:
    """The verdict on one difference, with what it rests on."""

    verdict: str             # differs | equivalent | inconclusive
    margin: float            # the equivalence margin used
    p: float                 # two-sided p of "no difference" (as adjusted, if given)
    p_equivalence: float     # TOST p of "outside the margin" (as adjusted, if given)
    mde: float               # smallest difference detectable with 80 % power
    hands_needed: float      # hands in all that would settle an inconclusive one (NaN else)

    def as_dict(self) -> dict:
        return asdict(self)


def _se_df(d: Difference) -> tuple[float, float]:
    se = d.paired_se if d.paired else d.unpaired_se
    return se, max(d.units - 1, 1)


def tost(d: Difference, margin: float) -> float:
    """The p-value of two one-sided t tests that the difference lies outside
    ±``margin``: small when it lies within. NaN without a standard error.

    >>> from analysis.stats import LEVEL, Difference, Estimate
    >>> d = Difference(0, 0.01, 0.01, -0.02, 0.04, 0.5, 0.015, 0.03, 100, True)
    >>> round(tost(d, 0.05), 4)
    0.0045
    """
    se, df = _se_df(d)
    if not (margin > 0) or math.isnan(d.diff) or math.isnan(se):
        return math.nan
    if se == 0:
        return 0.0 if abs(d.diff) < margin else 1.0
    lower = st.t.sf((d.diff + margin) / se, df)   # H0: diff <= -margin
    upper = st.t.cdf((d.diff - margin) / se, df)  # H0: diff >= +margin
    return float(max(lower, upper))


def mde(d: Difference) -> float:
    """The smallest true difference this run would find (two-sided, α, 80 % power)."""
    se, df = _se_df(d)
    if math.isnan(se):
        return math.nan
    return float((st.t.ppf(1 - ALPHA / 2, df) + st.t.ppf(POWER, df)) * se)


def _level(own: float, adjusted: float | None) -> float:
    """The level a test's own p-value must reach for its adjusted one to reach α: α
    scaled by how much the study's adjustment raised it (α itself without one)."""
    if adjusted is None or not (own > 0) or not (adjusted > own):
        return ALPHA
    return ALPHA * own / adjusted


def _hands_needed(d: Difference, margin: float, hands: float,
                  levels: tuple[float, float] = (ALPHA, ALPHA)) -> float:
    """Hands in all at which the difference seen would be settled either way: its
    interval clear of 0, or its 90 % interval inside ±margin (whichever comes first),
    the standard error falling as 1/√hands; ``levels``, the levels the two tests'
    own p-values must reach (:func:`_level`)."""
    se, df = _se_df(d)
    if not (hands > 0) or math.isnan(se) or se == 0 or math.isnan(d.diff):
        return math.nan
    a = abs(d.diff)
    goals = [a / st.norm.isf(levels[0] / 2)] if a > 0 else []
    if a < margin:
        goals.append((margin - a) / st.norm.isf(levels[1]))
    if not goals:
        return math.nan
    target = max(goals)
    return float(math.ceil(hands * (se / target) ** 2))


def decide(d: Difference, margin: float, hands: float = math.nan,
           p: float | None = None, p_equivalence: float | None = None) -> Decision:
    """The verdict on ``d`` for an equivalence ``margin``. ``p`` and ``p_equivalence``
    are the study's adjusted p-values when given (:func:`adjust`); ``hands``, the
    hands the comparison rests on, sizes an inconclusive verdict."""
    own = tost(d, margin)
    levels = (_level(d.p, p), _level(own, p_equivalence))
    p = d.p if p is None else p
    p_eq = own if p_equivalence is None else p_equivalence
    if p < ALPHA:
        verdict = "differs"
    elif p_eq < ALPHA:
        verdict = "equivalent"
    else:
        verdict = "inconclusive"
    need = _hands_needed(d, margin, hands, levels) if verdict == "inconclusive" else math.nan
    return Decision(verdict, margin, p, p_eq, mde(d), need)


def adjust(p: Sequence[float]) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values over a whole study (every point × metric of
    a sweep, or its primary metrics); NaN stays NaN and does not count as a test.

    >>> adjust([0.01, 0.04, float("nan"), 0.03]).round(3).tolist()
    [0.03, 0.04, nan, 0.04]
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method="fdr_bh")[1]
    return out


def family(metric: str) -> str:
    """``mean_points[2]`` → ``mean_points``; ``pattern_rate[qidui]`` → ``pattern_rate``."""
    return metric.split("[", 1)[0]


def margin_for(metric: str, margins: Mapping[str, float] | None = None) -> float:
    """The margin of ``metric``: the user's for the metric or its family, else the
    default of its family (NaN for a metric without one)."""
    margins = margins or {}
    for key in (metric, family(metric)):
        if key in margins:
            return float(margins[key])
    return DEFAULT_MARGINS.get(family(metric), math.nan)


def parse_margins(items: Sequence[str]) -> dict[str, float]:
    """``["draw_rate=0.02", "pattern_rate=0.005"]`` → a dict; a margin must be a finite
    number above 0.

    >>> parse_margins(["draw_rate=0.02", "mean_points[0]=0.2"])
    {'draw_rate': 0.02, 'mean_points[0]': 0.2}
    """
    out = {}
    for item in items:
        metric, eq, value = item.partition("=")
        metric = metric.strip()
        if not eq or not metric:
            raise InputError(f"bad --margin {quote(item)}; expected METRIC=MARGIN, say "
                             f"draw_rate=0.01")
        if family(metric) not in DEFAULT_MARGINS:
            raise InputError(f"--margin {quote(item)}: no metric {quote(metric)}; known: "
                             f"{', '.join(DEFAULT_MARGINS)} (or one of them with [KEY])")
        m = finite_float(value.strip(), f"the margin of {quote(metric)}")
        if not m > 0:
            raise InputError(f"the margin of {quote(metric)} must be above 0")
        out[metric] = m
    return out


def from_zero(e: Estimate) -> Difference:
    """A figure whose "no effect" is 0 (a seat position's advantage, say) as its
    difference from 0, so :func:`decide`, :func:`tost` and :func:`mde` apply: the
    one-sample t test of its pseudo-values (:mod:`analysis.stats`) on ``units − 1``
    degrees of freedom, from its standard error.

    >>> from analysis.stats import estimate
    >>> d = from_zero(estimate([0.3, -0.1, 0.2, 0.4]))
    >>> round(d.diff, 3), round(d.p, 4), d.paired
    (0.2, 0.1612, True)
    """
    nan = math.nan
    se, df = e.se, e.units - 1
    if df < 1 or math.isnan(se) or math.isnan(e.value):
        lo = hi = p = nan
    elif se == 0:  # a constant sample: the value is certain
        lo = hi = e.value
        p = 1.0 if e.value == 0 else 0.0
    else:
        half = float(st.t.ppf(0.5 + LEVEL / 2, df)) * se
        lo, hi = e.value - half, e.value + half
        p = float(2 * st.t.sf(abs(e.value) / se, df))
    return Difference(0.0, e.value, e.value, lo, hi, p, se, nan, e.units, True)
