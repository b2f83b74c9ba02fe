"""How the agents play, and how strategic's play responds to the rules.

Three parts, each a section of BENCHMARKS.md:

- behaviour: per variant, strategic, efficient and greedy (each in all four seats)
  under the default rules: pons and kongs per hand, draw rate, deal-in rate,
  self-draw share, hand length, each pattern's share of wins;
- response: strategic in every seat, one rule value swept at a time on the same
  walls (paired): a pattern family's share of wins, each point against the lowest
  with a 95 % interval (:mod:`research.response`);
- rule-aware vs rule-blind: a duplicate ladder where ``strategic`` and
  ``strategic:rules=default`` sit at one table under changed values.

    python bench/bench_behaviour.py [--quick] [behaviour|response|blind ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANTS = ("yuxi", "xuezhan", "huangmei")
AGENTS = ("strategic", "efficient", "greedy")
SEED = 2026

# What a careful player would still do differently: written from the tables below
# (rerun and reread them when the agents change).
NOTES = {
    "yuxi": {
        "strategic": "it pons 3.5 times a hand (4.8 before it weighed a pon against the "
        "七对 route and ranked plans by the time left), a little less than "
        "efficient (3.7): a 碰碰胡 plan (14 % of its wins) pons freely, since no "
        "agent here reads an open hand and speed pays; it kongs 0.8 times a "
        "hand, and 杠上炮 (6 % of wins) and 抢杠胡 (4 %) show it underrates the "
        "discard after a kong and a robbed kong; it never passes a small win "
        "for a bigger one.",
        "efficient": "84 % of its wins are plain: it ignores value, and its discards carry "
        "no defence beyond the acceptance count.",
        "greedy": "it pons whatever keeps shanten (5.4 a hand), leaving open plain hands "
        "that may only self-draw: 28 % of its hands end with no winner.",
    },
    "xuezhan": {
        "strategic": "it takes every win at once and builds 清一色 (3 % of wins) and "
        "碰碰胡 (3 %) only from hands dealt close to one, ponning 3.8 times a "
        "hand; its danger sense reads melds and the wall, not discards, so it "
        "deals in no less than efficient (0.45 against 0.43 a seat-hand).",
        "efficient": "it voids its shortest suit and never aims at a pattern: 97 % of its "
        "wins are plain.",
        "greedy": "it claims whatever keeps shanten (5.1 pons a hand) and its hands are "
        "the slowest.",
    },
    "huangmei": {
        "strategic": "it builds 混一色 (13 % of wins) where the others almost never do, "
        "and 门前清 is commoner than for efficient (38 % against 32 %), but it "
        "still pons about three times a hand and never folds a big hand.",
        "efficient": "it pons for speed, and an open plain hand (1 fan) cannot win on a "
        "discard; its 15-fan wins are accidents (under 4 %).",
        "greedy": "it pons whatever keeps shanten, breaking 门前清, and its hands run longest.",
    },
}

SWEEPS = {
    "yuxi": [
        ("qingyise", "points.qingyise", ["1/1", "3/4", "6/8", "12/16"]),
        ("qidui", "points.qidui", ["1/1", "3/4", "6/8", "12/16"]),
    ],
    "xuezhan": [
        ("qingyise", "mult.qingyise", ["1", "4", "8", "16"]),
        ("qidui", "mult.qidui", ["1", "4", "8", "16"]),
    ],
    "huangmei": [
        ("qingyise", "fan.qingyise", ["1", "15", "30", "60"]),
        ("qidui", "fan.qidui", ["1", "15", "30", "60"]),
    ],
}
KONGS_WORTHLESS = [
    "fan.minggang_shu=0",
    "fan.angang_shu=0",
    "fan.minggang_zhongbai=0",
    "fan.angang_zhongbai=0",
    "fan.gangshanghua=0",
]


def _ci(d):
    return f"{d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]"


def behaviour_section(quick: bool, hands: int | None = None) -> str:
    from research.response import behaviour

    hands = hands or (24 if quick else 400)
    parts = []
    for v in VARIANTS:
        rows = []
        cols = {}
        for a in AGENTS:
            t0 = time.perf_counter()
            r = behaviour(v, [a], hands, seed=SEED)
            n, w = len(r["wins"]), sum(r["wins"])
            cols[a] = (r, w)
            rows.append(
                f"| {a} | {sum(r['pons']) / n:.2f} | {sum(r['kongs']) / n:.2f} | "
                f"{sum(r['exhausted']) / n:.3f} | {sum(r['deal_ins']) / (4 * n):.3f} | "
                f"{sum(r['self_draws']) / w if w else 0:.3f} | {sum(r['draws']) / n:.1f} | "
                f"{w / n:.2f} | {time.perf_counter() - t0:.0f} s |"
            )
        keys = sorted(
            {p for r, _ in cols.values() for p in r["patterns"]},
            key=lambda p: -max(r["patterns"].get(p, 0) / max(w, 1) for r, w in cols.values()),
        )
        prow = "\n".join(
            f"| {p} | "
            + " | ".join(f"{r['patterns'].get(p, 0) / max(w, 1):.3f}" for r, w in cols.values())
            + " |"
            for p in keys
        )
        notes = "\n".join(f"- **{a}**: {NOTES[v][a]}" for a in AGENTS)
        parts.append(
            f"### {v}\n\n{hands} hands per agent (seed {SEED}), the agent in all four seats, "
            "default rules. Per hand, all four seats together: pons, kongs; draw rate: "
            "hands with no winner; deal-ins: per seat-hand (in the blood battle a seat may "
            "deal in more than once); self-draw share: of wins; "
            "hand length: tiles drawn.\n\n"
            "| agents | pons/hand | kongs/hand | draw rate | deal-ins | self-draw share "
            "| hand length | wins/hand | time |\n|---|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows)
            + "\n\nShare of wins listing each pattern:\n\n"
            "| pattern | "
            + " | ".join(AGENTS)
            + " |\n|---|"
            + "---|" * len(AGENTS)
            + "\n"
            + prow
            + "\n\nWhere each still departs from careful play:\n\n"
            + notes
            + "\n"
        )
    return (
        "## Agents: how they play (default rules)\n\n"
        "`python bench/bench_behaviour.py behaviour`\n\n" + "\n".join(parts)
    )


def response_section(quick: bool, hands: int | None = None) -> str:
    from research.response import (
        above_share,
        behaviour,
        rate_diff,
        ratio_diff,
        share,
        share_diff,
    )

    hands = hands or (24 if quick else 300)
    parts = []
    for v in VARIANTS:
        for fam, key, grid in SWEEPS[v]:
            runs = [
                behaviour(v, ["strategic"], hands, seed=SEED, sets=[f"{key}={g}"]) for g in grid
            ]
            rows = "\n".join(
                f"| {key}={g} | {share(r, fam):.3f} | "
                f"{'—' if i == 0 else _ci(share_diff(runs[0], r, fam))} | "
                f"{sum(r['wins']) / hands:.2f} |"
                for i, (g, r) in enumerate(zip(grid, runs, strict=True))
            )
            parts.append(
                f"### {v}: {key}\n\n| rule | {fam} family share of wins | "
                "vs the lowest value (95 % CI) | wins/hand |\n|---|---|---|---|\n" + rows + "\n"
            )
    caps = ["1", "2", "4", "8", "16"]
    runs = [behaviour("xuezhan", ["strategic"], hands, seed=SEED, sets=[f"cap={c}"]) for c in caps]
    rows = []
    for c, r in zip(caps, runs, strict=True):
        num, den = above_share(r, int(c))
        base_num, base_den = above_share(runs[-1], int(c))
        d = ratio_diff(base_num, base_den, num, den)
        rows.append(
            f"| cap={c} | {sum(num) / max(1, sum(den)):.3f} | "
            f"{sum(base_num) / max(1, sum(base_den)):.3f} | "
            f"{'—' if c == caps[-1] else _ci(d)} |"
        )
    parts.append(
        "### xuezhan: cap\n\nShare of wins whose multiplier exceeds the cap, at "
        "that cap and, on the same walls, at the default cap 16.\n\n"
        "| rule | share above the cap | same share at cap=16 | difference (95 % CI) "
        "|\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )
    a = behaviour("huangmei", ["strategic"], hands, seed=SEED)
    b = behaviour("huangmei", ["strategic"], hands, seed=SEED, sets=KONGS_WORTHLESS)
    parts.append(
        "### huangmei: worthless kongs\n\n"
        f"`{' '.join('--set ' + s for s in KONGS_WORTHLESS)}`\n\n"
        "| rules | kongs/hand | pons/hand |\n|---|---|---|\n"
        f"| default | {sum(a['kongs']) / hands:.3f} | {sum(a['pons']) / hands:.2f} |\n"
        f"| kongs worth nothing | {sum(b['kongs']) / hands:.3f} | "
        f"{sum(b['pons']) / hands:.2f} |\n\n"
        f"Difference in kongs per hand: {_ci(rate_diff(a, b, 'kongs'))}.\n"
    )
    return (
        "## Agents: how strategic's play responds to the rules\n\n"
        f"`python bench/bench_behaviour.py response`: strategic in every seat, {hands} "
        f"hands per point (seed {SEED}), every point on the same walls; intervals are "
        "paired by hand (the share's ratio linearised per hand).\n\n"
        + READING
        + "\n"
        + "\n".join(parts)
    )


READING = """Reading the curves:

- A flat stretch means no plan's worth changed there: the agent values targets
  through prototype hands, so a cap from 4 up, or a 清一色 below 混一色's value in
  huangmei (where honors stay in a one-suit hand), leaves every plan as it was.
- huangmei 清一色: at fan 1 a 混一色 hand keeps its last honors (thrown, they
  would leave a pure hand 14 fan cheaper), so pure hands almost vanish; from 15,
  where 混一色 pays as much, the pure hands dealt close to one suit come back, and
  above it hands with at most one honor throw it for 清一色. Hands end at the
  first win, about ten draws each, and plans now race the draws left, so the
  share stays near 1 % and moves little above 15: at 300 hands a point the rise
  from fan 1 to 60 (+0.007 [−0.006, +0.020]) is within noise here, while the
  response test's larger seeded run (`tests/test_response.py`, 600 hands) keeps
  an interval above 0. The one-suit allowance stays capped at 5 tiles off the
  suit (at 8 the rule-aware agent chased 清一色 so far that its rule-blind copy
  beat it).
- The one-suit curves of yuxi and xuezhan flatten at their top two values: the
  allowance is capped at 5 tiles off the suit, reached once 清一色 is worth about
  four plain hands.
- 七对 now rises from its lowest value in huangmei too: 碰碰胡's distance counts the
  tiles it needs, so five pairs no longer make it outrank seven pairs.
"""


BLIND = [
    ("xuezhan", ["mult.qingyise=16"], 4000),
    ("yuxi", ["points.qingyise=12/16"], 8000),
    ("huangmei", ["fan.qidui=40"], 4000),
]
# Where the rule-aware agent does not win, the section says why (read off the tables).
BLIND_NOTES = {
    "huangmei": (
        "Not met in huangmei: the rule-aware agent builds 七对 from four pairs (its "
        "rule-blind copy from five) and wins bigger hands but fewer of them. Hands end "
        "at the first win, about ten draws each, and plans are ranked at 0.6 per "
        "missing tile whatever time the hand has left, so a far chase loses the race. "
        "Under `fan.qingyise=40` and `fan.qingyise=1` the two are level within noise "
        "(strategic 0.849 [0.513, 1.185] against 1.062 [0.706, 1.417]; 0.754 "
        "[0.428, 1.080] against 0.803 [0.472, 1.134], 4000 hands each); at the "
        "`fan.qingyise=16` of the text's second table they play alike (清一色 and "
        "混一色 pay within a fifth of each other)."
    ),
}


def blind_section(quick: bool) -> str:
    from analysis.studies.ladder import ladder

    lineup = ["strategic", "strategic:rules=default", "efficient", "greedy"]
    parts = []
    for v, sets, hands in BLIND:
        hands = 64 if quick else hands
        # the seating of the committed figures (measured before balanced was the default)
        t = ladder(v, lineup, hands=hands, seed=SEED, sets=sets, workers=None, seating="cyclic")
        rows = "\n".join(
            f"| {r.agent} | {r.hands} | {r.mean_points:.3f} | [{r.ci_low:.3f}, {r.ci_high:.3f}] "
            f"| {r.win_rate:.3f} | {r.mean_total_per_win:.2f} |"
            for r in t.itertuples()
        )
        parts.append(
            f"### {v}, `{' '.join(sets)}`\n\n`mjlog ladder --variant {v} --agents "
            f"{','.join(lineup)} --hands {hands} --seed {SEED} "
            f"{' '.join('--set ' + s for s in sets)} --seating cyclic`\n\n"
            "| agent | seat-hands | mean points/hand | 95% CI | win rate | total/win, all payers |\n"
            "|---|---|---|---|---|---|\n"
            + rows
            + "\n"
            + (f"\n{BLIND_NOTES[v]}\n" if v in BLIND_NOTES else "")
        )
    return (
        "## Agents: rule-aware against rule-blind\n\n"
        "`strategic:rules=default` values every choice as if the default rules were in "
        "force; both sit at one duplicate table under a changed value.\n\n" + "\n".join(parts)
    )


def run(quick: bool = False, parts=("behaviour", "response", "blind")) -> dict:
    fns = {"behaviour": behaviour_section, "response": response_section, "blind": blind_section}
    return {"section": "\n".join(fns[p](quick) for p in parts)}


if __name__ == "__main__":
    picked = [a for a in sys.argv[1:] if not a.startswith("-")]
    print(
        run(quick="--quick" in sys.argv, parts=picked or ("behaviour", "response", "blind"))[
            "section"
        ]
    )
