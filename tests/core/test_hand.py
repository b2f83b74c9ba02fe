"""mjlog.hand against plain references: an exhaustive check on every one-suit hand,
a brute-force shanten, hypothesis properties (derandomized), scripted hands and
the ``mjlog analyse`` command."""

from __future__ import annotations

import random
from functools import cache
from itertools import combinations_with_replacement

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mjlog.cli import main
from mjlog.hand import (
    IMPOSSIBLE,
    MISS_OTHER_SUITS,
    decompositions,
    holds_void,
    is_seven_pairs,
    is_standard_win,
    is_win,
    key_misses,
    shanten,
    shanten_seven_pairs,
    shanten_standard,
    suit_keys,
    suit_misses,
    waits,
)
from mjlog.melds import Meld, MeldKind
from mjlog.tiles import TILESET_136, fmt, parse_counts

# ---------------------------------------------------------------- references


@cache
def ref_decomps(c: tuple[int, ...], sequences: bool, melds: int, pairs: int) -> frozenset:
    """Every way to split counts ``c`` into exactly ``melds`` melds and ``pairs``
    pairs, as sorted tuples of (shape, index). The lowest tile must start a pair,
    a triplet or a sequence; try each."""
    i = next((k for k, x in enumerate(c) if x), None)
    if i is None:
        return frozenset({()}) if melds == 0 and pairs == 0 else frozenset()
    out = set()

    def take(shape, used, m, p):
        rest = list(c)
        for k in used:
            rest[k] -= 1
        for d in ref_decomps(tuple(rest), sequences, m, p):
            out.add(tuple(sorted(d + ((shape, i),))))

    if pairs and c[i] >= 2:
        take("pair", (i, i), melds, pairs - 1)
    if melds and c[i] >= 3:
        take("trip", (i, i, i), melds - 1, pairs)
    if melds and sequences and i + 2 < len(c) and c[i + 1] and c[i + 2]:
        take("seq", (i, i + 1, i + 2), melds - 1, pairs)
    return frozenset(out)


@cache
def ref_hand_decomps(c: tuple[int, ...], melds: int, pairs: int) -> frozenset:
    """``ref_decomps`` over all 34 kinds: sequences stay inside a suit."""
    i = next((k for k, x in enumerate(c) if x), None)
    if i is None:
        return frozenset({()}) if melds == 0 and pairs == 0 else frozenset()
    out = set()
    options = []
    if pairs and c[i] >= 2:
        options.append(("pair", (i, i), melds, pairs - 1))
    if melds and c[i] >= 3:
        options.append(("trip", (i, i, i), melds - 1, pairs))
    if melds and i < 27 and i % 9 < 7 and c[i + 1] and c[i + 2]:
        options.append(("seq", (i, i + 1, i + 2), melds - 1, pairs))
    for shape, used, m, p in options:
        rest = list(c)
        for k in used:
            rest[k] -= 1
        for d in ref_hand_decomps(tuple(rest), m, p):
            out.add(tuple(sorted(d + ((shape, i),))))
    return frozenset(out)


def one_suit_hands(kinds: int, tiles: int):
    """Every count vector of ``kinds`` kinds, 0..4 each, summing to ``tiles``."""
    if kinds == 0:
        if tiles == 0:
            yield ()
        return
    for x in range(min(4, tiles) + 1):
        for rest in one_suit_hands(kinds - 1, tiles - x):
            yield (x, *rest)


def as_ref(d, base: int) -> tuple:
    return tuple(
        sorted([*((s.name.lower(), t - base) for s, t in d.sets), ("pair", d.pair - base)])
    )


@cache
def complete_targets(n: int, sequences: bool):
    """Every complete suit pattern (at most 4 melds and one pair, at most 4 of a
    kind) as numpy arrays: patterns, their melds, their pair flag."""
    np = pytest.importorskip("numpy")
    shapes = [tuple(3 if j == i else 0 for j in range(n)) for i in range(n)]
    if sequences:
        shapes += [tuple(1 if i <= j < i + 3 else 0 for j in range(n)) for i in range(n - 2)]
    rows, melds, pair = [], [], []
    for m in range(5):
        for combo in combinations_with_replacement(shapes, m):
            base = [sum(col) for col in zip(*combo, strict=True)] if combo else [0] * n
            for p in [None, *range(n)]:
                target = list(base)
                if p is not None:
                    target[p] += 2
                if max(target) <= 4:
                    rows.append(target)
                    melds.append(m)
                    pair.append(p is not None)
    return np.array(rows), np.array(melds), np.array(pair)


def ref_std_costs(suit: tuple[int, ...], sequences: bool) -> dict[tuple[int, int], int]:
    """(melds, pair) -> fewest tiles missing from this suit, trying every target."""
    np = pytest.importorskip("numpy")
    rows, melds, pair = complete_targets(len(suit), sequences)
    cost = np.maximum(rows - np.array(suit), 0).sum(axis=1)
    return {
        (m, h): int(cost[(melds == m) & (pair == h)].min()) for m in range(5) for h in (False, True)
    }


_COSTS: dict = {}


def ref_shanten_standard(counts: list[int], melds: int) -> int:
    """Fewest tiles to draw for some complete hand, minus one, by brute force."""
    per = []
    for a, b, seq in ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False)):
        key = (tuple(counts[a:b]), seq)
        if key not in _COSTS:
            _COSTS[key] = ref_std_costs(*key)
        per.append(_COSTS[key])
    need = 4 - melds
    best = 99
    for head in range(4):
        for m0 in range(need + 1):
            for m1 in range(need + 1 - m0):
                for m2 in range(need + 1 - m0 - m1):
                    ms = (m0, m1, m2, need - m0 - m1 - m2)
                    best = min(best, sum(per[s][(ms[s], s == head)] for s in range(4)))
    return best - 1


def add(counts, t, k=1):
    c = list(counts)
    c[t] += k
    return c


# ---------------------------------------------------------------- exhaustive


@pytest.mark.parametrize("honors", [False, True], ids=["suit", "honors"])
@pytest.mark.parametrize("tiles", [2, 5, 8, 11, 14])
def test_every_one_suit_hand_against_recursive_reference(tiles, honors):
    melds = (14 - tiles) // 3
    kinds, base = (7, 27) if honors else (9, 0)
    wins = 0
    for suit in one_suit_hands(kinds, tiles):
        counts = [0] * 34
        counts[base : base + kinds] = suit
        ref = ref_decomps(suit, not honors, 4 - melds, 1)
        seven = melds == 0 and all(x % 2 == 0 for x in suit)
        assert is_win(counts, melds) == bool(ref or seven), suit
        if not (ref or seven):
            continue
        wins += 1
        assert is_standard_win(counts, melds) == bool(ref)
        decs = decompositions(counts, melds)
        std = [d for d in decs if d.kind == "standard"]
        assert len(std) == len(ref), suit
        assert {as_ref(d, base) for d in std} == set(ref), suit
        if seven:
            assert decs[-1].kind == "seven_pairs"
            pairs = tuple(base + i for i, x in enumerate(suit) for _ in range(x // 2))
            assert decs[-1].pairs == pairs
        else:
            assert len(decs) == len(std)
        assert shanten(counts, melds) == -1
    assert wins > 0


@pytest.mark.parametrize("honors", [False, True], ids=["suit", "honors"])
@pytest.mark.parametrize("tiles", [1, 4, 7, 10, 13])
def test_waits_of_every_one_suit_hand(tiles, honors):
    melds = (13 - tiles) // 3
    kinds, base = (7, 27) if honors else (9, 0)
    ready = 0
    for suit in one_suit_hands(kinds, tiles):
        counts = [0] * 34
        counts[base : base + kinds] = suit
        brute = [base + r for r in range(kinds) if is_win(add(counts, base + r), melds)]
        w = waits(counts, melds)
        assert w == brute, suit
        ready += bool(w)
        if melds and suit[0] < 4:
            # a meld holding that kind takes its last copies
            held = add(counts, base, 4 - suit[0])
            assert waits(counts, melds, held) == [t for t in brute if t != base]
    assert ready > 0


# ---------------------------------------------------------------- shanten


def random_hand(rng: random.Random, tiles: int, kinds: int = 34) -> list[int]:
    pool = [t for t in rng.sample(range(34), kinds) for _ in range(4)]
    counts = [0] * 34
    for t in rng.sample(pool, tiles):
        counts[t] += 1
    return counts


def test_shanten_standard_against_brute_force():
    rng = random.Random(42)
    for i in range(400):
        melds = i % 5
        tiles = 13 - 3 * melds + (i % 2)
        # few kinds: many triplets and fours, where the four-copies limit bites
        counts = random_hand(rng, tiles, rng.choice([4, 6, 9, 34]))
        assert shanten_standard(counts, melds) == ref_shanten_standard(counts, melds), (
            fmt([t for t in range(34) for _ in range(counts[t])]),
            melds,
        )


def test_shanten_matches_mahjong_package():
    mj = pytest.importorskip("mahjong.shanten")
    rng = random.Random(7)
    for i in range(3000):
        counts = random_hand(rng, 13, 34 if i % 2 else rng.randint(4, 12))
        theirs = mj.Shanten.calculate_shanten(counts, use_chiitoitsu=True, use_kokushi=False)
        assert shanten(counts, fours_as_pairs=False) == theirs, counts


# ---------------------------------------------------------------- properties


@st.composite
def hands(draw, ready_tiles: bool = True):
    """A hand of 13 - 3m tiles (14 - 3m if not ``ready_tiles``): either random
    or a complete hand with a few tiles replaced (so often ready or close)."""
    melds = draw(st.integers(0, 4))
    size = (13 if ready_tiles else 14) - 3 * melds
    if draw(st.booleans()):
        tiles = draw(st.randoms(use_true_random=False)).sample(TILESET_136, size)
        return [tiles.count(t) for t in range(34)], melds
    counts = [0] * 34
    for _ in range(4 - melds):
        t = draw(st.integers(0, 33))
        shape = [t, t + 1, t + 2] if t < 27 and t % 9 < 7 and draw(st.booleans()) else [t] * 3
        for x in shape:
            counts[x] += 1
    counts[draw(st.integers(0, 33))] += 2
    for _ in range(draw(st.integers(int(ready_tiles), 2))):
        counts[draw(st.sampled_from([t for t in range(34) if counts[t]]))] -= 1
    while sum(counts) < size:
        counts[draw(st.integers(0, 33))] += 1
    while sum(counts) > size:
        counts[draw(st.sampled_from([t for t in range(34) if counts[t]]))] -= 1
    for t in range(34):  # more than four copies: move the extras to free kinds
        while counts[t] > 4:
            counts[t] -= 1
            counts[counts.index(0)] += 1
    return counts, melds


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands(), st.lists(st.integers(0, 33), max_size=6))
def test_waits_are_the_winning_kinds(hand, meld_tiles):
    counts, melds = hand
    brute = [t for t in range(34) if is_win(add(counts, t), melds)]
    assert waits(counts, melds) == brute
    assert waits(counts, melds, held=[0] * 34) == brute
    held = list(counts)
    for t in meld_tiles:
        held[t] = min(4, held[t] + 3)
    assert waits(counts, melds, held) == [t for t in brute if held[t] < 4]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands())
def test_suit_misses_never_rules_out_a_winning_tile(hand):
    counts, melds = hand
    miss = suit_misses(counts)
    for t in range(34):
        if is_win(add(counts, t), melds):
            assert not miss & MISS_OTHER_SUITS[t], (fmt(counts), t)
    # and it does rule out: two suits that fit no complete hand leave no wait
    assert miss != 15 or not waits(counts, melds)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands())
def test_the_misses_of_a_hands_keys_are_its_suit_misses(hand):
    # the seats keep a hand as suit_keys() and read its misses from them
    counts, _melds = hand
    assert key_misses(suit_keys(counts)) == suit_misses(counts)
    for t in range(34):
        if counts[t]:
            fewer = add(counts, t, -1)
            assert key_misses(suit_keys(fewer)) == suit_misses(fewer)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands())
def test_shanten_zero_iff_ready(hand):
    counts, melds = hand
    w = waits(counts, melds)
    s = shanten(counts, melds, fours_as_pairs=True)
    assert s >= 0
    assert (s == 0) == bool(w)
    std_waits = [t for t in range(34) if is_standard_win(add(counts, t), melds)]
    assert (shanten_standard(counts, melds) == 0) == bool(std_waits)
    if max(counts) <= 2:
        # the default seven-pairs convention only differs for triplets and fours
        assert (shanten(counts, melds) == 0) == bool(w)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands(), st.data())
def test_swapping_one_tile_moves_shanten_by_at_most_one(hand, data):
    counts, melds = hand
    out = data.draw(st.sampled_from([t for t in range(34) if counts[t]]))
    into = data.draw(st.sampled_from([t for t in range(34) if t != out and counts[t] < 4]))
    swapped = add(add(counts, out, -1), into)
    for fours in (False, True):
        a = shanten(counts, melds, fours_as_pairs=fours)
        b = shanten(swapped, melds, fours_as_pairs=fours)
        assert abs(a - b) <= 1
    assert abs(shanten_standard(counts, melds) - shanten_standard(swapped, melds)) <= 1


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands(ready_tiles=False))
def test_complete_iff_shanten_minus_one(hand):
    counts, melds = hand
    assert (shanten(counts, melds) == -1) == is_win(counts, melds)
    assert (shanten(counts, melds, fours_as_pairs=True) == -1) == is_win(counts, melds)
    assert bool(decompositions(counts, melds)) == is_win(counts, melds)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands(ready_tiles=False))
def test_decompositions_of_mixed_hands(hand):
    counts, melds = hand
    ref = ref_hand_decomps(tuple(counts), 4 - melds, 1)
    std = [d for d in decompositions(counts, melds) if d.kind == "standard"]
    assert {as_ref(d, 0) for d in std} == set(ref)
    assert len(std) == len(ref)


# ---------------------------------------------------------------- scripted


@pytest.mark.parametrize("suit", "mps")
def test_nine_gates_waits_on_all_nine(suit):
    counts = parse_counts("1112345678999" + suit)
    assert fmt(waits(counts)) == "123456789" + suit
    assert shanten(counts) == 0


def test_seven_pairs_with_a_four():
    counts = parse_counts("1111m22p33s445566z")
    assert is_win(counts) and is_seven_pairs(counts) and not is_standard_win(counts)
    (d,) = decompositions(counts)
    assert d.kind == "seven_pairs" and d.pair is None and d.sets == ()
    assert d.pairs == (0, 0, 10, 20, 30, 31, 32)
    assert shanten(counts) == -1 == shanten_seven_pairs(counts)
    # one tile short: the wait makes the four; the rulebook calls it ready, the riichi
    # convention (fours_as_pairs=False) does not
    ready = parse_counts("111m22p33s445566z")
    assert waits(ready) == [0]
    assert shanten(ready) == 0 == shanten_seven_pairs(ready)
    assert shanten_seven_pairs(ready, fours_as_pairs=False) == 1
    assert shanten(ready, fours_as_pairs=False) == 1
    assert not is_win(counts, melds=1)
    assert shanten_seven_pairs(counts, melds=1) == IMPOSSIBLE


def test_seven_pairs_shanten_zero_iff_a_tile_makes_seven_pairs():
    """The one seven-pairs formula (hand.seven_pairs_shanten, behind shanten(),
    shanten_seven_pairs() and ukeire) against the shape itself, on hands rich
    in pairs; and shanten() is the lesser of the two forms."""
    rng = random.Random(7)
    pool = [t for t in range(34) for _ in range(4)]
    for _ in range(400):
        c = [0] * 34
        for t in rng.sample(pool[: 4 * rng.choice((5, 8, 34))], 13):  # few kinds: pairs
            c[t] += 1
        sp = shanten_seven_pairs(c)
        ready = False
        for t in range(34):
            if c[t] < 4:
                c[t] += 1
                ready |= is_seven_pairs(c)
                c[t] -= 1
        assert (sp == 0) == ready, c
        assert shanten(c) == min(shanten_standard(c), sp)


def test_holds_void_reads_the_hand_and_its_melds():
    hand = parse_counts("123m456m789m11z")
    assert not holds_void(hand, (), 1) and not holds_void(hand, (), None)
    assert holds_void(hand, (Meld(MeldKind.PON, 13, 2),), 1)  # a pon of 5p
    assert holds_void(hand, (), 0)


def test_waits_exclude_a_kind_held_four_times():
    counts = parse_counts("123m456p789s5z")  # a pon of 5z besides
    assert waits(counts, 1) == [31]
    held = add(counts, 31, 3)
    assert waits(counts, 1, held) == []
    # the wait of 1111m234p567p789p would be a fifth 1m
    assert waits(parse_counts("1111m234p567p789p")) == []
    assert shanten(parse_counts("1111m234p567p789p")) == 1


@pytest.mark.parametrize(
    "text, melds, win, n_decs, sh",
    [
        ("11122233344455m", 0, True, 4, -1),
        ("22334455667788p", 0, True, 4, -1),
        ("11223344556677z", 0, True, 1, -1),
        ("123m11z", 3, True, 1, -1),
        ("11z", 4, True, 1, -1),
        ("123m456p789s1234z", 0, False, 0, 2),
        ("19m19p19s1234567z", 0, False, 0, 6),
        ("147m258p369s1234z", 0, False, 0, 6),
    ],
)
def test_scripted_hands(text, melds, win, n_decs, sh):
    counts = parse_counts(text)
    assert is_win(counts, melds) == win
    assert len(decompositions(counts, melds)) == n_decs
    assert shanten(counts, melds) == sh


def test_decomposition_order_is_deterministic():
    counts = parse_counts("11122233344455m")
    decs = decompositions(counts)
    assert [(d.pair, d.sets) for d in decs] == sorted((d.pair, d.sets) for d in decs)
    assert decs == decompositions(list(counts))


@pytest.mark.parametrize(
    "bad",
    [[0] * 33, [5] + [0] * 33, [-1] + [0] * 33, [0.5] + [0] * 33],
    ids=["33 counts", "five", "negative", "float"],
)
def test_bad_counts_raise(bad):
    for f in (shanten, shanten_standard, shanten_seven_pairs, waits, decompositions):
        with pytest.raises(ValueError):
            f(bad)


def test_bad_melds_raise():
    with pytest.raises(ValueError):
        shanten(parse_counts("1m"), 5)


# ---------------------------------------------------------------- CLI


def test_cli_analyse_nine_gates():
    r = CliRunner().invoke(main, ["analyse", "1112345678999m"])
    assert r.exit_code == 0, r.output
    assert "hand:     1112345678999m  (13 tiles, 0 melds)" in r.output
    assert "🀇🀇🀇🀈" in r.output and "一万 一万 一万 二万" in r.output
    assert "shanten:  0  (standard 0, seven pairs 4)" in r.output
    assert "waits:    123456789m" in r.output and "(9 kinds)" in r.output


def test_cli_analyse_win_with_melds():
    r = CliRunner().invoke(main, ["analyse", "123m11z", "--melds", "3"])
    assert r.exit_code == 0, r.output
    assert "win:      yes, 1 decomposition" in r.output
    assert "pair 11z; 123m" in r.output
    assert "seven pairs n/a" in r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["123m0z"], "unknown tile '0z' in '123m0z'"),
        (["123m45"], "digits without a suit letter '45'"),
        (["123m"], "a hand with 3 melds has 4 or 5 tiles, got 3"),
        (["1112345678999m", "--melds", "1"], "a hand with 1 melds has 10 or 11 tiles"),
    ],
)
def test_cli_analyse_bad_input_is_one_line_exit_2(args, message):
    r = CliRunner().invoke(main, ["analyse", *args])
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output
