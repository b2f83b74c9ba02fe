"""The measuring tools' refusals (the hostile-input standard, tests/hostile.py):
bad arguments are refused in one line before any hand is played, nothing written."""

from __future__ import annotations

import pytest

from simulate.runner import RunSpec, simulate
from tests.hostile import refused


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> dict:
    """A one-hand yuxi run: an input the refusals must leave as it was."""
    run = tmp_path_factory.mktemp("shared") / "run"
    simulate(RunSpec.build("yuxi", 1, 1, 1, ["greedy"]), run, workers=1, progress=False)
    return {"run": run}


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--variant", "mahjong"], "invalid choice"),
        (["--variant", "yuxi", "--hands", "2"], "--hands must be at least 5"),
        (["--variant", "yuxi", "--hands", "many"], "invalid int value"),
        (
            ["--variant", "yuxi", "--hands", "5", "--out", "{run}/r.json"],
            "inside the run directory",
        ),
        (["--variant", "yuxi", "--hands", "5", "--out", "nodir/r.json"], "nodir"),
        (["--variant", "yuxi", "--hands", "5", "--out", "."], "is a directory"),
    ],
    ids=[
        "variant",
        "few-hands",
        "hands-not-a-number",
        "out-in-a-run",
        "out-no-folder",
        "out-a-folder",
    ],
)
def test_the_reading_learner_refuses(args, needle, shared, tmp_path):
    """``python -m research.reading_fit``: refused before any hand is played, nothing written."""
    args = [a.replace("{run}", str(shared["run"])) for a in args]
    refused(args, tmp_path, inputs=[shared["run"]], needle=needle, module="research.reading_fit")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--variant", "riichi"], "invalid choice"),
        (["--variant", "yuxi", "--hands", "9"], "--hands must be at least 10"),
        (["--variant", "yuxi", "--seed", "x"], "invalid int value"),
    ],
    ids=["variant", "few-hands", "seed-not-a-number"],
)
def test_the_wait_reading_refuses(args, needle, shared, tmp_path):
    """``python -m research.wait_reading``: refused before any hand is played."""
    refused(args, tmp_path, inputs=[shared["run"]], needle=needle, module="research.wait_reading")
