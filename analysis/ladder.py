"""The agent ladder read from a duplicate run: per-agent figures with 95% intervals
and the paired gaps down them. :mod:`analysis.studies.ladder` plays the run.

Each match is played once per seat rotation on the same walls (docs/rules/README.md,
"Determinism"), so every agent meets the same tiles from every seat; and, by
default, once per order of the agents after the first (:mod:`simulate.seating`),
so that no agent always plays just before another. The unit of
the confidence interval is the match (its rotations averaged), which removes
most of the wall's luck from the comparison; the interval is the t interval of
:mod:`analysis.stats`, the same as every interval of :mod:`analysis.queries`.

Two agents' intervals may overlap while one is clearly ahead: both hold the
same matches' luck. :func:`gaps` pairs them by match, the sharper test of
"is this agent better than the next one down".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import pandas as pd

from analysis.compare import same_walls
from analysis.queries import SEAT_AGENTS, Runs
from analysis.stats import compare_units, estimate
from mjlog.errors import InputError

COLUMNS = [
    "agent",
    "hands",
    "mean_points",
    "ci_low",
    "ci_high",
    "win_rate",
    "deal_in_rate",
    "mean_points_per_win",
    "mean_total_per_win",
]
"""The standings' columns; per win, as everywhere (:mod:`mjlog.metrics`), the points
each payer pays (``wins.points``, the rulebook's points, what a cap limits) and the
total over the win's payers (``wins.total``) are two figures."""
GAP_COLUMNS = ["ahead", "behind", "matches", "difference", "ci_low", "ci_high", "p"]

# one row per seat of each hand: the rows both the standings and the hand-by-hand
# pairing (changed_hands) start from. An agent is its label (analysis.agent_labels):
# two specs of one name are two agents.
_SEATS = f"""
SELECT run_id, match, rotation, hand, array_to_string(agents, ',') AS lineup, s AS seat,
       agents[s + 1] AS agent, deltas[s + 1] AS points,
       list_contains(winners, s::TINYINT) AS won
FROM (SELECT h.run_id, h.match, h.rotation, h.hand, h.players, h.deltas, h.winners,
             {SEAT_AGENTS} AS agents
      FROM read_parquet($hands) h LEFT JOIN lineups l USING (run_id)), range(0, 4) AS r(s)
WHERE s < players
"""

_PER_SEAT = f"""
WITH seats AS ({_SEATS}), w AS (
    SELECT run_id, match, rotation, hand, seat, sum(points) AS win_points, sum(total) AS win_total,
           count(*) AS n_wins
    FROM read_parquet($wins) GROUP BY ALL
), dealt AS (
    SELECT run_id, match, rotation, hand, from_seat AS seat, count(*) AS n_dealt
    FROM read_parquet($wins)
    WHERE method IN ('discard', 'robbed_kong') AND from_seat IS NOT NULL
    GROUP BY ALL
)
SELECT seats.match, seats.agent, seats.points, seats.won,
       coalesce(dealt.n_dealt, 0) > 0 AS dealt_in,
       coalesce(w.win_points, 0) AS win_points, coalesce(w.win_total, 0) AS win_total,
       coalesce(w.n_wins, 0) AS n_wins
FROM seats
LEFT JOIN w USING (run_id, match, rotation, hand, seat)
LEFT JOIN dealt USING (run_id, match, rotation, hand, seat)
"""


def _per_seat(runs: Runs) -> pd.DataFrame:
    return runs.sql(_PER_SEAT)


def _open(run: str | Path, verify: bool = True) -> Runs:
    """A ladder's runs, read through their manifests: a run directory, or a
    balanced ladder's folder of ``seating-*`` runs."""
    return Runs(Path(run), verify_hashes=verify)


def _per_match(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Each agent's points summed per match (over every seating), with its seat-hands."""
    return {
        str(agent): g.groupby("match")["points"].agg(["sum", "size"])
        for agent, g in df.groupby("agent", sort=True)
    }


def standings(run: str | Path) -> pd.DataFrame:
    """Per-agent figures of a duplicate run directory (any run works; the interval
    then treats each match as the unit all the same). An agent is its spec, by its
    label (:mod:`analysis.agent_labels`): two specs of one name are two rows."""
    return _standings(_per_seat(_open(run)))


def gaps(run: str | Path, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Each agent's lead over the next one down ``order`` (default: the standings),
    in points per hand, with a 95% interval paired by match (the matches both
    played; in a duplicate run, every match): a lead whose interval is above 0 is
    a finding even where the two agents' own intervals overlap."""
    df = _per_seat(_open(run))
    return _gaps(df, list(_standings(df)["agent"]) if order is None else list(order))


def _on_the_same_walls(run: str | Path, base: str | Path) -> list[Runs]:
    """The two runs, opened, refused unless they were dealt the same walls."""
    runs = [_open(run), _open(base)]
    if not same_walls(runs[0], runs[1]):
        raise InputError(
            f"{run} and {base} do not hold the same walls: pair runs of the "
            "same variant, seed and match size"
        )
    return runs


def lead_across(
    run: str | Path, agent: str, base: str | Path, base_agent: str | None = None
) -> dict:
    """``agent``'s points per hand in ``run`` less ``base_agent``'s (default: the same
    label; each the agent's label in its run read alone, :mod:`analysis.agent_labels`)
    in ``base``, another run of the same walls (same variant, seed and match
    size; the line-ups may differ), paired by match over the matches both played.

    Set against a twin that plays the base policy (``expert:rollouts=0`` plays
    strategic's choices and is logged as ``expert`` too) in the same seat of the
    same line-up, it measures what the agent's own difference is worth at that
    table: the walls, seats and opponents are the same, so the seating luck that
    widens the gap between two agents of one ladder (:func:`gaps`) drops out.

    Returns ``matches``, ``difference``, ``ci_low``, ``ci_high``, ``p``.
    """
    base_agent = agent if base_agent is None else base_agent
    runs = _on_the_same_walls(run, base)
    sides = []
    for path, r, name in ((run, runs[0], agent), (base, runs[1], base_agent)):
        m = _per_match(_per_seat(r))
        if name not in m:
            raise InputError(
                f"{path}: no agent {name!r} in this run (it has {', '.join(sorted(m)) or 'none'})"
            )
        sides.append(m[name])
    d = _paired(*sides)
    return {"matches": d.units, "difference": d.diff, "ci_low": d.lo, "ci_high": d.hi, "p": d.p}


_SEAT_HANDS = f"""
SELECT match, rotation, hand, lineup, seat, points FROM ({_SEATS}) WHERE agent = $agent
"""


def changed_hands(run: str | Path, agent: str, base: str | Path) -> dict:
    """Where ``agent`` in ``run`` and its namesake in ``base`` (a twin that plays
    another policy under the same name, as ``expert:rollouts=0`` does; each run read
    alone labels it by that name) part: the
    same seat of the same line-up on the same walls, hand by hand.

    Returns ``matches``, ``hands`` (seat-hands paired), ``share`` (of those whose
    points differ, with ``share_low``/``share_high``) and ``per_changed``: the
    agent's points less its twin's per changed seat-hand (``per_changed_low``/
    ``per_changed_high``), each a ratio over matches with its 95 % t interval
    (:func:`analysis.stats.estimate`, the match as the unit; the share's interval
    clipped to [0, 1]). ``share`` × ``per_changed`` is :func:`lead_across`'s
    difference: this splits it into how often the agent's choices change a hand's
    outcome and what a change is worth.
    """
    runs = _on_the_same_walls(run, base)
    keys = ["match", "rotation", "hand", "lineup", "seat"]
    sides = []
    for path, r in zip((run, base), runs, strict=True):
        df = r.sql(_SEAT_HANDS, agent=agent)
        if df.empty:
            raise InputError(f"{path}: no agent {agent!r} in this run")
        if df.duplicated(keys).any():  # two runs of one line-up: which pairs which?
            raise InputError(
                f"{path}: a line-up of {agent!r} is played twice on the same "
                "walls, so its hands cannot be paired one to one"
            )
        sides.append(df)
    both = sides[0].merge(sides[1], on=keys, suffixes=("", "_base"))
    if both.empty:
        raise InputError(
            f"{run} and {base} share no seat-hand of {agent!r}: the twin must "
            "sit in the same seats of the same line-ups"
        )
    both["diff"] = both["points"] - both["points_base"]
    both["changed"] = (both["diff"] != 0).astype(float)
    m = both.groupby("match").agg(
        n=("diff", "size"), changed=("changed", "sum"), diff=("diff", "sum")
    )
    share = estimate(m["changed"].to_numpy(float), m["n"].to_numpy(float))
    out = {
        "matches": len(m),
        "hands": len(both),
        "share": share.value,
        "share_low": max(share.lo, 0.0),
        "share_high": min(share.hi, 1.0),
    }
    names = ("per_changed", "per_changed_low", "per_changed_high")
    if m["changed"].sum():
        per = estimate(m["diff"].to_numpy(float), m["changed"].to_numpy(float))
        out.update(zip(names, (per.value, per.lo, per.hi), strict=True))
    else:  # the two played alike: no change to price
        out.update(dict.fromkeys(names, math.nan))
    return out


def _standings(df: pd.DataFrame) -> pd.DataFrame:
    per_match = _per_match(df)
    rows = []
    for agent, g in df.groupby("agent", sort=True):
        m = per_match[str(agent)]
        e = estimate(m["sum"].to_numpy(float), m["size"].to_numpy(float))
        wins = int(g["n_wins"].sum())
        rows.append(
            {
                "agent": agent,
                "hands": int(len(g)),
                "mean_points": e.value,
                "ci_low": e.lo,
                "ci_high": e.hi,
                "win_rate": float(g["won"].mean()),
                "deal_in_rate": float(g["dealt_in"].mean()),
                "mean_points_per_win": float(g["win_points"].sum() / wins) if wins else 0.0,
                "mean_total_per_win": float(g["win_total"].sum() / wins) if wins else 0.0,
            }
        )
    out = pd.DataFrame(rows, columns=COLUMNS)
    return out.sort_values("mean_points", ascending=False, ignore_index=True)


def _paired(a: pd.DataFrame, b: pd.DataFrame):
    """``a``'s points per hand less ``b``'s (:func:`_per_match` tables), paired over
    the matches both played (every match, in one duplicate run)."""
    both = a.index.intersection(b.index)
    a, b = a.loc[both], b.loc[both]
    return compare_units(
        b["sum"].to_numpy(float),
        b["size"].to_numpy(float),
        a["sum"].to_numpy(float),
        a["size"].to_numpy(float),
        paired=True,
    )


def _gaps(df: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    per_match = _per_match(df)
    rows = []
    for ahead, behind in pairwise(order):
        d = _paired(per_match[ahead], per_match[behind])
        rows.append(
            {
                "ahead": ahead,
                "behind": behind,
                "matches": d.units,
                "difference": d.diff,
                "ci_low": d.lo,
                "ci_high": d.hi,
                "p": d.p,
            }
        )
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


def tables(run: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The standings and the gaps down them, from one read of the run (just written:
    its files' hashes are not checked again)."""
    df = _per_seat(_open(run, verify=False))
    table = _standings(df)
    return table, _gaps(df, list(table["agent"]))
