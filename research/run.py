"""Rerun the statistical studies and write their sections to ``research/results/``
(``make research-results``; hours of CPU at full size, resumable part by part).

``bench/`` times (speed, memory, sizes: ``make bench``); ``research/`` measures
(what the agents, the rules and the statistics do: experiments whose answer is a
figure with its interval). ``bench/run.py`` puts both into ``BENCHMARKS.md``: the
timings it reruns, then the studies' sections as this script last wrote them.

    python research/run.py [--only expert,calibration,tune_calibration,verdicts] [--quick]

Each study also runs alone with its own options (``python research/expert_study.py
--help``, ``python research/calibration.py``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "research" / "results"

STUDIES = {
    "expert": "research.expert_study",
    "calibration": "research.calibration",
    "tune_calibration": "research.tune_calibration",
    "verdicts": "research.verdict_calibration",
}
"""Each part of BENCHMARKS.md that measures, and the module whose ``run(quick)``
writes it (``research/results/NAME.md``)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=None, help=f"comma-separated: {', '.join(STUDIES)}")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test, not written)")
    args = ap.parse_args()
    only = args.only.split(",") if args.only else list(STUDIES)
    if unknown := [n for n in only if n not in STUDIES]:
        ap.error(f"unknown part {unknown[0]!r}; parts: {', '.join(STUDIES)}")
    for name in only:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        text = importlib.import_module(STUDIES[name]).run(quick=args.quick)["section"]
        if args.quick:
            print(text)
        else:
            (RESULTS / f"{name}.md").write_text(text)


if __name__ == "__main__":
    main()
