"""``mjlog.conformance.check_agent``: what a plugin author's test runs, and the
capabilities an agent declares (``mjlog.agent.CAPABILITIES``).

The check must pass mjlog's own agents and the template's, and fail an agent that
breaks the interface: randomness not from its stream, an illegal choice, no name,
a capability of the wrong type."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from mjlog.agent import CAPABILITIES, GreedyAgent, RandomAgent, capability
from mjlog.conformance import ConformanceError, check_agent
from mjlog.resettle import money_blind

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "examples" / "plugin_template"


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
@pytest.mark.parametrize("factory", [GreedyAgent, RandomAgent], ids=["greedy", "random"])
def test_the_built_in_agents_conform(factory, variant):
    check_agent(factory, variant, seeds=range(3))


def test_efficient_conforms():
    from simulate.agents import make_agent

    check_agent(lambda: make_agent("efficient"), "xuezhan", seeds=range(2))


def test_the_templates_agent_conforms_and_says_it_is_money_blind(monkeypatch):
    monkeypatch.syspath_prepend(str(TEMPLATE))
    from mjlog_agent_template.agent import Tidy

    check_agent(Tidy, "huangmei", seeds=range(2))
    assert capability(Tidy(), "money_blind") is True and money_blind([Tidy()])
    sys.modules.pop("mjlog_agent_template.agent", None)
    sys.modules.pop("mjlog_agent_template", None)


class _Unseeded(GreedyAgent):
    """Draws from Python's global random, not the stream start_hand gives it."""

    name = "unseeded"

    def choose(self, view, options):
        return options[random.randrange(len(options))]


class _Cheat(GreedyAgent):
    name = "cheat"

    def choose(self, view, options):
        return "a tile it does not hold"


class _Nameless(GreedyAgent):
    name = ""


class _SaysMaybe(GreedyAgent):
    money_blind = "maybe"


@pytest.mark.parametrize(
    ("factory", "says"),
    [
        (_Unseeded, "played twice gives two hands"),
        (_Cheat, "not one of its"),
        (_Nameless, "no name"),
        (_SaysMaybe, "money_blind must be a bool"),
    ],
    ids=["unseeded", "illegal-choice", "nameless", "capability-type"],
)
def test_a_broken_agent_fails_the_check(factory, says):
    random.seed(1)
    with pytest.raises(ConformanceError, match=says):
        check_agent(factory, "yuxi", seeds=range(4))


def test_an_undeclared_capability_takes_its_default():
    class Plain:
        name, params = "plain", {}

    assert capability(Plain(), "money_blind") is CAPABILITIES["money_blind"][1] is False
    assert not money_blind([GreedyAgent(), Plain()])
    assert money_blind([GreedyAgent(), RandomAgent()])
    assert not money_blind([_SaysMaybe()])  # only a declared True counts
