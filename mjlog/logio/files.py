"""The files of a run: where each shard's tables go, and how one file is opened.

A run directory holds ``manifest.json`` and one file per table per shard::

    RUN/manifest.json
    RUN/hands/part-00000.parquet      (renamed into place last: it marks the shard complete)
    RUN/events/part-00000.parquet     (absent when the run was written without events)
    RUN/wins/part-00000.parquet
    RUN/transfers/part-00000.parquet

Every reader opens a file through :func:`open_table`, which checks that it is a
regular Parquet file of the declared schema; any problem is a :class:`LogError`,
one line naming the file.

>>> shard_path("events", 3)
'events/part-00003.parquet'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mjlog.rundir import LogError, sha256_file
from mjlog.schema import TABLES, check_schema

__all__ = [
    "check_file",
    "file_entry",
    "one_line",
    "open_table",
    "remove_temporaries",
    "shard_complete",
    "shard_path",
    "shard_tables",
    "table_files",
]


def shard_path(table: str, shard: int) -> str:
    """The path of one table's file of one shard, relative to the run directory.

    >>> shard_path("hands", 12)
    'hands/part-00012.parquet'
    """
    return f"{table}/part-{shard:05d}.parquet"


def shard_tables(events: bool) -> tuple[str, ...]:
    """The tables a shard has files for (``events`` False: a run without events).

    >>> shard_tables(False)
    ('hands', 'wins', 'transfers')
    """
    return tuple(t for t in TABLES if events or t != "events")


def shard_complete(run_dir: str | os.PathLike[str], shard: int, events: bool = True) -> bool:
    """True when every file of ``shard`` is in place (the resume test).

    The hands file is renamed into place last, so its presence means the others
    were finished; the others are checked too in case one was deleted by hand.
    """
    run = Path(run_dir)
    return all((run / shard_path(t, shard)).is_file() for t in shard_tables(events))


def remove_temporaries(run_dir: str | os.PathLike[str]) -> None:
    """Remove the temporary files of shards whose writer died before renaming them
    (``hands/.part-00003.parquet.tmp-PID``). Only the holder of the run's claim
    calls it: no other writer is at work then."""
    for t in TABLES:
        for p in (Path(run_dir) / t).glob(".part-*.parquet.tmp-*"):
            p.unlink(missing_ok=True)


def file_entry(path: Path, table: str, rel: str, rows: int) -> dict[str, Any]:
    """The manifest entry of one file: its table, path in the run, rows, size and
    sha256 (what every reader checks before it trusts the file)."""
    return {
        "table": table,
        "path": rel,
        "rows": rows,
        "bytes": path.stat().st_size,
        "sha256": sha256_file(path),
    }


def table_files(run: Path) -> list[str]:
    """Every file in the table folders (temporary ones included), relative, sorted."""
    found = []
    for t in TABLES:
        d = run / t
        if d.is_dir():
            found += [f"{t}/{p.name}" for p in d.iterdir() if p.is_file()]
    return sorted(found)


def one_line(e: BaseException) -> str:
    """The first line of an exception's message (pyarrow's can run to pages)."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def open_table(path: Path, table: str) -> pq.ParquetFile:
    """Open one file of ``table`` and check its schema; LogError on any problem."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the read
            raise LogError(f"{path}: not a regular file")
        pf = pq.ParquetFile(path, page_checksum_verification=True)
        schema = pf.schema_arrow
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except (pa.ArrowException, OSError, ValueError) as e:
        raise LogError(f"{path}: not a readable Parquet file: {one_line(e)}") from None
    problems = check_schema(table, schema)
    if problems:
        raise LogError(f"{path}: not a {table} table: {'; '.join(problems)}")
    return pf


def check_file(path: str | os.PathLike[str], table: str) -> int:
    """Open a table file, check its schema and read every page; return its rows.

    Raises :class:`LogError` naming the file if it is not Parquet, truncated,
    corrupt or not of the declared schema.
    """
    path = Path(path)
    pf = open_table(path, table)
    try:
        for i in range(pf.num_row_groups):
            pf.read_row_group(i).validate(full=True)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise LogError(f"{path}: corrupt data: {one_line(e)}") from None
    rows: int = pf.metadata.num_rows
    return rows
