"""Write and read run directories: shards of four Parquet tables and a manifest.

The contract is LOG_SCHEMA.md; the schemas are declared in :mod:`mjlog.schema`.
A run directory holds ``manifest.json`` and one file per table per shard::

    RUN/manifest.json
    RUN/hands/part-00000.parquet      (renamed into place last: it marks the shard complete)
    RUN/events/part-00000.parquet     (absent when the run was written without events)
    RUN/wins/part-00000.parquet
    RUN/transfers/part-00000.parquet

Writing: :class:`ShardWriter` buffers hands column-wise, writes a row group every
``row_group_hands`` hands to a temporary file, and on :meth:`ShardWriter.close`
renames the finished files into place (``os.replace``), hands last. Identical
input gives byte-identical files: nothing in them depends on time, paths or hosts.

Reading: :func:`read_table` and :func:`iter_hands`. Every problem with a file
(not Parquet, truncated, corrupt, a missing column, a wrong type) raises
:class:`LogError`, one line naming the file.

>>> run_id({"variant": "yuxi", "rules": {"cap": 32}, "seed": 1, "matches": 2,
...         "hands_per_match": 8, "players": 4, "agents": [{"name": "greedy"}] * 4,
...         "duplicate": False, "rng": "pcg64-v1", "mjlog_version": "0.1.0"})
'43da3cbb71b40b25'
>>> shard_path("events", 3)
'events/part-00003.parquet'
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mjlog.rundir import LogError, RunFiles, read_json, replace_file, sha256_file
from mjlog.schema import (
    ALLOWED_VALUES,
    HAND_KEY,
    ID_COLUMNS,
    SCHEMA_VERSION,
    TABLES,
    VALUE_RANGES,
    check_schema,
    data_columns,
)

__all__ = [
    "RUN_ID_KEYS",
    "HandBundle",
    "LogError",
    "ShardWriter",
    "build_manifest",
    "canonical_json",
    "check_file",
    "check_schema",
    "file_entry",
    "iter_hands",
    "manifest_files",
    "read_manifest",
    "read_table",
    "run_id",
    "shard_complete",
    "shard_entries",
    "shard_path",
    "verify_manifest",
    "write_manifest",
]

MANIFEST = "manifest.json"
RUN_ID_KEYS: tuple[str, ...] = (
    "variant",
    "rules",
    "seed",
    "matches",
    "hands_per_match",
    "players",
    "agents",
    "duplicate",
    "rng",
    "mjlog_version",
)
"""The manifest keys ``run_id`` hashes: the arguments of a run, nothing else."""

CONTENT_KEY = "content"
"""An imported run's manifest key: the sha256 of its hands' canonical lines
(:mod:`mjlog.interchange`). ``run_id`` hashes it too when present, so two imports
share an id only when they hold the same hands."""

EVENT_COLUMNS = data_columns("events")
"""The order of the fields of an event tuple, as written and as read back."""

# Parquet writer settings, chosen for small files (measured in tests/test_logio.py
# and docs/log-schema.md): zstd level 3 (level 12 saves under 2% of the bytes and
# costs 7% of a random-agent simulation's time); dictionary encoding on every leaf column
# (a list's leaf is "<name>.list.element": naming only the list leaves it plain)
# except `seq`, which counts up within a hand and delta-encodes better; data page
# v1, whose compressed repetition/definition levels beat v2 on the many list and
# nullable columns; page checksums so that a flipped byte in a page is caught on
# read; statistics only on the id columns, which filters use.
_DELTA_COLUMNS = {"events": ("seq",), "wins": ("seq",), "transfers": ("seq",)}
_COMPRESSION_LEVEL = 3
_STRING_LIST = pa.list_(pa.string())
_KEY_DTYPES = {"match": np.int32, "rotation": np.int8, "hand": np.int16}  # as in schema.ID_FIELDS


def _leaf(field: pa.Field) -> str:
    return f"{field.name}.list.element" if pa.types.is_list(field.type) else field.name


def _write_options(table: str) -> dict[str, Any]:
    delta = _DELTA_COLUMNS.get(table, ())
    return dict(
        compression="zstd",
        compression_level=_COMPRESSION_LEVEL,
        use_dictionary=[_leaf(f) for f in TABLES[table] if f.name not in delta],
        column_encoding={n: "DELTA_BINARY_PACKED" for n in delta} or None,
        write_statistics=list(ID_COLUMNS),
        write_page_checksum=True,
        store_schema=True,
        data_page_version="1.0",
    )




# --------------------------------------------------------------------------- ids


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    raise TypeError(f"cannot put {type(obj).__name__} {obj!r} into canonical JSON")


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys, no spaces, non-ASCII kept: one text per value.

    Mappings (such as resolved rules) become objects, tuples and sets become
    arrays (sets sorted); NaN and infinities are refused.

    >>> canonical_json({"b": (1, 2), "a": {"z": "发", "y": None}})
    '{"a":{"y":null,"z":"发"},"b":[1,2]}'
    """
    return json.dumps(
        obj,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=_jsonable,
    )


def run_id(meta: Mapping[str, Any]) -> str:
    """First 16 hex digits of the sha256 of the canonical JSON of the run's arguments.

    Only the keys of :data:`RUN_ID_KEYS` (and :data:`CONTENT_KEY`, when present)
    are hashed; other keys of ``meta`` (a creation time, the shard list) do not
    change the id.

    >>> run_id({"variant": "yuxi"})
    Traceback (most recent call last):
    ...
    mjlog.rundir.LogError: run_id needs meta keys agents, duplicate, hands_per_match, \
matches, mjlog_version, players, rng, rules, seed (missing from the run's metadata)
    """
    missing = sorted(k for k in RUN_ID_KEYS if k not in meta)
    if missing:
        raise LogError(
            f"run_id needs meta keys {', '.join(missing)} (missing from the run's metadata)"
        )
    keys = RUN_ID_KEYS + (CONTENT_KEY,) if CONTENT_KEY in meta else RUN_ID_KEYS
    text = canonical_json({k: meta[k] for k in keys})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------------- layout


def shard_path(table: str, shard: int) -> str:
    """The path of one table's file of one shard, relative to the run directory.

    >>> shard_path("hands", 12)
    'hands/part-00012.parquet'
    """
    return f"{table}/part-{shard:05d}.parquet"


def _shard_tables(events: bool) -> tuple[str, ...]:
    return tuple(t for t in TABLES if events or t != "events")


def shard_complete(run_dir: str | os.PathLike, shard: int, events: bool = True) -> bool:
    """True when every file of ``shard`` is in place (the resume test).

    The hands file is renamed into place last, so its presence means the others
    were finished; the others are checked too in case one was deleted by hand.
    """
    run = Path(run_dir)
    return all((run / shard_path(t, shard)).is_file() for t in _shard_tables(events))


def shard_entries(run_dir: str | os.PathLike, shard: int, events: bool = True) -> list[dict]:
    """The manifest entries of a complete shard, computed from its files on disk.

    What :meth:`ShardWriter.close` returned, for a shard written by an earlier
    (resumed) invocation. A missing or unreadable file raises :class:`LogError`.
    """
    run = Path(run_dir)
    out = []
    for t in _shard_tables(events):
        rel = shard_path(t, shard)
        path = run / rel
        if not path.is_file():
            raise LogError(f"{path}: missing (shard {shard} incomplete)")
        rows = _open(path, t).metadata.num_rows
        out.append(file_entry(path, t, rel, rows))
    return out


def file_entry(path: Path, table: str, rel: str, rows: int) -> dict[str, Any]:
    """The manifest entry of one file: its table, path in the run, rows, size and
    sha256 (what every reader checks before it trusts the file)."""
    return {"table": table, "path": rel, "rows": rows, "bytes": path.stat().st_size,
            "sha256": sha256_file(path)}


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- writer


class ShardWriter:
    """Write one shard: the hands of whole matches, in (match, rotation, hand) order.

    Buffers column-wise and writes a row group every ``row_group_hands`` hands, so
    memory is bounded by one row group. Files go to temporary names
    (``events/.part-00003.parquet.tmp-<pid>``) and are renamed into place by
    :meth:`close`, hands last. Used as a context manager, an exception inside the
    ``with`` removes the temporary files and renames nothing.

    >>> import tempfile
    >>> run = tempfile.mkdtemp()
    >>> with ShardWriter(run, 0, "0123456789abcdef", "yuxi", events=False) as w:
    ...     w.add_hand(0, 0, 0, {"hand_seed": 7, "players": 4, "dealer": 0,
    ...         "dice": [3, 4], "dealer_rolls": None, "break": 30,
    ...         "wall": list(range(34)) * 4, "agents": ["greedy"] * 4,
    ...         "outcome": "draw", "winners": [], "deltas": [0, 0, 0, 0],
    ...         "n_events": 0, "wall_left": 0, "next_dealer": 1}, [], [], [])
    >>> [(e["path"], e["rows"]) for e in w.entries]
    [('hands/part-00000.parquet', 1), ('wins/part-00000.parquet', 0), \
('transfers/part-00000.parquet', 0)]
    >>> shard_complete(run, 0, events=False), shard_complete(run, 0)
    (True, False)
    """

    def __init__(
        self,
        run_dir: str | os.PathLike,
        shard: int,
        run_id: str,
        variant: str,
        events: bool = True,
        row_group_hands: int = 2000,
    ) -> None:
        if row_group_hands < 1:
            raise ValueError(f"row_group_hands must be >= 1, not {row_group_hands}")
        self.run_dir = Path(run_dir)
        self.shard = shard
        self.run_id = run_id
        self.variant = variant
        self.events = events
        self.row_group_hands = row_group_hands
        self.tables = _shard_tables(events)
        self.entries: list[dict[str, Any]] = []
        self._cols = {t: data_columns(t) for t in self.tables}
        self._col_sets = {t: frozenset(cols) for t, cols in self._cols.items()}
        self._hand_keys = self._col_sets["hands"]
        self._final = {t: self.run_dir / shard_path(t, shard) for t in self.tables}
        self._tmp = {t: p.with_name(f".{p.name}.tmp-{os.getpid()}") for t, p in self._final.items()}
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._rows = dict.fromkeys(self.tables, 0)
        self._last_key: tuple[int, int, int] | None = None
        self._state = "open"
        self._reset()
        for t in self.tables:
            self._final[t].parent.mkdir(parents=True, exist_ok=True)

    def _reset(self) -> None:
        self._buf: dict[str, dict[str, list]] = {
            t: {c: [] for c in cols} for t, cols in self._cols.items()
        }
        self._keys: list[tuple[int, int, int]] = []
        self._counts: dict[str, list[int]] = {t: [] for t in self.tables if t != "hands"}

    def __enter__(self) -> ShardWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()
        elif self._state == "open":
            self.close()

    def _where(self, match: int, rotation: int, hand: int) -> str:
        return f"shard {self.shard} match {match} rotation {rotation} hand {hand}"

    def add_hand(
        self,
        match: int,
        rotation: int,
        hand: int,
        hand_row: Mapping[str, Any],
        events: Sequence[Sequence[Any]],
        wins: Iterable[Mapping[str, Any]],
        transfers: Iterable[Mapping[str, Any]],
    ) -> None:
        """Buffer one hand; write a row group when ``row_group_hands`` are buffered.

        ``hand_row`` holds the hands columns after the id columns; ``events`` are
        tuples ``(seq, type, seat, tile, from_seat, kind, tiles, amount)`` with seq
        0, 1, 2 …, or the same 7 fields without seq (a :class:`mjlog.events.Event`),
        seq then being the position; they are ignored when the writer was made
        with ``events=False``. ``wins`` and ``transfers`` are dicts keyed by their
        table's columns. Hands must come in increasing (match, rotation, hand)
        order. Values are checked against the declared types when the row group
        is written (a ``ValueError`` naming the shard, table and column).
        """
        if self._state != "open":
            raise ValueError(f"shard {self.shard}: add_hand after the writer was {self._state}")
        key = (match, rotation, hand)
        where = self._where(*key)
        if self._last_key is not None and key <= self._last_key:
            raise ValueError(
                f"{where}: hands must come in increasing (match, rotation, hand) order; "
                f"the previous hand was {self._last_key}"
            )
        if hand_row.keys() != self._hand_keys:
            missing = sorted(self._hand_keys - hand_row.keys())
            extra = sorted(hand_row.keys() - self._hand_keys)
            raise ValueError(f"{where}: hand_row columns wrong; missing {missing}, unknown {extra}")
        new_counts: dict[str, int] = {}
        if self.events:
            n = len(events)
            if hand_row["n_events"] != n:
                raise ValueError(f"{where}: n_events is {hand_row['n_events']} but {n} events")
            if n:
                try:
                    cols = list(zip(*events, strict=True))
                except ValueError:
                    cols = []
                if len(cols) == len(EVENT_COLUMNS) - 1:  # mjlog.events.Event: no seq
                    cols.insert(0, range(n))
                elif len(cols) != len(EVENT_COLUMNS) or cols[0] != tuple(range(n)):
                    raise ValueError(
                        f"{where}: events must be tuples ({', '.join(EVENT_COLUMNS)}) with "
                        f"seq 0, 1, 2 …, or the same without seq"
                    )
            new_counts["events"] = n
        wins = list(wins)
        transfers = list(transfers)
        for name, rows in (("wins", wins), ("transfers", transfers)):
            want = self._col_sets[name]
            for row in rows:
                if row.keys() != want:
                    missing = sorted(want - row.keys())
                    extra = sorted(row.keys() - want)
                    raise ValueError(
                        f"{where}: {name} row columns wrong; missing {missing}, unknown {extra}"
                    )
            new_counts[name] = len(rows)
        # Checked: now append (nothing above has touched the buffers).
        buf = self._buf["hands"]
        for c in self._cols["hands"]:
            buf[c].append(hand_row[c])
        if self.events and new_counts["events"]:
            buf = self._buf["events"]
            for c, vals in zip(EVENT_COLUMNS, cols, strict=True):
                buf[c].extend(vals)
        for name, rows in (("wins", wins), ("transfers", transfers)):
            buf = self._buf[name]
            for c in self._cols[name]:
                buf[c].extend([r[c] for r in rows])
        for name, n in new_counts.items():
            self._counts[name].append(n)
        self._keys.append(key)
        self._last_key = key
        if len(self._keys) >= self.row_group_hands:
            try:
                self._flush()
            except BaseException:
                self.abort()
                raise

    def _column(self, table: str, field: pa.Field, values: list) -> pa.Array:
        try:
            return self._convert(table, field, values)
        except ValueError as e:
            # Name the first hand whose value fails, found the slow way (errors only).
            where = f"shard {self.shard}: {table}.{field.name}"
            for i, v in enumerate(values):
                try:
                    self._convert(table, field, [v])
                except ValueError:
                    hand = self._hand_of_row(table, i)
                    raise ValueError(f"{self._where(*hand)}: {table}.{field.name}: {e}") from None
            raise ValueError(f"{where}: {e}") from None

    def _hand_of_row(self, table: str, row: int) -> tuple[int, int, int]:
        if table == "hands":
            return self._keys[row]
        ends = np.cumsum(self._counts[table])
        return self._keys[int(np.searchsorted(ends, row, side="right"))]

    def _convert(self, table: str, field: pa.Field, values: list) -> pa.Array:
        try:
            if pa.types.is_dictionary(field.type):
                arr = pa.array(values, type=field.type.value_type).dictionary_encode()
                allowed = ALLOWED_VALUES.get((table, field.name))
                if allowed is not None:
                    bad = sorted(set(arr.dictionary.to_pylist()) - allowed)
                    if bad:
                        raise ValueError(
                            f"unknown value(s) {bad}; valid: {', '.join(sorted(allowed))}"
                        )
                arr = arr.cast(field.type)
            else:
                if field.type == _STRING_LIST and any(isinstance(v, str) for v in values):
                    # pyarrow would split a bare string into characters.
                    raise ValueError("a string where a list of strings is expected")
                arr = pa.array(values, type=field.type)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as e:
            raise ValueError(_one_line(e)) from None
        if not field.nullable and arr.null_count:
            raise ValueError("null in a non-nullable column")
        bounds = VALUE_RANGES.get((table, field.name))
        if bounds is not None:
            flat = arr.flatten() if pa.types.is_list(arr.type) else arr
            lo_hi = pc.min_max(flat)
            lo, hi = lo_hi["min"].as_py(), lo_hi["max"].as_py()
            if lo is not None and (lo < bounds[0] or hi > bounds[1]):
                bad = lo if lo < bounds[0] else hi
                raise ValueError(f"value {bad} outside {bounds[0]}..{bounds[1]}")
        return arr

    def _id_arrays(self, table: str, n_rows: int) -> list[pa.Array]:
        keys = np.array(self._keys, dtype=np.int64).reshape(-1, 3)
        if table != "hands":
            keys = np.repeat(keys, self._counts[table], axis=0)
        zeros = pa.array(np.zeros(n_rows, dtype=np.int32))
        out = [
            pa.DictionaryArray.from_arrays(zeros, pa.array([self.run_id])),
            pa.DictionaryArray.from_arrays(zeros, pa.array([self.variant])),
        ]
        for i, name in enumerate(HAND_KEY):
            dtype = _KEY_DTYPES[name]
            col = keys[:, i]
            info = np.iinfo(dtype)
            if col.size and (col.min() < info.min or col.max() > info.max):
                raise ValueError(f"shard {self.shard}: {name} out of range for {dtype.__name__}")
            out.append(pa.array(col.astype(dtype)))
        return out

    def _flush(self) -> None:
        for table in self.tables:
            schema = TABLES[table]
            buf = self._buf[table]
            n_rows = len(buf[self._cols[table][0]])
            if table not in self._writers:
                self._writers[table] = pq.ParquetWriter(
                    self._tmp[table], schema, **_write_options(table)
                )
            if n_rows == 0:
                continue
            arrays = self._id_arrays(table, n_rows)
            arrays += [self._column(table, schema.field(c), buf[c]) for c in self._cols[table]]
            batch = pa.Table.from_arrays(arrays, schema=schema)
            self._writers[table].write_table(batch, row_group_size=n_rows)
            self._rows[table] += n_rows
        self._reset()

    def close(self) -> list[dict[str, Any]]:
        """Write what is buffered, finish the files and rename them into place.

        Returns the manifest entries ``{"table", "path", "rows", "sha256"}`` in
        table order; they are also kept in :attr:`entries`. A second call
        returns the same entries.
        """
        if self._state == "closed":
            return self.entries
        if self._state != "open":
            raise ValueError(f"shard {self.shard}: close after the writer was {self._state}")
        try:
            self._flush()
            for w in self._writers.values():
                w.close()
            entries = []
            for t in self.tables:
                _fsync(self._tmp[t])
                entries.append(
                    file_entry(self._tmp[t], t, shard_path(t, self.shard), self._rows[t])
                )
            # hands last: its presence marks the shard complete.
            for t in sorted(self.tables, key=lambda t: t == "hands"):
                os.replace(self._tmp[t], self._final[t])
            _fsync_dir(self.run_dir, self.tables)
        except BaseException:
            self.abort()
            raise
        self._state = "closed"
        self.entries = entries
        return entries

    def abort(self) -> None:
        """Drop the shard: close and remove the temporary files, rename nothing."""
        if self._state == "closed":
            return
        self._state = "aborted"
        for w in self._writers.values():
            try:
                w.close()
            except Exception:  # noqa: S110 - the file is being thrown away
                pass
        self._writers.clear()
        for p in self._tmp.values():
            try:
                p.unlink()
            except FileNotFoundError:
                pass
        self._reset()


def _fsync_dir(run_dir: Path, tables: Iterable[str]) -> None:
    for t in tables:
        try:
            fd = os.open(run_dir / t, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


# -------------------------------------------------------------------- manifest


def build_manifest(
    meta: Mapping[str, Any], files: Iterable[Mapping[str, Any]], **extra: Any
) -> dict[str, Any]:
    """A manifest: the run's ``meta``, its ``run_id``, the schema version and ``files``.

    ``files`` are the entries :meth:`ShardWriter.close` returned, for every
    shard; they are sorted by path. ``extra`` keys (say a creation time) are
    kept but never enter the run id.

    >>> meta = dict.fromkeys(RUN_ID_KEYS, 0)
    >>> m = build_manifest(meta, [{"table": "hands", "path": "hands/part-00000.parquet",
    ...                            "rows": 3, "sha256": "ab"}], created="today")
    >>> m["run_id"], m["schema_version"], len(m["files"]), m["created"]
    ('74080732d960c42d', 1, 1, 'today')
    """
    files = sorted((dict(f) for f in files), key=lambda f: f["path"])
    return {
        **meta,
        **extra,
        "run_id": run_id(meta),
        "schema_version": SCHEMA_VERSION,
        "files": files,
    }


def write_manifest(run_dir: str | os.PathLike, manifest: Mapping[str, Any]) -> Path:
    """Write ``manifest.json`` atomically (temporary file, then rename)."""
    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False, default=_jsonable)
    return replace_file(run / MANIFEST, (text + "\n").encode("utf-8"))


def read_manifest(run_dir: str | os.PathLike) -> dict[str, Any]:
    """Read ``manifest.json`` as JSON only (no checks of its entries: that is
    :class:`mjlog.rundir.RunFiles`); a missing, unreadable or malformed one raises
    :class:`LogError`, one line naming the file."""
    path = Path(run_dir) / MANIFEST
    if not os.path.lexists(path):
        raise LogError(
            f"{path}: no manifest (not a run directory, or the run never finished)"
        )
    manifest = read_json(path, "manifest")
    if not isinstance(manifest, dict):
        raise LogError(f"{path}: expected a JSON object, found {type(manifest).__name__}")
    return manifest


def manifest_files(manifest: Mapping[str, Any], where: str = MANIFEST) -> list[dict[str, Any]]:
    """The file entries of a manifest, checked for shape."""
    files = manifest.get("files")
    if not isinstance(files, list):
        raise LogError(f"{where}: no 'files' list")
    for i, f in enumerate(files):
        if not (isinstance(f, dict) and {"table", "path", "rows", "sha256"} <= f.keys()):
            raise LogError(f"{where}: files[{i}] needs table, path, rows and sha256")
    return files


def _table_files(run: Path) -> list[str]:
    """Every file in the table folders (temporary ones included), relative, sorted."""
    found = []
    for t in TABLES:
        d = run / t
        if d.is_dir():
            found += [f"{t}/{p.name}" for p in d.iterdir() if p.is_file()]
    return sorted(found)


def verify_manifest(run_dir: str | os.PathLike, read_pages: bool = True) -> list[str]:
    """Problems with a run directory against its manifest; empty when all is well.

    Checks that every listed file exists with its row count, sha256 and the
    declared schema, that every shard has all its tables, and reports files in
    the table folders that the manifest does not list (temporary files too).
    ``read_pages`` False takes the row counts from the Parquet footers without
    decoding the data (for a caller that reads every file next, as the auditor).
    """
    run = Path(run_dir)
    try:
        manifest = read_manifest(run)
        files = manifest_files(manifest, str(run / MANIFEST))
    except LogError as e:
        return [str(e)]
    problems = []
    listed = set()
    shards: dict[str, set[str]] = {}
    for f in files:
        rel = f["path"]
        listed.add(rel)
        path = run / rel
        table = f["table"]
        if table not in TABLES or rel.split("/", 1)[0] != table:
            problems.append(f"{rel}: listed with unknown or mismatched table {table!r}")
            continue
        shards.setdefault(Path(rel).name, set()).add(table)
        if not path.is_file():
            problems.append(f"{rel}: listed in the manifest but missing")
            continue
        size = path.stat().st_size
        if isinstance(f.get("bytes"), int) and f["bytes"] != size:
            problems.append(f"{rel}: {size} bytes, the manifest says {f['bytes']}")
        digest = sha256_file(path)
        if digest != f["sha256"]:
            problems.append(f"{rel}: sha256 {digest[:12]}… differs from the manifest's")
        try:
            rows = check_file(path, table) if read_pages else _open(path, table).metadata.num_rows
        except LogError as e:
            problems.append(str(e))
            continue
        if rows != f["rows"]:
            problems.append(f"{rel}: {rows} rows, the manifest says {f['rows']}")
    want_events = "events" in {t for ts in shards.values() for t in ts}
    for name, tables in sorted(shards.items()):
        missing = [t for t in _shard_tables(want_events) if t not in tables]
        if missing:
            problems.append(f"shard {name}: the manifest lists no {', '.join(missing)} file")
    for rel in _table_files(run):
        if rel not in listed:
            problems.append(f"{rel}: present but not listed in the manifest")
    return problems


# ---------------------------------------------------------------------- readers


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _open(path: Path, table: str) -> pq.ParquetFile:
    """Open one file of ``table`` and check its schema; LogError on any problem."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the read
            raise LogError(f"{path}: not a regular file")
        pf = pq.ParquetFile(path, page_checksum_verification=True)
        schema = pf.schema_arrow
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except (pa.ArrowException, OSError, ValueError) as e:
        raise LogError(f"{path}: not a readable Parquet file: {_one_line(e)}") from None
    problems = check_schema(table, schema)
    if problems:
        raise LogError(f"{path}: not a {table} table: {'; '.join(problems)}")
    return pf


def check_file(path: str | os.PathLike, table: str) -> int:
    """Open a table file, check its schema and read every page; return its rows.

    Raises :class:`LogError` naming the file if it is not Parquet, truncated,
    corrupt or not of the declared schema.
    """
    path = Path(path)
    pf = _open(path, table)
    try:
        for i in range(pf.num_row_groups):
            pf.read_row_group(i).validate(full=True)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise LogError(f"{path}: corrupt data: {_one_line(e)}") from None
    return pf.metadata.num_rows


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
        what = "written without events (--events none)" if table == "events" else (
            f"no {table} files in the manifest")
        raise LogError(f"{run.path}: {what}")
    return files


def read_table(
    path_or_run_dir: str | os.PathLike | RunFiles,
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
        pf = _open(f, table)
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
            raise LogError(f"{f}: corrupt data: {_one_line(e)}") from None
        except (ValueError, TypeError) as e:
            raise LogError(f"{f}: bad columns or filters: {_one_line(e)}") from None
        try:
            # A damaged page header can decode to an invalid array (say an index
            # past the end of its dictionary); catch it here, not in the caller.
            t.validate(full=True)
        except pa.ArrowException as e:
            raise LogError(f"{f}: corrupt data: {_one_line(e)}") from None
        parts.append(_conform(t, table))
    if len(parts) == 1:
        return parts[0]
    try:
        return pa.concat_tables(parts, promote_options="permissive")
    except pa.ArrowException as e:
        raise LogError(f"{path_or_run_dir}: {table} files do not agree: {_one_line(e)}") from None


class HandBundle(NamedTuple):
    """One hand as :func:`iter_hands` yields it, in the shapes the writer takes."""

    hand: dict[str, Any]
    """The hands row, id columns included."""
    events: list[tuple]
    """``(seq, type, seat, tile, from_seat, kind, tiles, amount)`` tuples, in order."""
    wins: list[dict[str, Any]]
    transfers: list[dict[str, Any]]


def _rows_by_hand(
    path: Path, table: str, batch_rows: int, as_tuples: bool
) -> Iterator[tuple[tuple[int, int, int], list]]:
    """(hand key, rows) for consecutive runs of rows of one hand, streamed by batch."""
    pf = _open(path, table)
    cols = list(HAND_KEY) + list(data_columns(table))
    key: tuple[int, int, int] | None = None
    rows: list = []
    try:
        for batch in pf.iter_batches(batch_size=batch_rows, columns=cols):
            batch.validate(full=True)
            data = [batch.column(c).to_pylist() for c in cols]
            keys = zip(data[0], data[1], data[2], strict=True)
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
        raise LogError(f"{path}: corrupt data: {_one_line(e)}") from None
    if key is not None:
        yield key, rows


def iter_hands(
    run_dir: str | os.PathLike | RunFiles,
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
        pf = _open(hands_path, "hands")
        try:
            keys_tab = pf.read(columns=list(HAND_KEY))
        except (pa.ArrowException, OSError, ValueError) as e:
            raise LogError(f"{hands_path}: corrupt data: {_one_line(e)}") from None
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
                data = [batch.column(c).to_pylist() for c in names]
                for values in zip(*data, strict=True):
                    i += 1
                    row = dict(zip(names, values, strict=True))
                    key = (row["match"], row["rotation"], row["hand"])
                    got: dict[str, list] = {}
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
            raise LogError(f"{hands_path}: corrupt data: {_one_line(e)}") from None
