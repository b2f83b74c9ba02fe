"""The writer: one shard of a run, buffered column-wise, renamed into place whole.

:class:`ShardWriter` buffers hands column-wise, writes a row group every
``row_group_hands`` hands to a temporary file, and on :meth:`ShardWriter.close`
renames the finished files into place (``os.replace``), hands last. Identical
input gives byte-identical files: nothing in them depends on time, paths or hosts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mjlog.logio.files import file_entry, one_line, shard_path, shard_tables
from mjlog.rundir import naming
from mjlog.schema import ALLOWED_VALUES, HAND_KEY, ID_COLUMNS, TABLES, VALUE_RANGES, data_columns

__all__ = ["EVENT_COLUMNS", "ShardWriter", "SpilledShard", "write_options"]

if TYPE_CHECKING:
    from mjlog.engine import PlayedHand
    from mjlog.events import Event

EVENT_COLUMNS = data_columns("events")
"""The order of the fields of an event tuple, as written and as read back."""

# An event's fields after seq, as one struct: pyarrow converts a row group's event
# tuples in one pass (a dictionary column's strings are encoded after).
_EVENT_FIELDS = [TABLES["events"].field(c) for c in EVENT_COLUMNS[1:]]
_EVENT_STRUCT = pa.struct(
    [
        pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
        for f in _EVENT_FIELDS
    ]
)

# Parquet writer settings, chosen for small files (measured in tests/logs/test_logio.py
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
# as in schema.ID_FIELDS
_KEY_DTYPES: dict[str, type[np.signedinteger[Any]]] = {
    "match": np.int32,
    "rotation": np.int8,
    "hand": np.int16,
}


def hand_records(
    p: PlayedHand,
) -> tuple[dict[str, Any], list[Event], list[dict[str, Any]], list[dict[str, Any]]]:
    """The four tables' rows of one played hand: :meth:`ShardWriter.add_hand`'s
    ``hand_row``, ``events``, ``wins`` and ``transfers``."""
    st = p.state
    wins = [
        {
            "seq": w.seq,
            "seat": w.seat,
            "from_seat": w.from_seat,
            "tile": w.tile,
            "method": w.method,
            "win_order": w.win_order,
            "patterns": list(w.patterns),
            "fan": w.fan,
            "multiplier": w.multiplier,
            "points": w.points,
            "total": w.total,
            "capped": w.capped,
        }
        for w in st.wins
    ]
    transfers = [
        {"seq": q, "payer": a, "payee": b, "amount": m, "reason": r}
        for q, a, b, m, r in st.transfers
    ]
    return p.hand_row(), st.events, wins, transfers


def _leaf(field: pa.Field) -> str:
    return f"{field.name}.list.element" if pa.types.is_list(field.type) else field.name


def write_options(table: str) -> dict[str, Any]:
    """The ``pyarrow.parquet.ParquetWriter`` settings of ``table`` (see above)."""
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


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
    >>> from mjlog.logio import shard_complete
    >>> shard_complete(run, 0, events=False), shard_complete(run, 0)
    (True, False)
    """

    def __init__(
        self,
        run_dir: str | os.PathLike[str],
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
        self.tables = shard_tables(events)
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
        self._buf: dict[str, dict[str, list[Any]]] = {
            t: {c: [] for c in cols} for t, cols in self._cols.items() if t != "events"
        }
        # the events as tuples without seq (seq counts 0, 1, 2 … within each hand)
        self._events: list[Sequence[Any]] = []
        self._keys: list[tuple[int, int, int]] = []
        self._counts: dict[str, list[int]] = {t: [] for t in self.tables if t != "hands"}

    def __enter__(self) -> ShardWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
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
            # a set first: a frozenset less a keys view is a set (not a frozenset)
            missing = sorted(set(self._hand_keys) - hand_row.keys())
            extra = sorted(hand_row.keys() - self._hand_keys)
            raise ValueError(f"{where}: hand_row columns wrong; missing {missing}, unknown {extra}")
        new_counts: dict[str, int] = {}
        event_rows: Sequence[Sequence[Any]] = ()
        if self.events:
            event_rows = _event_rows(where, hand_row, events)
            new_counts["events"] = len(events)
        wins = list(wins)
        transfers = list(transfers)
        for name, rows in (("wins", wins), ("transfers", transfers)):
            _check_rows(where, name, rows, self._col_sets[name])
            new_counts[name] = len(rows)
        # Checked: now append (nothing above has touched the buffers).
        buf = self._buf["hands"]
        for c in self._cols["hands"]:
            buf[c].append(hand_row[c])
        self._events.extend(event_rows)
        for name, table_rows in (("wins", wins), ("transfers", transfers)):
            buf = self._buf[name]
            for c in self._cols[name]:
                buf[c].extend([r[c] for r in table_rows])
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

    def _column(self, table: str, field: pa.Field, values: list[Any]) -> pa.Array:
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

    def _convert(self, table: str, field: pa.Field, values: list[Any]) -> pa.Array:
        try:
            if pa.types.is_dictionary(field.type):
                arr = pa.array(values, type=field.type.value_type)
            else:
                if field.type == _STRING_LIST and any(isinstance(v, str) for v in values):
                    # pyarrow would split a bare string into characters.
                    raise ValueError("a string where a list of strings is expected")
                arr = pa.array(values, type=field.type)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as e:
            raise ValueError(one_line(e)) from None
        return _checked(table, field, arr)

    def _event_arrays(self) -> list[pa.Array]:
        """The events columns after the id columns: the buffered tuples converted
        in one pass (:data:`_EVENT_STRUCT`), seq from the hands' counts; a value that
        does not convert or check is named the slow way, column by column."""
        counts = np.array(self._counts["events"], dtype=np.int64)
        ends = np.cumsum(counts)
        seq = np.arange(len(self._events), dtype=np.int64) - np.repeat(ends - counts, counts)
        try:
            rows = pa.array(self._events, type=_EVENT_STRUCT)
            return [
                _checked("events", TABLES["events"].field("seq"), pa.array(seq, pa.int32()))
            ] + [_checked("events", f, rows.field(i)) for i, f in enumerate(_EVENT_FIELDS)]
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            cols = [seq.tolist(), *(list(c) for c in zip(*self._events, strict=True))]
            schema = TABLES["events"]
            return [
                self._column("events", schema.field(c), v)
                for c, v in zip(EVENT_COLUMNS, cols, strict=True)
            ]

    def _id_arrays(self, table: str, n_rows: int) -> list[pa.Array]:
        keys = np.array(self._keys, dtype=np.int64).reshape(-1, 3)
        if table != "hands":
            keys = np.repeat(keys, self._counts[table], axis=0)
        out = [_constant(self.run_id, n_rows), _constant(self.variant, n_rows)]
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
            events = table == "events"
            n_rows = len(self._events) if events else len(self._buf[table][self._cols[table][0]])
            batch = None
            if n_rows:
                arrays = self._id_arrays(table, n_rows)
                if events:
                    arrays += self._event_arrays()
                else:
                    buf = self._buf[table]
                    arrays += [
                        self._column(table, schema.field(c), buf[c]) for c in self._cols[table]
                    ]
                batch = pa.Table.from_arrays(arrays, schema=schema)
            self._write(table, batch)
        self._reset()

    def _write(self, table: str, batch: pa.Table | None) -> None:
        """Write one row group of ``table`` (None: no rows, but the file is made)."""
        with naming(self._tmp[table]):  # pyarrow's full disk names no file
            if table not in self._writers:
                self._writers[table] = pq.ParquetWriter(
                    self._tmp[table], TABLES[table], **write_options(table)
                )
            if batch is not None:
                self._writers[table].write_table(batch, row_group_size=batch.num_rows)
        if batch is not None:
            self._rows[table] += batch.num_rows

    def _close_writers(self) -> None:
        """Finish each file (its last bytes and footer are written now)."""
        for t, w in self._writers.items():
            with naming(self._tmp[t]):
                w.close()

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
            self._close_writers()
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
        self._discard()

    def _discard(self) -> None:
        """Close and remove the files written so far (the temporary ones)."""
        self._state = "aborted"
        for w in self._writers.values():
            try:
                w.close()
            except Exception:  # noqa: S110 - the file is being thrown away
                pass
        self._writers.clear()
        for p in self._tmp.values():
            p.unlink(missing_ok=True)
        self._reset()


class SpilledShard(ShardWriter):
    """A shard written before its run id is known: an import learns the id from
    the content of every hand, and writes each hand as it reads it.

    Hands are checked and converted exactly as by :class:`ShardWriter`, but each
    row group goes to an Arrow IPC stream in ``spill_dir`` (``hands/part-00000.arrows``
    …) with an empty run id. :meth:`publish` writes them, run id set, as the
    shard's Parquet files in the run directory, row group for row group: the same
    bytes a ShardWriter given the run id from the start would write.

    >>> import tempfile
    >>> spill, run = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> with SpilledShard(spill, 0, "yuxi", events=False) as w:
    ...     w.add_hand(0, 0, 0, {"hand_seed": 7, "players": 4, "dealer": 0,
    ...         "dice": [3, 4], "dealer_rolls": None, "break": 30,
    ...         "wall": list(range(34)) * 4, "agents": ["greedy"] * 4,
    ...         "outcome": "draw", "winners": [], "deltas": [0, 0, 0, 0],
    ...         "n_events": 0, "wall_left": 0, "next_dealer": 1}, [], [], [])
    >>> [(e["path"], e["rows"]) for e in w.publish(run, "0123456789abcdef")][0]
    ('hands/part-00000.parquet', 1)
    """

    def __init__(
        self,
        spill_dir: str | os.PathLike[str],
        shard: int,
        variant: str,
        events: bool = True,
        row_group_hands: int = 2000,
    ) -> None:
        super().__init__(spill_dir, shard, "", variant, events, row_group_hands)
        self._tmp = {t: p.with_suffix(".arrows") for t, p in self._final.items()}

    def _write(self, table: str, batch: pa.Table | None) -> None:
        with naming(self._tmp[table]):
            if table not in self._writers:
                self._writers[table] = pa.ipc.new_stream(
                    self._tmp[table], TABLES[table], options=_SPILL_OPTIONS
                )
            if batch is not None:
                self._writers[table].write_table(batch)
        if batch is not None:
            self._rows[table] += batch.num_rows

    def close(self) -> list[dict[str, Any]]:
        """Write what is buffered and finish the spill; no entries (those of
        :meth:`publish` go into the manifest)."""
        if self._state == "open":
            try:
                self._flush()
                self._close_writers()
            except BaseException:
                self.abort()
                raise
            self._writers.clear()
            self._state = "spilled"
        return []

    def publish(
        self,
        run_dir: str | os.PathLike[str],
        run_id: str,
        amend: Callable[[str, pa.Table, int], pa.Table] | None = None,
    ) -> list[dict[str, Any]]:
        """Write the spilled shard into ``run_dir`` under ``run_id`` as
        :meth:`ShardWriter.close` does (files renamed into place, hands last),
        remove the spill, and return the manifest entries. ``amend(table, rows,
        first)``, if given, may change a row group (its rows ``first``… of the
        shard's ``table``) before it is written: a value that depended on hands
        read after it."""
        self.close()
        w = ShardWriter(
            run_dir, self.shard, run_id, self.variant, self.events, self.row_group_hands
        )
        try:
            for t in self.tables:
                first = 0
                with pa.memory_map(str(self._tmp[t])) as src:
                    for rb in pa.ipc.open_stream(src):
                        rows = pa.Table.from_batches([rb])
                        i = rows.schema.get_field_index("run_id")
                        rows = rows.set_column(
                            i, rows.schema.field(i), _constant(run_id, rows.num_rows)
                        )
                        if amend is not None:
                            rows = amend(t, rows, first)
                        w._write(t, rows)
                        first += rows.num_rows
            return w.close()
        except BaseException:
            w.abort()
            raise
        finally:
            self.abort()

    def abort(self) -> None:
        """Drop the shard's spill files (also once closed: they are never renamed)."""
        self._discard()


# the spill is read once, soon after: a fast codec, not a small file
_SPILL_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")


def _constant(value: str, n_rows: int) -> pa.DictionaryArray:
    """An id column: ``value`` on each of ``n_rows`` rows, dictionary-encoded."""
    zeros = pa.array(np.zeros(n_rows, dtype=np.int32))
    return pa.DictionaryArray.from_arrays(zeros, pa.array([value]))


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


def _event_rows(
    where: str, hand_row: Mapping[str, Any], events: Sequence[Sequence[Any]]
) -> Sequence[tuple[Any, ...]]:
    """A hand's events as tuples without seq (:class:`mjlog.events.Event` tuples
    as they are), checked: ``hand_row``'s ``n_events`` of them, each of the events
    table's fields after seq, or all of them with seq 0, 1, 2 …"""
    n = len(events)
    if hand_row["n_events"] != n:
        raise ValueError(f"{where}: n_events is {hand_row['n_events']} but {n} events")
    width = len(EVENT_COLUMNS) - 1
    if all(isinstance(e, tuple) and len(e) == width for e in events):
        return events  # type: ignore[return-value]  # tuples, checked just above
    cols: list[Sequence[Any]]
    try:
        cols = list(zip(*events, strict=True))
    except (TypeError, ValueError):
        cols = []
    if len(cols) == width + 1 and cols[0] == tuple(range(n)):
        cols = cols[1:]
    elif len(cols) != width:
        raise ValueError(
            f"{where}: events must be tuples ({', '.join(EVENT_COLUMNS)}) with "
            f"seq 0, 1, 2 …, or the same without seq"
        )
    return list(zip(*cols, strict=True))


def _check_rows(where: str, name: str, rows: list[Mapping[str, Any]], want: Set[str]) -> None:
    """Each of a hand's rows of table ``name`` has exactly the columns ``want``."""
    for row in rows:
        if row.keys() != want:
            missing = sorted(want - row.keys())
            extra = sorted(row.keys() - want)
            raise ValueError(
                f"{where}: {name} row columns wrong; missing {missing}, unknown {extra}"
            )


def _checked(table: str, field: pa.Field, arr: pa.Array) -> pa.Array:
    """``arr``, converted from ``table``'s column ``field``, checked against the
    schema's nullability, allowed values and value range (a ``ValueError`` if
    not) and dictionary-encoded where the column is."""
    try:
        if pa.types.is_dictionary(field.type):
            arr = arr.dictionary_encode()
            allowed = ALLOWED_VALUES.get((table, field.name))
            if allowed is not None:
                bad = sorted(set(arr.dictionary.to_pylist()) - allowed)
                if bad:
                    raise ValueError(f"unknown value(s) {bad}; valid: {', '.join(sorted(allowed))}")
            arr = arr.cast(field.type)
    except (pa.ArrowException, TypeError, OverflowError) as e:
        raise ValueError(one_line(e)) from None
    if not field.nullable and arr.null_count:
        raise ValueError("null in a non-nullable column")
    bounds = VALUE_RANGES.get((table, field.name))
    if bounds is not None:
        flat = arr.flatten() if pa.types.is_list(arr.type) else arr
        lo_hi = pc.min_max(flat)
        lo, hi = lo_hi["min"].as_py(), lo_hi["max"].as_py()
        if lo is not None and (lo < bounds[0] or hi > bounds[1]):
            off = lo if lo < bounds[0] else hi  # not `bad`: compiled, that is a list here
            raise ValueError(f"value {off} outside {bounds[0]}..{bounds[1]}")
    return arr
