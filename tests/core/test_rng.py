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


def test_a_rejected_draw_falls_back_to_the_plain_loop(monkeypatch, request):
    import numpy as np

    import mjlog.rng as rng

    # pretend every draw above 2**63 is rejected: the vectorised check must notice
    # and hand over to the loop, whose own (true) limits then decide
    monkeypatch.setattr(rng, "_TOPS_U", np.full(257, 1 << 63, dtype=np.uint64))
    rng._shuffle_plan.cache_clear()  # plans hold bounds read from _TOPS_U
    request.addfinalizer(rng._shuffle_plan.cache_clear)
    calls = []
    real = Stream._shuffle_loop
    monkeypatch.setattr(
        Stream, "_shuffle_loop", lambda self, items: (calls.append(len(items)), real(self, items))
    )
    a = list(range(136))
    Stream(7).shuffle(a)
    assert calls == [136]
    b = list(range(136))
    real(Stream(7), b)
    assert a == b


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


def test_shuffle_many_redoes_only_a_stream_with_a_rejected_draw(monkeypatch, request):
    import numpy as np

    import mjlog.rng as rng

    # about half the streams now see a "rejected" draw: those alone must be redone
    monkeypatch.setattr(rng, "_TOPS_U", np.full(257, (1 << 64) - (1 << 57), dtype=np.uint64))
    rng._shuffle_plan.cache_clear()
    request.addfinalizer(rng._shuffle_plan.cache_clear)
    redone = []
    real = rng._shuffled_with
    monkeypatch.setattr(
        rng, "_shuffled_with", lambda seed, items: (redone.append(seed), real(seed, items))[1]
    )
    seeds = _seeds()[:60]
    got = rng.shuffle_many(seeds, list(range(108)))
    assert 0 < len(redone) < len(seeds)
    for seed, (items, _s) in zip(seeds, got, strict=True):
        want = list(range(108))
        Stream(seed)._shuffle_loop(want)
        assert items == want
