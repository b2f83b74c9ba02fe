"""Seeded step chances for the race tests (test_strategic_memo, test_strategic_once)."""

from __future__ import annotations

import random


def random_steps(rng: random.Random, n: int) -> list[float]:
    """``n`` per-draw chances of taking a step, falling as the wanted tiles thin, the
    last sometimes higher (a wait on several kinds); 0 and 0.95 at the extremes."""
    q = rng.choice([0.0, 0.95, rng.random(), rng.random() / 10])
    out = [min(0.95, q * (n - j) / n) for j in range(n)]
    if rng.random() < 0.5:
        out[-1] = min(0.95, out[-1] * rng.choice([2, 3, 4]))
    return out
