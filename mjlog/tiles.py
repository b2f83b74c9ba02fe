"""Tile kinds, notation, names, glyphs and tile sets.

A tile kind is an int 0..33 (``Tile``): ``1m..9m`` (万) = 0-8, ``1p..9p`` (筒) = 9-17,
``1s..9s`` (条) = 18-26, ``1z..7z`` = 东 南 西 北 白 发 中 = 27-33. Hands for
algorithms are lists of 34 counts.

Notation is the usual one: digits followed by their suit letter, ``123m456p789s11z``;
whitespace may separate groups.

>>> parse("123m456p 11z")
[0, 1, 2, 12, 13, 14, 27, 27]
>>> fmt(parse("5p1m9s1m"))
'11m5p9s'
>>> parse_tile("7z"), fmt_tile(RED), name(RED), glyph(RED)
(33, '7z', '中', '🀄')
>>> suit(13), rank(13), is_honor(13), is_terminal(17)
(1, 5, False, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from mjlog.errors import InputError, cut, quote

__all__ = [
    "Tile",
    "SUITS",
    "NUM_KINDS",
    "EAST",
    "SOUTH",
    "WEST",
    "NORTH",
    "WHITE",
    "GREEN",
    "RED",
    "TileNotationError",
    "suit",
    "rank",
    "is_honor",
    "is_terminal",
    "is_terminal_or_honor",
    "parse",
    "parse_tile",
    "parse_counts",
    "to_counts",
    "from_counts",
    "fmt",
    "fmt_counts",
    "fmt_tile",
    "name",
    "glyph",
    "glyphs",
    "TILESET_108",
    "TILESET_120",
    "TILESET_136",
    "tile_set",
]

Tile = int

SUITS = "mpsz"
NUM_KINDS = 34

EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)


class TileNotationError(InputError):
    """Malformed tile notation; the message quotes the bad part and the whole input."""


def _check(t: object) -> int:
    """``t`` as a tile kind, else a ValueError. The functions that check their tile
    take ``object``: compiled (build_compiled.py), an ``int`` parameter would refuse a
    float or a string with a TypeError before this check, and both builds must raise
    the same error."""
    if not (type(t) is int and 0 <= t < NUM_KINDS):
        raise ValueError(f"not a tile kind: {t!r} (expected an int 0..33)")
    return t


def suit(t: object) -> int:
    """Suit index: 0 万 m, 1 筒 p, 2 条 s, 3 honors z.

    >>> [suit(t) for t in (0, 9, 26, 27)]
    [0, 1, 2, 3]
    """
    return _check(t) // 9


def rank(t: object) -> int:
    """Rank within the suit: 1..9, or 1..7 for honors (东 南 西 北 白 发 中).

    >>> rank(0), rank(17), rank(EAST), rank(RED)
    (1, 9, 1, 7)
    """
    return _check(t) % 9 + 1


def is_honor(t: object) -> bool:
    """True for winds and dragons (27..33).

    >>> is_honor(26), is_honor(27)
    (False, True)
    """
    return _check(t) >= 27


def is_terminal(t: object) -> bool:
    """True for a 1 or 9 of a suit (never an honor).

    >>> [fmt_tile(t) for t in range(34) if is_terminal(t)]
    ['1m', '9m', '1p', '9p', '1s', '9s']
    """
    k = _check(t)
    return k < 27 and k % 9 in (0, 8)


def is_terminal_or_honor(t: object) -> bool:
    """幺九: a terminal or an honor.

    >>> is_terminal_or_honor(0), is_terminal_or_honor(4), is_terminal_or_honor(WHITE)
    (True, False, True)
    """
    return is_honor(t) or is_terminal(t)


# ---------------------------------------------------------------- notation


def _iter_notation(s: str) -> Iterator[Tile]:
    """Yield tile ids of ``s`` in written order; raise TileNotationError."""
    if not isinstance(s, str):
        raise TileNotationError(f"tile notation must be a string, got {quote(s)}")
    digits_start = -1
    for i, ch in enumerate(s):
        if "0" <= ch <= "9":
            if digits_start < 0:
                digits_start = i
        elif ch in SUITS:
            if digits_start < 0:
                raise TileNotationError(f"suit letter '{ch}' without digits in {quote(s)}")
            base = 9 * SUITS.index(ch)
            top = 7 if ch == "z" else 9
            for d in s[digits_start:i]:
                r = ord(d) - 48
                if not 1 <= r <= top:
                    raise TileNotationError(f"unknown tile '{d}{ch}' in {quote(s)}")
                yield base + r - 1
            digits_start = -1
        elif ch.isspace():
            if digits_start >= 0:
                raise TileNotationError(
                    f"digits without a suit letter '{cut(s[digits_start:i], 20)}' in {quote(s)}"
                )
        else:
            raise TileNotationError(f"unexpected character '{ch}' in {quote(s)}")
    if digits_start >= 0:
        raise TileNotationError(
            f"digits without a suit letter '{cut(s[digits_start:], 20)}' in {quote(s)}"
        )


def parse(s: str) -> list[Tile]:
    """Tile ids of a notation string, in written order. ``""`` gives ``[]``.

    >>> parse("21m")
    [1, 0]
    >>> parse("123m0z")
    Traceback (most recent call last):
    ...
    mjlog.tiles.TileNotationError: unknown tile '0z' in '123m0z'
    >>> parse("123m45")
    Traceback (most recent call last):
    ...
    mjlog.tiles.TileNotationError: digits without a suit letter '45' in '123m45'
    """
    return list(_iter_notation(s))


def parse_tile(s: str) -> Tile:
    """Exactly one tile.

    >>> parse_tile("5p")
    13
    >>> parse_tile("55p")
    Traceback (most recent call last):
    ...
    mjlog.tiles.TileNotationError: expected exactly one tile, got 2 in '55p'
    """
    tiles = parse(s)
    if len(tiles) != 1:
        raise TileNotationError(f"expected exactly one tile, got {len(tiles)} in {quote(s)}")
    return tiles[0]


def to_counts(tiles: Iterable[Tile]) -> list[int]:
    """34 counts of a sequence of tile ids (no limit on copies).

    >>> to_counts([0, 0, 33])[0], to_counts([0, 0, 33])[33]
    (2, 1)
    """
    counts = [0] * NUM_KINDS
    items: Iterable[object] = tiles  # each checked by _check, in both builds
    for t in items:
        counts[_check(t)] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Tile]:
    """Sorted tile ids of 34 counts.

    >>> from_counts(parse_counts("112m"))
    [0, 0, 1]
    """
    if len(counts) != NUM_KINDS:
        raise ValueError(f"expected 34 counts, got {len(counts)}")
    return [t for t in range(NUM_KINDS) for _ in range(counts[t])]


def parse_counts(s: str) -> list[int]:
    """34 counts of a notation string; more than 4 copies of a kind is an error.

    >>> c = parse_counts("1112345678999m")
    >>> c[:9], sum(c)
    ([3, 1, 1, 1, 1, 1, 1, 1, 3], 13)
    >>> parse_counts("11111z")
    Traceback (most recent call last):
    ...
    mjlog.tiles.TileNotationError: more than 4 copies of '1z' in '11111z'
    """
    counts = [0] * NUM_KINDS
    for t in _iter_notation(s):
        counts[t] += 1
        if counts[t] > 4:
            raise TileNotationError(f"more than 4 copies of '{fmt_tile(t)}' in {quote(s)}")
    return counts


def fmt_counts(counts: Sequence[int]) -> str:
    """Canonical notation of 34 counts: suits in m p s z order, ranks ascending.

    >>> fmt_counts(parse_counts("9s 1z 21m"))
    '12m9s1z'
    >>> fmt_counts([0] * 34)
    ''
    """
    if len(counts) != NUM_KINDS:
        raise ValueError(f"expected 34 counts, got {len(counts)}")
    out = []
    for si, letter in enumerate(SUITS):
        base = 9 * si
        digits = "".join(str(r + 1) * counts[base + r] for r in range(7 if letter == "z" else 9))
        if digits:
            out.append(digits + letter)
    return "".join(out)


def fmt(tiles: Iterable[Tile]) -> str:
    """Sorted canonical notation of tile ids.

    >>> fmt([0, 1, 2, 27, 27])
    '123m11z'
    >>> fmt([27, 2, 1, 0, 27]) == fmt(parse(fmt([0, 1, 2, 27, 27])))
    True
    """
    return fmt_counts(to_counts(tiles))


def fmt_tile(t: object) -> str:
    """Notation of one tile.

    >>> fmt_tile(13), fmt_tile(EAST)
    ('5p', '1z')
    """
    k = _check(t)
    return f"{k % 9 + 1}{SUITS[k // 9]}"


# ---------------------------------------------------------------- names and glyphs

_NUMERALS = "一二三四五六七八九"
_NAMES: tuple[str, ...] = (
    tuple(n + "万" for n in _NUMERALS)
    + tuple(n + "筒" for n in _NUMERALS)
    + tuple(n + "条" for n in _NUMERALS)
    + tuple("东南西北白发中")
)
# U+1F000 block: winds 1F000-1F003, 中 1F004, 发 1F005, 白 1F006,
# characters 1F007-1F00F, bamboos 1F010-1F018, circles 1F019-1F021.
_GLYPHS: tuple[str, ...] = (
    tuple(chr(0x1F007 + r) for r in range(9))
    + tuple(chr(0x1F019 + r) for r in range(9))
    + tuple(chr(0x1F010 + r) for r in range(9))
    + tuple(chr(c) for c in (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004))
)


def name(t: object) -> str:
    """Chinese name.

    >>> name(0), name(13), name(26), name(EAST), name(GREEN)
    ('一万', '五筒', '九条', '东', '发')
    """
    return _NAMES[_check(t)]


def glyph(t: object) -> str:
    """Unicode mahjong glyph (U+1F000 block).

    >>> glyph(0) + glyph(9) + glyph(18) + glyph(EAST) + glyph(WHITE)
    '🀇🀙🀐🀀🀆'
    """
    return _GLYPHS[_check(t)]


def glyphs(tiles: Iterable[Tile]) -> str:
    """Glyphs of tile ids, sorted.

    >>> glyphs(parse("1z1m"))
    '🀇🀀'
    """
    items: Iterable[object] = tiles  # each checked by _check, in both builds
    return "".join(_GLYPHS[t] for t in sorted(_check(t) for t in items))


# ---------------------------------------------------------------- tile sets

TILESET_108: tuple[Tile, ...] = tuple(t for t in range(27) for _ in range(4))
TILESET_120: tuple[Tile, ...] = TILESET_108 + tuple(
    t for t in (WHITE, GREEN, RED) for _ in range(4)
)
TILESET_136: tuple[Tile, ...] = tuple(t for t in range(NUM_KINDS) for _ in range(4))

_TILESETS = {108: TILESET_108, 120: TILESET_120, 136: TILESET_136}


def tile_set(n: int) -> tuple[Tile, ...]:
    """The sorted tile set of ``n`` tiles, four copies of each kind: 108 suited only,
    120 without winds (东南西北), 136 all.

    >>> len(tile_set(120)), tile_set(120).count(WHITE), EAST in tile_set(120)
    (120, 4, False)
    """
    try:
        return _TILESETS[n]
    except KeyError:
        raise InputError(f"no tile set of {n} tiles (expected 108, 120 or 136)") from None
