"""The template agent's own tests: it plays legal hands of every variant (the
engine refuses any other choice), keeps to its parameters, and is found by the
name its entry point gives it once the package is installed."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version

import pytest
from mjlog_agent_template.agent import Tidy

from mjlog.conformance import check_agent
from mjlog.engine import play_hand
from mjlog.events import PON, WIN
from mjlog.rules import resolve
from simulate.agents import make_agent, make_agents

VARIANTS = ("yuxi", "xuezhan", "huangmei")


def play(variant: str, tidy: Tidy, seed: int):
    agents = [tidy, *make_agents(["greedy", "random", "greedy"])]
    return play_hand(resolve(variant), agents, seed=seed, match=0, hand=0, dealer=None).state


@pytest.mark.parametrize("variant", VARIANTS)
def test_plays_whole_hands_of_every_variant(variant):
    wins = 0
    for seed in range(20):
        state = play(variant, Tidy(), seed)
        assert sum(state.deltas) == 0  # the money balances: the hand was played out
        wins += any(e.type == WIN and e.seat == 0 for e in state.events)
    assert wins > 0  # it wins some hands against greedy and random


@pytest.mark.parametrize("variant", VARIANTS)
def test_conforms_to_the_agent_interface(variant):
    """mjlog's own check: the interface, legal play with the engine's invariants
    checked after every event, and the same hand from the same seed."""
    check_agent(Tidy, variant, seeds=range(5))
    check_agent(lambda: Tidy(claims="none"), variant, seeds=range(2))


def test_claims_none_never_pons():
    pons = [
        e
        for seed in range(6)
        for e in play("yuxi", Tidy(claims="none"), seed).events
        if e.type == PON and e.seat == 0
    ]
    assert pons == []


def test_a_bad_parameter_is_refused():
    with pytest.raises(ValueError, match="claims"):
        Tidy(claims="sometimes")


def test_found_by_its_entry_point_name():
    """`tidy` is the name pyproject.toml's entry point gives: installed, it works
    wherever mjlog takes agents, and a run records the package's version."""
    agent = make_agent("tidy:claims=none")
    assert isinstance(agent, Tidy) and agent.params == {"claims": "none"}


def test_the_command_line_plays_it(tmp_path):
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "mjlog",
        "simulate",
        "--variant",
        "xuezhan",
        "--hands-per-match",
        "2",
        "--agents",
        "tidy,greedy,greedy,random",
        "--workers",
        "1",
        "--quiet",
        "--out",
        str(out),
    ]
    subprocess.run(cmd, check=True)
    seat = json.loads((out / "manifest.json").read_text())["agents"][0]
    assert seat["name"] == "tidy", seat
    assert seat["version"] == version("mjlog-agent-template"), seat
    audit = subprocess.run([sys.executable, "-m", "mjlog", "validate", str(out), "--quiet"])
    assert audit.returncode == 0
