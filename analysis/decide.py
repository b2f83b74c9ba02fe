"""From a measured difference to a decision a designer can defend.

Every comparison of two rule settings ends in one of three verdicts, each a stated
test at level α = 0.05 (the match as the unit, as everywhere in
:mod:`analysis.stats`), in this order. The words, the level and the rule that turns
the tests into a word are :mod:`mjlog.judgement`'s, which ``mjlog tune``'s targets
share (``met`` is the same TOST, the tolerance as margin); this module does the
tests' arithmetic:

- ``equivalent``: the difference lies within ±``margin`` (two one-sided t tests,
  TOST: the 90 % interval inside the margin; their p-value adjusted within its
  family of the study, :func:`equivalence_family`: :func:`adjust`), whether or not
  it is also shown to differ from 0;
- ``differs``: else, the difference is not 0 (two-sided t test, its p-value
  adjusted likewise);
- ``inconclusive``: neither, with how many more hands would settle it at the
  precision seen (:attr:`Decision.hands_needed`).

Before any test, a figure that paired runs (the same walls) measure the same on
every match is ``identical`` (:data:`IDENTICAL`, :func:`decide_study`): no hand of
the sample tells the two apart, which no interval needs to say.

Equivalence comes first because the margin is the question: with many hands a
difference far below it is still shown not to be 0, and calling that ``differs``
would tell a designer to change a rule for what they said does not matter.
:attr:`Decision.differs_from_zero` keeps that fact beside the verdict.

A run also says what it *could* have seen: the minimum detectable effect
(:attr:`Decision.mde`), the smallest true difference this run would show to differ
from 0 four times in five (80 % power), ``(t₁₋α/₂ + t₀.₈) · se`` on the run's
degrees of freedom; in a study (:func:`decide_study`) at the level its adjustment
leaves, α / m for m tests, so that it holds for the comparison as run.

>>> from analysis.stats import LEVEL, Difference, Estimate
>>> d = Difference(baseline=1.0, value=1.02, diff=0.02, lo=-0.01, hi=0.05, p=0.19,
...                paired_se=0.015, unpaired_se=0.04, units=200, paired=True)
>>> dec = decide(d, margin=0.1, hands=1600)
>>> dec.verdict, round(dec.mde, 3)
(<Verdict.EQUIVALENT: 'equivalent'>, 0.042)
>>> decide(d, margin=0.01, hands=1600).verdict
<Verdict.INCONCLUSIVE: 'inconclusive'>

A difference of 0.02 known to ±0.005 is not 0, and well within ±0.1:

>>> tight = Difference(1.0, 1.02, 0.02, 0.015, 0.025, 1e-9, 0.0025, 0.04, 8000, True)
>>> dec = decide(tight, margin=0.1, hands=64000)
>>> dec.verdict, dec.differs_from_zero
(<Verdict.EQUIVALENT: 'equivalent'>, True)
>>> decide(tight, margin=0.01).verdict
<Verdict.DIFFERS: 'differs'>
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
from scipy import stats as st

from analysis.stats import LEVEL, Difference, Estimate, t_quantile
from mjlog.errors import InputError, finite_float, quote
from mjlog.judgement import ALPHA, Verdict, of_difference
from mjlog.metrics import default_margins, family

__all__ = [
    "ALPHA",
    "POWER",
    "RATE_FLOOR",
    "RELATIVE",
    "DEFAULT_MARGINS",
    "EXPLORATORY",
    "HEADLINE",
    "IDENTICAL",
    "Decision",
    "Verdict",
    "adjust",
    "check_names",
    "decide",
    "decide_study",
    "equivalence_family",
    "family",
    "from_zero",
    "is_primary",
    "margin_for",
    "mde",
    "parse_margins",
    "parse_primary",
    "tost",
]

IDENTICAL = Verdict.IDENTICAL
"""The verdict of a figure that paired runs (the same walls) measure the same on
every match: no difference in these hands, a fact rather than a test."""

EXPLORATORY = Verdict.EXPLORATORY
"""The verdict of a metric outside the ``--primary`` ones: looked at, not tested."""

POWER = 0.8
"""The power at which :attr:`Decision.mde` is stated."""

DEFAULT_MARGINS: dict[str, float] = default_margins()
"""The equivalence margin of each metric family unless ``--margin METRIC=M`` says
otherwise: a difference a designer would not change a rule for (the registry,
:mod:`mjlog.metrics`; docs/cli.md)."""


@dataclass(frozen=True)
class Decision:
    """The verdict on one difference, with what it rests on."""

    verdict: Verdict  # equivalent | differs | inconclusive | identical | exploratory
    margin: float  # the equivalence margin used
    p: float  # two-sided p of "no difference" (as adjusted, if given)
    p_equivalence: float  # TOST p of "outside the margin" (as adjusted, if given)
    mde: float  # smallest difference detectable with 80 % power
    hands_needed: float  # hands in all that would settle an inconclusive one (NaN else)
    differs_from_zero: bool  # p < α: shown not 0 (an equivalent one: by less than the margin)

    def as_dict(self) -> dict[str, Any]:
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
    lower = st.t.sf((d.diff + margin) / se, df)  # H0: diff <= -margin
    upper = st.t.cdf((d.diff - margin) / se, df)  # H0: diff >= +margin
    return float(max(lower, upper))


def mde(d: Difference, alpha: float = ALPHA) -> float:
    """The smallest true difference this run would find (two-sided at level ``alpha``,
    80 % power). :func:`decide_study` gives the level its adjustment leaves a lone
    finding, α / m over a family of m tests (Benjamini–Hochberg's first step), so the
    MDE it prints holds for the comparison as run.

    >>> from analysis.stats import Difference
    >>> d = Difference(0, 0.01, 0.01, -0.02, 0.04, 0.5, 0.015, 0.03, 100, True)
    >>> round(mde(d), 4), round(mde(d, ALPHA / 30), 4)
    (0.0424, 0.0612)
    """
    se, df = _se_df(d)
    if math.isnan(se):
        return math.nan
    return float((t_quantile(1 - alpha / 2, df) + t_quantile(POWER, df)) * se)


def _level(raw: float, adjusted: float) -> float:
    """The level a test's raw p-value must reach for its adjusted one to reach α:
    α × raw / adjusted (Benjamini–Hochberg scales each p by m / rank), α unadjusted."""
    if 0 < raw < adjusted and math.isfinite(adjusted):
        return ALPHA * raw / adjusted
    return ALPHA


def _hands_needed(
    d: Difference, margin: float, hands: float, alpha: float = ALPHA, alpha_eq: float = ALPHA
) -> float:
    """Hands in all at which the difference seen would be settled either way: its
    interval clear of 0 at level ``alpha``, or its 1 − 2·``alpha_eq`` interval inside
    ±margin (whichever comes first), the standard error falling as 1/√hands. The
    levels are those the study's adjustment leaves each test (:func:`_level`)."""
    se, df = _se_df(d)
    if not (hands > 0) or math.isnan(se) or se == 0 or math.isnan(d.diff):
        return math.nan
    a = abs(d.diff)
    # t quantiles at the run's degrees of freedom, as the tests read them (z's would
    # call a difference at the edge settled by the hands that left it undecided)
    goals = [a / t_quantile(1 - alpha / 2, df)] if a > 0 else []
    if a < margin:
        goals.append((margin - a) / t_quantile(1 - alpha_eq, df))
    if not goals:
        return math.nan
    target = max(goals)
    # undecided now: a match more at least, never "0 more hands"
    least = hands + hands / d.units if d.units > 0 else hands
    return float(max(math.ceil(hands * (se / target) ** 2), math.ceil(least)))


def decide(
    d: Difference,
    margin: float,
    hands: float = math.nan,
    p: float | None = None,
    p_equivalence: float | None = None,
) -> Decision:
    """The verdict on ``d`` for an equivalence ``margin`` (the module docstring: within
    it is ``equivalent`` even when also shown off 0). ``p`` and ``p_equivalence``
    are the study's adjusted p-values when given (:func:`adjust`); ``hands``, the
    hands the comparison rests on, sizes an inconclusive verdict (at the level the
    adjustment leaves its tests: a study of many tests needs more hands)."""
    raw_eq = tost(d, margin)
    p = d.p if p is None else p
    p_eq = raw_eq if p_equivalence is None else p_equivalence
    verdict = of_difference(p, p_eq)
    need = (
        _hands_needed(d, margin, hands, _level(d.p, p), _level(raw_eq, p_eq))
        if verdict == Verdict.INCONCLUSIVE
        else math.nan
    )
    return Decision(verdict, margin, p, p_eq, mde(d), need, bool(p < ALPHA))


def adjust(p: Sequence[float]) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values over a whole study (every point × metric of
    a sweep, or its primary metrics); NaN stays NaN and does not count as a test.

    >>> adjust([0.01, 0.04, float("nan"), 0.03]).round(3).tolist()
    [0.03, 0.04, nan, 0.04]
    """
    from statsmodels.stats.multitest import multipletests

    ps = np.asarray(p, dtype=float)
    out = np.full(ps.shape, np.nan)
    ok = ~np.isnan(ps)
    if ok.any():
        out[ok] = multipletests(ps[ok], method="fdr_bh")[1]
    return out


RATES = ("draw_rate", "capped_share", "pattern_rate")
"""The metric families that are rates (a share of hands or wins)."""

RELATIVE = 0.2
"""A rate's default margin, as a share of the rarer side of its baseline rate."""

RATE_FLOOR = 0.002
"""The least default margin of a rate (0.2 percentage points): below it a rate's
difference is too small for any run to tell."""


def margin_for(
    metric: str,
    margins: Mapping[str, float] | None = None,
    baseline: float = math.nan,
    base: float = 1.0,
) -> float:
    """The margin of ``metric``: the user's for the metric or its family (as given),
    else its family's default scaled to what it measures (docs/cli.md, one table):
    a rate's is ``max(RATE_FLOOR, RELATIVE × min(p, 1 − p))`` of its ``baseline``
    rate p (a 3-fold change of a 0.4 % pattern is no "equivalent", 平胡 at 98 % is not
    held to ±1 point), a figure in points is :data:`DEFAULT_MARGINS` × the baseline's
    ``base`` (points scale with the base); NaN for a metric without one.

    >>> margin_for("draw_rate", baseline=0.05), margin_for("pattern_rate[x]", baseline=0.98)
    (0.01, 0.004)
    >>> margin_for("pattern_rate[x]", baseline=0.004), margin_for("money_moved_per_hand", base=2)
    (0.002, 1.0)
    >>> margin_for("draw_rate", {"draw_rate": 0.03}, baseline=0.05)
    0.03
    """
    margins = margins or {}
    for key in (metric, family(metric)):
        if key in margins:
            return float(margins[key])
    m = DEFAULT_MARGINS.get(family(metric), math.nan)
    if family(metric) in RATES:
        if not math.isfinite(baseline):
            return RATE_FLOOR
        return round(max(RATE_FLOOR, RELATIVE * min(baseline, 1 - baseline)), 12)
    return m * (base if math.isfinite(base) and base > 0 else 1.0)


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
            raise InputError(
                f"bad --margin {quote(item)}; expected METRIC=MARGIN, say draw_rate=0.01"
            )
        if family(metric) not in DEFAULT_MARGINS:
            raise InputError(
                f"--margin {quote(item)}: no metric {quote(metric)}; known: "
                f"{', '.join(DEFAULT_MARGINS)} (or one of them with [KEY])"
            )
        m = finite_float(value.strip(), f"the margin of {quote(metric)}")
        if not m > 0:
            raise InputError(f"the margin of {quote(metric)} must be above 0")
        if metric in out:
            raise InputError(f"--margin names {quote(metric)} twice")
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
        half = t_quantile(0.5 + LEVEL / 2, df) * se
        lo, hi = e.value - half, e.value + half
        p = float(2 * st.t.sf(abs(e.value) / se, df))
    return Difference(0.0, e.value, e.value, lo, hi, p, se, nan, e.units, True)


def parse_primary(items: Sequence[str]) -> tuple[str, ...] | None:
    """``--primary`` values (a metric, say ``dealer_advantage`` or
    ``pattern_rate[qidui]``, or a family, ``pattern_rate``) in the order given, each
    once; None when none is given (then every metric is primary).

    >>> parse_primary(["draw_rate", "pattern_rate[qidui]", "draw_rate"])
    ('draw_rate', 'pattern_rate[qidui]')
    >>> parse_primary([]) is None
    True
    """
    out: dict[str, None] = {}
    for item in items:
        metric = item.strip()
        if family(metric) not in DEFAULT_MARGINS:
            raise InputError(
                f"--primary {quote(item)}: no metric {quote(metric)}; known: "
                f"{', '.join(DEFAULT_MARGINS)} (or one of them with [KEY])"
            )
        out[metric] = None
    return tuple(out) or None


def is_primary(metric: str, primary: Sequence[str] | None) -> bool:
    """Whether ``metric`` is one of the ``primary`` metrics or families (all are,
    without any)."""
    return primary is None or metric in primary or family(metric) in primary


def check_names(names: Sequence[str], metrics: Sequence[str], option: str) -> None:
    """Refuse a name of ``--margin`` or ``--primary`` that matches none of the
    ``metrics`` a comparison has (a pattern its variants do not score, a position
    its players do not have): a margin that silently applies to nothing is a typo."""
    have = set(metrics) | {family(m) for m in metrics}
    for name in names:
        if name not in have:
            same = sorted(m for m in metrics if family(m) == family(name))
            raise InputError(
                f"{option} {quote(name)}: this comparison has no such metric"
                + (f"; of {family(name)}: {', '.join(same)}" if same else "")
            )


def decide_study(
    diffs: Sequence[Difference | None],
    metrics: Sequence[str],
    hands: Sequence[float],
    margins: Mapping[str, float] | None = None,
    primary: Sequence[str] | None = None,
    identical: Sequence[bool] | None = None,
    bases: Sequence[float] | None = None,
) -> list[Decision | None]:
    """The verdict of every difference of one study (every point × metric of a
    sweep; None where there is no difference, say points on two scales). The tests
    of "no difference" are adjusted together (:func:`adjust`) over the study's
    primary metrics (all of them without ``primary``); the tests of equivalence
    within each :func:`equivalence_family` of those; the others get the verdict
    :data:`EXPLORATORY` and no adjusted p. Margins: :func:`margin_for`, a rate's
    relative to its baseline, points in units of ``bases`` (the baseline's ``base``
    rule, per row). A decided row's ``mde`` is at the level
    the adjustment leaves a lone finding (α / m over the m tests), so an effect of
    that size is called *differs* at least four times in five as the study is run.
    A difference marked ``identical`` (paired runs whose figure is the same on every
    match) is no test: its verdict is :data:`IDENTICAL`, outside the adjustment."""
    same = list(identical) if identical is not None else [False] * len(diffs)
    chosen = [
        i
        for i, d in enumerate(diffs)
        if d is not None and not same[i] and is_primary(metrics[i], primary)
    ]
    base = list(bases) if bases is not None else [1.0] * len(diffs)
    margin = [
        margin_for(m, margins, d.baseline if d is not None else math.nan, b)
        for m, d, b in zip(metrics, diffs, base, strict=True)
    ]
    decided = {i: d for i in chosen if (d := diffs[i]) is not None}
    p = adjust([decided[i].p for i in chosen])
    # equivalence within its family (equivalence_family): a claim about the figures
    # a designer asked about is not diluted by every pattern of the variant
    p_eq = np.full(len(chosen), np.nan)
    groups = [equivalence_family(metrics[i], primary) for i in chosen]
    for g in dict.fromkeys(groups):
        at = [k for k, x in enumerate(groups) if x == g]
        p_eq[at] = adjust([tost(decided[chosen[k]], margin[chosen[k]]) for k in at])
    level = ALPHA / max(len(chosen), 1)  # what BH leaves a lone finding
    out: list[Decision | None] = [None] * len(diffs)
    for i, d in enumerate(diffs):
        if d is not None:
            verdict = IDENTICAL if same[i] else EXPLORATORY
            out[i] = Decision(verdict, margin[i], math.nan, math.nan, mde(d), math.nan, False)
    for i, pa, pe in zip(chosen, p, p_eq, strict=True):
        dec = decide(decided[i], margin[i], hands[i], p=float(pa), p_equivalence=float(pe))
        out[i] = replace(dec, mde=mde(decided[i], level))
    return out


HEADLINE = (
    "dealer_advantage",
    "draw_rate",
    "mean_points_per_win",
    "money_moved_per_hand",
    "capped_share",
)
"""The figures a rule question is usually about (the report's paired table): without
``--primary``, their tests of equivalence are adjusted among themselves."""


def equivalence_family(metric: str, primary: Sequence[str] | None = None) -> str:
    """The family whose tests of equivalence are adjusted together (:func:`adjust`)
    with ``metric``'s: the ``--primary`` metrics, when given, are one family; without,
    the :data:`HEADLINE` figures are one, and every other metric family (the seat
    positions, the pattern rates, …) one each.

    >>> equivalence_family("draw_rate"), equivalence_family("pattern_rate[qidui]")
    ('headline', 'pattern_rate')
    >>> equivalence_family("pattern_rate[qidui]", ["pattern_rate[qidui]"])
    'primary'
    """
    if primary is not None:
        return "primary"
    return "headline" if family(metric) in HEADLINE else family(metric)
