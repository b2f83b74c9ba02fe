"""Measuring a candidate: its figures per match, its loss, and a target judged.

The loss a candidate is ranked by is ``Σ wᵢ · (missᵢ / scaleᵢ)²`` over the targets
(:meth:`Target.miss <analysis.studies.tune.grammar.Target.miss>`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis import compare, queries
from analysis.stats import LEVEL, estimate
from analysis.studies.tune.grammar import Target
from mjlog.judgement import INTERVAL, met, of_target
from mjlog.metrics import patterns_in


# ------------------------------------------------------------------ measuring a run
@dataclass
class Measured:
    """One candidate's figures: per metric the per-match (y, x) arrays (the unit of
    every interval and of the paired bootstrap) and the estimate."""

    arrays: dict[str, tuple[np.ndarray, np.ndarray | None]]
    hands: int
    units: dict[str, str] = dataclasses.field(default_factory=dict)  # metric → its unit
    #: Of ``hands``, those played (the rest settled from logged play: Study._run).
    played: int = -1

    def __post_init__(self) -> None:
        if self.played < 0:
            self.played = self.hands

    def value(self, metric: str) -> float:
        y, x = self.arrays[metric]
        return (
            float(y.sum() / x.sum())
            if x is not None and x.sum()
            else (float(y.mean()) if x is None and len(y) else math.nan)
        )

    def merged(self, other: Measured) -> Measured:
        def cat(a, b):
            return None if a is None else np.concatenate([a, b])

        return Measured(
            {
                m: (np.concatenate([y, other.arrays[m][0]]), cat(x, other.arrays[m][1]))
                for m, (y, x) in self.arrays.items()
            },
            self.hands + other.hands,
            self.units,
            self.played + other.played,
        )

    def judge(self, t: Target) -> dict[str, Any]:
        """``t`` judged on these matches (:func:`judge`)."""
        return judge(t, *self.arrays[t.metric], self.units.get(t.metric, ""))


def measure(run: str | Path, metrics: Sequence[str], verify: bool = True) -> Measured:
    """The figures ``metrics`` of one run, per match (a pattern that never occurred
    is a rate of 0 on every match, not a missing figure). ``verify=False`` skips the
    files' sha256: only for a run this process just wrote."""
    # closed on return: the study forks the next run's workers right after
    with queries.Runs(run, verify_hashes=verify) as runs:
        units, pats = compare.match_units(runs)
    units = units.sort_values("match").reset_index(drop=True)
    patterns = patterns_in(metrics)
    arrays = compare.metric_arrays(units, pats, patterns)
    out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    unit_of = {}
    for m in metrics:
        y, x, unit = arrays[m]
        out[m] = (np.asarray(y, float), None if x is None else np.asarray(x, float))
        unit_of[m] = unit
    return Measured(out, int(units["hands"].sum()), unit_of)


def loss(targets: Sequence[Target], m: Measured) -> float:
    return float(sum(t.weight * t.miss(m.value(t.metric)) ** 2 for t in targets))


def boot_best(
    targets: Sequence[Target], cands: Sequence[Measured], seed: int, draws: int = 400
) -> np.ndarray:
    """How often each candidate has the lowest loss over paired bootstrap resamples of
    the matches (the candidates share their walls, so a resample takes the same
    matches for all). Candidates tied for the lowest share that resample: two that
    the targets cannot tell apart are never "clearly best"."""
    n = min(len(c.arrays[targets[0].metric][0]) for c in cands)
    rng = np.random.default_rng(seed)
    wins = np.zeros(len(cands))
    for _ in range(draws):
        idx = rng.integers(0, n, n)
        ls = []
        for c in cands:
            total = 0.0
            for t in targets:
                y, x = c.arrays[t.metric]
                v = (y[idx].sum() / x[idx].sum()) if x is not None else y[idx].mean()
                total += t.weight * t.miss(float(v)) ** 2 if np.isfinite(v) else math.inf
            ls.append(total)
        best = np.flatnonzero(np.asarray(ls) == min(ls))
        wins[best] += 1 / len(best)
    return wins / draws


def same_figures(a: Measured, b: Measured) -> bool:
    """Whether two candidates' figures agree on every match, for every target."""
    return all(
        np.array_equal(ya, yb) and (xa is None or (xb is not None and np.array_equal(xa, xb)))
        for (ya, xa), (yb, xb) in zip(a.arrays.values(), b.arrays.values(), strict=True)
    )


# ------------------------------------------------------------------ judging a target
def judge(t: Target, y: np.ndarray, x: np.ndarray | None, unit: str = "") -> dict[str, Any]:
    """A target tested on the confirmation's matches (:func:`mjlog.judgement.of_target`,
    the test ``compare`` calls equivalence): its value with its 95 % interval
    (``lo``, ``hi``: what the figure is known to, as every interval shown; a rate's
    never zero-width, :func:`analysis.rates.metric_estimate`), and the 90 % one the
    verdict reads (``judged_lo``, ``judged_hi``: each one-sided test at α = 5 %).
    ``met``: ``true`` when that interval lies inside the tolerance (``V ± T``: two
    one-sided tests, TOST; ``<= V``: its upper bound at most ``V``), ``false`` when it
    lies wholly outside, else ``null`` (inconclusive).

    >>> from analysis.studies.tune.grammar import parse_target
    >>> y = np.array([5.9, 6.3, 6.0, 6.2, 5.8, 6.1])
    >>> row = judge(parse_target("money_moved_per_hand=6±0.5"), y, None)
    >>> row["verdict"], row["met"], row["lo"] < row["judged_lo"]
    (<Verdict.MET: 'met'>, True, True)
    """
    from analysis.rates import metric_estimate

    def at(level: float) -> Any:
        return metric_estimate(y, x, unit, level) if x is not None else estimate(y, x, level)

    e, judged = at(LEVEL), at(INTERVAL)
    verdict = of_target(judged.lo, judged.hi, t.op, t.value, t.tol)
    return {
        "metric": t.metric,
        "op": t.op,
        "target": t.value,
        "tol": t.tol,
        "value": e.value,
        "lo": e.lo,
        "hi": e.hi,
        "judged_lo": judged.lo,
        "judged_hi": judged.hi,
        "matches": e.units,
        "met": met(verdict),
        "verdict": verdict,
    }
