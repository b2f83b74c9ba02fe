"""The PettingZoo environment and its Gymnasium wrapper (issue 20, item 3): the
libraries' own checkers, the engine's play reproduced move for move, rewards that
add up to the hand's points, and episodes written as runs that validate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mjlog.agent import SeatView
from mjlog.audit import audit_runs
from mjlog.engine import play_hand
from mjlog.env import N_ACTIONS, MjlogEnv, MjlogGymEnv, action_of, flat_size, observe_view
from mjlog.rng import Stream, agent_seed
from simulate.agents import make_agents
from simulate.gym import gym_env

CONFIGS = [
    ("yuxi", []),
    ("xuezhan", []),
    ("huangmei", []),
    ("xuezhan", ["players=3"]),
    ("huangmei", ["players=3"]),
    ("yuxi", ["players=2"]),
]


@pytest.mark.parametrize("variant,sets", CONFIGS, ids=[f"{v}{''.join(s)}" for v, s in CONFIGS])
def test_pettingzoo_api(variant, sets):
    from pettingzoo.test import api_test

    api_test(MjlogEnv(variant, sets), num_cycles=300)
    api_test(MjlogEnv(variant, sets, obs_type="dict"), num_cycles=60)


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_gymnasium_check_env(variant):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no spec to test other render modes"
        check_env(gym_env(variant, opponents=["greedy"]))


def _drive(env: MjlogEnv, specs: list[str], seed: int) -> None:
    """Play the episode with the built-in agents, as the engine would."""
    agents = make_agents(specs)
    env.reset(seed=seed)
    for s, a in enumerate(agents):
        a.start_hand(s, Stream(agent_seed(seed, 0, 0, s)))
    total = dict.fromkeys(env.possible_agents, 0)
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[name] += reward
        if term or trunc:
            env.step(None)
            continue
        s = env.possible_agents.index(name)
        opts = env.legal_events(name)
        assert sorted(np.flatnonzero(obs["action_mask"])) == sorted(map(action_of, opts))
        env.step(action_of(agents[s].choose(SeatView(env.state, s), opts)))
    assert [total[a] for a in env.possible_agents] == env.state.deltas


@pytest.mark.parametrize("variant,sets", CONFIGS[:4], ids=[v + "".join(s) for v, s in CONFIGS[:4]])
def test_env_plays_as_the_engine(variant, sets):
    specs = ["greedy", "random", "greedy", "random"]
    env = MjlogEnv(variant, sets)
    for seed in (1, 2, 3):
        _drive(env, specs[: env.n], seed)
        ref = play_hand(env.rules, make_agents(specs[: env.n]), seed, 0, 0, None)
        assert env.state.events == ref.state.events
        assert env.state.deltas == ref.state.deltas


def test_observation_dict_and_flat(tmp_path):
    env = MjlogEnv("xuezhan", obs_type="dict")
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    d = obs["observation"]
    assert set(d) == {
        "hand",
        "drawn",
        "window",
        "melds",
        "discards",
        "voids",
        "won",
        "bonus",
        "wall",
        "scores",
        "dealer",
    }
    assert env.observation_space(env.agent_selection).contains(obs)
    assert d["hand"].sum() in (13, 14) and d["wall"][0] == env.state.live
    flat = MjlogEnv("xuezhan")
    flat.reset(seed=4)
    v = flat.observe(flat.agent_selection)["observation"]
    assert v.shape == (flat_size(4),) and v.dtype == np.float32
    assert np.array_equal(v[:34], d["hand"])
    assert obs["action_mask"].shape == (N_ACTIONS,)


def test_episodes_write_runs_that_validate(tmp_path):
    env = MjlogEnv("huangmei")
    _drive(env, ["greedy"] * 4, 7)
    env.write_run(tmp_path / "aec")
    single = gym_env("xuezhan", seat=2, opponents=["greedy", "random", "greedy"])
    obs, _ = single.reset(seed=5)
    done, total = False, 0.0
    rng = np.random.default_rng(0)
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, r, done, _, info = single.step(int(rng.choice(legal)))
        assert "illegal_action" not in info
        total += r
    assert total == info["deltas"][2]
    m = single.write_run(tmp_path / "gym")
    assert [a["name"] for a in m["agents"]] == ["greedy", "random", "learner", "greedy"]
    res = audit_runs([tmp_path / "aec", tmp_path / "gym"], workers=1)
    assert res.problems == [], [p.line() for p in res.problems]


def test_illegal_actions():
    env = MjlogEnv("yuxi")
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)
    g = gym_env("yuxi", illegal="raise")
    g.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        g.step(bad)
    g = gym_env("yuxi")
    g.reset(seed=1)
    assert g.step(bad)[4]["illegal_action"] is True


def test_same_seed_same_episode():
    a, b = MjlogEnv("huangmei"), MjlogEnv("huangmei")
    _drive(a, ["random"] * 4, 11)
    _drive(b, ["random"] * 4, 11)
    assert a.state.events == b.state.events


def _flattened(env: MjlogEnv, seat: int) -> np.ndarray:
    """The documented dict observation of ``seat``, flattened and scaled."""
    d = env.observation_dict(seat)
    n = env.n
    want = np.concatenate(
        [
            d[k].ravel().astype(np.float32)
            for k in (
                "hand",
                "drawn",
                "window",
                "melds",
                "discards",
                "voids",
                "won",
                "bonus",
                "wall",
                "scores",
                "dealer",
            )
        ]
    )
    i = 102 + 68 * n + 5 * n
    want[i] /= env._wall_size
    want[i + 1 : i + 1 + n] /= 100.0
    return want


@pytest.mark.parametrize("variant,sets", CONFIGS, ids=[f"{v}{''.join(s)}" for v, s in CONFIGS])
def test_flat_is_the_dict_flattened(variant, sets):
    """The flat encoding, kept up to date event by event, equals the documented
    dict (built from the state's lists), flattened and scaled, for every seat at
    every decision of a few hands; and the acting seat's equals what an agent
    sees through :func:`observe_view`."""
    env = MjlogEnv(variant, sets)
    rng = np.random.default_rng(3)
    for seed in (1, 2, 3):
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            for s in range(env.n):
                assert np.array_equal(env.observation_flat(s), _flattened(env, s)), (seed, s)
            if term or trunc:
                env.step(None)
                continue
            s = env.possible_agents.index(name)
            assert np.array_equal(obs["observation"], _flattened(env, s))
            assert np.array_equal(observe_view(SeatView(env.state, s)), obs["observation"])
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(rng.choice(legal)))


def test_the_void_choice_shows_no_drawn_tile():
    """xuezhan's void choice comes before any draw: the dealer holds fourteen tiles
    and none is shown as drawn, in the environment's observation and in what an
    agent sees (:func:`observe_view`); on its first turn the fourteenth is."""
    env = MjlogEnv("xuezhan")
    env.reset(seed=4)
    dealer = env.state.dealer
    voids = 0
    for name in env.agent_iter():
        obs, _, _, _, _ = env.last()
        s = env.possible_agents.index(name)
        view = SeatView(env.state, s)
        v, mask = obs["observation"], obs["action_mask"]
        assert np.array_equal(observe_view(view), v)
        if not mask[105:108].any():  # the void choices are over: the dealer acts
            assert (s, view.phase.name, v[34:68].sum()) == (dealer, "ACT", 1)
            assert view.drawn is not None and v[34 + view.drawn] == 1
            break
        voids += 1
        assert view.phase.name == "VOID" and view.drawn is None and not v[34:68].any()
        assert v[:34].sum() == (14 if s == dealer else 13)
        env.step(int(np.flatnonzero(mask)[0]))
    assert voids == env.n


def test_a_window_nobody_may_claim_closes():
    """Uniform choices, hand after hand, reach the end of each: in this sequence
    yuxi's hand 10 leaves a forced win's window open with no seat to ask, which
    the environment closes (as the engine's claim resolution does)."""
    import random

    env = MjlogEnv("yuxi")
    rng = random.Random(1)
    for seed in range(11):
        env.reset(seed=seed)
        for _name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
        assert env.state.over and all(env.terminations.values()), seed


def test_a_reset_without_a_seed_follows_the_last_seed_given():
    """Seedless resets draw their root seeds from the last seed given, so two
    environments given the same seed go on dealing the same hands."""
    a, b = MjlogEnv("yuxi"), MjlogEnv("yuxi")
    a.reset(seed=3)
    b.reset(seed=3)
    roots = []
    for _ in range(2):
        a.reset()
        b.reset()
        assert a.seed_root == b.seed_root != 3 and a.state.events == b.state.events
        roots.append(a.seed_root)
    a.reset(seed=3)
    a.reset()
    assert a.seed_root == roots[0] != roots[1]


def test_the_environment_takes_agent_objects_and_gymnasium_make_takes_names():
    """mjlog.env knows no agent by name (it sits below the agents); names are looked
    up above it, by simulate.gym.gym_env, which gymnasium.make reaches."""
    import gymnasium

    with pytest.raises(ValueError, match="Agent objects"):
        MjlogGymEnv("yuxi", opponents=["greedy"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="3 opponents"):
        MjlogGymEnv("yuxi", opponents=make_agents(["greedy"]))
    made = gymnasium.make("mjlog/Mahjong-v0", variant="yuxi", opponents=["random"])
    direct = MjlogGymEnv("yuxi", opponents=make_agents(["random"] * 3))
    a, _ = made.reset(seed=11)
    b, _ = direct.reset(seed=11)
    assert np.array_equal(a["observation"], b["observation"])
