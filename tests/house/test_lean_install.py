"""A lean install: the wheel requires what the core and the reading analysis need;
Dask and Optuna are extras (``mjlog[dask]``, ``mjlog[tune]``). Without them every
module still imports and every command's help shows; a command that needs one
refuses in one line naming the extra, exit 2.

The extras are "uninstalled" in a subprocess by a ``sys.meta_path`` finder that
refuses them, as a bare ``pip install mjlog`` would leave them missing.
"""

import os
import subprocess
import tomllib
from pathlib import Path

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]

BLOCKED = ("dask", "distributed", "optuna", "psutil")

# Run as `python -c`: the blocker first, then the given code.
BLOCKER = f"""
import sys
from importlib.abc import MetaPathFinder

class _Missing(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _Missing())
"""


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        bounded.python(300, "-c", BLOCKER + code, *args),  # CPU, not wall time
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=bounded.WALL,
    )


def _mjlog(*args: str) -> subprocess.CompletedProcess:
    code = "import runpy; sys.argv[0] = 'mjlog'; runpy.run_module('mjlog', run_name='__main__')"
    return _run(code, *args)


def test_the_blocker_blocks():
    res = _run("import optuna")
    assert res.returncode == 1 and "No module named 'optuna'" in res.stderr


def test_every_module_imports_without_the_extras():
    """Each module of the three packages (the environments, which need the ``env``
    extra, aside) imports, and none of them pulls in an extra as it does."""
    code = f"""
import importlib, pkgutil
import mjlog, simulate, analysis
names = [m.name for p in (mjlog, simulate, analysis)
         for m in pkgutil.walk_packages(p.__path__, p.__name__ + ".")]
names = [n for n in names
         if not n.startswith(("mjlog.env", "simulate.gym")) and not n.endswith("__main__")]
for n in names:
    importlib.import_module(n)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {BLOCKED!r})
assert not loaded, loaded
assert "mjlog.tiles" in names and "analysis.stats" in names, names
print(len(names))
"""
    res = _run(code)
    assert res.returncode == 0, res.stderr[-2000:]
    assert int(res.stdout) > 100


def test_the_help_shows_without_the_extras():
    for args in (["--help"], ["tune", "--help"], ["simulate", "--help"], ["ladder", "--help"]):
        res = _mjlog(*args)
        assert res.returncode == 0, (args, res.stderr[-2000:])
        assert "Usage: mjlog" in res.stdout


def test_a_tune_names_the_tune_extra(tmp_path):
    out = tmp_path / "t"
    res = _mjlog(
        "tune", "xuezhan", "--vary", "cap=2:64", "--target", "money_moved_per_hand=20±2",
        "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 2, res.stderr[-2000:]
    assert res.stderr.splitlines() == [
        "mjlog: error: mjlog tune --vary needs optuna, which is not installed: "
        "pip install 'mjlog[tune]'"
    ]
    assert not out.exists()


def test_a_scheduler_names_the_dask_extra(tmp_path):
    for cmd in (["simulate", "--variant", "yuxi"], ["ladder", "--variant", "yuxi"]):
        res = _mjlog(*cmd, "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "r"))
        assert res.returncode == 2, res.stderr[-2000:]
        assert res.stderr.splitlines() == [
            "mjlog: error: --scheduler needs distributed, which is not installed: "
            "pip install 'mjlog[dask]'"
        ]
    assert not (tmp_path / "r").exists()


def test_the_wheel_requires_no_extra_and_make_installs_them_all():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = " ".join(project["dependencies"])
    for heavy in ("dask", "optuna", "psutil"):
        assert heavy not in required
    extras = project["optional-dependencies"]
    assert extras["dask"] == ["dask[distributed]>=2024.1"] and extras["tune"] == ["optuna>=4"]
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-e '.[test,notebook,env,dask,tune]'" in make
