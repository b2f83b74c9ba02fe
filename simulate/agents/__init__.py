"""The players: every built-in agent, their registry and the plugins' door.

===============  ==========================================================
``random``       uniform over its legal choices (:class:`mjlog.agent.RandomAgent`)
``greedy``       wins when it can, else keeps shanten low (:class:`mjlog.agent.GreedyAgent`)
``efficient``    tile acceptance (:mod:`simulate.agents.efficient`)
``strategic``    value and defence weighed under the rules in force
                 (:mod:`simulate.agents.strategic`, :mod:`simulate.agents.values`)
``expert``       strategic plus a search over the hidden tiles
                 (:mod:`simulate.agents.expert`, :mod:`simulate.agents.rollouts`)
===============  ==========================================================

Any other name is a plugin: an entry point of the ``mjlog.agents`` group or a
``package.module:factory`` (:mod:`simulate.agents.plugins`).

>>> [a.name for a in make_agents(["greedy", "strategic:aggression=0.7"])]
['greedy', 'strategic']
"""

from mjlog.agent import GreedyAgent, RandomAgent
from simulate.agents.efficient import EfficientAgent
from simulate.agents.expert import ExpertAgent
from simulate.agents.registry import (
    agent_entry,
    agent_names,
    make_agent,
    make_agents,
    parse_spec,
    register,
)
from simulate.agents.strategic import StrategicAgent

for _name, _cls in (
    ("random", RandomAgent),
    ("greedy", GreedyAgent),
    ("efficient", EfficientAgent),
    ("strategic", StrategicAgent),
    ("expert", ExpertAgent),
):
    register(_name)(_cls)

__all__ = [
    "register",
    "make_agent",
    "make_agents",
    "parse_spec",
    "agent_names",
    "agent_entry",
    "RandomAgent",
    "GreedyAgent",
    "EfficientAgent",
    "StrategicAgent",
    "ExpertAgent",
]
