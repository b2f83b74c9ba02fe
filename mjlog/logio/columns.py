"""Arrow columns to Python values, fast: the decoding every reader shares.

``to_pylist`` builds one Python object per cell through pyarrow's generic path.
A log's columns are mostly dictionary-encoded strings and small ints, so they are
decoded here through numpy instead: a dictionary column is its (few) values
indexed by its indices; a list column becomes tuples, built only for the rows
that are set. The results equal ``to_pylist`` (lists as tuples in
:func:`tuples`); ``tests/logs/test_logio.py`` holds them equal on every column of a run.

>>> import pyarrow as pa
>>> col = pa.array(["draw", None, "discard", "draw"]).dictionary_encode()
>>> pylist(col)
['draw', None, 'discard', 'draw']
>>> tuples(pa.array([[1, 2], None, [], [3]], pa.list_(pa.int8())))
[(1, 2), None, (), (3,)]
"""

from __future__ import annotations

from sys import intern
from typing import Any

import numpy as np
import pyarrow as pa

from mjlog.rundir import LogError
from mjlog.schema import HAND_KEY

__all__ = ["int_array", "key_array", "pylist", "tuples", "unkey"]

_NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32}


def _array(col: pa.Array | pa.ChunkedArray) -> pa.Array:
    if not isinstance(col, pa.ChunkedArray):
        return col
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()  # no copy of one


def _valid(arr: pa.Array) -> np.ndarray:
    """The validity bitmap of ``arr`` (which has nulls) as a bool array."""
    bits = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[arr.offset : arr.offset + len(arr)].astype(bool)


def int_array(col: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An int8/16/32 column without nulls as numpy, read from its buffer
    (``to_numpy`` would import pandas)."""
    arr = _array(col)
    if arr.null_count:
        raise LogError(f"nulls in the key column {arr.type}")
    dtype = _NP[str(arr.type)]
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr) + arr.offset)[arr.offset :]


def key_array(tab: pa.Table | pa.RecordBatch) -> np.ndarray:
    """(match, rotation, hand) of every row as one sortable int64: match << 24 |
    rotation << 16 | hand (the last two as unsigned 8 and 16 bits). In-place
    steps: an events table has some 10^5 rows.

    >>> t = pa.table({"match": pa.array([0, 2], pa.int32()),
    ...               "rotation": pa.array([1, 0], pa.int8()),
    ...               "hand": pa.array([3, 7], pa.int16())})
    >>> [unkey(k) for k in key_array(t).tolist()]
    [(0, 1, 3), (2, 0, 7)]
    """
    m, r, h = (int_array(tab.column(c)) for c in HAND_KEY)
    k = m.astype(np.int64)
    k <<= 24
    part = np.bitwise_and(r, 0xFF, dtype=np.int64)
    part <<= 16
    k |= part
    k |= np.bitwise_and(h, 0xFFFF, dtype=np.int64)
    return k


def unkey(k: int) -> tuple[int, int, int]:
    """The (match, rotation, hand) of a :func:`key_array` key."""
    return (k >> 24, (k >> 16) & 0xFF, k & 0xFFFF)


def pylist(col: pa.Array | pa.ChunkedArray) -> list[Any]:
    """``to_pylist``, fast for dictionary columns (decoded through their indices,
    in numpy; pyarrow's own path builds every string anew, 100 times slower)."""
    arr = _array(col)
    if not pa.types.is_dictionary(arr.type) or str(arr.indices.type) not in _NP:
        plain: list[Any] = arr.to_pylist()
        return plain
    # interned: the same objects as the code's own constants ("discard", "live"...),
    # so the replay's comparisons with them succeed on identity
    values = [intern(v) if type(v) is str else v for v in arr.dictionary.to_pylist()]
    table = np.array([*values, None], dtype=object)  # the last entry stands for null
    idx = arr.indices
    ind = np.frombuffer(idx.buffers()[1], dtype=_NP[str(idx.type)], count=len(idx) + idx.offset)[
        idx.offset :
    ]
    if idx.null_count:
        ind = np.where(_valid(idx), ind, len(values))
    decoded: list[Any] = table[ind].tolist()
    return decoded


def tuples(col: pa.Array | pa.ChunkedArray) -> list[Any]:
    """A list column as tuples, None for a null row: only the rows set are built
    (the events' ``tiles`` is null but for deals and wins)."""
    arr = _array(col)
    n = len(arr)
    out: list[Any] = [None] * n
    rows = np.flatnonzero(_valid(arr)) if arr.null_count else np.arange(n)
    if not len(rows):
        return out
    offs = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=n + 1 + arr.offset)[arr.offset :]
    lo = int(offs[0])
    values = arr.values.slice(lo, int(offs[-1]) - lo).to_pylist()
    for i, a, b in zip(
        rows.tolist(), (offs[rows] - lo).tolist(), (offs[rows + 1] - lo).tolist(), strict=True
    ):
        out[i] = tuple(values[a:b])
    return out
