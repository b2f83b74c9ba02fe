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


#: a rank's place value in a suit pattern's base-5 number (typed: ``int ** int``
#: reads as Any, which a compiled build would do in generic arithmetic)
_PLACE: dict[int, tuple[int, ...]] = {n: tuple(5 ** (n - 1 - r) for r in range(n)) for n in (7, 9)}


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
    # discard leaves alone are joined once; a suit's id with a copy fewer is one
    # lookup in the id tables (its pattern's base-5 number less the rank's place)
    T = tables()
    pair12, add3, final, n, nh5 = T.pair12, T.add3, T.final, T.n_suit, T.n_honor * 5
    sids, hids, place9, place7 = T.suit_ids, T.honor_ids, _PLACE[9], _PLACE[7]
    b = bytes(counts)
    digits = b.translate(_DIGIT)
    im, ip, js, jz = (
        int(digits[0:9], 5),
        int(digits[9:18], 5),
        int(digits[18:27], 5),
        int(digits[27:34], 5),
    )
    dm, dp, ds, dz = sids[im], sids[ip], sids[js], hids[jz]
    tail = dz * 5 + melds
    g12 = pair12[dm * n + dp] * n
    g = add3[g12 + ds] * nh5 + melds
    out: dict[int, int] = {}
    for r in range(9):
        if b[r]:
            x = sids[im - place9[r]]
            out[r] = final[add3[pair12[x * n + dp] * n + ds] * nh5 + tail]
    for r in range(9):
        if b[9 + r]:
            x = sids[ip - place9[r]]
            out[9 + r] = final[add3[pair12[dm * n + x] * n + ds] * nh5 + tail]
    for r in range(9):
        if b[18 + r]:
            out[18 + r] = final[add3[g12 + sids[js - place9[r]]] * nh5 + tail]
    for r in range(7):
        if b[27 + r]:
            out[27 + r] = final[g + hids[jz - place7[r]] * 5]
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


def _near_of_mask(mask: int, n: int) -> tuple[int, ...]:
    """The ranks :func:`near_in` reads of a suit of ``n`` kinds whose held ranks are
    the bits of ``mask`` (a number suit: within two of a held rank; honors: held)."""
    if n == 7:
        return tuple(r for r in range(7) if mask >> r & 1)
    near = mask | mask << 1 | mask << 2 | mask >> 1 | mask >> 2
    return tuple(r for r in range(9) if near >> r & 1)


#: :func:`near_in` from rank 0 of every held-ranks mask, per suit length (a table:
#: what a suit can take depends on which ranks it holds, not how many copies)
_NEAR = {n: tuple(_near_of_mask(m, n) for m in range(1 << n)) for n in (7, 9)}


#: ``bytes.translate`` tables of the counts 0..4: as base-5 digits, and as held or not
_DIGIT = bytes(range(48, 53)).ljust(256, b"?")
_HELD = b"01111".ljust(256, b"?")

#: What :func:`accept_after` reads of a hand once (:func:`_held`).
_Held = tuple[bytes, list[int], list[int], int, int, bool]


def _held(counts: Sequence[int], melds: int) -> _Held:
    """What :func:`accept_after` reads of the hand once, whatever the discard: its
    counts; per suit its pattern's number in the id tables (base 5, rank 1 the most
    significant digit: :func:`_reads`) and the mask of its held ranks; the tiles,
    the pairs, and whether the hand is short of tiles."""
    b = bytes(counts)
    d = b.translate(_DIGIT)  # the counts as digits, read by int() in C
    index = [int(d[0:9], 5), int(d[9:18], 5), int(d[18:27], 5), int(d[27:34], 5)]
    h = b.translate(_HELD)[::-1]  # a held kind's bit, rank 1 the least significant
    masks = [int(h[25:34], 2), int(h[16:25], 2), int(h[7:16], 2), int(h[0:7], 2)]
    tiles = sum(b)
    # a new isolated kind helps neither form, unless the hand is short of tiles
    # (void tiles taken out): then any tile can fill a gap
    short = tiles - 1 + 3 * melds < 13
    pairs = (tiles - b.count(1) - b.count(3)) // 2  # Σ count // 2
    return b, index, masks, tiles, pairs, short


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
    order), and the other suits' count is shared by the discards that leave the
    same id in their own suit. Each suit's id, and its id with a copy more of a
    rank, is one lookup in the id tables (the pattern's base-5 number, moved by
    the rank's place value), and the ranks tried one lookup by the held ranks'
    mask: nothing is cached per suit pattern. ``tests/core/test_ukeire_memo.py``
    holds it to :func:`accept`.

    >>> from mjlog.tiles import parse_counts, parse_tile
    >>> h = parse_counts("123m456p789s11223z")
    >>> accept_after(h, 0, [4 - x for x in h], [parse_tile("3z"), parse_tile("1z")])
    [4, 7]
    """
    T = tables()
    pair12, add3, final, n, nh5 = T.pair12, T.add3, T.final, T.n_suit, T.n_honor * 5
    suit_ids, honor_ids = T.suit_ids, T.honor_ids
    place9, place7 = _PLACE[9], _PLACE[7]
    near9, near7 = _NEAR[9], _NEAR[7]
    b, index, masks, tiles, pairs, short = _held(counts, melds)
    # a list, read by index per tile tried (compiled: the list's own fast path)
    un = unseen if isinstance(unseen, list) else list(unseen)
    ids = [suit_ids[index[0]], suit_ids[index[1]], suit_ids[index[2]], honor_ids[index[3]]]
    # per suit: its id table, its ranks' place values, the ranks tried per held mask
    # (every rank when the hand is short of tiles)
    # (lists with their types named: a compiled build reads a tuple of mixed
    # types, indexed by a variable, as an object, and its arithmetic as generic)
    uids_of: list[bytes] = [suit_ids, suit_ids, suit_ids, honor_ids]
    place_of: list[tuple[int, ...]] = [place9, place9, place9, place7]
    all9, all7 = (tuple(range(9)),) * 512, (tuple(range(7)),) * 128
    near_of: list[tuple[tuple[int, ...], ...]] = (
        [all9, all9, all9, all7] if short else [near9, near9, near9, near7]
    )
    # seven pairs after the discard, per the parity of the copies it leaves: the
    # hand's shanten, and with a copy more of a kind held odd / even times
    # (a copy fewer: a pair fewer when even); out of reach with melds
    sevens: list[tuple[int, int, int]] = [(99, 99, 99), (99, 99, 99)]
    if melds == 0:
        for par in (0, 1):
            p, tl = pairs - (not par), tiles - 1
            sevens[par] = (
                seven_pairs_shanten(p, tl),
                seven_pairs_shanten(p + 1, tl + 1),
                seven_pairs_shanten(p, tl + 1),
            )
    # the other three suits' count per (the discard's suit, its id after the
    # discard, the parity of the copies it leaves): they read nothing else
    done: dict[int, int] = {}
    out = []
    for dk in kinds:
        s = dk // 9 if dk < 27 else 3
        r = dk - 9 * s
        assert b[dk] > 0, "a discard must be held"
        i = ids[:]
        # the discard's suit with a copy fewer: its number, its id, its held ranks
        j = index[s] - place_of[s][r]
        i[s] = ds = uids_of[s][j]
        own_mask = masks[s] & ~(1 << r) if b[dk] == 1 else masks[s]
        i0, i1, i2, i3 = i
        g12 = pair12[i0 * n + i1]
        tail = i3 * 5 + melds
        gz = add3[g12 * n + i2] * nh5 + melds
        best = final[gz + i3 * 5]
        par = b[dk] & 1
        base7, odd7, even7 = sevens[par]
        if base7 < best:
            best = base7
        memo = (ds * 4 + s) * 2 + par
        rest = done.get(memo)
        parts = [0, 0, 0, 0]
        for u in (s,) if rest is not None else (0, 1, 2, 3):
            base = j if u == s else index[u]
            uids, place = uids_of[u], place_of[u]
            first = 9 * u
            part = 0
            for q in near_of[u][own_mask if u == s else masks[u]]:
                t = first + q
                w = un[t]
                if w <= 0:
                    continue
                c = b[t] - (t == dk)  # held after the discard
                if c >= 4:
                    continue  # a fifth copy: no such hand
                x = uids[base + place[q]]
                if u == 0:
                    v = final[add3[pair12[x * n + i1] * n + i2] * nh5 + tail]
                elif u == 1:
                    v = final[add3[pair12[i0 * n + x] * n + i2] * nh5 + tail]
                elif u == 2:
                    v = final[add3[g12 * n + x] * nh5 + tail]
                else:
                    v = final[gz + x * 5]
                v7 = odd7 if c & 1 else even7
                if v7 < v:
                    v = v7
                if v < best:
                    part += w
            parts[u] = part
        if rest is None:
            done[memo] = rest = sum(parts) - parts[s]
        out.append(parts[s] + rest)
    return out
