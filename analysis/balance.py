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
    """(runs, [(group key, its seats' sums per match and rotation)]): per (match,
    rotation) of one group, numpy columns ``run_id`` (a code in the runs' sort order),
    ``match``, ``rotation``, ``players``, ``hands`` and ``s0`` … ``s3`` (each seat's
    points), in that order; each group's fetched from a DuckDB temp table only when the
    caller reaches it, so one group's matches are held at a time, not every group's
    with their labels. :func:`_seats` makes them one row per seat."""
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
    where = " AND ".join(f"{c} IS NOT DISTINCT FROM ${i}" for i, c in enumerate(GROUP, 1))

    def fetch(key):
        # in batches, as fetchnumpy gives them: not DuckDB's whole result beside the arrays
        return fetch_columns(
            runs,
            f"""SELECT run AS run_id, match, rotation, players, hands, s0, s1, s2, s3
            FROM seat_totals WHERE {where} ORDER BY run_id, match, rotation""",
            list(key),
            masked=True,
        )

    return runs, ((tuple(k), fetch(k)) for k in keys.itertuples(index=False))


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
    runs, groups = _groups(runs)
    rows = []
    for key, w in groups:
        totals = _seat_values(w)
        # integer sums per match (exact, as the float sums of these integers are)
        ms, mq, mn = (x.astype(float) for x in _per_match(w, totals))
        hands_per_match = _mean_hands(w)
        del w

        def sd(i, ms=ms, mq=mq, mn=mn, axis=-1):  # from per-match sums, resamples at once
            i = i.astype(int)
            n, t = mn[i].sum(axis), ms[i].sum(axis)
            return np.sqrt(np.maximum(mq[i].sum(axis) - t * t / n, 0) / (n - 1))

        v = totals.astype(float)
        del totals
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


def _seat_values(w: dict[str, np.ndarray]) -> np.ndarray:
    """Every seat's match total of the rows ``w`` (:func:`_groups`), row by row and seat
    by seat (the order of :func:`_by_seat`'s rows)."""
    players = np.asarray(w["players"], dtype=np.int64)
    first = np.cumsum(players) - players  # a row's first place in the output
    out: np.ndarray = np.empty(int(players.sum()), dtype=np.int64)
    # seat by seat into its places (no rows × 4 table beside the output: 40 MB at 10M)
    for i in range(4):
        sat = players > i
        out[first[sat] + i] = np.asarray(w[f"s{i}"], dtype=np.int64)[sat]
    return out


def _per_match(w: dict[str, np.ndarray], totals: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per match of the rows ``w`` (in order; ``totals``: :func:`_seat_values`): the
    seats' totals summed, their squares summed, and the seats counted (integers)."""
    players = np.asarray(w["players"], dtype=np.int64)
    if not len(players):
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    run, match = np.asarray(w["run_id"], np.int64), np.asarray(w["match"], np.int64)
    first = np.flatnonzero(np.r_[True, (run[1:] != run[:-1]) | (match[1:] != match[:-1])])
    seat_first = np.r_[0, np.cumsum(players)[:-1]][first]  # a match's first seat row
    return (
        np.add.reduceat(totals, seat_first),
        np.add.reduceat(totals * totals, seat_first),
        np.add.reduceat(players, first),
    )


def _mean_hands(w: dict[str, np.ndarray]) -> float:
    """The mean length of a match (of one rotation, in duplicate play) in hands, of
    the rows ``w`` (:func:`_groups`)."""
    return float(pd.Series(np.asarray(w["hands"])).mean())


def _seats(w: dict[str, np.ndarray]) -> pd.DataFrame:
    """The rows ``w`` (:func:`_groups`) one row per seat (:func:`_by_seat`)."""
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
    runs, groups = _groups(runs)
    dup = {(r.variant, r.config): r.duplicate for r in runs.runs}
    rows = []
    for key, w in groups:
        row = {**dict(zip(GROUP, key, strict=True)), "duplicate": dup.get(key[:2], False)}
        # a row's seats take every place of the line-up: (seat − rotation) mod players
        k = int(np.asarray(w["players"]).max())
        matches = len(_per_match(w, _seat_values(w))[2])
        # ω² grows with match length (a longer match averages more luck away): the
        # figure means nothing without it, so it travels with the figure
        row["matches"], row["agents"] = matches, k
        row["hands_per_match"] = _mean_hands(w)
        if not row["duplicate"] or matches < 2:
            row.update(
                skill_share=np.nan, skill_share_lo=np.nan, skill_share_hi=np.nan, luck_share=np.nan
            )
            rows.append(row)
            continue
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
