"""Least change, a tie-break: the distance of a candidate to the rulebook, and whether
no varied key moved a target at all.

The proposal is the candidate whose fitted figures lie nearest the targets (the
race's own pooled fit, :meth:`analysis.studies.tune.Tuner.race`). Only among the
candidates that fit cannot tell apart (the same fitted loss: pooled into one step)
does the change count: the rules as they are win when they are among them (no
change is proposed), else the one nearest the targets on the race's own figures,
then the least :func:`distance`. It was once a preference among every candidate
a paired bootstrap could not tell from the best; on emulated tunes that proposed
the rulebook's 七对 15, truly outside the tolerance, in 27–38 % of tunes
(research/results/tune_calibration.md). A key no target responds to is held at
the rulebook's value with evidence before the race
(:func:`analysis.studies.tune.fit.moved`).

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

from analysis.studies.tune.grammar import Vary
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
