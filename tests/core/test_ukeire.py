"""Tile acceptance agrees with brute force over the plain shanten function."""

import random

import pytest

from mjlog.hand import shanten
from mjlog.tiles import parse_counts, tile_set
from mjlog.ukeire import accept, after_discards


def _hands(n: int, size: int, seed: int, tiles: int = 136):
    rng = random.Random(seed)
    pool = list(tile_set(tiles))
    for _ in range(n):
        c = [0] * 34
        for t in rng.sample(pool, size):
            c[t] += 1
        yield c


def _brute_accept(c, melds):
    sh = shanten(c, melds)
    kinds = []
    for t in range(34):
        if c[t] < 4:
            c[t] += 1
            best = shanten(c, melds)  # a drawn hand: -1 if complete, else its best discard
            c[t] -= 1
            if best < sh:
                kinds.append(t)
    return sh, kinds


@pytest.mark.parametrize(
    "melds,size,tiles",
    [(0, 13, 136), (1, 10, 136), (2, 7, 108), (0, 13, 108), (0, 10, 108), (0, 7, 108)],
)
def test_accept_matches_brute_force(melds, size, tiles):
    for c in _hands(150, size, seed=melds * 10 + size, tiles=tiles):
        unseen = [4 - x for x in c]
        sh, n, kinds = accept(c, melds, unseen)
        assert (sh, kinds) == _brute_accept(c, melds)
        assert n == sum(unseen[t] for t in kinds)


@pytest.mark.parametrize("melds,size", [(0, 14), (1, 11), (3, 5), (0, 11), (0, 8)])
def test_after_discards_matches_shanten(melds, size):
    for c in _hands(200, size, seed=size):
        got = after_discards(c, melds)
        assert set(got) == {t for t in range(34) if c[t]}
        for d, v in got.items():
            c[d] -= 1
            assert v == shanten(c, melds)
            c[d] += 1


def test_unseen_limits_the_count():
    h = parse_counts("123m456p789s1122z")
    unseen = [4 - x for x in h]
    unseen[27] = 0  # every other 1z is visible
    sh, n, kinds = accept(h, 0, unseen)
    assert (sh, n, kinds) == (0, 2, [28])
