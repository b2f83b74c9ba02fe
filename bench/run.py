"""Run every benchmark and write BENCHMARKS.md (``make bench``): ``bench/`` times
(speed, memory, sizes); the studies that measure what play and the statistics do
live in ``research/`` and their sections (``research/results/``) follow the timings.

Machines are noisy, so figures are reported beside the reference loop
``../shared/bench/bareloop.py`` run in the same invocation, as ratios.

    python bench/run.py [--out BENCHMARKS.md] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
BARELOOP = ROOT.parent / "shared" / "bench" / "bareloop.py"
STUDIES = ("expert", "calibration", "tune_calibration", "verdicts")
"""The statistical studies (``research/run.py`` writes them), shown after the timings."""
NOTES = {"compare": ("verdicts-synthetic",), "strategic": ("strategic-profile",)}
"""Sections no bench writes (``bench/results/NAME.md``, kept by hand), each shown after
the part it follows: a profile, the seeded decision studies of the test suite."""
HEADER = (
    "# Benchmarks\n\nCommand: `make bench` (runs `python bench/run.py --out "
    "BENCHMARKS.md`; `--only engine,ladder` reruns some parts and reuses the "
    "others from `bench/results/`).\nMachine: {machine}.\n"
)
STUDIES_HEADER = (
    "# Studies\n\nWhat the agents and the statistics do, measured by `research/` "
    "(not timings): each section as `python research/run.py` last wrote it to "
    "`research/results/`; `make bench` does not rerun them.\n"
)
PARTS = (
    "hand",
    "engine",
    "audit",
    "batch",
    "analysis",
    "ladder",
    "compare",
    "behaviour",
    "env",
    "import",
    "balance",
    "tune",
    "settle",
    "strategic",
    "compiled",
)
"""The timed parts, in BENCHMARKS.md's order; each caches its section in
``bench/results/NAME.md``."""


def assembled(parts: dict[str, str], machine_line: str) -> str:
    """BENCHMARKS.md from each part's section (``parts``), the hand-kept notes and the
    studies' sections as ``research/results/`` holds them (a test holds the committed
    file to this, so no section lives only there)."""
    results = ROOT / "bench" / "results"
    sections = [HEADER.format(machine=machine_line)]
    for name in PARTS:
        sections.append(parts[name])
        sections += [(results / f"{n}.md").read_text() for n in NOTES.get(name, ())]
    sections.append(STUDIES_HEADER)
    sections += [(ROOT / "research" / "results" / f"{n}.md").read_text() for n in STUDIES]
    return "\n".join(sections)


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores, {cpu or platform.machine()}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def bareloop(hands: int) -> dict:
    if not BARELOOP.exists():
        return {"hands_per_s": float("nan"), "note": f"{BARELOOP} not found"}
    out = subprocess.run(
        [sys.executable, str(BARELOOP), str(hands)], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def engine(variant: str, agent: str, hands: int) -> dict:
    """hands/s of one-worker simulation with logs written (process start-up excluded)."""
    from simulate.runner import RunSpec, simulate

    hpm = 8
    spec = RunSpec.build(
        variant, seed=12345, matches=max(1, hands // hpm), hands_per_match=hpm, agents=[agent]
    )
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        m = simulate(spec, d, workers=1, progress=False)
        dt = time.perf_counter() - t0
        n = sum(f["rows"] for f in m["files"] if f["table"] == "hands")
        ev = sum(f["rows"] for f in m["files"] if f["table"] == "events")
        size = sum((Path(d) / f["path"]).stat().st_size for f in m["files"])
    return {
        "hands": n,
        "seconds": dt,
        "hands_per_s": n / dt,
        "events_per_hand": ev / n,
        "bytes_per_hand": size / n,
    }


def engine_section(q: bool) -> str:
    # Paired passes: each engine pass is followed at once by a reference pass, and
    # the pass's ratio is taken between the two, so a busy spell on this shared
    # machine slows both sides of a ratio; the row shows the median pass.
    engine("yuxi", "random", 8)  # warm-up: the first Parquet write imports pandas (start-up)
    n = 40 if q else 2000
    ref_hands = 300 if q else 3000
    rows, refs = [], []
    targets = {"random": 0.33, "greedy": 0.10, "strategic": 0.03}
    for variant in ("yuxi", "xuezhan", "huangmei"):
        for agent in ("random", "greedy", "efficient", "strategic"):
            if q and (variant != "yuxi" or agent in ("efficient", "strategic")):
                continue
            passes = 1 if q else {"random": 5, "greedy": 3, "strategic": 3}.get(agent, 1)
            hands = n if agent in ("random", "greedy") else n // 2  # the slow agents
            pairs = []
            for _ in range(passes):
                r = engine(variant, agent, hands)
                ref = bareloop(ref_hands)["hands_per_s"]
                refs.append(ref)
                pairs.append((r["hands_per_s"] / ref, r))
            pairs.sort(key=lambda p: p[0])
            ratio, r = pairs[len(pairs) // 2]
            spread = f"{pairs[0][0]:.3f}–{pairs[-1][0]:.3f}" if len(pairs) > 1 else "—"
            target = targets.get(agent)
            verdict = "" if target is None else ("met" if ratio >= target else "NOT met")
            rows.append(
                f"| {variant} | {agent} | {r['hands']} | {r['hands_per_s']:.0f} | "
                f"{ratio:.3f}× | {spread} | {target and f'{target}×' or '—'} "
                f"{verdict} | {r['events_per_hand']:.0f} | {r['bytes_per_hand']:.0f} |"
            )
    return (
        "## Engine: hands per second, one worker, logs written\n\n"
        "Each pass simulates the hands, then runs the reference loop "
        "`../shared/bench/bareloop.py` as is right after it (its own timing, "
        f"{ref_hands} hands; {min(refs):.0f}–{max(refs):.0f} hands/s in this run); a "
        "pass's ratio is the engine's hands/s over that reference pass. A row is the "
        "median pass: 5 passes for random agents, 3 for greedy and strategic (the rows "
        "with a target), 1 for efficient; the spread column gives the lowest and highest "
        "pass ratios. Every "
        "seat plays the named agent; process start-up is excluded.\n\n"
        "| variant | agents | hands | hands/s | ratio to bareloop | pass ratios | target "
        "| events/hand | bytes/hand on disk |\n"
        "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=None, help="write the Markdown report here")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    ap.add_argument(
        "--only",
        default=None,
        help="comma-separated parts to rerun (hand, engine, audit, batch, analysis, "
        "ladder, compare, behaviour, env, import, balance, tune, settle, strategic, "
        "compiled); the "
        "others are taken from bench/results/",
    )
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    q = args.quick
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    parts = {
        "hand": lambda: __import__("bench_hand").run(quick=q)["section"],
        "engine": lambda: engine_section(q),
    }
    for name in PARTS[2:]:
        parts[name] = lambda name=name: __import__(f"bench_{name}").run(quick=q)["section"]
    texts = {}
    for name, fn in parts.items():
        cached = results / f"{name}.md"
        if only is None or name in only or not cached.exists():
            print(f"running {name} ...", file=sys.stderr, flush=True)
            try:
                text = fn()
            except ImportError as e:
                text = f"## {name}\n\nNot run: {e}\n"
            if not q:
                cached.write_text(text)
        else:
            text = cached.read_text()
        texts[name] = text
    text = assembled(texts, machine())
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
