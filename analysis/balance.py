"""Swing and skill: how a seat's match total spreads, and how much of it the agents explain.

- :func:`swing`: per group, the distribution of a seat's **match total** (the sum of
  its points over the hands of one match, each rotation of a duplicate match
  apart): its SD with a bootstrap 95% interval (matches resampled, seeded), and
  quantiles.
- :func:`skill_share`: from **duplicate** runs (``mjlog simulate --duplicate``, or
  ``mjlog ladder --out DIR``: a balanced ladder's folder gives one row per seat
  order, ``--seating cyclic`` one), the share of the variance of match totals
  explained by which agent sat there (skill) rather than by the walls, the seat
  and the play (luck): ω² of a one-way layout (agents as the factor), with a
  bootstrap 95% interval over matches. One call on several runs answers "does
  skill matter more in huangmei than in yuxi?"; :func:`skill_share_difference`
  gives that difference with its interval.

The seat-position figures a balance study needs (dealer advantage and each
position's, paired within the match) are :func:`analysis.queries.position_advantage`.

>>> from analysis.studies.sample import tiny_run
>>> s = swing(tiny_run())
>>> bool(s.sd_lo.iloc[0] <= s.sd.iloc[0] <= s.sd_hi.iloc[0])
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.compare import PAIR_KEY, match_units, same_walls
from analysis.queries import GROUP, GROUP_SQL, HANDS_CTE, as_runs, fetch_columns, finished_table

__all__ = ["BOOTSTRAP", "skill_share", "skill_share_difference", "swing"]

BOOTSTRAP = 999
"""Bootstrap resamples (percentile intervals, seeded: the same runs give the same CI)."""

BATCH = 1_000_000
"""Resampled indices drawn at once by a vectorised bootstrap (resamples × matches): its
working memory is a few times 8 bytes × this, whatever the run's size. The draws are
one stream however they are batched, so the interval does not depend on it."""

_SEATS = ", ".join(f"sum(deltas[{i + 1}])::BIGINT AS s{i}" for i in range(4))
_TOTALS = f"""
WITH {HANDS_CTE}
SELECT {GROUP_SQL}, run_id, match, rotation, max(players) AS players, count(*) AS hands, {_SEATS}
FROM h GROUP BY ALL ORDER BY ALL
"""
"""Per (match, rotation): each seat's points summed (plain column sums)."""


def _by_seat(w: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per seat of each (match, rotation) row of ``w`` (its ``s0``..``s3``
    sums), with ``seat`` and ``spec`` (the agent's place in the line-up as given)."""
    parts = []
    for i in range(4):
        part = w[w["players"] > i][
            [*keys, "match", "rotation", "players", "hands", f"s{i}"]
        ].rename(columns={f"s{i}": "total"})
        part["seat"] = i
        parts.append(part)
    t = pd.concat(parts, ignore_index=True).sort_values(
        ["run_id", "match", "rotation", "seat"], kind="stable"
    )
    t["spec"] = (t["seat"] - t["rotation"]) % t["players"]
    return t.reset_index(drop=True)


def _totals(runs):
    """A seat's match total per (match, rotation, seat); ``spec`` is the agent's place in
    the line-up as given (duplicate play seats it at (spec + rotation) mod n). Kept on
    ``runs`` (swing and skill share it)."""
    runs = as_runs(runs)
    cache = runs.__dict__.setdefault("_cache", {})
    if "totals" not in cache:
        t = _by_seat(runs.sql(_TOTALS), [*GROUP, "run_id"])
        cache["totals"] = runs._in_run_order(t)
    return runs, cache["totals"]


def _groups(runs):
    """(runs, [(group key, its rows' filter)]): the groups of the DuckDB table
    ``seat_totals`` (per (match, rotation): ``run`` (a code in the runs' sort order),
    ``match``, ``rotation``, ``players``, ``hands`` and ``s0`` … ``s3``, each seat's
    points), in their first row's order; a group's rows are fetched (:func:`_fetch`)
    only when the caller reaches it, so one group's matches are held at a time, not
    every group's with their labels."""
    runs = as_runs(runs)
    cache = runs.__dict__.setdefault("_cache", {})
    if "totals_table" not in cache:
        runs.store(
            f"""CREATE OR REPLACE TABLE seat_totals AS
            SELECT t.*, k.run FROM ({_TOTALS.replace("ORDER BY ALL", "")}) t
            JOIN (SELECT run_id, (row_number() OVER (ORDER BY run_id))::INT AS run
                  FROM runs) k USING (run_id)""",
            {},
        )
        cache["totals_table"] = "seat_totals"
    # groups in their first row's order, rows by run, match and rotation (no window
    # over every row: DuckDB cannot spill one)
    keys = runs.sql(
        f"SELECT {GROUP_SQL} FROM seat_totals GROUP BY ALL "
        "ORDER BY min(struct_pack(r := run_id, m := match, t := rotation))"
    )
    return runs, [tuple(k) for k in keys.itertuples(index=False)]


_WHERE = " AND ".join(f"{c} IS NOT DISTINCT FROM ${i}" for i, c in enumerate(GROUP, 1))


def _fetch(runs, key: tuple, select: str, tail: str = "ORDER BY run, match, rotation"):
    """``SELECT select`` over the rows of group ``key`` of ``seat_totals``, then ``tail``,
    as one NumPy array a column (in batches, as ``fetchnumpy`` gives them: not DuckDB's
    whole result beside the arrays; NULLs masked, 0 beneath)."""
    return fetch_columns(
        runs, f"SELECT {select} FROM seat_totals WHERE {_WHERE} {tail}", list(key), masked=True
    )


_ROWS = "run AS run_id, match, rotation, players, hands, s0, s1, s2, s3"
"""A group's rows as :func:`_seats` reads them."""

# a seat's total where it sat (players > i; a NULL there counts 0, as masked it did)
_SEAT = [f"CASE WHEN players > {i} THEN coalesce(s{i}, 0) ELSE 0 END" for i in range(4)]
_PER_MATCH = f"""sum({" + ".join(_SEAT)})::BIGINT AS ms,
    sum({" + ".join(f"({x}) * ({x})" for x in _SEAT)})::BIGINT AS mq,
    sum(players)::BIGINT AS mn, sum(hands)::BIGINT AS hands, count(*)::BIGINT AS n"""
"""Per match of a group (``GROUP BY run, match``), made by DuckDB: ``ms`` its seats'
totals summed, ``mq`` their squares summed, ``mn`` the seats counted (integers), and the
``hands`` and rows ``n`` (rotations) of the match: only these per-match arrays come
back for swing's bootstrap, not a row per (match, rotation) and its squares."""


def _boot(
    data: tuple[np.ndarray, ...], stat, seed: int = 0, vectorized: bool = False
) -> tuple[float, float]:
    if len(data[0]) < 2:
        return np.nan, np.nan
    r = st.bootstrap(
        data,
        stat,
        n_resamples=BOOTSTRAP,
        vectorized=vectorized,
        paired=True,
        method="percentile",
        rng=np.random.default_rng(seed),
        batch=max(1, BATCH // len(data[0])) if vectorized else None,
    )
    return float(r.confidence_interval.low), float(r.confidence_interval.high)


def swing(runs, quantiles=(0.05, 0.25, 0.5, 0.75, 0.95)) -> pd.DataFrame:
    """Per group: a seat's match total (points over one match's hands): ``sd`` with a
    bootstrap 95% CI (``sd_lo``, ``sd_hi``; matches resampled), ``mean_abs``, the
    quantiles ``p5`` … ``p95``, ``matches``, ``hands_per_match`` (mean)."""
    runs, keys = _groups(runs)
    rows = []
    for key in keys:
        # the per-match sums the bootstrap needs, summed by DuckDB (integers, exact as
        # the float sums of these integers are)
        m = _fetch(runs, key, _PER_MATCH, "GROUP BY run, match ORDER BY run, match")
        ms, mq, mn = (np.asarray(m[c]).astype(float) for c in ("ms", "mq", "mn"))
        hands_per_match = _mean(m["hands"], m["n"])
        del m
        # every seat's total, as floats in their order (the SD sums them in it)
        w = _fetch(runs, key, "players, s0, s1, s2, s3")
        v = _seat_values(w, float)
        del w

        def sd(i, ms=ms, mq=mq, mn=mn, axis=-1):  # from per-match sums, resamples at once
            i = i.astype(int)
            n, t = mn[i].sum(axis), ms[i].sum(axis)
            return np.sqrt(np.maximum(mq[i].sum(axis) - t * t / n, 0) / (n - 1))

        lo, hi = _boot((np.arange(len(ms)),), sd, vectorized=True)
        row = {
            **dict(zip(GROUP, key, strict=True)),
            "matches": len(ms),
            "hands_per_match": hands_per_match,
            "sd": float(v.std(ddof=1)) if len(v) > 1 else np.nan,
            "sd_lo": lo,
            "sd_hi": hi,
            "mean_abs": float(np.abs(v).mean()),
        }
        for q in quantiles:
            row[f"p{q * 100:g}"] = float(np.quantile(v, q))
        rows.append(row)
    return finished_table(runs, pd.DataFrame(rows))


def _seat_values(w: dict[str, np.ndarray], dtype: type = np.int64) -> np.ndarray:
    """Every seat's match total of the rows ``w`` (:func:`_fetch`: ``players``,
    ``s0`` … ``s3``), row by row and seat by seat (the order of :func:`_by_seat`'s
    rows), as ``dtype`` (a float is exact: sums of points)."""
    players = np.asarray(w["players"], dtype=np.int64)
    first = np.cumsum(players) - players  # a row's first place in the output
    out: np.ndarray = np.empty(int(players.sum()), dtype=dtype)
    # seat by seat into its places (no rows × 4 table beside the output: 40 MB at 10M)
    for i in range(4):
        sat = players > i
        out[first[sat] + i] = np.asarray(w[f"s{i}"], dtype=np.int64)[sat]
    return out


def _mean(hands: np.ndarray, rows: np.ndarray) -> float:
    """The mean length of a match (of one rotation, in duplicate play) in hands, from
    the per-match ``hands`` and ``rows`` (rotations) of :data:`_PER_MATCH`: the total
    over the rows, the float pandas' mean of the rows' hands gives (its float sum of
    these integers is exact)."""
    return float(int(np.sum(hands)) / int(np.sum(rows)))


def _seats(w: dict[str, np.ndarray]) -> pd.DataFrame:
    """The rows ``w`` (:func:`_fetch` of :data:`_ROWS`) one row per seat (:func:`_by_seat`)."""
    return _by_seat(pd.DataFrame({k: np.asarray(v) for k, v in w.items()}), ["run_id"])


def _omega2(s: np.ndarray, q: np.ndarray, n: np.ndarray) -> float:
    """ω² of a one-way layout from per-match sums: ``s[m, j]`` Σ totals of agent j,
    ``q[m]`` Σ squares, ``n[m, j]`` counts."""
    sj, nj = s.sum(0), n.sum(0)
    N, k = nj.sum(), (nj > 0).sum()
    grand = sj.sum()
    ss_total = q.sum() - grand**2 / N
    ss_between = (sj[nj > 0] ** 2 / nj[nj > 0]).sum() - grand**2 / N
    ms_within = (ss_total - ss_between) / (N - k) if N > k else np.nan
    if not ss_total > 0:
        return np.nan
    return float(max(0.0, (ss_between - (k - 1) * ms_within) / (ss_total + ms_within)))


def _layout(t: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per match: Σ totals per line-up place ``s[m, j]``, Σ squares ``q[m]``, counts
    ``n[m, j]``."""
    m_index = pd.MultiIndex.from_frame(t[["run_id", "match"]].drop_duplicates())
    gg = t.assign(sq=t["total"].astype(float) ** 2, one=1.0)

    def per(col):
        return (
            gg.pivot_table(
                index=["run_id", "match"], columns="spec", values=col, aggfunc="sum", fill_value=0
            )
            .reindex(m_index)
            .to_numpy(float)
        )

    q = gg.groupby(["run_id", "match"])["sq"].sum().reindex(m_index).to_numpy(float)
    return per("total"), q, per("one")


def skill_share(runs) -> pd.DataFrame:
    """Per group of duplicate runs: ``skill_share`` = the share of the variance of a
    seat's match total explained by the agent (ω², clipped at 0) with a bootstrap 95%
    CI (``skill_share_lo``, ``_hi``; matches resampled: the walls are the luck), and
    ``luck_share`` = 1 − skill_share. ``agents`` counts the line-up's distinct places;
    ``lineup`` names them and ``hands_per_match`` is the match length: the share grows
    with it (a longer match averages more luck away), so state both with it.
    Groups that are not duplicate play get NaN: there the agents' seats and walls are
    confounded. The unit is the agent's place in the line-up as given (two ``greedy``
    are two places)."""
    runs, keys = _groups(runs)
    dup = {(r.variant, r.config): r.duplicate for r in runs.runs}
    rows = []
    for key in keys:
        row = {**dict(zip(GROUP, key, strict=True)), "duplicate": dup.get(key[:2], False)}
        # a row's seats take every place of the line-up: (seat − rotation) mod players
        g = _fetch(
            runs,
            key,
            "max(players)::BIGINT AS k, count(DISTINCT (run, match))::BIGINT AS matches, "
            "sum(hands)::BIGINT AS hands, count(*)::BIGINT AS n",
            "",
        )
        k, matches = int(g["k"][0]), int(g["matches"][0])
        # ω² grows with match length (a longer match averages more luck away): the
        # figure means nothing without it, so it travels with the figure
        row["matches"], row["agents"] = matches, k
        row["hands_per_match"] = _mean(g["hands"], g["n"])
        if not row["duplicate"] or matches < 2:
            row.update(
                skill_share=np.nan, skill_share_lo=np.nan, skill_share_hi=np.nan, luck_share=np.nan
            )
            rows.append(row)
            continue
        w = _fetch(runs, key, _ROWS)
        s, q, n = _layout(_seats(w))
        value = _omega2(s, q, n)

        def stat(i, s=s, q=q, n=n):
            return _omega2(s[i], q[i], n[i])

        lo, hi = _boot((np.arange(len(q)),), stat)
        row.update(skill_share=value, skill_share_lo=lo, skill_share_hi=hi, luck_share=1 - value)
        rows.append(row)
    return finished_table(runs, pd.DataFrame(rows))


def skill_share_difference(a, b) -> dict:
    """``skill_share(b) − skill_share(a)`` for two duplicate runs (each one group), with
    a bootstrap 95% CI (seeded) and the share of resamples on the other side of 0 (×2,
    a two-sided bootstrap p, at least 2/(B + 1)). When the two were dealt the same
    walls match by match (the same :data:`~analysis.compare.PAIR_KEY` matches,
    :func:`~analysis.compare.same_walls`) a match and its twin are resampled
    together (``paired``), so the luck they share cancels; otherwise each side's
    matches are resampled independently."""
    sides = []
    for runs in (a, b):
        runs, t = _totals(runs)
        units = match_units(runs)[0].set_index(["run_id", "match"], drop=False)[PAIR_KEY]
        order = pd.MultiIndex.from_frame(t[["run_id", "match"]].drop_duplicates())
        keys = [tuple(k) for k in units.reindex(order).itertuples(index=False)]
        sides.append((runs, _layout(t), keys))
    (ra, la, ka), (rb, lb, kb) = sides
    paired = len(set(ka)) == len(ka) and sorted(ka) == sorted(kb) and same_walls(ra, rb)
    if paired:  # b's matches in a's order
        at = {k: i for i, k in enumerate(kb)}
        j = np.array([at[k] for k in ka])
        lb = tuple(x[j] for x in lb)
    parts = [la, lb]
    rng = np.random.default_rng(0)
    diffs = []
    for _ in range(BOOTSTRAP):
        picks: tuple[np.ndarray, ...]
        if paired:
            i = rng.integers(0, len(ka), len(ka))
            picks = (i, i)
        else:  # a's draw, then b's
            picks = tuple(rng.integers(0, len(p[1]), len(p[1])) for p in parts)
        v = [_omega2(s[i], q[i], n[i]) for (s, q, n), i in zip(parts, picks, strict=True)]
        diffs.append(v[1] - v[0])
    d = np.asarray(diffs)
    point = _omega2(*parts[1]) - _omega2(*parts[0])
    lo, hi = np.nanpercentile(d, [2.5, 97.5])
    p = min(1.0, 2 * (min((d <= 0).sum(), (d >= 0).sum()) + 1) / (len(d) + 1))
    return {"diff": float(point), "lo": float(lo), "hi": float(hi), "p": float(p), "paired": paired}
