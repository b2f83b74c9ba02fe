"""mjlog type-checks: mypy, with the configuration of pyproject.toml ([tool.mypy]: the
core strict, the rest of mjlog checked as it is), finds no error.

The check runs from a cold cache in a temporary directory (as in CI, and nothing is
written into the checkout): some 15 s of one core.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_is_clean(tmp_path):
    res = subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                          str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache")],
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-1000:]
