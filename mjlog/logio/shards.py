"""One shard read whole, for random access by hand: the auditor's reader.

:func:`iter_hands <mjlog.logio.readers.iter_hands>` streams a run hand by hand
in bounded memory; a checker that audits a shard's hands in chunks, in several
processes, wants each chunk's rows at once instead. :func:`load_shard` reads the
shard's tables with :func:`read_table <mjlog.logio.readers.read_table>` (so every
file is checked as any reader checks it), keys every row by its hand, and
:class:`ShardTables` cuts the rows of hands ``i0..i1`` out of it, decoded by
:mod:`mjlog.logio.columns` (events straight into :class:`mjlog.events.Event`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from mjlog.events import Event
from mjlog.logio.columns import key_array, pylist, tuples, unkey
from mjlog.logio.files import shard_path
from mjlog.logio.readers import read_table
from mjlog.rundir import LogError
from mjlog.schema import data_columns

__all__ = ["CHILD_TABLES", "LoggedEvents", "ShardTables", "load_shard"]

CHILD_TABLES = ("events", "wins", "transfers")
"""The tables whose rows belong to a hand of the hands table."""


class LoggedEvents(NamedTuple):
    """A hand's events rows, already split into their seq column and events."""

    seqs: list[int]
    events: list[Event]


_new_tuple = tuple.__new__


def _rows(
    tab: pa.Table, lo: int, hi: int, cols: Sequence[str], as_tuples: Sequence[str] = ()
) -> list[list[Any]]:
    """Rows lo..hi-1 of ``tab`` as one Python list per column; the ``as_tuples``
    columns (lists) as tuples."""
    part = tab.slice(lo, hi - lo)
    return [(tuples if c in as_tuples else pylist)(part.column(c)) for c in cols]


def _events_by_hand(keys: np.ndarray, data: list[list[Any]]) -> dict[int, LoggedEvents]:
    """Events rows (columns ``data``, sorted by hand ``keys``) as one
    :class:`LoggedEvents` per hand: the columns are cut at the hand boundaries,
    and each row becomes an Event without a Python-level call per row."""
    seq, *fields = data
    evs = list(map(_new_tuple, repeat(Event), zip(*fields, strict=True)))
    cuts = [0, *(np.flatnonzero(np.diff(keys)) + 1).tolist(), len(evs)]
    return {
        int(keys[a]): LoggedEvents(seq[a:b], evs[a:b])
        for a, b in zip(cuts, cuts[1:], strict=False)
        if b > a
    }


class ShardTables:
    """A shard's tables in memory, each row keyed by its hand (:func:`key_array
    <mjlog.logio.columns.key_array>`), rows in key order (checked on load)."""

    def __init__(self, run: Path, shard: int, with_events: bool):
        self.run, self.shard = run, shard
        self._tabs: dict[str, tuple[pa.Table, np.ndarray]] = {}
        firsts: dict[str, np.ndarray] = {}
        for t in ("hands", *CHILD_TABLES):
            if t == "events" and not with_events:
                continue
            path = run / shard_path(t, shard)
            tab = read_table(path, t)
            keys = key_array(tab)
            steps = np.diff(keys)
            if len(keys) and np.any(steps < 0 if t != "hands" else steps <= 0):
                raise LogError(f"{path}: rows not in (match, rotation, hand) order")
            self._tabs[t] = (tab, keys)
            # the keys in order, once each (the rows are sorted by key)
            firsts[t] = (
                keys[np.concatenate(([0], np.flatnonzero(steps) + 1))] if len(keys) else keys
            )
        self.children = tuple(t for t in CHILD_TABLES if t in self._tabs)
        self.hand_keys = self._tabs["hands"][1]
        self.orphans: list[tuple[str, list[tuple[int, int, int]]]] = []
        """(file, hand keys) of the rows of a child table that belong to no hand of
        the shard."""
        for t in self.children:
            if len(firsts[t]):
                stray = np.setdiff1d(firsts[t], self.hand_keys, assume_unique=True)
                if len(stray):
                    self.orphans.append((shard_path(t, shard), [unkey(k) for k in stray.tolist()]))

    def hands(self, i0: int, i1: int) -> list[dict[str, Any]]:
        """Rows i0..i1-1 of the hands table, as dicts."""
        htab = self._tabs["hands"][0]
        names = htab.column_names
        cols = _rows(htab, i0, i1, names)
        return [dict(zip(names, r, strict=True)) for r in zip(*cols, strict=True)]

    def by_hand(self, table: str, k0: int, k1: int) -> dict[int, Any]:
        """The rows of ``table`` for the hands keyed k0..k1 (inclusive), grouped by
        hand key: events as :class:`LoggedEvents`, wins and transfers as lists of
        dicts (``tiles`` as a tuple)."""
        tab, keys = self._tabs[table]
        lo = int(np.searchsorted(keys, k0, "left"))
        hi = int(np.searchsorted(keys, k1, "right"))
        cols = data_columns(table)
        data = _rows(tab, lo, hi, cols, ("tiles",))
        if table == "events":
            return _events_by_hand(keys[lo:hi], data)
        groups: dict[int, list[Any]] = {}
        recs = (dict(zip(cols, r, strict=True)) for r in zip(*data, strict=True))
        for k, r in zip(keys[lo:hi].tolist(), recs, strict=True):
            groups.setdefault(k, []).append(r)
        return groups


@lru_cache(maxsize=1)  # one shard per process at a time: a worker's chunks share it
def load_shard(run: str, shard: int, with_events: bool) -> ShardTables:
    """The shard's tables (:class:`ShardTables`), kept for the next call with the
    same arguments; ``load_shard.cache_clear()`` forgets it (files may change
    between two audits). Raises LogError naming a bad file."""
    return ShardTables(Path(run), shard, with_events)
