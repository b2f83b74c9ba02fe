"""Intervals for rates that are never zero-width, with the match as the unit.

A *rate* is a count of events over a count of trials, summed over matches: drawn
hands / hands, wins carrying 清一色 / wins, capped wins / wins, hands won / hands.
The t interval of :mod:`analysis.stats` fails exactly where a designer looks
hardest: with no event it is ``0 [0, 0]`` (a certainty the run cannot give), and
with a few it is symmetric about a skewed count and misses low. Here a rate gets
the interval a survey statistician gives a proportion from clustered data (Korn
and Graubard 1998):

1. ``p = Σk / Σn`` over the matches and its variance ``v``, cluster-robust (the
   pseudo-values of :func:`analysis.stats.estimate`: hands of one match are not
   independent);
2. the *design effect* ``d = v / (p(1 − p)/n)``, how much the clustering inflates
   the binomial variance, floored at 1 (a small sample can show less spread than
   the binomial by chance; hands of a match are never less alike than independent
   ones), and 1 when ``p`` is 0 or 1 (no spread to estimate it from);
3. the *effective* number of trials ``n* = n / d · (z / t₍ₘ₋₁₎)²``, the second
   factor spending the matches' degrees of freedom as the t interval does, and
   ``k* = p · n*``;
4. Wilson's score interval on ``(k*, n*)`` (:func:`wilson`, the closed form of
   statsmodels' ``proportion_confint(method="wilson")``), its lower bound for
   ``0 < k* ≤ 3`` the one-sided Poisson bound ``½ χ²₂ₖ*;α / n*`` (Brown, Cai and
   DasGupta 2001, §4.1.1: it removes Wilson's coverage dip near 0), and the same
   near 1.

So no event gives ``[0, upper]`` with ``upper ≈ z² / (n* + z²) > 0``, every trial an
event ``[lower, 1]``. Coverage of this interval, measured by seeded simulation of
clustered counts (8 to 32 hands a match, 25 to 200 matches, rates 0.05 % to 50 %),
is 93–97 % where the count is not tiny and at least 95 % where it is (a count of
0 or 1 must be covered). A count under :data:`RARE` is flagged: the interval is
then wide and the figure a hint, not a finding (``(n<10)`` in text).

>>> import numpy as np
>>> r = rate(np.zeros(30), np.full(30, 8.0))       # 240 hands, no event
>>> r.value, r.lo, round(r.hi, 4), r.rare
(0.0, 0.0, 0.0171, True)
>>> r = rate(np.array([3., 1, 2, 2]), np.full(4, 8.0))
>>> bool(r.lo < r.value == 0.25 < r.hi), r.count
(True, 8)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats as st

from analysis.stats import LEVEL, Difference, Estimate, estimate, mean_se, per_group, pseudo_values

__all__ = [
    "RARE",
    "Rate",
    "is_rate",
    "metric_estimate",
    "rare_note",
    "rate",
    "rate_difference",
    "rate_estimates",
    "rate_text",
    "wilson",
]

RARE = 10
"""A rate resting on fewer events than this is flagged ``rare``."""

_POISSON_TAIL = 3.0
"""Up to this many (effective) events the lower bound is the one-sided Poisson one."""


@dataclass(frozen=True)
class Rate:
    """A rate ``count / trials`` over ``units`` matches with its 95% interval, never
    zero-width: ``value`` [``lo``, ``hi``]; ``se`` is the cluster-robust standard
    error, ``deff`` the design effect and ``n_eff`` the effective trials the interval
    rests on."""

    value: float
    lo: float
    hi: float
    se: float
    units: int
    count: int | float  # NaN: no counts (a figure the rows do not have)
    trials: int | float
    deff: float
    n_eff: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    @property
    def rare(self) -> bool:
        """Fewer than :data:`RARE` events: read the figure as a hint."""
        return bool(self.count < RARE)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rare": self.rare}


Z95 = 1.959963984540054
"""z of a two-sided 95% interval."""


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the rate ``k/n`` (the closed form statsmodels'
    ``proportion_confint(method="wilson")`` computes); NaN where ``n`` is 0.

    >>> lo, hi = wilson(50, 100)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4038, 0.5962)
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return mid - half, mid + half


@lru_cache(maxsize=64)
def _z(level: float) -> float:
    """z of a two-sided interval at ``level`` (:data:`Z95` at 95 %, as it always was)."""
    return Z95 if level == LEVEL else float(st.norm.ppf(0.5 + level / 2))


@lru_cache(maxsize=4096)
def _df_factor(m: int, level: float = LEVEL) -> float:
    """``(z / t₍ₘ₋₁₎)²``: the share of the trials the matches' degrees of freedom leave."""
    return (_z(level) / float(st.t.ppf(0.5 + level / 2, m - 1))) ** 2


def _bounds(k: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's interval for ``k`` of ``n`` (effective, so not whole numbers), with the
    Poisson lower (upper) bound for up to three events (non-events)."""
    alpha = 1 - level
    lo, hi = (float(b) for b in wilson(k, n, _z(level)))
    if 0 < k <= _POISSON_TAIL:
        lo = 0.5 * float(st.chi2.ppf(alpha, 2 * k)) / n
    if 0 < n - k <= _POISSON_TAIL:
        hi = 1 - 0.5 * float(st.chi2.ppf(alpha, 2 * (n - k))) / n
    # exactly 0 or 1 at the ends (Wilson's arithmetic leaves rounding there)
    return (0.0 if k <= 0 else max(lo, 0.0)), (1.0 if k >= n else min(hi, 1.0))


def rate(y: ArrayLike, x: ArrayLike | None, level: float = LEVEL) -> Rate:
    """The rate ``Σy / Σx`` of per-match counts ``y`` of events in ``x`` trials, with its
    interval (module docstring; at ``level``: a verdict reads the 90 % one,
    :mod:`mjlog.judgement`). NaN interval under two matches (no spread to judge),
    NaN throughout without a trial or with a NaN count."""
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    nan, m = math.nan, len(y)
    if np.isnan(y).any() or np.isnan(x).any():  # a figure the rows do not have
        return Rate(nan, nan, nan, nan, m, nan, nan, nan, nan)
    if (y < 0).any() or (y > x).any():
        raise ValueError("a rate counts events among trials: 0 <= y <= x per match")
    k, n = int(round(y.sum())), int(round(x.sum()))
    if n == 0:
        return Rate(nan, nan, nan, nan, m, k, n, nan, nan)
    p = k / n
    se = mean_se(pseudo_values(y, x))  # the standard error analysis.stats.estimate gives
    if m < 2:
        return Rate(p, nan, nan, se, m, k, n, nan, nan)
    binomial = p * (1 - p) / n
    deff = max(1.0, se**2 / binomial) if binomial > 0 else 1.0
    n_eff = n / deff * _df_factor(m, level)
    lo, hi = _bounds(p * n_eff, n_eff, level)
    return Rate(p, lo, hi, se, m, k, n, deff, n_eff)


def rate_difference(
    d: Difference, yb: ArrayLike, xb: ArrayLike, yo: ArrayLike, xo: ArrayLike
) -> Difference:
    """``d``, the difference of the rates ``Σyo/Σxo − Σyb/Σxb`` as
    :func:`analysis.stats.compare_units` gives it, made honest where a side rests on
    fewer than :data:`RARE` events: there the t interval of the per-match
    differences has next to no spread to judge (paired runs that saw the same few
    events on the same matches differ by almost nothing on every match) and claims a
    certainty the runs cannot give. Its interval then reaches at least Newcombe's
    square-and-add of the two rates' own intervals (:func:`rate`; MOVER, conservative
    for paired runs, whose shared walls make them alike), its standard error is the
    wider half over z, and its p-value is no smaller than that standard error's
    normal one.

    >>> from analysis.stats import compare_units
    >>> one, wins = np.array([0., 0, 1, 0]), np.full(4, 8.)  # one event, both sides
    >>> d = compare_units(one, wins, one, wins, paired=True)
    >>> (d.lo, d.hi)
    (0.0, 0.0)
    >>> w = rate_difference(d, one, wins, one, wins)
    >>> bool(w.lo < 0 < w.hi), w.p
    (True, 1.0)
    """
    rb, ro = rate(yb, xb), rate(yo, xo)
    if not (rb.rare or ro.rare) or any(v != v for v in (rb.lo, rb.hi, ro.lo, ro.hi, d.diff)):
        return d
    lo = d.diff - math.hypot(ro.value - ro.lo, rb.hi - rb.value)
    hi = d.diff + math.hypot(ro.hi - ro.value, rb.value - rb.lo)
    if d.lo == d.lo:  # the t interval, where it is wider
        lo, hi = min(lo, d.lo), max(hi, d.hi)
    se = max(d.diff - lo, hi - d.diff) / Z95
    p = max(d.p if d.p == d.p else 0.0, float(2 * st.norm.sf(abs(d.diff) / se)))
    return replace(
        d,
        lo=lo,
        hi=hi,
        p=p,
        unpaired_se=max(d.unpaired_se, se),
        paired_se=se if d.paired else d.paired_se,
    )


def is_rate(unit: str) -> bool:
    """Whether a metric of this unit (:data:`analysis.queries.COMPARE_METRICS`' units)
    is a rate: a share of hands or wins, counted."""
    return unit.startswith("share of ")


def metric_estimate(
    y: ArrayLike, x: ArrayLike | None, unit: str, level: float = LEVEL
) -> Rate | Estimate:
    """A headline metric's figure with its 95% interval (at ``level``): a rate's by
    :func:`rate`, any other's (a mean of points) by :func:`analysis.stats.estimate`."""
    return rate(y, x, level) if is_rate(unit) else estimate(y, x, level)


def rate_estimates(
    units: pd.DataFrame, keys: list[str], specs: dict[str, tuple[str, str]]
) -> pd.DataFrame:
    """Per ``keys`` group of the per-match table ``units``: for each ``name: (events,
    trials)`` of ``specs`` the columns ``name``, ``name_lo``, ``name_hi``, ``name_se``,
    ``name_count`` (events) and ``name_rare`` (under :data:`RARE`); and ``matches``.
    The columns of :func:`analysis.stats.estimates`, with the interval of
    :func:`rate`."""

    def one(g: pd.DataFrame, name: str) -> dict[str, Any]:
        y, x = specs[name]
        r = rate(g[y].to_numpy(float), g[x].to_numpy(float))
        return {
            name: r.value,
            f"{name}_lo": r.lo,
            f"{name}_hi": r.hi,
            f"{name}_se": r.se,
            f"{name}_count": r.count,
            f"{name}_rare": r.rare,
        }

    return per_group(units, keys, list(specs), ("", "_lo", "_hi", "_se", "_count", "_rare"), one)


def rare_note(count: float | None) -> str:
    """``" (n<10)"`` for a count under :data:`RARE`, else ``""``.

    >>> rare_note(3), rare_note(12)
    (' (n<10)', '')
    """
    return f" (n<{RARE})" if count is not None and count == count and count < RARE else ""


def rate_text(
    value: float, lo: float, hi: float, count: float | None = None, fmt: str = ".1%"
) -> str:
    """A rate as text: ``"0.0% [0.0%, 1.6%] (n<10)"``.

    >>> rate_text(0.0, 0.0, 0.0167, 0)
    '0.0% [0.0%, 1.7%] (n<10)'
    """
    return f"{value:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]{rare_note(count)}"
