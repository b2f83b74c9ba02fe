"""The agent ladder: duplicate matches, then per-agent figures with 95% intervals.

Each match is played once per seat rotation on the same walls (docs/rules/README.md,
"Determinism"), so every agent meets the same tiles from every seat. The unit of
the confidence interval is the match (its rotations averaged), which removes
most of the wall's luck from the comparison; the interval is the t interval of
:mod:`analysis.stats`, the same as every interval of :mod:`analysis.queries`.

>>> import tempfile
>>> t = ladder("yuxi", ["greedy", "random", "greedy", "random"], hands=32, seed=3,
...            workers=1, out=tempfile.mkdtemp())
>>> list(t.columns)
['agent', 'hands', 'mean_points', 'ci_low', 'ci_high', 'win_rate', 'deal_in_rate', \
'mean_points_per_win']
>>> sorted(t["agent"])
['greedy', 'random']
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import duckdb
import pandas as pd

from analysis.stats import estimate
from simulate.runner import RunSpec, simulate

COLUMNS = ["agent", "hands", "mean_points", "ci_low", "ci_high", "win_rate", "deal_in_rate",
           "mean_points_per_win"]

_PER_SEAT = """
WITH h AS (
    SELECT match, rotation, hand, agents, deltas, winners, players
    FROM read_parquet($hands)
), seats AS (
    SELECT h.match, h.rotation, h.hand, s AS seat, h.agents[s + 1] AS agent,
           h.deltas[s + 1] AS points, list_contains(h.winners, s::TINYINT) AS won
    FROM h, range(0, 4) AS r(s)
    WHERE s < h.players
), w AS (
    SELECT match, rotation, hand, seat, sum(total) AS win_total, count(*) AS n_wins
    FROM read_parquet($wins) GROUP BY ALL
), dealt AS (
    SELECT match, rotation, hand, from_seat AS seat, count(*) AS n_dealt
    FROM read_parquet($wins)
    WHERE method IN ('discard', 'robbed_kong') AND from_seat IS NOT NULL
    GROUP BY ALL
)
SELECT seats.match, seats.agent, seats.points, seats.won,
       coalesce(dealt.n_dealt, 0) > 0 AS dealt_in,
       coalesce(w.win_total, 0) AS win_total, coalesce(w.n_wins, 0) AS n_wins
FROM seats
LEFT JOIN w USING (match, rotation, hand, seat)
LEFT JOIN dealt USING (match, rotation, hand, seat)
"""


def standings(run: str | Path) -> pd.DataFrame:
    """Per-agent figures of a duplicate run directory (any run works; the interval
    then treats each match as the unit all the same)."""
    run = Path(run)
    params = {"hands": str(run / "hands" / "*.parquet"), "wins": str(run / "wins" / "*.parquet")}
    df = duckdb.execute(_PER_SEAT, params).df()
    rows = []
    for agent, g in df.groupby("agent", sort=True):
        per_match = g.groupby("match")["points"].agg(["sum", "size"])
        e = estimate(per_match["sum"].to_numpy(float), per_match["size"].to_numpy(float))
        wins = int(g["n_wins"].sum())
        rows.append({
            "agent": agent, "hands": int(len(g)), "mean_points": e.value,
            "ci_low": e.lo, "ci_high": e.hi,
            "win_rate": float(g["won"].mean()), "deal_in_rate": float(g["dealt_in"].mean()),
            "mean_points_per_win": float(g["win_total"].sum() / wins) if wins else 0.0,
        })
    out = pd.DataFrame(rows, columns=COLUMNS)
    return out.sort_values("mean_points", ascending=False, ignore_index=True)


def ladder(variant: str, agents: Sequence[str], hands: int, seed: int = 0,
           hands_per_match: int = 8, sets: Sequence[str] = (), workers: int | None = None,
           out: str | Path | None = None, progress: bool | None = False) -> pd.DataFrame:
    """Play at least ``hands`` duplicate hands with this line-up and rank the agents."""
    probe = RunSpec.build(variant, seed, 1, hands_per_match, agents, sets=sets, duplicate=True)
    per_match = probe.rotations * hands_per_match
    matches = max(1, -(-hands // per_match))
    spec = RunSpec.build(variant, seed, matches, hands_per_match, agents, sets=sets,
                         duplicate=True, events=False)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="mjlog-ladder-") as d:
            simulate(spec, d, workers=workers, progress=progress)
            return standings(d)
    simulate(spec, out, workers=workers, progress=progress)
    return standings(out)
