"""`mjlog balance yuxi --hands 20000` with strategic agents (the default line-up): its
wall-clock time as a user runs it (a child process, every core), and what it found.

Target (issue 17): it fits in `make bench`; its time is reported here.

    python bench/bench_balance.py [--quick]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HANDS = 20000


def _ci(e: dict) -> str:
    return f"{e['value']:+.3f} [{e['lo']:+.3f}, {e['hi']:+.3f}]"


def _nonzero(r: dict) -> str:
    """The positions an equivalent verdict holds though they differ from 0."""
    off = [str(p["position"]) for p in r["confirmed_positions"] if p["differs_from_zero"]]
    if r["verdict"] != "equivalent" or not off:
        return ""
    who = f"position {off[0]} differs" if len(off) == 1 else f"positions {', '.join(off)} differ"
    return f" ({who} from 0, by less than the margin)"


def run(quick: bool = False) -> dict:
    hands = 400 if quick else HANDS
    args = [
        "balance",
        "yuxi",
        "--hands",
        str(hands),
        "--seed",
        "2026",
        "--format",
        "json",
        "--quiet",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-m", "mjlog", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds of the command and its workers: what the time would be on idle
    # cores, divided by their number (the machine is shared with other jobs)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise RuntimeError(f"mjlog {' '.join(args)} failed: {p.stderr.strip()}")
    r = json.loads(p.stdout)
    runs = 2 if r["changes"] else 1
    played = runs * r["hands"]
    load = os.getloadavg()[0]
    # the load counts this command's own workers: other jobs shared the cores when the
    # wall clock is well past the CPU seconds spread over them
    busy = seconds > 1.25 * cpu / (os.cpu_count() or 1)
    section = (
        "## Balance: `mjlog balance`\n\n"
        f"`mjlog {' '.join(a for a in args if a not in ('--format', 'json', '--quiet'))}` "
        f"(agents: strategic in every seat, the default; every core): "
        f"**{seconds:.1f} s** wall clock, process start-up included, for {runs} run(s) of "
        f"{r['hands']} hands ({played / seconds:.0f} hands/s); {cpu:.0f} CPU seconds in all "
        f"(command and workers; {played / cpu:.0f} hands per CPU second; the machine's load "
        f"average was {load:.1f} on {os.cpu_count()} cores at the end"
        f"{', and the wall clock is past 1.25 × the CPU seconds over the cores: other jobs shared them' if busy else ', the wall clock about the CPU seconds over the cores'}). "
        f"One agent in every seat needs "
        f"no rotations (they would replay the same hands), so the {r['hands']} hands are "
        f"{r['matches']} matches of {r['hands_per_match']} distinct deals; the "
        f"confirmation plays fresh seeds, and is skipped when the proposal is the rules "
        f"measured.\n\n"
        "| figure | value [95% CI] | unit |\n|---|---|---|\n"
        f"| dealer advantage | {_ci(r['dealer_advantage'])} | points per hand |\n"
        f"| exact compensation x* | {_ci(r['compensation_exact'])} | points to each other "
        f"player per hand |\n"
        f"| proposal | `{' '.join(r['compensation_sets'])}` | {r['compensation']['points']:+.3f} "
        f"points |\n"
        f"| confirmed dealer advantage (seed {r['confirm_seed']}) | {_ci(r['confirmed'])} "
        f"| points per hand |\n"
        f"| verdict, margin ±{r['margin']} | {r['verdict']}{_nonzero(r)} | every position |\n"
        f"| most advantaged position | {r['largest']['position']}: {_ci(r['largest'])} "
        f"| points per hand |\n"
        f"| one step of the lever moves the advantage by | {r['resolution']:.3f} "
        f"| points per hand |\n"
    )
    return {"section": section, "seconds": seconds, "cpu_seconds": cpu, "result": r}


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
