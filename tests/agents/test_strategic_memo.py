"""strategic's plan pricing, unrolled for speed, agrees bit for bit with the plain
loops it restates (:func:`simulate.agents.strategic._race_plain`,
``_finished_by_plain``): the chances feed comparisons, so equal is exact."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulate.agents.strategic import (
    _finished_by,
    _finished_by_plain,
    _race_plain,
    race,
    triplets_distance,
)
from tests.agents.races import random_steps


@pytest.mark.parametrize("n", range(1, 9))
def test_finished_by_matches_plain(n):
    rng = random.Random(n)
    for _ in range(300):
        steps = tuple(random_steps(rng, n))
        draws = rng.randint(0, 40)
        assert _finished_by(steps, draws) == _finished_by_plain(steps, draws)


def test_race_matches_plain():
    rng = random.Random(1)
    for _ in range(3000):
        steps = random_steps(rng, rng.randint(1, 7))
        rival = random_steps(rng, rng.randint(1, 7))
        draws, rivals = rng.randint(0, 35), rng.choice([0, 0, 1, 2, 3])
        assert race(steps, draws, rivals, rival) == _race_plain(steps, draws, rivals, rival)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0.0, 0.95), min_size=1, max_size=7),
    st.lists(st.floats(0.0, 0.95), min_size=1, max_size=7),
    st.integers(0, 40),
    st.integers(0, 3),
)
def test_race_hypothesis(steps, rival, draws, rivals):
    assert race(steps, draws, rivals, rival) == _race_plain(steps, draws, rivals, rival)


def test_triplets_distance_counts():
    rng = random.Random(2)
    for _ in range(2000):
        hand = [rng.choice([0, 0, 0, 1, 2, 3, 4]) for _ in range(34)]
        melds = rng.randint(0, 4)
        sets = melds + sum(1 for x in hand if x >= 3)
        need = max(0, 4 - sets)
        plain = need + max(0, need + 1 - sum(1 for x in hand if x == 2))
        assert triplets_distance(hand, melds) == plain
