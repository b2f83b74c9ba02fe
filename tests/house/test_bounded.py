"""The hang check of the test harness bounds CPU time, not the wall clock (issue 47):
a runaway child is stopped by its CPU bound; a child slowed down (here: asleep, as
a starved process is) is not failed for taking longer than its CPU bound."""

from __future__ import annotations

import subprocess

from tests import bounded
from tests.hostile import run


def test_a_runaway_child_is_stopped_by_its_cpu_bound():
    p = subprocess.run(bounded.python(1, "-c", "while True: pass"), timeout=bounded.WALL)
    assert bounded.over_cpu(p.returncode)


def test_a_child_slower_than_its_cpu_bound_by_the_clock_is_not_a_hang():
    code = "import time; time.sleep(3); print('done')"
    p = subprocess.run(
        bounded.python(1, "-c", code), capture_output=True, text=True, timeout=bounded.WALL
    )
    assert p.returncode == 0 and p.stdout == "done\n"


def test_the_hostile_harness_bounds_cpu(tmp_path):
    res = run(["--version"], tmp_path, timeout=30)
    assert res.code == 0 and res.stdout.startswith("mjlog, version")
