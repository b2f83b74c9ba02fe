"""mjlog type-checks: mypy, with the configuration of pyproject.toml ([tool.mypy]: the
core strict, the rest of mjlog checked as it is), finds no error.

mypy keeps its incremental cache where `make lint` keeps it, ``.mypy_cache`` in the
checkout (mypy marks the folder git-ignored itself): from a cold cache (a fresh clone,
CI) the check is some 15 s of one core, from a warm one under a second. mypy re-checks
every module whose source, or whose dependencies' interface, changed since the cache
was written, so a type error fails the test either way.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean():
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-1000:]
