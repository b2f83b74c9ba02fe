"""How long a run will take here: a few of its hands played (not written) and timed.

Every command that plays announces its hands and this estimate before the first
hand (``mjlog/commands/announce.py``); ``mjlog plan`` sizes a study with it.

>>> from simulate.runner import RunSpec
>>> sph, timed = seconds_per_hand(RunSpec.build("xuezhan", 1, 3, 2, ["random"]), 2)
>>> sph > 0, timed
(True, 2)
"""

from __future__ import annotations

import time

from mjlog.engine import play_match
from mjlog.logio import hand_records
from simulate.agents import make_agents

__all__ = ["duration", "seconds_per_hand"]


def duration(seconds: float) -> str:
    """An estimated duration as a person reads it (every command that estimates says
    it this way: the announcement, ``plan``, ``tune``'s ETA).

    >>> duration(0.3), duration(42), duration(5400), duration(3 * 86400)
    ('under 1 s', 'about 42 s', 'about 1.5 h', 'about 3.0 days')
    """
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 5400:
        return f"about {seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"about {seconds / 3600:.1f} h"
    return f"about {seconds / 86400:.1f} days"


def seconds_per_hand(spec, hands: int, budget: float = 10.0) -> tuple[float, int]:
    """Seconds a hand of ``spec`` takes here, played (not written) on one core: the
    mean over up to ``hands`` hands of its first matches, or as many as ``budget``
    seconds allow, after one untimed hand (imports, caches). Returns (seconds, hands
    timed)."""
    n = spec.rules.n
    timed, spent, warm = 0, 0.0, False
    for match in range(max(1, spec.matches)):
        for r in range(spec.rotations):
            agents = make_agents([spec.agents[(s - r) % n] for s in range(n)])
            start = time.perf_counter()
            for p in play_match(
                spec.rules, agents, spec.seed, match, spec.hands_per_match, r, spec.duplicate
            ):
                hand_records(p)
                now = time.perf_counter()
                if warm:
                    timed += 1
                    spent += now - start
                warm = True
                start = now
                if timed >= hands or spent >= budget:
                    return spent / max(timed, 1), timed
    return spent / max(timed, 1), timed
