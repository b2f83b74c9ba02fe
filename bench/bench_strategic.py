"""Benchmark of the agents' speed (issue 48): hands per CPU-second of ``strategic``,
``greedy`` and ``random`` in every variant, beside the reference loop
``../shared/bench/bareloop.py`` timed in the same passes, as ratios.

    python bench/bench_strategic.py [--quick] [--hands N] [--base PATH]

Every seat plays the named agent; one worker, logs written
(:func:`simulate.runner.simulate`), after a warm-up shard that pays the imports and
the shanten tables. A pass plays the hands in a child process (a fresh
interpreter: no cache warmed by an earlier pass) and times its CPU; the
reference loop is timed in the same child right after, so a busy spell on a
shared machine slows both sides of the ratio. A row is the median of its passes.

``--base PATH``: a second source tree (say a ``git archive`` of the commit before)
measured pass by pass beside this one: the report gives both and the speed-up,
and checks the two trees wrote the same Parquet bytes (same seed, same decisions).
``run(quick)`` returns ``{"section": markdown, "figures": {...}}`` for
``bench/run.py --only strategic``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARELOOP = ROOT.parent / "shared" / "bench" / "bareloop.py"
VARIANTS = ("yuxi", "xuezhan", "huangmei")
AGENTS = ("strategic", "greedy", "random")
SEED = 12345
#: hands per pass, full run (strategic is the slow one)
HANDS = {"strategic": 400, "greedy": 1000, "random": 2000}
BARE_HANDS = 1000

# The pass a child runs: PYTHONPATH picks the source tree measured.
_CHILD = r"""
import hashlib, importlib.util, json, random, sys, tempfile, time
from pathlib import Path
from simulate.runner import RunSpec, simulate
variant, agent, hands, seed, bare, bare_hands = sys.argv[1:7]
hands, bare_hands = int(hands), int(bare_hands)
hpm = 8
with tempfile.TemporaryDirectory() as d:
    simulate(RunSpec.build(variant, seed=1, matches=1, hands_per_match=hpm, agents=[agent]),
             d + "/warm", workers=1, progress=False)
    spec = RunSpec.build(variant, seed=int(seed), matches=max(1, hands // hpm),
                         hands_per_match=hpm, agents=[agent])
    c0 = time.process_time()
    m = simulate(spec, d + "/run", workers=1, progress=False)
    cpu = time.process_time() - c0
    n = sum(f["rows"] for f in m["files"] if f["table"] == "hands")
    h = hashlib.sha256()
    for f in sorted(m["files"], key=lambda f: f["path"]):
        h.update((Path(d) / "run" / f["path"]).read_bytes())
ref = None
if Path(bare).exists():
    s = importlib.util.spec_from_file_location("bareloop", bare)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    rng = random.Random(1)
    c0 = time.process_time()
    for _ in range(bare_hands):
        mod.play_hand(rng)
    ref = bare_hands / (time.process_time() - c0)
print(json.dumps({"hands": n, "cpu": cpu, "per_cpu_s": n / cpu, "bare": ref,
                  "sha256": h.hexdigest()}))
"""


def one_pass(tree: Path, variant: str, agent: str, hands: int) -> dict:
    """Play ``hands`` hands with source tree ``tree`` in a child process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            variant,
            agent,
            str(hands),
            str(SEED),
            str(BARELOOP),
            str(BARE_HANDS),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(
    trees: dict[str, Path], variant: str, agent: str, hands: int, passes: int
) -> dict[str, dict]:
    """Per tree: median hands/CPU-s, median ratio to the reference loop, the
    Parquet digest (one per tree: every pass writes the same bytes)."""
    got: dict[str, list[dict]] = {k: [] for k in trees}
    for _ in range(passes):
        for label, tree in trees.items():  # alternate: a busy spell hits both trees
            got[label].append(one_pass(tree, variant, agent, hands))
    out = {}
    for label, rs in got.items():
        digests = {r["sha256"] for r in rs}
        assert len(digests) == 1, f"{label} {variant} {agent}: passes wrote different bytes"
        ratios = [r["per_cpu_s"] / r["bare"] for r in rs if r["bare"]]
        out[label] = {
            "hands": rs[0]["hands"],
            "per_cpu_s": statistics.median(r["per_cpu_s"] for r in rs),
            "ratio": statistics.median(ratios) if ratios else float("nan"),
            "bare": statistics.median(r["bare"] for r in rs if r["bare"]) if ratios else None,
            "sha256": digests.pop(),
        }
    return out


def run(quick: bool = False, base: Path | None = None, hands: int | None = None) -> dict:
    trees = {"this tree": ROOT}
    if base is not None:
        trees = {"base": Path(base).resolve(), **trees}
    passes = 1 if quick else 3
    rows, fig = [], {}
    for variant in VARIANTS:
        for agent in AGENTS:
            n = hands or (40 if quick else HANDS[agent])
            r = measure(trees, variant, agent, n, passes)
            fig[f"{variant}/{agent}"] = r
            now = r["this tree"]
            cells = f"| {variant} | {agent} | {now['hands']} | "
            if base is not None:
                b = r["base"]
                same = "same" if b["sha256"] == now["sha256"] else "**DIFFER**"
                cells += (
                    f"{b['per_cpu_s']:.0f} | {now['per_cpu_s']:.0f} | "
                    f"{b['ratio']:.3f}× | {now['ratio']:.3f}× | "
                    f"**{now['ratio'] / b['ratio']:.2f}×** | {same} |"
                )
            else:
                cells += f"{now['per_cpu_s']:.0f} | {now['ratio']:.3f}× |"
            rows.append(cells)
    if base is not None:
        head = (
            "| variant | agents | hands | base hands/CPU-s | hands/CPU-s | base ratio to "
            "bareloop | ratio to bareloop | speed-up (ratios) | Parquet bytes |\n"
            "|---|---|---|---|---|---|---|---|---|\n"
        )
        what = (
            f"`--base {base}` measured beside this tree pass by pass (alternating); "
            "the speed-up is the ratio of the two trees' ratios to the reference loop; "
            "'same' when both wrote identical Parquet bytes. "
        )
    else:
        head = (
            "| variant | agents | hands | hands/CPU-s | ratio to bareloop |\n"
            "|---|---|---|---|---|\n"
        )
        what = ""
    section = (
        "## Agents: hands per CPU-second, one worker, logs written\n\n"
        f"`python bench/bench_strategic.py{' --quick' if quick else ''}"
        f"{f' --base {base}' if base else ''}`. Every seat plays the named agent "
        f"(seed {SEED}, 8-hand matches); each pass is a fresh process, after a "
        "warm-up shard; the reference loop `../shared/bench/bareloop.py` is timed "
        f"(CPU, {BARE_HANDS} hands) in the same process right after. Median of "
        f"{passes} pass(es). {what}Issue 48's target: strategic ≥ 3× hands per "
        "CPU-second in every variant, same decisions.\n\n" + head + "\n".join(rows) + "\n"
    )
    return {"section": section, "figures": fig}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    ap.add_argument("--hands", type=int, default=None, help="hands per pass, every agent")
    ap.add_argument("--base", type=Path, default=None, help="a source tree to compare with")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    a = ap.parse_args()
    out = run(quick=a.quick, base=a.base, hands=a.hands)
    print(out["section"])
    if a.json:
        a.json.write_text(json.dumps(out["figures"], indent=1))


if __name__ == "__main__":
    main()
