"""Evidence for the agents: a duplicate ladder of strategic, efficient, greedy and
random in each variant (issue: strategic > efficient > greedy > random in mean
points per hand, with non-overlapping 95% intervals, over ≥ 20,000 duplicate hands).

    python bench/bench_ladder.py [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LINEUP = ["strategic", "efficient", "greedy", "random"]


def run(quick: bool = False) -> dict:
    from simulate.ladder import ladder

    hands = 320 if quick else 20000
    parts, figures = [], {}
    for variant in ("yuxi", "xuezhan", "huangmei"):
        t = ladder(variant, LINEUP, hands=hands, seed=2026, workers=None)
        order = list(t["agent"])
        separated = all(t["ci_low"].iloc[i] > t["ci_high"].iloc[i + 1]
                        for i in range(len(t) - 1))
        verdict = ("met" if order == LINEUP and separated else
                   f"NOT met (order {', '.join(order)}, intervals "
                   f"{'apart' if separated else 'overlap'})")
        figures[variant] = t.to_dict("records")
        rows = "\n".join(
            f"| {r.agent} | {r.hands} | {r.mean_points:.3f} | [{r.ci_low:.3f}, {r.ci_high:.3f}] "
            f"| {r.win_rate:.3f} | {r.deal_in_rate:.3f} | {r.mean_points_per_win:.2f} |"
            for r in t.itertuples())
        parts.append(
            f"### {variant}: {verdict}\n\n"
            f"`mjlog ladder --variant {variant} --agents {','.join(LINEUP)} --hands {hands} "
            f"--seed 2026`\n\n"
            "| agent | seat-hands | mean points/hand | 95% CI | win rate | deal-in rate "
            "| points/win |\n|---|---|---|---|---|---|---|\n" + rows + "\n")
    section = ("## Agents: duplicate ladder\n\n"
               f"Each match is played once per seat rotation on the same walls; {hands} hands "
               "per variant in all, every agent in every seat. Intervals take the match as "
               "the unit.\n\n" + "\n".join(parts))
    return {"section": section, "figures": figures}


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
