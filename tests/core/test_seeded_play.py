"""The engine draws a match's seeds, walls and seats' streams together
(:func:`mjlog.rng.hand_seeds`, :func:`mjlog.rng.shuffle_many`, :func:`mjlog.rng.buffered`):
held here to the plain hand-by-hand play those replace, the one the auditor checks."""

import pytest

from mjlog.agent import GreedyAgent, RandomAgent
from mjlog.engine import deal, play, play_hand, play_match
from mjlog.rng import Stream, agent_seed
from mjlog.rules import Rules


def _plain(rules, agents, seed, match, hands, duplicate):
    """play_match written hand by hand: deal() from the seed, each seat's own Stream."""
    dealer = first = None
    for k in range(hands):
        if duplicate and first is not None:
            dealer = (first + k) % rules.n
        state, hs, rolls = deal(rules, seed, match, k, dealer)
        for s, a in enumerate(agents):
            a.start_hand(s, Stream(agent_seed(seed, match, k, s)))
        play(state, agents)
        yield state.events, state.deltas, hs, rolls
        if first is None:
            first = state.dealer
        dealer = state.next_dealer


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
@pytest.mark.parametrize("duplicate", [False, True])
def test_a_match_plays_as_hand_by_hand(variant, duplicate):
    r = Rules(variant)
    for agent in (RandomAgent, GreedyAgent):
        agents = [agent() for _ in range(r.n)]
        # 20 hands: past the 16 whose seeds are drawn at once
        got = [
            (p.state.events, p.state.deltas, p.hand_seed, p.dealer_rolls)
            for p in play_match(r, agents, 4242, 3, 20, duplicate=duplicate)
        ]
        want = list(_plain(r, agents, 4242, 3, 20, duplicate))
        assert got == want


def test_one_hand_plays_as_dealt_by_hand():
    r = Rules("yuxi")
    agents = [RandomAgent() for _ in range(4)]
    p = play_hand(r, agents, 99, 7, 5, dealer=2)
    state, hs, rolls = deal(r, 99, 7, 5, 2)
    for s, a in enumerate(agents):
        a.start_hand(s, Stream(agent_seed(99, 7, 5, s)))
    play(state, agents)
    assert (p.state.events, p.state.deltas, p.hand_seed, p.dealer_rolls) == (
        state.events,
        state.deltas,
        hs,
        rolls,
    )
