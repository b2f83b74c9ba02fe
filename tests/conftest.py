"""The suite's one shared hook: the slowest tests carry the ``slow`` marker, so that a
developer's loop can leave them out (``make test-fast``: ``pytest -m "not slow"``);
``make test`` and CI run everything.

The list is by measure, not by kind: each entry took 10 s or more of a two-core run
(``pytest -n 2 --durations=60``), most of it matplotlib drawing a report, a notebook
kernel, or a child process playing a run.
"""

from __future__ import annotations

import pytest

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
