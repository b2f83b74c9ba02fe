"""The expert's measuring tools (research/): the paired A/B, the calibration of its
search, the ceiling of a search that sees the real hands and its ready-seats twin.
Run by ``make research``, not ``make test``."""

from __future__ import annotations

import pytest

from mjlog.agent import SeatView
from mjlog.engine import play_hand
from mjlog.hand import shanten
from mjlog.rng import Stream
from mjlog.rules import Rules
from research.expert_ab import paired_edge
from research.expert_calibration import ReadySeeing, Seeing, ceiling, pinned_wall
from simulate.agents import make_agent, make_agents, parse_spec
from tests.agents.test_expert import _replay, _seat0_discards


def test_paired_edge_is_zero_for_strategic_itself():
    r = paired_edge("xuezhan", "expert:rollouts=0", hands=2, seed=3)
    assert (r["diff"], r["lo"], r["hi"], r["units"], r["seat_hands"]) == (0.0, 0.0, 0.0, 2, 8)
    r = paired_edge("yuxi", "greedy", hands=2, seed=3)
    assert r["units"] == 2 and r["lo"] <= r["diff"] <= r["hi"] and r["diff"] != 0
    assert sum(r["per_hand"]) / 2 == pytest.approx(r["diff"])
    # an agent no spec names, made by the caller, plays exactly as its spec would
    made = paired_edge("yuxi", "mine", hands=2, seed=3, make=lambda: make_agent("greedy"))
    assert (made["agent"], made["per_hand"]) == ("mine", r["per_hand"])


def test_calibration_plays_the_truth_on_the_real_tiles():
    """The truth of the pick is the hand's own result (the table goes on exactly as
    it did); the estimate is the search's mean lead; the summary fits truth on
    estimate per spec (scipy's linregress) and groups the decisions by kind."""
    from research.expert_calibration import calibrate, summarize

    rules = Rules("xuezhan")
    rows = calibrate("xuezhan", hands=3, samples=2, specs=("expert", "expert:tilt=0.4"))
    real = {
        h: play_hand(
            rules, make_agents(["strategic"] * 4), seed=2026, match=h, hand=0, dealer=h % 4
        ).state.deltas[0]
        for h in range(3)
    }
    assert len({r["hand"] for r in rows}) == 3 and len(rows) > 20
    assert all(r["pick_points"] == real[r["hand"]] for r in rows)
    assert any(r["truth"] != 0 for r in rows)
    assert rows == calibrate("xuezhan", hands=3, samples=2, specs=("expert", "expert:tilt=0.4"))
    s = summarize(rows)
    assert [x["spec"] for x in s] == ["expert", "expert:tilt=0.4"]
    kinds = s[0]["kinds"]
    assert sum(k["n"] for k in kinds.values()) == s[0]["pairs"] == len(rows)
    assert "discard→discard" in kinds and -1 <= s[0]["r"] <= 1 and s[0]["reliability"] <= 1
    with pytest.raises(ValueError, match="expert"):
        calibrate("xuezhan", hands=1, specs=("strategic",))


def test_calibration_weighs_the_plans_strategic_passes_over():
    """With ``plans=1`` the calibration sets each plan strategic does not choose,
    played out held to that plan, against its pick: rows of kind
    ``discard→plan:…`` beside the usual ones, the pick's truth still the hand's own."""
    from research.expert_calibration import calibrate

    rows = calibrate("yuxi", hands=2, samples=2, specs=("expert:plans=1",), first=3)
    plain = calibrate("yuxi", hands=2, samples=2, specs=("expert",), first=3)
    kinds = {r["kind"] for r in rows}
    assert {k for k in kinds if "plan:" not in k} == {r["kind"] for r in plain}
    assert any(k.startswith("discard→plan:") for k in kinds)
    real = {
        h: play_hand(
            Rules("yuxi"), make_agents(["strategic"] * 4), seed=2026, match=h, hand=0, dealer=h % 4
        ).state.deltas[0]
        for h in (3, 4)
    }
    assert all(r["pick_points"] == real[r["hand"]] for r in rows)


@pytest.mark.parametrize("spec", ["expert:rollouts=2;most=6;z=0", "expert:rollouts=4;z=0.5"])
def test_decide_prices_a_budget_as_the_search_plays_it(spec):
    """``decide`` on the playouts of every sample, every plan, chooses what the
    agent's own two-stage search chose (same decision stream): the offline pricing
    of budgets (:func:`budget`) is the agent's rule, not a restatement of it."""
    from copy import copy

    from simulate.agents.expert import ExpertAgent, decide

    seen = []

    class Checked(ExpertAgent):
        def search(self, view, plans):
            base = copy(self.rng).next64()
            got = super().search(view, plans)
            pts = self.playouts(view, plans, base, 0, self.most)
            j, _ = decide(pts, self.rollouts, self.most, self.z)
            seen.append((plans[j][0], got, j))
            return got

    rules = Rules("xuezhan")
    for h in range(3):
        agents = make_agents(["strategic"] * 4)
        agents[0] = Checked(**make_agent(spec).params)
        play_hand(rules, agents, seed=2026, match=h, hand=0, dealer=h % 4)
    assert len(seen) > 10 and any(j for *_, j in seen)  # some overrules among them
    assert [a for a, _, _ in seen] == [b for _, b, _ in seen]


def test_budget_prices_search_settings_on_one_calibration():
    """Each setting's overrules and edge come from the same per-sample leads: a
    margin no lead can meet never overrules (edge exactly 0); a hand without a
    searched decision counts as 0; the first overrule's truth is the hand's edge."""
    from research.expert_calibration import budget, calibrate

    rows = calibrate("xuezhan", hands=3, samples=4, specs=("expert",), first=10)
    assert all(len(r["leads"]["expert"]) == 4 for r in rows)
    never, loose = budget(rows, hands=range(10, 14), settings=[(4, 4, 1e9), (2, 4, 0.0)])
    assert never["overrules"] == 0 and never["first"] == never["total"] == 0.0
    assert never["samples"] == 4.0 and never["hands"] == 4
    assert loose["overrules"] > 0 and 2.0 <= loose["samples"] <= 4.0
    assert loose["first_lo"] <= loose["first"] <= loose["first_hi"]
    # by hand, with leads chosen so the rule's outcome is plain
    toy = [
        {"hand": 0, "decision": 1, "truth": 5, "leads": {"e": [3, 3, 3]}},
        {"hand": 0, "decision": 1, "truth": -2, "leads": {"e": [1, 1, 1]}},
        {"hand": 0, "decision": 4, "truth": -1, "leads": {"e": [2, 2, 2]}},
        {"hand": 2, "decision": 2, "truth": 7, "leads": {"e": [-1, -1, -1]}},
    ]
    b = budget(toy, hands=[0, 1, 2], settings=[(3, 3, 2.0)])[0]
    assert (b["overrules"], b["decisions"]) == (2, 3)
    assert b["first"] == pytest.approx(5 / 3) and b["total"] == pytest.approx(4 / 3)


@pytest.mark.parametrize("variant", ["yuxi", "huangmei"])
def test_seeing_samples_the_real_hands_and_a_shuffled_wall(variant):
    """The measuring tool's samples hold the other seats' real concealed tiles and
    the real undrawn tiles, in an order of its stream's; the agent's own samples
    (checked above) never read them."""
    rules = Rules(variant)
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=5, match=0, hand=0, dealer=0)
    events, wall = played.state.events, list(played.state.wall)
    reordered = 0
    for k in list(_seat0_discards(events))[:3]:
        st = _replay(rules, wall, 0, events, k)
        view = SeatView(st, 0)
        w, sample = Seeing().sample(view, view.history, Stream(k))
        assert sample.hands == st.hands and sample.melds == st.melds
        assert (sample.front, sample.back) == (st.front, st.back)
        undrawn = slice(st.front, st.back + 1)
        assert sorted(w[undrawn]) == sorted(wall[undrawn])
        reordered += w[undrawn] != wall[undrawn]
    assert reordered


@pytest.mark.parametrize("variant,tilt", [("yuxi", 0.35), ("huangmei", 0.0)])
def test_ready_seeing_knows_the_ready_hands_only(variant, tilt):
    """The ready-seats twin's samples hold the real concealed hands of the other
    seats that are ready, pinned before the tilt and left by it; every other seat
    gets sampled tiles, and each sample replays the history."""
    rules = Rules(variant)
    spec = f"expert:tilt={tilt}"
    found = 0
    for seed in range(2, 40):
        played = play_hand(
            rules, make_agents(["strategic"] * 4), seed=seed, match=0, hand=0, dealer=0
        )
        events, wall = played.state.events, list(played.state.wall)
        for k in list(_seat0_discards(events))[::2]:
            if found >= 3:
                break
            st = _replay(rules, wall, 0, events, k)
            view = SeatView(st, 0)
            ready = [
                s
                for s in (1, 2, 3)
                if not st.won[s] and shanten(st.hands[s], len(st.melds[s])) == 0
            ]
            unready = [s for s in (1, 2, 3) if not st.won[s] and s not in ready]
            if not (ready and unready):
                continue
            twin = ReadySeeing(**parse_spec(spec)[1])
            twin.start_hand(0, Stream(seed))
            assert sorted(twin.pinned(view)) == ready
            differs = 0
            for i in range(4):
                w, sample = twin.sample(view, view.history, Stream(i))
                assert all(sample.hands[s] == st.hands[s] for s in ready)
                differs += any(sample.hands[s] != st.hands[s] for s in unready)
            assert differs  # the others are still drawn, not read
            found += 1
        if found >= 3:
            break
    assert found >= 3
    # the plain expert has no pinning: that is the tool's alone (research/)
    assert not hasattr(make_agent("expert"), "pinned")


def test_ceiling_sets_the_seeing_search_beside_the_agent_on_the_same_hands():
    r = ceiling("yuxi", hands=2, seed=3, spec="expert:rollouts=2;candidates=2")
    a, s, g = r["agent"], r["seeing"], r["gap"]
    assert a["agent"] == "expert:rollouts=2;candidates=2"
    assert s["agent"] == "seeing expert:rollouts=2;candidates=2"
    assert a["hands"] == s["hands"] == g["units"] == 2
    assert g["diff"] == pytest.approx(s["diff"] - a["diff"])
    assert s["searched"] > 0
    with pytest.raises(ValueError, match="not an expert"):
        ceiling("yuxi", hands=1, spec="strategic")
    r = ceiling("yuxi", hands=2, seed=3, spec="expert:rollouts=2;candidates=2", twin="ready")
    assert r["seeing"]["agent"] == "ready expert:rollouts=2;candidates=2"
    assert r["agent"]["per_hand"] == a["per_hand"]  # the same agent on the same hands
    with pytest.raises(ValueError, match="twin 'psychic' is none of seeing, ready"):
        ceiling("yuxi", hands=1, twin="psychic")


def test_head_to_head_pairs_two_agents_hand_by_hand():
    """The gap is one agent's edge less the other's on the same hands: against
    strategic itself (edge exactly 0) it is the agent's own edge."""
    from research.expert_ab import head_to_head

    r = head_to_head("yuxi", "greedy", "strategic", hands=3, seed=3)
    assert r["other"]["per_hand"] == [0, 0, 0] and r["agent"]["diff"] != 0
    assert r["gap"]["diff"] == pytest.approx(r["agent"]["diff"])
    assert r["gap"]["units"] == 3


def test_a_pinned_hand_the_hidden_tiles_cannot_hold_is_refused():
    """A pinned hand needing more copies of a tile than are hidden raises, so the
    sample is redrawn or dropped, never silently wrong."""
    from mjlog.sampling import Inconsistent, rebuild
    from simulate.agents.efficient import unseen_counts

    rules = Rules("yuxi")
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=5, match=0, hand=0, dealer=0)
    events, wall = played.state.events, list(played.state.wall)
    st = _replay(rules, wall, 0, events, list(_seat0_discards(events))[2])
    view = SeatView(st, 0)
    unseen = unseen_counts(view)
    want = list(st.hands[1])
    t = min(range(34), key=lambda k: (unseen[k] - want[k], k))  # the scarcest kind
    u = next(k for k in range(34) if want[k] and k != t)
    want[t], want[u] = unseen[t] + 1, want[u] - (unseen[t] + 1 - st.hands[1][t])
    with pytest.raises(Inconsistent, match="S1's pinned hand"):
        pinned_wall(view, view.history, Stream(1), {1: want})
    # the true hand pins without complaint
    w = pinned_wall(view, view.history, Stream(1), {1: list(st.hands[1])})
    assert rebuild(view, view.history, w).hands[1] == st.hands[1]
