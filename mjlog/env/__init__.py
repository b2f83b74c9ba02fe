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

from typing import Any

try:
    import gymnasium as gym
    import pettingzoo  # noqa: F401  (the AEC environment's base class)
except ImportError as e:  # pragma: no cover - the `env` extra is not installed
    raise ImportError("mjlog.env needs pettingzoo and gymnasium: pip install 'mjlog[env]'") from e

from mjlog.env.actions import N_ACTIONS, PASS, action_of
from mjlog.env.aec import MjlogEnv
from mjlog.env.encoder import flat_size, observe_view
from mjlog.env.single import MjlogGymEnv

__all__ = [
    "N_ACTIONS",
    "PASS",
    "MjlogEnv",
    "MjlogGymEnv",
    "action_of",
    "flat_size",
    "env",
    "observe_view",
]


def env(**kwargs: Any) -> MjlogEnv:
    """PettingZoo's conventional constructor (``from mjlog.env import env``)."""
    return MjlogEnv(**kwargs)


def _register() -> None:
    """``gymnasium.make("mjlog/Mahjong-v0", variant=…, opponents=…)``: the entry point
    is named, not imported; it lives above the environment, where agents are known
    by name (:func:`simulate.gym.gym_env`)."""
    if "mjlog/Mahjong-v0" not in gym.registry:
        gym.register("mjlog/Mahjong-v0", entry_point="simulate.gym:gym_env")


_register()
