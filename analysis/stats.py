"""Intervals and tests with the match as the unit (scipy does the arithmetic).

Hands of one match share a seat order, a dealer sequence and, in duplicate
play, their walls across rotations: they are not independent. Every figure of
:mod:`analysis.queries` is therefore a ratio of sums over matches,
``R = Σ y_i / Σ x_i`` (points / seat-hands, draws / hands, wins with 清一色 /
wins…), and its uncertainty is that of the per-match sums: the *pseudo-values*

    ``p_i = R + (y_i − R·x_i) / x̄``     (the linearisation of the ratio)

have mean exactly ``R`` and, fed to :func:`scipy.stats.ttest_1samp`, give the
usual cluster-robust (HC1, "sandwich") standard error of a ratio with a
Student t interval on ``m − 1`` degrees of freedom. When every match has the
same ``x`` (hands per match) this is plainly the t interval of the per-match
means, which is what ``mjlog ladder`` reports. Paired comparisons are
:func:`scipy.stats.ttest_rel` on the pseudo-values of the units two runs share
(same seed and match: same walls); unpaired ones are Welch's
:func:`scipy.stats.ttest_ind`.

>>> import numpy as np
>>> e = estimate(np.array([3., 1, 2, 2]), np.array([8., 8, 8, 8]))
>>> round(e.value, 4), e.units
(0.25, 4)
>>> bool(e.lo < 0.25 < e.hi)
True
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

__all__ = [
    "LEVEL",
    "Difference",
    "Estimate",
    "compare_units",
    "estimate",
    "estimates",
    "hands_needed",
    "pseudo_values",
]

LEVEL = 0.95
"""Confidence level of every interval."""


@dataclass(frozen=True)
class Estimate:
    """A ratio over units with its 95% interval: ``value`` [``lo``, ``hi``], standard
    error ``se``, ``units`` (matches) it rests on."""

    value: float
    lo: float
    hi: float
    se: float
    units: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Difference:
    """``value − baseline`` with its 95% interval and two-sided p-value; ``paired`` says
    whether the units were matched (then ``se`` is ``paired_se``)."""

    baseline: float
    value: float
    diff: float
    lo: float
    hi: float
    p: float
    paired_se: float
    unpaired_se: float
    units: int
    paired: bool


def pseudo_values(y, x=None) -> np.ndarray:
    """The per-unit pseudo-values of ``Σy / Σx`` (of the mean of ``y`` when ``x`` is
    None); NaN when ``Σx`` is 0."""
    y = np.asarray(y, dtype=float)
    if x is None:
        return y.copy()
    x = np.asarray(x, dtype=float)
    xbar = x.mean() if len(x) else 0.0
    if xbar == 0:
        return np.full(len(y), np.nan)
    r = y.sum() / x.sum()
    return r + (y - r * x) / xbar


def _t_interval(p: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, lo, hi, se) of the pseudo-values ``p`` by the one-sample t test."""
    m = len(p)
    if m == 0 or np.isnan(p).any():
        return (math.nan,) * 4
    mean = float(p.mean())
    if m < 2:
        return mean, math.nan, math.nan, math.nan
    se = float(st.sem(p))
    if se == 0 or not np.isfinite(se):
        return mean, mean, mean, 0.0
    ci = st.ttest_1samp(p, mean).confidence_interval(LEVEL)
    return mean, float(ci.low), float(ci.high), se


def estimate(y, x=None) -> Estimate:
    """``Σy/Σx`` over units (mean of ``y`` without ``x``) with its 95% t interval."""
    p = pseudo_values(y, x)
    mean, lo, hi, se = _t_interval(p)
    return Estimate(mean, lo, hi, se, len(p))


def estimates(units: pd.DataFrame, keys: list[str], specs: dict[str, tuple[str, str | None]],
              clip: tuple[float, float] | None = None) -> pd.DataFrame:
    """Per ``keys`` group of the unit-level table ``units``: for each ``name: (y, x)``
    of ``specs`` the columns ``name``, ``name_lo``, ``name_hi``, ``name_se``; and
    ``matches`` (units per group). ``clip`` bounds the intervals (rates: (0, 1))."""
    rows = []
    grouped = units.groupby(keys, sort=False, dropna=False) if keys else [((), units)]
    for key, g in grouped:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key, strict=True))
        row["matches"] = len(g)
        for name, (y, x) in specs.items():
            e = estimate(g[y].to_numpy(float), None if x is None else g[x].to_numpy(float))
            lo, hi = e.lo, e.hi
            if clip is not None and not math.isnan(lo):
                lo, hi = max(lo, clip[0]), min(hi, clip[1])
            row.update({name: e.value, f"{name}_lo": lo, f"{name}_hi": hi, f"{name}_se": e.se})
        rows.append(row)
    cols = [*keys, "matches"] + [f"{n}{s}" for n in specs for s in ("", "_lo", "_hi", "_se")]
    return pd.DataFrame(rows, columns=cols)


def compare_units(base_y, base_x, other_y, other_x, paired: bool) -> Difference:
    """``Σy/Σx`` of the other runs minus the baseline's. ``paired``: the arrays are
    aligned unit by unit (same seed and match), tested with :func:`scipy.stats.ttest_rel`;
    otherwise Welch's :func:`scipy.stats.ttest_ind`. Both standard errors are given."""
    pb = pseudo_values(base_y, base_x)
    po = pseudo_values(other_y, other_x)
    b, o = (float(p.mean()) if len(p) else math.nan for p in (pb, po))
    diff = o - b
    nan = math.nan
    unpaired_se = math.sqrt(st.sem(po) ** 2 + st.sem(pb) ** 2) \
        if len(pb) > 1 and len(po) > 1 else nan
    if paired:
        d = po - pb
        m = len(d)
        paired_se = float(st.sem(d)) if m > 1 else nan
        if m < 2 or np.isnan(d).any():
            lo = hi = p = nan
        elif paired_se == 0:
            lo = hi = diff
            p = 1.0 if diff == 0 else 0.0
        else:
            r = st.ttest_rel(po, pb)
            ci = r.confidence_interval(LEVEL)
            lo, hi, p = float(ci.low), float(ci.high), float(r.pvalue)
        return Difference(b, o, diff, lo, hi, p, paired_se, float(unpaired_se), m, True)
    if not (unpaired_se > 0):
        lo = hi = diff if unpaired_se == 0 else nan
        p = (1.0 if diff == 0 else 0.0) if unpaired_se == 0 else nan
    else:
        r = st.ttest_ind(po, pb, equal_var=False)
        ci = r.confidence_interval(LEVEL)
        lo, hi, p = float(ci.low), float(ci.high), float(r.pvalue)
    return Difference(b, o, diff, lo, hi, p, nan, float(unpaired_se), min(len(pb), len(po)),
                      False)


def hands_needed(half_width: float, hands: float, target: float) -> float:
    """Hands for a 95% interval of half-width ``target``, from one of ``half_width`` on
    ``hands`` (the standard error falls as 1/√hands, the match size kept).

    >>> hands_needed(0.2, 1000, 0.1)
    4000.0
    """
    if not (half_width > 0) or not (target > 0) or hands <= 0:
        return math.nan
    return float(math.ceil(hands * (half_width / target) ** 2))
