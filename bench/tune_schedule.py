"""Where a study's wall goes, measured so that the machine's load does not decide it.

Runs ``mjlog tune`` (bench_tune.py's command, or ``--quick``'s smaller one) in this
process on ``--workers`` local workers and records:

- the parent's own CPU (``time.process_time``) outside the runner (its serial part:
  measuring, fits, bootstraps, the search) and inside it (feeding the pool);
- each shard as a worker played it: its CPU and its start and end (one clock for
  every process: ``time.monotonic``);

then says what a quiet machine of ``--workers`` cores would take: the parent's
serial CPU plus, for each call of the runner, the makespan of its shards' CPU
dealt to the workers in the order the runner submits them (a free worker takes the
next), or when longer its shards' CPU and the parent's meanwhile over the workers
(the parent reads a run while the others play: it shares the cores). ``ratio`` is that against the ideal ``CPU ÷ workers``; ``busy`` is the
fraction of the workers' time busy in that schedule. Wall-clock figures of this
run are shown too, for what the load leaves of them.

    python bench/tune_schedule.py [--quick] [--workers 2] [--out DIR]
    python bench/tune_schedule.py --balance 4000    # mjlog balance yuxi --hands 4000
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_tune import ARGS  # noqa: E402

LOG = Path(tempfile.gettempdir()) / f"tune-schedule-{os.getpid()}.jsonl"


def _hook_shards() -> None:
    """Each shard played logs its CPU and wall span (workers are forked after this)."""
    import simulate.runner as runner

    play = runner.play_shard

    def logged(spec, out, shard, first, end, *a, **k):
        c0, t0 = time.process_time(), time.monotonic()
        made = play(spec, out, shard, first, end, *a, **k)
        row = {
            "run": str(out),
            "shard": shard,
            "cpu": time.process_time() - c0,
            "start": t0,
            "end": time.monotonic(),
            "pid": os.getpid(),
        }
        with open(LOG, "a") as f:
            f.write(json.dumps(row) + "\n")
        return made

    runner.play_shard = logged


class Calls:
    """The runner's calls: each one's wall span and the parent's CPU inside it."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, list[str]]] = []  # (parent CPU inside, runs)
        self.cpu_inside = 0.0
        self.depth = 0  # simulate_runs calls simulate for one run: time the outer call

    def hook(self) -> None:
        import simulate.runner as runner

        for name in ("simulate", "simulate_runs"):
            fn = getattr(runner, name, None)
            if fn is None:
                continue
            setattr(runner, name, self._wrap(fn, name))
            # the study imported the name: patch it where it is read
            import analysis.studies.tune.study as study

            if hasattr(study, name):
                setattr(study, name, getattr(runner, name))

    def _wrap(self, fn, name):
        def timed(*a, **k):
            c0 = time.process_time()
            self.depth += 1
            try:
                return fn(*a, **k)
            finally:
                self.depth -= 1
                if not self.depth:
                    cpu = time.process_time() - c0
                    self.cpu_inside += cpu
                    runs = [str(a[1])] if name == "simulate" else [str(j.out) for j in a[0]]
                    self.spans.append((cpu, runs))

        return timed


PHASES = {
    "analysis.studies.tune.study": ("measure",),
    "analysis.studies.tune.search": ("fitted", "moved", "boot_best", "fitted_values"),
    "analysis.studies.tune.effects": ("compared",),
}
"""The parent's reading between runs, timed by name where the study reads it."""


def _hook_phases(cpu: dict[str, float]) -> None:
    import importlib

    for mod, names in PHASES.items():
        m = importlib.import_module(mod)
        for name in names:
            fn = getattr(m, name)

            def timed(*a, _fn=fn, _name=name, **k):
                c0 = time.process_time()
                try:
                    return _fn(*a, **k)
                finally:
                    cpu[_name] = cpu.get(_name, 0.0) + time.process_time() - c0

            setattr(m, name, timed)


def makespan(cpus: list[float], workers: int) -> float:
    """The shards' CPU dealt in order to the first free of ``workers``."""
    free = [0.0] * workers
    for c in cpus:
        heapq.heapreplace(free, free[0] + c)
    return max(free)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--balance", type=int, metavar="HANDS", help="time mjlog balance instead")
    o = ap.parse_args()
    budget, trials = (480, 4) if o.quick else (8000, 16)
    LOG.unlink(missing_ok=True)
    _hook_shards()
    calls = Calls()
    calls.hook()
    phases: dict[str, float] = {}
    _hook_phases(phases)
    out = o.out or tempfile.mkdtemp(prefix="tune-schedule-")
    args = [*ARGS, "--budget", str(budget), "--trials", str(trials)]
    if o.balance:
        args = ["balance", "yuxi", "--hands", str(o.balance), "--seed", "2026", "--quiet"]
        args += ["--format", "json"]
    args += ["--workers", str(o.workers), "--out", f"{out}/study"]
    from click.testing import CliRunner

    from mjlog.cli import main as cli

    c0, t0 = time.process_time(), time.monotonic()
    got = CliRunner().invoke(cli, args, catch_exceptions=False)
    wall, parent = time.monotonic() - t0, time.process_time() - c0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    if got.exit_code:
        raise SystemExit(got.output)
    rows = [json.loads(x) for x in LOG.read_text().splitlines()]
    LOG.unlink()
    by_run: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_run[r["run"]].append(r)
    shard_cpu = sum(r["cpu"] for r in rows)
    serial = parent - calls.cpu_inside
    spans = 0.0
    for inside, runs in calls.spans:
        # the runner submits each run's shards in order, the runs in order; the
        # parent's own CPU meanwhile (reading the runs done) shares the same cores
        cpus = [r["cpu"] for run in runs for r in sorted(by_run[run], key=lambda r: r["shard"])]
        spans += max(makespan(cpus, o.workers), (sum(cpus) + inside) / o.workers)
    ideal_cpu = shard_cpu + parent
    model = serial + spans
    ideal = ideal_cpu / o.workers
    busy_wall = sum(r["end"] - r["start"] for r in rows)
    print(
        json.dumps(
            {
                "answer": json.loads(got.output).get("best" if not o.balance else "compensation"),
                "runner_calls": len(calls.spans),
                "shards": len(rows),
                "shard_cpu": round(shard_cpu, 2),
                "parent_cpu": round(parent, 2),
                "parent_serial_cpu": round(serial, 2),
                "parent_cpu_in_runner": round(calls.cpu_inside, 2),
                "parent_phases": {k: round(v, 2) for k, v in phases.items()},
                "makespans": round(spans, 2),
                "quiet_wall": round(model, 2),
                "ideal_wall": round(ideal, 2),
                "ratio": round(model / ideal, 3),
                "busy": round(shard_cpu / (o.workers * model), 3),
                "wall": round(wall, 2),
                "children_cpu": round(kids.ru_utime + kids.ru_stime, 2),
                "wall_busy": round(busy_wall / (o.workers * wall), 3),
                "load": os.getloadavg(),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
