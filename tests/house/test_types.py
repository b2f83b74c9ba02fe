"""The wheel type-checks: mypy, with the configuration of pyproject.toml ([tool.mypy]),
finds no error in ``mjlog``, ``simulate`` and ``analysis``: the core (engine, rules,
scoring, logs, audit) and the statistics (``analysis.stats``, ``rates``, ``decide``)
under the flags of ``--strict``, the rest checked as it is.

mypy keeps its incremental cache where `make lint` keeps it, ``.mypy_cache`` in the
checkout (mypy marks the folder git-ignored itself): from a cold cache (a fresh clone,
CI) the check is some 40 s of one core, from a warm one a few seconds. mypy re-checks
every module whose source, or whose dependencies' interface, changed since the cache
was written, so a type error fails the test either way.
"""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["mjlog", "simulate", "analysis"]
STRICT = ["mjlog.engine", "mjlog.scoring.*", "analysis.stats", "analysis.rates", "analysis.decide"]


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


def test_every_package_is_checked_and_none_silenced():
    """The gate covers the whole wheel: its three packages, none of their modules
    skipped, silenced or freed of its errors by an override."""
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert mypy["packages"] == PACKAGES
    for o in mypy.get("overrides", []):
        ours = [m for m in o["module"] if m.split(".")[0] in PACKAGES]
        if ours:
            loosened = {"follow_imports", "ignore_errors", "ignore_missing_imports"} & set(o)
            assert not loosened and "disable_error_code" not in o, (ours, sorted(o))
    strict = next(o for o in mypy["overrides"] if o.get("disallow_untyped_defs"))
    assert set(STRICT) <= set(strict["module"])
