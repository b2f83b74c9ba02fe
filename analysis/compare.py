"""Two rule settings side by side: every headline figure of runs against a baseline,
as differences with their intervals, paired match by match where the runs share
their deal (:func:`paired_comparison`); and how precise each figure is now
(:func:`precision`). The per-match sums every figure is a ratio of come from
:func:`match_units`; the intervals from :mod:`analysis.stats`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.match_sums import MatchSums, Metrics, metric_specs
from analysis.queries import (
    COPY_PREFIX,
    GROUP,
    CopyColumns,
    Runs,
    as_runs,
    config_label,
    expand_paths,
    finished_table,
    mark_defaults,
    rules_of_run,
)
from analysis.rates import RARE, is_rate, rate, rate_difference
from analysis.stats import Difference, pseudo_values
from mjlog.judgement import Verdict
from mjlog.logio import LogError
from mjlog.metrics import METRICS

__all__ = [
    "COMPARE_METRICS",
    "PAIR_KEY",
    "Pairing",
    "Study",
    "match_units",
    "paired_comparison",
    "pairing",
    "precision",
    "same_walls",
    "study",
    "trends",
]


COMPARE_METRICS = {m.shown: m.description for m in METRICS}
"""The metrics of :func:`paired_comparison` and what they measure (:mod:`mjlog.metrics`)."""


def match_units(runs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per match (the unit of every interval): its group, run and ``seed``; the
        :data:`PAIR_KEY` columns (match size, duplicate flag, match index and ``seed0``,
        the seed of its first hand: equal keys mean the same walls when the tile sets
        agree, which :func:`paired_comparison` checks); and the sums the
        headline figures are ratios of: ``hands``, ``draws``, ``moved``, ``pts0`` …
        ``pts3`` (points by position after the dealer), ``players``, ``wins``,
        ``win_total`` (Σ ``wins.total``), ``win_points`` (Σ ``wins.points``, per payer),
        ``capped``. Second frame: per match and pattern, ``with_`` = wins
        carrying it. DuckDB aggregates by match, reading only the columns it needs; the
        group columns come from each run's manifest (a run's line-up is its agents as
        given, which is also what duplicate play turns back to rotation 0). A command
    over a large run reads the sums column by column instead (:class:`MatchSums`)."""
    # read once into DuckDB (analysis.match_sums), as compare and precision read them
    return MatchSums.of(as_runs(runs)).frame()


PAIR_KEY = ["hands_per_match", "duplicate", "match", "seed0"]
"""The columns of :func:`match_units` that say two matches were dealt the same walls
(given the same tile set: :func:`same_walls`)."""


@dataclass(frozen=True)
class Pairing:
    """How a comparison's matches were matched up, and the sentence that says why.

    ``unit`` is ``match`` when the two runs deal from one seed, match size, duplicate
    flag and tile set: match *m* of one and match *m* of the other start from the
    same shuffled walls, so their luck is shared and :func:`scipy.stats.ttest_rel`
    on the pairs cancels it. That stays true, and the pairing valid, when a rule
    changes a result and later hands of the match are dealt from another dealer
    (yuxi and huangmei: the winner deals next): the pair is formed before play, by
    seed and match index, never by outcome. ``hands_same_walls`` of ``hands_shared``
    says how much of the deal the pairs still share. ``unit`` is ``none`` only for
    runs of another seed, match size, duplicate flag or tile set, and ``text`` names
    which of those holds."""

    unit: str
    text: str
    hands_same_walls: int | None = None
    hands_shared: int | None = None
    base_rows: np.ndarray | None = None
    other_rows: np.ndarray | None = None
    differing: pd.DataFrame | None = None
    """Per paired match, :func:`hands_differing` (found by the same join)."""

    @property
    def paired(self) -> bool:
        return self.unit == "match"


_FOR_SEATS = ("agents", "variant", "winners", "n_events", "wall_left")
"""Columns of the hands only a study of mixed line-ups reads (its seat sums)."""

DEAL_COPY_AGENTS = CopyColumns(
    ("wall", "dice", "dealer_rolls", "break", "next_dealer"),
    (
        ("wall_hash", "CASE WHEN wall IS NOT NULL THEN hash(wall) END"),
        ("wall_tiles", "len(wall)"),
        ("result_hash", "hash(outcome, winners, deltas)"),
    ),
    ordered=False,
)
"""What a side of ``mjlog compare`` of mixed line-ups keeps of its hands
(:meth:`Runs.copy`), read once: every column its match sums and seat sums read, and
instead of the wall its hash and size and a hash of the hand's result (:func:`_deals`
joins those), computed in the same read. The dice, break and next dealer no query
of compare names. In any order: every query of compare orders or keys its rows
(a tenth of the copy's time at 1M hands)."""

DEAL_COPY = replace(DEAL_COPY_AGENTS, left_out=(*DEAL_COPY_AGENTS.left_out, *_FOR_SEATS))
""":data:`DEAL_COPY_AGENTS` without the columns only seat sums read: what a side keeps
where every seat of a line-up is one agent (the seats' agents were a fifth of the
copy's time at 1M hands)."""


def _copy_side(runs: Runs, agents: bool, joins: int) -> None:
    """Copy a side's tables into its work database (:meth:`Runs.copy`), each run's
    files read once for the whole study: hands (:data:`DEAL_COPY`) and wins, which its
    match sums and every join read; transfers only where more than one join reads
    them (the baseline of three sides or more), a single join reading them from
    their files."""
    runs.copy("hands", DEAL_COPY_AGENTS if agents else DEAL_COPY)
    runs.copy("wins")
    if joins > 1:
        runs.copy("transfers")


def _hashed(runs: Runs) -> str | None:
    """The copy of ``runs``' hands with their walls' hashes (:data:`DEAL_COPY`), if made."""
    kept = runs.copy_columns("hands")
    return runs.copy("hands") if kept is not None and "wall_hash" in kept.names() else None


def _tiles(runs: Runs) -> int | None:
    """Tiles in a wall of ``runs`` (one hand read), None without walls."""
    copy = _hashed(runs)
    if copy is not None:  # the copy's wall sizes: no file read again
        got = runs.con.execute(
            f"SELECT wall_tiles FROM {copy} WHERE wall_tiles IS NOT NULL LIMIT 1"
        ).fetchall()
        return int(got[0][0]) if got else None
    n = runs.sql("SELECT len(wall) AS n FROM read_parquet($hands) WHERE wall IS NOT NULL LIMIT 1")[
        "n"
    ]
    return int(n.iloc[0]) if len(n) else None


def _deals(
    a: Runs, b: Runs, matches: Sequence[int] | np.ndarray, every: bool = False
) -> tuple[dict[str, int], pd.DataFrame]:
    """Over the hands both runs hold in ``matches``: ``shared`` hands, ``same`` walls;
    of the first hands, ``firsts``, ``first_same`` walls and ``first_tiles`` with one
    multiset of tiles; ``tiles_a``, ``tiles_b`` (wall sizes). And per match,
    :func:`hands_differing`'s ``hands`` and ``differing``. Per block of matches, DuckDB
    finds the hands whose wins or transfers differ (:func:`_odd_query`), then joins the
    two runs' hands by (match, rotation, hand), hashes only (:func:`_deals_query`);
    only counts come back. ``every``: ``matches`` are every match of both runs (no
    list to filter by).

    A side's table is read from its copy where :func:`_copy_side` made one (its files
    read once for the whole study), else from its files, a block's files at a time.
    Only the first walls of a block that differ between the sides are read from the
    files again, for their tiles (:func:`_first_tiles_query`): a check of the tile
    set that runs only for deals that differ from their first hand, whose walls the
    copy does not keep."""
    ms = np.sort(np.asarray(matches, dtype=np.int64))  # an array: 1.25M ints as a list are 45 MB
    src = _sources(a, b)
    spans = {
        name: _match_spans(runs.files(name[2:]))
        for name, runs in _sides(a, b)
        if src[name] == f"read_parquet(${name})"
    }
    got = dict.fromkeys(("shared", "same", "firsts", "first_same"), 0)
    got.update(tiles_a=0, tiles_b=0)
    # per block only its reduced counts and its matches' three columns as arrays (a
    # block's frame kept each time grew a 10M-hand compare by ~2 MB a block), the
    # counts as 32-bit integers (a match's hands: 10 MB less at 10M than as 64-bit)
    per: dict[str, list[np.ndarray]] = {"match": [], "hands": [], "differing": []}
    odd, query = _odd_query(every, src), _deals_query(every, src)
    for params in _blocks(ms, every, spans):
        # a block's hands whose wins or transfers differ, kept apart before its hands
        # are joined: the two in one query held both tables' readers at once (+50 MB)
        a.store(odd, _bound(odd, params))
        cols = a.numbers(query, **_bound(query, params))
        for name in got:
            col = cols[name]
            if name.startswith("tiles_"):
                got[name] = max(got[name], int(col.max()) if len(col) else 0)
            else:
                got[name] += int(col.sum())
        for name, kept in per.items():
            kept.append(cols[name])
        del cols
    a.con.execute(f"DROP TABLE IF EXISTS {_ODD}")
    # one wall a first hand alike on both sides is one multiset of tiles: only the first
    # hands dealt otherwise have their tiles sorted (a sort of every first wall was a
    # sixth of the join's time)
    got["first_tiles"] = got["first_same"]
    if got["first_same"] < got["firsts"]:
        tiles = _first_tiles_query(every)
        walls = {f"{s}_hands": _match_spans(r.files("hands")) for s, r in (("a", a), ("b", b))}
        got["first_tiles"] = sum(
            int(a.numbers(tiles, **_bound(tiles, params))["n"].sum())
            for params in _blocks(ms, every, walls)
        )
    if not per["match"]:
        return got, pd.DataFrame({"match": [], "hands": [], "differing": []})
    return got, pd.DataFrame({name: np.concatenate(kept) for name, kept in per.items()}, copy=False)


def _sides(a: Runs, b: Runs) -> Iterator[tuple[str, Runs]]:
    """``a_hands``, ``a_wins`` … ``b_transfers``, each with its side's runs."""
    for side, runs in (("a", a), ("b", b)):
        for t in ("hands", "wins", "transfers"):
            yield f"{side}_{t}", runs


def _sources(a: Runs, b: Runs) -> dict[str, str]:
    """SQL: what :func:`_deals` reads each side's table from (:func:`_sides`' names):
    its copy, where the side has one (the hands' with their walls hashed,
    :data:`DEAL_COPY`) in a database ``a``'s connection sees (two :class:`Runs` made
    apart are two DuckDB databases), else ``read_parquet($a_hands)`` (…) of its files."""
    out = {}
    seen = {
        str(n) for (n,) in a.con.execute("SELECT database_name FROM duckdb_databases()").fetchall()
    }
    for name, runs in _sides(a, b):
        table = name[2:]
        if runs.work not in seen:
            copy = None
        elif table == "hands":
            copy = _hashed(runs)
        else:
            copy = runs.copy(table) if runs.copy_columns(table) is not None else None
        out[name] = copy or f"read_parquet(${name})"
    return out


def _blocks(
    ms: np.ndarray, every: bool, spans: dict[str, list[tuple[str, float, float]]]
) -> Iterator[dict[str, Any]]:
    """The parameters of each block of :data:`DEAL_BLOCK` matches of ``ms`` (sorted):
    ``lo`` … ``hi``, ``m`` (unless ``every``) and each of ``spans``' file lists cut to
    the files the block's matches can be in. A block's joins hold its hands, not the
    run's, and it reads only its files (a run's files named to every block would have
    every footer read once a block)."""
    for i in range(0, len(ms), DEAL_BLOCK):
        block = ms[i : i + DEAL_BLOCK]
        lo, hi = int(block[0]), int(block[-1])
        params: dict[str, Any] = {"lo": lo, "hi": hi}
        if not every:
            params["m"] = block.tolist()
        for name, files in spans.items():
            params[name] = _overlapping(files, lo, hi)
        yield params


def _bound(query: str, params: dict[str, Any]) -> dict[str, Any]:
    """The ``params`` that ``query`` names (DuckDB refuses any other)."""
    named = set(re.findall(r"\$(\w+)", query))
    return {k: v for k, v in params.items() if k in named}


def _match_spans(files: list[str]) -> list[tuple[str, float, float]]:
    """Each of ``files`` (as DuckDB names them: :func:`mjlog.rundir.duckdb_path`) with
    the lowest and highest match its row groups' statistics give (−∞, ∞ where a file
    has none, or no footer pyarrow can read: read for every block, and DuckDB says
    what is wrong with it). pyarrow reads the footers in half DuckDB's time
    (``parquet_metadata`` makes a row of every column chunk)."""
    out = []
    for f in files:
        lo, hi = -math.inf, math.inf
        try:
            md = pq.read_metadata(re.sub(r"\[([\[*?])\]", r"\1", f))  # duckdb_path undone
            j = [md.schema.column(k).path for k in range(md.num_columns)].index("match")
            stats = [md.row_group(g).column(j).statistics for g in range(md.num_row_groups)]
            if stats and all(st is not None and st.has_min_max for st in stats):
                lo, hi = min(st.min for st in stats), max(st.max for st in stats)
        except (OSError, ValueError, pa.ArrowException):
            pass
        out.append((f, lo, hi))
    return out


def _overlapping(files: list[tuple[str, float, float]], lo: int, hi: int) -> list[str]:
    """The files whose matches can be in ``lo`` … ``hi`` (one file at least: a query
    reads none of its rows outside the range, and names a file to read)."""
    got = [f for f, a, b in files if a <= hi and b >= lo]
    return got or [files[0][0]]


DEAL_BLOCK = 50_000
"""Matches whose hands :func:`_deals` compares in one DuckDB join."""


def _why_apart(a: Runs, b: Runs) -> str:
    """What sets two runs' deals apart, of seed, match size, duplicate flag and tile
    set: every one that holds, and only those."""
    ra, rb = a.runs[0], b.runs[0]
    why = []
    if ra.seed != rb.seed:
        why.append(
            "another seed" + ("" if None in (ra.seed, rb.seed) else f" ({ra.seed} vs {rb.seed})")
        )
    if ra.hands_per_match != rb.hands_per_match:
        why.append(
            f"another match size ({ra.hands_per_match} vs {rb.hands_per_match} hands a match)"
        )
    if ra.duplicate != rb.duplicate:
        why.append("one plays duplicate, the other not")
    ta, tb = _tiles(a), _tiles(b)
    if ta is not None and tb is not None and ta != tb:
        why.append(f"another tile set ({ta} vs {tb} tiles)")
    return " and ".join(why) or "no match dealt from the same seed in both"


def pairing(a: Runs, b: Runs, ua: pd.DataFrame, ub: pd.DataFrame) -> Pairing:
    """How the matches of ``a`` (rows ``ua`` of :func:`match_units`) and ``b`` (``ub``)
    pair up (:class:`Pairing`): by match when they share :data:`PAIR_KEY` matches
    (one seed, match size and duplicate flag) and the first hand of each of those was
    dealt the same tiles; with the rows of ``ua`` and ``ub`` that pair, in order."""
    return _paired_by(a, b, *_pair_rows(ua, ub))


def _pair_rows(
    ua: pd.DataFrame, ub: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The rows of ``ua`` and ``ub`` that pair (:func:`_pairs`), their matches (sorted)
    and whether those are every match of both: all :func:`_paired_by` needs, so the
    two key frames can go before the runs' hands are joined."""
    rows_a, rows_b = _pairs(ua, ub)
    every = len(rows_a) == len(ua) == len(ub)  # no match left out: no list to filter by
    return rows_a, rows_b, np.unique(ua["match"].to_numpy(np.int64)[rows_a]), every


def _paired_by(
    a: Runs, b: Runs, rows_a: np.ndarray, rows_b: np.ndarray, matches: np.ndarray, every: bool
) -> Pairing:
    """:func:`pairing` of the rows :func:`_pair_rows` found."""
    if not len(rows_a):
        return Pairing("none", _why_apart(a, b))
    f, differing = _deals(a, b, matches, every)
    if f["firsts"] and f["first_tiles"] < f["firsts"]:
        sizes = f" ({f['tiles_a']} vs {f['tiles_b']} tiles)" if f["tiles_a"] != f["tiles_b"] else ""
        return Pairing("none", f"another tile set{sizes}: the same seed deals other walls")
    text = "paired by match: same seed and match"
    if not f["firsts"]:
        text += " (no walls logged to compare)"
    else:
        text += f"; walls agree on {f['same']:,} of {f['shared']:,} hands"
        if f["same"] < f["shared"]:
            text += (
                ", play diverged after a changed result moved a dealer (and with it the break)"
                if f["first_same"] == f["firsts"]
                else ", the same tiles shuffled alike but the first dealer or the break differs"
            )
    return Pairing(
        "match",
        text,
        f["same"],
        f["shared"],
        rows_a,
        rows_b,
        differing,
    )


def _pairs(ua: pd.DataFrame, ub: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``ua`` and ``ub`` with one :data:`PAIR_KEY`, in ``ua``'s order (an
    inner merge's). Where each side's matches are unique (one run a side) the keys are
    matched as arrays, not as a merge of frames of every match."""
    one = ["hands_per_match", "duplicate"]
    if not (
        _unique(ua["match"])
        and _unique(ub["match"])
        and all(_one_value(u[c]) for u in (ua, ub) for c in one)
    ):
        both = (
            ua[PAIR_KEY]
            .assign(_a=np.arange(len(ua)))
            .merge(ub[PAIR_KEY].assign(_b=np.arange(len(ub))), on=PAIR_KEY)
        )
        return both["_a"].to_numpy(), both["_b"].to_numpy()
    none = np.zeros(0, dtype=np.int64)
    if not len(ua) or not len(ub) or any(ua[c].iloc[0] != ub[c].iloc[0] for c in one):
        return none, none
    return _matched(
        ua["match"].to_numpy(np.int64),
        ub["match"].to_numpy(np.int64),
        ua["seed0"].to_numpy(),
        ub["seed0"].to_numpy(),
    )


def _matched(
    ma: np.ndarray, mb: np.ndarray, seed_a: np.ndarray, seed_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The places in ``ma`` and ``mb`` (each side's matches unique) of the matches both
    hold with one first seed (``seed_a``, ``seed_b``), in ``ma``'s order: :func:`_pairs`
    of one run a side."""
    ia, ib = _common(ma, mb)
    sa, sb = seed_a[ia], seed_b[ib]
    same = sa == sb
    if sa.dtype.kind == "f" or sb.dtype.kind == "f":  # a merge matches NaN with NaN
        same |= pd.isna(sa) & pd.isna(sb)
    del sa, sb
    if not same.all():  # every match paired (runs of one seed): no copies of the rows
        ia, ib = ia[same], ib[same]
    if not _increasing(ia):
        order = np.argsort(ia, kind="stable")
        ia, ib = ia[order], ib[order]
    return ia, ib


def _sides_pair_rows(
    base: _Loaded, other: _Loaded
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """:func:`_pair_rows` of two sides' :meth:`_Loaded.keys`. Where each side is one
    run (its matches increasing), from the match sums' arrays: no frame of every
    match's key (at 10M hands the two frames and their columns' copies took ~150 MB,
    the command's peak before the join)."""
    ra, rb = base.runs.runs, other.runs.runs
    ma, mb = base.sums.match, other.sums.match
    if not (len(ra) == len(rb) == 1 and _increasing(ma) and _increasing(mb)):
        return _pair_rows(base.keys(), other.keys())
    rows_a = rows_b = np.zeros(0, dtype=np.int64)
    alike = (ra[0].hands_per_match, ra[0].duplicate) == (rb[0].hands_per_match, rb[0].duplicate)
    if len(ma) and len(mb) and alike:
        rows_a, rows_b = _matched(ma, mb, base.sums.seed0(), other.sums.seed0())
    every = len(rows_a) == len(ma) == len(mb)
    # increasing rows of increasing matches: their matches sorted and unique already
    return rows_a, rows_b, ma[rows_a], every


def _increasing(m: np.ndarray) -> bool:
    return len(m) < 2 or bool((m[1:] > m[:-1]).all())


def _unique(col: pd.Series) -> bool:
    """Whether ``col`` holds no value twice: a strictly increasing integer column (a
    run's matches, as :class:`MatchSums` orders them) without a hash table of it."""
    if col.dtype.kind in "iu" and _increasing(col.to_numpy()):
        return True
    return bool(col.is_unique)


def _one_value(col: pd.Series) -> bool:
    """``col.nunique() <= 1``, without a hash table for an integer or boolean column."""
    if col.dtype.kind in "biu":
        a = col.to_numpy()
        return len(a) == 0 or bool((a == a[0]).all())
    return bool(col.nunique() <= 1)


def _common(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The places in ``a`` and in ``b`` of the values both hold (each side's values
    unique), in the order of the common values: :func:`numpy.intersect1d`'s indices,
    found by a binary search where both sides are increasing (no sorted copy of the
    two joined)."""
    if not (_increasing(a) and _increasing(b)) or not len(b):
        _, ia, ib = np.intersect1d(a, b, assume_unique=True, return_indices=True)
        return ia, ib
    at = np.minimum(np.searchsorted(b, a), len(b) - 1)
    ia = np.flatnonzero(b[at] == a)
    return ia, at[ia]


def _where(every: bool) -> str:
    """SQL: the rows of a block's matches (``$lo`` … ``$hi`` and, unless ``every``,
    ``$m``)."""
    return "WHERE match BETWEEN $lo AND $hi" + (
        "" if every else " AND match IN (SELECT unnest($m))"
    )


def _hands(side: str, every: bool, src: Mapping[str, str]) -> str:
    """SQL: per hand of one side (:func:`_sources`) a hash of its wall ``wh`` (NULL
    without one), the wall's size ``n`` and a hash ``f`` of the hand's result, winners
    and every seat's delta: as its copy keeps them (:data:`DEAL_COPY`), or computed
    from its files."""
    table = src[f"{side}_hands"]
    if table.startswith("read_parquet("):
        cols = ", ".join(f"{sql} AS {name}" for name, sql in DEAL_COPY.added)
    else:
        cols = ", ".join(DEAL_COPY.names())
    return f"""SELECT match, rotation, hand, wall_hash AS wh, wall_tiles AS n, result_hash AS f
    FROM (SELECT match, rotation, hand, {cols} FROM {table} {_where(every)})"""


_WINS_ROW = {
    "q": "seq",
    "s": "seat",
    "f": "from_seat",
    "m": "method",
    "p": "list_sort(patterns)",
    "v": "points",
    "t": "total",
}
"""A win as :func:`_deals` compares it: its winner, feeder, method, patterns and
points, ordered by ``q`` (seq, then seat), which is not compared."""

_PAYS_ROW = {"q": "seq", "a": "payer", "b": "payee", "m": "amount", "r": "reason"}
"""A transfer as :func:`_deals` compares it: payer, payee, amount and reason, ordered
by ``q`` (seq, then payer and payee), which is not compared."""


def _rows_differing(
    name: str, table: str, row: Mapping[str, str], every: bool, src: Mapping[str, str]
) -> str:
    """SQL: the CTEs ``{name}a``, ``{name}b`` … ending in ``{name}``, the hands (match,
    rotation, hand) whose rows of ``table`` differ between the two sides: other rows
    in their order, or rows on one side only. Rows are compared as ``row`` gives them,
    its first field their order (not compared).

    In two steps, as almost every hand's rows are alike: a hash of a hand's rows as a
    multiset with their order field (a sum of row hashes) tells the hands alike in
    both; only the others are compared exactly, each hand's rows sorted as a list (by
    ``row``'s fields in turn), the order field dropped after. An aggregate with ORDER
    BY, or a list of every hand's rows, took three to six times as long. ``src``: what
    each side's table is read from (:func:`_sources`)."""
    first, *rest = row
    fields = ", ".join(f"'{k}': {v}" for k, v in row.items())
    kept = ", ".join(f"x.{k}" for k in rest)
    key = "match, rotation, hand"
    sides = "\n".join(
        f"""{name}{s} AS MATERIALIZED (
            SELECT {key}, {{{fields}}} AS r
            FROM {src[f"{s}_{table}"]} {_where(every)}),
        {name}{s}_sum AS (SELECT {key}, sum(hash(r)) AS h FROM {name}{s} GROUP BY ALL),"""
        for s in "ab"
    )
    exact = "\n".join(
        f"""{name}{s}_list AS (
            SELECT {key}, hash(list_transform(list_sort(list(r)), lambda x: ({kept}))) AS x
            FROM {name}{s} SEMI JOIN {name}_maybe USING ({key}) GROUP BY ALL),"""
        for s in "ab"
    )
    return f"""{sides}
        {name}_maybe AS (
            SELECT {key} FROM {name}a_sum FULL JOIN {name}b_sum USING ({key})
            WHERE {name}a_sum.h IS DISTINCT FROM {name}b_sum.h),
        {exact}
        {name} AS (
            SELECT {key} FROM {name}_maybe
            LEFT JOIN {name}a_list USING ({key}) LEFT JOIN {name}b_list USING ({key})
            WHERE {name}a_list.x IS DISTINCT FROM {name}b_list.x)"""


def _deals_query(every: bool, src: Mapping[str, str]) -> str:
    """SQL: per match of a block, :func:`_deals`' counts. The two runs' hands are
    joined carrying hashes only (their walls', and their results'); a hand whose wins
    or transfers differ is looked up by its key in the block's :data:`_ODD`
    (:func:`_odd_query`), where before every hand carried its wins and transfers as
    lists into the join."""
    return f"""
    WITH j AS (SELECT match, rotation, hand, a.f IS DISTINCT FROM b.f AS differs,
                 a.wh IS NOT NULL AND b.wh IS NOT NULL AS walls, a.wh = b.wh AS same,
                 rotation = 0 AND hand = 0 AS first, a.n AS na, b.n AS nb
          FROM ({_hands("a", every, src)}) a FULL JOIN ({_hands("b", every, src)}) b
               USING (match, rotation, hand))
    SELECT match, count(*)::INTEGER AS hands,
           (count(*) FILTER (WHERE differs OR odd.match IS NOT NULL))::INTEGER AS differing,
           count(*) FILTER (WHERE walls) AS shared,
           count(*) FILTER (WHERE walls AND same) AS same,
           count(*) FILTER (WHERE walls AND first) AS firsts,
           count(*) FILTER (WHERE walls AND same AND first) AS first_same,
           coalesce(max(na) FILTER (WHERE walls), 0) AS tiles_a,
           coalesce(max(nb) FILTER (WHERE walls), 0) AS tiles_b
    FROM j LEFT JOIN {_ODD} odd USING (match, rotation, hand) GROUP BY match ORDER BY match"""


_ODD = "deals_odd"
"""The temp table of a block's hands whose wins or transfers differ (:func:`_odd_query`)."""


def _odd_query(every: bool, src: Mapping[str, str]) -> str:
    """SQL: the hands of a block (match, rotation, hand) whose wins or transfers differ
    between the two sides, into the temp table :data:`_ODD`."""
    return f"""CREATE OR REPLACE TEMP TABLE {_ODD} AS
    WITH {_rows_differing("wins", "wins", _WINS_ROW, every, src)},
    {_rows_differing("pays", "transfers", _PAYS_ROW, every, src)}
    SELECT * FROM wins UNION SELECT * FROM pays"""


def _first_tiles_query(every: bool) -> str:
    """SQL: ``n``, the first hands of a block (wall on both sides) whose walls hold one
    multiset of tiles, however shuffled. Read from the files (the copies keep no
    wall), and only where some first walls differ: the first hand of each match, its
    wall alone, to tell another tile set from another first dealer or break; not a
    second read of the runs, whose figures all come from the copies."""

    def firsts(side: str) -> str:
        return f"""SELECT match, hash(list_sort(wall)) AS t FROM read_parquet(${side}_hands)
        {_where(every)} AND rotation = 0 AND hand = 0 AND wall IS NOT NULL"""

    return f"""SELECT count(*) FILTER (WHERE a.t = b.t) AS n
    FROM ({firsts("a")}) a JOIN ({firsts("b")}) b USING (match)"""


def hands_differing(a: Runs, b: Runs, matches: Sequence[int]) -> pd.DataFrame:
    """Per match of ``matches`` (paired runs: :func:`pairing`): ``hands`` either run
    holds and ``differing``, those whose outcome differs between the two (winner,
    patterns, points or transfers; a hand only one run holds differs). DuckDB joins
    the two runs hand by hand and returns only the counts.

    >>> from analysis.studies.sample import data_dir
    >>> caps = data_dir() / "sweep" / "xuezhan-cap"
    >>> d = hands_differing(Runs(caps / "cap=16"), Runs(caps / "cap=16"), range(50))
    >>> int(d["hands"].sum()), int(d["differing"].sum())
    (400, 0)
    """
    return _deals(a, b, matches)[1]


def same_walls(a: Runs, b: Runs, matches: Sequence[int] | None = None) -> bool:
    """Whether ``a`` and ``b`` were dealt the same walls: every hand both hold (of
    ``matches``, default all) has one wall on each side and the two are equal, and
    they share one hand at least. The same seed deals other walls under another
    tile set (another variant, say), so two runs are paired only when this holds.

    >>> from analysis.studies.sample import data_dir
    >>> yuxi, xuezhan = Runs(data_dir() / "yuxi"), Runs(data_dir() / "xuezhan")
    >>> same_walls(yuxi, yuxi, matches=[0, 1]), same_walls(yuxi, xuezhan, matches=[0, 1])
    (True, False)
    """
    query = "SELECT DISTINCT match, rotation, hand, hash(wall) AS w FROM read_parquet($hands)"
    params: dict[str, Any] = {}
    if matches is not None:
        query += " WHERE match IN (SELECT unnest($m))"
        params["m"] = [int(m) for m in matches]
    walls = [r.sql(query, **params).set_index(["match", "rotation", "hand"])["w"] for r in (a, b)]
    # two walls for one hand on a side (runs of two seeds in one folder): no pairing
    if any(w.index.has_duplicates for w in walls):
        return False
    shared = walls[0].index.intersection(walls[1].index)
    return len(shared) > 0 and bool((walls[0].loc[shared] == walls[1].loc[shared]).all())


def metric_arrays(
    u: pd.DataFrame, pats: pd.DataFrame, patterns: list[str], agents: Sequence[str] = ()
) -> dict[str, tuple[np.ndarray, np.ndarray, str]]:
    """metric → (y, x, unit) per match of one group (rows of ``u`` in order); a unit
    that starts with ``points`` (:func:`_in_points`) counts the variant's points, the
    others are shares. ``mean_points[p]`` is position p after the dealer, or with
    ``agents`` (columns of :func:`_with_agents`) ``mean_points[AGENT]`` per agent."""
    idx = pd.MultiIndex.from_frame(u[["run_id", "match"]])
    by_pat = dict(tuple(pats.groupby("pattern", sort=False)))

    def pattern(pat: str) -> np.ndarray:
        g = by_pat.get(pat)
        if g is None:
            return np.zeros(len(u))
        return g.set_index(["run_id", "match"])["with_"].reindex(idx).fillna(0).to_numpy(float)

    specs = metric_specs(
        lambda c: u[c].to_numpy(float), pattern, int(u["players"].max()), patterns, agents
    )
    return dict(specs)


def _in_points(unit: str) -> bool:
    """A metric of this unit counts points (money), whose scale is its variant's."""
    return unit.startswith("points ")


@dataclass(frozen=True)
class _Side:
    """What one side of a comparison measures: the patterns every run of it can
    score (None: a variant this mjlog does not know, so any it logged) and the
    points scales of its runs (:attr:`mjlog.variants.Variant.points_scale`)."""

    patterns: frozenset[str] | None
    scales: frozenset[str]


def _side(runs: Runs) -> _Side:
    from mjlog.variants import VARIANTS as _BY_NAME

    patterns: frozenset[str] | None = None
    scales = set()
    for run in runs.runs:
        v = _BY_NAME.get(run.variant)
        if v is None:
            scales.add(f"points of {run.variant!r}, a variant this mjlog does not know")
            continue
        scales.add(v.points_scale)
        has = frozenset(v.patterns(rules_of_run(runs, run)))
        patterns = has if patterns is None else patterns & has
    return _Side(patterns, frozenset(scales))


def _scales_note(a: _Side, b: _Side) -> str | None:
    """None when the points of ``a`` and ``b`` are one scale, else what the rows say."""
    if len(a.scales) == 1 and a.scales == b.scales:
        return None
    return (
        f"different scales, not comparable: {' + '.join(sorted(a.scales))} vs "
        f"{' + '.join(sorted(b.scales))}"
    )


@dataclass(frozen=True)
class Study:
    """What ``mjlog compare`` reports: the point-by-point rows
    (:func:`paired_comparison`) and, when the points differ by one numeric rule key,
    the ``trend`` per unit of that ``key`` (:func:`trends`); ``trend_note`` says how
    the trend was found, or why there is none."""

    rows: pd.DataFrame
    trend: pd.DataFrame
    key: str | None
    trend_note: str


def study(
    paths, margins: Mapping[str, float] | None = None, primary: Sequence[str] | None = None
) -> Study:
    """:func:`paired_comparison` and :func:`trends` of the same sides, read once."""
    sides = _load(paths)
    rows = _rows(sides, margins, primary)
    key, trend, note = trends(sides, primary)
    return Study(rows, trend, key, note)


def paired_comparison(
    paths, margins: Mapping[str, float] | None = None, primary: Sequence[str] | None = None
) -> pd.DataFrame:
    """Every headline figure of each run against the first (the baseline), as
    differences with a 95% CI and a p-value.

    ``paths``: run directories or sweep folders, the baseline first; a sweep folder
    stands for its points in order (so a sweep alone compares its points with its
    first). Each run directory is one side, whatever its rules. Runs with the same
    seed (and tile set, match size, duplicate flag) start every match from the same
    walls, so the unit is the pair of matches of one seed and index
    (:func:`pairing`), even where a changed result later moved a dealer and the
    walls with it: the difference is :func:`scipy.stats.ttest_rel` on the per-match
    pseudo-values (:mod:`analysis.stats`). Runs of another seed, match size,
    duplicate flag or tile set are compared unpaired (Welch); ``pairing`` (``match``
    or ``none``) and ``pairing_note`` say which and why, ``hands_same_walls`` of
    ``hands_shared`` how much of the deal paired runs share. ``paired_se`` and
    ``unpaired_se`` are given side by side.

    Every difference ends in a verdict (:mod:`analysis.decide`): ``equivalent``
    within ±``margin`` (the metric's default, or ``margins``: metric or family →
    margin; ``differs_from_zero`` says when it is also shown not to be 0),
    ``differs`` or ``inconclusive`` with ``hands_needed``, the hands each run
    would need in all to settle it (``hands``: the hands each run has in the
    comparison); ``mde`` is the smallest difference it could detect (80 % power).
    ``p_adjusted`` and ``p_equivalence`` are adjusted (Benjamini–Hochberg) over the
    whole study, every point × metric, or over the ``primary`` metrics (names or
    families) alone: the others get the verdict ``exploratory``.

    Only metrics both sides define are compared: a pattern's rate where both
    variants (under their rules) have the pattern (:meth:`Variant.patterns
    <mjlog.variants.Variant.patterns>`); the patterns one side lacks are listed in
    ``df.attrs["not_compared"]``, by (baseline_group, group). Points of two scoring
    systems (two variants) are different scales: those rows keep ``baseline`` and
    ``value``, each on its own scale, with ``comparable`` false, ``note`` saying
    so and no difference, interval or p-value.

    Columns: ``baseline_group``, ``group`` (variant, rules, line-up and directory),
    ``metric``, ``unit``, ``baseline``, ``value``, ``diff``, ``lo``, ``hi``, ``p``,
    ``p_adjusted``, ``paired_se``, ``unpaired_se``, ``units`` (paired matches, or
    the smaller side's matches), ``hands``, ``paired``, ``pairing``, ``pairing_note``,
    ``hands_same_walls``, ``hands_shared``, ``comparable``, ``note``, ``verdict``,
    ``differs_from_zero``, ``margin``, ``mde``, ``p_equivalence``, ``hands_needed``,
    ``primary``.
    """
    return _rows(_load(paths), margins, primary)


def _rows(
    sides: list[_Loaded], margins: Mapping[str, float] | None, primary: Sequence[str] | None
) -> pd.DataFrame:
    from analysis.decide import check_names, decide_study, is_primary

    rows: list[dict[str, Any]] = []
    diffs: list[Difference | None] = []
    not_compared: dict[tuple[str, str], list[str]] = {}
    for i, other in enumerate(sides[1:], start=2):
        # the copies a side's joins read go after its last join (the baseline's after
        # the last side's)
        done = [other.runs] + ([sides[0].runs] if i == len(sides) else [])
        block, ds, left_out = _against(sides[0], other, done)
        rows.extend(block)
        diffs.extend(ds)
        not_compared[(sides[0].label, other.label)] = left_out
    metrics = [r["metric"] for r in rows]
    check_names(list(margins or ()), metrics, "--margin")
    check_names(list(primary or ()), metrics, "--primary")
    decisions = decide_study(
        diffs,
        metrics,
        [r["hands"] for r in rows],
        margins,
        primary,
        identical=[r["identical"] for r in rows],
        bases=[_base(sides[0])] * len(rows),
    )
    for r, dec in zip(rows, decisions, strict=True):
        r["primary"] = r["comparable"] and is_primary(r["metric"], primary)
        if dec is None:
            r.update(
                p_adjusted=math.nan,
                verdict=None,
                differs_from_zero=None,
                margin=math.nan,
                mde=math.nan,
                p_equivalence=math.nan,
                hands_needed=math.nan,
            )
        else:
            r.update(
                p_adjusted=dec.p,
                verdict=dec.verdict,
                differs_from_zero=dec.differs_from_zero,
                margin=dec.margin,
                mde=dec.mde,
                p_equivalence=dec.p_equivalence,
                hands_needed=dec.hands_needed,
            )
    df = pd.DataFrame(rows, columns=COLUMNS)
    df.attrs["not_compared"] = not_compared
    return df


def _base(side: _Loaded) -> float:
    """The baseline's ``base`` rule (what a point is worth: points margins scale with
    it), 1 for a variant without the key."""
    from mjlog.rules import Rules

    try:
        rules = Rules(side.runs.runs[0].variant, side.rules)
        return float(rules["base"]) if "base" in rules else 1.0
    except Exception:  # rules of another mjlog version
        return 1.0


COLUMNS = [
    "baseline_group",
    "group",
    "metric",
    "unit",
    "baseline",
    "value",
    "diff",
    "lo",
    "hi",
    "p",
    "p_adjusted",
    "paired_se",
    "unpaired_se",
    "units",
    "hands",
    "paired",
    "pairing",
    "pairing_note",
    "hands_same_walls",
    "hands_shared",
    "hands_differing",
    "hands_differing_hi",
    "identical",
    "rare",
    "comparable",
    "note",
    "verdict",
    "differs_from_zero",
    "margin",
    "mde",
    "p_equivalence",
    "hands_needed",
    "primary",
]
"""The columns of :func:`paired_comparison`, in order."""


@dataclass(frozen=True)
class _Loaded:
    """One side of a study, read: its runs, what it measures, its per-match sums (in
    DuckDB: :class:`MatchSums`)."""

    path: Path
    runs: Runs
    what: _Side
    sums: MatchSums
    label: str
    rules: dict[str, Any]
    agents: tuple[str, ...]
    """The agents whose points are compared instead of the positions' (a study of
    mixed line-ups), else empty."""
    lineup: str
    by_agent: dict[str, np.ndarray]
    """``points@AGENT`` and ``seat_hands@AGENT`` per match (:func:`_with_agents`)."""

    def column(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """A per-match sum (of ``rows``), as floats."""
        if name in self.by_agent:
            got = self.by_agent[name]
            return got if rows is None else got[rows]
        return self.sums.column(name, rows)

    def metrics(self, patterns: list[str], rows: np.ndarray | None = None) -> Metrics:
        """:func:`metric_arrays` of this side's matches (``rows``, default all), each
        metric's arrays fetched when it is read."""
        players = int(self.column("players", rows).max())
        return metric_specs(
            lambda c: self.column(c, rows),
            lambda p: self.sums.pattern(p, rows),
            players,
            patterns,
            self.agents,
        )

    def keys(self) -> pd.DataFrame:
        """The :data:`PAIR_KEY` of every match, in order."""
        info = self.runs.runs
        run = self.sums.run
        return pd.DataFrame(
            {
                "hands_per_match": np.array([r.hands_per_match for r in info])[run],
                "duplicate": np.array([r.duplicate for r in info])[run],
                "match": self.sums.match,
                "seed0": self.sums.seed0(),
            }
        )


def _load(paths) -> list[_Loaded]:
    """The sides of a study, the baseline first: every run directory of ``paths`` (a
    sweep folder stands for its points in order), each once."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    varied: dict[Path, tuple[str, ...]] = {}
    for given in paths:
        for p, keys in expand_paths(Path(given)):
            varied.setdefault(p, keys)
    sides = list(varied)
    if len(sides) < 2:
        raise LogError(
            "compare needs a baseline and at least one other run (or a sweep "
            "folder with two points or more)"
        )
    first = Runs(sides[0])
    read = {side: first if i == 0 else Runs(side, share=first) for i, side in enumerate(sides)}
    names = _agent_names(list(read.values()))
    per_agent = any(len(set(a)) > 1 for a in names.values())
    shown = _differing_keys(read)
    out = []
    for i, (side, runs) in enumerate(read.items()):
        # the baseline is joined with every other side, each other side once
        _copy_side(runs, per_agent, len(read) - 1 if i == 0 else 1)
        sums = MatchSums.of(runs)
        if not len(sums):
            raise LogError(f"{side}: the run has no hands")
        agents: tuple[str, ...] = ()
        by_agent: dict[str, np.ndarray] = {}
        if per_agent:
            by_agent, agents = _with_agents(runs, sums, names)
        run = runs.runs[0]
        rules = runs.rules[run.run_id]
        config = config_label(run.variant, rules, run.duplicate, (*varied[side], *shown))
        lineup = ",".join(runs.runs[int(sums.run[0])].agents)
        out.append(
            _Loaded(
                side,
                runs,
                _side(runs),
                sums,
                f"{run.variant} {mark_defaults(run.variant, config)} [{lineup}] {side}",
                rules,
                agents,
                lineup,
                by_agent,
            )
        )
    return out


def _differing_keys(read: Mapping[Path, Runs]) -> tuple[str, ...]:
    """The rule keys whose logged values differ among the sides of one variant: each
    side's label names them even at their default (``cap=64`` beside ``cap=8``, not
    ``default``), as a sweep's labels name its grid keys."""
    logged = [(r.runs[0].variant, r.rules[r.runs[0].run_id]) for r in read.values()]
    if len({v for v, _ in logged}) != 1:
        return ()
    names = sorted({k for _, rules in logged for k in rules})
    return tuple(k for k in names if len({repr(rules.get(k)) for _, rules in logged}) > 1)


def _agent_names(read: list[Runs]) -> dict[str, tuple[str, ...]]:
    """Each run's line-up (seat by seat at rotation 0) as labels told apart over every
    side of the study (:mod:`analysis.agent_labels`), by run id; a run whose hands
    name their own seats (imported) is left out."""
    from analysis.agent_labels import labels
    from analysis.queries import manifest_lineup

    files = [rf for runs in read for rf in runs._runs]
    lineups = labels([manifest_lineup(rf.manifest) for rf in files])
    return {
        str(rf.manifest.get("run_id")): lu
        for rf, lu in zip(files, lineups, strict=True)
        if lu is not None
    }


def _with_agents(
    runs: Runs, sums: MatchSums, names: dict[str, tuple[str, ...]]
) -> tuple[dict[str, np.ndarray], tuple[str, ...]]:
    """Each agent's points and seat-hands per match of ``sums`` (``points@AGENT``,
    ``seat_hands@AGENT``), agents by their study-wide labels, and those agents in
    line-up order. In duplicate play an agent sits in every seat in turn: its figure
    is the agent's, where a seat number is not."""
    from analysis.queries import seat_sums

    a = seat_sums(runs, "agent")
    rename: dict[str, str] = {}
    for rid, local in runs.lineups.items():  # this side's labels → the study's
        rename.update(zip(local, names.get(rid, local), strict=True))
    a["agent"] = a["agent"].map(lambda x: rename.get(x, x))
    wide = a.pivot_table(
        index=["run_id", "match"],
        columns="agent",
        values=["points", "hands"],
        aggfunc="sum",
        fill_value=0,
    )
    ids = np.array([r.run_id for r in runs.runs], dtype=object)
    idx = pd.MultiIndex.from_arrays([ids[sums.run], sums.match])
    first = str(ids[sums.run[0]])
    agents = tuple(dict.fromkeys(names.get(first) or sorted(set(a.agent))))
    cols = {}
    for agent in agents:
        for what, col in (("points", "points"), ("seat_hands", "hands")):
            got = wide[(col, agent)] if (col, agent) in wide else None
            cols[f"{what}@{agent}"] = (
                np.zeros(len(sums)) if got is None else got.reindex(idx).fillna(0).to_numpy(float)
            )
    return cols, agents


def _rows_of(rows: np.ndarray, n: int) -> np.ndarray | None:
    """``rows`` of a side's ``n`` matches, or None where they are every match in order
    (runs paired match for match): each metric's arrays are then the sums as fetched,
    not a copy of them by ``rows`` (at 10M hands 10 MB an array, four a metric)."""
    if len(rows) == n and _increasing(rows) and (n == 0 or (rows[0] == 0 and rows[-1] == n - 1)):
        return None
    return rows


def _against(
    base: _Loaded, other: _Loaded, done: Sequence[Runs] = ()
) -> tuple[list[dict[str, Any]], list[Difference | None], list[str]]:
    """The rows of ``other`` against ``base``, the difference behind each (None where
    the two scales forbid one) and the patterns left out (only one side has them).
    ``done``: the sides no later join reads, whose copies go once the two are paired."""
    from analysis.stats import compare_units

    # no frame of both runs' every match held while their hands are joined
    pair = _paired_by(base.runs, other.runs, *_sides_pair_rows(base, other))
    for runs in done:  # their blocks out of DuckDB's pool before the metrics' arrays
        runs.release(COPY_PREFIX)
    rb = ro = None
    if pair.paired and pair.base_rows is not None and pair.other_rows is not None:
        rb, ro = (
            _rows_of(pair.base_rows, len(base.sums)),
            _rows_of(pair.other_rows, len(other.sums)),
        )
    seen = set(base.sums.patterns) | set(other.sums.patterns)
    names = sorted(
        k
        for k in seen
        if all(s.what.patterns is None or k in s.what.patterns for s in (base, other))
    )
    note = _scales_note(base.what, other.what)
    mb = base.metrics(names, rb)
    mo = other.metrics(names, ro)
    hands = int(min(base.column("hands", rb).sum(), other.column("hands", ro).sum()))
    differing, differing_hi = None, math.nan
    if pair.paired:
        hd = pair.differing
        if hd is None:
            matches = np.unique(base.column("match", rb).astype(np.int64)).tolist()
            hd = hands_differing(base.runs, other.runs, matches)
        differing = int(hd["differing"].sum())
        differing_hi = rate(hd["differing"].to_numpy(float), hd["hands"].to_numpy(float)).hi
        del hd
    # the pairing's per-match arrays are read: its counts and words are all the rows
    # need (at 10M hands its rows and per-match counts are 40 MB held through the metrics)
    pair = replace(pair, base_rows=None, other_rows=None, differing=None)
    rows, diffs = [], []
    for metric in [m for m in mb if m in mo]:
        yb, xb, unit = mb[metric]
        yo, xo, _ = mo[metric]
        # the figure the same on every paired match: a fact of these hands, no test
        same = pair.paired and np.array_equal(yb, yo) and np.array_equal(xb, xo)
        d = compare_units(yb, xb, yo, xo, pair.paired, shared_walls=pair.paired)
        if is_rate(unit) and not same:  # no rate difference is certain from a handful
            d = rate_difference(d, yb, xb, yo, xo)  # of events, unless the hands are alike
        row = {
            "baseline_group": base.label,
            "group": other.label,
            "metric": metric,
            "unit": unit,
            "baseline": d.baseline,
            "value": d.value,
            "diff": d.diff,
            "lo": d.lo,
            "hi": d.hi,
            "p": d.p,
            "paired_se": d.paired_se,
            "unpaired_se": d.unpaired_se,
            "units": d.units,
            "hands": hands,
            "paired": d.paired,
            "pairing": pair.unit,
            "pairing_note": pair.text,
            "hands_same_walls": pair.hands_same_walls,
            "hands_shared": pair.hands_shared,
            "hands_differing": differing,
            "hands_differing_hi": differing_hi,
            "identical": bool(same),
            "rare": bool(is_rate(unit) and min(yb.sum(), yo.sum()) < RARE),
            "comparable": True,
            "note": None,
        }
        if note is not None and _in_points(unit):  # each figure on its own scale, no test
            row.update(
                dict.fromkeys(("diff", "lo", "hi", "p", "paired_se", "unpaired_se"), math.nan),
                comparable=False,
                identical=False,
                note=note,
            )
        rows.append(row)
        diffs.append(None if row["note"] is not None else d)
        # one metric's arrays at a time: the next metric's are made before a name
        # bound to these would let them go
        del yb, xb, yo, xo
    return rows, diffs, sorted(seen - set(names))


# ---------------------------------------------------------------- trend along a key


TREND_POINTS = 3
"""Distinct values of a key a trend needs (with two, it is the difference again)."""


def _numeric(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _swept_key(sides: list[_Loaded]) -> tuple[str | None, str]:
    """The one rule key the sides differ by, when it is numeric with
    :data:`TREND_POINTS` values or more; else None and why there is no trend."""
    if len({s.runs.runs[0].variant for s in sides}) > 1:
        return None, "no trend: the points are of several variants"
    if len({s.lineup for s in sides}) > 1:
        return None, "no trend: the points have other line-ups"
    keys = sorted({k for s in sides for k in s.rules})
    differ = [k for k in keys if len({repr(s.rules.get(k)) for s in sides}) > 1]
    if len(differ) != 1:
        shown = ", ".join(differ[:5]) + (", …" if len(differ) > 5 else "")
        return None, (
            "no trend: the points differ by no rule key"
            if not differ
            else f"no trend: the points differ by {len(differ)} rule keys "
            f"({shown}); a trend follows one"
        )
    key = differ[0]
    values = [s.rules.get(key) for s in sides]
    if not all(_numeric(v) for v in values):
        return None, f"no trend: {key} is not a number"
    if len(set(values)) < TREND_POINTS:
        return None, (
            f"no trend: {key} takes two points only (the difference is the trend)"
            if len(set(values)) == 2
            else f"no trend: one {key}"
        )
    return key, ""


def trends(
    sides: list[_Loaded], primary: Sequence[str] | None = None
) -> tuple[str | None, pd.DataFrame, str]:
    """The trend of every metric along the one numeric rule key the sides differ by
    (:func:`_swept_key`): (key, table, note). Per metric the table gives the slope
    per unit of the key with its 95% interval and p (:func:`analysis.stats.slope`:
    OLS on every point's per-match pseudo-values, the matches of one seed and index
    a cluster), ``p_adjusted`` (Benjamini–Hochberg over the trends of the primary
    metrics; NaN for the others), ``points``, ``clusters``, and each point's figure
    (``values``, the points in order: all of its matches). Only metrics every side
    has are followed; points of another scale are refused a trend, as a difference
    is. A rate with fewer than :data:`analysis.rates.RARE` events over all the points
    gets no interval or p (NaN): a slope through a handful of events, or none, is no
    finding, and its t interval would claim one."""
    from analysis.decide import adjust, is_primary
    from analysis.stats import estimate, slope

    cols = [
        "metric",
        "unit",
        "key",
        "slope",
        "lo",
        "hi",
        "se",
        "p",
        "p_adjusted",
        "points",
        "clusters",
        "values",
    ]
    key, why = _swept_key(sides)
    if key is None:
        return None, pd.DataFrame(columns=cols), why
    seen = set().union(*(set(s.sums.patterns) for s in sides))
    names = sorted(
        k for k in seen if all(s.what.patterns is None or k in s.what.patterns for s in sides)
    )
    arrays = [s.metrics(names) for s in sides]
    xs = [float(s.rules[key]) for s in sides]
    rows = []
    clusters = [list(map(tuple, s.keys()[PAIR_KEY].itertuples(index=False))) for s in sides]
    for metric in arrays[0]:
        if not all(metric in a for a in arrays):
            continue
        unit = arrays[0].unit(metric)
        ps, x, values = [], [], []
        cl: list[Any] = []
        events = 0.0
        for a, v, keys in zip(arrays, xs, clusters, strict=True):
            y, w, _ = a[metric]
            ps.append(pseudo_values(y, w))
            values.append(estimate(y, w).value)
            x.append(np.full(len(y), v))
            cl.extend(keys)
            events += y.sum()
        fit = slope(np.concatenate(ps), np.concatenate(x), cl).as_dict()
        if is_rate(unit) and events < RARE:
            fit.update(dict.fromkeys(("lo", "hi", "se", "p"), math.nan))
        rows.append(
            {
                "metric": metric,
                "unit": unit,
                "key": key,
                **fit,
                "points": len(sides),
                "values": values,
                "primary": is_primary(metric, primary),
            }
        )
    df = pd.DataFrame(rows)
    if df.empty:
        return key, pd.DataFrame(columns=cols), f"no metric every point of {key} has"
    chosen = df["primary"].to_numpy(bool)
    df["p_adjusted"] = np.nan
    df.loc[chosen, "p_adjusted"] = adjust(df.loc[chosen, "p"].to_numpy(float))
    note = (
        f"trend per unit of {key} over {len(sides)} points: OLS on every point's "
        f"per-match pseudo-values, standard errors clustered by match (the matches of "
        f"one seed and index, shared by the points); 95% CI"
    )
    return key, df[cols], note


# ---------------------------------------------------------------- how many hands


def verdict_text(r: Mapping[Any, Any]) -> str:
    """A row's verdict in words, as compare's table and the report print it."""
    v = r["verdict"]
    if v == Verdict.IDENTICAL:
        n = r.get("hands_differing")
        return (
            f"identical: all {r['hands']:,} hands alike"
            if n == 0
            else f"identical on every one of {r['units']:,} matches"
        )
    if v == Verdict.EQUIVALENT:
        nonzero = " (differs from 0, by less than the margin)" if r["differs_from_zero"] else ""
        return f"equivalent ±{r['margin']:g}{nonzero}"
    if v == Verdict.INCONCLUSIVE and math.isfinite(r["hands_needed"]):
        return f"inconclusive: ~{max(r['hands_needed'] - r['hands'], 0):,.0f} more hands"
    return str(v)


def precision(runs, target: float | dict[str, float] | None = None) -> pd.DataFrame:
    """How precise each headline figure is now, and how many hands a target needs.

    Per group and metric (those of :func:`paired_comparison`, with a ``pattern_rate``
    for every pattern the group's rules can score, seen or not): ``value`` with its
    95% interval (the match as the unit; a rate's never zero-width,
    :func:`analysis.rates.metric_estimate`), ``count`` (a rate's events, NaN for a
    mean) and ``rare`` (under 10 of them), ``half_width``, ``matches``, ``hands``, and
    ``hands_needed`` for a 95% half-width of ``target`` (one number for every metric,
    or metric → half-width): the standard error falls as 1/√hands, so it is
    ``hands × (half_width / target)²`` with the match size kept. ``unit`` names the
    metric's unit (``mean_points[p]``: points per seat-hand, one seat-hand per hand).
    """
    from analysis.rates import metric_estimate
    from analysis.stats import hands_needed

    runs = as_runs(runs)
    sums = MatchSums.of(runs)
    first = {(r.variant, r.config, ",".join(r.agents)): r for r in reversed(runs.runs)}
    rows = []
    for key, at in sums.groups():
        hands = int(sums.column("hands", at).sum())
        run = first[key]
        patterns = _patterns_of(runs, run, sums.patterns_in(at))
        metrics = metric_specs(
            partial(sums.column, rows=at),
            partial(sums.pattern, rows=at),
            int(sums.column("players", at).max()),
            patterns,
        )
        for metric, (y, x, unit) in metrics.items():
            e = metric_estimate(y, x, unit)
            t = target.get(metric) if isinstance(target, dict) else target
            rows.append(
                {
                    **dict(zip(GROUP, key, strict=True)),
                    "metric": metric,
                    "unit": unit,
                    "value": e.value,
                    "lo": e.lo,
                    "hi": e.hi,
                    "count": getattr(e, "count", np.nan),
                    "rare": bool(getattr(e, "rare", False)),
                    "half_width": e.half_width,
                    "matches": e.units,
                    "hands": hands,
                    "target": t,
                    "hands_needed": hands_needed(e.half_width, hands, t) if t else np.nan,
                }
            )
    return finished_table(runs, pd.DataFrame(rows))


def _patterns_of(runs: Runs, run, seen: set[str]) -> list[str]:
    """The patterns a group's rules can score (its first run's; a rare one no win
    carried is a rate of 0 with an upper bound, not a missing row), and any other it
    logged, sorted."""
    from mjlog.variants import VARIANTS as _BY_NAME

    v = _BY_NAME.get(run.variant)
    rules = rules_of_run(runs, run) if v is not None else None
    can = set(v.patterns(rules)) if v is not None and rules is not None else set()
    return sorted(can | seen)
