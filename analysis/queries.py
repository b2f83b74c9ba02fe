"""Figures from run directories, as pandas DataFrames, computed by DuckDB over Parquet.

Every function takes ``runs``: a run directory, a sweep parent (a folder with
``sweep.json``, or whose sub-folders are runs), a list of those, or a
:class:`Runs`. DuckDB reads the Parquet files itself (``read_parquet($hands)``
with the file lists passed as query *parameters*, never pasted into the SQL) and
only aggregates come back, so a run of millions of hands never sits in memory.
No figure needs the events table: hand length is ``hands.n_events``.

Every figure is given per group: ``variant``, ``config`` (the rule keys a run
changed from the variant's defaults, ``default`` when none; sweep points differ
here) and ``lineup`` (``hands.agents`` joined with commas: the agents, seat by
seat). Runs that share all three (say two seeds) are pooled.

Confidence intervals are 95%: Wilson score intervals for rates, normal ones
(mean ± 1.96·s/√n) for means, treating hands as independent.

>>> from analysis.sample import tiny_run
>>> runs = Runs(tiny_run())
>>> stats = seat_stats(runs, by="variant")
>>> stats[["variant", "lineup", "hands"]].values.tolist()  # 128 hands × 4 seats
[['yuxi', 'greedy,random,greedy,random', 512]]
>>> bool(stats.win_rate_lo.iloc[0] <= stats.win_rate.iloc[0] <= stats.win_rate_hi.iloc[0])
True
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from mjlog.errors import cut as clip
from mjlog.events import REASON_NAMES
from mjlog.logio import LogError
from mjlog.rundir import RunFiles, duckdb_path, read_json
from mjlog.scoring.patterns import pattern_name

__all__ = [
    "GROUP",
    "Run",
    "Runs",
    "biggest_wins",
    "compare",
    "compare_from",
    "dealer_advantage",
    "distribution",
    "first_winner",
    "group_label",
    "hand_events",
    "histogram",
    "money_shares",
    "outcomes",
    "pattern_frequencies",
    "replay_frame",
    "run_table",
    "seat_stats",
    "tables",
    "wilson",
]

GROUP: tuple[str, ...] = ("variant", "config", "lineup")
"""The columns that name a group in every figure."""

Z95 = 1.959963984540054

KONG_REASONS = ("kong_exposed", "kong_added", "kong_concealed")
SETTLEMENT_REASONS = ("not_ready", "flower_pig", "tax_refund")
REASON_CATEGORY = {
    **dict.fromkeys(KONG_REASONS, "kong"),
    **dict.fromkeys(SETTLEMENT_REASONS, "settlement"),
    **dict.fromkeys(("win", "horse", "call_transfer"), "win"),
}
"""``transfers.reason`` → ``kong``, ``settlement`` (end of wall) or ``win``."""



# ------------------------------------------------------------------ the runs


@dataclass(frozen=True)
class Run:
    """One run directory, as its manifest describes it."""

    path: Path
    run_id: str
    variant: str
    config: str
    agents: tuple[str, ...]
    """Agent per seat as given to ``mjlog simulate`` (``name`` or ``name:k=v;…``)."""
    seed: int | None  # None: an imported hand without its seed
    matches: int
    hands_per_match: int
    duplicate: bool
    hands: int
    events: bool


def _agent_spec(a: Any) -> str:
    if isinstance(a, str):
        return a
    params = a.get("params") or {}
    if not params:
        return str(a.get("name"))
    return f"{a.get('name')}:" + ";".join(f"{k}={v}" for k, v in sorted(params.items()))


def config_label(variant: str, rules: dict[str, Any], duplicate: bool = False,
                 always: Iterable[str] = ()) -> str:
    """The rule keys that differ from the variant's defaults (and the keys ``always``,
    say a sweep's grid keys), as ``key=value`` sorted and space separated, or
    ``default``; `` dup`` is added for duplicate play.

    >>> config_label("yuxi", {"cap": 8, "base": 1})
    'cap=8'
    >>> config_label("yuxi", {"cap": 64}), config_label("xuezhan", {}, duplicate=True)
    ('default', 'default dup')
    >>> config_label("yuxi", {"cap": 64}, always=["cap"])
    'cap=64'
    """
    from mjlog.rules import Rules, keys

    always = set(always)
    try:
        spec = keys(variant)
        resolved = Rules(variant, rules)
        default = Rules(variant)
        changed = [f"{k}={spec[k].show(resolved[k])}" for k in sorted(resolved)
                   if resolved[k] != default[k] or k in always]
    except Exception:  # rules of another mjlog version: show the keys as logged
        changed = [f"{k}={rules[k]}" for k in sorted(rules)]
    label = " ".join(changed) or "default"
    return label + " dup" if duplicate else label


def _is_run(p: Path) -> bool:
    return (p / "manifest.json").is_file()


def _expand(path: Path) -> list[tuple[Path, tuple[str, ...]]]:
    """A run directory → itself; a sweep parent → its runs in order, each with the
    rule keys its sweep varies (always shown in the run's config label)."""
    if _is_run(path):
        return [(path, ())]
    if not path.is_dir():
        raise LogError(f"{path}: no such run directory")
    sweep = path / "sweep.json"
    listed: list[tuple[Path, tuple[str, ...]]] = []
    if sweep.is_file():
        meta = read_json(sweep, "sweep file")
        # mjlog sweep writes {"grid": {...}, "points": [{"dir": ..., "run_id": ...}, ...]}
        meta = meta if isinstance(meta, dict) else {"points": meta}
        grid = meta.get("grid")
        varied = tuple(str(k) for k in grid) if isinstance(grid, dict) else ()
        entries = meta.get("points") or meta.get("runs") or []
        for e in entries if isinstance(entries, list) else []:
            rel = e if isinstance(e, str) else (
                (e.get("dir") or e.get("path")) if isinstance(e, dict) else None)
            if not isinstance(rel, str) or not rel:
                raise LogError(f"{sweep}: a point without a 'dir' string")
            if os.path.isabs(rel) or ".." in Path(rel).parts or "/" in rel.strip("/"):
                raise LogError(f"{sweep}: point dir {clip(rel, 80)!r} is not a folder of "
                               f"the sweep: refused")
            p = path / rel
            if _is_run(p):
                listed.append((p, varied))
    if not listed:
        listed = [(p, ()) for p in sorted(path.iterdir()) if p.is_dir() and _is_run(p)]
    if not listed:
        raise LogError(f"{path}: not a run directory (no manifest.json) and holds no runs")
    return listed


def _same_content(a: RunFiles, b: RunFiles) -> None:
    """Refuse two runs that share a run id but not their content. The files' sha256
    are compared when both runs have one layout (shard size, events); otherwise
    the rows of every table, as the run id vouches for the rest."""
    ma, mb = a.manifest, b.manifest
    layout = ("hands_per_shard", "events")
    if all(ma.get(k) == mb.get(k) for k in layout):
        same = {(f["path"], f["sha256"]) for f in ma["files"]} == {
            (f["path"], f["sha256"]) for f in mb["files"]}
    else:
        tables = ("hands", "wins", "transfers")
        same = all(a.rows(t) == b.rows(t) for t in tables)
    if not same:
        raise LogError(f"{b.path}: run {ma.get('run_id')} is also {a.path}, with different "
                       f"content: one id, two runs (an edited or foreign manifest?); give one "
                       f"of them")


class Runs:
    """A set of run directories, queried together through one DuckDB connection.

    ``paths``: run directories or sweep parents. A run given twice (same
    ``run_id`` and the same content: the same files, or in another layout the same
    rows per table) is counted once; two runs with one ``run_id`` but different
    content are refused (:class:`LogError`, one line) rather than one silently
    dropped. Table files are the ones the manifest lists,
    checked as :class:`mjlog.rundir.RunFiles` checks them: a manifest with a
    duplicate entry, a path out of the run, a file that is not regular, a wrong
    field type or a wrong run id is refused (:class:`LogError`, one line), and a
    file's sha256 is checked the first time a query reads its table.
    ``verify_hashes=False`` skips the sha256 (sizes are still checked): for data
    you trust and read often, say a run you just wrote.
    """

    def __init__(self, paths: str | os.PathLike | Iterable[str | os.PathLike],
                 verify_hashes: bool = True):
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        runs: list[Run] = []
        self._runs: list[RunFiles] = []
        seen: dict[str, RunFiles] = {}
        for given in paths:
            for p, varied in _expand(Path(given)):
                rf = RunFiles(p, hashes=verify_hashes)
                m = rf.manifest
                rid = m.get("run_id")
                if rid in seen:
                    _same_content(seen[rid], rf)
                    continue
                seen[rid] = rf
                self._runs.append(rf)
                rows = rf.rows("hands")
                runs.append(Run(
                    path=p,
                    run_id=str(rid),
                    variant=str(m.get("variant")),
                    config=config_label(str(m.get("variant")), m.get("rules") or {},
                                        bool(m.get("duplicate")), varied),
                    agents=tuple(_agent_spec(a) for a in m.get("agents") or ()),
                    seed=None if m.get("seed") is None else int(m["seed"]),
                    matches=int(m.get("matches") or 0),
                    hands_per_match=int(m.get("hands_per_match") or 0),
                    duplicate=bool(m.get("duplicate")),
                    hands=rows,
                    events=rf.has_events,
                ))
        if not runs:
            raise LogError("no runs given")
        for rf in self._runs:
            for t in ("hands", "wins", "transfers"):
                if not rf.by_table[t]:
                    raise LogError(f"{rf.manifest_path}: the manifest lists no {t} files")
        self._checked: dict[str, list[str]] = {}
        self.runs = runs
        self.con = duckdb.connect()
        try:  # a library prints nothing (in Jupyter DuckDB draws no bar without ipywidgets)
            self.con.execute("SET enable_progress_bar = false")
        except duckdb.Error:
            pass
        self.con.register("runs", self.info()[["run_id", "config"]])
        self.con.register("reasons", pd.DataFrame(
            {"reason": list(REASON_CATEGORY), "category": list(REASON_CATEGORY.values())}))

    def __repr__(self) -> str:
        return f"Runs({[str(r.path) for r in self.runs]!r})"

    def __len__(self) -> int:
        return len(self.runs)

    def files(self, table: str) -> list[str]:
        """The Parquet files of ``table`` over every run: absolute paths with DuckDB's
        glob characters escaped (a folder named ``run[1]`` is read literally), each
        file verified the first time it is asked for."""
        if table not in self._checked:
            if table == "events" and not all(rf.has_events for rf in self._runs):
                raise LogError("these runs were written without events (--events none)")
            self._checked[table] = [duckdb_path(p.resolve()) for rf in self._runs
                                    for p in rf.files(table)]
        return list(self._checked[table])

    def info(self) -> pd.DataFrame:
        """One row per run: id, variant, config, agents (with parameters), seed, size, path."""
        return pd.DataFrame([{
            "run_id": r.run_id, "variant": r.variant, "config": r.config,
            "agents": ",".join(r.agents), "seed": r.seed, "matches": r.matches,
            "hands_per_match": r.hands_per_match, "hands": r.hands, "events": r.events,
            "path": str(r.path)} for r in self.runs])

    def sql(self, query: str, **params: Any) -> pd.DataFrame:
        """Run ``query``; ``$hands``, ``$wins``, ``$transfers`` (and ``$events`` when the
        query names it) are bound to the file lists; ``params`` bind further ``$names``.
        The views ``runs`` (run_id, config) and ``reasons`` (reason, category) are there
        to join."""
        for t in ("hands", "wins", "transfers", "events"):
            if f"${t}" in query:
                params.setdefault(t, self.files(t))
        try:
            df = self.con.execute(query, params).df()
        except duckdb.Error as e:  # a damaged file its manifest vouches for, say
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise LogError(f"DuckDB could not run the query over the runs' Parquet files: "
                           f"{clip(first)}") from None
        return self._in_run_order(df)

    def _in_run_order(self, df: pd.DataFrame) -> pd.DataFrame:
        """Groups in the order their runs were given (sweep points in grid order), rows
        within a group as the query ordered them."""
        if not {"variant", "config"} <= set(df.columns) or df.empty:
            return df
        rank: dict[tuple[str, str], int] = {}
        for r in self.runs:
            rank.setdefault((r.variant, r.config), len(rank))
        key = [rank.get((v, c), len(rank)) for v, c in zip(df["variant"], df["config"],
                                                             strict=True)]
        order = np.argsort(np.asarray(key), kind="stable")
        return df.iloc[order].reset_index(drop=True)


def as_runs(runs: Runs | str | os.PathLike | Iterable[str | os.PathLike]) -> Runs:
    return runs if isinstance(runs, Runs) else Runs(runs)


def run_table(runs) -> pd.DataFrame:
    """The runs, one row each (:meth:`Runs.info`)."""
    return as_runs(runs).info()


# ------------------------------------------------------------------ statistics


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the rate ``k/n``; NaN where ``n`` is 0.

    >>> lo, hi = wilson(50, 100)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4038, 0.5962)
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return mid - half, mid + half


def _rate(df: pd.DataFrame, name: str, k: str, n: str) -> None:
    kk, nn = df[k].astype(float), df[n].astype(float)
    df[name] = (kk / nn).where(nn > 0)
    df[f"{name}_lo"], df[f"{name}_hi"] = wilson(kk, nn)


def _mean(df: pd.DataFrame, name: str, s: str, ss: str, n: str) -> None:
    """Mean, sample variance and normal CI from the sum, sum of squares and count."""
    n_ = df[n].astype(float)
    s_ = df[s].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = s_ / n_
        var = ((df[ss].astype(float) - s_ * mean) / (n_ - 1)).clip(lower=0)
        half = Z95 * np.sqrt(var / n_)
    df[name] = mean.where(n_ > 0)
    df[f"{name}_lo"] = mean - half
    df[f"{name}_hi"] = mean + half


def group_label(df: pd.DataFrame, with_config: bool | None = None) -> pd.Series:
    """``variant config [lineup]`` per row (config left out when all rows are ``default``)."""
    if with_config is None:
        with_config = bool((df["config"] != "default").any())
    label = df["variant"].astype(str)
    if with_config:
        label = label + " " + df["config"].astype(str)
    return label + " [" + df["lineup"].astype(str) + "]"


_G = ", ".join(GROUP)
_HG = ", ".join(f"h.{c}" for c in GROUP)  # where another table also has `variant`

# Hands with the group columns. The lineup is the hand's agents seat by seat, turned
# back to rotation 0 in duplicate play (the runner seats spec agent j at (j + r) mod n
# in rotation r), so the rotations of one duplicate match pool into one line-up.
_HANDS = """
    h AS (
        SELECT h.run_id, h.match, h.rotation, h.hand, h.variant::VARCHAR AS variant,
               r.config,
               CASE WHEN h.rotation = 0 THEN array_to_string(h.agents, ',')
                    ELSE array_to_string(list_transform(range(h.players::BIGINT),
                        lambda j: h.agents[(j + h.rotation) % h.players + 1]), ',')
               END AS lineup,
               h.players, h.dealer, h.agents, h.winners, h.deltas, h.outcome::VARCHAR AS outcome,
               h.n_events, h.wall_left
        FROM read_parquet($hands) h JOIN runs r USING (run_id)
    )"""

_KEY = "run_id, match, rotation, hand"


# ---------------------------------------------------------------- per seat


_SEAT_BY = {
    "seat": ", seat, agent",
    "agent": ", agent",
    "position": ", position",
    "order": ', "order"',
    "variant": "",
}
"""``seat_stats(by=...)`` → the columns grouped on besides :data:`GROUP`."""


def _seat_sums(runs: Runs, by: str) -> pd.DataFrame:
    if by not in _SEAT_BY:
        raise ValueError(f"by must be one of {', '.join(_SEAT_BY)}, not {by!r}")
    extra = _SEAT_BY[by]
    q = f"""
    WITH {_HANDS},
    w AS (SELECT {_KEY}, seat, from_seat, method::VARCHAR AS method, win_order
          FROM read_parquet($wins)),
    ws AS (SELECT {_KEY}, seat, count(*) AS n_wins,
                  count(*) FILTER (WHERE method = 'self_draw') AS n_self,
                  min(win_order) AS win_order
           FROM w GROUP BY ALL),
    di AS (SELECT {_KEY}, from_seat AS seat, count(*) AS n_dealin
           FROM w WHERE from_seat IS NOT NULL GROUP BY ALL),
    s AS (SELECT {_KEY}, {_G}, players, dealer, agents, deltas,
                 unnest(range(players::BIGINT))::TINYINT AS seat FROM h),
    x AS (
        SELECT {_G}, s.seat, agents[s.seat + 1] AS agent,
               ((s.seat - dealer + players) % players)::INT AS position,
               coalesce(CASE win_order WHEN 1 THEN '1st' WHEN 2 THEN '2nd' WHEN 3 THEN '3rd'
                        ELSE win_order::VARCHAR || 'th' END, 'none') AS "order",
               coalesce(n_wins, 0) AS n_wins, coalesce(n_self, 0) AS n_self,
               coalesce(n_dealin, 0) AS n_dealin, deltas[s.seat + 1]::BIGINT AS pts
        FROM s LEFT JOIN ws USING ({_KEY}, seat) LEFT JOIN di USING ({_KEY}, seat)
    )
    SELECT {_G}{extra},
           count(*) AS hands,
           count(*) FILTER (WHERE n_wins > 0) AS hands_won,
           sum(n_wins)::BIGINT AS wins,
           sum(n_self)::BIGINT AS self_draws,
           count(*) FILTER (WHERE n_dealin > 0) AS hands_dealt_in,
           sum(n_dealin)::BIGINT AS deal_ins,
           sum(pts)::BIGINT AS points,
           sum(pts * pts)::BIGINT AS points_sq
    FROM x GROUP BY ALL ORDER BY ALL
    """
    return runs.sql(q)


def seat_stats(runs, by: str = "seat") -> pd.DataFrame:
    """Win rate, self-draw share, deal-in rate and mean points, each with a 95% CI.

    ``by``: ``seat`` (one row per seat, with its agent), ``agent`` (seats pooled
    per agent name), ``position`` (seat relative to the dealer: 0 is the
    dealer), ``order`` (``1st``, ``2nd``… by the order the seat won in, ``none``
    when it did not win) or ``variant`` (every seat pooled); always within
    :data:`GROUP`.

    - ``win_rate`` = hands the seat won / hands played,
    - ``self_draw_share`` = its self-drawn wins / its wins,
    - ``deal_in_rate`` = hands in which it paid for a win as the discarder
      (``wins.from_seat``) / hands played,
    - ``mean_points`` = mean of its ``hands.deltas`` entry per hand.
    """
    runs = as_runs(runs)
    df = _seat_sums(runs, by)
    _rate(df, "win_rate", "hands_won", "hands")
    _rate(df, "self_draw_share", "self_draws", "wins")
    _rate(df, "deal_in_rate", "hands_dealt_in", "hands")
    _mean(df, "mean_points", "points", "points_sq", "hands")
    return df


def dealer_advantage(runs) -> pd.DataFrame:
    """Per seat position relative to the dealer (0 = dealer): the :func:`seat_stats`
    figures, and ``advantage`` = the position's mean points minus the mean of the
    other positions."""
    df = seat_stats(runs, by="position")
    adv = []
    for _, g in df.groupby(list(GROUP), sort=False):
        for i, row in g.iterrows():
            others = g.drop(index=i)
            adv.append((i, row.mean_points - others.points.sum() / others.hands.sum()))
    df["advantage"] = pd.Series(dict(adv))
    return df


def first_winner(runs) -> pd.DataFrame:
    """Per order of winning (``1st``, ``2nd``, ``3rd``, ``none``): seats, mean points with
    a CI. In xuezhan the first winner leaves early: does it end up ahead?"""
    return seat_stats(runs, by="order")


# ---------------------------------------------------------------- patterns


def pattern_frequencies(runs) -> pd.DataFrame:
    """Each pattern (番种) per group: how often and how much it is worth.

    - ``wins_with``: wins counting the pattern (once per win), ``count``: times
      counted (``gen`` and ``facai`` repeat per count),
    - ``per_win`` = wins_with / wins (with a Wilson CI), ``per_hand`` = wins_with / hands,
    - ``points_share`` = Σ ``total`` of the wins counting it / Σ ``total`` of all wins,
    - ``name``: the Chinese name.
    """
    runs = as_runs(runs)
    q = f"""
    WITH {_HANDS},
    g AS (SELECT {_G}, count(*) AS hands FROM h GROUP BY ALL),
    w AS (SELECT {_HG}, {_KEY}, w.seq, w.seat, w.patterns, w.total
          FROM read_parquet($wins) w JOIN h USING ({_KEY})),
    t AS (SELECT {_G}, count(*) AS wins, sum(total)::BIGINT AS points FROM w GROUP BY ALL),
    u AS (SELECT {_G}, run_id, match, rotation, hand, seq, seat, total,
                 unnest(patterns) AS pattern FROM w),
    per_win AS (SELECT {_G}, pattern, any_value(total) AS total, count(*) AS n
                FROM u GROUP BY {_G}, run_id, match, rotation, hand, seq, seat, pattern),
    p AS (SELECT {_G}, pattern, count(*) AS wins_with, sum(n)::BIGINT AS count,
                 sum(total)::BIGINT AS points_with FROM per_win GROUP BY ALL)
    SELECT {_G}, p.pattern, p.wins_with, p.count, t.wins, g.hands, p.points_with, t.points
    FROM p JOIN t USING ({_G}) JOIN g USING ({_G})
    ORDER BY {_G}, wins_with DESC, pattern
    """
    df = runs.sql(q)
    df.insert(GROUP.__len__() + 1, "name", df["pattern"].map(pattern_name))
    _rate(df, "per_win", "wins_with", "wins")
    df["per_hand"] = df["wins_with"] / df["hands"]
    df["points_share"] = (df["points_with"] / df["points"]).where(df["points"] > 0)
    return df


# ---------------------------------------------------------------- distributions


_VALUES = {
    # what: (value expression, source CTE, capped expression)
    "win_points": ("total", "wv", "capped::INT"),
    "win_base": ("points", "wv", "capped::INT"),
    "hand_points": ("moved", "hv", "capped"),
    "hand_length": ("n_events", "hv", "NULL"),
    "wall_left": ("wall_left", "hv", "NULL"),
}
"""``win_points``: ``wins.total`` per win; ``win_base``: ``wins.points`` (what each payer
pays); ``hand_points``: money moved per hand (Σ positive ``deltas``); ``hand_length``:
events per hand; ``wall_left``: tiles left in the wall at the end."""


def _values_cte(what: str) -> tuple[str, str]:
    if what not in _VALUES:
        raise ValueError(f"what must be one of {', '.join(_VALUES)}, not {what!r}")
    expr, src, capped = _VALUES[what]
    cte = f"""
    WITH {_HANDS},
    wv AS (SELECT {_HG}, w.total, w.points, w.capped
           FROM read_parquet($wins) w JOIN h USING ({_KEY})),
    cw AS (SELECT {_KEY}, max(capped::INT) AS capped FROM read_parquet($wins) GROUP BY ALL),
    hv AS (SELECT {_G}, n_events, wall_left,
                  list_sum(list_transform(deltas, lambda d: greatest(d, 0)))::BIGINT AS moved,
                  coalesce(cw.capped, 0) AS capped
           FROM h LEFT JOIN cw USING ({_KEY})),
    v AS (SELECT {_G}, ({expr})::BIGINT AS value, ({capped})::DOUBLE AS capped FROM {src})"""
    return cte, src


def distribution(runs, what: str = "win_points",
                 quantiles: Sequence[float] = (0.5, 0.9, 0.99)) -> pd.DataFrame:
    """Summary of a value per group: n, mean (with CI), variance, quantiles, max and
    ``share_capped`` (wins the cap lowered; per hand: hands with a capped win).

    ``what``: ``win_points`` (``wins.total``, all a win brought its winner),
    ``win_base`` (``wins.points``, what each payer pays), ``hand_points`` (money
    moved per hand: Σ of the positive ``hands.deltas``), ``hand_length``
    (``hands.n_events``) or ``wall_left``. Quantiles are linear
    (``quantile_cont``, as pandas' default).
    """
    runs = as_runs(runs)
    cte, _ = _values_cte(what)
    q = f"""{cte}
    SELECT {_G}, count(*) AS n, sum(value)::BIGINT AS sum,
           sum(value * value)::BIGINT AS sum_sq,
           quantile_cont(value, $qs) AS q, max(value) AS max,
           avg(capped) AS share_capped
    FROM v GROUP BY ALL ORDER BY ALL
    """
    df = runs.sql(q, qs=[float(x) for x in quantiles])
    _mean(df, "mean", "sum", "sum_sq", "n")
    n = df["n"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["var"] = ((df["sum_sq"] - df["sum"] * df["mean"]) / (n - 1)).where(n > 1)
    for i, x in enumerate(quantiles):
        df[f"p{x * 100:g}"] = df["q"].map(lambda v, i=i: v[i] if v is not None else np.nan)
    df.insert(len(GROUP), "what", what)
    return df.drop(columns=["q"])


def histogram(runs, what: str = "win_points") -> pd.DataFrame:
    """Counts of each value per group (the shape behind :func:`distribution`):
    columns ``value``, ``n``, ``share`` (of the group)."""
    runs = as_runs(runs)
    cte, _ = _values_cte(what)
    df = runs.sql(f"""{cte}
    SELECT {_G}, value, count(*) AS n FROM v GROUP BY ALL ORDER BY ALL""")
    df["share"] = df["n"] / df.groupby(list(GROUP))["n"].transform("sum")
    return df


# ---------------------------------------------------------------- hands


def outcomes(runs) -> pd.DataFrame:
    """Per group: hands, drawn hands (no winner) and the drawn-hand rate with a CI,
    mean events per hand and mean tiles left in the wall."""
    runs = as_runs(runs)
    df = runs.sql(f"""
    WITH {_HANDS}
    SELECT {_G}, count(*) AS hands, count(*) FILTER (WHERE outcome = 'draw') AS draws,
           avg(n_events) AS mean_length, avg(wall_left) AS mean_wall_left,
           avg(len(winners)) AS mean_winners
    FROM h GROUP BY ALL ORDER BY ALL""")
    _rate(df, "draw_rate", "draws", "hands")
    return df


def money_shares(runs, by: str = "reason") -> pd.DataFrame:
    """Money by transfer reason, as a share of the money moved.

    Money moved in a hand = Σ of its positive ``hands.deltas``; ``share`` = Σ
    ``amount`` of the reason's transfers / Σ money moved (transfers within a hand
    can cancel, so shares can add to more than 1); ``share_of_transfers`` = the
    reason's amount / all transfer amounts; ``hands_with`` = hands with such a
    transfer / hands. ``by``: ``reason`` or ``category`` (``kong``, ``settlement``
    = 查大叫 + 查花猪 + 退税, ``win``).
    """
    if by not in ("reason", "category"):
        raise ValueError(f"by must be reason or category, not {by!r}")
    runs = as_runs(runs)
    df = runs.sql(f"""
    WITH {_HANDS},
    g AS (SELECT {_G}, count(*) AS hands,
                 sum(list_sum(list_transform(deltas, lambda d: greatest(d, 0))))::BIGINT AS moved
          FROM h GROUP BY ALL),
    t AS (SELECT {_HG}, {_KEY}, coalesce(c.category, 'other') AS category,
                 t.reason::VARCHAR AS reason, t.amount
          FROM read_parquet($transfers) t JOIN h USING ({_KEY})
          LEFT JOIN reasons c ON c.reason = t.reason::VARCHAR),
    a AS (SELECT {_G}, {by}, sum(amount)::BIGINT AS amount, count(*) AS transfers,
                 count(DISTINCT (run_id, match, rotation, hand)) AS hands_with_n
          FROM t GROUP BY ALL),
    all_t AS (SELECT {_G}, sum(amount)::BIGINT AS all_amount FROM t GROUP BY ALL)
    SELECT {_G}, a.{by}, a.amount, a.transfers, a.hands_with_n, g.hands, g.moved,
           all_t.all_amount
    FROM a JOIN g USING ({_G}) JOIN all_t USING ({_G}) ORDER BY {_G}, a.amount DESC, a.{by}
    """)
    if by == "reason":
        df.insert(len(GROUP) + 1, "name", df["reason"].map(REASON_NAMES).fillna(df["reason"]))
    df["share"] = (df["amount"] / df["moved"]).where(df["moved"] > 0)
    df["share_of_transfers"] = df["amount"] / df["all_amount"]
    df["hands_with"] = df["hands_with_n"] / df["hands"]
    df["per_hand"] = df["amount"] / df["hands"]
    return df


def compare(runs) -> pd.DataFrame:
    """Headline figures side by side, one row per group (variants, sweep points, line-ups):
    hands, drawn-hand rate, mean length, wins, points per win (mean, p90, max, share
    capped), money moved per hand, the dealer's win rate, mean points and advantage,
    and the shares of money moved by kong, settlement and win transfers."""
    runs = as_runs(runs)
    return compare_from(outcomes(runs), distribution(runs, "win_points"),
                        distribution(runs, "hand_points"), dealer_advantage(runs),
                        money_shares(runs, by="category"))


def compare_from(outcomes_df: pd.DataFrame, win_points: pd.DataFrame,
                 hand_points: pd.DataFrame, dealer: pd.DataFrame,
                 money_by_category: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare` from tables already computed."""
    g = list(GROUP)
    d0 = dealer[dealer.position == 0][[*g, "win_rate", "mean_points", "advantage"]].rename(
        columns={"win_rate": "dealer_win_rate", "mean_points": "dealer_mean_points",
                 "advantage": "dealer_advantage"})
    cats = money_by_category.pivot_table(index=g, columns="category", values="share",
                                         aggfunc="sum").add_prefix("share_").reset_index()
    cats.columns.name = None
    out = (outcomes_df[[*g, "hands", "draw_rate", "mean_length"]]
           .merge(win_points[[*g, "n", "mean", "p90", "max", "share_capped"]].rename(columns={
               "n": "wins", "mean": "mean_win_points", "p90": "p90_win_points",
               "max": "max_win_points"}), on=g, how="left")
           .merge(hand_points[[*g, "mean"]].rename(columns={"mean": "mean_moved_per_hand"}),
                  on=g, how="left")
           .merge(d0, on=g, how="left")
           .merge(cats, on=g, how="left"))
    for c in ("share_win", "share_kong", "share_settlement"):
        out[c] = out[c].fillna(0.0) if c in out else 0.0
    out["wins"] = out["wins"].fillna(0).astype("int64")
    return out


def tables(runs) -> dict[str, pd.DataFrame]:
    """Every table the report and :func:`analysis.plots.figures` use, each query run once."""
    runs = as_runs(runs)
    t: dict[str, pd.DataFrame] = {"runs": run_table(runs)}
    t["outcomes"] = outcomes(runs)
    t["seats"] = seat_stats(runs, by="seat")
    t["agents"] = seat_stats(runs, by="agent")
    t["variants"] = seat_stats(runs, by="variant")
    t["dealer"] = dealer_advantage(runs)
    t["first_winner"] = first_winner(runs)
    t["patterns"] = pattern_frequencies(runs)
    for what in ("win_points", "hand_points", "hand_length"):
        t[what] = distribution(runs, what)
        t[f"hist_{what}"] = histogram(runs, what)
    t["money"] = money_shares(runs, by="reason")
    t["money_category"] = money_shares(runs, by="category")
    t["compare"] = compare_from(t["outcomes"], t["win_points"], t["hand_points"], t["dealer"],
                                t["money_category"])
    return t


# ---------------------------------------------------------------- one hand


def hand_events(runs, match: int = 0, hand: int = 0, rotation: int = 0,
                run_id: str | None = None) -> pd.DataFrame:
    """The events of one hand, in order (only that hand's rows are read)."""
    runs = as_runs(runs)
    rid = run_id or runs.runs[0].run_id
    return runs.sql("""
    SELECT seq, type::VARCHAR AS type, seat, tile, from_seat, kind::VARCHAR AS kind, tiles, amount
    FROM read_parquet($events)
    WHERE run_id = $rid AND match = $match AND rotation = $rotation AND hand = $hand
    ORDER BY seq""", rid=rid, match=match, rotation=rotation, hand=hand)


def biggest_wins(runs, n: int = 10) -> pd.DataFrame:
    """The ``n`` wins that brought the most (``wins.total``), with where to find them
    (run, match, rotation, hand), the winner's agent and the patterns' Chinese names."""
    runs = as_runs(runs)
    df = runs.sql(f"""
    WITH {_HANDS}
    SELECT h.run_id, {_HG}, w.match, w.rotation, w.hand, w.seat,
           h.agents[w.seat + 1] AS agent, w.method::VARCHAR AS method, w.patterns, w.fan,
           w.points, w.total, w.capped
    FROM read_parquet($wins) w JOIN h USING ({_KEY})
    ORDER BY w.total DESC, h.run_id, w.match, w.rotation, w.hand, w.seat LIMIT $n""", n=n)
    df["names"] = df["patterns"].map(lambda ps: " ".join(pattern_name(p) for p in ps))
    return df


def replay_frame(run_dir: str | os.PathLike, match: int, hand: int,
                 rotation: int = 0) -> pd.DataFrame:
    """One hand replayed event by event through the engine's own transition
    (:mod:`mjlog.replay`, checked step): per event its text, each seat's concealed
    tiles in notation, the tiles left and the running score."""
    from mjlog.replay import load_hand

    rep = load_hand(run_dir, match, hand, rotation)
    rows = []
    for seq, _ev, snap in rep.states(notation=True):
        j = snap.to_json(notation=True)
        row = {"seq": seq, "event": j["text"], "wall_left": j["wall_left"],
               "deltas": " ".join(f"{d:+d}" for d in j["deltas"])}
        for s, h in enumerate(j["hands"]):
            row[f"seat {s}"] = h
        rows.append(row)
    return pd.DataFrame(rows)
