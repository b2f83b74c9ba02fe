"""The PettingZoo AEC environment of :mod:`mjlog.env`: the decisions, the rewards
and the episode's flow; the observations are :mod:`mjlog.env.encoder`'s, the run
written at the end :mod:`mjlog.env.runs`'."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from mjlog.claims import PASS as CLOSE
from mjlog.engine import deal
from mjlog.env.actions import N_ACTIONS, action_of
from mjlog.env.encoder import FlatEncoder, fields, flat_size, observation_dict
from mjlog.env.runs import write_episode
from mjlog.events import DISCARD, WIN, Event
from mjlog.rules import Rules, resolve
from mjlog.state import HandState, Phase

__all__ = ["MjlogEnv"]

_ACT, _CLAIM, _ROB, _OVER = Phase.ACT, Phase.CLAIM, Phase.ROB, Phase.OVER
_INTS = frozenset((int, np.int64, np.int32, np.intp))  # not bool: True is no action
_I8 = np.dtype(np.int8)
# a discard's tile, its action (read by index: cheaper than by name)
_TILE_OF: Callable[[Any], int] = itemgetter(Event._fields.index("tile"))
_NO_ACTIONS = bytes(N_ACTIONS)


class MjlogEnv(AECEnv):
    """The AEC environment of one variant (see :mod:`mjlog.env`).

    ``variant``, ``rules_file`` and ``sets`` are those of ``mjlog simulate``
    (``sets=["players=3", "cap=16"]``); ``obs_type`` is ``"flat"`` or ``"dict"``;
    ``render_mode`` ``"ansi"`` makes :meth:`render` return the table as text.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi"],
        "name": "mjlog_v0",
        "is_parallelizable": False,
    }
    #: the hand being played (:attr:`state` once :meth:`reset` has dealt one)
    _st: HandState

    def __init__(
        self,
        variant: str = "yuxi",
        sets: Iterable[str] = (),
        rules_file: str | None = None,
        obs_type: str = "flat",
        render_mode: str | None = None,
    ):
        super().__init__()
        if obs_type not in ("flat", "dict"):
            raise ValueError(f"obs_type must be 'flat' or 'dict', not {obs_type!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.rules: Rules = resolve(variant, rules_file, list(sets))
        self.n = n = self.rules.n
        self.obs_type = obs_type
        self._flat = obs_type == "flat"
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self._encoder = FlatEncoder(self.rules)
        self._wall_size = self._encoder.wall_size
        # each seat's discard of each tile, equal to the state's legal choice (a
        # test holds them so): a discard's code decodes without a search
        self._discards = [[Event(DISCARD, s, t) for t in range(34)] for s in range(n)]
        # the selected seat's legal codes, rewritten in place at every decision,
        # and a numpy view of them for the copy handed out
        self._mask = bytearray(N_ACTIONS)
        self._mask_view = np.frombuffer(self._mask, _I8)
        mask = spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        obs: spaces.Space[Any]
        if obs_type == "flat":
            obs = spaces.Box(-(2.0**31) / 100, 2.0**31 / 100, (flat_size(n),), np.float32)
        else:
            obs = spaces.Dict(
                {k: spaces.Box(lo, hi, shape, dt) for k, shape, dt, lo, hi in fields(n)}
            )
        self._obs_space = spaces.Dict({"observation": obs, "action_mask": mask})
        self._act_space = spaces.Discrete(N_ACTIONS)
        self.seed_root: int | None = None
        self._seeds: np.random.Generator | None = None
        self._seeded_by: int | None = None  # the last seed given (None: the OS's entropy)
        self.match = 0  # every episode is match 0, hand 0 of its own root seed
        self.state: HandState | None = None
        self.hand_seed = 0
        self.dealer_rolls: tuple[int, ...] | None = None

    # -- spaces (the same object every call, as PettingZoo expects)
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # -- the episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            if (
                isinstance(seed, bool)
                or not isinstance(seed, int | np.integer)
                or not (0 <= seed < 2**64)
            ):
                raise ValueError(f"seed must be an integer in 0..2^64-1, not {seed!r}")
            self.seed_root = self._seeded_by = int(seed)
            self._seeds = None  # made when a reset without a seed needs it
        else:
            if self._seeds is None:
                self._seeds = np.random.Generator(np.random.PCG64(self._seeded_by))
            self.seed_root = int(self._seeds.integers(2**63))
        self._st, self.hand_seed, self.dealer_rolls = deal(
            self.rules, self.seed_root, self.match, 0, None
        )
        self.state = self._st
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._scores = [0] * self.n
        self._rewarded = False
        self._over = False
        self._queue: list[int] = []  # seats still to answer the open claim window
        self._picks: dict[int, Event | None] = {}
        self._legal: dict[int, Sequence[Event | None]] = {}
        self._encoder.reset(self._st)
        self._advance()

    def _advance(self) -> None:
        """Play the events nobody chooses, up to the next decision or the end."""
        st = self._st
        pos = st.pos  # its phase and turn, read straight
        auto, apply = st.choices.auto, st.apply  # bound once: called for every event
        seat: int | None
        legal: Sequence[Event | None]
        while True:
            ev = auto()
            if ev is not None:
                apply(ev)
                continue
            ph = pos.phase
            if ph is _ACT:  # the common case, without the per-seat dict of options()
                seat = s = pos.turn
                legal = st.choices.act_options()
                self._legal = {s: legal}
                self._queue = [s]
                break
            if ph is _OVER:
                seat, legal = None, []
                break
            opts = st.options()
            if ph is _CLAIM or ph is _ROB:
                if not opts:
                    st.apply(CLOSE)  # nobody may claim: the window closes
                    continue
                # every seat that may claim may pass
                self._legal = {s: [*o, None] for s, o in opts.items()}
                self._picks = {}
            elif not opts:
                raise RuntimeError(f"no legal action for the seat to act in {ph.name}")
            else:
                self._legal = dict(opts)
            self._queue = list(opts)
            seat = self._queue[0]
            legal = self._legal[seat]
            break
        self._settle(seat, legal)

    def _settle(self, seat: int | None, opts: Sequence[Event | None]) -> None:
        """Rewards from the change of scores; selection of ``seat`` to choose
        among ``opts``, or the end of the hand."""
        st = self._st
        deltas = st.deltas
        if deltas != self._scores:  # money moved: reward the change
            for s, a in enumerate(self.possible_agents):
                self.rewards[a] = deltas[s] - self._scores[s]
            self._scores = list(deltas)
            self._accumulate_rewards()
            self._rewarded = True
        if seat is None or st.phase is _OVER:
            for a in self.agents:
                self.terminations[a] = True
            self._over = True
            self.agent_selection = self.agents[0]
            return
        mask = self._mask
        mask[:] = _NO_ACTIONS
        first, last = opts[0], opts[-1]
        if first is not None and last is not None and first.type == DISCARD == last.type:
            # discards only, the common case: the acting seat's choices list its
            # win and kongs first (mjlog.choices.Choices.act_options), and a
            # discard's code is its tile, read by index (cheaper than by name)
            for t in map(_TILE_OF, opts):
                mask[t] = 1
        else:
            for o in opts:
                mask[action_of(o)] = 1
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: int | None) -> None:
        if self._over:  # every agent is terminated (none is ever truncated)
            self._was_dead_step(action)
            return
        queue = self._queue
        seat = queue[0]
        pick: Event | None
        if action is not None and type(action) in _INTS and 0 <= action < 34 and self._mask[action]:
            pick = self._discards[seat][action]  # a legal discard: the common case
        else:
            pick = self._event_of(seat, action, self._legal[seat])
        self._cumulative_rewards[self.agent_selection] = 0
        if self._rewarded:
            for x in self.agents:
                self.rewards[x] = 0
            self._rewarded = False
        st = self._st
        del queue[0]
        ph = st.pos.phase
        if ph is _CLAIM or ph is _ROB:
            # every seat answers, then the state's claim priority decides what
            # happens (mjlog.claims.Claims.resolve, as in mjlog.engine.play)
            self._picks[seat] = pick
            if queue:
                self._settle(queue[0], self._legal[queue[0]])
                return
            for ev in st.claims.resolve(self._picks):
                st.apply(ev)
                while st.pending and ev.type == WIN:  # a win's payments come first
                    st.apply(st.pending[0])
        elif pick is not None:  # (outside a claim window no choice is a pass)
            st.apply(pick)
        self._advance()

    def _event_of(self, seat: int, action: object, opts: Sequence[Event | None]) -> Event | None:
        if (
            action is None
            or not isinstance(action, int | np.integer)
            or not (0 <= action < N_ACTIONS)
        ):
            raise ValueError(f"action must be an integer in 0..{N_ACTIONS - 1}, not {action!r}")
        codes = {action_of(o): o for o in opts}
        if len(codes) != len(opts):  # two choices, one number: a bug
            raise RuntimeError(f"legal choices share an action number: {opts}")
        if action in codes:
            return codes[int(action)]
        raise ValueError(
            f"action {int(action)} is not legal for player_{seat} now; legal: "
            f"{sorted(action_of(o) for o in opts)} (see action_mask)"
        )

    # -- what a seat sees
    def legal_events(self, agent: str) -> list[Event | None]:
        """The engine's legal choices of ``agent`` now (empty when it is not to act)."""
        if not self._queue or self.possible_agents[self._queue[0]] != agent:
            return []
        return list(self._legal[self._queue[0]])

    def action_mask(self, agent: str) -> NDArray[np.int8]:
        return self._mask_of(self._seat_of.get(agent))

    def _mask_of(self, seat: int | None) -> NDArray[np.int8]:
        """The caller's own copy of ``seat``'s legal codes (none unless it is to choose)."""
        q = self._queue
        if q and q[0] == seat:
            return self._mask_view.copy()
        return np.zeros(N_ACTIONS, _I8)

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat_of[agent]
        obs: Any = (
            self._encoder.flat(self._st, seat) if self._flat else observation_dict(self._st, seat)
        )
        return {"observation": obs, "action_mask": self._mask_of(seat)}

    def observation_flat(self, seat: int) -> NDArray[np.float32]:
        """The flat observation of ``seat`` (:meth:`FlatEncoder.flat`)."""
        return self._encoder.flat(self._st, seat)

    def observation_dict(self, seat: int) -> dict[str, NDArray[Any]]:
        """The documented dict observation of ``seat`` (seats relative to it)."""
        return observation_dict(self._st, seat)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()`` (the selected agent's observation, cumulative
        reward, termination, truncation and info), in one call less."""
        a = self.agent_selection
        return (
            self.observe(a) if observe else None,
            self._cumulative_rewards[a],
            self.terminations[a],
            self.truncations[a],
            self.infos[a],
        )

    # -- output
    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        from mjlog.tiles import fmt

        st = self.state
        rows = []
        for s in range(self.n):
            hand = [t for t in range(34) for _ in range(st.hands[s][t])]
            rows.append(
                f"S{s}{'*' if s == st.dealer else ' '} {fmt(hand):<20} melds "
                f"{' '.join(fmt([m.tile] * m.size) for m in st.melds[s]) or '-'} "
                f"discards {fmt(st.discards[s]) if st.discards[s] else '-'} "
                f"score {st.deltas[s]:+d}"
            )
        rows.append(f"wall {st.live}, phase {st.phase.name}")
        return "\n".join(rows)

    def close(self) -> None:
        pass

    def write_run(
        self, out: str | os.PathLike[str], names: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Write the finished episode as a run directory (one match of one hand, seed
        and match as dealt, so the auditor's seed check applies); returns the
        manifest. ``names`` label the seats (default: the agent names), one string
        per seat; wrong ones are a ValueError before anything is written."""
        return write_episode(self, out, names)
