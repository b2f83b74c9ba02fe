"""`mjlog compare` over two 1,000,000-hand runs, and `mjlog report` on one.

Targets (issue 17): compare under 10 s; report under 60 s.

Playing 2 × 1,000,000 hands takes hours on a shared 2-core machine, so the runs are
*tiled*: two seeded 20,000-hand yuxi runs (random agents, ``--events none``; the
second with ``--set cap=8``, same seed: same walls) are played once, then each is
written 50 times over with its match numbers shifted by 2,500 per copy and the run
id of the 1,000,000-hand run, under an ordinary manifest (rows, sha256, bytes).
The Parquet files are the engine's own, so DuckDB reads exactly the columns, types
and sizes a played run has; the tiles are verified like any run when read. Cached
in ``$MJLOG_BENCH_CACHE`` (default ``/tmp/mjlog-bench``).

    python bench/bench_compare.py [--quick]
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGETS = {"compare": 10.0, "report": 60.0}
SEED_MATCHES, HPM = 2500, 8


def _cache() -> Path:
    return Path(os.environ.get("MJLOG_BENCH_CACHE", Path(tempfile.gettempdir()) / "mjlog-bench"))


def tiled_run(sets: tuple[str, ...], tiles: int) -> Path:
    """The 20,000-hand seed run of ``sets``, tiled ``tiles`` times (written once)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mjlog.logio import build_manifest, shard_path, write_manifest, write_options
    from mjlog.rundir import sha256_file
    from simulate.runner import RunSpec, simulate

    name = "yuxi-random" + "".join(f"-{s.replace('=', '')}" for s in sets)
    seed_dir = _cache() / f"{name}-20k"
    spec = RunSpec.build(
        "yuxi",
        seed=1,
        matches=SEED_MATCHES,
        hands_per_match=HPM,
        agents=["random"],
        sets=sets,
        events=False,
    )
    simulate(spec, seed_dir, workers=None, progress=None)
    if tiles == 1:
        return seed_dir
    out = _cache() / f"{name}-{tiles * 20}k-tiled"
    if (out / "manifest.json").exists():
        return out
    big = dataclasses.replace(spec, matches=SEED_MATCHES * tiles)
    rid = big.run_id
    entries = []
    shards = spec.shards()
    for k in range(tiles):
        for s, _a, _b in shards:
            for t in ("hands", "wins", "transfers"):
                tab = pq.read_table(seed_dir / shard_path(t, s))
                i = tab.schema.get_field_index("match")
                tab = tab.set_column(
                    i,
                    tab.schema.field(i),
                    pa.compute.add(
                        tab.column(i), pa.scalar(k * SEED_MATCHES, tab.schema.field(i).type)
                    ),
                )
                j = tab.schema.get_field_index("run_id")
                tab = tab.set_column(
                    j,
                    tab.schema.field(j),
                    pa.chunked_array(
                        [
                            pa.DictionaryArray.from_arrays(
                                pa.array([0] * len(tab), pa.int32()), pa.array([rid])
                            )
                        ],
                        type=tab.schema.field(j).type,
                    ),
                )
                rel = shard_path(t, k * len(shards) + s)
                (out / t).mkdir(parents=True, exist_ok=True)
                pq.write_table(tab, out / rel, **write_options(t))
                entries.append(
                    {
                        "table": t,
                        "path": rel,
                        "rows": len(tab),
                        "sha256": sha256_file(out / rel),
                        "bytes": (out / rel).stat().st_size,
                    }
                )
    write_manifest(out, build_manifest(big.meta(), entries, **big.layout()))
    return out


def _cli(*args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its threads)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mjlog", *args], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(quick: bool = False) -> dict:
    tiles = 1 if quick else 50
    a, b = tiled_run((), tiles), tiled_run(("cap=8",), tiles)
    hands = SEED_MATCHES * HPM * tiles
    load = os.getloadavg()[0]
    t_cmp, c_cmp = _cli("compare", str(a), str(b), "--format", "json")
    with tempfile.TemporaryDirectory() as d:
        t_rep, c_rep = _cli("report", str(a), "--out", str(Path(d) / "r"))
    rows = [
        f"| `mjlog compare A B --format json` (2 × {hands:,} hands, paired) | "
        f"{t_cmp:.1f} | {c_cmp:.1f} | < {TARGETS['compare']:.0f} s "
        f"{'met' if t_cmp < TARGETS['compare'] else 'NOT met'} |",
        f"| `mjlog report A` ({hands:,} hands, findings, swing, precision) | "
        f"{t_rep:.1f} | {c_rep:.1f} | < {TARGETS['report']:.0f} s "
        f"{'met' if t_rep < TARGETS['report'] else 'NOT met'} |",
    ]
    section = (
        "## Balance analysis: paired comparison and report\n\n"
        f"Two yuxi runs of {hands:,} hands (random agents, `--events none`; B with "
        "`--set cap=8`, same seed: every match paired by its walls)"
        + (
            ""
            if quick
            else ", each a 20,000-hand run tiled 50 times (match numbers "
            "shifted, the big run's id and manifest; see bench/bench_compare.py)"
        )
        + ". Wall-clock seconds of the command, Python start-up included, sha256 of every "
        "file verified on read; CPU seconds (user + system, every thread) beside them, "
        f"since the machine was shared (load average {load:.1f} when the run started)."
        "\n\n| command | wall s | CPU s | target (wall) |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )
    return {
        "section": section,
        "figures": {
            "hands": hands,
            "compare": t_cmp,
            "report": t_rep,
            "compare_cpu": c_cmp,
            "report_cpu": c_rep,
        },
    }


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv)["section"])
