"""A metric's precision on the first matches of a run: the measure ``simulate --until``
stops on (the batch layer is handed :func:`half_widths`; it measures nothing itself)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from analysis import compare, queries
from analysis.rates import metric_estimate
from mjlog.metrics import patterns_in


def half_widths(run: str | Path, metric: str, ends: Sequence[int]) -> list[float]:
    """The metric's 95% half-width on the matches [0, end) of ``run``, per end (the
    match as the unit; a rate's interval never zero-width,
    :func:`analysis.rates.metric_estimate`, as :func:`analysis.compare.precision`
    gives it): what ``simulate --until`` stops on."""
    units, pats = compare.match_units(queries.Runs(run, verify_hashes=False))
    names = patterns_in([metric])
    out = []
    for end in ends:
        u = units[units.match < end].reset_index(drop=True)
        p = pats[pats.match < end]
        y, x, unit = compare.metric_arrays(u, p, names)[metric]
        out.append(metric_estimate(y, x, unit).half_width)
    return out
