"""Instructions per hand of seeded runs in several source trees, counted by callgrind.

    python bench/bench_instructions.py START=/tmp/start pure=. compiled=/tmp/built \\
        [--hands strategic=48,greedy=96,random=192] [--variants yuxi,xuezhan,huangmei]

Each ``NAME=PATH`` is a source tree (a ``git archive`` of an older commit, this
checkout, a copy built by ``build_compiled.py``); the first is the base every ratio
is taken against. For every variant and agent, each tree plays the same seeded run
(seed 12345, 8 hands a match, every seat the named agent, one worker, logs written)
after a warm-up run of one match, and only the measured run is counted
(:mod:`bench.callgrind`): the machine's load does not change the figures, which is
why issue 48's speed-ups are stated in them beside the CPU-time benches. Each row
also says whether every tree wrote the same Parquet bytes (the same decisions).
Prints a Markdown table; needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from callgrind import collected  # noqa: E402

#: The child each tree runs under callgrind: argv = variant, agent, hands.
CHILD = """
import hashlib, sys, tempfile
from pathlib import Path
sys.path.append(%r)
from callgrind import marked
from simulate.runner import RunSpec, simulate
variant, agent, hands = sys.argv[1], sys.argv[2], int(sys.argv[3])
with tempfile.TemporaryDirectory() as d:
    warm = RunSpec.build(variant, seed=1, matches=1, hands_per_match=8, agents=[agent])
    simulate(warm, d + "/warm", workers=1, progress=False)
    spec = RunSpec.build(variant, seed=12345, matches=max(1, hands // 8), hands_per_match=8,
                         agents=[agent])
    out = {}
    marked(lambda: out.update(m=simulate(spec, d + "/run", workers=1, progress=False)))
    h = hashlib.sha256()
    for f in sorted(out["m"]["files"], key=lambda f: f["path"]):
        h.update((Path(d) / "run" / f["path"]).read_bytes())
    print(h.hexdigest())
"""


def count(tree: Path, child: Path, variant: str, agent: str, hands: int) -> tuple[float, str]:
    """(million instructions per hand, sha256 of the run's files) in ``tree``."""
    env = dict(os.environ)
    os.environ["PYTHONPATH"] = str(tree)
    cwd = os.getcwd()
    try:
        os.chdir(tree)  # a tree's own pyproject and build files, never this checkout's
        n, out = collected([str(child), variant, agent, str(hands)])
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
    return n / (hands // 8 * 8) / 1e6, out.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", help="NAME=PATH, the first the base")
    ap.add_argument("--hands", default="strategic=48,greedy=96,random=192")
    ap.add_argument("--variants", default="yuxi,xuezhan,huangmei")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    a = ap.parse_args()
    trees = {k: Path(v).resolve() for k, v in (t.split("=", 1) for t in a.trees)}
    hands = {k: int(v) for k, v in (h.split("=") for h in a.hands.split(","))}
    child = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_instructions_{os.getpid()}.py"
    child.write_text(CHILD % str(Path(__file__).resolve().parent))
    names = list(trees)
    base = names[0]
    print("| variant | agent | hands | " + " | ".join(f"{n} M/hand" for n in names), end="")
    print(" | " + " | ".join(f"{n} vs {base}" for n in names[1:]) + " | Parquet bytes |")
    print("|---" * (3 + 2 * len(names) - 1 + 1) + "|")
    rows = []
    try:
        for v in a.variants.split(","):
            for agent, n in hands.items():
                got = {t: count(p, child, v, agent, n) for t, p in trees.items()}
                same = len({h for _m, h in got.values()}) == 1
                cells = [f"{got[t][0]:.2f}" for t in names]
                ratios = [f"**{got[base][0] / got[t][0]:.2f}×**" for t in names[1:]]
                print(
                    f"| {v} | {agent} | {n} | " + " | ".join(cells + ratios),
                    "| same |" if same else "| **differ** |",
                    flush=True,
                )
                rows.append(
                    {
                        "variant": v,
                        "agent": agent,
                        "hands": n,
                        "same": same,
                        "m_per_hand": {t: got[t][0] for t in names},
                        "sha256": {t: got[t][1] for t in names},
                    }
                )
    finally:
        child.unlink(missing_ok=True)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
