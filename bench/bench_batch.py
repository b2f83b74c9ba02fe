"""Benchmark of batch simulation: worker scaling, peak memory, log size, and RLCard.

    python bench/bench_batch.py [--quick]

``run(quick)`` returns ``{"section": markdown, "figures": {...}}`` for
``bench/run.py``. Four measurements:

- scaling: hands/s (wall clock) of one yuxi random-agent run with 1 and 2 workers;
- memory: peak RSS, summed over the ``mjlog simulate`` process and its workers and
  sampled every 0.1 s with psutil, of a 200,000-hand random-agent run with the
  default worker count, beside a run ten times smaller (bounded memory means the
  two peaks are close);
- log size: bytes on disk per hand and per row of each table for a 100,000-hand
  greedy yuxi run, default shards, every event (target: ≤ 600 bytes/hand);
- RLCard: its ``mahjong`` game loop with uniform random choices over the distinct
  legal actions (no observation encoding) against mjlog's random agents with logs
  written, both on one core, best of interleaved passes (target: mjlog ≥ 15×
  faster per hand).

Single-process figures are CPU seconds (``time.process_time``), so that other
work on a shared machine does not change them; the scaling and memory runs are
wall clock. Agents draw from the engine's seeded streams; RLCard's loop uses
``random.Random`` with a fixed seed and RLCard's own seeded generator.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGETS = {"bytes_per_hand": 600, "rlcard_ratio": 15.0}
TABLES = ("hands", "events", "wins", "transfers")


def _spec(agent: str, hands: int, hands_per_shard: int | None = None, seed: int = 2026):
    from simulate.runner import HANDS_PER_SHARD, RunSpec

    hpm = 8
    return RunSpec.build(
        "yuxi",
        seed=seed,
        matches=max(1, hands // hpm),
        hands_per_match=hpm,
        agents=[agent],
        hands_per_shard=hands_per_shard or HANDS_PER_SHARD,
    )


def scaling(hands: int, hands_per_shard: int, repeat: int) -> dict:
    """Wall-clock hands/s of the same run with 1 and 2 local workers (pool start
    included), best of ``repeat`` interleaved passes, as other work comes and goes."""
    from simulate.runner import simulate

    spec = _spec("random", hands, hands_per_shard)
    out = {"hands": spec.total_hands, "shards": len(spec.shards()), "repeat": repeat}
    for _ in range(repeat):
        for workers in (1, 2):
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                simulate(spec, d, workers=workers, progress=False)
                rate = spec.total_hands / (time.perf_counter() - t0)
            key = f"workers_{workers}_hands_per_s"
            out[key] = max(out.get(key, 0.0), rate)
    out["speedup"] = out["workers_2_hands_per_s"] / out["workers_1_hands_per_s"]
    return out


def _tree_rss(proc) -> int:
    import psutil

    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:  # a worker that just exited
            pass
    return total


def peak_memory(hands: int, agent: str = "random") -> dict:
    """Peak summed RSS of ``mjlog simulate`` (default workers) and its workers."""
    import psutil

    matches = max(1, hands // 8)
    with tempfile.TemporaryDirectory() as d:
        cmd = [
            sys.executable,
            "-m",
            "mjlog",
            "simulate",
            "--variant",
            "yuxi",
            "--matches",
            str(matches),
            "--hands-per-match",
            "8",
            "--agents",
            agent,
            "--seed",
            "7",
            "--quiet",
            "--out",
            d,
        ]
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=ROOT)
        proc = psutil.Process(p.pid)
        peak = 0
        while p.poll() is None:
            peak = max(peak, _tree_rss(proc))
            time.sleep(0.1)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}")
    from simulate.runner import default_workers

    return {
        "hands": matches * 8,
        "workers": default_workers(),
        "peak_rss_mb": peak / 2**20,
        "hands_per_s": matches * 8 / dt,
    }


def log_size(hands: int, agent: str = "greedy") -> dict:
    """Bytes on disk per hand and per row, table by table (default shards, all events)."""
    from simulate.runner import simulate

    spec = _spec(agent, hands)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        m = simulate(spec, d, progress=False)
        dt = time.perf_counter() - t0
        sizes = {t: 0 for t in TABLES}
        rows = {t: 0 for t in TABLES}
        for f in m["files"]:
            sizes[f["table"]] += (Path(d) / f["path"]).stat().st_size
            rows[f["table"]] += f["rows"]
    n = rows["hands"]
    tables = {
        t: {
            "rows": rows[t],
            "bytes": sizes[t],
            "bytes_per_hand": sizes[t] / n,
            "bytes_per_row": sizes[t] / rows[t] if rows[t] else 0.0,
        }
        for t in TABLES
    }
    return {
        "hands": n,
        "agents": agent,
        "shards": len(spec.shards()),
        "seconds": dt,
        "bytes_per_hand": sum(sizes.values()) / n,
        "tables": tables,
    }


def rlcard_hands_per_s(hands: int, seed: int = 0) -> dict:
    """One pass of RLCard's mahjong game loop, uniform over the distinct legal actions."""
    try:
        import rlcard
    except ImportError:
        return {
            "hands_per_s": float("nan"),
            "note": "rlcard not installed (pip install -c constraints.txt '.[bench]')",
        }
    env = rlcard.make("mahjong", config={"seed": seed})
    game = env.game
    rng = random.Random(seed)
    steps = 0
    t0 = time.process_time()
    for _ in range(hands):
        state, _ = game.init_game()
        while not game.is_over():
            legal = game.get_legal_actions(state)  # cards to discard, or pong/gong/chow/stand
            distinct = {a if isinstance(a, str) else a.get_str(): a for a in legal}
            state, _ = game.step(distinct[rng.choice(sorted(distinct))])
            steps += 1
    dt = time.process_time() - t0
    return {"hands": hands, "hands_per_s": hands / dt, "steps_per_hand": steps / hands}


def mjlog_hands_per_s(hands: int) -> dict:
    """One pass of mjlog random agents, one worker, logs written."""
    from simulate.runner import simulate

    spec = _spec("random", hands)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.process_time()
        m = simulate(spec, d, workers=1, progress=False)
        dt = time.process_time() - t0
    n = sum(f["rows"] for f in m["files"] if f["table"] == "hands")
    ev = sum(f["rows"] for f in m["files"] if f["table"] == "events")
    return {"hands": n, "hands_per_s": n / dt, "events_per_hand": ev / n}


def versus_rlcard(rl_hands: int, mj_hands: int, repeat: int) -> tuple[dict, dict]:
    """Best of ``repeat`` interleaved passes of each loop (CPU seconds, one core)."""
    rl = mj = None
    for _ in range(repeat):
        r, m = rlcard_hands_per_s(rl_hands), mjlog_hands_per_s(mj_hands)
        rl = r if rl is None or r["hands_per_s"] > rl["hands_per_s"] else rl
        mj = m if mj is None or m["hands_per_s"] > mj["hands_per_s"] else mj
    return rl, mj


def run(quick: bool = False) -> dict:
    q = quick
    scale = scaling(800 if q else 8_000, 100 if q else 1000, 2 if q else 3)
    big = 4_000 if q else 200_000
    mem_small = peak_memory(big // 10)
    mem = peak_memory(big)
    size = log_size(1_000 if q else 100_000)
    rl, mj = versus_rlcard(30 if q else 1_000, 200 if q else 5_000, 2 if q else 3)
    ratio = mj["hands_per_s"] / rl["hands_per_s"]

    size_rows = "\n".join(
        f"| {t} | {v['rows']} | {v['bytes']:,} | {v['bytes_per_row']:.1f} | "
        f"{v['bytes_per_hand']:.1f} |"
        for t, v in size["tables"].items()
    )
    ok_size = "meets" if size["bytes_per_hand"] <= TARGETS["bytes_per_hand"] else "misses"
    ok_rl = "meets" if ratio >= TARGETS["rlcard_ratio"] else "misses"
    section = f"""## Batch simulation (`bench/bench_batch.py`{" --quick" if q else ""})

Scaling: yuxi, random agents, {scale["hands"]:,} hands in {scale["shards"]} shards, wall
clock with the pool's start-up, best of {scale["repeat"]} interleaved passes (other work
on the machine shows here): 1 worker {scale["workers_1_hands_per_s"]:.0f} hands/s,
2 workers {scale["workers_2_hands_per_s"]:.0f} hands/s, **{scale["speedup"]:.2f}×**.

Peak memory (RSS of `mjlog simulate` and its workers summed, sampled every 0.1 s),
random agents, {mem["workers"]} workers (the default): **{mem["peak_rss_mb"]:.0f} MB** for
{mem["hands"]:,} hands ({mem["hands_per_s"]:.0f} hands/s), {mem_small["peak_rss_mb"]:.0f} MB
for {mem_small["hands"]:,} hands. Memory is bounded by one shard's row group per worker,
not by the run's size.

Log size on disk: yuxi, {size["agents"]} agents, {size["hands"]:,} hands in
{size["shards"]} shards (the default size), all events: **{size["bytes_per_hand"]:.0f}
bytes/hand** for the four tables (target ≤ {TARGETS["bytes_per_hand"]}: {ok_size} it).

| table | rows | bytes | bytes/row | bytes/hand |
|---|---|---|---|---|
{size_rows}

RLCard: its `mahjong` game loop (uniform over the distinct legal actions, no
observation encoding, {rl.get("steps_per_hand", float("nan")):.0f} steps/hand) plays
{rl["hands_per_s"]:.0f} hands/s; mjlog with random agents, one worker, logs written
({mj["events_per_hand"]:.0f} events/hand), {mj["hands_per_s"]:.0f} hands/s (both in CPU
seconds, best of interleaved passes): mjlog is **{ratio:.1f}×** faster per hand
(target ≥ {TARGETS["rlcard_ratio"]:.0f}×: {ok_rl} it).
"""
    figures = {
        "scaling": scale,
        "memory": mem,
        "memory_small": mem_small,
        "log_size": size,
        "rlcard": rl,
        "mjlog_random": mj,
        "rlcard_ratio": ratio,
    }
    return {"section": section, "figures": figures}


if __name__ == "__main__":
    import json

    res = run(quick="--quick" in sys.argv)
    print(res["section"])
    print(json.dumps(res["figures"], indent=1), file=sys.stderr)
