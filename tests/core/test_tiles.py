"""mjlog.tiles: notation round-trips, names, glyphs, tile sets and error messages."""

from __future__ import annotations

import random

import pytest

from mjlog.errors import InputError
from mjlog.tiles import (
    EAST,
    GREEN,
    NORTH,
    RED,
    SOUTH,
    SUITS,
    TILESET_108,
    TILESET_120,
    TILESET_136,
    WEST,
    WHITE,
    TileNotationError,
    fmt,
    fmt_counts,
    fmt_tile,
    from_counts,
    glyph,
    glyphs,
    is_honor,
    is_terminal,
    is_terminal_or_honor,
    name,
    parse,
    parse_counts,
    parse_tile,
    rank,
    suit,
    tile_set,
    to_counts,
)

NOTATION = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
NAMES = (
    "一万 二万 三万 四万 五万 六万 七万 八万 九万 "
    "一筒 二筒 三筒 四筒 五筒 六筒 七筒 八筒 九筒 "
    "一条 二条 三条 四条 五条 六条 七条 八条 九条 "
    "东 南 西 北 白 发 中"
).split()
GLYPHS = "🀇🀈🀉🀊🀋🀌🀍🀎🀏🀙🀚🀛🀜🀝🀞🀟🀠🀡🀐🀑🀒🀓🀔🀕🀖🀗🀘🀀🀁🀂🀃🀆🀅🀄"


def test_kinds_and_constants():
    assert (EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED) == tuple(range(27, 34))
    assert SUITS == "mpsz"
    for t, s in enumerate(NOTATION):
        assert fmt_tile(t) == s
        assert parse_tile(s) == t
        assert parse(s) == [t]
        assert suit(t) == "mpsz".index(s[1])
        assert rank(t) == int(s[0])
        assert is_honor(t) == (s[1] == "z")
        assert is_terminal(t) == (s[1] != "z" and s[0] in "19")
        assert is_terminal_or_honor(t) == (is_honor(t) or is_terminal(t))


def test_names_and_glyphs_for_all_34():
    assert len(NAMES) == 34 and len(GLYPHS) == 34
    assert [name(t) for t in range(34)] == NAMES
    assert [glyph(t) for t in range(34)] == list(GLYPHS)
    assert all(0x1F000 <= ord(glyph(t)) <= 0x1F021 for t in range(34))
    assert glyphs([RED, 0, 0]) == "🀇🀇🀄"


@pytest.mark.parametrize(
    "text, ids",
    [
        ("", []),
        ("21m", [1, 0]),
        ("123m456p789s11z", [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27]),
        ("  1m 9p\t7z\n", [0, 17, 33]),
        ("5s5p5m", [22, 13, 4]),
    ],
)
def test_parse_examples(text, ids):
    assert parse(text) == ids


def test_fmt_is_sorted_canonical():
    assert fmt([0, 1, 2, 27, 27]) == "123m11z"
    assert fmt([33, 0, 9, 18]) == "1m1p1s7z"
    assert fmt([]) == ""
    assert fmt_counts(parse_counts("9s 1z 21m")) == "12m9s1z"


def test_round_trips_seeded():
    rng = random.Random(20240611)
    for _ in range(500):
        tiles = rng.sample(TILESET_136, rng.randint(0, 18))
        text = fmt(tiles)
        assert parse(text) == sorted(tiles)
        counts = to_counts(tiles)
        assert parse_counts(text) == counts
        assert fmt_counts(counts) == text
        assert from_counts(counts) == sorted(tiles)
        # written order survives parse
        unsorted = "".join(fmt_tile(t) for t in tiles)
        assert parse(unsorted) == tiles


def test_tile_sets():
    for n, ts, kinds in (
        (108, TILESET_108, range(27)),
        (120, TILESET_120, [*range(27), WHITE, GREEN, RED]),
        (136, TILESET_136, range(34)),
    ):
        assert tile_set(n) is ts
        assert len(ts) == n
        assert list(ts) == sorted(ts)
        assert to_counts(ts) == [4 if t in kinds else 0 for t in range(34)]
    with pytest.raises(InputError, match="108, 120 or 136"):
        tile_set(144)


@pytest.mark.parametrize(
    "text, message",
    [
        ("123m0z", "unknown tile '0z' in '123m0z'"),
        ("123m45", "digits without a suit letter '45' in '123m45'"),
        ("8z", "unknown tile '8z' in '8z'"),
        ("1230m", "unknown tile '0m' in '1230m'"),
        ("m", "suit letter 'm' without digits in 'm'"),
        ("12 3m", "digits without a suit letter '12' in '12 3m'"),
        ("1x", "unexpected character 'x' in '1x'"),
        ("1M", "unexpected character 'M' in '1M'"),
        ("1m,2m", "unexpected character ',' in '1m,2m'"),
    ],
)
def test_bad_notation_quotes_the_part_and_the_input(text, message):
    with pytest.raises(TileNotationError) as e:
        parse(text)
    assert str(e.value) == message
    assert isinstance(e.value, InputError) and isinstance(e.value, ValueError)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "expected exactly one tile, got 0 in ''"),
        ("12m", "expected exactly one tile, got 2 in '12m'"),
        ("0p", "unknown tile '0p' in '0p'"),
    ],
)
def test_parse_tile_errors(text, message):
    with pytest.raises(TileNotationError) as e:
        parse_tile(text)
    assert str(e.value) == message


def test_parse_counts_more_than_four():
    assert parse_counts("1111m")[0] == 4
    with pytest.raises(TileNotationError, match=r"more than 4 copies of '3p' in '33p 333p'"):
        parse_counts("33p 333p")


@pytest.mark.parametrize("bad", [-1, 34, 1.0, "1m"])
def test_bad_tile_ids(bad):
    with pytest.raises(ValueError):
        fmt_tile(bad)
    with pytest.raises(ValueError):
        name(bad)
