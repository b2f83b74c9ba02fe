"""``bench/bench_expert.py``'s own inputs: ``--budget-spec`` is checked before any
part runs, and names its own fragment so it never overwrites the default's."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "bench_expert.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_expert", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_budget_spec_gets_its_own_fragment():
    b = _bench()
    assert b.budget_fragment(1000, "expert") == "budget1000"
    assert b.budget_fragment(1000, "expert:shanten=2") == "budget1000_shanten=2"
    # the part name is the stem before the first "-": a spec must not add one
    assert "-" not in b.budget_fragment(0, "expert:policy=strategic;z=-1")


@pytest.mark.parametrize("spec, needle", [
    ("greedy", "not an expert agent"),
    ("expert:shantn=2", "unknown expert parameter 'shantn'"),
    ("expert:rollouts=-3", "rollouts"),
])
def test_a_bad_budget_spec_is_refused_before_any_part_runs(spec, needle, tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--parts", "budget", "--budget-spec", spec,
                        "yuxi"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
