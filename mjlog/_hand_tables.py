"""Lookup tables behind :mod:`mjlog.hand`, built once per process.

Two families:

* **Win tables** (:func:`win_table`, built at import of ``mjlog.hand``, ~20 ms):
  a dict from one suit's counts (``bytes``, 9 for a suit, 7 for honors) to a
  packed int, for the patterns that are complete (melds and at most one pair) or
  all even. See ``mjlog.hand`` for the packing.

* **Shanten tables** (:func:`shanten_tables`, built on first use with numpy, ~0.1 s
  including the numpy import). The standard-form shanten of a hand is
  ``d - 1``, ``d`` being the fewest tiles missing from the hand for some complete
  target hand (4 - melds melds and a pair, at most 4 copies of a kind). Per suit
  that is a *cost vector* ``D[h*5 + m]``: the fewest tiles missing from the suit
  for ``m`` melds (plus the pair if ``h``). Only 126 distinct vectors exist for a
  suit (55 for honors), so a suit is mapped to its vector's id by a minimal
  deterministic automaton reading the suit's counts rank by rank (4,481 states
  for a suit, 9 lookups), and ids are combined across suits by precomputed
  min-plus tables (suits 1+2 -> 180 vectors, +3 -> 180, +honors -> shanten).

  The automaton is built forwards by dynamic programming over the states
  ``(a, b, m, h) -> cost`` (``a``/``b``: sequences started one/two ranks back
  and still owed tiles, ``m`` melds so far, ``h`` pair so far), vectorised over
  every distinct state of a rank with numpy, then minimised backwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where the shanten tables are built, not before
    import numpy as np
    from numpy.typing import NDArray

# ---------------------------------------------------------------- win tables

F_PAIR = 0x1
F_STD = 0x10
F_EVEN = 0x100
TILES_SHIFT = 12


def complete_patterns(n: int, sequences: bool) -> dict[bytes, int]:
    """Every complete pattern of an ``n``-kind suit: at most 4 melds and at most
    one pair, counts <= 4. Value: 1 if it holds the pair, else 0.

    >>> p = complete_patterns(9, True)
    >>> len(p), p[bytes([1, 1, 1, 0, 0, 0, 0, 0, 0])], p[bytes([2, 0, 0, 0, 0, 0, 0, 0, 0])]
    (21743, 0, 1)
    >>> len(complete_patterns(7, False))
    498
    """
    # A pattern is an int with one byte per rank (rank 0 most significant), so
    # adding a meld is an addition and int.to_bytes gives the key. A count
    # exceeds 4 iff adding 123 to its byte sets the byte's top bit.
    unit = [256 ** (n - 1 - r) for r in range(n)]
    over = sum(123 * u for u in unit)
    top = sum(128 * u for u in unit)
    melds = [3 * u for u in unit]
    if sequences:
        melds += [unit[r] + unit[r + 1] + unit[r + 2] for r in range(n - 2)]
    base = [0]
    frontier = [(0, 0)]
    for _ in range(4):
        nxt = []
        for v, start in frontier:
            for mi in range(start, len(melds)):
                w = v + melds[mi]
                if not (w + over) & top:
                    nxt.append((w, mi))
        base += [w for w, _ in nxt]
        frontier = nxt
    out = {v.to_bytes(n, "big"): 0 for v in base}
    pairs = [2 * u for u in unit]
    for v in base:
        for p in pairs:
            w = v + p
            if not (w + over) & top:
                out[w.to_bytes(n, "big")] = 1
    return out


def _even_patterns(n: int) -> dict[bytes, int]:
    """Patterns with 0, 2 or 4 of each kind and at most 14 tiles -> tile count."""
    vals = [(0, 0)]
    for _ in range(n):
        vals = [(256 * v + c, k + c) for v, k in vals for c in (0, 2, 4) if k + c <= 14]
    return {v.to_bytes(n, "big"): k for v, k in vals}


def win_table(n: int, sequences: bool) -> dict[bytes, int]:
    """Packed values of every complete or all-even pattern of an ``n``-kind suit."""
    table = {
        key: (sum(key) << TILES_SHIFT) | F_STD | (F_PAIR if pair else 0)
        for key, pair in complete_patterns(n, sequences).items()
    }
    for key, tiles in _even_patterns(n).items():
        table[key] = table.get(key, tiles << TILES_SHIFT) | F_EVEN
    return table


# ---------------------------------------------------------------- shanten tables


@dataclass(frozen=True, slots=True)
class ShantenTables:
    """Flat lookup lists for the standard-form shanten (see the module docstring).

    ``suit[s + x]``: next state of (pre-multiplied) state ``s`` on count ``x``; the
    ninth step yields a suit cost-vector id (< ``n_suit``). ``honor`` likewise,
    seven steps, ids < ``n_honor``. ``pair12[d1 * n_suit + d2]`` and
    ``add3[g * n_suit + d3]`` combine suits; ``final[(g * n_honor + dz) * 5 +
    melds]`` is the shanten: :attr:`combine` reads it, the one combine step.
    ``suit_vectors``/``honor_vectors`` are the cost vectors, for tests and
    curiosity.
    """

    suit: list[int]
    honor: list[int]
    n_suit: int
    n_honor: int
    pair12: list[int]
    add3: list[int]
    final: list[int]
    suit_vectors: list[tuple[int, ...]]
    honor_vectors: list[tuple[int, ...]]
    #: ``suit_ids[i]``: the id the automaton reads from the suit counts whose base-5
    #: number (rank 1 the most significant digit) is ``i``, for all 5**9 of them;
    #: ``honor_ids`` likewise for 5**7 (:func:`_id_table`)
    suit_ids: bytes
    honor_ids: bytes
    #: ``combine(dm, dp, ds, dz, melds)``: the standard shanten of a hand from its
    #: suits' ids (万, 筒, 条, honors) and its exposed melds
    combine: Callable[[int, int, int, int, int], int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # a closure over the lists, not a method: the hot loops call it per tile
        pair12, add3, final = self.pair12, self.add3, self.final
        n_suit, n_honor = self.n_suit, self.n_honor

        def combine(dm: int, dp: int, ds: int, dz: int, melds: int) -> int:
            g = add3[pair12[dm * n_suit + dp] * n_suit + ds]
            return final[(g * n_honor + dz) * 5 + melds]

        object.__setattr__(self, "combine", combine)


_INF = 100  # int8-safe: costs never exceed 14, INF + 4 < 127


def _state_keys() -> list[tuple[int, int, int, int]]:
    return [
        (a, b, m, h)
        for m in range(5)
        for a in range(5)
        for b in range(5)
        if a + b <= m
        for h in (0, 1)
    ]


def _unique_rows(a: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """Distinct rows of a 2-D array (sorted) and, per row, its index among them."""
    import numpy as np

    a = np.ascontiguousarray(a)
    v = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first, inverse = np.unique(v, return_index=True, return_inverse=True)
    return a[first], inverse.ravel()


def _automaton(n: int, sequences: bool) -> tuple[list[int], NDArray[np.int8]]:
    """Minimal automaton from an ``n``-kind suit's counts to its cost vector.

    Returns (flat transition list, cost vectors as a 2-D array)."""
    import numpy as np

    keys = _state_keys()
    index = {k: i for i, k in enumerate(keys)}
    width = len(keys)

    def moves(
        seq_ok: bool,
    ) -> tuple[NDArray[np.int_], NDArray[np.int_], NDArray[np.intp], NDArray[np.int_]]:
        mv: list[tuple[int, int, int]] = []
        for j, (a, b, m, h) in enumerate(keys):
            for s in range(5 - m) if seq_ok else (0,):
                for t in (0, 1):
                    if m + s + t > 4:
                        continue
                    for p in (0, 1) if not h else (0,):
                        need = a + b + s + 3 * t + 2 * p
                        if need <= 4:
                            mv.append((index[(s, a, m + s + t, h | p)], j, need))
        mv.sort()
        o = np.array([x[0] for x in mv])
        starts = np.flatnonzero(np.r_[True, o[1:] != o[:-1]])
        return np.array([x[1] for x in mv]), np.array([x[2] for x in mv]), starts, o[starts]

    states = np.full((1, width), _INF, dtype=np.int8)
    states[0, index[(0, 0, 0, 0)]] = 0
    trans: list[NDArray[np.intp]] = []
    for i in range(n):
        src, need, starts, outs = moves(sequences and i + 2 < n)
        count = states.shape[0]
        nxt = np.full((5, count, width), _INF, dtype=np.int8)
        gathered = states[:, src]
        for x in range(5):
            cost = gathered + np.maximum(need - x, 0).astype(np.int8)
            nxt[x][:, outs] = np.minimum(np.minimum.reduceat(cost, starts, axis=1), _INF)
        states, inverse = _unique_rows(nxt.reshape(5 * count, width))
        trans.append(inverse.reshape(5, count).T)
    cols = [index[(0, 0, m, h)] for h in (0, 1) for m in range(5)]
    vectors, cls = _unique_rows(states[:, cols])
    # Minimise backwards: states are equal when their successors are.
    levels = []
    for i in range(n - 1, -1, -1):
        rows, cls = _unique_rows(cls[trans[i]].astype(np.int32))
        levels.append(rows)
    levels.reverse()
    assert len(levels[0]) == 1
    offsets = [0]
    for rows in levels:
        offsets.append(offsets[-1] + len(rows))
    flat = [0] * (5 * offsets[n])
    for i, rows in enumerate(levels):
        last = i == n - 1
        for c, row in enumerate(rows.tolist()):
            base = 5 * (offsets[i] + c)
            for x, nxt_cls in enumerate(row):
                flat[base + x] = nxt_cls if last else 5 * (offsets[i + 1] + nxt_cls)
    return flat, vectors


def _combine(a: NDArray[Any], b: NDArray[Any]) -> NDArray[np.int16]:
    """Min-plus product of cost vectors: every row of ``a`` with every row of ``b``."""
    import numpy as np

    out = np.full((len(a), len(b), 10), _INF, dtype=np.int16)
    a = a.astype(np.int16)
    b = b.astype(np.int16)
    for h1 in (0, 1):
        for m1 in range(5):
            for h2 in (0, 1) if not h1 else (0,):
                for m2 in range(5 - m1):
                    k = (h1 | h2) * 5 + m1 + m2
                    np.minimum(
                        out[:, :, k],
                        a[:, None, h1 * 5 + m1] + b[None, :, h2 * 5 + m2],
                        out=out[:, :, k],
                    )
    return out.reshape(len(a) * len(b), 10)


def _id_table(flat: list[int], n: int) -> bytes:
    """Every ``n``-kind suit's id, read through the automaton ``flat`` all at once
    (rank by rank, every count 0..4), indexed by the counts as a base-5 number:
    one lookup where the walk takes ``n``. ``tests/core/test_ukeire_memo.py`` holds it
    to the walk.

    >>> t = shanten_tables()
    >>> def walk(counts):
    ...     s = 0
    ...     for x in counts:
    ...         s = t.suit[s + x]
    ...     return s
    >>> c = [1, 1, 1, 0, 0, 0, 0, 0, 2]
    >>> t.suit_ids[int("".join(map(str, c)), 5)] == walk(c)
    True
    """
    import numpy as np

    steps = np.asarray(flat, dtype=np.int32)
    s = np.zeros(1, dtype=np.int32)
    for _ in range(n):
        s = steps[(s[:, None] + np.arange(5, dtype=np.int32)[None, :]).ravel()]
    assert int(s.max()) < 256
    return s.astype(np.uint8).tobytes()


@cache
def tables() -> ShantenTables:
    """The process's shanten tables, built on first use (:func:`shanten_tables`)."""
    return shanten_tables()


def shanten_tables() -> ShantenTables:
    """Build the shanten tables (numpy is needed only here); :func:`tables` keeps
    one copy per process.

    >>> t = shanten_tables()
    >>> len(t.suit) // 5, t.n_suit, len(t.honor) // 5, t.n_honor, len(t.final) // (5 * t.n_honor)
    (4481, 126, 180, 55, 180)
    >>> def vector(counts):
    ...     s = 0
    ...     for x in counts:
    ...         s = t.suit[s + x]
    ...     return t.suit_vectors[s]
    >>> vector([0] * 9)  # h*5 + m: 3 tiles a meld, 2 the pair
    (0, 3, 6, 9, 12, 2, 5, 8, 11, 14)
    >>> vector([1, 1, 1, 0, 0, 0, 0, 0, 2])
    (0, 0, 1, 4, 7, 0, 0, 3, 6, 9)
    >>> def ident(counts, steps):  # a suit's id: its counts read through the automaton
    ...     s = 0
    ...     for x in counts:
    ...         s = steps[s + x]
    ...     return s
    >>> e, z = ident([0] * 9, t.suit), ident([0] * 7, t.honor)
    >>> t.combine(e, e, e, z, 4), t.combine(ident([1, 1, 1, 0, 0, 0, 0, 0, 2], t.suit), e, e, z, 3)
    (1, -1)
    """
    suit, dv = _automaton(9, True)
    honor, zv = _automaton(7, False)
    g1, pair12 = _unique_rows(_combine(dv, dv))
    g2, add3 = _unique_rows(_combine(g1, dv))
    whole = _combine(g2, zv)  # (len(g2) * len(zv), 10)
    final = (whole[:, [9, 8, 7, 6, 5]] - 1).ravel()  # h=1, m = 4 - melds
    return ShantenTables(
        suit=suit,
        honor=honor,
        n_suit=len(dv),
        n_honor=len(zv),
        pair12=pair12.tolist(),
        add3=add3.tolist(),
        final=final.tolist(),
        suit_vectors=[tuple(r) for r in dv.tolist()],
        honor_vectors=[tuple(r) for r in zv.tolist()],
        suit_ids=_id_table(suit, 9),
        honor_ids=_id_table(honor, 7),
    )
