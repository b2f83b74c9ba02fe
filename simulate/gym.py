"""The Gymnasium single-seat environment with its opponents named: the name lookup
(:func:`simulate.agents.make_agents`: built-in names and plugin specs) sits here,
above :mod:`mjlog.env`, which takes agent objects only.

>>> env = gym_env("yuxi", opponents=["greedy"])
>>> obs, info = env.reset(seed=7)
>>> sorted(obs)
['action_mask', 'observation']
"""

from __future__ import annotations

from collections.abc import Sequence

from mjlog.env import MjlogGymEnv
from mjlog.rules import resolve
from simulate.agents import make_agents

__all__ = ["gym_env"]


def gym_env(
    variant: str = "yuxi",
    seat: int = 0,
    opponents: Sequence[str] = ("greedy",),
    sets: Sequence[str] = (),
    rules_file: str | None = None,
    obs_type: str = "flat",
    illegal: str = "first",
    render_mode: str | None = None,
) -> MjlogGymEnv:
    """:class:`~mjlog.env.MjlogGymEnv` for ``seat``, the other seats played by the agents
    ``opponents`` names (one name for all, or one per other seat; ``name:k=v;…``
    specs and plugins as ``mjlog simulate --agents`` takes them)."""
    names = list(opponents)
    if len(names) == 1:
        names *= resolve(variant, rules_file, list(sets)).n - 1
    return MjlogGymEnv(
        variant,
        seat,
        make_agents(names),
        sets,
        rules_file,
        obs_type,
        illegal,
        render_mode,
    )
