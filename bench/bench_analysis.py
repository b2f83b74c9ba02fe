"""Analytics at scale: DuckDB queries and `mjlog report` on a 1,000,000-hand yuxi run.

Targets (the analytics issue): pattern frequencies and per-seat win rates each
answer in under 5 s, and `mjlog report` on the whole run takes under 60 s.

The run (random agents, `--events none`: no figure needs the events table) is
written once into ``$MJLOG_BENCH_CACHE`` (default ``/tmp/mjlog-bench``) and reused;
a rerun resumes it if it was interrupted. Writing it takes a while (every core).

    python bench/bench_analysis.py [--quick]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HANDS_PER_MATCH = 8
TARGETS = {"pattern_frequencies": 5.0, "seat_stats": 5.0, "report": 60.0}


def bench_run(quick: bool) -> Path:
    """The benchmark's run directory, written (or resumed) if needed."""
    from simulate.runner import RunSpec, simulate

    hands = 20_000 if quick else 1_000_000
    matches = hands // HANDS_PER_MATCH
    cache = Path(os.environ.get("MJLOG_BENCH_CACHE", Path(tempfile.gettempdir()) / "mjlog-bench"))
    out = cache / (f"yuxi-random-{hands // 1000}k" if quick else "yuxi-random-1m")
    spec = RunSpec.build(
        "yuxi",
        seed=1,
        matches=matches,
        hands_per_match=HANDS_PER_MATCH,
        agents=["random"],
        events=False,
    )
    simulate(spec, out, workers=None, progress=None)
    return out


def _timed(fn, repeat: int = 1):
    """(best seconds, last result) over ``repeat`` calls, each on a fresh DuckDB connection
    (no warm cache)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def run(quick: bool = False) -> dict:
    from analysis import queries
    from analysis.report import write_report

    run_dir = bench_run(quick)
    hands = sum(r.hands for r in queries.Runs(run_dir).runs)
    size = sum(p.stat().st_size for p in run_dir.rglob("*.parquet"))
    times: dict[str, float] = {}
    rows = []

    def q(name: str, fn, target: float | None = None) -> None:
        dt, res = _timed(lambda: fn(queries.Runs(run_dir)), repeat=1 if quick else 2)
        times[name] = dt
        verdict = "" if target is None else ("met" if dt < target else "NOT met")
        rows.append(
            f"| `{name}` | {dt:.2f} | {len(res)} | "
            f"{f'< {target:.0f} s {verdict}' if target else '—'} |"
        )

    q("pattern_frequencies", queries.pattern_frequencies, TARGETS["pattern_frequencies"])
    q("seat_stats", lambda r: queries.seat_stats(r, by="seat"), TARGETS["seat_stats"])
    q("seat_stats(by=agent)", lambda r: queries.seat_stats(r, by="agent"))
    q("dealer_advantage", queries.dealer_advantage)
    q("distribution(win_points)", lambda r: queries.distribution(r, "win_points"))
    q("distribution(hand_points)", lambda r: queries.distribution(r, "hand_points"))
    q("money_shares", queries.money_shares)
    q("compare", queries.compare)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        page = write_report([run_dir], d)
        dt = time.perf_counter() - t0
        kb = page.stat().st_size / 1024
    times["report"] = dt
    verdict = "met" if dt < TARGETS["report"] else "NOT met"
    rows.append(
        f"| `mjlog report` (every table and figure, HTML written) | {dt:.2f} | "
        f"{kb:.0f} KiB | < {TARGETS['report']:.0f} s {verdict} |"
    )
    section = (
        "## Analytics: DuckDB over a large run\n\n"
        f"One yuxi run of {hands:,} hands (random agents, `--events none`, "
        f"{size / 2**20:.0f} MiB of Parquet), queried in place with DuckDB "
        "(`analysis.queries`: file lists passed as parameters, only aggregates come back). "
        "Each query opens a fresh connection; best of "
        f"{1 if quick else 2}. `mjlog report` computes every table and draws every figure."
        "\n\n| query | seconds | rows (report: size) | target |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )
    return {"section": section, "figures": {"hands": hands, "seconds": times}}


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
