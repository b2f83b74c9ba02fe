"""What every explored value says, pooled: a fit of each target against the keys.

Each explored trial's own figure is noisy (a few hundred hands), so the race's
candidates are not chosen by it: a trial that read high by luck would be raced, and
its neighbours that read true would not. Instead each target is fitted against the
varied keys over **all** the explored trials, and the candidates are the points
whose fitted band overlaps the target's tolerance.

**The model.** A target is taken to move monotonically with each numeric key (a
pattern's value, a cap, a base: more of the key, never less of the figure, or never
more), and the keys' effects to add up: ``y ≈ c + Σₖ fₖ(xₖ)``, each ``fₖ`` an
isotonic (monotone, otherwise free) step function of key ``k``, fitted by
backfitting (each ``fₖ`` refitted in turn to what the others leave, weighted by each
trial's denominator: its matches, or a rate's wins or hands), its direction the one
that fits the data better. A key of named values (``KEY=a|b|c``) gets one free level
each. With one key the fit is the isotonic regression of the trials' figures. The
model makes no assumption of shape beyond monotony, so it cannot invent a curve, and
pooling neighbours is what tames the noise: a lone high figure among low ones is
pulled back to its neighbours.

**Its uncertainty** is a bootstrap over matches, the match being the unit: the
trials share their walls, so each resample takes the same matches for every trial
(the walls' common deviation moves every figure together, and so widens the band),
every trial's figure is recomputed on them and the model refitted. The band is the
2.5–97.5 % percentiles of the refitted values at each point, over draws seeded from
the plan's seed (:func:`analysis.studies.tune.study.derived_seed`): a rerun or a
resumed tune fits the same band.

>>> import numpy as np
>>> from analysis.studies.tune.grammar import parse_target, parse_vary
>>> from analysis.studies.tune.measuring import Measured
>>> v = parse_vary(["base=1:4"], "yuxi")
>>> rng = np.random.default_rng(0)
>>> def run(mean):
...     y = rng.normal(mean, 1.0, 200)
...     return Measured({"m": (y, None)}, 200)
>>> f = fitted(v, [{"base": b} for b in (1, 2, 3, 4)], [run(0), run(1), run(5), run(3)], ["m"], 1)
>>> f.value["m"].round(1).tolist()  # the lone high 3rd pooled with the 4th
[0.0, 0.9, 4.0, 4.0]
>>> f.plausible([parse_target("m=4±0.5")])
[2, 3]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.studies.tune.grammar import Target, Vary
from analysis.studies.tune.measuring import Measured

DRAWS = 200
"""Bootstrap draws of the fit's band: the band only admits candidates to the race,
whose own fresh hands then rank them, so a coarse percentile does no harm."""
MOVED = 0.01
"""The chance a key no target responds to is called moved (its slope's interval is
``1 − MOVED``). Measured (research/results/tune_calibration.md, two keys, 清一色
moving nothing): at 0.05 it was kept 95.0 % [92.7, 96.6] of 500 tunes; at 0.01,
98.5 % of 200, with the proposals' other figures unchanged."""
SWEEPS = 25
"""Backfitting passes over the keys (one is exact for one key; a few settle two)."""


@dataclass(frozen=True)
class Fit:
    """The fitted figures at each point: ``value[metric][i]`` with its band
    ``lo``/``hi`` (95 % bootstrap percentiles) at point ``i``."""

    value: dict[str, np.ndarray]
    lo: dict[str, np.ndarray]
    hi: dict[str, np.ndarray]
    #: The refitted values of each bootstrap draw (draws × points), per metric.
    draws: dict[str, np.ndarray]

    def plausible(self, targets: Sequence[Target]) -> list[int]:
        """The points whose fitted band overlaps every target's tolerance."""
        n = len(next(iter(self.value.values()))) if self.value else 0
        return [i for i in range(n) if all(self._overlaps(t, i) for t in targets)]

    def _overlaps(self, t: Target, i: int) -> bool:
        lo, hi = self.lo[t.metric][i], self.hi[t.metric][i]
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return False
        if t.op == "=":
            return bool(lo <= t.value + (t.tol or 0.0) and hi >= t.value - (t.tol or 0.0))
        return bool(lo <= t.value) if t.op == "<=" else bool(hi >= t.value)

    def loss(self, targets: Sequence[Target], i: int) -> float:
        """The loss of point ``i``'s fitted figures (:func:`measuring.loss`'s sum)."""
        return fitted_loss(targets, self.value, i)

    def rows(self, trials: Sequence[int]) -> list[dict[str, Any]]:
        """The fit as the journal keeps it: one row per point (``trials[i]``) and
        metric, rounded to 6 significant figures."""
        return [
            {
                "trial": k,
                "metric": m,
                "fit": _round(self.value[m][i]),
                "lo": _round(self.lo[m][i]),
                "hi": _round(self.hi[m][i]),
            }
            for m in self.value
            for i, k in enumerate(trials)
        ]


def fitted_loss(targets: Sequence[Target], value: Mapping[str, np.ndarray], i: int) -> float:
    """The loss (:func:`measuring.loss`'s sum) of the fitted figures ``value`` at point ``i``."""
    v = [float(value[t.metric][i]) for t in targets]
    if not all(np.isfinite(v)):
        return float("inf")
    return float(sum(t.weight * t.miss(x) ** 2 for t, x in zip(targets, v, strict=True)))


def _round(x: float) -> float | None:
    return float(f"{x:.6g}") if np.isfinite(x) else None


def fitted(
    vary: Sequence[Vary],
    points: Sequence[Mapping[str, Any]],
    measured: Sequence[Measured],
    metrics: Sequence[str],
    seed: int,
    draws: int = DRAWS,
) -> Fit:
    """Each metric fitted against the keys of ``vary`` over the points ``points``
    (each played as ``measured[i]`` on the same walls), with its bootstrap band."""
    xs, numeric, n = _design(vary, points, measured, metrics)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (draws, n))
    value, lo, hi, boots = {}, {}, {}, {}
    for metric in metrics:
        signs, value[metric] = _point_fit(measured, metric, n, xs, numeric)
        ys, ws = _figures(measured, metric, idx)
        boot = _additive(ys, ws, xs, signs)  # every draw at once
        lo[metric], hi[metric] = np.quantile(boot, [0.025, 0.975], axis=0)
        boots[metric] = boot
    return Fit(value, lo, hi, boots)


def fitted_values(
    vary: Sequence[Vary],
    points: Sequence[Mapping[str, Any]],
    measured: Sequence[Measured],
    metrics: Sequence[str],
) -> dict[str, np.ndarray]:
    """The fit alone, without its band: each metric's fitted figure at each point
    (the race's ranking: its candidates on its own matches)."""
    xs, numeric, n = _design(vary, points, measured, metrics)
    return {m: _point_fit(measured, m, n, xs, numeric)[1] for m in metrics}


def _design(
    vary: Sequence[Vary],
    points: Sequence[Mapping[str, Any]],
    measured: Sequence[Measured],
    metrics: Sequence[str],
) -> tuple[list[np.ndarray], list[bool], int]:
    """Each key's positions of the points, whether it is numeric, and the matches
    every point was measured on (the fewest)."""
    xs = [_positions(v, points) for v in vary]
    n = min(len(m.arrays[metrics[0]][0]) for m in measured)
    return xs, [v.numeric for v in vary], n


def _point_fit(
    measured: Sequence[Measured],
    metric: str,
    n: int,
    xs: list[np.ndarray],
    numeric: list[bool],
) -> tuple[list[int], np.ndarray]:
    """One metric's fit on all ``n`` matches: its directions and its fitted figures."""
    y, w = _figures(measured, metric, np.arange(n)[None, :])
    signs = _directions(y[0], w[0], xs, numeric)
    return signs, _additive(y[0], w[0], xs, signs)


def moved(
    vary: Sequence[Vary],
    points: Sequence[Mapping[str, Any]],
    measured: Sequence[Measured],
    metrics: Sequence[str],
    seed: int,
    draws: int = DRAWS,
) -> dict[str, bool]:
    """Per key, whether some target is shown to respond to it: the slope of a
    weighted linear fit of the trials' figures on every numeric key at once has a
    99 % bootstrap interval (:data:`MOVED`; the same matches resampled for every
    trial, as the band's) that excludes 0. A key whose effect on every target is indistinguishable
    from zero is not moved (:meth:`Tuner.race` holds it at the rulebook's value). The
    slope, not the isotonic fit: a monotone fit of pure noise always finds some rise,
    a slope's interval covers 0 as often as it should. A key of named values, or
    one whose trials all share one value, is left to the race (True).

    >>> from analysis.studies.tune.grammar import parse_vary
    >>> v = parse_vary(["base=1:4", "fan.qidui=10:40:10"], "huangmei")
    >>> rng = np.random.default_rng(1)
    >>> pts = [{"base": b, "fan.qidui": q} for b in (1, 2, 3, 4) for q in (10, 20, 30, 40)]
    >>> runs = [Measured({"m": (p["base"] + rng.normal(0, 1, 100), None)}, 100) for p in pts]
    >>> moved(v, pts, runs, ["m"], 0)
    {'base': True, 'fan.qidui': False}
    """
    xs = [_positions(v, points) for v in vary]
    cols = [k for k, v in enumerate(vary) if v.numeric and np.ptp(xs[k]) > 0]
    out = {v.key: not v.numeric or bool(np.ptp(xs[k]) == 0) for k, v in enumerate(vary)}
    if not cols:
        return out
    n = min(len(m.arrays[metrics[0]][0]) for m in measured)
    rng = np.random.default_rng(seed)
    idx = np.vstack([np.arange(n)[None, :], rng.integers(0, n, (draws, n))])
    design = np.column_stack([np.ones(len(points)), *(xs[k] for k in cols)])
    for metric in metrics:
        ys, ws = _figures(measured, metric, idx)
        scale = float(np.max(np.abs(ys[0]))) if len(ys[0]) else 0.0
        slopes = np.array([_slopes(design, ys[d], ws[d]) for d in range(1, len(idx))])
        lo, hi = np.quantile(slopes, [MOVED / 2, 1 - MOVED / 2], axis=0)
        # figures that agree to rounding (a key no hand reads) have no slope at all
        eps = 1e-9 * max(scale, 1e-12) / max(float(np.ptp(design[:, 1:])), 1.0)
        for c, k in enumerate(cols):
            if lo[c] > eps or hi[c] < -eps:
                out[vary[k].key] = True
    return out


def _slopes(design: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted least-squares slopes of ``y`` on the design's key columns."""
    sw = np.sqrt(np.maximum(w, 0.0))
    coef, *_ = np.linalg.lstsq(design * sw[:, None], y * sw, rcond=None)
    return coef[1:]


def _positions(v: Vary, points: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Each point's place on key ``v``: its number (a pair's sum), or for named values
    the value's rank among those seen."""
    vals = [p[v.key] for p in points]
    if v.numeric:
        return np.array([sum(x) if isinstance(x, tuple) else float(x) for x in vals], float)
    seen = list(dict.fromkeys(vals))
    return np.array([seen.index(x) for x in vals], float)


def _figures(
    measured: Sequence[Measured], metric: str, idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each point's figure on each row of matches ``idx`` (draws × n) and its weight
    (the denominator: a rate's total, or the matches): arrays of draws × points. A
    figure without a denominator weighs nothing."""
    ys, ws = [], []
    for m in measured:
        y, x = m.arrays[metric]
        if x is None:
            ys.append(y[idx].mean(axis=1))
            ws.append(np.full(len(idx), float(idx.shape[1])))
        else:
            den = x[idx].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                ys.append(np.where(den > 0, y[idx].sum(axis=1) / den, 0.0))
            ws.append(den.astype(float))
    y2, w2 = np.array(ys).T, np.array(ws).T
    bad = ~np.isfinite(y2)
    return np.where(bad, 0.0, y2), np.where(bad, 0.0, w2)


def _directions(
    y: np.ndarray, w: np.ndarray, xs: Sequence[np.ndarray], numeric: Sequence[bool]
) -> list[int]:
    """Per key, +1 (the figure rises with it) or −1 (falls), as fits the data better
    (0 for a key of named values: free levels). Fixed once, on all the matches."""
    signs = [0 if not num else 1 for num in numeric]
    for k, num in enumerate(numeric):
        if not num:
            continue
        best = None
        for s in (1, -1):
            trial = [*signs[:k], s, *signs[k + 1 :]]
            fit = _additive(y, w, xs, trial)
            sse = float(np.sum(w * (y - fit) ** 2))
            if best is None or sse < best[0] - 1e-12:
                best = (sse, s)
        assert best is not None
        signs[k] = best[1]
    return signs


def _additive(
    y: np.ndarray, w: np.ndarray, xs: Sequence[np.ndarray], signs: Sequence[int]
) -> np.ndarray:
    """The additive fit ``c + Σ fₖ(xₖ)`` at the points, by backfitting: of one row of
    figures ``y`` (weights ``w``), or of each row of a draws × points array at once
    (the bootstrap's draws refitted together: the study's reading between runs is on
    one core while the workers wait)."""
    one = y.ndim == 1
    y2, w2 = np.atleast_2d(y), np.atleast_2d(w)
    total = w2.sum(axis=1)
    ok = total > 0
    safe = np.where(ok, total, 1.0)[:, None]
    c = np.sum(w2 * y2, axis=1)[:, None] / safe
    parts = np.zeros((len(xs), *y2.shape))
    for _ in range(SWEEPS if len(xs) > 1 else 1):
        for k, x in enumerate(xs):
            rest = y2 - c - (np.sum(parts, axis=0) - parts[k])
            f = _one(rest, w2, x, signs[k])
            parts[k] = f - np.sum(w2 * f, axis=1)[:, None] / safe
    out = np.where(ok[:, None], c + np.sum(parts, axis=0), np.nan)
    return out[0] if one else out


def _one(r: np.ndarray, w: np.ndarray, x: np.ndarray, sign: int) -> np.ndarray:
    """Each row of ``r`` (draws × points) fitted against one key: monotone in ``x``
    (``sign``), or a free level per value (``sign`` 0), weighted by ``w``; at each
    point."""
    levels, inv = np.unique(x, return_inverse=True)
    member = (inv[:, None] == np.arange(len(levels))[None, :]).astype(float)  # points × levels
    wl = w @ member
    with np.errstate(invalid="ignore", divide="ignore"):
        rl = np.where(wl > 0, ((w * r) @ member) / wl, 0.0)
    if sign and len(levels) > 1:
        rl = sign * _monotone(sign * rl, wl, levels)
    return rl[:, inv]


def _monotone(y: np.ndarray, w: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Each row's non-decreasing fit (:func:`isotonic`) over the levels of positive
    weight, every row at once: ``g_i = max over a ≤ i of min over b ≥ i`` of the
    weighted mean of levels ``a … b`` (the min–max form of the isotonic regression,
    exact). A level without weight takes its neighbours' value (linearly, by level).

    >>> y = np.array([[1.0, 3.0, 2.0, 4.0], [4.0, 3.0, 2.0, 1.0]])
    >>> _monotone(y, np.ones_like(y), np.arange(4.0)).tolist()
    [[1.0, 2.5, 2.5, 4.0], [2.5, 2.5, 2.5, 2.5]]
    """
    keep = w > 0
    cw = np.concatenate([np.zeros((len(y), 1)), np.cumsum(w, axis=1)], axis=1)
    cy = np.concatenate([np.zeros((len(y), 1)), np.cumsum(w * y, axis=1)], axis=1)
    span_w = cw[:, None, 1:] - cw[:, :-1, None]  # [row, a, b]: the weight of a … b
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (cy[:, None, 1:] - cy[:, :-1, None]) / span_w
    n = y.shape[1]
    ends = keep[:, :, None] & keep[:, None, :] & np.triu(np.ones((n, n), bool))[None]
    # for each a and i: min over b >= i (b kept) of mean(a, b)
    high = np.where(ends, mean, np.inf)
    tail = np.minimum.accumulate(high[:, :, ::-1], axis=2)[:, :, ::-1]  # [row, a, i]
    low = np.where(keep[:, :, None] & np.tril(np.ones((n, n), bool)).T[None], tail, -np.inf)
    g = np.max(low, axis=1)  # [row, i]: max over a <= i (a kept)
    if not keep.all():
        for d in np.flatnonzero(~keep.all(axis=1)):
            k = keep[d]
            g[d, ~k] = np.interp(levels[~k], levels[k], g[d, k]) if k.any() else 0.0
    return g


def isotonic(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The non-decreasing sequence nearest ``y`` in weighted least squares (pool
    adjacent violators; scipy has it only from 1.12, the project asks for 1.11).

    >>> isotonic(np.array([1.0, 3.0, 2.0, 4.0]), np.array([1.0, 1.0, 1.0, 1.0])).tolist()
    [1.0, 2.5, 2.5, 4.0]
    """
    blocks: list[list[float]] = []  # [mean, weight, count]
    for v, wt in zip(y.tolist(), w.tolist(), strict=True):
        blocks.append([v, wt, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            wt = w1 + w2
            blocks.append([(m1 * w1 + m2 * w2) / wt if wt > 0 else (m1 + m2) / 2, wt, n1 + n2])
    return np.repeat([b[0] for b in blocks], [int(b[2]) for b in blocks]).astype(float)
