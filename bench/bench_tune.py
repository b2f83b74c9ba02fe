"""`mjlog tune`: a two-key, two-target tune with strategic agents, as a user runs it
(a child process), on local workers and on a dask.distributed cluster of N workers on
this machine; its trials, hands, wall-clock time, and what it proposed.

    python bench/bench_tune.py [--quick]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WORKERS = 2
ARGS = [
    "tune",
    "huangmei",
    "--vary",
    "fan.qidui=5:60:5",
    "--vary",
    "fan.qingyise=5:40:5",
    "--target",
    "pattern_rate[qidui]=0.05±0.01",
    "--target",
    "draw_rate<=0.3",
    "--agents",
    "strategic",
    "--seed",
    "2026",
    "--quiet",
    "--format",
    "json",
]


def _timed(args: list[str]) -> tuple[dict, float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-m", "mjlog", *args], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"mjlog {' '.join(args)} failed: {p.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(p.stdout), seconds, cpu


def run(quick: bool = False) -> dict:
    budget, trials = (480, 4) if quick else (8000, 16)
    args = [*ARGS, "--budget", str(budget), "--trials", str(trials)]
    with tempfile.TemporaryDirectory() as d:
        load = [os.getloadavg()[0]]
        local, local_s, local_cpu = _timed(
            [*args, "--workers", str(WORKERS), "--out", f"{d}/local"]
        )
        load.append(os.getloadavg()[0])
        from distributed import LocalCluster

        # the cluster's worker processes are this process's children: their CPU is
        # counted once the cluster is closed (their start-up included)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with LocalCluster(
            n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            there, dask_s, _ = _timed(
                [*args, "--scheduler", cluster.scheduler_address, "--out", f"{d}/dask"]
            )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        dask_cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
        load.append(os.getloadavg()[0])
    same = there == local
    shown = [a for a in args if a not in ("--quiet", "--format", "json")]

    def want(t: dict) -> str:
        return f"{t['metric']}{t['op']}{t['target']:g}" + (f"±{t['tol']:g}" if t["tol"] else "")

    rows = "\n".join(
        f"| `{want(t)}` | {t['value']:.4g} [{t['lo']:.4g}, {t['hi']:.4g}] | {t['verdict']} |"
        for t in local["targets"]
    )
    section = (
        "## Tune: `mjlog tune`\n\n"
        f"`mjlog {' '.join(shown)} --out DIR` (two keys, two targets, strategic in every "
        f"seat): {len(local['trials'])} trials, {len(local['race'])} race round(s), "
        f"{local['hands']} hands in all.\n\n"
        "| where | wall clock | CPU seconds | wall ÷ (CPU ÷ workers) | hands/s |\n"
        "|---|---|---|---|---|\n"
        f"| {WORKERS} local workers | {local_s:.1f} s | {local_cpu:.0f} | "
        f"{local_s / (local_cpu / WORKERS):.2f} | {local['hands'] / local_s:.0f} |\n"
        f"| dask LocalCluster, {WORKERS} worker processes | {dask_s:.1f} s | "
        f"{dask_cpu:.0f} (the cluster's start-up included) | "
        f"{dask_s / (dask_cpu / WORKERS):.2f} | {there['hands'] / dask_s:.0f} |\n\n"
        f"Load average (1 min) at the start, between the two and at the end: "
        + ", ".join(f"{x:.1f}" for x in load)
        + f" on {os.cpu_count()} cores (the machine is shared: above 2, other jobs "
        "shared the cores and the wall clock says more about them than about the tune).\n\n"
        f"The same answer on both: {'yes' if same else 'NO'}. Proposed: "
        + ", ".join(f"`{k}={v}` (was {local['before'][k]})" for k, v in local["best"].items())
        + f"; on fresh walls (seed {local['confirm_seed']}):\n\n"
        "| target | after [95% CI] | verdict |\n|---|---|---|\n" + rows + "\n"
    )
    return {"section": section, "local": local, "same": same}


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
