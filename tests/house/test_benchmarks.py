"""BENCHMARKS.md is what ``bench/run.py`` assembles from the sections it keeps.

Every section lives in a file a bench or a study writes (``bench/results/``,
``research/results/``) or in a note ``bench/run.py`` names: edited only in
BENCHMARKS.md, a section would be lost at the next ``make bench``, and a results file
the page does not show would be a figure nobody reads.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_module():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmarks_md_is_what_bench_run_assembles():
    run = _run_module()
    results = ROOT / "bench" / "results"
    parts = {name: (results / f"{name}.md").read_text() for name in run.PARTS}
    committed = (ROOT / "BENCHMARKS.md").read_text()
    machine = committed.splitlines()[3].removeprefix("Machine: ").removesuffix(".")
    assert committed == run.assembled(parts, machine)


def test_every_results_file_is_shown():
    run = _run_module()
    shown = set(run.PARTS) | {n for notes in run.NOTES.values() for n in notes}
    assert {p.stem for p in (ROOT / "bench" / "results").glob("*.md")} == shown
    studies = {p.stem for p in (ROOT / "research" / "results").glob("*.md")}
    assert studies == set(run.STUDIES)
