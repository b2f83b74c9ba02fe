"""The paired A/B of one agent against a baseline: the cheap, low-variance way to
see whether a change to ``expert`` helps.

Hand ``h`` (its own match, ``match=h``, dealer ``h mod n``) is played once with
the baseline in every seat, then once for every seat ``k`` with the agent in
seat ``k`` and the baseline elsewhere: the same wall, dice and agent streams.
The unit is the hand with every seat rotated, its value the mean over ``k`` of
the agent's points in seat ``k`` less the baseline's in that seat on the same
wall. Where the agent plays as the baseline (``expert`` reads strategic's own
stream, so it does whenever its search does not overrule) the difference is
exactly 0: only the decisions that differ add noise, which makes this far
cheaper than the four-agent duplicate ladder for telling whether a change helps.
The interval is :func:`analysis.stats.compare_units`'s paired t interval over
the units (points per seat-hand).

>>> r = paired_edge("yuxi", "expert:rollouts=0", hands=2, seed=1)
>>> r["diff"], r["units"], r["overruled"]
(0.0, 2, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable

from mjlog.agent import Agent
from mjlog.engine import play_hand
from mjlog.rules import Rules
from simulate.agents import make_agent, make_agents


def paired_edge(
    variant: str,
    agent: str = "expert",
    base: str = "strategic",
    hands: int = 100,
    seed: int = 2026,
    rules: dict | None = None,
    first: int = 0,
    make: Callable[[], Agent] | None = None,
) -> dict:
    """The agent's edge over ``base`` in points per seat-hand, paired by wall and
    seat (hands ``first`` … ``first + hands − 1``): ``diff`` [``lo``, ``hi``] (95 %
    t interval, hands as units), ``p``, ``units``, and ``per_hand`` (each unit's
    edge, to pair two agents' runs on the same hands); with ``base_mean`` and
    ``agent_mean`` (points per seat-hand of each in the rotated seat), the agent's
    ``searched`` and ``overruled`` decisions and the samples its searches drew,
    ``sampled`` (when it counts them) and ``cpu_s``. ``make``, when given, makes
    the agent (a measuring tool's, which no spec names); ``agent`` is then its label."""
    from analysis.stats import compare_units

    r = Rules(variant, rules or {})
    n = r.n
    make = make or (lambda: make_agent(agent))
    base_pts, agent_pts = [], []
    searched = overruled = sampled = 0
    c0 = time.process_time()
    for h in range(first, first + hands):
        plain = play_hand(r, make_agents([base] * n), seed=seed, match=h, hand=0, dealer=h % n)
        ref = plain.state.deltas
        got = []
        for k in range(n):
            agents = make_agents([base] * n)
            agents[k] = make()
            played = play_hand(r, agents, seed=seed, match=h, hand=0, dealer=h % n)
            got.append(played.state.deltas[k])
            searched += getattr(agents[k], "searched", 0)
            overruled += getattr(agents[k], "overruled", 0)
            sampled += getattr(agents[k], "sampled", 0)
        base_pts.append(sum(ref) / n)
        agent_pts.append(sum(got) / n)
    d = compare_units(base_pts, None, agent_pts, None, paired=True)
    return {
        "variant": variant,
        "agent": agent,
        "base": base,
        "hands": hands,
        "seat_hands": hands * n,
        "diff": d.diff,
        "lo": d.lo,
        "hi": d.hi,
        "p": d.p,
        "units": d.units,
        "per_hand": [a - b for a, b in zip(agent_pts, base_pts, strict=True)],
        "base_mean": d.baseline,
        "agent_mean": d.value,
        "searched": searched,
        "overruled": overruled,
        "sampled": sampled,
        "cpu_s": time.process_time() - c0,
    }


def head_to_head(
    variant: str,
    agent: str,
    other: str = "expert",
    hands: int = 100,
    seed: int = 2026,
    first: int = 0,
    make: Callable[[], Agent] | None = None,
    make_other: Callable[[], Agent] | None = None,
) -> dict:
    """Two agents' paired A/B against strategic on the same hands, and their
    difference hand by hand: ``agent`` and ``other`` (:func:`paired_edge`'s
    results) and ``gap`` (``agent``'s edge less ``other``'s, points per seat-hand:
    ``diff``, ``lo``, ``hi``, ``p``, ``units``). ``make`` and ``make_other``, when
    given, make them (each name then only a label), as :func:`paired_edge`'s ``make``.

    >>> r = head_to_head("yuxi", "expert:rollouts=0", "strategic", hands=2, seed=1)
    >>> r["gap"]["diff"], r["gap"]["units"]
    (0.0, 2)
    """
    from analysis.stats import compare_units

    a = paired_edge(variant, agent, hands=hands, seed=seed, first=first, make=make)
    b = paired_edge(variant, other, hands=hands, seed=seed, first=first, make=make_other)
    d = compare_units(b["per_hand"], None, a["per_hand"], None, paired=True)
    return {
        "agent": a,
        "other": b,
        "gap": {"diff": d.diff, "lo": d.lo, "hi": d.hi, "p": d.p, "units": d.units},
    }
