"""Environment overhead (issue 20): the time per decision of the PettingZoo
environment (``env.last()`` with the flat observation and the action mask, then
``env.step``) against the engine's own play loop (``mjlog.engine.play_hand``) on
the same hands, both choosing uniformly among the legal choices.

    python bench/bench_env.py [--hands 300] [--variant yuxi]
    python bench/bench_env.py --callgrind [--hands 40] [--variant yuxi]

Prints JSON: decisions, µs per decision for each, and their ratio (target ≤ 2).
CPU time on a shared machine varies by tens of percent; ``--callgrind`` counts
instructions instead, which the load does not change: each loop runs in its own
process under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``, two
warm-up hands first (imports, caches), and only the measured hands collected.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from callgrind import collected, marked  # noqa: E402

from mjlog.engine import play_hand  # noqa: E402
from mjlog.env import MjlogEnv  # noqa: E402
from mjlog.rules import resolve  # noqa: E402
from simulate.agents import make_agents  # noqa: E402


class Counting:
    """The built-in random agent, counting its decisions."""

    def __init__(self):
        (self.inner,) = make_agents(["random"])
        self.name, self.params, self.n = "random", {}, 0

    def start_hand(self, seat, rng):
        self.inner.start_hand(seat, rng)

    def choose(self, view, options):
        self.n += 1
        return self.inner.choose(view, options)


def engine(variant: str, hands: int, first: int = 0) -> tuple[int, float]:
    rules = resolve(variant, None, [])  # as MjlogEnv(variant) resolves them
    agents = [Counting() for _ in range(rules.n)]
    t0 = time.process_time()
    for h in range(first, first + hands):
        play_hand(rules, agents, h, 0, 0, None)
    return sum(a.n for a in agents), time.process_time() - t0


def environment(variant: str, hands: int, first: int = 0) -> tuple[int, float]:
    env = MjlogEnv(variant)
    rng = random.Random(0)
    n = 0
    t0 = time.process_time()
    for h in range(first, first + hands):
        env.reset(seed=h)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
            n += 1
    return n, time.process_time() - t0


def measure(variant: str, hands: int) -> dict:
    rows = []
    for _ in range(3):  # best of three: the machine may be shared
        de, te = engine(variant, hands)
        dv, tv = environment(variant, hands)
        rows.append((te / de, tv / dv, de, dv))
    e_us, v_us, de, dv = min(rows, key=lambda r: r[1] / r[0])
    return {
        "variant": variant,
        "hands": hands,
        "engine_decisions": de,
        "env_decisions": dv,
        "engine_us_per_decision": round(e_us * 1e6, 1),
        "env_us_per_decision": round(v_us * 1e6, 1),
        "ratio": round(v_us / e_us, 2),
    }


LOOPS = {"engine": engine, "env": environment}
WARMUP = 2


def _child(loop: str, variant: str, hands: int) -> None:
    """The measured process of ``--callgrind``: warm-up hands, then ``hands``
    more inside :func:`callgrind.marked`; prints their decisions."""
    LOOPS[loop](variant, WARMUP)
    out = {}
    marked(lambda: out.update(decisions=LOOPS[loop](variant, hands, WARMUP)[0]))
    print(json.dumps(out))


def instructions(variant: str, hands: int = 40) -> dict:
    """Instructions per decision of the engine's loop and the environment's
    (``valgrind --tool=callgrind``, ``PYTHONHASHSEED=0``), and their ratio."""
    row = {"variant": variant, "hands": hands}
    for loop in LOOPS:
        count, out = collected(
            [__file__, "--child", loop, "--variant", variant, "--hands", str(hands)]
        )
        decisions = json.loads(out.strip().splitlines()[-1])["decisions"]
        row[f"{loop}_decisions"] = decisions
        row[f"{loop}_instructions_per_decision"] = round(count / decisions)
    row["ratio"] = round(
        row["env_instructions_per_decision"] / row["engine_instructions_per_decision"], 2
    )
    return row


def run(quick: bool = False) -> dict:
    """The BENCHMARKS.md section (``bench/run.py``): the timed ratios and, where
    valgrind is installed (not with ``quick``), the instruction counts."""
    variants = ("yuxi", "xuezhan", "huangmei")
    rows = [measure(v, 10 if quick else 100) for v in variants]
    counted = (
        [] if quick or shutil.which("valgrind") is None else [instructions(v) for v in variants]
    )
    lines = [
        f"| {r['variant']} | {r['env_decisions']} | {r['engine_us_per_decision']} | "
        f"{r['env_us_per_decision']} | {r['ratio']} |"
        for r in rows
    ]
    section = (
        "## Environment overhead (`bench/bench_env.py`)\n\n"
        "CPU time per decision of the PettingZoo environment (`env.last()` with the flat "
        "observation and the action mask, then `env.step`) against the engine's own loop "
        "(`mjlog.engine.play_hand`) on the same hands, both choosing uniformly among the "
        "legal choices; best of three passes. Target (issue 20): at most 2x: "
        f"{'met' if max(r['ratio'] for r in rows + counted) <= 2 else '**not met**'}.\n\n"
        "| variant | decisions | engine µs/decision | env µs/decision | ratio |\n"
        "|---|---|---|---|---|\n" + "\n".join(lines) + "\n"
    )
    if counted:
        section += (
            "\nInstructions per decision (`python bench/bench_env.py --callgrind --variant V`: "
            f"valgrind's callgrind, `PYTHONHASHSEED=0`, {counted[0]['hands']} hands after "
            f"{WARMUP} warm-up hands, each loop in its own process), which the machine's load "
            "does not change:\n\n"
            "| variant | engine decisions | engine instructions/decision | env decisions | "
            "env instructions/decision | ratio |\n|---|---|---|---|---|---|\n"
            + "\n".join(
                f"| {r['variant']} | {r['engine_decisions']} | "
                f"{r['engine_instructions_per_decision']} | {r['env_decisions']} | "
                f"{r['env_instructions_per_decision']} | {r['ratio']} |"
                for r in counted
            )
            + "\n"
        )
    return {"rows": rows, "instructions": counted, "section": section}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--variant", default="yuxi")
    ap.add_argument(
        "--callgrind",
        action="store_true",
        help="count instructions under valgrind (default 40 hands)",
    )
    ap.add_argument("--child", choices=LOOPS, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        _child(a.child, a.variant, a.hands)
    elif a.callgrind:
        print(json.dumps(instructions(a.variant, a.hands if a.hands != 300 else 40)))
    else:
        print(json.dumps(measure(a.variant, a.hands)))


if __name__ == "__main__":
    main()
