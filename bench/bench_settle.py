"""`mjlog tune` on money-only keys: runs settled from logged play against every run
played (`--play-all`), the same command otherwise, as a user runs it (a child
process): hands played, wall clock, CPU, and whether the answers agree.

    python bench/bench_settle.py [--quick]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tune import _timed  # noqa: E402 - the same timing as the tune row

WORKERS = 2
ARGS = [
    "tune",
    "xuezhan",
    "--vary",
    "cap=2:64",
    "--vary",
    "base=1:4",
    "--target",
    "money_moved_per_hand=20±2",
    "--target",
    "capped_share<=0.05",
    "--agents",
    "efficient",
    "--seed",
    "2026",
    "--workers",
    str(WORKERS),
    "--quiet",
    "--format",
    "json",
]


def _answer(r: dict) -> tuple:
    return (
        r["best"],
        r["targets"],
        [(t["point"], t["loss"]) for t in r["trials"]],
        [(x["trials"], x["share_best"]) for x in r["race"]],
    )


def run(quick: bool = False) -> dict:
    budget, trials = (480, 6) if quick else (8000, 16)
    args = [*ARGS, "--budget", str(budget), "--trials", str(trials)]
    with tempfile.TemporaryDirectory() as d:
        settled, s_wall, s_cpu = _timed([*args, "--out", f"{d}/settled"])
        played, p_wall, p_cpu = _timed([*args, "--play-all", "--out", f"{d}/played"])
    same = _answer(settled) == _answer(played)
    shown = [a for a in args if a not in ("--quiet", "--format", "json")]
    section = (
        "## Tune: money-only keys settled from logged play\n\n"
        f"`mjlog {' '.join(shown)} --out DIR`, and the same with `--play-all` "
        f"(base and cap are money-only, `efficient` never reads money: a candidate is "
        f"settled from the first run played on its walls, its files the bytes play "
        f"writes; tests/batch/test_resettle.py).\n\n"
        "| runs | hands played | runs settled | wall clock | CPU seconds |\n"
        "|---|---|---|---|---|\n"
        f"| settled where they can be | {settled['hands']} | {len(settled['settled'])} | "
        f"{s_wall:.1f} s | {s_cpu:.0f} |\n"
        f"| every run played (`--play-all`) | {played['hands']} | "
        f"{len(played['settled'])} | {p_wall:.1f} s | {p_cpu:.0f} |\n\n"
        f"Wall-clock ratio settled / played: {s_wall / p_wall:.2f}. The same answer "
        f"(proposal, targets, every trial's loss, the race): {'yes' if same else 'NO'}. "
        f"Proposed: " + ", ".join(f"`{k}={v}`" for k, v in settled["best"].items()) + ".\n"
    )
    return {"section": section, "same": same}


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
