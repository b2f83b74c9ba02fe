"""Hand shapes on 34-count lists: decompositions, wins, waits and shanten.

A hand is a list of 34 counts (see :mod:`mjlog.tiles`) holding the *concealed*
tiles; ``melds`` is the number of exposed melds (pons and kongs, each counting
as one triplet), so a complete hand has ``14 - 3 * melds`` concealed tiles.

Winning shapes (RULES.md §1): four melds (sequences of one suit, or triplets;
honors never form sequences) and a pair, counting the exposed melds; or seven
pairs with no melds, a four of a kind counting as two pairs.

>>> from mjlog.tiles import parse_counts, parse, fmt
>>> is_win(parse_counts("11123456789999m"))
True
>>> fmt(waits(parse_counts("1112345678999m")))
'123456789m'
>>> shanten(parse_counts("123m456p789s1122z")), shanten(parse_counts("1133557799m1p2p3z"))
(0, 1)

Everything is table driven: each suit's nine counts (seven for honors) are a
``bytes`` key into tables built once at import, so a win check is at most four
slices and four dictionary lookups. See :func:`shanten` for how it is defined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

__all__ = [
    "Decomposition",
    "decompositions",
    "is_win",
    "is_standard_win",
    "is_seven_pairs",
    "waits",
    "shanten",
    "shanten_standard",
    "shanten_seven_pairs",
    "IMPOSSIBLE",
]

IMPOSSIBLE = 99
"""Shanten of a shape the hand cannot reach (seven pairs with exposed melds)."""

_SUIT_SLICES = ((0, 9), (9, 18), (18, 27), (27, 34))


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One way to read a complete hand.

    ``kind`` is ``"standard"`` or ``"seven_pairs"``. For a standard hand, ``pair``
    is the pair's kind and ``sets`` the *concealed* melds, each ``("seq", first
    kind)`` or ``("trip", kind)``, sorted (``sorted()`` order: sequences first);
    exposed melds are not listed. For seven pairs, ``pair`` is None, ``sets`` is
    empty and ``pairs`` holds the seven pair kinds sorted, a four listed twice.

    >>> from mjlog.tiles import parse_counts
    >>> d = decompositions(parse_counts("11122233344455m"))[-1]
    >>> d.kind, d.pair, d.sets
    ('standard', 4, (('trip', 0), ('trip', 1), ('trip', 2), ('trip', 3)))
    """

    kind: str
    pair: int | None
    sets: tuple[tuple[str, int], ...]
    pairs: tuple[int, ...] = ()


# ---------------------------------------------------------------- tables
#
# _WIN maps a suited suit's 9 counts (bytes) to a packed int, for every pattern
# that is a complete standard suit (melds, or melds and one pair) or all even
# (0, 2 or 4 copies: usable by seven pairs); _WIN_Z does the same for honors.
# Fields are packed so that the four suits' values can simply be added:
#   bits 0-2  pair (1 if the suit is standard-complete with a pair)
#   bits 4-6  standard-complete (1)
#   bits 8-10 all even (1)
#   bits 12-  number of tiles
# A hand is a standard win iff the sum has pair 1, standard 4 and 14 - 3m tiles;
# seven pairs iff even 4 and 14 tiles (and no melds). A suit in neither table
# makes the hand no win at all, which is the common early exit.
_F_PAIR = 0x1
_F_STD = 0x10
_F_EVEN = 0x100
_TILES_SHIFT = 12
_MASK_STD = ~0x700
_MASK_7P = ~0x077
_TARGET_7P = (14 << _TILES_SHIFT) | (4 * _F_EVEN)
_TARGET_STD = tuple(((14 - 3 * m) << _TILES_SHIFT) | _F_PAIR | 4 * _F_STD for m in range(5))


def _complete_patterns(n: int, sequences: bool) -> dict[bytes, int]:
    """Every complete pattern of an ``n``-kind suit: up to 4 melds and at most one
    pair, counts <= 4. Value: 1 if it holds the pair, else 0."""
    melds = [tuple(3 if j == i else 0 for j in range(n)) for i in range(n)]
    if sequences:
        melds += [tuple(1 if i <= j < i + 3 else 0 for j in range(n)) for i in range(n - 2)]
    out: dict[bytes, int] = {}
    stack: list[tuple[tuple[int, ...], int, int]] = [((0,) * n, 0, 0)]
    while stack:
        c, start, k = stack.pop()
        out[bytes(c)] = 0
        if k < 4:
            for mi in range(start, len(melds)):
                nc = tuple(a + b for a, b in zip(c, melds[mi], strict=True))
                if max(nc) <= 4:
                    stack.append((nc, mi, k + 1))
    with_pair = {}
    for key in out:
        for r in range(n):
            if key[r] <= 2:
                k2 = bytearray(key)
                k2[r] += 2
                with_pair[bytes(k2)] = 1
    out.update(with_pair)
    return out


def _win_table(n: int, sequences: bool) -> dict[bytes, int]:
    table: dict[bytes, int] = {}
    for key, pair in _complete_patterns(n, sequences).items():
        table[key] = (sum(key) << _TILES_SHIFT) | _F_STD | (_F_PAIR if pair else 0)
    for halves in product(range(3), repeat=n):
        if sum(halves) <= 7:
            key = bytes(2 * h for h in halves)
            table[key] = table.get(key, sum(key) << _TILES_SHIFT) | _F_EVEN
    return table


_WIN = _win_table(9, True)
_WIN_Z = _win_table(7, False)


# ---------------------------------------------------------------- wins


def is_win(counts: Sequence[int], melds: int = 0) -> bool:
    """True if the concealed ``counts`` with ``melds`` exposed melds form a winning
    hand: standard (4 melds + a pair) or, with no melds, seven pairs.

    >>> from mjlog.tiles import parse_counts
    >>> is_win(parse_counts("11223344556677z"))
    True
    >>> is_win(parse_counts("11112233445566m"))   # a four is two pairs
    True
    >>> is_win(parse_counts("123m11z"), melds=3), is_win(parse_counts("123m11z"))
    (True, False)
    """
    g = _WIN.get
    v0 = g(bytes(counts[0:9]))
    if v0 is None:
        return False
    v1 = g(bytes(counts[9:18]))
    if v1 is None:
        return False
    v2 = g(bytes(counts[18:27]))
    if v2 is None:
        return False
    v3 = _WIN_Z.get(bytes(counts[27:34]))
    if v3 is None:
        return False
    s = v0 + v1 + v2 + v3
    if s & _MASK_STD == _TARGET_STD[melds]:
        return True
    return melds == 0 and s & _MASK_7P == _TARGET_7P


def is_standard_win(counts: Sequence[int], melds: int = 0) -> bool:
    """True if the hand is 4 melds + a pair (exposed melds included).

    >>> from mjlog.tiles import parse_counts
    >>> is_standard_win(parse_counts("11223344556677m")), is_standard_win(parse_counts("11z"), 4)
    (True, True)
    """
    g = _WIN.get
    s = 0
    for a, b in _SUIT_SLICES[:3]:
        v = g(bytes(counts[a:b]))
        if v is None:
            return False
        s += v
    v = _WIN_Z.get(bytes(counts[27:34]))
    return v is not None and (s + v) & _MASK_STD == _TARGET_STD[melds]


def is_seven_pairs(counts: Sequence[int], melds: int = 0) -> bool:
    """True if the hand is seven pairs: 14 concealed tiles, no melds, every count
    even (a four is two pairs).

    >>> from mjlog.tiles import parse_counts
    >>> is_seven_pairs(parse_counts("11112233445566m")), is_seven_pairs(parse_counts("11122m"))
    (True, False)
    """
    return melds == 0 and sum(counts) == 14 and all(c in (0, 2, 4) for c in counts)


# ---------------------------------------------------------------- decompositions


def _suit_decomps(c: list[int], base: int, sequences: bool, want_pair: bool):
    """Yield (pair or None, melds) for every decomposition of one suit's counts
    into melds and, if ``want_pair``, exactly one pair. Each multiset once."""
    n = len(c)
    i = 0
    while i < n and c[i] == 0:
        i += 1
    if i == n:
        if not want_pair:
            yield None, ()
        return
    x = c[i]
    # The lowest tile's structures all start at i: t triplets, p pairs, the
    # rest sequences; choosing the numbers (not an order) lists each once.
    for t in (0, 1):
        for p in (0, 1) if want_pair else (0,):
            s = x - 3 * t - 2 * p
            if s < 0 or (s and (not sequences or i + 2 >= n or c[i + 1] < s or c[i + 2] < s)):
                continue
            c[i] -= x
            if s:
                c[i + 1] -= s
                c[i + 2] -= s
            here = (("trip", base + i),) * t + (("seq", base + i),) * s
            for pair, rest in _suit_decomps(c, base, sequences, want_pair and not p):
                yield (base + i if p else pair), here + rest
            c[i] += x
            if s:
                c[i + 1] += s
                c[i + 2] += s


def decompositions(counts: Sequence[int], melds: int = 0) -> list[Decomposition]:
    """Every distinct decomposition of a complete hand; ``[]`` if it is not one.

    Standard forms come first, sorted by (pair, sets); seven pairs last.

    >>> from mjlog.tiles import parse_counts
    >>> [(d.pair, d.sets) for d in decompositions(parse_counts("111222333m55p"), 1)]
    [(13, (('seq', 0), ('seq', 0), ('seq', 0))), (13, (('trip', 0), ('trip', 1), ('trip', 2)))]
    >>> [d.kind for d in decompositions(parse_counts("22334455667788p"))]
    ['standard', 'standard', 'standard', 'seven_pairs']
    >>> decompositions(parse_counts("123m"))
    []
    """
    _check_counts(counts)
    if sum(counts) != 14 - 3 * melds:
        return []
    out: list[Decomposition] = []
    if is_standard_win(counts, melds):
        per_suit = []
        for si, (a, b) in enumerate(_SUIT_SLICES):
            c = list(counts[a:b])
            want = sum(c) % 3 == 2
            per_suit.append(list(_suit_decomps(c, a, si < 3, want)))
        for combo in product(*per_suit):
            pair = next(p for p, _ in combo if p is not None)
            sets = tuple(sorted(m for _, ms in combo for m in ms))
            out.append(Decomposition("standard", pair, sets))
        out.sort(key=lambda d: (d.pair, d.sets))
    if is_seven_pairs(counts, melds):
        pairs = tuple(t for t in range(34) for _ in range(counts[t] // 2))
        out.append(Decomposition("seven_pairs", None, (), pairs))
    return out


def _check_counts(counts: Sequence[int]) -> None:
    if len(counts) != 34:
        raise ValueError(f"expected 34 counts, got {len(counts)}")


# ---------------------------------------------------------------- waits


def waits(counts: Sequence[int], melds: int = 0, held: Sequence[int] | None = None) -> list[int]:
    """Sorted kinds that would complete the hand (``counts`` has ``13 - 3*melds``
    tiles). A kind is no wait when the player already holds all four copies,
    ``(held or counts)[t] >= 4``; pass ``held`` (hand + melds) when there are melds.

    >>> from mjlog.tiles import parse_counts, fmt
    >>> held = parse_counts("1111m")        # a pon of 1m and a concealed 1m
    >>> fmt(waits(parse_counts("1m"), 4)), fmt(waits(parse_counts("1m"), 4, held))
    ('1m', '')
    >>> fmt(waits(parse_counts("5m"), melds=4)), fmt(waits(parse_counts("112233445566z")))
    ('5m', '')
    """
    _check_counts(counts)
    h = counts if held is None else held
    c = list(counts)
    out = []
    for t in range(34):
        if h[t] >= 4:
            continue
        c[t] += 1
        if is_win(c, melds):
            out.append(t)
        c[t] -= 1
    return out


# ---------------------------------------------------------------- shanten

_INF = 1 << 20


def _suit_costs(c: Sequence[int], sequences: bool) -> tuple[int, ...]:
    """Fewest tiles missing from this suit for m melds (+ the pair if h), counts in
    the target at most 4: a tuple indexed ``h * 5 + m``."""
    # states: (seqs started at i-1, seqs started at i-2, melds, pair) -> cost
    states = {(0, 0, 0, 0): 0}
    n = len(c)
    for i in range(n):
        x = c[i]
        nxt: dict[tuple[int, int, int, int], int] = {}
        for (a, b, m, h), cost in states.items():
            for s in range(0, 5 - m) if sequences and i + 2 < n else (0,):
                for t in (0, 1):
                    if m + s + t > 4:
                        continue
                    for p in (0, 1) if not h else (0,):
                        need = a + b + s + 3 * t + 2 * p
                        if need > 4:
                            continue
                        key = (s, a, m + s + t, h | p)
                        v = cost + (need - x if need > x else 0)
                        if v < nxt.get(key, _INF):
                            nxt[key] = v
        states = nxt
    out = [_INF] * 10
    for (a, b, m, h), cost in states.items():
        if a == 0 and b == 0 and cost < out[h * 5 + m]:
            out[h * 5 + m] = cost
    return tuple(out)


_COSTS: dict[bytes, tuple[int, ...]] = {}
_COSTS_Z: dict[bytes, tuple[int, ...]] = {}


def _costs(key: bytes, honors: bool) -> tuple[int, ...]:
    memo = _COSTS_Z if honors else _COSTS
    v = memo.get(key)
    if v is None:
        v = memo[key] = _suit_costs(key, not honors)
    return v


def shanten_standard(counts: Sequence[int], melds: int = 0) -> int:
    """Standard-form shanten: the fewest tiles to draw (discarding others) for a
    complete 4 melds + pair, minus one; -1 for a complete hand.

    It is the usual ``8 - 2*melds - partials - pair`` count (blocks capped at
    four), computed exactly: a wait on a kind the hand already holds four of
    does not count.

    >>> from mjlog.tiles import parse_counts
    >>> shanten_standard(parse_counts("1111m234p567p789p"))   # the 1m tanki is dead
    1
    >>> shanten_standard(parse_counts("123m456p789s123z1z"))
    1
    >>> shanten_standard(parse_counts("1z"), 4), shanten_standard(parse_counts("11z"), 4)
    (0, -1)
    """
    _check_counts(counts)
    target = 4 - melds
    best = [0] + [_INF] * 9
    for si, (a, b) in enumerate(_SUIT_SLICES):
        d = _costs(bytes(counts[a:b]), si == 3)
        new = [_INF] * 10
        for h1 in (0, 1):
            for m1 in range(target + 1):
                g = best[h1 * 5 + m1]
                if g >= _INF:
                    continue
                for h2 in (0, 1) if not h1 else (0,):
                    for m2 in range(target + 1 - m1):
                        v = g + d[h2 * 5 + m2]
                        k = (h1 | h2) * 5 + m1 + m2
                        if v < new[k]:
                            new[k] = v
        best = new
    return best[5 + target] - 1


def shanten_seven_pairs(counts: Sequence[int], melds: int = 0) -> int:
    """Seven-pairs shanten, ``6 - pairs + max(0, 7 - kinds)``; :data:`IMPOSSIBLE`
    with melds. Convention (as the ``mahjong`` package and riichi tools): a four
    counts as *one* pair here, although a complete seven pairs may hold a four
    (RULES.md); a complete seven pairs is always -1.

    >>> from mjlog.tiles import parse_counts
    >>> shanten_seven_pairs(parse_counts("1122334455667m"))
    0
    >>> shanten_seven_pairs(parse_counts("11112233445566m"))
    -1
    >>> shanten_seven_pairs(parse_counts("1111223344556m"))   # a four is one pair here
    2
    """
    _check_counts(counts)
    if melds:
        return IMPOSSIBLE
    if is_seven_pairs(counts):
        return -1
    pairs = kinds = 0
    for x in counts:
        if x:
            kinds += 1
            if x >= 2:
                pairs += 1
    return 6 - pairs + (7 - kinds if kinds < 7 else 0)


def shanten(counts: Sequence[int], melds: int = 0) -> int:
    """Shanten: the least of :func:`shanten_standard` and, with no melds,
    :func:`shanten_seven_pairs`. 0 = ready (听牌), -1 = complete. Works on
    ``13 - 3*melds`` tiles and on ``14 - 3*melds``.

    >>> from mjlog.tiles import parse_counts
    >>> shanten(parse_counts("1122334455667m")), shanten(parse_counts("19m19p19s1234567z"))
    (0, 6)
    """
    s = shanten_standard(counts, melds)
    if melds == 0 and s >= 0:
        s = min(s, shanten_seven_pairs(counts))
    return s
