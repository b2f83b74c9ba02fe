"""Figures from run directories, as pandas DataFrames, computed by DuckDB over Parquet.

Every function takes ``runs``: a run directory, a sweep parent (a folder with
``sweep.json``, or whose sub-folders are runs), a list of those, or a
:class:`Runs`. DuckDB reads the Parquet files itself (``read_parquet($hands)``
with the file lists passed as query *parameters*, never pasted into the SQL) and
only aggregates come back, so a run of millions of hands never sits in memory. A
table queried twice is read from its files once: its second query copies it into the
connection's work database (:meth:`Runs.copy`) and later ones read the copy.
No figure needs the events table: hand length is ``hands.n_events``.

Every figure is given per group: ``variant``, ``config`` (the rule keys a run
changed from the variant's defaults, ``default`` when none; sweep points differ
here) and ``lineup`` (the run's agents seat by seat, joined with commas, each by
its label: :mod:`analysis.agent_labels` tells two specs of one name apart). Runs
that share all three (say two seeds) are pooled.

Confidence intervals are 95% and take the **match** as the unit, as ``mjlog
ladder`` does (hands of one match share seats, dealers and, in duplicate play,
walls): every rate and mean is a ratio of per-match sums, and its interval is
the cluster-robust t interval of :mod:`analysis.stats`. ``matches`` gives the
number of units; ``*_se`` the standard error.

>>> from analysis.studies.sample import tiny_run
>>> runs = Runs(tiny_run())
>>> stats = seat_stats(runs, by="variant")
>>> stats[["variant", "lineup", "hands"]].values.tolist()  # 128 hands × 4 seats
[['yuxi', 'greedy,random,greedy,random', 512]]
>>> bool(stats.win_rate_lo.iloc[0] <= stats.win_rate.iloc[0] <= stats.win_rate_hi.iloc[0])
True
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import duckdb
import numpy as np
import pandas as pd
import pyarrow.compute as pc

from analysis.agent_labels import labels as agent_labels
from analysis.rates import rate_estimates, wilson
from analysis.stats import estimates, quantiles_counted
from mjlog.errors import cut as clip
from mjlog.events import REASON_NAMES
from mjlog.logio import LogError, RunFiles
from mjlog.rundir import duckdb_path, read_json


def _pattern_name(variant: str, key: str) -> str:
    """A pattern's Chinese name as the variant's own table writes it (杠上花 in yuxi,
    杠上开花 in xuezhan); the key itself for a variant this mjlog does not know."""
    from mjlog.variants import VARIANTS as _BY_NAME

    v = _BY_NAME.get(variant)
    return v.pattern_name(key) if v is not None else key


__all__ = [
    "COPY_PREFIX",
    "GROUP",
    "CopyColumns",
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
    "position_advantage",
    "replay_frame",
    "run_table",
    "seat_stats",
    "tables",
    "wilson",
]

GROUP: tuple[str, ...] = ("variant", "config", "lineup")
"""The columns that name a group in every figure."""

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


def manifest_lineup(m: dict[str, Any]) -> list[Any] | None:
    """A simulated run's agents, seat by seat at rotation 0, from its manifest; None
    for an imported run (its hands name their own seats)."""
    agents = m.get("agents")
    if m.get("imported") or not isinstance(agents, list) or len(agents) != m.get("players"):
        return None
    return agents


def _agent_spec(a: Any) -> str:
    if isinstance(a, str):
        return a
    params = a.get("params") or {}
    if not params:
        return str(a.get("name"))
    return f"{a.get('name')}:" + ";".join(f"{k}={v}" for k, v in sorted(params.items()))


def config_label(
    variant: str, rules: dict[str, Any], duplicate: bool = False, always: Iterable[str] = ()
) -> str:
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
        changed = [
            f"{k}={spec[k].show(resolved[k])}"
            for k in sorted(resolved)
            if resolved[k] != default[k] or k in always
        ]
    except Exception:  # rules of another mjlog version: show the keys as logged
        changed = [f"{k}={rules[k]}" for k in sorted(rules)]
    label = " ".join(changed) or "default"
    return label + " dup" if duplicate else label


def mark_defaults(variant: str, config: str) -> str:
    """A :func:`config_label` with ``(default)`` after every ``key=value`` whose value
    is the variant's default (a sweep names its grid keys even there), for the page
    and the text; the label itself stays the group's key.

    >>> mark_defaults("yuxi", "cap=64"), mark_defaults("yuxi", "base=2 cap=64 dup")
    ('cap=64 (default)', 'base=2 cap=64 (default) dup')
    >>> mark_defaults("yuxi", "cap=8"), mark_defaults("yuxi", "cap=64 (default)")
    ('cap=8', 'cap=64 (default)')
    """
    from mjlog.rules import Rules, keys

    try:
        spec, default = keys(variant), Rules(variant)
    except Exception:  # a variant this mjlog does not know: no defaults to mark
        return config
    words = config.split(" ")
    out = []
    for i, word in enumerate(words):
        k, eq, v = word.partition("=")
        marked = i + 1 < len(words) and words[i + 1] == "(default)"  # already: keep it once
        at_default = bool(eq) and k in spec and spec[k].show(default[k]) == v and not marked
        out.append(f"{word} (default)" if at_default else word)
    return " ".join(out)


def rule_values(variant: str, rules: dict[str, Any], always: Iterable[str] = ()) -> dict[str, Any]:
    """The rule keys :func:`config_label` names, with their logged (typed) values: an
    int stays an int, a list is joined with commas.

    >>> rule_values("yuxi", {"cap": 8, "base": 1})
    {'cap': 8}
    """
    from mjlog.rules import Rules

    always = set(always)
    try:
        resolved, default = Rules(variant, rules), Rules(variant)
        keys_ = [k for k in sorted(resolved) if resolved[k] != default[k] or k in always]
    except Exception:
        keys_ = sorted(rules)
    out = {}
    for k in keys_:
        v = rules.get(k)
        out[k] = ",".join(map(str, v)) if isinstance(v, list | tuple) else v
    return out


def _is_run(p: Path) -> bool:
    return (p / "manifest.json").is_file()


def expand_paths(path: Path) -> list[tuple[Path, tuple[str, ...]]]:
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
            rel = (
                e
                if isinstance(e, str)
                else ((e.get("dir") or e.get("path")) if isinstance(e, dict) else None)
            )
            if not isinstance(rel, str) or not rel:
                raise LogError(f"{sweep}: a point without a 'dir' string")
            if os.path.isabs(rel) or ".." in Path(rel).parts or "/" in rel.strip("/"):
                raise LogError(
                    f"{sweep}: point dir {clip(rel, 80)!r} is not a folder of the sweep: refused"
                )
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
            (f["path"], f["sha256"]) for f in mb["files"]
        }
    else:
        tables = ("hands", "wins", "transfers")
        same = all(a.rows(t) == b.rows(t) for t in tables)
    if not same:
        raise LogError(
            f"{b.path}: run {ma.get('run_id')} is also {a.path}, with different "
            f"content: one id, two runs (an edited or foreign manifest?); give one "
            f"of them"
        )


MEMORY_LIMIT = os.environ.get("MJLOG_DUCKDB_MEMORY", "128MB")
"""DuckDB's memory limit per :class:`Runs` (``$MJLOG_DUCKDB_MEMORY``, DuckDB's units). By
default DuckDB takes 80 % of the machine, and a join or grouping over every hand of a
10M-hand run (the seat table, the walls of a paired comparison) grew with the run;
under the limit DuckDB spills those to a temporary folder of its own instead."""


def _connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB under :data:`MEMORY_LIMIT`, spilling to a temporary folder
    removed with the connection's owner (never DuckDB's default ``.tmp`` in the
    current folder)."""
    con = duckdb.connect()
    try:  # a library prints nothing (in Jupyter DuckDB draws no bar without ipywidgets)
        con.execute("SET enable_progress_bar = false")
    except duckdb.Error:
        pass
    spill = tempfile.mkdtemp(prefix="mjlog-duckdb-")
    weakref.finalize(con, shutil.rmtree, spill, ignore_errors=True)
    con.execute("SET temp_directory = $d", {"d": spill})
    con.execute("SET memory_limit = $m", {"m": MEMORY_LIMIT})
    return con


_WORK = itertools.count()


def _work_database(con: duckdb.DuckDBPyConnection) -> str:
    """Attach a DuckDB database file of the connection's own in its spill folder and
    make it the connection's default, returning its name: the per-match tables a figure
    keeps (``CREATE TABLE``) are written there, compressed, and DuckDB evicts their
    blocks to the file under :data:`MEMORY_LIMIT`, where an in-memory temp table
    larger than the limit cannot be written at all. The spill folder goes with the
    connection (:func:`_connect`), the file with it."""
    (spill,) = cast(tuple, con.execute("SELECT current_setting('temp_directory')").fetchone())
    name = f"mjlog_work_{os.getpid()}_{next(_WORK)}"
    path = os.path.join(str(spill), f"{name}.duckdb").replace("'", "''")
    con.execute(f"ATTACH '{path}' AS {name}")
    con.execute(f"USE {name}")
    return name


COPIED = ("hands", "wins", "transfers")
"""The tables :meth:`Runs.copy` reads once into DuckDB (the events table, large and
read by a few figures, is read from its files)."""

COPY_PREFIX = "parquet_"
"""The start of every copy's name (``parquet_hands`` …): :meth:`Runs.release` of it
drops the copies alone."""

COPY_ROWS, COPY_FILES = 500_000, 250
"""At most the files of about this many rows, and this many files, :meth:`Runs.copy`
reads into its copy at a time."""

NOT_COPIED = {"hands": ("wall",)}
"""Columns a copy leaves out by default: the wall (136 tiles a hand, most of a run's
bytes) is read by the few queries that name it, from the files (``compare`` copies a
hash of it instead: :class:`CopyColumns`)."""


@dataclass(frozen=True)
class CopyColumns:
    """What :meth:`Runs.copy` keeps of a table: every column but ``left_out``, and the
    columns ``added`` (name → SQL over the file's columns), computed in the same read
    of the files. A query that names a column left out reads the files instead.
    ``ordered``: the rows kept in the files' order (for the queries without an ``ORDER
    BY``); a copy only queries that order or key their rows read may be written in
    any order, which DuckDB does faster, holding less.

    >>> CopyColumns(("wall",), (("wall_tiles", "len(wall)"),)).select()
    "COLUMNS(lambda c: c NOT IN ('wall')), len(wall) AS wall_tiles"
    """

    left_out: tuple[str, ...] = ()
    added: tuple[tuple[str, str], ...] = ()
    ordered: bool = True

    def select(self) -> str:
        """SQL: the copy's select list over ``read_parquet``."""
        left_out = ", ".join(f"'{c}'" for c in self.left_out)
        cols = f"COLUMNS(lambda c: c NOT IN ({left_out}))" if left_out else "*"
        return ", ".join([cols, *(f"{sql} AS {name}" for name, sql in self.added)])

    def names(self) -> tuple[str, ...]:
        """The added columns' names."""
        return tuple(name for name, _ in self.added)


LARGER_LIMITS = ("1GB", "4GB")
"""The limits a query DuckDB cannot fit under :data:`MEMORY_LIMIT` is tried again with,
in turn, then DuckDB's own default (80 % of the machine's memory)."""


class Runs:
    """A set of run directories, queried together through one DuckDB connection.

    ``paths``: run directories or sweep parents. A run given twice (same
    ``run_id`` and the same content: the same files, or in another layout the same
    rows per table) is counted once; two runs with one ``run_id`` but different
    content are refused (:class:`LogError`, one line) rather than one silently
    dropped. Table files are the ones the manifest lists,
    checked as :class:`mjlog.logio.RunFiles` checks them: a manifest with a
    duplicate entry, a path out of the run, a file that is not regular, a wrong
    field type or a wrong run id is refused (:class:`LogError`, one line), and a
    file's sha256 is checked the first time a query reads its table.
    ``verify_hashes=False`` skips the sha256 (sizes are still checked): for data
    you trust and read often, say a run you just wrote. ``share``: another
    :class:`Runs` whose DuckDB database these query through a connection of their own
    (their temp tables apart): the two are held under one memory limit, not one each
    (``mjlog compare`` reads its sides so).
    """

    def __init__(
        self,
        paths: str | os.PathLike | Iterable[str | os.PathLike],
        verify_hashes: bool = True,
        share: Runs | None = None,
    ):
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        runs: list[Run] = []
        self._runs: list[RunFiles] = []
        self._rule_values: dict[tuple[str, str], dict[str, Any]] = {}
        self.rules: dict[str, dict[str, Any]] = {}
        """The logged rules of each run, by run id."""
        seen: dict[str, RunFiles] = {}
        for given in paths:
            for p, varied in expand_paths(Path(given)):
                rf = RunFiles(p, hashes=verify_hashes)
                m = rf.manifest
                rid = str(m.get("run_id"))
                if rid in seen:
                    _same_content(seen[rid], rf)
                    continue
                seen[rid] = rf
                self._runs.append(rf)
                rows = rf.rows("hands")
                logged = m.get("rules")
                self.rules[rid] = logged if isinstance(logged, dict) else {}
                self._rule_values[
                    (
                        str(m.get("variant")),
                        config_label(
                            str(m.get("variant")),
                            m.get("rules") or {},
                            bool(m.get("duplicate")),
                            varied,
                        ),
                    )
                ] = rule_values(str(m.get("variant")), m.get("rules") or {}, varied)
                runs.append(
                    Run(
                        path=p,
                        run_id=str(rid),
                        variant=str(m.get("variant")),
                        config=config_label(
                            str(m.get("variant")),
                            m.get("rules") or {},
                            bool(m.get("duplicate")),
                            varied,
                        ),
                        agents=tuple(_agent_spec(a) for a in m.get("agents") or ()),
                        seed=None if m.get("seed") is None else int(m["seed"]),
                        matches=int(m.get("matches") or 0),
                        hands_per_match=int(m.get("hands_per_match") or 0),
                        duplicate=bool(m.get("duplicate")),
                        hands=rows,
                        events=rf.has_events,
                    )
                )
        if not runs:
            raise LogError("no runs given")
        self.lineups: dict[str, tuple[str, ...]] = {
            r.run_id: lineup
            for r, lineup in zip(
                runs,
                agent_labels([manifest_lineup(rf.manifest) for rf in self._runs]),
                strict=True,
            )
            if lineup is not None
        }
        """Each run's agents, seat by seat at rotation 0, as labels that tell every
        agent of these runs apart (:mod:`analysis.agent_labels`); an imported run's
        seats keep the names its hands give."""
        for rf in self._runs:
            for t in ("hands", "wins", "transfers"):
                if not rf.by_table[t]:
                    raise LogError(f"{rf.manifest_path}: the manifest lists no {t} files")
        self._checked: dict[str, list[str]] = {}
        self._copies: dict[str, str] = {}
        self._copy_columns: dict[str, CopyColumns] = {}
        self._reads: dict[str, int] = {}
        self.runs = runs
        # a cursor is a connection of its own to the same database: its own temp tables
        # and views, the database's memory limit and spill folder (kept alive with it)
        self._shared = share
        self.con: duckdb.DuckDBPyConnection = _connect() if share is None else share.con.cursor()
        self.work = _work_database(self.con)
        """The DuckDB database (a file in the spill folder) the figures' tables are kept in."""
        self._limit_step = 0
        self.raised = 0
        """How many times a query was run again under a larger DuckDB limit."""
        self.con.register("runs", self.info()[["run_id", "config"]])
        self.con.execute("CREATE TEMP TABLE lineups (run_id VARCHAR, agents VARCHAR[])")
        if self.lineups:
            self.con.executemany(
                "INSERT INTO lineups VALUES (?, ?)",
                [[rid, list(a)] for rid, a in self.lineups.items()],
            )
        self.con.register(
            "reasons",
            pd.DataFrame(
                {"reason": list(REASON_CATEGORY), "category": list(REASON_CATEGORY.values())}
            ),
        )

    def __repr__(self) -> str:
        return f"Runs({[str(r.path) for r in self.runs]!r})"

    def close(self) -> None:
        """Close the DuckDB connection now, its threads with it (a process that forks
        workers next must not fork DuckDB's threads' locks into them); a connection
        left for the collector lives until a cycle collection."""
        self.con.close()

    def __enter__(self) -> Runs:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def release(self, prefix: str = "") -> None:
        """Drop the temp tables whose names start with ``prefix`` (all of them by
        default) and what was kept from them: DuckDB's memory goes back to its pool
        (a report draws its figures after), and a later query makes them anew."""
        names = [
            str(n)
            for (n,) in self.con.execute(
                "SELECT table_name FROM duckdb_tables() "
                "WHERE (temporary OR database_name = $db) AND starts_with(table_name, $p)",
                {"p": prefix, "db": self.work},
            ).fetchall()
        ]
        cache = self.__dict__.get("_cache", {})

        def table(kept: Any) -> str | None:  # a table's name, or an object's that has one
            if isinstance(kept, str):
                return kept
            return getattr(kept, "table", None) if hasattr(type(kept), "table") else None

        for key in [k for k, v in cache.items() if table(v) in names]:
            del cache[key]
        for t in [t for t, n in self._copies.items() if n in names]:
            del self._copies[t]  # read from the files again, once, if asked again
            self._copy_columns.pop(t, None)
        for n in names:
            self.con.execute(f'DROP TABLE IF EXISTS "{n}"')

    def __len__(self) -> int:
        return len(self.runs)

    def files(self, table: str) -> list[str]:
        """The Parquet files of ``table`` over every run: absolute paths with DuckDB's
        glob characters escaped (a folder named ``run[1]`` is read literally), each
        file verified the first time it is asked for."""
        if table not in self._checked:
            if table == "events" and not all(rf.has_events for rf in self._runs):
                raise LogError("these runs were written without events (--events none)")
            self._checked[table] = [
                duckdb_path(p.resolve()) for rf in self._runs for p in rf.files(table)
            ]
        return list(self._checked[table])

    def info(self) -> pd.DataFrame:
        """One row per run: id, variant, config, agents (with parameters), seed, size, path."""
        return pd.DataFrame(
            [
                {
                    "run_id": r.run_id,
                    "variant": r.variant,
                    "config": r.config,
                    "agents": ",".join(r.agents),
                    "seed": r.seed,
                    "matches": r.matches,
                    "hands_per_match": r.hands_per_match,
                    "hands": r.hands,
                    "events": r.events,
                    "path": str(r.path),
                }
                for r in self.runs
            ]
        )

    def sql(self, query: str, **params: Any) -> pd.DataFrame:
        """Run ``query``; ``$hands``, ``$wins``, ``$transfers`` (and ``$events`` when the
        query names it) are bound to the file lists; ``params`` bind further ``$names``.
        The views ``runs`` (run_id, config), ``reasons`` (reason, category) and
        ``lineups`` (run_id, agents: :attr:`lineups`; :data:`SEAT_AGENTS` reads it)
        are there to join."""
        return self._in_run_order(self._execute(query, params).df())

    def numbers(self, query: str, **params: Any) -> dict[str, np.ndarray]:
        """:meth:`sql`'s result as one NumPy array a column, in the query's order (no
        frame, no reordering by run): for queries of numbers a caller reduces."""
        got = self._execute(query, params).fetchnumpy()
        return {c: np.asarray(v) for c, v in got.items()}

    def store(self, query: str, params: dict[str, Any]) -> None:
        """Run ``query``, a ``CREATE TABLE … AS`` whose rows DuckDB may write in any
        order (every reader of the table orders or keys its rows itself): a table
        written in the order of its query is buffered while it is written, and at
        10M hands a seat table's buffer alone was past :data:`MEMORY_LIMIT`."""
        self.con.execute("SET preserve_insertion_order = false")
        try:
            self._execute(query, params)
        finally:
            self.con.execute("RESET preserve_insertion_order")

    def _raise_limit(self) -> None:
        """DuckDB's memory limit one step up :data:`LARGER_LIMITS`, then its default."""
        if self._limit_step < len(LARGER_LIMITS):
            self.con.execute("SET memory_limit = $m", {"m": LARGER_LIMITS[self._limit_step]})
        else:
            self.con.execute("RESET memory_limit")
        self._limit_step += 1
        self.raised += 1

    def _execute(self, query: str, params: dict[str, Any]) -> duckdb.DuckDBPyConnection:
        """``query`` run with the file lists bound (:meth:`sql`), its result not fetched
        (a ``CREATE TEMP TABLE`` keeps it in DuckDB, under :data:`MEMORY_LIMIT`). A
        table's ``read_parquet($TABLE)`` reads :meth:`copy` of it from the table's
        second query on (its files read twice at most, however many queries read
        them), unless the caller bound ``$TABLE`` itself or the query needs a column
        the copy leaves out (:data:`NOT_COPIED`, or the copy's :class:`CopyColumns`)."""
        for t in COPIED:
            if f"read_parquet(${t})" in query and t not in params:
                if any(re.search(rf"\b{c}\b", query) for c in self._left_out(t)):
                    continue
                # the first query reads the files, as it would alone; a second makes
                # the copy (a command that reads a table once pays no copy for it)
                self._reads[t] = self._reads.get(t, 0) + 1
                if t in self._copies or self._reads[t] > 1:
                    query = query.replace(f"read_parquet(${t})", self.copy(t))
        for t in ("hands", "wins", "transfers", "events"):
            if f"${t}" in query:
                params.setdefault(t, self.files(t))
        return self._run(query, params)

    def _left_out(self, table: str) -> tuple[str, ...]:
        """The columns of ``table`` its copy has not (or will not have) kept."""
        kept = self._copy_columns.get(table)
        return kept.left_out if kept is not None else NOT_COPIED.get(table, ())

    def copy_columns(self, table: str) -> CopyColumns | None:
        """What the copy of ``table`` keeps (:class:`CopyColumns`), None before it is made."""
        return self._copy_columns.get(table) if table in self._copies else None

    def copy(self, table: str, columns: CopyColumns | None = None) -> str:
        """The name of a table of :attr:`work` holding every row of ``table``
        (``hands``, ``wins`` or ``transfers``; every column but :data:`NOT_COPIED`, or
        what ``columns`` keeps), in the files' order: its files are read (and
        verified, :meth:`files`) the first time, and every later query reads DuckDB's
        compressed copy (evicted to the work file under :data:`MEMORY_LIMIT`), not the
        Parquet files again. At 10M hands a report's queries read a run's files some
        forty times. ``columns`` is for the first call (a copy made otherwise is
        refused, :class:`ValueError`). :meth:`release` drops it with the rest."""
        if table not in COPIED:
            raise ValueError(f"table must be one of {', '.join(COPIED)}, not {table!r}")
        kept = columns or CopyColumns(NOT_COPIED.get(table, ()))
        if table in self._copies and columns is not None and columns != self._copy_columns[table]:
            raise ValueError(f"the copy of {table} was made with other columns")
        if table not in self._copies:
            name = f"{COPY_PREFIX}{table}"
            cols = kept.select()
            files = self.files(table)
            rows = sum(rf.rows(table) for rf in self._runs)
            step = max(1, min(COPY_FILES, len(files) * COPY_ROWS // max(rows, 1)))
            # the rows in the files' order (insertion order kept, as read_parquet gives
            # them): a query without an ORDER BY sees them as it did the files. A block
            # of files at a time: an ordered insert of 10M hands' 5,000 files at once
            # held 700 MB, as did the 5,000 files of their 40,000 wins
            if not kept.ordered:
                self.con.execute("SET preserve_insertion_order = false")
            try:
                for i in range(0, len(files), step):
                    into = f"{self.work}.{name}"
                    self._run(
                        (
                            f"CREATE OR REPLACE TABLE {into} AS "
                            if i == 0
                            else f"INSERT INTO {into} "
                        )
                        + f"SELECT {cols} FROM read_parquet($files)",
                        {"files": files[i : i + step]},
                    )
            finally:
                if not kept.ordered:
                    self.con.execute("RESET preserve_insertion_order")
            self._copies[table] = name
            self._copy_columns[table] = kept
        return f"{self.work}.{self._copies[table]}"

    def _run(self, query: str, params: dict[str, Any]) -> duckdb.DuckDBPyConnection:
        """``query`` run under :data:`MEMORY_LIMIT` (then :data:`LARGER_LIMITS`); a
        DuckDB error is one line (:class:`LogError`)."""
        if self._limit_step:  # a larger limit was for one query: back under the usual one
            self.con.execute("SET memory_limit = $m", {"m": MEMORY_LIMIT})
            self._limit_step = 0
        try:
            while True:
                try:
                    return self.con.execute(query, params)
                except duckdb.OutOfMemoryException:
                    # an operator that cannot spill: a larger limit rather than no answer
                    if self._limit_step > len(LARGER_LIMITS):
                        raise
                    self._raise_limit()
        except duckdb.Error as e:  # a damaged file its manifest vouches for, say
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise LogError(
                f"DuckDB could not run the query over the runs' Parquet files: {clip(first)}"
            ) from None

    def rule_columns(self) -> pd.DataFrame:
        """One row per (variant, config): a typed column per rule key any run changed
        (``cap`` an int, ``zimo_bonus`` a string; missing where a group keeps the default
        or does not have the key)."""
        items = list(self._rule_values.items())
        keys_ = list(dict.fromkeys(k for _, vals in items for k in vals))
        df = pd.DataFrame(
            {"variant": [v for (v, _), _ in items], "config": [c for (_, c), _ in items]}
        )
        for k in keys_:
            raw = [vals.get(k) for _, vals in items]
            got = [v for v in raw if v is not None]
            if got and all(isinstance(v, bool) for v in got):
                dtype = "boolean"
            elif got and all(isinstance(v, int) and not isinstance(v, bool) for v in got):
                dtype = "Int64"
            elif got and all(isinstance(v, int | float) and not isinstance(v, bool) for v in got):
                dtype = "Float64"
            else:
                dtype, raw = "string", [None if v is None else str(v) for v in raw]
            df[k] = pd.array(raw, dtype=cast(Any, dtype))  # (the stubs want a literal)
        return df

    def _in_run_order(self, df: pd.DataFrame) -> pd.DataFrame:
        """Groups in the order their runs were given (sweep points in grid order), rows
        within a group as the query ordered them."""
        if not {"variant", "config"} <= set(df.columns) or df.empty:
            return df
        rank: dict[tuple[str, str], int] = {}
        for r in self.runs:
            rank.setdefault((r.variant, r.config), len(rank))
        if len({k[0] + "\x00" + k[1] for k in rank}) == 1:
            return df.reset_index(drop=True)
        text = df["variant"].astype(str) + "\x00" + df["config"].astype(str)
        key = text.map({v + "\x00" + c: i for (v, c), i in rank.items()}).fillna(len(rank))
        order = np.argsort(key.to_numpy(float), kind="stable")
        return df.iloc[order].reset_index(drop=True)


def finished_table(runs: Runs, df: pd.DataFrame) -> pd.DataFrame:
    """The rule keys as typed columns after ``config`` (:meth:`Runs.rule_columns`), in
    run order."""
    rc = runs.rule_columns()
    extra = [c for c in rc.columns[2:] if c not in df.columns]
    if extra and {"variant", "config"} <= set(df.columns):
        at = list(df.columns).index("config") + 1
        df = df.merge(rc[["variant", "config", *extra]], on=["variant", "config"], how="left")
        cols = list(df.columns)
        cols = cols[:at] + extra + [c for c in cols[at:] if c not in extra]
        df = df[cols]
    return runs._in_run_order(df)


def as_runs(runs: Runs | str | os.PathLike | Iterable[str | os.PathLike]) -> Runs:
    return runs if isinstance(runs, Runs) else Runs(runs)


def run_table(runs) -> pd.DataFrame:
    """The runs, one row each (:meth:`Runs.info`)."""
    return as_runs(runs).info()


def caps(runs) -> pd.DataFrame:
    """Per group whose rules have a cap (封顶, what one payer of a win pays at most: the
    rulebook's points, ``wins.points``): ``cap``; a group of runs with two caps, or of
    a variant without the key, is no row.

    >>> from analysis.studies.sample import data_dir
    >>> caps(data_dir() / "yuxi")[["variant", "cap"]].to_dict("records")
    [{'variant': 'yuxi', 'cap': 64}]
    """
    runs = as_runs(runs)
    found: dict[tuple[str, str, str], set] = {}
    for run in runs.runs:
        rules = rules_of_run(runs, run)
        if rules is None or "cap" not in rules:
            continue
        key = (run.variant, run.config, ",".join(run.agents))
        found.setdefault(key, set()).add(rules["cap"])
    rows = [(*k, next(iter(v))) for k, v in found.items() if len(v) == 1]
    return pd.DataFrame(rows, columns=[*GROUP, "cap"])


# ------------------------------------------------------------------ statistics


def group_label(df: pd.DataFrame, with_config: bool | None = None) -> pd.Series:
    """``variant config [lineup]`` per row (config left out when all rows are ``default``)."""
    if with_config is None:
        with_config = bool((df["config"] != "default").any())
    label = df["variant"].astype(str)
    if with_config:
        label = label + " " + df["config"].astype(str)
    return label + " [" + df["lineup"].astype(str) + "]"


GROUP_SQL = ", ".join(GROUP)
_HG = ", ".join(f"h.{c}" for c in GROUP)  # where another table also has `variant`

SEAT_AGENTS = """CASE WHEN l.agents IS NULL THEN h.agents
    ELSE list_transform(range(h.players::BIGINT),
                        lambda s: l.agents[(s - h.rotation + h.players) % h.players + 1])
    END"""
"""SQL: a hand's agents seat by seat, as labels (:attr:`Runs.lineups`), of hands ``h``
``LEFT JOIN lineups l USING (run_id)``; the runner seats line-up place j at seat
(j + rotation) mod n. A run without labels (imported) keeps ``hands.agents``."""

# Hands with the group columns. The lineup is the run's agents seat by seat at rotation
# 0 (in duplicate play the rotations of one match pool into one line-up), as labels.
HANDS_CTE = f"""
    h AS (
        SELECT h.run_id, h.match, h.rotation, h.hand, h.variant::VARCHAR AS variant,
               r.config,
               CASE WHEN l.agents IS NOT NULL THEN array_to_string(l.agents, ',')
                    WHEN h.rotation = 0 THEN array_to_string(h.agents, ',')
                    ELSE array_to_string(list_transform(range(h.players::BIGINT),
                        lambda j: h.agents[(j + h.rotation) % h.players + 1]), ',')
               END AS lineup,
               h.players, h.dealer, {SEAT_AGENTS} AS agents, h.winners, h.deltas,
               h.outcome::VARCHAR AS outcome, h.n_events, h.wall_left
        FROM read_parquet($hands) h JOIN runs r USING (run_id)
             LEFT JOIN lineups l USING (run_id)
    )"""

_KEY = "run_id, match, rotation, hand"


def run_groups(runs: Runs) -> str | None:
    """The DuckDB temp table of each run's group (``run_id`` and :data:`GROUP`) when every
    hand of a run is of one group, as a simulated run's are (its line-up is its
    manifest's); None when a run's hands name several (an imported run's seats). A
    figure then sums a run's rows and joins the few per-run sums to their groups,
    where joining every hand's row to its group's labels would hold a row per hand.
    Made once per ``runs``."""
    cache = runs.__dict__.setdefault("_cache", {})
    if "run_groups" not in cache and any(r.run_id not in runs.lineups for r in runs.runs):
        cache["run_groups"] = None  # an imported run: its hands name their seats
    if "run_groups" not in cache:
        runs._execute(
            f"""CREATE OR REPLACE TABLE run_groups AS
            WITH {HANDS_CTE}
            SELECT DISTINCT run_id::VARCHAR AS run_id, {GROUP_SQL} FROM h""",
            {},
        )
        got = runs.con.execute("SELECT count(*), count(DISTINCT run_id) FROM run_groups").fetchone()
        cache["run_groups"] = "run_groups" if got is not None and got[0] == got[1] else None
    found: str | None = cache["run_groups"]
    return found


# ---------------------------------------------------------------- per seat


_SEAT_BY = {
    "seat": ", seat, agent",
    "agent": ", agent",
    "position": ", position",
    "order": ', "order"',
    "variant": "",
}
"""``seat_stats(by=...)`` → the columns grouped on besides :data:`GROUP`."""


_SEAT_COUNTS = [
    "hands",
    "hands_won",
    "wins",
    "self_draws",
    "hands_dealt_in",
    "deal_ins",
    "points",
    "points_sq",
]
_SEAT_RATES = {
    "win_rate": ("hands_won", "hands"),
    "self_draw_share": ("self_draws", "wins"),
    "deal_in_rate": ("hands_dealt_in", "hands"),
}


def _by_cols(by: str) -> list[str]:
    return [c.strip().strip('"') for c in _SEAT_BY[by].split(",") if c.strip()]


def seat_sums(runs: Runs, by: str) -> pd.DataFrame:
    """Per group, ``by`` key and match: the seat sums (the rows of :func:`_seat_units`)."""
    t, by_keys = _seat_units(runs, by), "".join(f", {_q(c)}" for c in _by_cols(by))
    return runs.sql(
        f"SELECT * EXCLUDE (first, tot, n) FROM {t} ORDER BY {GROUP_SQL}, first{by_keys}, run_id, match"
    )


def _q(col: str) -> str:
    return f'"{col}"'


def _seat_units(runs: Runs, by: str) -> str:
    """The DuckDB temp table of the seat sums per group, ``by`` key and match: the
    per-match rows every seat figure's interval needs stay in DuckDB (which spills
    them past :data:`MEMORY_LIMIT`) and are fetched one key at a time
    (:func:`_collapse_table`). ``first`` is the first seat a pooled row (``agent``,
    ``variant``) sums, 0 otherwise: with the keys and then ``run_id`` and ``match`` it
    orders the rows as pandas' first-appearance order of the seat table did (no window
    over every row: DuckDB cannot spill one). ``tot`` and ``n`` are the points and
    positions of the row's match (``position`` only). Made once per ``runs``: the
    dealer and position tables share it."""
    if by not in _SEAT_BY:
        raise ValueError(f"by must be one of {', '.join(_SEAT_BY)}, not {by!r}")
    cache = runs.__dict__.setdefault("_cache", {})
    name = f"seat_units_{by}"
    if name not in cache:
        keys = ", ".join(_q(c) for c in (*GROUP, *_by_cols(by), "run_id", "match"))
        if by in ("agent", "variant"):  # seats pooled: from the per-seat sums
            sums = ", ".join(f"sum({c})::BIGINT AS {c}" for c in _SEAT_COUNTS)
            runs.store(
                f"""CREATE OR REPLACE TABLE {name} AS
                SELECT {keys}, {sums}, min(seat)::INT AS first, NULL::BIGINT AS tot,
                       NULL::BIGINT AS n
                FROM {_seat_units(runs, "seat")} GROUP BY ALL""",
                {},
            )
        else:
            per_run = run_groups(runs)
            query = _seat_sums_query(by, per_run)
            if by == "position":  # with its match's points and positions (a join: spills)
                select = f"""WITH u AS ({query})
                SELECT u.*, 0 AS first, m.tot, m.n FROM u JOIN (
                    SELECT {GROUP_SQL}, run_id, match, sum(points)::BIGINT AS tot, count(*) AS n
                    FROM u GROUP BY ALL) m USING ({GROUP_SQL}, run_id, match)"""
            else:
                select = f"""SELECT *, 0 AS first, NULL::BIGINT AS tot, NULL::BIGINT AS n
                FROM ({query})"""
            # runs of one group each: a block of matches at a time (a grouping of every
            # seat and match of a 10M-hand run is more than DuckDB spills under its limit)
            blocks = _match_blocks_of(runs) if per_run is not None else [None]
            for i, block in enumerate(blocks):
                head = f"CREATE OR REPLACE TABLE {name} AS" if i == 0 else f"INSERT INTO {name}"
                runs.store(f"{head} {select}", {} if block is None else block)
        cache[name] = name
    return str(cache[name])


SEAT_BLOCK = 200_000
"""Matches (of every run) whose seat sums one DuckDB query makes, for runs of one
group each (:func:`_seat_units`)."""


def _match_blocks_of(runs: Runs) -> list[dict[str, int]]:
    """Ranges ``{"lo": …, "hi": …}`` of :data:`SEAT_BLOCK` match numbers covering every
    match of ``runs`` (one at least)."""
    got = runs._execute("SELECT min(match), max(match) FROM read_parquet($hands)", {}).fetchone()
    lo, hi = (0, 0) if got is None or got[0] is None else (int(got[0]), int(got[1]))
    return [{"lo": a, "hi": min(a + SEAT_BLOCK - 1, hi)} for a in range(lo, hi + 1, SEAT_BLOCK)]


#: A seat's wins, self-draws and first win order per hand (``ws``) and the wins it
#: dealt in (``di``), from the wins ``w`` that both seat-sum queries read.
_WIN_COUNTS = f"""ws AS (SELECT {_KEY}, seat, count(*) AS n_wins,
                  count(*) FILTER (WHERE method = 'self_draw') AS n_self,
                  min(win_order) AS win_order
           FROM w GROUP BY ALL),
    di AS (SELECT {_KEY}, from_seat AS seat, count(*) AS n_dealin
           FROM w WHERE from_seat IS NOT NULL GROUP BY ALL)"""

#: A seat's sums over a match's hands from the per-hand rows ``x``
#: that both seat-sum queries build.
_SEAT_SUMS = """count(*) AS hands,
           count(*) FILTER (WHERE n_wins > 0) AS hands_won,
           sum(n_wins)::BIGINT AS wins,
           sum(n_self)::BIGINT AS self_draws,
           count(*) FILTER (WHERE n_dealin > 0) AS hands_dealt_in,
           sum(n_dealin)::BIGINT AS deal_ins,
           sum(pts)::BIGINT AS points,
           sum(pts * pts)::BIGINT AS points_sq"""


def _seat_sums_query(by: str, per_run: str | None = None) -> str:
    """SQL: the seat sums per group, ``by`` key and match. With ``per_run`` (the table
    of :func:`run_groups`) a run's seats are summed without their group's labels and
    the sums joined to their groups after: each of the hands' seat rows (4 a hand)
    carries its keys and numbers only."""
    if per_run is not None:
        return _seat_sums_per_run(by, per_run)
    extra = _SEAT_BY[by]
    return f"""
    WITH {HANDS_CTE},
    w AS (SELECT {_KEY}, seat, from_seat, method::VARCHAR AS method, win_order
          FROM read_parquet($wins)),
    {_WIN_COUNTS},
    s AS (SELECT {_KEY}, {GROUP_SQL}, players, dealer, agents, deltas,
                 unnest(range(players::BIGINT))::TINYINT AS seat FROM h),
    x AS (
        SELECT {GROUP_SQL}, run_id, match, s.seat, agents[s.seat + 1] AS agent,
               ((s.seat - dealer + players) % players)::INT AS position,
               coalesce(CASE win_order WHEN 1 THEN '1st' WHEN 2 THEN '2nd' WHEN 3 THEN '3rd'
                        ELSE win_order::VARCHAR || 'th' END, 'none') AS "order",
               coalesce(n_wins, 0) AS n_wins, coalesce(n_self, 0) AS n_self,
               coalesce(n_dealin, 0) AS n_dealin, deltas[s.seat + 1]::BIGINT AS pts
        FROM s LEFT JOIN ws USING ({_KEY}, seat) LEFT JOIN di USING ({_KEY}, seat)
    )
    SELECT {GROUP_SQL}{extra}, run_id, match,
           {_SEAT_SUMS}
    FROM x GROUP BY ALL
    """


def _seat_sums_per_run(by: str, per_run: str) -> str:
    """:func:`_seat_sums_query` of runs whose hands are each of their run's group."""
    extra = _SEAT_BY[by]
    # a seat's agent as a number (the first place of its label in the run's line-up),
    # named after the sums: a string key in a grouping of every seat and match is
    # more than DuckDB can hold under its limit at 10M hands
    agent = ", l.agents AS lineup" if by in ("seat", "agent") else ""
    seat_agent = (
        ", agent := list_position(lineup, lineup[(s - rotation + players) % players + 1])"
        if agent
        else ""
    )
    return f"""
    WITH h AS (
        SELECT h.run_id, h.match, h.rotation, h.hand, h.players, h.dealer, h.deltas{agent}
        FROM read_parquet($hands) h LEFT JOIN lineups l USING (run_id)
        WHERE h.match BETWEEN $lo AND $hi
    ),
    w AS (SELECT {_KEY}, seat, from_seat, method::VARCHAR AS method, win_order
          FROM read_parquet($wins) WHERE match BETWEEN $lo AND $hi),
    {_WIN_COUNTS},
    s AS (SELECT {_KEY}, u.seat AS seat{", u.agent AS agent" if agent else ""},
                 u.position AS position, u.pts AS pts
          FROM (SELECT {_KEY}, unnest(list_transform(range(players::BIGINT),
                    lambda s: struct_pack(seat := s::TINYINT{seat_agent},
                                          position := ((s - dealer + players) % players)::INT,
                                          pts := deltas[s + 1]::BIGINT))) AS u
                FROM h)),
    x AS (
        SELECT run_id, match, seat, {"agent, " if agent else ""}position,
               coalesce(CASE win_order WHEN 1 THEN '1st' WHEN 2 THEN '2nd' WHEN 3 THEN '3rd'
                        ELSE win_order::VARCHAR || 'th' END, 'none') AS "order",
               coalesce(n_wins, 0) AS n_wins, coalesce(n_self, 0) AS n_self,
               coalesce(n_dealin, 0) AS n_dealin, pts
        FROM s LEFT JOIN ws USING ({_KEY}, seat) LEFT JOIN di USING ({_KEY}, seat)
    ),
    m AS (
        SELECT run_id::VARCHAR AS run_id{extra}, match,
               {_SEAT_SUMS}
        FROM x GROUP BY ALL
    )
    SELECT {GROUP_SQL}{extra.replace(", agent", ", l.agents[agent] AS agent")}, run_id, match,
           hands, hands_won, wins, self_draws, hands_dealt_in, deal_ins, points, points_sq
    FROM m JOIN {per_run} USING (run_id){" JOIN lineups l USING (run_id)" if agent else ""}
    """


def _collapse_table(
    runs: Runs,
    table: str,
    keys: list[str],
    counts: list[str],
    rates: dict[str, tuple[str, str]],
    means: dict[str, tuple[str, str | None]],
    derive: Any = None,
) -> pd.DataFrame:
    """:func:`_collapse` of the unit rows in the DuckDB table ``table`` (of
    :func:`_seat_units`, in its order): the sums by DuckDB, each key's intervals from its own rows alone, fetched
    one key at a time, so no more than one key's matches is ever held here.
    ``derive(rows)`` adds columns a spec needs to one key's rows. The same figures, in
    the same order, as :func:`_collapse` of the whole table."""
    k = ", ".join(_q(c) for c in keys)
    sums = runs.sql(
        f"SELECT {k}, "
        + ", ".join(f"sum({_q(c)})::BIGINT AS {_q(c)}" for c in counts)
        + f" FROM {table} GROUP BY ALL ORDER BY {GROUP_SQL}, min(first)"
        + "".join(f", {_q(c)}" for c in keys[len(GROUP) :])
    )
    # only the columns the figures read (a key's rows are every match of a group)
    has = {d[0] for d in runs.con.execute(f"SELECT * FROM {table} LIMIT 0").description}
    used = [c for specs in (rates, means) for yx in specs.values() for c in yx if c is not None]
    if derive is not None:
        used += [*counts, "tot", "n"]
    need = [c for c in dict.fromkeys(used) if c in has]
    where = " AND ".join(f"{_q(c)} IS NOT DISTINCT FROM ${i}" for i, c in enumerate(keys, 1))
    parts: list[pd.DataFrame] = []
    query = (
        f"SELECT {', '.join(_q(c) for c in need)} FROM {table} WHERE {where} "
        "ORDER BY first, run_id, match"
    )
    for key in sums[keys].itertuples(index=False):
        params = [None if pd.isna(v) else v.item() if hasattr(v, "item") else v for v in key]
        # one key's rows at a time: gone before the next key's are fetched
        parts.append(_key_estimates(_key_rows(runs, query, params), rates, means, derive))
    if not parts:  # no units: the empty table's own columns, as _collapse names them
        u = runs.sql(f"SELECT * FROM {table}")
        return _collapse(derive(u) if derive else u, keys, counts, rates, means)
    return pd.concat([sums, pd.concat(parts, ignore_index=True)], axis=1)


def _key_estimates(
    g: pd.DataFrame,
    rates: dict[str, tuple[str, str]],
    means: dict[str, tuple[str, str | None]],
    derive: Any = None,
) -> pd.DataFrame:
    """One key's row of :func:`_collapse_table`: ``matches`` and each figure with its
    interval, from that key's per-match rows ``g``."""
    if derive is not None:
        g = derive(g)
    est: pd.DataFrame | None = None
    if rates:
        est = rate_estimates(g, [], rates)
    if means:
        e = estimates(g, [], means)
        est = e if est is None else pd.concat([est, e.drop(columns="matches")], axis=1)
    assert est is not None  # a collapse names one figure at least
    return est


KEY_BATCH = 1 << 17
"""Rows of one key :func:`_key_rows` takes from DuckDB at a time."""


def _key_rows(runs: Runs, query: str, params: list[Any] | dict[str, Any]) -> pd.DataFrame:
    """The numeric rows of ``query`` (one key's matches, :func:`_collapse_table`) as a
    frame of one array a column (:func:`fetch_columns`)."""
    # copy=False: each column stays its own array (no 2-D block copied from them)
    return pd.DataFrame(fetch_columns(runs, query, params), copy=False)


def fetch_columns(
    runs: Runs, query: str, params: list[Any] | dict[str, Any], masked: bool = False
) -> dict[str, np.ndarray]:
    """The rows of ``query`` as one NumPy array a column, fetched :data:`KEY_BATCH` rows
    at a time: neither DuckDB's whole result nor a frame's copy of it is held beside
    the arrays (at 10M hands a key is 1.25M matches). NULLs are NaN, or with
    ``masked`` as DuckDB's ``fetchnumpy`` gives them: masked, 0 beneath the mask."""
    reader = runs.con.sql(query, params=params).to_arrow_reader(KEY_BATCH)
    names = list(reader.schema.names)
    chunks: dict[str, list[np.ndarray]] = {c: [] for c in names}
    for batch in reader:
        for c, col in zip(names, batch.columns, strict=True):
            if masked and col.null_count:
                data = pc.fill_null(col, 0).to_numpy(zero_copy_only=False)
                mask = col.is_null().to_numpy(zero_copy_only=False)
                chunks[c].append(np.ma.masked_array(data, mask=mask))
            else:
                chunks[c].append(col.to_numpy(zero_copy_only=False))
    cols = {}
    for c in names:  # a column's batches let go as soon as it is one array
        v = chunks.pop(c)
        if any(isinstance(x, np.ma.MaskedArray) for x in v):
            cols[c] = np.ma.concatenate(v)
        else:
            cols[c] = (
                np.concatenate(v)
                if v
                else np.empty(0, reader.schema.field(c).type.to_pandas_dtype())
            )
    return cols


def _collapse(
    units: pd.DataFrame,
    keys: list[str],
    counts: list[str],
    rates: dict[str, tuple[str, str]],
    means: dict[str, tuple[str, str | None]],
) -> pd.DataFrame:
    """Unit-level (per match) sums → per ``keys``: the summed ``counts``, then each rate
    (:func:`analysis.rates.rate_estimates`: never zero-width, with ``_count`` and
    ``_rare``) and mean with its match-unit interval."""
    sums = units.groupby(keys, sort=False)[counts].sum().reset_index()
    out = sums
    steps: tuple[tuple[Mapping[str, tuple[str, str | None]], Callable[..., pd.DataFrame]], ...]
    steps = ((rates, rate_estimates), (means, estimates))
    for specs, estimator in steps:
        if specs:
            est: pd.DataFrame = estimator(units, keys, specs)
            out = out.merge(
                est.drop(columns=[c for c in ("matches",) if c in out]), on=keys, how="left"
            )
    return out


def seat_stats(runs, by: str = "seat") -> pd.DataFrame:
    """Win rate, self-draw share, deal-in rate and mean points, each with a 95% CI
    (the match as the unit; ``matches`` counts them).

    ``by``: ``seat`` (one row per seat, with its agent), ``agent`` (seats pooled
    per agent: its label, :attr:`Runs.lineups`), ``position`` (seat relative to the dealer: 0 is the
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
    keys = [*GROUP, *_by_cols(by)]
    df = _collapse_table(
        runs,
        _seat_units(runs, by),
        keys,
        _SEAT_COUNTS,
        _SEAT_RATES,
        {"mean_points": ("points", "hands")},
    )
    return finished_table(runs, df)


def position_advantage(runs) -> pd.DataFrame:
    """Each seat position's advantage (0 = the dealer), with its 95% CI over matches.

    ``advantage`` = the position's mean points per hand minus the other positions'
    pooled mean; per match the unit value is ``pts_p − Σ pts_others / (n − 1)`` over
    its hands, so the interval is paired within the match (same walls for every
    position). In duplicate play every agent sits at every position on the same
    walls, so the advantage is the seat's, not the agents'; in a mixed line-up
    without duplicate play it also measures who sits where (``mixed`` is True and
    ``duplicate`` False: read it with care). The building block of a balance study:
    the dealer advantage is position 0.
    """
    runs = as_runs(runs)

    def adv_y(u: pd.DataFrame) -> pd.DataFrame:  # tot, n: the match's points and positions
        return u.assign(adv_y=u["points"] - (u["tot"] - u["points"]) / (u["n"] - 1).clip(lower=1))

    keys = [*GROUP, "position"]
    df = _collapse_table(
        runs,
        _seat_units(runs, "position"),
        keys,
        ["hands", "points"],
        {},
        {"advantage": ("adv_y", "hands")},
        derive=adv_y,
    )
    df["mixed"] = df["lineup"].map(lambda s: len(set(s.split(","))) > 1)
    dup = {(r.variant, r.config): r.duplicate for r in runs.runs}
    df["duplicate"] = [dup.get((v, c), False) for v, c in zip(df.variant, df.config, strict=True)]
    return finished_table(runs, df)


def dealer_advantage(runs) -> pd.DataFrame:
    """Per seat position relative to the dealer (0 = dealer): the :func:`seat_stats`
    figures, and ``advantage`` (with ``advantage_lo``/``_hi``) from
    :func:`position_advantage`, with its ``mixed`` and ``duplicate`` flags."""
    runs = as_runs(runs)
    df = seat_stats(runs, by="position")
    adv = position_advantage(runs)[
        [
            *GROUP,
            "position",
            "advantage",
            "advantage_lo",
            "advantage_hi",
            "advantage_se",
            "mixed",
            "duplicate",
        ]
    ]
    return df.merge(adv, on=[*GROUP, "position"], how="left")


def first_winner(runs) -> pd.DataFrame:
    """Per order of winning (``1st``, ``2nd``, ``3rd``, ``none``): seats, mean points with
    a CI. In xuezhan the first winner leaves early: does it end up ahead?"""
    return seat_stats(runs, by="order")


# ---------------------------------------------------------------- patterns


def pattern_frequencies(runs) -> pd.DataFrame:
    """Each pattern (番种) per group: how often, and how much of the points it adds.

    - ``wins_with``: wins counting the pattern (once per win), ``count``: times
      counted (``gen`` and ``facai`` repeat per count),
    - ``per_win`` = wins_with / wins: the *share of wins that carry it* (95% CI, the
      match as the unit, never zero-width: :mod:`analysis.rates`; ``per_win_rare``
      flags fewer than 10 wins with it), ``per_hand`` = wins_with / hands,
    - ``contribution`` = the pattern's *marginal share of the points*: each win's
      ``total`` split among its patterns by what each adds (:func:`pattern_weights`:
      its fan over the win's fan for additive huangmei, its log2 doubling for yuxi and
      xuezhan), summed, over Σ ``total``; the contributions of a group add to 1
      (95% CI by match),
    - ``points_share`` = Σ ``total`` of the wins carrying it / Σ ``total`` (a win
      counts for every pattern it has, so these add to more than 1: read
      ``contribution`` for "which 番种 carry the points"),
    - ``name``: the Chinese name.
    """
    runs = as_runs(runs)
    q = f"""
    WITH {HANDS_CTE},
    g AS (SELECT {GROUP_SQL}, count(*) AS hands FROM h GROUP BY ALL),
    w AS (SELECT {_HG}, {_KEY}, w.seq, w.seat, w.patterns, w.total,
                 w.method::VARCHAR AS method
          FROM read_parquet($wins) w JOIN h USING ({_KEY})),
    t AS (SELECT {GROUP_SQL}, count(*) AS wins, sum(total)::BIGINT AS points FROM w GROUP BY ALL),
    u AS (SELECT {GROUP_SQL}, run_id, match, rotation, hand, seq, seat, total,
                 unnest(patterns) AS pattern FROM w),
    per_win AS (SELECT {GROUP_SQL}, pattern, any_value(total) AS total, count(*) AS n
                FROM u GROUP BY {GROUP_SQL}, run_id, match, rotation, hand, seq, seat, pattern),
    p AS (SELECT {GROUP_SQL}, pattern, count(*) AS wins_with, sum(n)::BIGINT AS count,
                 sum(total)::BIGINT AS points_with FROM per_win GROUP BY ALL)
    SELECT {GROUP_SQL}, p.pattern, p.wins_with, p.count, t.wins, g.hands, p.points_with, t.points
    FROM p JOIN t USING ({GROUP_SQL}) JOIN g USING ({GROUP_SQL})
    ORDER BY {GROUP_SQL}, wins_with DESC, pattern
    """
    df = runs.sql(q)
    df.insert(
        GROUP.__len__() + 1,
        "name",
        [_pattern_name(v, k) for v, k in zip(df["variant"], df["pattern"], strict=True)],
    )
    df["per_hand"] = df["wins_with"] / df["hands"]
    df["points_share"] = (df["points_with"] / df["points"]).where(df["points"] > 0)
    # per match: wins, points, and per pattern wins carrying it and points it adds,
    # kept in DuckDB and split among the patterns a block of matches at a time
    ids = [r.run_id for r in runs.runs]
    run_code = "(list_position($ids, h.run_id::VARCHAR) - 1)::INT AS run"
    runs.store(
        f"""CREATE OR REPLACE TABLE pattern_combos AS
    WITH {HANDS_CTE}
    SELECT {_HG}, w.run_id::VARCHAR AS run_id, {run_code}, w.match,
           w.method::VARCHAR AS method, w.patterns, count(*) AS n, sum(w.total)::BIGINT AS total
    FROM read_parquet($wins) w JOIN h USING ({_KEY})
    GROUP BY ALL""",
        {"ids": ids},
    )
    runs.store(
        f"""CREATE OR REPLACE TABLE pattern_units AS
    WITH {HANDS_CTE}
    SELECT {_HG}, h.run_id::VARCHAR AS run_id, {run_code}, h.match, count(w.seq) AS wins,
           coalesce(sum(w.total), 0)::BIGINT AS points
    FROM h LEFT JOIN read_parquet($wins) w USING ({_KEY})
    GROUP BY ALL""",
        {"ids": ids},
    )
    runs.con.execute(
        "CREATE OR REPLACE TABLE pattern_long "
        "(run INT, match INT, pattern VARCHAR, with_ DOUBLE, added DOUBLE)"
    )
    rules = {(r.variant, r.config): rules_of_run(runs, r) for r in runs.runs}
    cache: dict = {}
    where = " AND ".join(f"{c} = ${c}" for c in GROUP)
    out, out2 = [], []
    for key in runs.con.execute(
        f"SELECT DISTINCT {GROUP_SQL} FROM pattern_units ORDER BY ALL"
    ).fetchall():
        at = dict(zip(GROUP, key, strict=True))
        u = runs.con.execute(
            f"SELECT run, match, wins, points FROM pattern_units WHERE {where} "
            "ORDER BY run_id, match",
            at,
        ).df()
        runs.con.execute("DELETE FROM pattern_long")
        for rid, lo, hi in _match_blocks(runs, "pattern_units", where, at):
            _split_patterns(runs, at, rid, lo, hi, rules, cache)
        pats = [
            p
            for (p,) in runs.con.execute(
                "SELECT pattern FROM pattern_long GROUP BY pattern ORDER BY min(match), pattern"
            ).fetchall()
        ]
        ukey = (u["run"].to_numpy(np.int64) << 32) + u["match"].to_numpy(np.int64)
        order = np.argsort(ukey, kind="stable")
        for pat in pats:
            g = runs.con.execute(
                "SELECT run, match, with_, added FROM pattern_long WHERE pattern = $p", {"p": pat}
            ).fetchnumpy()
            gkey = (np.asarray(g["run"], np.int64) << 32) + np.asarray(g["match"], np.int64)
            rows = order[np.searchsorted(ukey, gkey, sorter=order)]
            with_, added = np.zeros(len(u)), np.zeros(len(u))
            with_[rows], added[rows] = g["with_"], g["added"]
            base = pd.DataFrame(
                {
                    "wins": u["wins"].to_numpy(),
                    "points": u["points"].to_numpy(),
                    "with_": with_,
                    "added": added,
                }
            )
            head = pd.DataFrame([{**at, "pattern": pat}])
            # one pattern's matches at a time: never every pattern × every match at once
            out.append(
                pd.concat([head, rate_estimates(base, [], {"per_win": ("with_", "wins")})], axis=1)
            )
            out2.append(
                pd.concat(
                    [
                        head,
                        estimates(base, [], {"contribution": ("added", "points")}, clip=(0.0, 1.0)),
                    ],
                    axis=1,
                )
            )
    runs.release("pattern_")
    if out:
        est = pd.concat(out, ignore_index=True).drop(columns="matches")
        est2 = pd.concat(out2, ignore_index=True)
        df = df.merge(est, on=[*GROUP, "pattern"], how="left").merge(
            est2, on=[*GROUP, "pattern"], how="left"
        )
    else:
        for c in ("per_win", "contribution"):
            for suf in ("", "_lo", "_hi", "_se"):
                df[c + suf] = np.nan
        df["per_win_count"], df["per_win_rare"] = 0, True
        df["matches"] = 0
    return finished_table(runs, df)


PATTERN_BLOCK = 20_000
"""Matches whose wins :func:`pattern_frequencies` splits among their patterns at a time
(in Python: a few rows per match)."""


def _match_blocks(
    runs: Runs, table: str, where: str, at: dict[str, Any]
) -> list[tuple[str, int, int]]:
    """(run id, first match, last match) of blocks of :data:`PATTERN_BLOCK` matches of
    the rows ``where`` of ``table``, in order of run id and match."""
    got = runs.con.execute(
        f"""SELECT run_id, min(match), max(match) FROM (
            SELECT run_id, match, (row_number() OVER (PARTITION BY run_id ORDER BY match) - 1)
                                  // $b AS block
            FROM {table} WHERE {where})
        GROUP BY run_id, block ORDER BY run_id, block""",
        {**at, "b": PATTERN_BLOCK},
    ).fetchall()
    return [(str(r), int(lo), int(hi)) for r, lo, hi in got]


def _split_patterns(
    runs: Runs,
    at: dict[str, Any],
    rid: str,
    lo: int,
    hi: int,
    rules: dict,
    cache: dict,
) -> None:
    """Each win of run ``rid``'s matches ``lo`` … ``hi`` (of group ``at``) split among
    its patterns (:func:`pattern_weights`): per match and pattern, the wins carrying it
    and the points it adds, appended to the DuckDB table ``pattern_long``."""
    where = " AND ".join(f"{c} = ${c}" for c in GROUP)
    combos = runs.con.execute(
        f"""SELECT run, match, method, patterns, n, total FROM pattern_combos
        WHERE {where} AND run_id = $rid AND match BETWEEN $lo AND $hi
        ORDER BY match, method, patterns""",
        {**at, "rid": rid, "lo": lo, "hi": hi},
    ).fetchall()
    rows = []
    for run, match, method, patterns, n, total in combos:
        key = (at["variant"], at["config"], method, tuple(patterns))
        if key not in cache:
            cache[key] = pattern_weights(
                at["variant"], rules.get((at["variant"], at["config"])), method, list(patterns)
            )
        seen = set()
        for pat, share in cache[key].items():
            rows.append((run, match, pat, share * total, n if pat not in seen else 0))
            seen.add(pat)
    if not rows:
        return
    long = pd.DataFrame(rows, columns=["run", "match", "pattern", "added", "with_"])
    long = long.groupby(["run", "match", "pattern"], sort=False).sum().reset_index()
    runs.con.register("pattern_block", long)
    try:
        runs.con.execute(
            "INSERT INTO pattern_long SELECT run, match, pattern, with_, added FROM pattern_block"
        )
    finally:
        runs.con.unregister("pattern_block")


def rules_of_run(runs: Runs, run: Run):
    from mjlog.rules import Rules

    try:
        return Rules(run.variant, runs.rules.get(run.run_id) or {})
    except Exception:  # rules of another mjlog version: weights fall back to equal shares
        return None


def pattern_weights(variant: str, rules, method: str, patterns: list[str]) -> dict[str, float]:
    """How a win's points split among its patterns: share per pattern key, adding to 1.

    Read off the scorer's own breakdown of the win (:func:`mjlog.scoring.explain`,
    the terms its score is built from), so how patterns combine is stated once:

    - a term that adds fan (huangmei) weighs its fan (four 发财 count
      ``fan.facai_all``);
    - a term that multiplies (xuezhan's multipliers, yuxi's doublings) weighs
      ``log2`` of its factor, once per count (× pinghu 1 adds nothing);
    - yuxi's base term (the highest pattern's value in the win's column, self-draw
      or discard) weighs ``log2`` of that value, +1 per repeat.

    A win whose patterns add nothing by that measure (a plain 平胡 worth the base) is
    split equally among its patterns, and so is a win the rules logged with the run
    cannot explain (``rules`` None: rules of another mjlog version). ``variant``
    names the rules' variant.

    >>> from mjlog.rules import Rules
    >>> pattern_weights("huangmei", Rules("huangmei"), "self_draw", ["pinghu", "zimo"])
    {'pinghu': 0.5, 'zimo': 0.5}
    >>> w = pattern_weights("xuezhan", Rules("xuezhan"), "discard", ["qingyise", "gen"])
    >>> {k: round(v, 3) for k, v in w.items()}
    {'qingyise': 0.667, 'gen': 0.333}
    """
    from collections import Counter

    from mjlog.scoring import explain

    counts = Counter(patterns)
    w: dict[str, float] = dict.fromkeys(counts, 0.0)
    if rules is not None and counts:
        try:
            for t in explain(tuple(patterns), method, rules).terms:
                w[t.key] += _term_weight(t)
        except (KeyError, TypeError, ValueError):
            w = dict.fromkeys(counts, 0.0)
    total = sum(w.values())
    if total <= 0:
        return {k: 1 / len(counts) for k in counts} if counts else {}
    return {k: v / total for k, v in w.items()}


def _term_weight(t) -> float:
    """What one breakdown term adds, in fan (huangmei) or in doublings (log2 of the
    factors: xuezhan, yuxi)."""
    import math

    from mjlog.scoring.breakdown import Role

    if not t.value or t.value <= 0:
        return 0.0
    if t.role is Role.FAN:
        return float(t.value)  # the fan of all its counts
    if t.role is Role.BASE:
        return math.log2(t.value) + (t.count - 1)  # a repeat of the base doubles
    return t.count * math.log2(t.value)


# ---------------------------------------------------------------- distributions


_VALUES = {
    # what: (value expression, source CTE, capped expression)
    "win_points": ("points", "wv", "capped::INT"),
    "win_total": ("total", "wv", "capped::INT"),
    "win_base": ("points", "wv", "capped::INT"),
    "hand_points": ("moved", "hv", "capped"),
    "hand_length": ("n_events", "hv", "NULL"),
    "wall_left": ("wall_left", "hv", "NULL"),
}
"""``win_points``: ``wins.points`` per win, what each payer pays (the rulebook's
"points", which a cap limits); ``win_total``: ``wins.total`` per win, the sum over its
payers; ``win_base``: ``win_points`` by its old name; ``hand_points``: money moved
per hand (Σ positive ``deltas``); ``hand_length``: events per hand; ``wall_left``:
tiles left in the wall at the end."""


def _values_cte(what: str) -> tuple[str, str]:
    if what not in _VALUES:
        raise ValueError(f"what must be one of {', '.join(_VALUES)}, not {what!r}")
    expr, src, capped = _VALUES[what]
    cte = f"""
    WITH {HANDS_CTE},
    wv AS (SELECT {_HG}, h.run_id, h.match, w.total, w.points, w.capped
           FROM read_parquet($wins) w JOIN h USING ({_KEY})),
    cw AS (SELECT {_KEY}, max(capped::INT) AS capped FROM read_parquet($wins) GROUP BY ALL),
    hv AS (SELECT {GROUP_SQL}, run_id, match, n_events, wall_left,
                  list_sum(list_transform(deltas, lambda d: greatest(d, 0)))::BIGINT AS moved,
                  coalesce(cw.capped, 0) AS capped
           FROM h LEFT JOIN cw USING ({_KEY})),
    v AS (SELECT {GROUP_SQL}, run_id, match, ({expr})::BIGINT AS value,
                 ({capped})::DOUBLE AS capped FROM {src})"""
    return cte, src


def distribution(
    runs, what: str = "win_points", quantiles: Sequence[float] = (0.5, 0.9, 0.99)
) -> pd.DataFrame:
    """Summary of a value per group: n, mean (with CI), variance, quantiles, max and
    ``share_capped`` (wins the cap lowered; per hand: hands with a capped win).

    ``what``: ``win_points`` (``wins.points``, what each payer pays: the rulebook's
    points, which a cap limits), ``win_total`` (``wins.total``, the sum over a win's
    payers: all it brought its winner), ``hand_points`` (money
    moved per hand: Σ of the positive ``hands.deltas``), ``hand_length``
    (``hands.n_events``) or ``wall_left``. Quantiles are linear
    (``quantile_cont``, as pandas' default).
    """
    runs = as_runs(runs)
    cte, _ = _values_cte(what)
    # each value counted, not held (quantile_cont of 10M hands' values held ~190 MB)
    q = f"""{cte},
    c AS (SELECT {GROUP_SQL}, value, count(*) AS k, sum(capped) AS capped FROM v GROUP BY ALL)
    SELECT {GROUP_SQL}, sum(k)::BIGINT AS n, sum(value * k)::BIGINT AS sum,
           sum(value * value * k)::BIGINT AS sum_sq, max(value) AS max,
           sum(capped) / sum(k) AS share_capped,
           list(value ORDER BY value) AS vals, list(k ORDER BY value) AS ks
    FROM c GROUP BY ALL ORDER BY ALL
    """
    df = runs.sql(q)
    qs = [
        quantiles_counted(v, k, quantiles)
        for v, k in zip(df.pop("vals"), df.pop("ks"), strict=True)
    ]
    df.insert(df.columns.get_loc("max"), "q", qs)
    # per match in DuckDB, fetched one group at a time (numbers only)
    runs.store(
        f"""CREATE OR REPLACE TABLE value_units AS {cte}
    SELECT {GROUP_SQL}, run_id, match, count(*) AS n, sum(value)::DOUBLE AS sum,
           sum(capped)::DOUBLE AS capped
    FROM v GROUP BY ALL""",
        {},
    )
    parts = []
    where = " AND ".join(f"{c} = ${c}" for c in GROUP)
    for group in runs.con.execute(
        f"SELECT DISTINCT {GROUP_SQL} FROM value_units ORDER BY ALL"
    ).fetchall():
        at = dict(zip(GROUP, group, strict=True))
        g = runs.con.execute(
            f"SELECT n, sum, capped FROM value_units WHERE {where} ORDER BY run_id, match", at
        ).df()
        mean = estimates(g, [], {"mean": ("sum", "n")})
        capped = rate_estimates(g, [], {"share_capped": ("capped", "n")})
        parts.append(
            pd.concat(
                [pd.DataFrame([at]), mean, capped.drop(columns=["matches", "share_capped"])],
                axis=1,
            )
        )
    est = (
        pd.concat(parts, ignore_index=True)
        if parts
        else estimates(
            pd.DataFrame(columns=[*GROUP, "n", "sum"]), list(GROUP), {"mean": ("sum", "n")}
        ).merge(
            rate_estimates(
                pd.DataFrame(columns=[*GROUP, "n", "capped"]),
                list(GROUP),
                {"share_capped": ("capped", "n")},
            ).drop(columns=["matches", "share_capped"]),
            on=list(GROUP),
        )
    )
    runs.release("value_units")
    df = df.merge(est, on=list(GROUP), how="left")
    n = df["n"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["var"] = ((df["sum_sq"] - df["sum"] * df["mean"]) / (n - 1)).where(n > 1)
    for i, x in enumerate(quantiles):
        df[f"p{x * 100:g}"] = df["q"].map(lambda v, i=i: v[i] if v is not None else np.nan)
    df.insert(len(GROUP), "what", what)
    return finished_table(runs, df.drop(columns=["q"]))


def histogram(runs, what: str = "win_points") -> pd.DataFrame:
    """Counts of each value per group (the shape behind :func:`distribution`):
    columns ``value``, ``n``, ``share`` (of the group)."""
    runs = as_runs(runs)
    cte, _ = _values_cte(what)
    df = runs.sql(f"""{cte}
    SELECT {GROUP_SQL}, value, count(*) AS n FROM v GROUP BY ALL ORDER BY ALL""")
    df["share"] = df["n"] / df.groupby(list(GROUP))["n"].transform("sum")
    return finished_table(runs, df)


# ---------------------------------------------------------------- hands


def outcomes(runs) -> pd.DataFrame:
    """Per group: hands, drawn hands (no winner) and the drawn-hand rate, mean events
    per hand (each with a 95% CI by match), mean tiles left in the wall and winners per
    hand."""
    runs = as_runs(runs)
    # per match in DuckDB, fetched one group at a time (numbers only)
    runs.store(
        f"""CREATE OR REPLACE TABLE outcome_units AS
    WITH {HANDS_CTE}
    SELECT {GROUP_SQL}, run_id, match, count(*) AS hands,
           count(*) FILTER (WHERE outcome = 'draw') AS draws,
           sum(n_events)::BIGINT AS events, sum(wall_left)::BIGINT AS wall_left,
           sum(len(winners))::BIGINT AS winners, 0 AS first
    FROM h GROUP BY ALL""",
        {},
    )
    df = _collapse_table(
        runs,
        "outcome_units",
        list(GROUP),
        ["hands", "draws", "events", "wall_left", "winners"],
        {"draw_rate": ("draws", "hands")},
        {"mean_length": ("events", "hands")},
    )
    runs.release("outcome_units")
    df["mean_wall_left"] = df["wall_left"] / df["hands"]
    df["mean_winners"] = df["winners"] / df["hands"]
    return finished_table(runs, df.drop(columns=["events", "wall_left", "winners"]))


def money_shares(runs, by: str = "reason") -> pd.DataFrame:
    """Money by transfer reason.

    ``share_of_transfers`` = the reason's Σ ``amount`` / Σ ``amount`` of all transfers
    (gross over gross: the shares of a group add to 1; 95% CI by match);
    ``per_hand`` = its amount per hand (95% CI by match); ``hands_with`` = hands with
    such a transfer / hands. ``share`` = amount / money moved (Σ positive
    ``hands.deltas``, a *net* figure: transfers within a hand cancel, so these add
    to more than 1; kept for reference, not for stacking). ``by``: ``reason`` or
    ``category`` (``kong``, ``settlement`` = 查大叫 + 查花猪 + 退税, ``win``).
    """
    if by not in ("reason", "category"):
        raise ValueError(f"by must be reason or category, not {by!r}")
    runs = as_runs(runs)
    kind = "coalesce(c.category, 'other')" if by == "category" else "t.reason::VARCHAR"
    ids = {"ids": [r.run_id for r in runs.runs]}
    per_run = run_groups(runs)
    if per_run is not None:
        # every hand of a run is of the run's group: the transfers are summed per run
        # (a hand with a transfer of a kind counted per hand first, integer keys only)
        # and the groups joined to those few rows, never a join of transfers to hands
        df = runs.sql(f"""
        WITH {HANDS_CTE},
        g AS (SELECT {GROUP_SQL}, count(*) AS hands,
                     sum(list_sum(list_transform(deltas, lambda d: greatest(d, 0))))::BIGINT
                         AS moved
              FROM h GROUP BY ALL),
        per_hand AS (SELECT run_id, match, rotation, hand, {kind} AS {by},
                            sum(t.amount) AS amount, count(*) AS n
                     FROM read_parquet($transfers) t
                     LEFT JOIN reasons c ON c.reason = t.reason::VARCHAR GROUP BY ALL),
        a AS (SELECT {GROUP_SQL}, {by}, sum(amount)::BIGINT AS amount,
                     sum(transfers)::BIGINT AS transfers, sum(hands_with_n)::BIGINT AS hands_with_n
              FROM (SELECT run_id::VARCHAR AS run_id, {by}, sum(amount) AS amount,
                           sum(n) AS transfers, count(*) AS hands_with_n
                    FROM per_hand GROUP BY ALL) JOIN {per_run} USING (run_id)
              GROUP BY ALL),
        all_t AS (SELECT {GROUP_SQL}, sum(amount)::BIGINT AS all_amount FROM a GROUP BY ALL)
        SELECT {GROUP_SQL}, a.{by}, a.amount, a.transfers, a.hands_with_n, g.hands, g.moved,
               all_t.all_amount
        FROM a JOIN g USING ({GROUP_SQL}) JOIN all_t USING ({GROUP_SQL})
        ORDER BY {GROUP_SQL}, a.amount DESC, a.{by}
        """)
        # per match: the hands and transfers summed apart, joined match to match
        runs.store(
            f"""CREATE OR REPLACE TABLE money_units AS
        WITH m AS (SELECT run_id::VARCHAR AS run_id, match, count(*) AS hands
                   FROM read_parquet($hands) GROUP BY ALL),
        t AS (SELECT run_id::VARCHAR AS run_id, match, sum(amount) AS gross
              FROM read_parquet($transfers) GROUP BY ALL)
        SELECT {GROUP_SQL}, run_id, {_RUN_CODE}, match, hands,
               coalesce(t.gross, 0)::BIGINT AS gross
        FROM m LEFT JOIN t USING (run_id, match) JOIN {per_run} USING (run_id)""",
            dict(ids),
        )
        runs.store(
            f"""CREATE OR REPLACE TABLE money_long AS
        SELECT {GROUP_SQL}, run_id, {_RUN_CODE}, match, {by}, amount
        FROM (SELECT t.run_id::VARCHAR AS run_id, t.match, {kind} AS {by},
                     sum(t.amount)::BIGINT AS amount
              FROM read_parquet($transfers) t
              LEFT JOIN reasons c ON c.reason = t.reason::VARCHAR GROUP BY ALL)
        JOIN {per_run} USING (run_id)""",
            dict(ids),
        )
    else:
        _money_tables(runs, by, ids)
        df = runs.sql(_money_query(by))
    if by == "reason":
        df.insert(len(GROUP) + 1, "name", df["reason"].map(REASON_NAMES).fillna(df["reason"]))
    df["share"] = (df["amount"] / df["moved"]).where(df["moved"] > 0)
    df["hands_with"] = df["hands_with_n"] / df["hands"]
    est = _sparse_estimates(
        runs,
        "money_long",
        "money_units",
        by,
        "amount",
        {
            "share_of_transfers": ("amount", "gross", (0.0, 1.0)),
            "per_hand": ("amount", "hands", None),
        },
    )
    runs.release("money_")
    return finished_table(
        runs,
        df.drop(columns=["share_of_transfers", "per_hand"], errors="ignore").merge(
            est, on=[*GROUP, by], how="left"
        ),
    )


def _money_query(by: str) -> str:
    """SQL: :func:`money_shares`' sums per group and ``by`` key, each transfer joined to
    its hand's group (runs whose hands name their own groups)."""
    # hands with a transfer of each kind counted per hand first: a plain grouping,
    # which DuckDB spills, where count(DISTINCT …) over every hand cannot be
    return f"""
    WITH {HANDS_CTE},
    g AS (SELECT {GROUP_SQL}, count(*) AS hands,
                 sum(list_sum(list_transform(deltas, lambda d: greatest(d, 0))))::BIGINT AS moved
          FROM h GROUP BY ALL),
    t AS (SELECT {_HG}, {_KEY}, coalesce(c.category, 'other') AS category,
                 t.reason::VARCHAR AS reason, t.amount
          FROM read_parquet($transfers) t JOIN h USING ({_KEY})
          LEFT JOIN reasons c ON c.reason = t.reason::VARCHAR),
    a AS (SELECT {GROUP_SQL}, {by}, sum(amount)::BIGINT AS amount, sum(n)::BIGINT AS transfers,
                 count(*) AS hands_with_n
          FROM (SELECT {GROUP_SQL}, {by}, run_id, match, rotation, hand, sum(amount) AS amount,
                       count(*) AS n
                FROM t GROUP BY ALL)
          GROUP BY ALL),
    all_t AS (SELECT {GROUP_SQL}, sum(amount)::BIGINT AS all_amount FROM t GROUP BY ALL)
    SELECT {GROUP_SQL}, a.{by}, a.amount, a.transfers, a.hands_with_n, g.hands, g.moved,
           all_t.all_amount
    FROM a JOIN g USING ({GROUP_SQL}) JOIN all_t USING ({GROUP_SQL}) ORDER BY {GROUP_SQL}, a.amount DESC, a.{by}
    """


def _money_tables(runs: Runs, by: str, ids: dict[str, Any]) -> None:
    """:func:`money_shares`' per-match tables, each transfer joined to its hand's group."""
    runs.store(
        f"""CREATE OR REPLACE TABLE money_units AS
    WITH {HANDS_CTE},
    t AS (SELECT {_KEY}, sum(amount)::BIGINT AS gross FROM read_parquet($transfers)
          GROUP BY ALL)
    SELECT {GROUP_SQL}, run_id::VARCHAR AS run_id, {_RUN_CODE}, match, count(*) AS hands,
           coalesce(sum(t.gross), 0)::BIGINT AS gross
    FROM h LEFT JOIN t USING ({_KEY}) GROUP BY ALL""",
        dict(ids),
    )
    runs.store(
        f"""CREATE OR REPLACE TABLE money_long AS
    WITH {HANDS_CTE}
    SELECT {_HG}, h.run_id::VARCHAR AS run_id, {_RUN_CODE.replace("run_id", "h.run_id")},
           h.match, {
            "coalesce(c.category, 'other')" if by == "category" else "t.reason::VARCHAR"
        } AS {by},
           sum(t.amount)::BIGINT AS amount
    FROM read_parquet($transfers) t JOIN h USING ({_KEY})
    LEFT JOIN reasons c ON c.reason = t.reason::VARCHAR
    GROUP BY ALL""",
        dict(ids),
    )


_RUN_CODE = "(list_position($ids, run_id::VARCHAR) - 1)::INT AS run"
"""SQL: a row's run as a number (its place among the runs given, ``$ids``)."""


def _sparse_estimates(
    runs: Runs,
    long: str,
    units: str,
    key: str,
    value: str,
    specs: dict[str, tuple[str, str, tuple[float, float] | None]],
) -> pd.DataFrame:
    """Match-unit estimates per (group, ``key``) where the DuckDB table ``long`` lists
    only the matches with a non-zero ``value``: every match of the group (the table
    ``units``) counts, the missing ones as 0. ``specs``: name → (numerator column,
    denominator column in ``units``, clip). One group's matches are fetched at a time,
    numbers only."""
    parts: list[pd.DataFrame] = []
    cols = [*GROUP, key]
    where = " AND ".join(f"{c} = ${c}" for c in GROUP)
    xs = list(dict.fromkeys(xc for _, xc, _ in specs.values()))
    for group in runs.con.execute(
        f"SELECT DISTINCT {GROUP_SQL} FROM {long} ORDER BY ALL"
    ).fetchall():
        at = dict(zip(GROUP, group, strict=True))
        u = fetch_columns(
            runs,
            f"SELECT run, match, {', '.join(xs)} FROM {units} WHERE {where} ORDER BY run_id, match",
            at,
        )
        ukey = (u.pop("run").astype(np.int64) << 32) + u.pop("match").astype(np.int64)
        order = np.argsort(ukey, kind="stable")
        f = pd.DataFrame(u, copy=False)  # the group's matches, numbers only
        del u
        found = runs.con.execute(
            f"SELECT DISTINCT {_q(key)} FROM {long} WHERE {where} ORDER BY ALL", at
        ).fetchall()
        for (k,) in found:
            g = fetch_columns(
                runs,
                f"SELECT run, match, {value} FROM {long} WHERE {where} AND {_q(key)} = $k",
                {**at, "k": k},
            )
            gkey = (np.asarray(g["run"], np.int64) << 32) + np.asarray(g["match"], np.int64)
            y = np.zeros(len(f))
            y[order[np.searchsorted(ukey, gkey, sorter=order)]] = g[value]
            f[value] = y
            # one key's matches at a time: never every key × every match at once
            row = [pd.DataFrame([{**at, key: k}])]
            for name, (yc, xc, bounds) in specs.items():
                e = estimates(f, [], {name: (yc, xc)}, clip=bounds)
                row.append(e if len(row) == 1 else e.drop(columns="matches"))
            parts.append(pd.concat(row, axis=1))
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)


def compare(runs) -> pd.DataFrame:
    """Headline figures side by side, one row per group (variants, sweep points, line-ups):
    hands, drawn-hand rate, mean length, wins, points per payer per win
    (``mean_win_points``, ``p90_win_points``, ``max_win_points``: ``wins.points``, the
    rulebook's points), the total a win brings over its payers (``mean_win_total``,
    ``max_win_total``: ``wins.total``), the share capped, money moved per hand, the
    dealer's win rate, mean points and advantage, and the shares of all money
    transferred (gross) by kong, settlement and win transfers; rates and means with
    their 95% CI by match (``*_lo``, ``*_hi``)."""
    runs = as_runs(runs)
    return finished_table(
        runs,
        compare_from(
            outcomes(runs),
            distribution(runs, "win_points"),
            distribution(runs, "hand_points"),
            dealer_advantage(runs),
            money_shares(runs, by="category"),
            distribution(runs, "win_total"),
        ),
    )


def compare_from(
    outcomes_df: pd.DataFrame,
    win_points: pd.DataFrame,
    hand_points: pd.DataFrame,
    dealer: pd.DataFrame,
    money_by_category: pd.DataFrame,
    win_total: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """:func:`compare` from tables already computed (``win_points``: the
    :func:`distribution` of ``win_points``, per payer; ``win_total``, of ``win_total``)."""
    g = list(GROUP)
    ci = ("", "_lo", "_hi")
    d0 = dealer[dealer.position == 0][
        [
            *g,
            *(f"win_rate{c}" for c in ci),
            "mean_points",
            *(f"advantage{c}" for c in ci),
            "mixed",
            "duplicate",
        ]
    ].rename(
        columns={
            **{f"win_rate{c}": f"dealer_win_rate{c}" for c in ci},
            "mean_points": "dealer_mean_points",
            **{f"advantage{c}": f"dealer_advantage{c}" for c in ci},
        }
    )
    cats: pd.DataFrame | None = None
    if "share_of_transfers" not in money_by_category:  # no transfer at all: no money moved
        cats = outcomes_df[g].drop_duplicates()
    else:
        for suffix in ci:
            part = money_by_category.pivot_table(
                index=g, columns="category", values=f"share_of_transfers{suffix}", aggfunc="sum"
            ).add_prefix("share_")
            part.columns = [f"{x}{suffix}" for x in part.columns]
            cats = part if cats is None else cats.join(part)
        assert cats is not None  # ci names one suffix at least
        cats = cats.reset_index()
        cats.columns.name = None
    out = (
        outcomes_df[
            [
                *g,
                "hands",
                "matches",
                *(f"draw_rate{c}" for c in ci),
                *(f"mean_length{c}" for c in ci),
            ]
        ]
        .merge(
            win_points[
                [
                    *g,
                    "n",
                    *(f"mean{c}" for c in ci),
                    "p90",
                    "max",
                    *(f"share_capped{c}" for c in ci),
                ]
            ].rename(
                columns={
                    "n": "wins",
                    **{f"mean{c}": f"mean_win_points{c}" for c in ci},
                    "p90": "p90_win_points",
                    "max": "max_win_points",
                }
            ),
            on=g,
            how="left",
        )
        .merge(
            hand_points[[*g, *(f"mean{c}" for c in ci)]].rename(
                columns={f"mean{c}": f"mean_moved_per_hand{c}" for c in ci}
            ),
            on=g,
            how="left",
        )
        .merge(d0, on=g, how="left")
        .merge(cats, on=g, how="left")
    )
    if win_total is not None:
        out = out.merge(
            win_total[[*g, *(f"mean{c}" for c in ci), "max"]].rename(
                columns={**{f"mean{c}": f"mean_win_total{c}" for c in ci}, "max": "max_win_total"}
            ),
            on=g,
            how="left",
        )
    for c in ("share_win", "share_kong", "share_settlement"):
        out[c] = out[c].fillna(0.0) if c in out else 0.0
    out["wins"] = out["wins"].fillna(0).astype("int64")
    return out


def tables(runs) -> dict[str, pd.DataFrame]:
    """Every table the report and :func:`analysis.plots.figures` use, each query run once."""
    runs = as_runs(runs)
    t: dict[str, pd.DataFrame] = {"runs": run_table(runs), "caps": caps(runs)}
    t["outcomes"] = outcomes(runs)
    t["seats"] = seat_stats(runs, by="seat")
    t["agents"] = seat_stats(runs, by="agent")
    t["variants"] = seat_stats(runs, by="variant")
    t["dealer"] = dealer_advantage(runs)
    t["first_winner"] = first_winner(runs)
    runs.release("seat_units_")  # every seat figure is made: their rows go
    t["patterns"] = pattern_frequencies(runs)
    for what in ("win_points", "win_total", "hand_points", "hand_length"):
        t[what] = distribution(runs, what)
        t[f"hist_{what}"] = histogram(runs, what)
    t["money"] = money_shares(runs, by="reason")
    t["money_category"] = money_shares(runs, by="category")
    t["compare"] = finished_table(
        runs,
        compare_from(
            t["outcomes"],
            t["win_points"],
            t["hand_points"],
            t["dealer"],
            t["money_category"],
            t["win_total"],
        ),
    )
    return t


# ---------------------------------------------------------------- one hand


def hand_events(
    runs, match: int = 0, hand: int = 0, rotation: int = 0, run_id: str | None = None
) -> pd.DataFrame:
    """The events of one hand, in order (only that hand's rows are read)."""
    runs = as_runs(runs)
    rid = run_id or runs.runs[0].run_id
    return runs.sql(
        """
    SELECT seq, type::VARCHAR AS type, seat, tile, from_seat, kind::VARCHAR AS kind, tiles, amount
    FROM read_parquet($events)
    WHERE run_id = $rid AND match = $match AND rotation = $rotation AND hand = $hand
    ORDER BY seq""",
        rid=rid,
        match=match,
        rotation=rotation,
        hand=hand,
    )


def biggest_wins(runs, n: int = 10) -> pd.DataFrame:
    """The ``n`` wins that brought the most (``wins.total``), with where to find them
    (run, match, rotation, hand), the winner's agent and the patterns' Chinese names."""
    runs = as_runs(runs)
    df = runs.sql(
        f"""
    WITH {HANDS_CTE}
    SELECT h.run_id, {_HG}, w.match, w.rotation, w.hand, w.seat,
           h.agents[w.seat + 1] AS agent, w.method::VARCHAR AS method, w.patterns, w.fan,
           w.points, w.total, w.capped
    FROM read_parquet($wins) w JOIN h USING ({_KEY})
    ORDER BY w.total DESC, h.run_id, w.match, w.rotation, w.hand, w.seat LIMIT $n""",
        n=n,
    )
    df["names"] = [
        " ".join(_pattern_name(v, p) for p in ps)
        for v, ps in zip(df["variant"], df["patterns"], strict=True)
    ]
    return df


def replay_frame(
    run_dir: str | os.PathLike, match: int, hand: int, rotation: int = 0
) -> pd.DataFrame:
    """One hand replayed event by event through the engine's own transition
    (:mod:`mjlog.replay`, checked step): per event its text, each seat's concealed
    tiles in notation, the tiles left and the running score."""
    from mjlog.replay import load_hand

    rep = load_hand(run_dir, match, hand, rotation)
    rows = []
    for seq, _ev, snap in rep.states(notation=True):
        j = snap.to_json(notation=True)
        row = {
            "seq": seq,
            "event": j["text"],
            "wall_left": j["wall_left"],
            "deltas": " ".join(f"{d:+d}" for d in j["deltas"]),
        }
        for s, h in enumerate(j["hands"]):
            row[f"seat {s}"] = h
        rows.append(row)
    return pd.DataFrame(rows)
