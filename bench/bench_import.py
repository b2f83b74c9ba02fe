"""Many-hand import: time and peak memory of ``mjlog import`` against the number of
hands (issue 20). Memory should stay flat: the import (one pass, each line parsed
once) holds one hand and one row group, plus 8 bytes or so per hand key.

    python bench/bench_import.py --hands 10000 40000
    python bench/bench_import.py --repeat 2000 50    # 100,000 hands

Each size: simulate a yuxi run with events, export every hand to one JSONL file,
then import it in a fresh process and read that process's peak RSS and CPU time
(CPU seconds, not wall time, since the machine may be shared). ``--repeat H K``
exports H simulated hands and writes them K times over, each copy's matches
renumbered and its seed claims dropped (the walls repeat), for sizes a shared
machine cannot simulate in reasonable time; the import still parses, checks,
hashes and replays every hand.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def exported(hands: int, work: Path) -> Path:
    """A JSONL file of ``hands`` simulated greedy yuxi hands (8 per match)."""
    run, jsonl = work / f"run{hands}", work / f"h{hands}.jsonl"
    py = [sys.executable, "-m", "mjlog"]
    subprocess.run(
        [
            *py,
            "simulate",
            "--variant",
            "yuxi",
            "--matches",
            str(hands // 8),
            "--hands-per-match",
            "8",
            "--agents",
            "greedy",
            "--seed",
            "1",
            "--quiet",
            "--workers",
            "2",
            "--out",
            str(run),
        ],
        check=True,
        cwd=ROOT,
    )
    subprocess.run(
        [*py, "export", str(run), "--out", str(jsonl)], check=True, cwd=ROOT, capture_output=True
    )
    return jsonl


def repeated(src: Path, copies: int, out: Path) -> int:
    """Write ``src``'s hands ``copies`` times to ``out``, copy c's matches moved
    past the previous copies' and the seed claims dropped; returns the hands."""
    header = '{"format"'
    lines = src.read_text(encoding="utf-8").splitlines()
    matches = 1 + max(json.loads(x)["match"] for x in lines if x.startswith(header))
    n = 0
    with out.open("w", encoding="utf-8") as f:
        for c in range(copies):
            for line in lines:
                if line.startswith(header):
                    d = json.loads(line)
                    d["match"] += matches * c
                    d["seed"] = d["hand_seed"] = d["source_run"] = None
                    line = json.dumps(d, ensure_ascii=False)
                    n += 1
                f.write(line + "\n")
    return n


def measure(hands: int, work: Path, jsonl: Path | None = None) -> dict:
    jsonl = jsonl or exported(hands, work)
    out = work / f"imp{hands}"
    t0 = time.perf_counter()
    code = (
        "import resource, sys; from mjlog.interchange import import_files; "
        f"import_files([{str(jsonl)!r}], {str(out)!r}); "
        "u = resource.getrusage(resource.RUSAGE_SELF); "
        "print(u.ru_maxrss, u.ru_utime + u.ru_stime)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True
    )
    dt = time.perf_counter() - t0
    rss, cpu = r.stdout.split()[-2:]
    return {
        "hands": hands,
        "jsonl_mb": round(jsonl.stat().st_size / 2**20, 1),
        "wall_s": round(dt, 1),
        "cpu_s": round(float(cpu), 1),
        "hands_per_cpu_s": round(hands / float(cpu)),
        "peak_rss_mb": round(int(rss) / 1024),
    }


def run(quick: bool = False) -> dict:
    """The BENCHMARKS.md section (``bench/run.py``)."""
    with tempfile.TemporaryDirectory() as d:
        rows = [measure(n, Path(d)) for n in ((200, 800) if quick else (1000, 8000))]
    lines = [
        f"| {r['hands']} | {r['jsonl_mb']} | {r['cpu_s']} | {r['hands_per_cpu_s']} | "
        f"{r['peak_rss_mb']} |"
        for r in rows
    ]
    section = (
        "## Many-hand import (`bench/bench_import.py`)\n\n"
        "`mjlog import` of one JSON-lines file holding every hand of a greedy yuxi run "
        "(exported with `mjlog export RUN`), in a fresh process: its CPU time and peak "
        "resident memory (most of it the libraries loaded). Each line is parsed once; "
        "the rows wait in a spill beside the run until the run id is known. Memory stays "
        "flat as the hands grow: one hand and one row group are held.\n\n"
        "| hands | JSONL MB | CPU s | hands per CPU s | peak RSS MB |\n"
        "|---|---|---|---|---|\n" + "\n".join(lines) + "\n"
    )
    return {"rows": rows, "section": section}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, nargs="+", default=[2000, 8000])
    ap.add_argument(
        "--repeat",
        type=int,
        nargs=2,
        metavar=("HANDS", "COPIES"),
        help="import HANDS simulated hands written COPIES times over",
    )
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        if a.repeat:
            big = Path(d) / "repeated.jsonl"
            n = repeated(exported(a.repeat[0], Path(d)), a.repeat[1], big)
            print(json.dumps(measure(n, Path(d), big)), flush=True)
            return
        for n in a.hands:
            print(json.dumps(measure(n, Path(d))), flush=True)
    _ = resource  # the child reads it


if __name__ == "__main__":
    main()
