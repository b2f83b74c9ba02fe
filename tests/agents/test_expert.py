"""The ``expert`` agent: parameters, legal and deterministic play, a valid run, and
a choice that depends only on what its seat can see."""

import pytest
from click.testing import CliRunner

from mjlog.agent import SeatView
from mjlog.cli import main
from mjlog.engine import play_hand
from mjlog.errors import InputError
from mjlog.events import DEAL, DISCARD
from mjlog.hand import shanten
from mjlog.rng import Stream
from mjlog.rules import Rules
from mjlog.sampling import rebuild, sample_wall
from mjlog.state import HandState
from simulate.agents import agent_names, make_agent, make_agents
from tests.conformance import play_checked

TINY = "expert:rollouts=2;candidates=2"


def test_registered_and_parsed():
    assert "expert" in agent_names()
    a = make_agent(
        "expert:rollouts=5;most=20;candidates=4;shanten=2;policy=greedy;own=quick;"
        "z=0.5;fold=1;read=1;tries=6;confirm=1;tilt=0.3;steps=50;plans=1;reading=1"
    )
    assert a.name == "expert"
    assert a.params == {
        "rollouts": 5,
        "most": 20,
        "candidates": 4,
        "shanten": 2,
        "policy": "greedy",
        "own": "quick",
        "z": 0.5,
        "fold": 1,
        "read": 1,
        "tries": 6,
        "confirm": 1,
        "tilt": 0.3,
        "steps": 50,
        "plans": 1,
        "reading": 1,
    }


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("expert:rollouts=-1", "'rollouts' must be at least 0"),
        ("expert:rollouts=many", "bad value 'many' for expert parameter 'rollouts'"),
        ("expert:candidates=1", "'candidates' must be at least 2"),
        ("expert:most=-4", "'most' must be at least 0"),
        ("expert:z=nan", "'z' must be a finite number"),
        ("expert:z=inf", "'z' must be a finite number"),
        ("expert:fold=2", "'fold' must be 0 or 1"),
        ("expert:read=-1", "'read' must be 0 or 1"),
        ("expert:plans=2", "'plans' must be 0 or 1"),
        ("expert:reading=2", "'reading' must be 0 or 1"),
        ("expert:tries=0", "'tries' must be at least 1"),
        ("expert:tilt=-0.1", "'tilt' must be at least 0"),
        ("expert:tilt=inf", "'tilt' must be a finite number"),
        ("expert:steps=-1", "'steps' must be at least 0"),
        ("expert:policy=oracle", "bad value 'oracle' for expert parameter 'policy'"),
        ("expert:depth=3", "unknown expert parameter 'depth'"),
    ],
)
def test_bad_parameters(spec, needle):
    with pytest.raises(InputError, match=needle):
        make_agent(spec)


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_plays_legal_whole_hands(variant):
    agents = make_agents(
        [TINY + ";z=0.5;confirm=1", "strategic", TINY + ";fold=1", TINY + ";plans=1"]
    )
    st = play_checked(Rules(variant), agents, seed=4)
    assert st.over


def test_same_seed_same_run_and_the_run_validates(tmp_path):
    args = [
        "simulate",
        "--variant",
        "xuezhan",
        "--matches",
        "1",
        "--hands-per-match",
        "2",
        "--seed",
        "3",
        "--agents",
        f"{TINY},strategic,strategic,efficient",
        "--workers",
        "1",
        "--quiet",
    ]
    runs = [tmp_path / "a", tmp_path / "b"]
    for out in runs:
        res = CliRunner().invoke(main, args + ["--out", str(out)])
        assert res.exit_code == 0, res.output
    files = [
        {str(p.relative_to(r)): p.read_bytes() for p in sorted(r.rglob("*.parquet"))} for r in runs
    ]
    assert files[0] and files[0] == files[1]
    res = CliRunner().invoke(main, ["validate", str(runs[0])])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(
    "variant,spec",
    [
        (v, s)
        for v in ("yuxi", "xuezhan", "huangmei")
        for s in ("expert:rollouts=0", "expert:rollouts=2;candidates=2;z=1e9")
    ]
    + [("yuxi", "expert:rollouts=2;candidates=2;plans=1;z=1e9")],
)  # its plans use a copied stream
def test_plays_as_strategic_where_it_does_not_overrule(variant, spec):
    """Its strategic reads the seat's own stream: with no search, or a margin no
    candidate meets, the hand is strategic's event for event, and the stream
    ends where strategic's does (the search's draws come from elsewhere; the
    plans' first discards break ties on a copy)."""
    from copy import copy

    rules = Rules(variant)
    searched = compared = 0
    # a zero-variance difference meets any margin, so a hand may be overruled even
    # at z=1e9: play hands until three were not (seeded, so always the same ones)
    for h, seat in [(h, seat) for h in range(4) for seat in (0, 2)]:
        if compared >= 3:
            break
        table = make_agents(["strategic"] * 4)
        plain = play_hand(rules, table, seed=7, match=h, hand=0, dealer=h)
        agents = make_agents([spec if s == seat else "strategic" for s in range(4)])
        st = play_hand(rules, agents, seed=7, match=h, hand=0, dealer=h).state
        searched += agents[seat].searched
        if agents[seat].overruled == 0:
            assert st.events == plain.state.events
            assert copy(agents[seat].base.rng).next64() == copy(table[seat].rng).next64()
            compared += 1
    assert compared >= 3 and (searched > 0) == spec.endswith("1e9")


def test_a_committed_rollout_player_holds_to_its_plan():
    """``plans=1`` plays each plan strategic passes over with :class:`Committed`:
    strategic held to that plan while the hand is eligible for it, and strategic
    itself once it is not."""
    from simulate.agents.rollouts import Committed
    from tests.agents.seatviews import seat_view

    v = seat_view("yuxi", "11223m4456p7899s1z")
    plans = {}
    for who in ("strategic", "triplets", "pairs", "plain"):
        a = make_agent("strategic") if who == "strategic" else Committed(who)
        a.start_hand(0, None)
        R = a.reading(v)
        plans[who] = a.plan(v, R, a.plain_speed(v, [2] * 34, None))[0]
        eligible = [c[2] for c in a.plan_options(v, R, a.plain_speed(v, [2] * 34, None))[2]]
    # strategic plays the plain hand here though 碰碰胡 is eligible; 七对 is not
    assert plans["strategic"] == "plain" and eligible == ["triplets"]
    assert plans == {
        "strategic": "plain",
        "triplets": "triplets",
        "pairs": "plain",
        "plain": "plain",
    }


# ---------------------------------------------------------------- hidden state
def _replay(rules: Rules, wall, dealer: int, events, k: int) -> HandState:
    """The hand dealt from ``wall`` with the choices of ``events[:k]`` (deals from
    the wall, every other event as logged), through the checked step."""
    st = HandState(rules, wall, dealer)
    for e in events[:k]:
        if e.type == DEAL:
            e = st.auto()
        assert st.try_apply(e), e
    return st


def _other_world(rules, played, k):
    """A hand whose first ``k`` events look the same to seat 0 but in which seat 1
    holds another tile: one of its dealt tiles still held at ``k`` swapped with a
    tile still in the wall."""
    st = played.state
    wall, events = list(st.wall), st.events
    at_k = _replay(rules, wall, st.dealer, events, k)
    # seat 1's dealt positions: the deal of a wall whose tiles are their positions
    probe = HandState(rules, range(len(wall)), st.dealer)
    deals = [probe.choices.deal_event() for probe.deal_next in range(rules.n)]
    dealt = next(e.tiles for e in deals if e.seat == 1)
    for p in dealt:
        for q in range(at_k.front, at_k.back + 1):
            if wall[q] == wall[p] or not at_k.hands[1][wall[p]]:
                continue
            other = wall[:]
            other[p], other[q] = other[q], other[p]
            try:
                return at_k, _replay(rules, other, st.dealer, events, k)
            except (AssertionError, ValueError):
                continue
    return at_k, None


def _seat0_discards(events):
    """Indices of seat 0's discards, latest first: the decisions the tests put to expert."""
    return (
        k
        for k in range(len(events) - 1, 0, -1)
        if events[k].type == DISCARD and events[k].seat == 0
    )


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan"])
def test_the_choice_does_not_depend_on_hidden_tiles(variant):
    rules = Rules(variant)
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=21, match=0, hand=0, dealer=0)
    events = played.state.events
    tried = 0
    for k in _seat0_discards(events):
        a, b = _other_world(rules, played, k)
        if b is None:
            continue
        va, vb = SeatView(a, 0), SeatView(b, 0)
        assert va.history == vb.history and va.hand == vb.hand
        assert a.hands[1] != b.hands[1] and a.wall != b.wall  # what seat 0 cannot see
        picks, searched = [], []
        for st, view in ((a, va), (b, vb)):
            agent = make_agent(
                "expert:rollouts=3;shanten=8;fold=1;read=1;confirm=1;z=0;reading=1;tilt=0.4"
            )
            agent.start_hand(0, Stream(99))
            picks.append(agent.choose(view, st.act_options()))
            searched.append(agent.searched)
        assert picks[0] == picks[1]
        tried += 1
        if searched[0]:  # a decision it played out
            break
    assert tried and searched[0] == searched[1] == 1


def test_search_leaves_the_position_alone():
    """The rollouts run on rebuilt copies: the live state is untouched."""
    rules = Rules("yuxi")
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=8, match=0, hand=0, dealer=0)
    events = played.state.events
    searched = 0
    for k in _seat0_discards(events):
        st = _replay(rules, list(played.state.wall), 0, events, k)
        before = (list(st.events), [h[:] for h in st.hands], st.front, st.back)
        agent = make_agent("expert:rollouts=2;shanten=8")
        agent.start_hand(0, Stream(1))
        pick = agent.choose(SeatView(st, 0), st.act_options())
        assert pick in st.act_options()
        assert before == (list(st.events), [h[:] for h in st.hands], st.front, st.back)
        searched = agent.searched
        if searched:
            break
    assert searched == 1


def test_the_read_never_rules_out_the_real_hand():
    """``read`` drops samples where a seat let a win go by; in a real hand every
    agent took its wins, so the true wall is never dropped."""
    rules = Rules("xuezhan")
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=4, match=0, hand=0, dealer=0)
    events, wall = played.state.events, list(played.state.wall)
    assert sum(e.type == "win" for e in events) >= 2  # wins mid-hand to read past
    checked = 0
    for k in _seat0_discards(events):
        st = _replay(rules, wall, 0, events, k)
        view = SeatView(st, 0)
        assert rebuild(view, view.history, wall, read=True).hands == st.hands
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("tilt", [0.0, 0.4])
@pytest.mark.parametrize(
    "variant,seed,pinned",
    [
        ("xuezhan", 12, lambda e: e.type == "win" and e.kind == "self_draw"),
        ("huangmei", 3, lambda e: e.type == "bonus"),
    ],
)
def test_the_history_replays_on_every_sample(variant, seed, pinned, tilt):
    """What the history pins down is placed, not guessed: another seat's self-drawn
    winning tile on its last draw, a bonus tile laid out on the draw it came
    from, an unseen bonus tile only where it could still be unseen. So every
    sample replays (no retries, no dropped samples)."""
    rules = Rules(variant)
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=seed, match=0, hand=0, dealer=0)
    events, wall = played.state.events, list(played.state.wall)
    k = next(_seat0_discards(events))
    assert any(pinned(e) and e.seat != 0 for e in events[:k])  # the case is there
    checked = 0
    for k in list(_seat0_discards(events))[::3]:
        view = SeatView(_replay(rules, wall, 0, events, k), 0)
        for i in range(4):
            rebuild(view, view.history, sample_wall(view, view.history, Stream(i), tilt, 200))
            checked += 1
    assert checked >= 12


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_the_tilt_brings_the_other_hands_toward_ready(variant):
    """A uniform sample leaves the other seats' hands further from ready than the
    table's own late in a hand; the tilt moves them closer, and changes no tile
    the seat can see (the history still replays: the seat's hand, discards,
    melds and counts are as they were)."""
    rules = Rules(variant)
    far = {0.0: [], 0.4: []}
    true = []
    for seed in range(3):
        played = play_hand(
            rules, make_agents(["strategic"] * 4), seed=seed, match=0, hand=0, dealer=0
        )
        events, wall = played.state.events, list(played.state.wall)
        for k in list(_seat0_discards(events))[:3]:
            st = _replay(rules, wall, 0, events, k)
            view = SeatView(st, 0)
            others = [s for s in range(1, 4) if not st.won[s]]
            true += [shanten(st.hands[s], len(st.melds[s])) for s in others]
            for tilt, got in far.items():
                for i in range(3):
                    w = sample_wall(view, view.history, Stream(i), tilt, 300)
                    sample = rebuild(view, view.history, w)
                    assert sample.hands[0] == st.hands[0] and sample.live == st.live
                    got += [shanten(sample.hands[s], len(sample.melds[s])) for s in others]
    mean = {t: sum(v) / len(v) for t, v in far.items()}
    truth = sum(true) / len(true)
    assert mean[0.4] < mean[0.0] - 0.5
    assert abs(mean[0.4] - truth) < abs(mean[0.0] - truth)


def test_the_search_spends_more_only_where_an_alternative_leads():
    """``rollouts`` samples for every searched decision, up to ``most`` where an
    alternative's mean beats strategic's pick: some decisions get more, not all;
    ``most`` ≤ ``rollouts`` is the fixed budget."""
    rules = Rules("huangmei")
    drawn = {}
    for spec in ("expert:rollouts=2;most=8", "expert:rollouts=2;most=2"):
        agents = make_agents([spec, "strategic", "strategic", "strategic"])
        play_hand(rules, agents, seed=5, match=0, hand=0, dealer=0)
        drawn[spec] = (agents[0].searched, agents[0].sampled)
    searched, sampled = drawn["expert:rollouts=2;most=8"]
    assert searched and 2 * searched < sampled < 8 * searched
    searched, sampled = drawn["expert:rollouts=2;most=2"]
    assert searched and sampled == 2 * searched
