"""A PettingZoo AEC environment (and a Gymnasium single-seat wrapper) over the engine.

An **episode is one hand**, dealt from a seed exactly as ``mjlog simulate`` deals
it, played through the engine's one transition function
(:class:`mjlog.state.HandState`: ``auto()`` for the events nobody chooses,
``options()`` for the choices, ``apply()``). Every variant and player count of
:mod:`mjlog.rules` works (``MjlogEnv("xuezhan", sets=["players=3"])``).

**Agents** are ``"player_0"`` … ``"player_{n-1}"`` (seat numbers). Only the seat
to decide is selected; in a claim window each seat that may claim decides in
claim order without seeing the others' choices, and the claims are then
resolved as the engine resolves them (wins first, else the first claim in
order). Seats that won (xuezhan) stay agents until the hand ends.

**Actions** are ``Discrete(109)``:

====================  ==========================================
``0..33``             discard tile t (tile kinds as in :mod:`mjlog.tiles`)
``34..67``            concealed kong of t
``68..101``           added kong of t
``102``               exposed kong of the tile open to claims
``103``               pon of the tile open to claims
``104``               win (self-draw, on a discard, robbing a kong)
``105..107``          void suit m, p, s (xuezhan)
``108``               pass a claim
====================  ==========================================

Only the legal ones may be played; ``action_mask`` marks them.

**Observations** follow PettingZoo's masked-action convention: a dict
``{"observation": …, "action_mask": int8[109]}``. With ``obs_type="flat"`` (the
default) ``observation`` is one ``float32`` vector; with ``obs_type="dict"`` it is
this dict (seats relative to the observer: index 0 is the observer, 1 the next
seat in turn order, …):

============  ================  =============================================
key           shape             meaning
============  ================  =============================================
``hand``      int8[34]          own concealed tiles, as counts
``drawn``     int8[34]          the tile just drawn (one-hot), when acting after a draw
``window``    int8[34]          the tile open to claims (one-hot)
``melds``     int8[n, 34]       each seat's melded tiles (pon 3, kong 4), as counts
``discards``  int8[n, 34]       each seat's discards, as counts
``voids``     int8[n, 3]        each seat's void suit (one-hot; xuezhan)
``won``       int8[n]           seats that have won (xuezhan: they left the table)
``bonus``     int8[n]           bonus tiles laid out (huangmei 发)
``wall``      int16[1]          tiles left in the wall
``scores``    int32[n]          points won (+) or paid (−) so far this hand
``dealer``    int8[n]           the dealer (one-hot)
============  ================  =============================================

The flat vector is the same fields in this order, flattened, ``wall`` divided
by the wall's size and ``scores`` by 100 (:func:`flat_size` gives its length).

**Rewards** are points: after each step every seat is rewarded the change of
its score (transfers: win payments, kong money, end-of-wall settlements), so an
episode's rewards sum to the hand's ``deltas``. **Determinism**: ``reset(seed=s)``
deals the hand ``mjlog simulate --seed s`` deals as match 0, hand 0; a reset
without a seed deals match 0 of a root seed drawn from a generator seeded by the
last seed given (:attr:`MjlogEnv.seed_root`). :meth:`MjlogEnv.write_run` writes the
finished episode as a run directory that ``mjlog validate`` audits.

>>> env = MjlogEnv("yuxi")
>>> env.reset(seed=1)
>>> obs, reward, term, trunc, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((403,), True)
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - the `env` extra is not installed
    raise ImportError("mjlog.env needs pettingzoo and gymnasium: pip install 'mjlog[env]'") from e

from mjlog.agent import SeatView
from mjlog.claims import PASS as CLOSE
from mjlog.engine import deal
from mjlog.events import BONUS, DEAL, DISCARD, DRAW, KONG, PON, TRANSFER, VOID, WIN, Event
from mjlog.rules import Rules, resolve
from mjlog.state import HandState, Phase
from mjlog.variants import wall_tiles

__all__ = ["N_ACTIONS", "PASS", "MjlogEnv", "MjlogGymEnv", "action_of", "flat_size", "env",
           "observe_view"]

N_ACTIONS = 109
CONCEALED, ADDED, EXPOSED, PON_A, WIN_A, VOID_A, PASS = 34, 68, 102, 103, 104, 105, 108
_SUITS = "mps"
# (tiles a meld takes from the claimer's hand, tiles it adds to the melds), by kind
_MELD_CHANGE = {PON: (2.0, 3.0), "exposed": (3.0, 4.0), "concealed": (4.0, 4.0),
                "added": (1.0, 1.0)}
_HAND = frozenset((DEAL, BONUS, WIN))            # rarer events that change hands
_ACT, _CLAIM, _ROB, _OVER = Phase.ACT, Phase.CLAIM, Phase.ROB, Phase.OVER
_INTS = frozenset((int, np.int64, np.int32, np.intp))  # not bool: True is no action
_I8, _F32 = np.dtype(np.int8), np.dtype(np.float32)
_TILE = Event._fields.index("tile")
_NO_ACTIONS = bytes(N_ACTIONS)


def action_of(ev: Event | None) -> int:
    """The action number of a legal choice (``None`` = pass).

    >>> action_of(Event("kong", 0, 5, None, "added")), action_of(None)
    (73, 108)
    """
    if ev is None:
        return PASS
    t = ev.type
    if t == DISCARD:
        return ev.tile
    if t == WIN:
        return WIN_A
    if t == PON:
        return PON_A
    if t == KONG:
        if ev.kind == "concealed":
            return CONCEALED + ev.tile
        if ev.kind == "added":
            return ADDED + ev.tile
        return EXPOSED
    if t == VOID:
        return VOID_A + _SUITS.index(ev.kind)
    raise ValueError(f"no action for event {ev!r}")


def _fields(n: int) -> list[tuple[str, tuple[int, ...], Any, int, int]]:
    """(key, shape, dtype, low, high) of the dict observation, in flat order."""
    return [("hand", (34,), np.int8, 0, 4), ("drawn", (34,), np.int8, 0, 1),
            ("window", (34,), np.int8, 0, 1), ("melds", (n, 34), np.int8, 0, 4),
            ("discards", (n, 34), np.int8, 0, 4), ("voids", (n, 3), np.int8, 0, 1),
            ("won", (n,), np.int8, 0, 1), ("bonus", (n,), np.int8, 0, 8),
            ("wall", (1,), np.int16, 0, 144), ("scores", (n,), np.int32, -(2**31), 2**31 - 1),
            ("dealer", (n,), np.int8, 0, 1)]


def flat_size(n: int) -> int:
    """The length of the flat observation for ``n`` players.

    >>> flat_size(4), flat_size(3)
    (403, 328)
    """
    return sum(int(np.prod(shape)) for _, shape, *_ in _fields(n))


class MjlogEnv(AECEnv):
    """The AEC environment of one variant (see the module docstring).

    ``variant``, ``rules_file`` and ``sets`` are those of ``mjlog simulate``
    (``sets=["players=3", "cap=16"]``); ``obs_type`` is ``"flat"`` or ``"dict"``;
    ``render_mode`` ``"ansi"`` makes :meth:`render` return the table as text.
    """

    metadata = {"render_modes": ["ansi"], "name": "mjlog_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "yuxi", sets: Iterable[str] = (),
                 rules_file: str | None = None, obs_type: str = "flat",
                 render_mode: str | None = None):
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
        self._wall_size = len(wall_tiles(self.rules))
        self._fields = _fields(n)
        self._flat_n = flat_size(n)
        # _rel[o][s]: where seat s sits as observer o sees the table (0: o itself)
        self._rel = [[(s - o) % n for s in range(n)] for o in range(n)]
        self._wall_at = 102 + 68 * n + 5 * n
        # _meld_at[s][t], _discard_at[s][t]: where seat s's melds and discards of
        # tile t sit in each seat's part (a claim or a discard adds to each)
        self._meld_at = [[[o * self._flat_n + 102 + 34 * self._rel[o][s] + t for o in range(n)]
                          for t in range(34)] for s in range(n)]
        self._discard_at = [[[i + 34 * n for i in at] for at in row] for row in self._meld_at]
        # _void_at[s], _bonus_at[s]: where seat s's void (3 flags) and its count
        # of bonus tiles sit in each seat's part
        self._void_at = [[o * self._flat_n + 102 + 68 * n + 3 * self._rel[o][s] for o in range(n)]
                         for s in range(n)]
        self._bonus_at = [[o * self._flat_n + 102 + 72 * n + self._rel[o][s] for o in range(n)]
                          for s in range(n)]
        # each seat's discard of each tile, equal to the state's legal choice (a
        # test holds them so): a discard's code decodes without a search
        self._discards = [[Event(DISCARD, s, t) for t in range(34)] for s in range(n)]
        # each seat's flat observation at o * size in one array.array (its item
        # updates cost half of numpy's), kept up to date by _sync from the events
        # and blanked at every reset; a numpy view of each seat's part for the
        # copy handed out
        size = self._flat_n
        self._blank = array("f", bytes(4 * size * n))
        self._buf = array("f", self._blank)
        whole = np.frombuffer(self._buf, _F32)
        self._views = [whole[o * size:(o + 1) * size] for o in range(n)]
        # the selected seat's legal codes, rewritten in place at every decision,
        # and a numpy view of them for the copy handed out
        self._mask = bytearray(N_ACTIONS)
        self._mask_view = np.frombuffer(self._mask, _I8)
        mask = spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        if obs_type == "flat":
            obs = spaces.Box(-(2.0**31) / 100, 2.0**31 / 100, (flat_size(n),), np.float32)
        else:
            obs = spaces.Dict({k: spaces.Box(lo, hi, shape, dt)
                               for k, shape, dt, lo, hi in self._fields})
        self._obs_space = spaces.Dict({"observation": obs, "action_mask": mask})
        self._act_space = spaces.Discrete(N_ACTIONS)
        self.seed_root: int | None = None
        self._seeds: np.random.Generator | None = None
        self._seeded_by: int | None = None  # the last seed given (None: the OS's entropy)
        self.match = 0  # every episode is match 0, hand 0 of its own root seed
        self.state: HandState | None = None
        self.hand_seed = 0
        self.dealer_rolls = None

    # -- spaces (the same object every call, as PettingZoo expects)
    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    # -- the episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not (
                    0 <= seed < 2**64):
                raise ValueError(f"seed must be an integer in 0..2^64-1, not {seed!r}")
            self.seed_root = self._seeded_by = int(seed)
            self._seeds = None  # made when a reset without a seed needs it
        else:
            if self._seeds is None:
                self._seeds = np.random.Generator(np.random.PCG64(self._seeded_by))
            self.seed_root = int(self._seeds.integers(2**63))
        self.state, self.hand_seed, self.dealer_rolls = deal(
            self.rules, self.seed_root, self.match, 0, None)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._scores = [0] * self.n
        self._rewarded = False
        self._over = False
        self._queue: list[int] = []   # seats still to answer the open claim window
        self._picks: dict[int, Event | None] = {}
        self._legal: dict[int, list[Event | None]] = {}
        n, size, buf = self.n, self._flat_n, self._buf
        buf[:] = self._blank
        for o in range(n):
            buf[o * size + size - n + self._rel[o][self.state.dealer]] = 1.0
        self._seen = 0  # events taken into _buf
        self._advance()

    def _advance(self) -> None:
        """Play the events nobody chooses, up to the next decision or the end."""
        st = self.state
        pos = st.pos  # its phase and turn, read straight
        auto, apply = st.choices.auto, st.apply  # bound once: called for every event
        while True:
            ev = auto()
            if ev is not None:
                apply(ev)
                continue
            ph = pos.phase
            if ph is _ACT:  # the common case, without the per-seat dict of options()
                seat = pos.turn
                legal = st.choices.act_options()
                self._legal = {seat: legal}
                self._queue = [seat]
                break
            if ph is _OVER:
                seat, legal = None, []
                break
            opts = st.options()
            if ph is _CLAIM or ph is _ROB:
                if not opts:
                    st.apply(CLOSE)  # nobody may claim: the window closes
                    continue
                for o in opts.values():
                    o.append(None)
                self._picks = {}
            elif not opts:
                raise RuntimeError(f"no legal action for the seat to act in {ph.name}")
            self._legal = opts
            self._queue = list(opts)
            seat = self._queue[0]
            legal = opts[seat]
            break
        self._settle(seat, legal)

    def _settle(self, seat: int | None, opts: list[Event | None]) -> None:
        """Rewards from the change of scores; selection of ``seat`` to choose
        among ``opts``, or the end of the hand."""
        st = self.state
        deltas = st.deltas
        if deltas != self._scores:  # money moved: reward the change
            for s, a in enumerate(self.possible_agents):
                self.rewards[a] = deltas[s] - self._scores[s]
            self._scores = list(deltas)
            self._accumulate_rewards()
            self._rewarded = True
        if st.pos.phase is _OVER:
            for a in self.agents:
                self.terminations[a] = True
            self._over = True
            self.agent_selection = self.agents[0]
            return
        mask = self._mask
        mask[:] = _NO_ACTIONS
        if opts[0] is not None and opts[0].type == DISCARD == opts[-1].type:
            # discards only, the common case: the acting seat's choices list its
            # win and kongs first (mjlog.choices.Choices.act_options), and a
            # discard's code is its tile, read by index (cheaper than by name)
            for o in opts:
                mask[o[_TILE]] = 1
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
        if type(action) in _INTS and 0 <= action < 34 and self._mask[action]:
            pick = self._discards[seat][action]  # a legal discard: the common case
        else:
            pick = self._event_of(seat, action, self._legal[seat])
        self._cumulative_rewards[self.agent_selection] = 0
        if self._rewarded:
            for x in self.agents:
                self.rewards[x] = 0
            self._rewarded = False
        st = self.state
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
        else:
            st.apply(pick)
        self._advance()

    def _event_of(self, seat: int, action, opts: list[Event | None]) -> Event | None:
        if action is None or not isinstance(action, int | np.integer) or not (
                0 <= action < N_ACTIONS):
            raise ValueError(f"action must be an integer in 0..{N_ACTIONS - 1}, not {action!r}")
        codes = {action_of(o): o for o in opts}
        if len(codes) != len(opts):  # two choices, one number: a bug
            raise RuntimeError(f"legal choices share an action number: {opts}")
        if action in codes:
            return codes[action]
        raise ValueError(f"action {int(action)} is not legal for player_{seat} now; legal: "
                         f"{sorted(action_of(o) for o in opts)} (see action_mask)")

    # -- what a seat sees
    def legal_events(self, agent: str) -> list[Event | None]:
        """The engine's legal choices of ``agent`` now (empty when it is not to act)."""
        if not self._queue or self.possible_agents[self._queue[0]] != agent:
            return []
        return list(self._legal[self._queue[0]])

    def action_mask(self, agent: str) -> np.ndarray:
        return self._mask_of(self._seat_of.get(agent))

    def _mask_of(self, seat: int | None) -> np.ndarray:
        """The caller's own copy of ``seat``'s legal codes (none unless it is to choose)."""
        q = self._queue
        if q and q[0] == seat:
            return self._mask_view.copy()
        return np.zeros(N_ACTIONS, _I8)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        obs: Any = self.observation_flat(seat) if self._flat else self.observation_dict(seat)
        return {"observation": obs, "action_mask": self._mask_of(seat)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """PettingZoo's ``last()`` (the selected agent's observation, cumulative
        reward, termination, truncation and info), in one call less."""
        a = self.agent_selection
        return (self.observe(a) if observe else None, self._cumulative_rewards[a],
                self.terminations[a], self.truncations[a], self.infos[a])

    def _sync(self) -> None:
        """Bring each seat's observation (seat o's at ``o * size`` in
        ``self._buf``, seats relative to it) up to the state's events. The common
        events change a few counts: a draw adds its tile to the drawer's hand; a
        discard moves it to the discards; a pon or an exposed kong takes it back
        into a meld with two or three of the claimer's tiles, a concealed kong
        four, an added kong one. Anything rarer refreshes from the state's own
        lists what it may change, once the events are counted: a win (it may take
        the discard of the seat it names, or undo its robbed kong) that seat's
        melds and discards, and every seat's void, win and bonus flags; a void or
        a bonus tile that seat's void or bonus count; a transfer the scores; the
        deal, a bonus tile or a win the hand.
        :meth:`observation_dict` reads only the state's lists, and a test holds
        the two equal for every seat at every decision."""
        evs = self.state.events
        buf, at, size = self._buf, self._discard_at, self._flat_n
        rare = None
        for ev in evs[self._seen:]:
            t = ev.type
            if t == DISCARD:
                s, tile = ev.seat, ev.tile
                buf[size * s + tile] -= 1.0
                where = at[s][tile]  # the seat's discards of the tile, in every seat's view
                c = buf[where[0]] + 1.0  # (the same count in each)
                for i in where:
                    buf[i] = c
            elif t == DRAW:
                buf[size * ev.seat + ev.tile] += 1.0
            elif rare is None:
                rare = [ev]
            else:
                rare.append(ev)
        self._seen = len(evs)
        if rare is not None:
            self._sync_rare(rare)

    def _sync_rare(self, evs: list[Event]) -> None:
        """:meth:`_sync` of the events other than draws and discards: their counts
        add up in any order, and the refreshes read the state as it is now."""
        buf, size = self._buf, self._flat_n
        meld_at, discard_at = self._meld_at, self._discard_at
        rows: tuple[int | None, ...] = ()
        hands: tuple[int | None, ...] = ()
        tail = scores = False
        for ev in evs:
            t = ev.type
            if t == PON or t == KONG:
                s, tile, kind = ev.seat, ev.tile, ev.kind
                took, meld = _MELD_CHANGE[kind if t == KONG else PON]
                buf[size * s + tile] -= took
                for i in meld_at[s][tile]:
                    buf[i] += meld
                if kind != "concealed" and kind != "added":
                    for i in discard_at[ev.from_seat][tile]:
                        buf[i] -= 1.0
            elif t == TRANSFER:
                scores = True
            elif t == VOID or t == BONUS:  # one seat's void or bonus count, as it is now
                s = ev.seat
                if t == VOID:
                    v = self.state.void[s]
                    for i in self._void_at[s]:
                        buf[i + v] = 1.0
                else:
                    hands += (s,)
                    c = self.state.bonus[s]
                    for i in self._bonus_at[s]:
                        buf[i] = c
            else:
                if t == WIN:
                    rows += (ev.seat, ev.from_seat)
                    tail = True
                if t in _HAND:
                    hands += (ev.seat, ev.from_seat)
        self._refresh({s for s in hands if s is not None}, {s for s in rows if s is not None},
                      tail, scores)

    def _refresh(self, hands: Iterable[int], rows: Iterable[int], tail: bool,
                 scores: bool) -> None:
        """Set counts from the state's lists: the ``hands`` of these seats, the
        melds and discards of the seats in ``rows`` (in every seat's view), every
        seat's void, win and bonus tiles (``tail``), and the scores."""
        st = self.state
        n, buf, size = self.n, self._buf, self._flat_n
        for s in hands:
            buf[size * s:size * s + 34] = array("f", st.hands[s])
        for s in rows:
            melds, discards = [0] * 34, [0] * 34
            for m in st.melds[s]:
                melds[m.tile] += m.size
            for t in st.discards[s]:
                discards[t] += 1
            for row, at in ((array("f", melds), self._meld_at[s][0]),
                            (array("f", discards), self._discard_at[s][0])):
                for i in at:
                    buf[i:i + 34] = row
        if tail:
            voids = [0] * (3 * n)
            for s, v in enumerate(st.void):
                if v is not None:
                    voids[3 * s + v] = 1
            voids += voids
            won, bonus = st.won * 2, st.bonus * 2
            at = 102 + 68 * n
            for o in range(n):
                buf[size * o + at:size * o + at + 5 * n] = array(
                    "f", voids[3 * o:3 * o + 3 * n] + won[o:o + n] + bonus[o:o + n])
        if scores:
            points = [d / 100.0 for d in st.deltas] * 2
            at = self._wall_at + 1
            for o in range(n):
                buf[size * o + at:size * o + at + n] = array("f", points[o:o + n])

    def observation_flat(self, seat: int) -> np.ndarray:
        """The flat observation: :meth:`observation_dict`'s fields in order,
        flattened, the wall and the scores scaled. It runs at every decision, so
        each seat's vector is kept up to date by :meth:`_sync`, and the wall and
        the drawn and open tiles, which change at every step, are written into the
        copy returned."""
        st = self.state
        if len(st.events) != self._seen:
            self._sync()
        v = self._views[seat].copy()
        pos = st.pos
        v[self._wall_at] = pos.live / self._wall_size
        drawn = pos.drawn
        if pos.turn == seat and pos.phase is _ACT and drawn is not None:
            v[34 + drawn] = 1.0
        w = st.claims.window
        if w is not None:
            v[68 + w.tile] = 1.0
        return v

    def observation_dict(self, seat: int) -> dict[str, np.ndarray]:
        """The documented dict observation of ``seat`` (seats relative to it)."""
        st = self.state
        n = self.n
        order = [(seat + k) % n for k in range(n)]
        hand = np.array(st.hands[seat], np.int8)
        drawn = np.zeros(34, np.int8)
        if st.turn == seat and st.drawn is not None and st.phase is Phase.ACT:
            drawn[st.drawn] = 1
        window = np.zeros(34, np.int8)
        if st.window is not None:
            window[st.window.tile] = 1
        melds = np.zeros((n, 34), np.int8)
        discards = np.zeros((n, 34), np.int8)
        voids = np.zeros((n, 3), np.int8)
        for i, s in enumerate(order):
            for m in st.melds[s]:
                melds[i, m.tile] += m.size
            if st.discards[s]:
                discards[i] = np.bincount(st.discards[s], minlength=34)
            if st.void[s] is not None:
                voids[i, st.void[s]] = 1
        dealer = np.zeros(n, np.int8)
        dealer[order.index(st.dealer)] = 1
        return {
            "hand": hand, "drawn": drawn, "window": window, "melds": melds,
            "discards": discards, "voids": voids,
            "won": np.array([st.won[s] for s in order], np.int8),
            "bonus": np.array([st.bonus[s] for s in order], np.int8),
            "wall": np.array([st.live], np.int16),
            "scores": np.array([st.deltas[s] for s in order], np.int32),
            "dealer": dealer,
        }

    # -- output
    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        from mjlog.tiles import fmt

        st = self.state
        rows = []
        for s in range(self.n):
            hand = [t for t in range(34) for _ in range(st.hands[s][t])]
            rows.append(f"S{s}{'*' if s == st.dealer else ' '} {fmt(hand):<20} melds "
                        f"{' '.join(fmt([m.tile] * m.size) for m in st.melds[s]) or '-'} "
                        f"discards {fmt(st.discards[s]) if st.discards[s] else '-'} "
                        f"score {st.deltas[s]:+d}")
        rows.append(f"wall {st.live}, phase {st.phase.name}")
        return "\n".join(rows)

    def close(self) -> None:
        pass

    def write_run(self, out: str | os.PathLike, names: Sequence[str] | None = None) -> dict:
        """Write the finished episode as a run directory (one match of one hand, seed
        and match as dealt, so the auditor's seed check applies); returns the
        manifest. ``names`` label the seats (default: the agent names), one string
        per seat; wrong ones are a ValueError before anything is written."""
        from mjlog import __version__
        from mjlog.engine import PlayedHand
        from mjlog.logio import ShardWriter, build_manifest, run_id, write_manifest
        from mjlog.rng import RNG
        from mjlog.rundir import RunClaim, check_output
        from simulate.runner import hand_records

        st = self.state
        if st is None or st.phase is not Phase.OVER:
            raise ValueError("the episode is not over: play it to the end first")
        names = self._seat_names(names)
        meta = {"variant": self.rules.variant, "rules": self.rules.to_json(),
                "seed": self.seed_root, "matches": 1, "hands_per_match": 1,
                "players": self.n, "agents": [{"name": a, "params": {}} for a in names],
                "duplicate": False, "rng": RNG, "mjlog_version": __version__}
        rid = run_id(meta)
        out = check_output(out, "out")
        played = PlayedHand(st, self.match, 0, 0, self.hand_seed, tuple(names),
                            self.dealer_rolls)
        layout = {"hands_per_shard": 1, "events": "all"}
        with RunClaim(out, rid, "hands_per_shard=1 events=all"), \
                ShardWriter(out, 0, rid, self.rules.variant, events=True) as w:
            w.add_hand(self.match, 0, 0, *hand_records(played))
        manifest = build_manifest(meta, w.entries, **layout)
        write_manifest(Path(out), manifest)
        return manifest

    def _seat_names(self, names: Sequence[str] | None) -> list[str]:
        """``names`` checked for :meth:`write_run`: one non-empty string per seat."""
        if names is None:
            return list(self.possible_agents)
        if isinstance(names, str | bytes):  # list("abcd") would be four names
            raise ValueError(f"names must be a sequence of {self.n} strings, not a "
                             f"{type(names).__name__}")
        names = list(names)
        if len(names) != self.n:
            raise ValueError(f"names: {self.n} names expected, {len(names)} given "
                             f"(one per seat)")
        for i, a in enumerate(names):
            if not isinstance(a, str) or not a:
                raise ValueError(f"names[{i}] must be a non-empty string, not {a!r}")
        return names


def observe_view(view: SeatView) -> np.ndarray:
    """The flat observation (as :meth:`MjlogEnv.observation_flat` gives it) of the
    seat of a :class:`~mjlog.agent.SeatView`: what an agent trained in the
    environment sees when it plays in ``mjlog simulate`` or ``mjlog ladder``."""
    n, seat = view.n, view.seat
    order = [(seat + k) % n for k in range(n)]
    v = np.zeros(flat_size(n), np.float32)
    v[0:34] = view.hand
    drawn, window = view.drawn, view.window_tile
    if drawn is not None:
        v[34 + drawn] = 1.0
    if window is not None:
        v[68 + window] = 1.0
    mo, do, vo = 102, 102 + 34 * n, 102 + 68 * n
    for i, s in enumerate(order):
        for m in view.melds[s]:
            v[mo + 34 * i + m.tile] += m.size
        for t in view.discards[s]:
            v[do + 34 * i + t] += 1.0
        if view.void[s] is not None:
            v[vo + 3 * i + view.void[s]] = 1.0
    o = vo + 3 * n
    v[o:o + n] = [view.won[s] for s in order]
    v[o + n:o + 2 * n] = [view.bonus[s] for s in order]
    v[o + 2 * n] = view.wall_left / len(wall_tiles(view.rules))
    v[o + 2 * n + 1:o + 3 * n + 1] = [view.scores[s] / 100.0 for s in order]
    v[o + 3 * n + 1 + order.index(view.dealer)] = 1.0
    return v


def env(**kwargs) -> MjlogEnv:
    """PettingZoo's conventional constructor (``from mjlog.env import env``)."""
    return MjlogEnv(**kwargs)


class MjlogGymEnv(gym.Env):
    """One seat of :class:`MjlogEnv` as a Gymnasium environment; the other seats
    are played by agents of :mod:`simulate.agents` (built-in names or plugin specs),
    each with the random stream ``mjlog simulate`` would give it.

    Observations and actions are those of the AEC environment (the
    ``action_mask`` inside the observation). An action outside the mask is not
    punished: with ``illegal="first"`` (the default; Gymnasium's checker and
    unmasked learners send any action of the space) the first legal choice is
    played instead and ``info["illegal_action"]`` is True; with
    ``illegal="raise"`` it raises ``ValueError``. The reward is the seat's points
    since its last decision; an episode is one hand.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, variant: str = "yuxi", seat: int = 0,
                 opponents: Sequence[str] = ("greedy",), sets: Iterable[str] = (),
                 rules_file: str | None = None, obs_type: str = "flat",
                 illegal: str = "first", render_mode: str | None = None):
        from simulate.agents import make_agents

        if illegal not in ("first", "raise"):
            raise ValueError(f"illegal must be 'first' or 'raise', not {illegal!r}")
        self.aec = MjlogEnv(variant, sets, rules_file, obs_type, render_mode)
        n = self.aec.n
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, not {seat!r}")
        others = list(opponents)
        if len(others) == 1:
            others = others * (n - 1)
        if len(others) != n - 1:
            raise ValueError(f"give {n - 1} opponents (or one for all), not {len(others)}")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponents = make_agents(others)
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)

    def _others(self) -> float:
        """Let the other seats play until this seat decides or the hand ends; the
        rewards this seat collects meanwhile."""
        from mjlog.agent import SeatView

        aec = self.aec
        total = 0.0
        while True:
            total += aec._cumulative_rewards[self.agent]
            aec._cumulative_rewards[self.agent] = 0
            if aec.state.phase is Phase.OVER:
                return total
            a = aec.agent_selection
            if a == self.agent:
                return total
            s = aec.possible_agents.index(a)
            opts = aec.legal_events(a)
            pick = self._players[s].choose(SeatView(aec.state, s), opts)
            aec.step(action_of(pick))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        from mjlog.rng import Stream, agent_seed

        super().reset(seed=seed)
        if seed is None and self.aec.seed_root is None:
            seed = int(self.np_random.integers(2**63))
        self.aec.reset(seed=seed)
        n = self.aec.n
        it = iter(self.opponents)
        self._players = [None if s == self.seat else next(it) for s in range(n)]
        for s, p in enumerate(self._players):
            if p is not None:
                p.start_hand(s, Stream(agent_seed(self.aec.seed_root, 0, 0, s)))
        self._others()
        return self.aec.observe(self.agent), {}

    def step(self, action):
        aec = self.aec
        info: dict[str, Any] = {}
        if aec.state.phase is Phase.OVER:
            raise RuntimeError("the episode is over: call reset()")
        mask = aec.action_mask(self.agent)
        if not (isinstance(action, int | np.integer) and 0 <= action < N_ACTIONS
                and mask[action]):
            if self.illegal == "raise":
                aec._event_of(self.seat, action, aec.legal_events(self.agent))
            action = int(np.flatnonzero(mask)[0])
            info["illegal_action"] = True
        aec.step(int(action))
        reward = self._others()
        over = aec.state.phase is Phase.OVER
        if over:
            info["deltas"] = list(aec.state.deltas)
        return aec.observe(self.agent), float(reward), over, False, info

    def render(self):
        return self.aec.render()

    def write_run(self, out: str | os.PathLike, name: str = "learner") -> dict:
        """:meth:`MjlogEnv.write_run`, the seats named by their players."""
        names = [name if p is None else p.name for p in self._players]
        return self.aec.write_run(out, names)


def _register() -> None:
    """``gymnasium.make("mjlog/Mahjong-v0", variant=…, opponents=…)``."""
    if "mjlog/Mahjong-v0" not in gym.registry:
        gym.register("mjlog/Mahjong-v0", entry_point="mjlog.env:MjlogGymEnv")


_register()
