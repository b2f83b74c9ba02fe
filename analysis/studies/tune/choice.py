"""Least change: among the candidates the evidence cannot tell apart on the targets,
the one closest to the rulebook.

A candidate is **told apart** from the best (the lowest loss on all its hands) when,
on some target, the paired difference of their figures (the same matches, resampled
together: :func:`apart`) has a 95 % bootstrap interval that excludes 0. The others are
**close**: the data cannot say which of them the targets prefer, so the proposal is
the close candidate with the least :func:`distance` to the rules as they are — the
rulebook itself when it is close (then no change is proposed), and a key no target
responds to keeps its rulebook value.

The distance of a point to the rulebook is ``(keys changed, Σ |Δ|/span)``, compared
in that order: first how many keys differ, then how far they moved, each key's move
as a share of the span of its searched values and its rulebook value (a
self-draw/discard pair: both numbers; a key of named values: 1 when it differs).

>>> from analysis.studies.tune.grammar import parse_vary
>>> v = parse_vary(["base=1:10"], "yuxi")
>>> distance(v, {"base": 4}, {"base": 1}), distance(v, {"base": 1}, {"base": 1})
((1, 0.3333), (0, 0.0))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from analysis.studies.tune.grammar import Target, Vary
from analysis.studies.tune.measuring import Measured


def _numbers(value: Any) -> tuple[float, ...]:
    if isinstance(value, tuple):
        return tuple(float(x) for x in value)
    return (float(value),)


def distance(
    vary: Sequence[Vary], point: Mapping[str, Any], rule: Mapping[str, Any]
) -> tuple[int, float]:
    """How far ``point`` lies from the rulebook ``rule``: ``(keys changed, Σ |Δ|/span)``."""
    changed, moved = 0, 0.0
    for v in vary:
        a, b = point[v.key], rule[v.key]
        if a == b:
            continue
        changed += 1
        if not v.numeric:
            moved += 1.0
            continue
        na, nb = _numbers(a), _numbers(b)
        span = [_numbers(x) for x in (*v.values, b)]
        for i in range(len(na)):
            width = max(s[i] for s in span) - min(s[i] for s in span)
            moved += abs(na[i] - nb[i]) / width / len(na) if width else 0.0
    return changed, round(moved, 4)


def apart(
    targets: Sequence[Target], a: Measured, b: Measured, seed: int, draws: int = 400
) -> list[str]:
    """The targets on which ``a`` and ``b`` are told apart: the 95 % paired bootstrap
    interval of their difference (the same matches resampled for both) excludes 0.
    Candidates whose figures agree on every match are apart on none."""
    n = min(len(a.arrays[t.metric][0]) for t in targets)
    n = min(n, *(len(b.arrays[t.metric][0]) for t in targets))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (draws, n))
    out = []
    for t in targets:
        diffs = _values(a, t.metric, idx) - _values(b, t.metric, idx)
        diffs = diffs[np.isfinite(diffs)]
        if not len(diffs):
            continue
        lo, hi = np.quantile(diffs, [0.025, 0.975])
        if lo > 0 or hi < 0:
            out.append(t.metric)
    return out


def _values(m: Measured, metric: str, idx: np.ndarray) -> np.ndarray:
    y, x = m.arrays[metric]
    with np.errstate(invalid="ignore", divide="ignore"):
        if x is None:
            return y[idx].mean(axis=1)
        return y[idx].sum(axis=1) / x[idx].sum(axis=1)


def same_everywhere(ms: Sequence[Measured], metric: str) -> bool:
    """Whether every candidate reads the same figure on every match for ``metric``
    (no varied key moved it)."""
    first = ms[0].arrays[metric]
    n = min(len(m.arrays[metric][0]) for m in ms)
    return all(_same(m.arrays[metric], first, n) for m in ms[1:])


def _same(a: tuple[Any, Any], b: tuple[Any, Any], n: int) -> bool:
    """Whether two candidates' (y, x) per-match arrays agree on the first ``n`` matches."""
    if not np.array_equal(a[0][:n], b[0][:n]):
        return False
    return a[1] is None or b[1] is None or np.array_equal(a[1][:n], b[1][:n])
