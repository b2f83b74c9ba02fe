"""Golden playthroughs: one small human-readable hand per variant (JSON lines).

``make golden`` rewrites them; ``tests/core/test_golden.py`` replays the same seeds
and diffs line by line, so any change in play or scoring shows as a readable diff.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (variant, seed, agents, extra rule settings): seeds chosen for a kong and a win
CASES = [
    ("yuxi", 0, "strategic,efficient,greedy,random", ["horses=2"]),
    ("xuezhan", 2, "strategic,efficient,greedy,greedy", []),
    ("huangmei", 1, "strategic,efficient,greedy,greedy", []),
]


def render(variant: str, seed: int, agents: str, sets: list[str]) -> str:
    from mjlog.interchange import export_hand
    from simulate.runner import RunSpec, simulate

    with tempfile.TemporaryDirectory() as d:
        spec = RunSpec.build(variant, seed, 1, 1, agents.split(","), sets=sets)
        simulate(spec, d, workers=1, progress=False)
        return "\n".join(export_hand(d, 0, 0)) + "\n"


def main() -> None:
    for variant, seed, agents, sets in CASES:
        (HERE / f"{variant}.jsonl").write_text(render(variant, seed, agents, sets))
        print(f"wrote tests/golden/{variant}.jsonl", file=sys.stderr)


if __name__ == "__main__":
    main()
