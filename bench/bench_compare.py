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

    python bench/bench_compare.py [--quick] [--tiles 10,50,500]
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


def _cli(*args: str) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of the command and its threads, peak RSS in MB) of
    ``mjlog ARGS`` (``os.wait4``: this child's own figures, not every child's)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mjlog", *args], stdout=subprocess.DEVNULL)
    _pid, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, proc.args)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024  # Linux: ru_maxrss in KiB


def _measure(tiles: int) -> dict:
    """compare and report on runs of ``tiles`` × 20,000 hands."""
    a, b = tiled_run((), tiles), tiled_run(("cap=8",), tiles)
    cmp = _cli("compare", str(a), str(b), "--format", "json")
    print(f"compare {tiles * 20}k: {cmp}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as d:
        rep = _cli("report", str(a), "--out", str(Path(d) / "r"))
    print(f"report {tiles * 20}k: {rep}", file=sys.stderr, flush=True)
    return {"hands": SEED_MATCHES * HPM * tiles, "compare": cmp, "report": rep}


def run(quick: bool = False, sizes: tuple[int, ...] = (10, 50)) -> dict:
    """``sizes``: tiles per run (10: 200,000 hands; 50: 1,000,000; 500: 10,000,000).
    The targets are read at 1,000,000 hands; the peak RSS at every size shows whether
    memory grows with the hands."""
    load = os.getloadavg()[0]
    return section([_measure(t) for t in ((1,) if quick else sizes)], load, quick)


def section(got: list[dict], load: float, quick: bool = False) -> dict:
    """The section and figures of :func:`run` from its measurements (``_measure``'s)."""
    rows = []
    for g in got:
        for cmd, what in (
            ("compare", f"`mjlog compare A B --format json` (2 × {g['hands']:,} hands, paired)"),
            ("report", f"`mjlog report A` ({g['hands']:,} hands, findings, swing, precision)"),
        ):
            wall, cpu, mb = g[cmd]
            target = (
                f"< {TARGETS[cmd]:.0f} s {'met' if wall < TARGETS[cmd] else 'NOT met'}"
                if g["hands"] == 1_000_000
                else "—"
            )
            rows.append(f"| {what} | {wall:.1f} | {cpu:.1f} | {mb:.0f} | {target} |")
    slope = ""
    if len(got) > 1:
        lo, hi = got[0], got[-1]
        per = {
            c: (hi[c][2] - lo[c][2]) * 1024 / (hi["hands"] - lo["hands"])
            for c in ("compare", "report")
        }
        slope = (
            f"\n\nPeak RSS from {lo['hands']:,} to {hi['hands']:,} hands grows by "
            f"{per['compare']:.3f} KB per hand for compare and {per['report']:.3f} KB per "
            "hand for report (the difference of the two peaks over the difference of the "
            "hands; one measurement each, so a few MB either way is noise)."
        )
    first = got[-1]["hands"] if got else 0
    section = (
        "## Balance analysis: paired comparison and report\n\n"
        "Two yuxi runs (random agents, `--events none`; B with "
        "`--set cap=8`, same seed: every match paired by its walls)"
        + (
            ""
            if quick
            else ", each a 20,000-hand run tiled (match numbers "
            "shifted, the big run's id and manifest; see bench/bench_compare.py)"
        )
        + ". Wall-clock seconds of the command, Python start-up included, sha256 of every "
        "file verified on read; CPU seconds (user + system, every thread) beside them, "
        f"since the machine was shared (load average {load:.1f} when the run started); "
        "peak RSS of the command's process (`ru_maxrss`, MB; imports alone take about "
        "260 MB). DuckDB works under `MJLOG_DUCKDB_MEMORY` (default 128MB) and spills "
        "beyond it."
        "\n\n| command | wall s | CPU s | peak RSS MB | target (wall, at 1,000,000 hands) |\n"
        "|---|---|---|---|---|\n" + "\n".join(rows) + slope + "\n"
    )
    return {
        "section": section,
        "figures": {
            "hands": first,
            **{
                f"{c}{'' if g['hands'] == 1_000_000 else '_' + str(g['hands'])}{k}": g[c][i]
                for g in got
                for c in ("compare", "report")
                for i, k in ((0, ""), (1, "_cpu"), (2, "_rss_mb"))
            },
        },
    }


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="the 20,000-hand seed runs only")
    ap.add_argument(
        "--tiles",
        default="10,50",
        help="tiles per run, comma-separated (10: 200k hands, 50: 1M, 500: 10M; "
        "the 10M tiles take ~1.2 GB of disk per run)",
    )
    ns = ap.parse_args()
    print(run(quick=ns.quick, sizes=tuple(int(x) for x in ns.tiles.split(",")))["section"])
