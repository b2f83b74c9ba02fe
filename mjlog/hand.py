"""Hand shapes on 34-count lists: decompositions, wins, waits and shanten.

A hand is a list of 34 counts (see :mod:`mjlog.tiles`), each 0..4, holding the
*concealed* tiles; ``melds`` (0..4) is the number of exposed melds (pons and
kongs, each counting as one triplet), so a complete hand has ``14 - 3 * melds``
concealed tiles and a ready one ``13 - 3 * melds``.

Winning shapes (docs/rules/README.md, 'Winning hands'): four melds (sequences
of one suit, or triplets; honors never form sequences) and a pair, counting the
exposed melds; or seven pairs with no melds, a four of a kind counting as two
pairs.

>>> from mjlog.tiles import parse_counts, fmt
>>> is_win(parse_counts("11123456789999m"))
True
>>> fmt(waits(parse_counts("1112345678999m")))
'123456789m'
>>> shanten(parse_counts("123m456p789s1122z")), shanten(parse_counts("1133557799m1p2p3z"))
(0, 1)

Everything is table driven (tables in :mod:`mjlog._hand_tables`): a suit's
counts, as ``bytes``, key a dict of its complete and all-even patterns, so
:func:`is_win` is at most four slices and four lookups, and usually one (a
random suit is rarely complete). :func:`shanten` reads each suit through a small
automaton to one of 126 cost vectors and combines those by table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from enum import IntEnum
from functools import lru_cache
from itertools import product
from types import FunctionType
from typing import TYPE_CHECKING, Final, NamedTuple, Protocol

from mjlog._hand_tables import F_PAIR, F_STD, TILES_SHIFT, tables, win_table

if TYPE_CHECKING:
    from mjlog.melds import Meld

__all__ = [
    "Decomposition",
    "decompositions",
    "is_win",
    "is_standard_win",
    "check_counts",
    "holds_void",
    "is_seven_pairs",
    "suit_misses",
    "MISS_OTHER_SUITS",
    "KEY_UNITS",
    "suit_keys",
    "key_misses",
    "waits",
    "shanten",
    "shanten_standard",
    "shanten_seven_pairs",
    "seven_pairs_shanten",
    "IMPOSSIBLE",
    "Group",
    "SEQ",
    "TRIP",
]

IMPOSSIBLE = 99
"""Shanten of a shape the hand cannot reach (seven pairs with exposed melds)."""

_SUIT_SLICES = ((0, 9), (9, 18), (18, 27), (27, 34))


class Group(IntEnum):
    """A concealed set of a decomposition: a sequence (its first kind) or a
    triplet (its kind). Sequences sort first, by design."""

    SEQ = 0
    TRIP = 1

    def __repr__(self) -> str:  # pastes back: (SEQ, 0)
        return self.name


SEQ, TRIP = Group


class Decomposition(NamedTuple):
    """One way to read a complete hand.

    ``kind`` is ``"standard"`` or ``"seven_pairs"``. For a standard hand, ``pair``
    is the pair's kind and ``sets`` the *concealed* melds, each ``(SEQ, first
    kind)`` or ``(TRIP, kind)``, sorted (sequences first, then by kind); exposed
    melds are not listed. For seven pairs, ``pair`` is None, ``sets`` is empty
    and ``pairs`` holds the seven pair kinds sorted, a four listed twice.

    >>> from mjlog.tiles import parse_counts
    >>> d = decompositions(parse_counts("11122233344455m"))[-1]
    >>> d.kind, d.pair, d.sets
    ('standard', 4, ((TRIP, 0), (TRIP, 1), (TRIP, 2), (TRIP, 3)))
    """

    kind: str
    pair: int | None
    sets: tuple[tuple[Group, int], ...]
    pairs: tuple[int, ...] = ()


#: One suit's decomposition: (the pair's kind or None, the concealed sets).
_SuitDecomp = tuple[int | None, tuple[tuple[Group, int], ...]]


class _CountsTest(Protocol):
    """The signature of :func:`is_win`."""

    def __call__(self, counts: Sequence[int], melds: int = 0) -> bool: ...


class _Shanten(Protocol):
    """The signature of :func:`shanten_standard`."""

    def __call__(self, counts: Sequence[int], melds: int = 0) -> int: ...


class _ShantenBoth(Protocol):
    """The signature of :func:`shanten`."""

    def __call__(
        self, counts: Sequence[int], melds: int = 0, *, fours_as_pairs: bool = True
    ) -> int: ...


# ---------------------------------------------------------------- wins
#
# _WIN / _WIN_Z: suit / honor counts (bytes) -> packed int, for every pattern
# that is standard-complete (melds, or melds and one pair) or all even. The
# fields are packed so that the four suits' values can be added:
#   bits 0-2 pair (1 if complete with a pair), bits 4-6 complete (1),
#   bits 8-10 all even (1), bits 12- number of tiles.
# Standard win: sum has pair 1, complete 4 and 14 - 3m tiles. Seven pairs: even
# 4 and 14 tiles, no melds. A suit in neither table is no win: the early exit.

_WIN = win_table(9, True)
_WIN_Z = win_table(7, False)
_MASK_STD = ~0x700
_MASK_7P = ~0x077
_TARGET_7P = (14 << TILES_SHIFT) | 0x400
_TARGET_STD = tuple(((14 - 3 * m) << TILES_SHIFT) | F_PAIR | 4 * F_STD for m in range(5))


def _make_is_win() -> _CountsTest:
    # A closure, so that the tables are local loads; this is the hot path.
    get, get_z, to_bytes = _WIN.get, _WIN_Z.get, bytes
    target_std, mask_std, mask_7p, target_7p = _TARGET_STD, _MASK_STD, _MASK_7P, _TARGET_7P

    def is_win(counts: Sequence[int], melds: int = 0) -> bool:
        """True if the concealed ``counts`` with ``melds`` exposed melds form a
        winning hand: standard (4 melds + a pair) or, with no melds, seven pairs.

        >>> from mjlog.tiles import parse_counts
        >>> is_win(parse_counts("11223344556677z"))
        True
        >>> is_win(parse_counts("11112233445566m"))   # a four is two pairs
        True
        >>> is_win(parse_counts("123m11z"), melds=3), is_win(parse_counts("123m11z"))
        (True, False)
        """
        v0 = get(to_bytes(counts[0:9]))
        if v0 is None:
            return False
        v1 = get(to_bytes(counts[9:18]))
        if v1 is None:
            return False
        v2 = get(to_bytes(counts[18:27]))
        if v2 is None:
            return False
        v3 = get_z(to_bytes(counts[27:34]))
        if v3 is None:
            return False
        s = v0 + v1 + v2 + v3
        if s & mask_std == target_std[melds]:
            return True
        return melds == 0 and s & mask_7p == target_7p

    if isinstance(is_win, FunctionType):  # compiled (mypyc) closures are not functions
        is_win.__qualname__ = is_win.__name__  # the module's own function, to doctest and docs
    return is_win


is_win = _make_is_win()


def is_standard_win(counts: Sequence[int], melds: int = 0) -> bool:
    """True if the hand is 4 melds + a pair (exposed melds included).

    >>> from mjlog.tiles import parse_counts
    >>> is_standard_win(parse_counts("11223344556677m")), is_standard_win(parse_counts("11z"), 4)
    (True, True)
    >>> is_standard_win(parse_counts("11223344556677z"))
    False
    """
    return _is_standard_bytes(bytes(counts), melds)


def _is_standard_bytes(b: bytes, melds: int) -> bool:
    """:func:`is_standard_win` of the 34 counts ``b`` as bytes."""
    v0, v1, v2, v3 = _WIN.get(b[0:9]), _WIN.get(b[9:18]), _WIN.get(b[18:27]), _WIN_Z.get(b[27:34])
    if v0 is None or v1 is None or v2 is None or v3 is None:
        return False
    return (v0 + v1 + v2 + v3) & _MASK_STD == _TARGET_STD[melds]


def _make_suit_misses() -> Callable[[Sequence[int]], int]:
    get, get_z, to_bytes = _WIN.get, _WIN_Z.get, bytes

    def suit_misses(counts: Sequence[int]) -> int:
        """Bitmask of the suits (bit 0 m, 1 p, 2 s, 3 honours) whose tiles fit no
        complete hand, whatever the other suits hold; 15 as soon as two do (then
        no single tile completes the hand).

        One tile added to suit k leaves every other suit as it is, so the hand plus
        tile ``t`` can win only if ``suit_misses(counts) & MISS_OTHER_SUITS[t] == 0``:
        the engine keeps this per seat and skips :func:`is_win` on most discards.

        >>> from mjlog.tiles import parse_counts
        >>> suit_misses(parse_counts("123m11p")), suit_misses(parse_counts("123m45p11z"))
        (0, 2)
        >>> suit_misses(parse_counts("1m45p11z"))
        15
        """
        b = to_bytes(counts)  # one conversion, then byte slices (cheaper than list slices)
        m = 0 if get(b[0:9]) is not None else 1
        if get(b[9:18]) is None:
            if m:
                return 15
            m = 2
        if get(b[18:27]) is None:
            if m:
                return 15
            m = 4
        if get_z(b[27:34]) is None:
            return 15 if m else 8
        return m

    return suit_misses


suit_misses = _make_suit_misses()


MISS_OTHER_SUITS: tuple[int, ...] = tuple(15 & ~(1 << (t // 9)) for t in range(34))
"""Per tile kind, the bits of :func:`suit_misses` that rule out a win with it."""

# The win tables' patterns as ints (int.from_bytes, big-endian), for a hand kept as
# one such key per suit (mjlog.seats): a tile in or out changes its suit's key by the
# tile's unit, and a suit is checked by one set lookup, with no bytes built.
_SUIT_KEYS: Final = frozenset(map(int.from_bytes, _WIN))
_HONOR_KEYS: Final = frozenset(map(int.from_bytes, _WIN_Z))

KEY_UNITS: Final[tuple[int, ...]] = tuple(
    256 ** (8 - t % 9) if t < 27 else 256 ** (33 - t) for t in range(34)
)
"""Per tile kind, what one tile of it adds to its suit's key (:func:`suit_keys`)."""


def suit_keys(counts: Sequence[int]) -> list[int]:
    """The 34 ``counts`` as four keys (m, p, s, honours): each suit's counts read as
    one big-endian base-256 int, so that a tile ``t`` in or out adds or takes
    ``KEY_UNITS[t]`` from key ``t // 9``.

    >>> from mjlog.tiles import parse_counts
    >>> c = parse_counts("123m11p")
    >>> k = suit_keys(c)
    >>> c[0] += 1; k[0] += KEY_UNITS[0]
    >>> k == suit_keys(c)
    True
    """
    b = bytes(counts)
    return [
        int.from_bytes(b[0:9], "big"),
        int.from_bytes(b[9:18], "big"),
        int.from_bytes(b[18:27], "big"),
        int.from_bytes(b[27:34], "big"),
    ]


def key_misses(keys: list[int]) -> int:
    """:func:`suit_misses` of the hand whose :func:`suit_keys` are ``keys``.

    >>> from mjlog.tiles import parse_counts
    >>> all(key_misses(suit_keys(parse_counts(h))) == suit_misses(parse_counts(h))
    ...     for h in ("123m11p", "123m45p11z", "1m45p11z", "11z", "5p5p5p7s"))
    True
    """
    m = 0 if keys[0] in _SUIT_KEYS else 1
    if keys[1] not in _SUIT_KEYS:
        if m:
            return 15
        m = 2
    if keys[2] not in _SUIT_KEYS:
        if m:
            return 15
        m = 4
    if keys[3] not in _HONOR_KEYS:
        return 15 if m else 8
    return m


def holds_void(concealed: Sequence[int], melds: Sequence[Meld], void: int | None) -> bool:
    """花猪 test: any tile of suit ``void`` (0 m, 1 p, 2 s; None: no void chosen)
    in the hand's ``concealed`` counts or its ``melds`` (:class:`mjlog.melds.Meld`).
    The one test: the state (a win, 查花猪) and the xuezhan scorer ask it.

    >>> from mjlog.tiles import parse_counts
    >>> holds_void(parse_counts("123m5p"), (), 1), holds_void(parse_counts("123m5p"), (), 2)
    (True, False)
    """
    if void is None:
        return False
    lo = 9 * void
    return any(concealed[lo : lo + 9]) or any(lo <= m.tile < lo + 9 for m in melds)


_EVEN_0_TO_4 = bytes((0, 2, 4))


def is_seven_pairs(counts: Sequence[int], melds: int = 0) -> bool:
    """True if the hand is seven pairs: no melds, 14 tiles, every count even (a
    four is two pairs).

    >>> from mjlog.tiles import parse_counts
    >>> is_seven_pairs(parse_counts("11112233445566m")), is_seven_pairs(parse_counts("11122m"))
    (True, False)
    """
    if melds:
        return False
    b = bytes(counts)
    return sum(b) == 14 and not b.translate(None, _EVEN_0_TO_4)  # only 0, 2 or 4 left out


# ---------------------------------------------------------------- decompositions


@lru_cache(maxsize=1 << 14)
def _suit_options(seg: bytes, base: int) -> tuple[_SuitDecomp, ...]:
    """The decompositions of one suit's counts ``seg`` (kinds from ``base``), as
    :func:`_suit_decomps` lists them; cached, since scoring asks for the same
    suits again and again."""
    return tuple(_suit_decomps(list(seg), base, base < 27, sum(seg) % 3 == 2))


def _suit_decomps(
    c: list[int], base: int, sequences: bool, want_pair: bool
) -> Iterator[_SuitDecomp]:
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
    # Every structure holding the lowest tile starts at i: t triplets, p pairs,
    # the rest sequences. Choosing the numbers (not an order) lists each once.
    for t in (0, 1):
        for p in (0, 1) if want_pair else (0,):
            s = x - 3 * t - 2 * p
            if s < 0 or (s and (not sequences or i + 2 >= n or c[i + 1] < s or c[i + 2] < s)):
                continue
            c[i] -= x
            if s:
                c[i + 1] -= s
                c[i + 2] -= s
            here = ((TRIP, base + i),) * t + ((SEQ, base + i),) * s
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
    [(13, ((SEQ, 0), (SEQ, 0), (SEQ, 0))), (13, ((TRIP, 0), (TRIP, 1), (TRIP, 2)))]
    >>> [d.kind for d in decompositions(parse_counts("22334455667788p"))]
    ['standard', 'standard', 'standard', 'seven_pairs']
    >>> decompositions(parse_counts("123m"))
    []
    """
    b = check_counts(counts)
    out: list[Decomposition] = []
    if _is_standard_bytes(b, melds):
        per_suit = (
            _suit_options(b[0:9], 0),
            _suit_options(b[9:18], 9),
            _suit_options(b[18:27], 18),
            _suit_options(b[27:34], 27),
        )
        o0, o1, o2, o3 = per_suit
        if len(o0) == len(o1) == len(o2) == len(o3) == 1:  # one reading (the usual case)
            ((p0, s0),) = o0
            ((p1, s1),) = o1
            ((p2, s2),) = o2
            ((p3, s3),) = o3
            pair = (
                p0 if p0 is not None else p1 if p1 is not None else (p2 if p2 is not None else p3)
            )
            out.append(Decomposition("standard", pair, tuple(sorted(s0 + s1 + s2 + s3))))
        else:
            for combo in product(*per_suit):
                pair = next(p for p, _ in combo if p is not None)
                sets = tuple(sorted(m for _, ms in combo for m in ms))
                out.append(Decomposition("standard", pair, sets))
            out.sort(key=lambda d: (d.pair, d.sets))
    if is_seven_pairs(b, melds):
        pairs = tuple(t for t in range(34) for _ in range(b[t] // 2))
        out.append(Decomposition("seven_pairs", None, (), pairs))
    return out


_COUNTS_0_TO_4 = bytes(range(5))


def check_counts(counts: Sequence[int]) -> bytes:
    """``bytes(counts)`` after checking there are 34 counts, each 0..4; else
    ValueError.

    >>> check_counts([0] * 33 + [2])[-1]
    2
    """
    try:
        b = bytes(counts)
    except (TypeError, ValueError):
        b = b""
    if len(b) != 34 or b.translate(None, _COUNTS_0_TO_4):  # something left: not 0..4
        raise ValueError(f"expected 34 counts of 0..4, got {list(counts)!r}")
    return b


# ---------------------------------------------------------------- waits


@lru_cache(maxsize=1 << 14)
def _completions(seg: bytes, honors: bool) -> tuple[tuple[int, int], ...]:
    """(r, table value) for every kind r of one suit's counts ``seg`` whose one more
    copy leaves the suit a standard-complete shape; cached, as the same suits come
    back hand after hand."""
    table = _WIN_Z if honors else _WIN
    out = []
    for r in range(len(seg)):
        v = table.get(seg[:r] + bytes((seg[r] + 1,)) + seg[r + 1 :]) if seg[r] < 4 else None
        if v is not None and v & F_STD:
            out.append((r, v))
    return tuple(out)


def waits(counts: Sequence[int], melds: int = 0, held: Sequence[int] | None = None) -> list[int]:
    """Sorted kinds ``t`` that complete the hand (``is_win(counts + t)``);
    ``counts`` has ``13 - 3*melds`` tiles. A kind is no wait when the player
    already holds all four copies, ``(held or counts)[t] >= 4``: pass ``held``
    (the 34 counts of hand + melds) when there are melds.

    >>> from mjlog.tiles import parse_counts, fmt
    >>> fmt(waits(parse_counts("1122334455667z"))), fmt(waits(parse_counts("2345678p"), 2))
    ('7z', '258p')
    >>> held = parse_counts("1111m")        # a pon of 1m and a concealed 1m
    >>> fmt(waits(parse_counts("1m"), 4)), fmt(waits(parse_counts("1m"), 4, held))
    ('1m', '')
    """
    b = check_counts(counts)
    h = counts if held is None else held
    if not 0 <= melds <= 4:
        return []
    keys = [b[0:9], b[9:18], b[18:27], b[27:34]]
    tables = (_WIN, _WIN, _WIN, _WIN_Z)
    got = [tables[i].get(keys[i]) for i in range(4)]
    ok = [v is not None and v & F_STD != 0 for v in got]
    vals = [0 if v is None else v for v in got]  # read below only where ok
    out = set()
    bad = [i for i in range(4) if not ok[i]]
    if len(bad) <= 1:
        # Only a suit that is not complete yet (or, if all are, one with a pair)
        # can take the winning tile.
        candidates = bad or [i for i in range(4) if vals[i] & F_PAIR]
        target = 14 - 3 * melds
        for i in candidates:
            rest = sum(vals[j] for j in range(4) if j != i)
            base = _SUIT_SLICES[i][0]
            for r, v in _completions(keys[i], i == 3):
                if (
                    h[base + r] < 4
                    and (rest & 7) + (v & 7) == 1
                    and (rest >> TILES_SHIFT) + (v >> TILES_SHIFT) == target
                ):
                    out.add(base + r)
    if melds == 0:
        n1, n3 = b.count(1), b.count(3)
        if n1 + n3 == 1 and sum(b) == 13:
            t = b.find(1) if n1 else b.find(3)
            if h[t] < 4:
                out.add(t)
    return sorted(out)


# ---------------------------------------------------------------- shanten


def seven_pairs_shanten(pairs: int, tiles: int) -> int:
    """Seven-pairs shanten as the rulebook reads it, from the hand's ``pairs`` (``sum(c
    // 2)``: a four is two pairs, a triplet a pair and a single) and its number of
    ``tiles``: ``6 - pairs``, plus the singles still missing when the hand is short
    of seven kinds' worth (``7 + pairs - tiles`` when positive: tiles set aside).
    The one formula: :func:`shanten`, :func:`shanten_seven_pairs` and
    :mod:`mjlog.ukeire` call it.

    >>> seven_pairs_shanten(6, 13), seven_pairs_shanten(7, 14), seven_pairs_shanten(4, 10)
    (0, -1, 3)
    """
    short = 7 + pairs - tiles
    return 6 - pairs + (short if short > 0 else 0)


def _seven_pairs_riichi(pairs: int, kinds: int) -> int:
    """The common convention (a four or a triplet is *one* pair): ``6 - pairs +
    max(0, 7 - kinds)``."""
    return 6 - pairs + (7 - kinds if kinds < 7 else 0)


def _make_shanten() -> tuple[_Shanten, _ShantenBoth]:
    # The tables are built on first use (numpy, ~0.1 s); a closure keeps them in
    # fast local cells. Each suit's counts are read through the automaton to a
    # cost-vector id (9 lookups; 7 for honors), then the ids are combined.
    built: tuple[list[int], list[int], Callable[[int, int, int, int, int], int]] | None = None

    def build() -> tuple[list[int], list[int], Callable[[int, int, int, int, int], int]]:
        nonlocal built
        t = tables()
        built = (t.suit, t.honor, t.combine)  # one assignment: another thread sees all or none
        return built

    def standard(b: bytes, melds: int) -> int:
        S, Z, combine = built if built is not None else build()
        # fmt: off
        (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17,
         c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33) = b
        # fmt: on
        dm = S[S[S[S[S[S[S[S[S[c0] + c1] + c2] + c3] + c4] + c5] + c6] + c7] + c8]
        dp = S[S[S[S[S[S[S[S[S[c9] + c10] + c11] + c12] + c13] + c14] + c15] + c16] + c17]
        ds = S[S[S[S[S[S[S[S[S[c18] + c19] + c20] + c21] + c22] + c23] + c24] + c25] + c26]
        dz = Z[Z[Z[Z[Z[Z[Z[c27] + c28] + c29] + c30] + c31] + c32] + c33]
        return combine(dm, dp, ds, dz, melds)

    def shanten_standard(counts: Sequence[int], melds: int = 0) -> int:
        """Standard-form shanten: the fewest tiles to draw (discarding others) to
        complete 4 melds + a pair, minus one; -1 for a complete hand.

        This is the usual count ``8 - 2*melds - partials - pair`` (melds and
        partials capped at four), computed exactly: a target never needs a fifth
        copy, so a wait on a kind the hand holds four of does not count.

        >>> from mjlog.tiles import parse_counts
        >>> shanten_standard(parse_counts("1111m234p567p789p"))   # no fifth 1m
        1
        >>> shanten_standard(parse_counts("123m456p789s123z1z"))
        1
        >>> shanten_standard(parse_counts("1z"), 4), shanten_standard(parse_counts("11z"), 4)
        (0, -1)
        """
        b = check_counts(counts)
        if not 0 <= melds <= 4:
            raise ValueError(f"melds must be 0..4, got {melds!r}")
        return standard(b, melds)

    def shanten(counts: Sequence[int], melds: int = 0, *, fours_as_pairs: bool = True) -> int:
        """Shanten (向听数): the least of :func:`shanten_standard` and, with no
        melds, :func:`shanten_seven_pairs` (whose ``fours_as_pairs`` this passes
        on). 0 = ready (听牌), -1 = complete. For ``13 - 3*melds`` tiles, and
        ``14 - 3*melds`` (a hand that has just drawn).

        >>> from mjlog.tiles import parse_counts
        >>> shanten(parse_counts("1122334455667m")), shanten(parse_counts("19m19p19s1234567z"))
        (0, 6)
        >>> h = parse_counts("1111m22p33s44z55z7z")   # 7z makes seven pairs (the rulebook)
        >>> shanten(h), shanten(h, fours_as_pairs=False)  # the riichi convention says 2
        (0, 2)
        """
        try:
            b = bytes(counts)
        except (TypeError, ValueError):
            b = b""
        n0, n1, n2, n3, n4 = b.count(0), b.count(1), b.count(2), b.count(3), b.count(4)
        if n0 + n1 + n2 + n3 + n4 != 34 or len(b) != 34:
            check_counts(counts)  # raises
        if not 0 <= melds <= 4:
            raise ValueError(f"melds must be 0..4, got {melds!r}")
        s = standard(b, melds)
        if melds or s < 0:
            return s
        if fours_as_pairs:
            sp = seven_pairs_shanten(n2 + n3 + 2 * n4, n1 + 2 * n2 + 3 * n3 + 4 * n4)
        elif n1 == n3 == 0 and n2 + 2 * n4 == 7:
            return -1
        else:
            sp = _seven_pairs_riichi(n2 + n3 + n4, 34 - n0)
        return sp if sp < s else s

    for f in (shanten_standard, shanten):
        if isinstance(f, FunctionType):  # compiled (mypyc) closures are not functions
            f.__qualname__ = f.__name__  # the module's own functions, to doctest and docs
    return shanten_standard, shanten


shanten_standard, shanten = _make_shanten()


def shanten_seven_pairs(
    counts: Sequence[int], melds: int = 0, *, fours_as_pairs: bool = True
) -> int:
    """Seven-pairs shanten; :data:`IMPOSSIBLE` with melds.

    By default the rulebook's reading (docs/rules/README.md, 'Winning hands'),
    exactly: a four is two pairs and a triplet a pair plus a single, ``p =
    sum(c // 2)`` and the shanten is ``6 - p`` (for 13 or 14 tiles), so it is 0
    exactly when seven pairs has a wait (:func:`seven_pairs_shanten`).

    With ``fours_as_pairs=False``, the common convention (the ``mahjong``
    package's, riichi tools'): ``6 - pairs + max(0, 7 - kinds)``, where a four or
    a triplet is *one* pair, so ``1111m22p33s44z55z7z`` counts 2 although 7z
    completes it under the rulebook. A complete seven pairs
    (:func:`is_seven_pairs`, fours allowed) is always -1.

    >>> from mjlog.tiles import parse_counts
    >>> shanten_seven_pairs(parse_counts("1122334455667m"))
    0
    >>> shanten_seven_pairs(parse_counts("11112233445566m"))
    -1
    >>> h = parse_counts("1111223344556m")
    >>> shanten_seven_pairs(h), shanten_seven_pairs(h, fours_as_pairs=False)
    (0, 2)
    """
    b = check_counts(counts)
    if melds:
        return IMPOSSIBLE
    if fours_as_pairs:
        return seven_pairs_shanten(sum(c // 2 for c in b), sum(b))
    if is_seven_pairs(counts):
        return -1
    return _seven_pairs_riichi(b.count(2) + b.count(3) + b.count(4), 34 - b.count(0))
