"""The project's own random routine is fixed: reference vectors must never change."""

from mjlog.rng import RNG, Stream, agent_seed, derive, hand_seed


def test_splitmix64_reference_vector():
    # SplitMix64's published test vector for seed 1234567
    s = Stream(1234567)
    assert [s.next64() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_derived_seeds_are_fixed_and_distinct():
    assert RNG == "splitmix64-fy/1"
    assert hand_seed(42, 0, 0) == derive(42, 0, 0)
    seeds = {hand_seed(1, m, h) for m in range(20) for h in range(20)}
    seeds |= {agent_seed(1, 0, 0, s) for s in range(4)}
    assert len(seeds) == 404


def test_shuffle_is_a_fixed_permutation():
    a = list(range(136))
    Stream(hand_seed(7, 0, 0)).shuffle(a)
    b = list(range(136))
    Stream(hand_seed(7, 0, 0)).shuffle(b)
    assert a == b and sorted(a) == list(range(136)) and a != list(range(136))
    assert a[:8] == FIRST_EIGHT


def test_below_is_in_range_and_uses_every_value():
    s = Stream(3)
    seen = [s.below(6) for _ in range(600)]
    assert set(seen) == set(range(6))


FIRST_EIGHT = [14, 12, 20, 4, 89, 106, 80, 62]  # frozen: a change breaks old seeds


def _seeds():
    s = Stream(2026)
    return [0, 1, 1 << 63, (1 << 64) - 1] + [s.next64() for _ in range(200)]


def test_vectorised_shuffle_equals_the_plain_loop():
    for seed in _seeds():
        for n in (0, 1, 2, 3, 108, 120, 136, 255, 256, 257, 300):
            a, b = list(range(n)), list(range(n))
            s1, s2 = Stream(seed), Stream(seed)
            s1.shuffle(a)
            s2._shuffle_loop(b)
            assert a == b, (seed, n)
            assert s1.next64() == s2.next64()  # the stream goes on from the same state


M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def _unshift(z, k):
    """The x with x ^ (x >> k) == z (64 bits)."""
    x = z
    for _ in range(64 // k + 1):
        x = z ^ (x >> k)
    return x


def _unmix64(z):
    """The inverse of SplitMix64's output function (:func:`mjlog.rng.mix64`)."""
    z = _unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & M64
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & M64
    return _unshift(z, 30)


def _rejecting_seed(draw):
    """A seed whose stream's ``draw``-th output (1-based) is 2**64 - 1, which below(n)
    rejects for every n but a power of two."""
    return (_unmix64(M64) - draw * GAMMA) & M64


def _unchecked_shuffle(seed, n):
    """Fisher-Yates taking every draw's remainder, rejected or not (the wrong shuffle)."""
    s, a = Stream(seed), list(range(n))
    for i in range(n - 1, 0, -1):
        j = s.next64() % (i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def test_a_rejected_draw_is_drawn_again():
    # a real rejection (odds about 1 in 10**17 per tile), made by inverting the output
    # function: the shuffle draws again, as the one-at-a-time loop does (a shuffle
    # that took the rejected draw's remainder would differ)
    from mjlog.rng import mix64, shuffle_many

    assert mix64(_unmix64(M64)) == M64 and mix64(_unmix64(12345)) == 12345
    # (the draw rejected, the items shuffled): its bound n - draw + 1 is no power of two
    for draw, n in ((1, 136), (1, 3), (40, 108)):
        assert (1 << 64) % (n - draw + 1)
        seed = _rejecting_seed(draw)
        s = Stream(seed)
        assert [s.next64() for _ in range(draw)][-1] == M64
        a, b = list(range(n)), list(range(n))
        s1, s2 = Stream(seed), Stream(seed)
        s1.shuffle(a)
        s2._shuffle_loop(b)
        assert a == b != _unchecked_shuffle(seed, n) and sorted(a) == list(range(n))
        ((c, s3),) = shuffle_many([seed], list(range(n)))
        assert c == a
        assert s1.next64() == s2.next64() == s3.next64()  # each goes on from one state


def test_shuffle_many_equals_one_shuffle_per_seed():
    from mjlog.rng import shuffle_many

    seeds = _seeds()
    for n in (0, 1, 2, 108, 136, 257):
        got = shuffle_many(seeds, list(range(n)))
        assert len(got) == len(seeds)
        for seed, (items, stream) in zip(seeds, got, strict=True):
            want, s = list(range(n)), Stream(seed)
            s.shuffle(want)
            assert items == want, (seed, n)
            assert stream.next64() == s.next64()  # each stream goes on from its state


def test_shuffle_many_redoes_a_stream_with_a_rejected_draw_among_others():
    # one stream among many draws a rejected value: it alone differs from the
    # vectorised draws, and every stream still ends as its one-at-a-time loop
    from mjlog.rng import shuffle_many

    seeds = _seeds()[:30] + [_rejecting_seed(1)] + _seeds()[30:60]
    got = shuffle_many(seeds, list(range(108)))
    for seed, (items, stream) in zip(seeds, got, strict=True):
        want, s = list(range(108)), Stream(seed)
        s._shuffle_loop(want)
        assert items == want
        assert stream.next64() == s.next64()


def test_a_stream_copies_at_its_state():
    # agents' streams are copied with a hand (tests/core/test_hand_parts.py) and by
    # the expert's search: in both builds a copy goes on from the state reached
    import copy
    import pickle

    s = Stream(77)
    s.below(9)
    want = [Stream(s._s).below(100) for _ in range(1)]
    for twin in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert twin is not s and type(twin) is Stream and twin._s == s._s
        assert [twin.below(100)] == want
    assert [s.below(100)] == want  # the original did not move


def _drive(stream, ops):
    """Apply ``ops`` (from :func:`_ops`) to ``stream``; every value it gave."""
    import copy

    out = []
    for op, arg in ops:
        if op == "below":
            out.append(stream.below(arg))
        elif op == "next64":
            out.append(stream.next64())
        elif op == "random":
            out.append(stream.random())
        elif op == "choice":
            out.append(stream.choice("abcdefg"[:arg]))
        elif op == "shuffle":
            a = list(range(arg))
            stream.shuffle(a)
            out.append(a)
        else:  # a copy goes on from the state reached, and so does the original
            out.append(copy.copy(stream).next64())
    return out


def _ops(seed, n):
    """``n`` calls of a stream's methods, with bounds from tiny to past 2**64's
    divisors, drawn from their own stream."""
    pick = Stream(seed)
    bounds = [1, 2, 3, 6, 7, 14, 136, 255, 256, 257, 1000, 3**30, (1 << 63) + 5]
    kinds = ["below"] * 12 + ["next64", "random", "choice", "shuffle", "copy"]
    ops = []
    for _ in range(n):
        k = kinds[pick.below(len(kinds))]
        arg = {"below": bounds[pick.below(len(bounds))], "choice": 1 + pick.below(7)}.get(
            k, pick.below(140)
        )
        ops.append((k, arg))
    return ops


def test_buffered_streams_draw_as_plain_ones():
    # the engine's seats draw from buffered streams (their next draws computed at
    # once): held to plain streams over many seeds, fills and calls, rejected draws
    # at the first, a middle and a refill's first place among them
    from mjlog.rng import buffered

    seeds = _seeds()[:60] + [_rejecting_seed(d) for d in (1, 2, 5, 9, 33)]
    for k in (1, 2, 8, 32):
        streams = buffered(seeds, k)
        for i, (seed, st) in enumerate(zip(seeds, streams, strict=True)):
            ops = _ops(seed ^ k, 80 if i < 20 else 20)
            assert _drive(st, ops) == _drive(Stream(seed), ops), (seed, k)
    # a rejected draw is skipped: the draw after it is below()'s answer, in both
    from mjlog.rng import mix64

    seed = _rejecting_seed(3)
    draws = [mix64((seed + i * GAMMA) & M64) for i in range(1, 9)]
    assert draws[2] == M64
    want = [d % 7 for d in draws[:2] + draws[3:7]]
    for s in (buffered([seed], 4)[0], Stream(seed)):
        assert [s.below(7) for _ in range(6)] == want
        assert s.next64() == draws[7]


def test_seeds_at_once_equal_derive():
    from mjlog.rng import hand_seeds, seat_seeds

    roots = [0, 1, 12345, (1 << 63) + 7, M64, 1 << 70]
    for root in roots:
        for match in (0, 3, M64, 1 << 40):
            hands = [0, 1, 2, 15, 16, 1000, M64]
            got = hand_seeds(root, match, hands)
            assert got == [hand_seed(root, match, h) for h in hands]
            seats = seat_seeds(got, 4)
            assert seats == [[agent_seed(root, match, h, s) for s in range(4)] for h in hands]


def test_buffered_draws_at_the_top_of_64_bits():
    # a buffered stream keeps residues, and computes whole the draws among the top
    # values, which below(n) may reject: draws just inside and outside that range,
    # for every small bound and a few large ones, as the plain stream and by hand
    from mjlog.rng import buffered, mix64

    for top in (M64, M64 - 1, M64 - 5, M64 - 31, M64 - 32, M64 - 33, 1 << 63):
        for draw in (1, 2, 4):
            seed = (_unmix64(top) - draw * GAMMA) & M64
            draws = [mix64((seed + i * GAMMA) & M64) for i in range(1, 60)]
            assert draws[draw - 1] == top
            for n in [*range(1, 40), 255, 1000, (1 << 63) + 5]:
                want = [d % n for d in draws if d < (1 << 64) - (1 << 64) % n][:6]
                for s in (buffered([seed], 3)[0], Stream(seed)):
                    assert [s.below(n) for _ in range(6)] == want, (top, draw, n)
