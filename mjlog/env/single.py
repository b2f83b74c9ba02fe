"""One seat of :class:`mjlog.env.MjlogEnv` as a Gymnasium environment, the other
seats played by the agent objects it is given (:func:`simulate.gym.gym_env` builds
them from names, as ``gymnasium.make("mjlog/Mahjong-v0")`` does)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from mjlog.agent import Agent, SeatView
from mjlog.env.actions import N_ACTIONS, action_of
from mjlog.env.aec import MjlogEnv
from mjlog.rng import Stream, agent_seed
from mjlog.state import Phase

__all__ = ["MjlogGymEnv"]


class MjlogGymEnv(gym.Env[dict[str, Any], int]):
    """One seat of :class:`MjlogEnv` as a Gymnasium environment; the other seats
    are played by ``opponents``, one :class:`~mjlog.agent.Agent` object per other
    seat, each with the random stream ``mjlog simulate`` would
    give it. The environment knows no agent by name: :func:`simulate.gym.gym_env`
    (and ``gymnasium.make("mjlog/Mahjong-v0", opponents=["greedy"])``) looks the
    names up above it.

    Observations and actions are those of the AEC environment (the
    ``action_mask`` inside the observation). An action outside the mask is not
    punished: with ``illegal="first"`` (the default; Gymnasium's checker and
    unmasked learners send any action of the space) the first legal choice is
    played instead and ``info["illegal_action"]`` is True; with
    ``illegal="raise"`` it raises ``ValueError``. The reward is the seat's points
    since its last decision; an episode is one hand.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        variant: str = "yuxi",
        seat: int = 0,
        opponents: Sequence[Agent] = (),
        sets: Iterable[str] = (),
        rules_file: str | None = None,
        obs_type: str = "flat",
        illegal: str = "first",
        render_mode: str | None = None,
    ):
        if illegal not in ("first", "raise"):
            raise ValueError(f"illegal must be 'first' or 'raise', not {illegal!r}")
        self.aec = MjlogEnv(variant, sets, rules_file, obs_type, render_mode)
        n = self.aec.n
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, not {seat!r}")
        others = list(opponents)
        if not others or not all(callable(getattr(o, "choose", None)) for o in others):
            raise ValueError(
                "opponents must be Agent objects (simulate.gym.gym_env takes agent names)"
            )
        # one object a seat: an agent keeps its seat's state between decisions
        if len(others) != n - 1 or len({id(o) for o in others}) != n - 1:
            raise ValueError(f"give {n - 1} opponents, one distinct object a seat")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponents: list[Agent] = others
        self._players: list[Agent | None] = []  # by seat; None: this seat
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)

    def _others(self) -> float:
        """Let the other seats play until this seat decides or the hand ends; the
        rewards this seat collects meanwhile."""
        aec = self.aec
        total = 0.0
        while True:
            total += aec._cumulative_rewards[self.agent]
            aec._cumulative_rewards[self.agent] = 0
            if aec._st.phase is Phase.OVER:
                return total
            a = aec.agent_selection
            if a == self.agent:
                return total
            s = aec.possible_agents.index(a)
            player = self._players[s]
            assert player is not None  # every other seat has its agent
            pick = player.choose(SeatView(aec._st, s), aec.legal_events(a))
            aec.step(action_of(pick))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None and self.aec.seed_root is None:
            seed = int(self.np_random.integers(2**63))
        self.aec.reset(seed=seed)
        root = self.aec.seed_root
        assert root is not None  # a reset deals from a root seed
        n = self.aec.n
        it = iter(self.opponents)
        self._players = [None if s == self.seat else next(it) for s in range(n)]
        for s, p in enumerate(self._players):
            if p is not None:
                p.start_hand(s, Stream(agent_seed(root, 0, 0, s)))
        self._others()
        return self.aec.observe(self.agent), {}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        aec = self.aec
        info: dict[str, Any] = {}
        if aec._st.phase is Phase.OVER:
            raise RuntimeError("the episode is over: call reset()")
        mask = aec.action_mask(self.agent)
        if not (isinstance(action, int | np.integer) and 0 <= action < N_ACTIONS and mask[action]):
            if self.illegal == "raise":
                aec._event_of(self.seat, action, aec.legal_events(self.agent))
            action = int(np.flatnonzero(mask)[0])
            info["illegal_action"] = True
        aec.step(int(action))
        reward = self._others()
        over = aec._st.phase is Phase.OVER
        if over:
            info["deltas"] = list(aec._st.deltas)
        return aec.observe(self.agent), float(reward), over, False, info

    def render(self) -> str | None:
        return self.aec.render()

    def write_run(self, out: str | os.PathLike[str], name: str = "learner") -> dict[str, Any]:
        """:meth:`MjlogEnv.write_run`, the seats named by their players."""
        names = [name if p is None else p.name for p in self._players]
        return self.aec.write_run(out, names)
