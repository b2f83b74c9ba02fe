"""Tile acceptance (受け入れ / 进张): which unseen tiles lower a hand's shanten.

Built on the shanten automaton of :mod:`mjlog.hand`: a tile changes one suit
only, so each candidate re-reads that suit (9 table steps) and recombines it
with the other three, instead of recomputing the whole hand.

>>> from mjlog.tiles import parse_counts, fmt
>>> h = parse_counts("123m456p789s1122z")
>>> sh, n, kinds = accept(h, 0, [4 - x for x in h])
>>> sh, fmt(kinds), n
(0, '12z', 4)
"""

from __future__ import annotations

from collections.abc import Sequence

from mjlog._hand_tables import shanten_tables

_T = None


def _tables():
    global _T
    if _T is None:
        _T = shanten_tables()
    return _T


_IDS: dict[bytes, int] = {}    # suit counts → automaton id, memoised (few distinct)
_IDS_Z: dict[bytes, int] = {}


def _suit_id(S, c, a: int, n: int) -> int:
    memo = _IDS_Z if n == 7 else _IDS
    key = bytes(c[a:a + n])
    v = memo.get(key)
    if v is None:
        v = 0
        for x in key:
            v = S[v + x]
        memo[key] = v
    return v


def _read(T, c: list[int]) -> tuple[int, int, int, int, int, int]:
    """Each suit's automaton id, and the m+p and m+p+s combinations."""
    S, ns = T.suit, T.n_suit
    dm = _suit_id(S, c, 0, 9)
    dp = _suit_id(S, c, 9, 9)
    ds = _suit_id(S, c, 18, 9)
    dz = _suit_id(T.honor, c, 27, 7)
    p12 = T.pair12[dm * ns + dp]
    return dm, dp, ds, dz, p12, T.add3[p12 * ns + ds]


def _seven(pairs: int, tiles: int) -> int:
    """Seven-pairs shanten as RULES.md reads it (a four is two pairs), for any size."""
    short = 7 + pairs - tiles
    return 6 - pairs + (short if short > 0 else 0)


def _near(c: Sequence[int]) -> list[int]:
    """Kinds that can lower standard shanten: held, or within two of a held suit tile."""
    out = []
    for t in range(34):
        if c[t]:
            out.append(t)
        elif t < 27:
            r = t % 9
            if (r > 0 and c[t - 1]) or (r < 8 and c[t + 1]) or (r > 1 and c[t - 2]) or (
                    r < 7 and c[t + 2]):
                out.append(t)
    return out


def accept(counts: Sequence[int], melds: int, unseen: Sequence[int],
           candidates: Sequence[int] | None = None) -> tuple[int, int, list[int]]:
    """(shanten, number of unseen tiles that lower it, those kinds), for a hand of
    ``13 - 3*melds`` tiles. Seven pairs counts when ``melds == 0``.
    ``candidates`` limits the kinds tried (default: every kind with unseen copies).
    """
    T = _tables()
    S, Z, ns, nh = T.suit, T.honor, T.n_suit, T.n_honor
    pair12, add3, final = T.pair12, T.add3, T.final
    c = list(counts)
    dm, dp, ds, dz, p12, g = _read(T, c)
    base = final[(g * nh + dz) * 5 + melds]
    # seven pairs as RULES.md reads it: a four is two pairs, shanten 6 - sum(c // 2)
    seven = melds == 0
    if seven:
        pairs = sum(x // 2 for x in c)
        tiles = sum(c)  # short of 13 when void tiles were taken out
        base7 = _seven(pairs, tiles)
        best = base7 if base7 < base else base
    else:
        best = base
    got: list[int] = []
    total = 0
    if candidates is None:
        # a new isolated kind helps neither form, unless the hand is short of tiles
        # (void tiles taken out): then any tile can fill a gap
        short = sum(c) + 3 * melds < 13
        candidates = range(34) if short else _near(c)
    for t in candidates:
        u = unseen[t]
        if u <= 0 or c[t] >= 4:
            continue
        c[t] += 1
        if t < 9:
            v = final[(add3[pair12[_suit_id(S, c, 0, 9) * ns + dp] * ns + ds] * nh + dz) * 5
                      + melds]
        elif t < 18:
            v = final[(add3[pair12[dm * ns + _suit_id(S, c, 9, 9)] * ns + ds] * nh + dz) * 5
                      + melds]
        elif t < 27:
            v = final[(add3[p12 * ns + _suit_id(S, c, 18, 9)] * nh + dz) * 5 + melds]
        else:
            v = final[(g * nh + _suit_id(Z, c, 27, 7)) * 5 + melds]
        if seven:
            v7 = _seven(pairs + (c[t] % 2 == 0), tiles + 1)
            if v7 < v:
                v = v7
        c[t] -= 1
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
    T = _tables()
    S, Z, ns, nh = T.suit, T.honor, T.n_suit, T.n_honor
    pair12, add3, final = T.pair12, T.add3, T.final
    c = list(counts)
    dm, dp, ds, dz, p12, g = _read(T, c)
    seven = melds == 0
    if seven:
        pairs = sum(x // 2 for x in c)
        tiles = sum(c)
    out: dict[int, int] = {}
    for t in range(34):
        if not c[t]:
            continue
        c[t] -= 1
        if t < 9:
            v = final[(add3[pair12[_suit_id(S, c, 0, 9) * ns + dp] * ns + ds] * nh + dz) * 5
                      + melds]
        elif t < 18:
            v = final[(add3[pair12[dm * ns + _suit_id(S, c, 9, 9)] * ns + ds] * nh + dz) * 5
                      + melds]
        elif t < 27:
            v = final[(add3[p12 * ns + _suit_id(S, c, 18, 9)] * nh + dz) * 5 + melds]
        else:
            v = final[(g * nh + _suit_id(Z, c, 27, 7)) * 5 + melds]
        if seven:  # c[t] is after the discard: it broke a pair when it is now odd
            v7 = _seven(pairs - (c[t] % 2), tiles - 1)
            if v7 < v:
                v = v7
        c[t] += 1
        out[t] = v
    return out
