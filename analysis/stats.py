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

A sample whose values are one value up to rounding (every match the same share,
say) has a standard error of 0 and is handled here, not by SciPy, whose tests
warn on one ("catastrophic cancellation") and return noise: its interval is the
point itself, and against a varying sample Welch's test is the one-sample t test
of that sample (what Welch's reduces to when one variance is 0).

>>> import numpy as np
>>> e = estimate(np.array([3., 1, 2, 2]), np.array([8., 8, 8, 8]))
>>> round(e.value, 4), e.units
(0.25, 4)
>>> bool(e.lo < 0.25 < e.hi)
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats as st

__all__ = [
    "LEVEL",
    "Difference",
    "Estimate",
    "Slope",
    "compare_units",
    "estimate",
    "estimates",
    "hands_needed",
    "pseudo_values",
    "quantiles_counted",
    "slope",
    "t_quantile",
]

LEVEL = 0.95
"""Confidence level of every interval."""


@functools.lru_cache(maxsize=4096)
def t_quantile(q: float, df: float) -> float:
    """Student's t quantile ``q`` at ``df`` degrees of freedom (``scipy.stats.t.ppf``),
    remembered: a study decides thousands of comparisons at a few levels and degrees of
    freedom, and one ppf costs more than the rest of a decision.

    >>> round(t_quantile(0.975, 10), 4)
    2.2281
    """
    return float(st.t.ppf(q, df))


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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Difference:
    """``value − baseline`` with its 95% interval and two-sided p-value; ``paired`` says
    whether the units were matched (then ``se`` is ``paired_se``, never above
    ``unpaired_se``: :func:`compare_units`)."""

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


def pseudo_values(y: ArrayLike, x: ArrayLike | None = None) -> np.ndarray:
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
    # r + (y - r·x) / x̄ worked in one array (the same operations, so the same bits:
    # r + v is v + r): a run of millions of units holds one temporary, not three
    out: np.ndarray = np.multiply(x, r)
    np.subtract(y, out, out=out)
    out /= xbar
    out += r
    return out


ROUNDING = 64 * float(np.finfo(float).eps)
"""A spread below this share of a sample's largest magnitude is rounding: the sample
is constant. (SciPy warns below 10 ε of the mean, which this covers.)"""


def _constant(p: np.ndarray, scale: float | None = None) -> bool:
    """Whether the values of ``p`` (no NaN) are one value up to rounding, relative to
    ``scale`` (default: their largest magnitude)."""
    if scale is None:
        scale = float(np.abs(p).max()) if len(p) else 0.0
    return len(p) > 0 and float(np.ptp(p)) <= ROUNDING * scale


def mean_se(p: np.ndarray) -> float:
    """Standard error of the mean of ``p``: NaN under two values or with a NaN, 0 for a
    constant sample (:func:`_constant`)."""
    if len(p) < 2 or np.isnan(p).any():
        return math.nan
    # std/√n as scipy.stats.sem computes it, without its per-call overhead (a rate's
    # interval is computed on every prefix of a run by simulate --until)
    return 0.0 if _constant(p) else float(np.std(p, ddof=1) / math.sqrt(len(p)))


def _certain(diff: float, scale: float) -> float:
    """The p-value of a difference without variance: 1 when it is rounding, else 0."""
    return 1.0 if abs(diff) <= ROUNDING * scale else 0.0


def _t_interval(p: np.ndarray, level: float = LEVEL) -> tuple[float, float, float, float]:
    """(mean, lo, hi, se) of the pseudo-values ``p`` by the one-sample t test, the
    interval at ``level``."""
    m = len(p)
    if m == 0 or np.isnan(p).any():
        return (math.nan,) * 4
    mean = float(p.mean())
    if m < 2:
        return mean, math.nan, math.nan, math.nan
    se = mean_se(p)
    if se == 0 or not np.isfinite(se):
        return mean, mean, mean, 0.0
    ci = st.ttest_1samp(p, mean).confidence_interval(level)
    return mean, float(ci.low), float(ci.high), se


def estimate(y: ArrayLike, x: ArrayLike | None = None, level: float = LEVEL) -> Estimate:
    """``Σy/Σx`` over units (mean of ``y`` without ``x``) with its 95% t interval (at
    ``level``: a verdict reads the 90 % one, :mod:`mjlog.judgement`)."""
    return _estimate_of(pseudo_values(y, x), level)


def _estimate_of(p: np.ndarray, level: float = LEVEL) -> Estimate:
    """The :class:`Estimate` of the pseudo-values ``p``."""
    mean, lo, hi, se = _t_interval(p, level)
    return Estimate(mean, lo, hi, se, len(p))


def per_group(
    units: pd.DataFrame,
    keys: list[str],
    names: list[str],
    suffixes: tuple[str, ...],
    one: Callable[[pd.DataFrame, str], dict[str, Any]],
) -> pd.DataFrame:
    """Per ``keys`` group of the unit-level table ``units``: ``matches`` (units per
    group) and, for each of ``names``, the columns ``one(group, name)`` gives (the name
    followed by each of ``suffixes``). The loop :func:`estimates` and
    :func:`analysis.rates.rate_estimates` share."""
    rows = []
    grouped = units.groupby(keys, sort=False, dropna=False) if keys else [((), units)]
    for key, g in grouped:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key, strict=True))
        row["matches"] = len(g)
        for name in names:
            row.update(one(g, name))
        rows.append(row)
    cols = [*keys, "matches"] + [f"{n}{s}" for n in names for s in suffixes]
    return pd.DataFrame(rows, columns=cols)


def estimates(
    units: pd.DataFrame,
    keys: list[str],
    specs: dict[str, tuple[str, str | None]],
    clip: tuple[float, float] | None = None,
) -> pd.DataFrame:
    """Per ``keys`` group of the unit-level table ``units``: for each ``name: (y, x)``
    of ``specs`` the columns ``name``, ``name_lo``, ``name_hi``, ``name_se``; and
    ``matches`` (units per group). ``clip`` bounds the intervals (rates: (0, 1))."""

    def one(g: pd.DataFrame, name: str) -> dict[str, Any]:
        y, x = specs[name]
        # the columns' float copies go once their pseudo-values are made, before the
        # interval's own temporaries (at 10M hands a seat figure has 5M units: 40 MB
        # an array)
        e = _estimate_of(
            pseudo_values(g[y].to_numpy(float), None if x is None else g[x].to_numpy(float))
        )
        lo, hi = e.lo, e.hi
        if clip is not None and not math.isnan(lo):
            lo, hi = max(lo, clip[0]), min(hi, clip[1])
        return {name: e.value, f"{name}_lo": lo, f"{name}_hi": hi, f"{name}_se": e.se}

    return per_group(units, keys, list(specs), ("", "_lo", "_hi", "_se"), one)


def compare_units(
    base_y: ArrayLike,
    base_x: ArrayLike | None,
    other_y: ArrayLike,
    other_x: ArrayLike | None,
    paired: bool,
    shared_walls: bool = False,
) -> Difference:
    """``Σy/Σx`` of the other runs minus the baseline's. ``paired``: the arrays are
    aligned unit by unit (same seed and match), tested with :func:`scipy.stats.ttest_rel`;
    otherwise Welch's :func:`scipy.stats.ttest_ind`. Both standard errors are given.
    A constant difference (paired) or two constant sides (unpaired) is certain: its
    interval is the difference itself, p 0 (1 when the difference is rounding).

    ``shared_walls``: the two sides are separate runs on the same walls (common random
    numbers, as :mod:`analysis.compare` pairs runs), which make them alike, not
    opposed: a negative sample covariance is then taken for noise (on 30 matches it
    came out negative in up to 23 % of same-seed pairs whose true correlation was
    about +0.3, research/results/calibration.md) and set to 0, conservative whenever the
    true one is not negative: the paired standard error is then the unpaired one, on
    the pairs' m − 1 degrees of freedom, so pairing never makes it the wider. Two
    seats of one table (a ladder's agents) are opposed, their covariance truly
    negative: there it stands.

    >>> a, b = [1., 2, 3, 4], [4., 3, 2, 1.5]
    >>> d = compare_units(a, None, b, None, paired=True, shared_walls=True)
    >>> d.paired_se == d.unpaired_se
    True
    >>> compare_units(a, None, b, None, paired=True).paired_se > d.unpaired_se
    True
    """
    pb = pseudo_values(base_y, base_x)
    po = pseudo_values(other_y, other_x)
    b, o = (float(p.mean()) if len(p) else math.nan for p in (pb, po))
    diff = o - b
    nan = math.nan
    se_b, se_o = mean_se(pb), mean_se(po)
    unpaired_se = math.hypot(se_b, se_o)  # NaN when either is
    both = np.concatenate([pb, po])
    scale = float(np.nanmax(np.abs(both))) if len(both) and not np.isnan(both).all() else 0.0
    if paired:
        d = po - pb
        m = len(d)
        paired_se = mean_se(d)
        if m < 2 or np.isnan(d).any():
            lo = hi = p = nan
        elif _constant(d, scale):
            paired_se = 0.0
            lo = hi = diff
            p = _certain(diff, scale)
        elif shared_walls and paired_se > unpaired_se:  # taken as 0 (see above)
            paired_se = unpaired_se
            t = t_quantile(0.5 + LEVEL / 2, m - 1)
            lo, hi = diff - t * paired_se, diff + t * paired_se
            p = float(2 * st.t.sf(abs(diff) / paired_se, m - 1))
        else:
            r = st.ttest_rel(po, pb)
            ci = r.confidence_interval(LEVEL)
            lo, hi, p = float(ci.low), float(ci.high), float(r.pvalue)
        return Difference(b, o, diff, lo, hi, p, paired_se, unpaired_se, m, True)
    if math.isnan(unpaired_se):
        lo = hi = p = nan
    elif se_b == 0 and se_o == 0:
        lo = hi = diff
        p = _certain(diff, scale)
    elif se_b == 0:  # Welch's t with one variance 0: the other side's one-sample t
        r = st.ttest_1samp(po, b)
        ci = r.confidence_interval(LEVEL)
        lo, hi, p = float(ci.low) - b, float(ci.high) - b, float(r.pvalue)
    elif se_o == 0:
        r = st.ttest_1samp(pb, o)
        ci = r.confidence_interval(LEVEL)
        lo, hi, p = o - float(ci.high), o - float(ci.low), float(r.pvalue)
    else:
        r = st.ttest_ind(po, pb, equal_var=False)
        ci = r.confidence_interval(LEVEL)
        lo, hi, p = float(ci.low), float(ci.high), float(r.pvalue)
    return Difference(b, o, diff, lo, hi, p, nan, unpaired_se, min(len(pb), len(po)), False)


def quantiles_counted(values: ArrayLike, counts: ArrayLike, qs: Iterable[float]) -> list[float]:
    """The linear quantiles ``qs`` of a sample of integers given as its distinct
    ``values`` in ascending order and how many times each occurs: DuckDB's
    ``quantile_cont`` of the whole sample, to the last bit, from the counts alone. A
    query that counts each value (a few hundred rows) then replaces one that holds
    every value (10M hands' values: ~190 MB in DuckDB).

    The two values around rank ``(n − 1)·q`` are found from the counts; between them
    DuckDB itself interpolates (``quantile_cont`` of the two at their fraction ``d``):
    its build's rounding of ``lo·(1 − d) + hi·d`` is not Python's.

    >>> quantiles_counted([1, 2, 10], [2, 1, 1], [0.0, 0.5, 0.9, 1.0])
    [1.0, 1.5, 7.600000000000001, 10.0]
    """
    import duckdb

    v = np.asarray(values, dtype=np.int64)
    ends = np.cumsum(np.asarray(counts, dtype=np.int64))  # rank after each value's last
    n = int(ends[-1]) if len(ends) else 0
    out: list[float] = []
    between: dict[int, tuple[list[int], float]] = {}  # place in out: the two values, d
    for q in qs:
        if n == 0:
            out.append(math.nan)
            continue
        rank = float(n - 1) * float(q)  # DuckDB's (n - 1)·q, in doubles
        at = [
            int(v[np.searchsorted(ends, r, side="right")])
            for r in (math.floor(rank), math.ceil(rank))
        ]
        if at[0] != at[1]:
            between[len(out)] = (at, rank - math.floor(rank))
        out.append(float(at[0]))
    if between:
        # a connection of its own, closed here: no DuckDB threads left behind in a
        # process that may fork workers next
        with duckdb.connect() as con:
            for i, (at, d) in between.items():
                (got,) = con.execute(
                    "SELECT quantile_cont(x, $d) FROM (SELECT unnest($at::BIGINT[]) AS x)",
                    {"d": d, "at": at},
                ).fetchall()[0]
                out[i] = float(got)
    return out


def hands_needed(half_width: float, hands: float, target: float) -> float:
    """Hands for a 95% interval of half-width ``target``, from one of ``half_width`` on
    ``hands`` (the standard error falls as 1/√hands, the match size kept).

    >>> hands_needed(0.2, 1000, 0.1)
    4000.0
    """
    if not (half_width > 0) or not (target > 0) or hands <= 0:
        return math.nan
    return float(math.ceil(hands * (half_width / target) ** 2))


@dataclass(frozen=True)
class Slope:
    """The change of a figure per unit of a rule key, with its 95% interval and the
    two-sided p of "no trend"; ``clusters`` it rests on (matches, counted once across
    the points that share them)."""

    slope: float
    lo: float
    hi: float
    se: float
    p: float
    clusters: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def slope(p: ArrayLike, x: ArrayLike, clusters: Iterable[Any]) -> Slope:
    """The least-squares slope of per-match pseudo-values ``p`` on the key's value
    ``x``, with a standard error clustered by ``clusters`` and a t interval on
    G − 1 degrees of freedom (statsmodels' OLS, ``cov_type="cluster"``).

    Why this estimator: the pseudo-values of each point average to its figure, so
    the slope is the line through the points' figures (each weighted by its
    matches), and one regression covers any design. Matches of one seed and index
    are one cluster: across the points they share their deal, so the points are
    not independent, and the sandwich over clusters both allows for that and lets
    the shared luck cancel out of the slope, as pairing does for one difference
    (runs of other seeds are simply clusters of one). A fit without spread (every
    point an exact line, say a key that only scales the money) is certain: its
    interval is the slope itself.
    """
    # the two names statsmodels.api re-exports, from their modules: statsmodels.api
    # imports every model it has (~39 MB of RSS), these two ~11 MB
    from statsmodels.regression.linear_model import OLS
    from statsmodels.tools.tools import add_constant

    p, x = np.asarray(p, dtype=float), np.asarray(x, dtype=float)
    codes, uniques = pd.factorize(pd.Series(list(clusters)))
    g = len(uniques)
    nan = math.nan
    if len(p) < 3 or g < 2 or np.isnan(p).any() or np.isnan(x).any() or np.ptp(x) == 0:
        return Slope(nan, nan, nan, nan, nan, g)
    model = OLS(p, add_constant(x, has_constant="add"))
    scale = float(np.abs(p).max())
    fit = model.fit()
    b = float(fit.params[1])
    if _constant(fit.resid, scale) or scale == 0:
        return Slope(b, b, b, 0.0, _certain(b * float(np.ptp(x)), scale), g)
    fit = model.fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
    var = float(fit.cov_params()[1, 1])
    if not var * float(np.ptp(x)) ** 2 > (ROUNDING * scale) ** 2:
        # every cluster's residuals cancel along x (a figure the key does not move,
        # match for match): no spread, and a variance of rounding noise, maybe below 0
        return Slope(b, b, b, 0.0, _certain(b * float(np.ptp(x)), scale), g)
    # statsmodels' t on G − 1 degrees of freedom, from the slope's variance alone
    # (its bse would take the root of the intercept's too, rounding noise maybe below 0)
    se, df = math.sqrt(var), g - 1
    half = t_quantile((1 + LEVEL) / 2, df) * se
    return Slope(b, b - half, b + half, se, float(2 * st.t.sf(abs(b) / se, df)), g)
