"""How a duplicate ladder seats its line-up: the orders it plays on the same walls.

Kept apart from :mod:`simulate.ladder` (DuckDB, pandas) so that the CLI can list
the choices in ``--help`` without importing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

from mjlog.errors import InputError

#: the ways a ladder can seat its line-up (the CLI and the bench offer these)
SEATINGS = ("balanced", "cyclic")
#: fair by construction; ``cyclic`` is cheaper in hands (one order) but not neutral
DEFAULT_SEATING = "balanced"


def seatings(agents: Sequence[str], seating: str = DEFAULT_SEATING) -> list[tuple[str, ...]]:
    """The line-ups a ladder plays, each in every seat rotation.

    ``cyclic``: the line-up as given. Its rotations put every agent in every seat,
    but each keeps the same neighbours: the agent listed before another always
    plays just before it. That is not neutral: two copies of strategic, one
    listed just before the other, finished 0.117 [0.001, 0.232] points a hand
    apart in an 8000-hand xuezhan ladder (``bench/bench_expert.py``, part null).
    ``balanced`` (the default): the first agent fixed and every order of the
    others (repeats dropped), so each agent sits just before each other one
    equally often. For four agents that is six orders, so a match is played 24
    times; no three orders would do (each ordered pair once would split the
    complete directed graph on four agents into three directed Hamiltonian
    cycles, which Tillson's theorem rules out for four).

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
