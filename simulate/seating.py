"""How a duplicate ladder seats its line-up: the orders it plays on the same walls.

Kept apart from :mod:`analysis.ladder` (DuckDB, pandas) so that the CLI can list
the choices in ``--help`` without importing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

from mjlog.errors import InputError

#: the ways a ladder can seat its line-up (the CLI and the bench offer these)
SEATINGS = ("balanced", "cyclic")
#: fair by construction: two agents that play alike finish level on any walls
DEFAULT_SEATING = "balanced"


def seatings(agents: Sequence[str], seating: str = DEFAULT_SEATING) -> list[tuple[str, ...]]:
    """The line-ups a ladder plays, each in every seat rotation.

    ``cyclic``: the line-up as given. Its rotations put every agent in every seat,
    but each keeps the same neighbours: the agent listed before another always
    plays just before it. On given walls that order is luck one agent gets and
    the other does not: two copies of strategic, one listed just before the
    other, finished +0.117 [+0.001, +0.232] points a hand apart in one 8000-hand
    xuezhan ladder. It is noise more than a bias: over ten such ladders a
    variant the first led by +0.016 [−0.015, +0.048] (xuezhan), +0.020 [−0.008,
    +0.048] (yuxi) and −0.016 [−0.110, +0.079] (huangmei)
    (``research/expert_study.py --parts seating``).
    ``balanced`` (the default): the first agent fixed and every order of the
    others (repeats dropped). With their rotations that is every assignment of
    the agents to the seats (4! = 24 for four agents: six orders of four
    rotations), so each agent sits just before each other one equally often, and
    two agents that play alike finish exactly level on any walls.

    >>> seatings(["a", "b", "c"], "balanced")
    [('a', 'b', 'c'), ('a', 'c', 'b')]
    >>> len(seatings(["expert", "strategic", "efficient", "greedy"], "balanced"))
    6
    """
    if seating not in SEATINGS:
        raise InputError(f"unknown seating {seating!r}: use one of {', '.join(SEATINGS)}")
    agents = tuple(agents)
    if seating == "cyclic":
        return [agents]
    return list(dict.fromkeys((agents[0], *p) for p in permutations(agents[1:])))
