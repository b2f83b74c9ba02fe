"""The per-match sums every headline figure is a ratio of, kept in DuckDB.

:class:`MatchSums` reads a :class:`~analysis.queries.Runs` once (hands, then wins)
into two DuckDB temp tables of one row per match (and per match and pattern), and
hands out one column at a time as a numpy array, in the order of
:func:`analysis.compare.match_units` (runs as given, then match). A 10M-hand run is
1.25M matches: its two dozen sums as pandas columns would be a few hundred MB
held for the whole command, where one figure's arrays are a few tens of MB held
while its interval is computed. DuckDB keeps the tables under its memory limit and
spills the rest (:data:`analysis.queries.MEMORY_LIMIT`). ``mjlog compare`` copies each
side's hands and wins first (:data:`analysis.compare.DEAL_COPY`): the sums read those
copies, and the join of the two sides' deals reads them again, not the files.

>>> from analysis.queries import Runs
>>> from analysis.studies.sample import data_dir
>>> s = MatchSums(Runs(data_dir() / "yuxi"))
>>> len(s), int(s.column("hands").sum()) == s.runs.runs[0].hands
(375, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.queries import GROUP, Runs

__all__ = ["SUMS", "MatchSums", "Metrics"]

SUMS = (
    "hands",
    "players",
    "draws",
    "moved",
    "pts0",
    "pts1",
    "pts2",
    "pts3",
    "wins",
    "win_total",
    "win_points",
    "capped",
)
"""The per-match sums (:func:`analysis.compare.match_units` names them)."""

_RUN = "(list_position($ids, run_id::VARCHAR) - 1)::INT"
"""SQL: a row's run as its place among the runs given (their order, then match)."""


class MatchSums:
    """Per match of ``runs`` (one row each, runs in order, then match): the
    :data:`SUMS`, ``seed0`` (the seed of its first hand) and the wins carrying each
    pattern, in DuckDB; :meth:`column` and :meth:`pattern` fetch one as an array.
    Made once per ``runs`` (:meth:`of`)."""

    def __init__(self, runs: Runs):
        self.runs = runs
        ids = [r.run_id for r in runs.runs]
        pts = ", ".join(
            f"coalesce(sum(CASE WHEN {p} < players "
            f"THEN deltas[(dealer + {p}) % players + 1] ELSE 0 END), 0)::BIGINT AS pts{p}"
            for p in range(4)
        )
        # each position after the dealer summed per match in DuckDB (exact integer sums);
        # ORDER BY fixes the table's order, which every scan of it keeps
        runs._execute(
            f"""CREATE OR REPLACE TABLE match_sums AS
            WITH h AS (
                SELECT {_RUN} AS run, match, count(*) AS hands, max(players) AS players,
                       count(*) FILTER (WHERE outcome = 'draw') AS draws,
                       sum(list_sum(list_transform(deltas, lambda d: greatest(d, 0))))::BIGINT
                           AS moved,
                       {pts},
                       any_value(hand_seed) FILTER (WHERE hand = 0 AND rotation = 0) AS seed0
                FROM read_parquet($hands) GROUP BY ALL),
            w AS (
                SELECT {_RUN} AS run, match, count(*) AS wins, sum(total)::BIGINT AS win_total,
                       sum(points)::BIGINT AS win_points, count(*) FILTER (WHERE capped) AS capped
                FROM read_parquet($wins) GROUP BY ALL)
            SELECT h.run, h.match, h.hands, h.players, h.draws, h.moved, h.pts0, h.pts1, h.pts2,
                   h.pts3, coalesce(w.wins, 0) AS wins, coalesce(w.win_total, 0) AS win_total,
                   coalesce(w.win_points, 0) AS win_points, coalesce(w.capped, 0) AS capped,
                   h.seed0
            FROM h LEFT JOIN w USING (run, match) ORDER BY h.run, h.match""",
            {"ids": ids},
        )
        runs._execute(
            f"""CREATE OR REPLACE TABLE match_pats AS
            SELECT run, match, pattern, count(*) AS with_
            FROM (SELECT {_RUN} AS run, match, unnest(list_distinct(patterns)) AS pattern
                  FROM read_parquet($wins))
            GROUP BY ALL ORDER BY ALL""",
            {"ids": ids},
        )
        got = runs.con.execute("SELECT run, match FROM match_sums").fetchnumpy()
        self.run: np.ndarray = np.asarray(got["run"], dtype=np.int32)
        """Each row's run (its place in ``runs.runs``)."""
        self.match: np.ndarray = np.asarray(got["match"], dtype=np.int64)
        del got
        self.patterns: list[str] = [
            str(p)
            for (p,) in runs.con.execute(
                "SELECT DISTINCT pattern FROM match_pats ORDER BY pattern"
            ).fetchall()
        ]
        """The patterns some win carried."""

    @classmethod
    def of(cls, runs: Runs) -> MatchSums:
        """The sums of ``runs``, read once and kept on it."""
        cache = runs.__dict__.setdefault("_cache", {})
        if "match_sums" not in cache:
            cache["match_sums"] = cls(runs)
        got: MatchSums = cache["match_sums"]
        return got

    table = "match_sums"
    """The DuckDB temp table (with ``match_pats``) the sums are kept in."""

    def __len__(self) -> int:
        return len(self.run)

    def column(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """The sum ``name`` per match (of ``rows`` only, in their order), as floats."""
        if name not in (*SUMS, "match"):
            raise KeyError(name)
        got = self.runs.con.execute(f'SELECT "{name}" FROM match_sums').fetchnumpy()[name]
        out = np.asarray(got, dtype=float)
        return out if rows is None else out[rows]

    def pattern(self, pattern: str, rows: np.ndarray | None = None) -> np.ndarray:
        """Per match (of ``rows``), the wins carrying ``pattern``, as floats."""
        got = self.runs.con.execute(
            "SELECT run, match, with_ FROM match_pats WHERE pattern = $p", {"p": pattern}
        ).fetchnumpy()
        out = np.zeros(len(self))
        keys = _key(np.asarray(got["run"]), np.asarray(got["match"]))
        # every match's key made for the look-up and dropped after (kept, both runs'
        # would be 20 MB held through the command at 10M hands)
        every = _key(self.run, self.match)
        at = np.minimum(np.searchsorted(every, keys), max(len(self) - 1, 0))
        hit = every[at] == keys if len(self) else np.zeros(len(keys), bool)
        del every
        out[at[hit]] = np.asarray(got["with_"], dtype=float)[hit]
        return out if rows is None else out[rows]

    def patterns_in(self, rows: np.ndarray) -> set[str]:
        """The patterns some win of the matches ``rows`` carried."""
        runs = sorted({int(r) for r in np.unique(self.run[rows])})
        return {
            str(p)
            for (p,) in self.runs.con.execute(
                "SELECT DISTINCT pattern FROM match_pats WHERE list_contains($r, run)", {"r": runs}
            ).fetchall()
        }

    def seed0(self) -> np.ndarray:
        """Each match's first seed (float NaN where a match has no first hand)."""
        got = self.runs.con.execute("SELECT seed0 FROM match_sums").fetchnumpy()["seed0"]
        if isinstance(got, np.ma.MaskedArray) and np.ma.is_masked(got):
            return np.ma.filled(got.astype(float), np.nan)
        return np.asarray(got)

    def groups(self) -> list[tuple[tuple[str, str, str], np.ndarray]]:
        """Each group (:data:`analysis.queries.GROUP`) with its rows, in the order its
        first row comes."""
        keys = [(r.variant, r.config, ",".join(r.agents)) for r in self.runs.runs]
        out: dict[tuple[str, str, str], list[int]] = {}
        for i, k in enumerate(keys):
            out.setdefault(k, []).append(i)
        rows = [(k, np.flatnonzero(np.isin(self.run, runs_of))) for k, runs_of in out.items()]
        return [(k, at) for k, at in rows if len(at)]

    def frame(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The two frames of :func:`analysis.compare.match_units`."""
        info = self.runs.runs
        units = self.runs.con.execute("SELECT * EXCLUDE (seed0), seed0 FROM match_sums").df()
        pats = self.runs.con.execute("SELECT * FROM match_pats").df()
        for df in (units, pats):
            run = df.pop("run").to_numpy()
            df.insert(0, "run_id", np.array([r.run_id for r in info], dtype=object)[run])
            for i, c in enumerate(GROUP):
                lookup = [(r.variant, r.config, ",".join(r.agents))[i] for r in info]
                df.insert(i, c, np.array(lookup, dtype=object)[run])
        for c in ("seed", "hands_per_match", "duplicate"):
            units[c] = units["run_id"].map({r.run_id: getattr(r, c) for r in info})
        for c in ("wins", "win_total", "win_points", "capped"):
            units[c] = units[c].astype("int64")
        return units, pats


def _key(run: np.ndarray, match: np.ndarray) -> np.ndarray:
    """One sortable int64 per (run, match), as the sums are ordered."""
    return (np.asarray(run, dtype=np.int64) << 32) + (np.asarray(match, dtype=np.int64) + 2**31)


class Metrics(Mapping[str, tuple[np.ndarray, np.ndarray, str]]):
    """metric → (y, x, unit), each metric's arrays made when it is read, so one
    metric's per-match arrays are held at a time, not every metric's."""

    def __init__(self, specs: Mapping[str, Callable[[], tuple[np.ndarray, np.ndarray, str]]]):
        self._specs = dict(specs)

    def __getitem__(self, metric: str) -> tuple[np.ndarray, np.ndarray, str]:
        return self._specs[metric]()

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def unit(self, metric: str) -> str:
        """The metric's unit (its arrays made and dropped)."""
        return self[metric][2]


def metric_specs(
    col: Callable[[str], np.ndarray],
    pattern: Callable[[str], np.ndarray],
    players: int,
    patterns: Sequence[str],
    agents: Sequence[str] = (),
) -> Metrics:
    """The headline metrics (:func:`analysis.compare.metric_arrays`) of the per-match
    sums ``col(name)`` and pattern counts ``pattern(key)``, ``players`` the most seats
    a match has."""
    n = players
    Arrays = tuple[np.ndarray, np.ndarray, str]

    def ratio(y: str, x: str, unit: str) -> Callable[[], Arrays]:
        return lambda: (col(y), col(x), unit)

    def dealer() -> Arrays:
        others = sum(col(f"pts{p}") for p in range(1, n)) / max(n - 1, 1)
        return col("pts0") - others, col("hands"), "points per hand"

    def of_pattern(pat: str) -> Callable[[], Arrays]:
        return lambda: (pattern(pat), col("wins"), "share of wins")

    specs: dict[str, Callable[[], Arrays]] = {}
    for a in agents:
        specs[f"mean_points[{a}]"] = ratio(f"points@{a}", f"seat_hands@{a}", "points per seat-hand")
    for p in range(0 if agents else n):
        specs[f"mean_points[{p}]"] = ratio(f"pts{p}", "hands", "points per seat-hand")
    specs["dealer_advantage"] = dealer
    specs["draw_rate"] = ratio("draws", "hands", "share of hands")
    specs["mean_points_per_win"] = ratio("win_points", "wins", "points per payer per win")
    specs["mean_total_per_win"] = ratio("win_total", "wins", "points per win, all payers")
    specs["money_moved_per_hand"] = ratio("moved", "hands", "points per hand")
    for pat in patterns:
        specs[f"pattern_rate[{pat}]"] = of_pattern(pat)
    specs["capped_share"] = ratio("capped", "wins", "share of wins")
    return Metrics(specs)
