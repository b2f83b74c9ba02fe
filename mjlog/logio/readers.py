"""The readers: one table of a run, or every hand of it with its rows.

:func:`read_table` reads one table, from one file or every shard of a run in
order; :func:`iter_hands` streams a run hand by hand, each with its events, wins
and transfers, in bounded memory. A run directory is opened through
:class:`~mjlog.logio.manifest.RunFiles` (its manifest verified, each file's
sha256 checked before it is read); every file through
:func:`~mjlog.logio.files.open_table`. Every problem with a file (not Parquet,
truncated, corrupt, a missing column, a wrong type) raises :class:`LogError`,
one line naming the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.parquet as pq

from mjlog.logio.columns import pylist
from mjlog.logio.files import one_line, open_table
from mjlog.logio.manifest import RunFiles
from mjlog.rundir import LogError
from mjlog.schema import HAND_KEY, TABLES, data_columns

__all__ = ["HandBundle", "iter_hands", "read_table"]


def _conform(tab: pa.Table, table: str) -> pa.Table:
    """Cast plain/dictionary string columns to the declared encoding."""
    schema = TABLES[table]
    for i, name in enumerate(tab.column_names):
        j = schema.get_field_index(name)
        if j >= 0 and tab.schema.field(i).type != schema.field(j).type:
            tab = tab.set_column(
                i, schema.field(j).with_nullable(True), tab.column(i).cast(schema.field(j).type)
            )
    return tab


def _files(path: Path | RunFiles, table: str) -> list[Path]:
    """The files of ``table``: a run's, as its verified manifest lists them, or the
    one file given."""
    if table not in TABLES:
        raise LogError(f"unknown table {table!r}; valid tables: {', '.join(TABLES)}")
    if isinstance(path, RunFiles):
        run = path
    elif path.is_dir():
        run = RunFiles(path)
    elif os.path.exists(path):
        return [path]
    else:
        raise LogError(f"{path}: no such run directory or file")
    files = run.files(table)
    if not files:
        what = (
            "written without events (--events none)"
            if table == "events"
            else (f"no {table} files in the manifest")
        )
        raise LogError(f"{run.path}: {what}")
    return files


def read_table(
    path_or_run_dir: str | os.PathLike[str] | RunFiles,
    table: str,
    columns: Sequence[str] | None = None,
    filters: Any = None,
) -> pa.Table:
    """Read one table: a single file, or every shard of a run directory in order.

    ``columns`` selects columns; ``filters`` are pyarrow filters (a list of
    ``(column, op, value)`` tuples or an expression). Columns come back with the
    declared types. Any bad file raises :class:`LogError` naming it.
    """
    src = path_or_run_dir if isinstance(path_or_run_dir, RunFiles) else Path(path_or_run_dir)
    parts = []
    for f in _files(src, table):
        pf = open_table(f, table)
        if columns is not None:
            unknown = [c for c in columns if c not in pf.schema_arrow.names]
            if unknown:
                raise LogError(f"{f}: no column(s) {', '.join(unknown)} in the {table} table")
        try:
            if filters is None:
                t = pf.read(columns=list(columns) if columns is not None else None)
            else:
                t = pq.read_table(
                    f,
                    columns=list(columns) if columns is not None else None,
                    filters=filters,
                    page_checksum_verification=True,
                )
        except (pa.ArrowException, OSError) as e:
            raise LogError(f"{f}: corrupt data: {one_line(e)}") from None
        except (ValueError, TypeError) as e:
            raise LogError(f"{f}: bad columns or filters: {one_line(e)}") from None
        try:
            # A damaged page header can decode to an invalid array (say an index
            # past the end of its dictionary); catch it here, not in the caller.
            t.validate(full=True)
        except pa.ArrowException as e:
            raise LogError(f"{f}: corrupt data: {one_line(e)}") from None
        parts.append(_conform(t, table))
    if len(parts) == 1:
        return parts[0]
    try:
        return pa.concat_tables(parts, promote_options="permissive")
    except pa.ArrowException as e:
        raise LogError(f"{path_or_run_dir}: {table} files do not agree: {one_line(e)}") from None


class HandBundle(NamedTuple):
    """One hand as :func:`iter_hands` yields it, in the shapes the writer takes."""

    hand: dict[str, Any]
    """The hands row, id columns included."""
    events: list[tuple[Any, ...]]
    """``(seq, type, seat, tile, from_seat, kind, tiles, amount)`` tuples, in order."""
    wins: list[dict[str, Any]]
    transfers: list[dict[str, Any]]


def _rows_by_hand(
    path: Path, table: str, batch_rows: int, as_tuples: bool
) -> Iterator[tuple[tuple[int, int, int], list[Any]]]:
    """(hand key, rows) for consecutive runs of rows of one hand, streamed by batch."""
    pf = open_table(path, table)
    cols = list(HAND_KEY) + list(data_columns(table))
    key: tuple[int, int, int] | None = None
    rows: list[Any] = []
    try:
        for batch in pf.iter_batches(batch_size=batch_rows, columns=cols):
            batch.validate(full=True)
            data = [pylist(batch.column(c)) for c in cols]
            keys = zip(data[0], data[1], data[2], strict=True)
            recs: Iterator[tuple[Any, ...] | dict[str, Any]]
            if as_tuples:
                recs = zip(*data[3:], strict=True)
            else:
                names = cols[3:]
                recs = (dict(zip(names, r, strict=True)) for r in zip(*data[3:], strict=True))
            for k, r in zip(keys, recs, strict=True):
                if k != key:
                    if key is not None:
                        yield key, rows
                    key, rows = k, []
                rows.append(r)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise LogError(f"{path}: corrupt data: {one_line(e)}") from None
    if key is not None:
        yield key, rows


def iter_hands(
    run_dir: str | os.PathLike[str] | RunFiles,
    events: bool | None = None,
    shards: Iterable[int] | None = None,
    batch_rows: int = 65536,
) -> Iterator[HandBundle]:
    """Yield every hand of a run with its events, wins and transfers, shard by shard.

    Hands come in file order, which is (match, rotation, hand) order. Files are
    streamed in batches of ``batch_rows`` rows, so memory stays bounded.
    ``events=None`` reads events when the run has them, ``False`` skips them,
    ``True`` requires them. A row that belongs to no hand of its shard, or rows
    out of order, raise :class:`LogError`.
    """
    run = run_dir if isinstance(run_dir, RunFiles) else RunFiles(run_dir)
    if events and not run.has_events:
        raise LogError(f"{run.path}: written without events (--events none)")
    with_events = run.has_events if events is None else events
    for shard in sorted(shards) if shards is not None else sorted(run.shards):
        hands_path = run.file("hands", shard)
        children = {}
        for t in ("events", "wins", "transfers"):
            if t == "events" and not with_events:
                continue
            p = run.file(t, shard)
            children[t] = (p, _rows_by_hand(p, t, batch_rows, as_tuples=(t == "events")))
        pf = open_table(hands_path, "hands")
        try:
            keys_tab = pf.read(columns=list(HAND_KEY))
        except (pa.ArrowException, OSError, ValueError) as e:
            raise LogError(f"{hands_path}: corrupt data: {one_line(e)}") from None
        order = list(zip(*(keys_tab.column(c).to_pylist() for c in HAND_KEY), strict=True))
        if any(a >= b for a, b in zip(order, order[1:], strict=False)):
            raise LogError(f"{hands_path}: hands not in increasing (match, rotation, hand) order")
        position = {k: i for i, k in enumerate(order)}
        del keys_tab, order
        pending = {t: next(it, None) for t, (_, it) in children.items()}
        names = pf.schema_arrow.names
        i = -1
        try:
            for batch in pf.iter_batches(batch_size=batch_rows):
                batch.validate(full=True)
                data = [pylist(batch.column(c)) for c in names]
                for values in zip(*data, strict=True):
                    i += 1
                    row = dict(zip(names, values, strict=True))
                    key = (row["match"], row["rotation"], row["hand"])
                    got: dict[str, list[Any]] = {}
                    for t, (p, it) in children.items():
                        nxt = pending[t]
                        if nxt is not None and nxt[0] == key:
                            got[t] = nxt[1]
                            pending[t] = next(it, None)
                            nxt = pending[t]
                        if nxt is not None and position.get(nxt[0], -1) <= i:
                            what = (
                                "duplicated or out of order"
                                if nxt[0] in position
                                else (f"not in {hands_path.name}")
                            )
                            raise LogError(f"{p}: rows for hand {nxt[0]}, {what}")
                        got.setdefault(t, [])
                    yield HandBundle(
                        row, got.get("events", []), got.get("wins", []), got.get("transfers", [])
                    )
        except (pa.ArrowException, OSError) as e:
            raise LogError(f"{hands_path}: corrupt data: {one_line(e)}") from None
