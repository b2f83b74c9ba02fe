"""The suite's shared hooks.

The slowest tests carry the ``slow`` marker, so that a developer's loop can leave them
out (``make test-fast``: ``pytest -m "not slow"``); ``make test`` and CI run everything.
The list is by measure, not by kind: each entry took 10 s or more of a two-core run
(``pytest -n 2 --durations=60``), most of it matplotlib drawing a report, a notebook
kernel, or a child process playing a run.

The rest is the suite's CPU time, none of it a test's meaning: the files with slow tests
run first, a file whose tests share a module fixture runs on one worker under ``-n``
(:class:`ShareWorkScheduling`), and what a test process holds once collected is frozen
out of the garbage collector (:func:`pytest_collection_finish`).
"""

from __future__ import annotations

import gc
import importlib.util
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Test node ids (a file, or a file and a test name's start) that are slow.
SLOW = (
    "tests/analysis/test_report_shapes.py",
    "tests/analysis/test_report_cli.py",
    "tests/analysis/test_report_refusals.py",
    "tests/analysis/test_report_short_runs.py",
    "tests/analysis/test_plots.py",
    "tests/analysis/test_agent_identity_and_csv.py::test_ladder_keeps_two_specs",
    "tests/cli/test_notebooks.py",
    "tests/house/test_imports.py::test_every_module_imports_first",
    "tests/agents/test_plugins.py::test_simulate_two_workers_ladder_validate",
    "tests/studies/test_ladder_identity.py::test_report_per_agent_table",
    "tests/batch/test_until_refusals.py::test_json_output_is_strict_json",
    "tests/batch/test_progress.py::test_a_report_on_large_runs",
    "tests/batch/test_progress.py::test_quiet_is_silent",
    "tests/batch/test_resume.py",
    "tests/logs/test_audit_mutations.py::test_fuzz_catch_rate",
    "tests/logs/test_viewer.py::test_pages_in_chromium",
    "tests/logs/test_viewer_refusals.py::test_hostile_run_executes_nothing_in_chromium",
    "tests/studies/test_tune.py",
    "tests/cli/test_run_dir_refusals.py::test_kill_9",
    "tests/core/test_hand.py::test_every_one_suit_hand_against_recursive_reference",
    "tests/studies/test_study_shards.py::test_every_run_of_a_tune",
    "tests/analysis/test_decide.py::test_an_effect_of_the_printed_mde",
    "tests/batch/test_resettle.py::test_a_tune_over_multipliers",
    "tests/studies/test_tune_page.py",
    "tests/studies/test_tune_journal_runs.py",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: 10 s or more; `make test-fast` leaves it out")


#: What makes a test file's tests share work: a fixture made once per module (or
#: session), or a cache of runs or references kept for the process.
SHARED = re.compile(r'scope="(module|session|package)"|@(functools\.)?(lru_)?cache\b')


@cache
def shares_work(nodeid: str) -> bool:
    """Whether the test file of ``nodeid`` (under tests/) shares work among its tests."""
    path = nodeid.split("::")[0]
    return (
        path.startswith("tests/")
        and path.endswith(".py")
        and bool(SHARED.search((ROOT / path).read_text(encoding="utf-8")))
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow_files = set()
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
            slow_files.add(item.nodeid.split("::")[0])
    # The files with slow tests first, then those that share work (each file's own
    # order kept): under -n the workers start on the long ones, and the last minute is
    # short tests shared out one by one.
    items.sort(
        key=lambda item: (
            item.nodeid.split("::")[0] not in slow_files,
            not shares_work(item.nodeid),
        )
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    # What a test process holds once it has collected (the libraries, the modules, the
    # tests: some 240,000 objects, alive to the end) is frozen out of the garbage
    # collector, which then looks only at what the tests make: a full collection (each
    # in-process refusal makes one, tests/hostile.py, and so does every run that forks
    # workers) took 0.1-0.2 s of CPU scanning the frozen objects, hundreds of times.
    gc.collect()
    gc.freeze()


if importlib.util.find_spec("xdist") is not None:
    from xdist.scheduler import LoadScopeScheduling

    class ShareWorkScheduling(LoadScopeScheduling):
        """xdist's ``load`` but for a file that shares work among its tests: it goes
        to one worker whole, so that its module fixture (runs played, a report
        rendered) is made once, not once on each worker that draws one of its tests.
        The units go out in the collection's order (above)."""

        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::")[0] if shares_work(nodeid) else nodeid

    def pytest_xdist_make_scheduler(config: pytest.Config, log) -> LoadScopeScheduling | None:
        if config.getvalue("dist") != "load":
            return None  # --dist asked for by name: xdist's own
        config.option.loadscopereorder = False  # the collection's order, not by size
        return ShareWorkScheduling(config, log)
