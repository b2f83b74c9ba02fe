"""Tile acceptance (受け入れ / 进张): which unseen tiles lower a hand's shanten.

Built on the shanten automaton of :mod:`mjlog.hand`: a tile changes one suit
only, so each candidate takes that suit's id with one copy more (or fewer),
worked out once per suit pattern, and the tables' one combine step joins it
with the other three suits' ids, instead of recomputing the whole hand.
Seven pairs is :func:`mjlog.hand.seven_pairs_shanten`.

>>> from mjlog.tiles import parse_counts, fmt
>>> h = parse_counts("123m456p789s1122z")
>>> sh, n, kinds = accept(h, 0, [4 - x for x in h])
>>> sh, fmt(kinds), n
(0, '12z', 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from mjlog._hand_tables import tables
from mjlog.hand import seven_pairs_shanten


def _reads_walk(key: bytes, delta: int) -> tuple[int, tuple[int, ...]]:
    """One suit's counts (9 bytes; 7 for honors) read through the automaton: its
    id, and per rank the id with ``delta`` (±1) copies of that rank, -1 where
    there is none (no copy to take, or four held already). The reference
    :func:`_reads` is held to."""
    steps = tables().suit if len(key) == 9 else tables().honor
    prefix = [0]  # the automaton's state after each rank
    for x in key:
        prefix.append(steps[prefix[-1] + x])
    out = []
    for r, x in enumerate(key):
        y = x + delta
        if not 0 <= y <= 4:
            out.append(-1)
            continue
        s = steps[prefix[r] + y]
        for z in key[r + 1 :]:
            s = steps[s + z]
        out.append(s)
    return prefix[-1], tuple(out)


_PLACE = {n: tuple(5 ** (n - 1 - r) for r in range(n)) for n in (7, 9)}


def _reads(key: bytes, delta: int) -> tuple[int, tuple[int, ...]]:
    """:func:`_reads_walk` from the tables' id of every suit pattern (a suit's
    counts as a base-5 number): a copy more or fewer of a rank moves the number
    by that rank's place value."""
    ids = tables().suit_ids if len(key) == 9 else tables().honor_ids
    i = 0
    for x in key:
        i = i * 5 + x
    return ids[i], tuple(
        ids[i + delta * w] if 0 <= x + delta <= 4 else -1
        for x, w in zip(key, _PLACE[len(key)], strict=True)
    )


# Worked out once per suit pattern (hands change a tile at a time).
_fewer = lru_cache(maxsize=1 << 15)(lambda key: _reads(key, -1))
_more = lru_cache(maxsize=1 << 15)(lambda key: _reads(key, 1))


@lru_cache(maxsize=1 << 15)
def near_in(key: bytes, first: int) -> tuple[int, ...]:
    """The kinds of one suit (counts ``key``, its first kind ``first``) that can
    lower standard shanten: held, or (number suits) within two of a held rank.

    >>> near_in(bytes([0, 0, 0, 1, 0, 0, 0, 0, 2]), 9)
    (10, 11, 12, 13, 14, 15, 16, 17)
    """
    if len(key) == 7:
        return tuple(first + r for r, x in enumerate(key) if x)
    held = 0
    for r, x in enumerate(key):
        if x:
            held |= 1 << r
    near = held | held << 1 | held << 2 | held >> 1 | held >> 2
    return tuple(first + r for r in range(9) if near >> r & 1)


def _near_in_plain(key: bytes, first: int) -> tuple[int, ...]:
    """:func:`near_in` as the rule reads, the reference its bit mask is held to."""
    if len(key) == 7:
        return tuple(first + r for r, x in enumerate(key) if x)
    return tuple(
        first + r
        for r in range(9)
        if key[r] or any(key[q] for q in range(max(0, r - 2), min(9, r + 3)))
    )


def _near(b: bytes) -> tuple[int, ...]:
    """Kinds that can lower standard shanten, in order: held, or within two of a
    held suit tile (per suit, worked out once per suit pattern)."""
    return near_in(b[0:9], 0) + near_in(b[9:18], 9) + near_in(b[18:27], 18) + near_in(b[27:34], 27)


def accept(
    counts: Sequence[int],
    melds: int,
    unseen: Sequence[int],
    candidates: Sequence[int] | None = None,
) -> tuple[int, int, list[int]]:
    """(shanten, number of unseen tiles that lower it, those kinds), for a hand of
    ``13 - 3*melds`` tiles. Seven pairs counts when ``melds == 0``.
    ``candidates`` limits the kinds tried (default: every kind with unseen copies).
    """
    combine = tables().combine
    b = bytes(counts)
    dm, mm = _more(b[0:9])
    dp, mp = _more(b[9:18])
    ds, ms = _more(b[18:27])
    dz, mz = _more(b[27:34])
    best = combine(dm, dp, ds, dz, melds)
    seven = melds == 0
    if seven:
        tiles = sum(b)  # short of 13: void tiles taken out
        pairs = (tiles - b.count(1) - b.count(3)) // 2  # Σ count // 2
        base7 = seven_pairs_shanten(pairs, tiles)
        if base7 < best:
            best = base7
        # a tile more: a pair more when the kind was held an odd number of times
        odd7 = seven_pairs_shanten(pairs + 1, tiles + 1)
        even7 = seven_pairs_shanten(pairs, tiles + 1)
    got: list[int] = []
    total = 0
    if candidates is None:
        # a new isolated kind helps neither form, unless the hand is short of tiles
        # (void tiles taken out): then any tile can fill a gap
        short = sum(b) + 3 * melds < 13
        candidates = range(34) if short else _near(b)
    for t in candidates:
        u = unseen[t]
        if u <= 0 or b[t] >= 4:
            continue
        if t < 9:
            v = combine(mm[t], dp, ds, dz, melds)
        elif t < 18:
            v = combine(dm, mp[t - 9], ds, dz, melds)
        elif t < 27:
            v = combine(dm, dp, ms[t - 18], dz, melds)
        else:
            v = combine(dm, dp, ds, mz[t - 27], melds)
        if seven:
            v7 = odd7 if b[t] & 1 else even7
            if v7 < v:
                v = v7
        if v < best:
            got.append(t)
            total += u
    return best, total, got


def after_discards(counts: Sequence[int], melds: int) -> dict[int, int]:
    """Shanten after discarding each kind held, for a hand of ``14 - 3*melds`` tiles.

    >>> from mjlog.tiles import parse_counts, parse_tile
    >>> r = after_discards(parse_counts("123m456p789s11223z"), 0)
    >>> r[parse_tile("3z")], r[parse_tile("1m")]
    (0, 1)
    """
    # combine's lookups unrolled (the same tables, the same order): the suits a
    # discard leaves alone are joined once
    T = tables()
    pair12, add3, final, n, nh5 = T.pair12, T.add3, T.final, T.n_suit, T.n_honor * 5
    b = bytes(counts)
    dm, fm = _fewer(b[0:9])
    dp, fp = _fewer(b[9:18])
    ds, fs = _fewer(b[18:27])
    dz, fz = _fewer(b[27:34])
    tail = dz * 5 + melds
    g12 = pair12[dm * n + dp] * n
    g = add3[g12 + ds] * nh5 + melds
    out: dict[int, int] = {}
    for r, x in enumerate(fm):
        if x >= 0:
            out[r] = final[add3[pair12[x * n + dp] * n + ds] * nh5 + tail]
    for r, x in enumerate(fp):
        if x >= 0:
            out[9 + r] = final[add3[pair12[dm * n + x] * n + ds] * nh5 + tail]
    for r, x in enumerate(fs):
        if x >= 0:
            out[18 + r] = final[add3[g12 + x] * nh5 + tail]
    for r, x in enumerate(fz):
        if x >= 0:
            out[27 + r] = final[g + x * 5]
    if melds == 0:
        tiles = sum(b)
        pairs = (tiles - b.count(1) - b.count(3)) // 2  # Σ count // 2
        # a tile fewer: a pair fewer when the kind was held an even number of times
        even7 = seven_pairs_shanten(pairs - 1, tiles - 1)
        odd7 = seven_pairs_shanten(pairs, tiles - 1)
        for t, v in out.items():
            v7 = odd7 if b[t] & 1 else even7
            if v7 < v:
                out[t] = v7
    return out


@lru_cache(maxsize=1 << 15)
def _less_one(key: bytes) -> tuple[tuple[int, tuple[int, ...], tuple[int, ...]] | None, ...]:
    """Per rank of one suit's counts: None where none is held, else, for the suit
    with one copy of that rank fewer, what :func:`accept` reads of it: its id and
    per-rank ids with one copy more (:func:`_more`, here from the id table
    directly), and its near ranks (:func:`near_in`, from rank 0)."""
    ids = tables().suit_ids if len(key) == 9 else tables().honor_ids
    place = _PLACE[len(key)]
    i = 0
    for x in key:
        i = i * 5 + x
    out: list[tuple[int, tuple[int, ...], tuple[int, ...]] | None] = []
    for r, x in enumerate(key):
        if not x:
            out.append(None)
            continue
        k = key[:r] + bytes((x - 1,)) + key[r + 1 :]
        j = i - place[r]
        more = tuple(ids[j + w] if y < 4 else -1 for y, w in zip(k, place, strict=True))
        out.append((ids[j], more, near_in(k, 0)))
    return tuple(out)


#: What :func:`accept_after` reads of a hand once (:func:`_held`).
_Held = tuple[
    bytes,
    tuple[bytes, ...],
    list[tuple[int, tuple[int, ...]]],
    list[tuple[int, ...]],
    int,
    int,
    bool,
]


def _held(counts: Sequence[int], melds: int) -> _Held:
    """What :func:`accept_after` reads of the hand once, whatever the discard: its
    counts, per suit the counts' key, its reading (:func:`_more`) and its near ranks;
    the tiles, the pairs, and whether the hand is short of tiles."""
    b = bytes(counts)
    keys = (b[0:9], b[9:18], b[18:27], b[27:34])
    tiles = sum(b)
    # a new isolated kind helps neither form, unless the hand is short of tiles
    # (void tiles taken out): then any tile can fill a gap
    short = tiles - 1 + 3 * melds < 13
    nears = [tuple(range(len(k))) if short else near_in(k, 0) for k in keys]
    pairs = (tiles - b.count(1) - b.count(3)) // 2  # Σ count // 2
    return b, keys, [_more(k) for k in keys], nears, tiles, pairs, short


# The hot kernel, unrolled for speed and held to accept() by
# tests/core/test_ukeire_memo.py: the per-call reading is in _held (one call), the
# per-suit loop stays inline (a call per suit and discard would cost ~15 %).
def accept_after(
    counts: Sequence[int], melds: int, unseen: Sequence[int], kinds: Sequence[int]
) -> list[int]:
    """Per kind ``d`` of ``kinds`` (each held), ``accept(counts - d, melds,
    unseen)[1]``: the number of unseen tiles that lower the shanten of the hand
    after discarding ``d``, for a hand of ``14 - 3*melds`` tiles (fewer when void
    tiles are taken out).

    All discards at once: the suits a discard leaves alone are read once, the
    combine step is unrolled over its tables (the same lookups, in the same
    order), and a suit's count is shared by the discards that leave the other
    suits with the same ids. ``tests/core/test_ukeire_memo.py`` holds it to
    :func:`accept`.

    >>> from mjlog.tiles import parse_counts, parse_tile
    >>> h = parse_counts("123m456p789s11223z")
    >>> accept_after(h, 0, [4 - x for x in h], [parse_tile("3z"), parse_tile("1z")])
    [4, 7]
    """
    T = tables()
    pair12, add3, final, n, nh5 = T.pair12, T.add3, T.final, T.n_suit, T.n_honor * 5
    b, keys, reads, nears, tiles, pairs, short = _held(counts, melds)
    ids = [r[0] for r in reads]
    seven = melds == 0
    done: dict[tuple[int, int, int, int], int] = {}  # (suit, discard's suit, its id, parity)
    out = []
    for dk in kinds:
        s = dk // 9 if dk < 27 else 3
        sub = _less_one(keys[s])[dk - 9 * s]
        assert sub is not None, "a discard must be held"
        ds, more_s, near_s = sub
        i = ids[:]
        i[s] = ds
        i0, i1, i2, i3 = i
        g12 = pair12[i0 * n + i1]
        tail = i3 * 5 + melds
        gz = add3[g12 * n + i2] * nh5 + melds
        best = final[gz + i3 * 5]
        par = b[dk] & 1
        odd7 = even7 = 99
        if seven:
            p, tl = pairs - (not par), tiles - 1  # a copy fewer: a pair fewer when even
            base7 = seven_pairs_shanten(p, tl)
            if base7 < best:
                best = base7
            odd7 = seven_pairs_shanten(p + 1, tl + 1)
            even7 = seven_pairs_shanten(p, tl + 1)
        total = 0
        for u in range(4):
            # stored for u == s too (never read there: a discard's own suit is its own)
            memo = (u, s, ds, par)
            if u == s:
                more, near = more_s, (nears[u] if short else near_s)
            else:
                got = done.get(memo)
                if got is not None:
                    total += got
                    continue
                more, near = reads[u][1], nears[u]
            first = 9 * u
            part = 0
            for q in near:
                x = more[q]
                t = first + q
                w = unseen[t]
                if x < 0 or w <= 0:
                    continue
                if u == 0:
                    v = final[add3[pair12[x * n + i1] * n + i2] * nh5 + tail]
                elif u == 1:
                    v = final[add3[pair12[i0 * n + x] * n + i2] * nh5 + tail]
                elif u == 2:
                    v = final[add3[g12 * n + x] * nh5 + tail]
                else:
                    v = final[gz + x * 5]
                if seven:
                    v7 = odd7 if (b[t] - (t == dk)) & 1 else even7
                    if v7 < v:
                        v = v7
                if v < best:
                    part += w
            done[memo] = part
            total += part
        out.append(total)
    return out
