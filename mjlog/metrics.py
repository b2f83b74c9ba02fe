"""The headline metrics: one row per family, read by every command that names one.

A *metric* is a ratio of two sums over matches (the match is the unit of every
interval): ``y`` and ``x`` per match, the figure ``Σy / Σx``. A *family* is one row
of :data:`METRICS`; a family with an ``index`` has one metric per position
(``mean_points[0]``) or per pattern key (``pattern_rate[qidui]``). ``simulate
--until``, ``mjlog compare``, its verdicts (``analysis.decide``), ``mjlog plan``,
``mjlog tune``, the report and the help texts read this table; ``make docs`` writes
docs/cli.md's metric table from it (``tests/house/test_docs.py`` checks it is current).
The per-match sums themselves are computed in the reading analysis
(:attr:`Metric.computed_by`, which this core module may not import): a new family
is a row here and its arrays there, and ``tests/analysis/test_metrics.py`` checks they agree.

>>> names(2, ["qidui"])
['mean_points[0]', 'mean_points[1]', 'dealer_advantage', 'draw_rate', \
'mean_points_per_win', 'mean_total_per_win', 'money_moved_per_hand', 'pattern_rate[qidui]', \
'capped_share']
>>> family("pattern_rate[qidui]"), FAMILIES["draw_rate"].unit, margin("mean_points[2]")
('pattern_rate', 'share of hands', 0.1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "FAMILIES",
    "METRICS",
    "Metric",
    "by_unit",
    "default_margins",
    "family",
    "margin",
    "names",
    "pattern_of",
    "patterns_in",
    "plain",
    "table",
]

COMPUTED_BY = "analysis.compare.metric_arrays"
"""Where every family's per-match ``(y, x)`` arrays are computed (from the sums of
``analysis.compare.match_units``)."""


@dataclass(frozen=True)
class Metric:
    """One family of headline metrics."""

    family: str  # the name, and the name's stem when indexed: mean_points[p]
    index: str  # "" (one metric), "p" (a position after the dealer) or "KEY" (a pattern)
    unit: str  # what Σy / Σx counts: "points per …" (the variant's money) or "share of …"
    description: str  # what it measures, in a line
    margin: float  # the default equivalence margin, in the unit (mjlog compare, decide)
    per_match: str  # the (y, x) of one match
    computed_by: str = COMPUTED_BY

    @property
    def shown(self) -> str:
        """The family as a reader writes one of its metrics: ``pattern_rate[KEY]``."""
        return f"{self.family}[{self.index}]" if self.index else self.family

    @property
    def in_points(self) -> bool:
        """Whether it counts points, whose scale is its variant's (not comparable across
        variants), rather than a share."""
        return self.unit.startswith("points ")


METRICS: tuple[Metric, ...] = (
    Metric(
        "mean_points",
        "p",
        "points per seat-hand",
        "the mean points of the seat at position p after the dealer (0 = dealer); "
        "`mean_points[AGENT]`: an agent's over every seat it sat in, where a line-up "
        "mixes agents",
        0.1,
        "y = the points of the seat at position p, x = hands (one seat-hand each); "
        "per agent: its points and its seat-hands",
    ),
    Metric(
        "dealer_advantage",
        "",
        "points per hand",
        "the dealer's mean points minus the mean of the other positions'",
        0.1,
        "y = the dealer's points − the mean of the other positions' points, x = hands",
    ),
    Metric(
        "draw_rate",
        "",
        "share of hands",
        "the share of hands drawn (流局)",
        0.01,
        "y = drawn hands, x = hands",
    ),
    Metric(
        "mean_points_per_win",
        "",
        "points per payer per win",
        "what each payer pays for a win (the rulebook's points): `wins.points` per win",
        0.2,
        "y = Σ wins.points, x = wins",
    ),
    Metric(
        "mean_total_per_win",
        "",
        "points per win, all payers",
        "what a win is worth over all its payers: `wins.total` per win",
        0.5,
        "y = Σ wins.total, x = wins",
    ),
    Metric(
        "money_moved_per_hand",
        "",
        "points per hand",
        "the points that change hands, per hand",
        0.5,
        "y = Σ positive hands.deltas, x = hands",
    ),
    Metric(
        "pattern_rate",
        "KEY",
        "share of wins",
        "the share of wins carrying the pattern KEY",
        0.01,
        "y = wins carrying the pattern, x = wins",
    ),
    Metric(
        "capped_share",
        "",
        "share of wins",
        "the share of wins whose points the cap lowered",
        0.01,
        "y = capped wins, x = wins",
    ),
)
"""Every family, in the order a run's metrics are listed (:func:`names`) and
``mjlog compare`` reports them."""

FAMILIES: dict[str, Metric] = {m.family: m for m in METRICS}


def family(metric: str) -> str:
    """``mean_points[2]`` → ``mean_points``; ``pattern_rate[qidui]`` → ``pattern_rate``."""
    return metric.split("[", 1)[0]


def names(players: int, patterns: Iterable[str]) -> list[str]:
    """Every metric of a run of ``players`` players whose wins can carry ``patterns``,
    in :data:`METRICS`' order (what ``simulate --until``, ``plan`` and ``tune`` accept)."""
    patterns = list(patterns)
    out: list[str] = []
    for m in METRICS:
        if m.index == "p":
            out += [f"{m.family}[{p}]" for p in range(players)]
        elif m.index == "KEY":
            out += [f"{m.family}[{k}]" for k in patterns]
        else:
            out.append(m.family)
    return out


def plain() -> tuple[str, ...]:
    """The families of one metric each (no index), in :data:`METRICS`' order.

    >>> plain()
    ('dealer_advantage', 'draw_rate', 'mean_points_per_win', 'mean_total_per_win', \
'money_moved_per_hand', 'capped_share')
    """
    return tuple(m.family for m in METRICS if not m.index)


def pattern_of(metric: str) -> str | None:
    """The pattern key of a ``pattern_rate[KEY]`` metric, else None.

    >>> pattern_of("pattern_rate[qidui]"), pattern_of("draw_rate")
    ('qidui', None)
    """
    stem = "pattern_rate["
    return metric[len(stem) : -1] if metric.startswith(stem) and metric.endswith("]") else None


def patterns_in(metrics: Iterable[str]) -> list[str]:
    """The pattern keys named by the ``pattern_rate[KEY]`` metrics among ``metrics``."""
    return [k for k in map(pattern_of, metrics) if k is not None]


def by_unit() -> tuple[Metric, ...]:
    """The families as a reader is shown them (docs/cli.md, a refused ``--margin``):
    those counted in points first, then the shares, an indexed share last; each
    group in :data:`METRICS`' order."""
    return tuple(
        sorted(METRICS, key=lambda m: (not m.in_points, bool(m.index) and not m.in_points))
    )


def default_margins() -> dict[str, float]:
    """Each family's default equivalence margin, in :func:`by_unit` order.

    >>> default_margins()["pattern_rate"]
    0.01
    """
    return {m.family: m.margin for m in by_unit()}


def margin(metric: str) -> float:
    """The default margin of ``metric``'s family (NaN for no family of the registry)."""
    m = FAMILIES.get(family(metric))
    return m.margin if m else float("nan")


def table() -> str:
    """The metric table of docs/cli.md (``make docs``)."""
    rows = [
        "| metric | what it measures | unit | per match | default margin |",
        "|---|---|---|---|---|",
    ]
    for m in by_unit():
        rows.append(f"| `{m.shown}` | {m.description} | {m.unit} | {m.per_match} | {m.margin:g} |")
    return "\n".join(rows)
