"""The all-discards acceptance kernel (:func:`mjlog.ukeire.accept_after`) and the
unrolled :func:`mjlog.ukeire.after_discards` agree with the plain functions they
restate, over many hand shapes: full hands, void-short hands, melds, seven pairs,
kinds held four times, unseen counts thinned or zero."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjlog.hand import shanten
from mjlog.tiles import tile_set
from mjlog.ukeire import accept, accept_after, after_discards


def _plain(c, melds, unseen, kinds):
    out = []
    for d in kinds:
        c[d] -= 1
        out.append(accept(c, melds, unseen)[1])
        c[d] += 1
    return out


def _hand(rng, tiles, size):
    c = [0] * 34
    for t in rng.sample(list(tile_set(tiles)), size):
        c[t] += 1
    return c


@pytest.mark.parametrize("seed", range(6))
def test_accept_after_matches_accept(seed):
    rng = random.Random(seed)
    for _ in range(700):
        melds = rng.choice([0, 0, 0, 1, 2, 3, 4])
        short = rng.choice([0, 0, 0, 1, 2, 4])  # void tiles taken out
        size = max(2, 14 - 3 * melds - short)
        c = _hand(rng, rng.choice([136, 108]), size)
        unseen = [max(0, 4 - x - rng.choice([0, 0, 1, 2, 4])) for x in c]
        kinds = [t for t in range(34) if c[t]]
        rng.shuffle(kinds)
        assert accept_after(c, melds, unseen, kinds) == _plain(c, melds, unseen, kinds)


def test_accept_after_on_crowded_hands():
    """Pairs, triplets and fours of few kinds: seven pairs and the fifth-copy rule."""
    rng = random.Random(7)
    for _ in range(1500):
        c = [0] * 34
        kinds = rng.sample(range(34), rng.randint(4, 7))
        while sum(c) < 14:
            t = rng.choice(kinds)
            if c[t] < 4:
                c[t] += 1
        unseen = [4 - x for x in c]
        held = [t for t in range(34) if c[t]]
        assert accept_after(c, 0, unseen, held) == _plain(c, 0, unseen, held)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 33), min_size=2, max_size=14),
    st.integers(0, 4),
    st.lists(st.integers(0, 4), min_size=34, max_size=34),
)
def test_accept_after_hypothesis(tiles, melds, unseen):
    c = [0] * 34
    for t in tiles:
        if c[t] < 4:
            c[t] += 1
    if sum(c) + 3 * melds > 14:
        melds = (14 - sum(c)) // 3
    kinds = [t for t in range(34) if c[t]]
    assert accept_after(c, melds, unseen, kinds) == _plain(c, melds, unseen, kinds)


@pytest.mark.parametrize("melds", range(5))
def test_after_discards_matches_shanten_on_short_hands(melds):
    """A xuezhan hand without its void suit is short: each discard still matches
    the plain shanten of what is left (rank_discards reads it for every hand)."""
    rng = random.Random(melds)
    for _ in range(400):
        size = max(2, 14 - 3 * melds - rng.choice([0, 1, 2, 3, 5]))
        c = _hand(rng, 108, size)
        got = after_discards(c, melds)
        assert list(got) == [t for t in range(34) if c[t]]
        for d, v in got.items():
            c[d] -= 1
            assert v == shanten(c, melds)
            c[d] += 1


def test_id_tables_match_the_automaton_walk():
    """_reads (one lookup per pattern) against _reads_walk (the automaton, rank by
    rank): every honor pattern, and suit patterns at random."""
    from itertools import product

    from mjlog.ukeire import _reads, _reads_walk

    for key in product(range(5), repeat=7):
        b = bytes(key)
        assert _reads(b, 1) == _reads_walk(b, 1)
        assert _reads(b, -1) == _reads_walk(b, -1)
    rng = random.Random(3)
    for _ in range(20000):
        b = bytes(rng.choice([0, 0, 0, 1, 1, 2, 3, 4]) for _ in range(9))
        assert _reads(b, 1) == _reads_walk(b, 1)
        assert _reads(b, -1) == _reads_walk(b, -1)


def test_near_in_mask_matches_the_rule():
    """near_in depends on which ranks are held: every one of the 512 patterns."""
    from mjlog.ukeire import _near_in_plain, near_in

    for mask in range(512):
        for x in (1, 4):
            key = bytes(x if mask >> r & 1 else 0 for r in range(9))
            assert near_in(key, 18) == _near_in_plain(key, 18)
    for mask in range(128):
        key = bytes(2 if mask >> r & 1 else 0 for r in range(7))
        assert near_in(key, 27) == _near_in_plain(key, 27)


def test_near_table_matches_near_in_of_every_held_mask():
    """accept_after reads the ranks to try by the held ranks' mask: the table is
    near_in (held to the rule above) of every pattern, whatever the copies held."""
    from mjlog.ukeire import _NEAR, near_in

    rng = random.Random(4)
    for _ in range(5000):
        n = rng.choice([7, 9])
        key = bytes(rng.choice([0, 0, 1, 1, 2, 3, 4]) for _ in range(n))
        mask = sum(1 << r for r, x in enumerate(key) if x)
        assert _NEAR[n][mask] == near_in(key, 0)
    for n in (7, 9):
        for mask in range(1 << n):
            key = bytes(1 if mask >> r & 1 else 0 for r in range(n))
            assert _NEAR[n][mask] == near_in(key, 0)
