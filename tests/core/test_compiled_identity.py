"""The compiled build (``make compiled``, ``build_compiled.py``) against the pure-Python
reference: seeded ``strategic``, ``greedy`` and ``random`` runs in every variant write the same
Parquet bytes with the compiled modules as with the pure source forced, and the
registered agents keep their own names and copy as in the pure source.

It builds nothing: where no compiled build is importable it skips (CI builds one in a
temporary copy of the checkout and sets ``MJLOG_REQUIRE_COMPILED=1``, which turns the
skip into a failure).
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mjlog

ROOT = Path(mjlog.__file__).resolve().parent.parent


def _chosen() -> tuple[str, ...]:
    """The modules ``build_compiled.py`` compiles, as import names (none outside a checkout)."""
    script = ROOT / "build_compiled.py"
    if not script.exists():
        return ()
    spec = importlib.util.spec_from_file_location("build_compiled", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(m.removesuffix(".py").replace("/", ".") for m in module.MODULES)


# One child plays every run and prints each run's digest over its Parquet files.
_CHILD = r"""
import hashlib, json, sys, tempfile
from pathlib import Path
import mjlog.ukeire
from simulate.runner import RunSpec, simulate
out = {"ukeire": mjlog.ukeire.__file__}
with tempfile.TemporaryDirectory() as d:
    for variant in ("yuxi", "xuezhan", "huangmei"):
        for agent, matches in (("strategic", 2), ("greedy", 4), ("random", 4)):
            spec = RunSpec.build(variant, seed=4807, matches=matches, hands_per_match=8,
                                 agents=[agent])
            run = Path(d) / f"{variant}-{agent}"
            m = simulate(spec, str(run), workers=1, progress=False)
            h = hashlib.sha256()
            for f in sorted(m["files"], key=lambda f: f["path"]):
                h.update((run / f["path"]).read_bytes())
            out[f"{variant}/{agent}"] = h.hexdigest()
print(json.dumps(out))
"""


def _compiled_modules() -> dict[str, str]:
    return {name: importlib.import_module(name).__file__ or "" for name in _chosen()}


def _play(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, cwd=tree, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _require_build() -> None:
    files = _compiled_modules()
    if not files or not any(f.endswith((".so", ".pyd")) for f in files.values()):
        if os.environ.get("MJLOG_REQUIRE_COMPILED") == "1":
            pytest.fail(f"MJLOG_REQUIRE_COMPILED=1 but no compiled build under {ROOT}")
        pytest.skip("no compiled build present (make compiled builds one; make pure removes it)")


def test_every_chosen_module_is_compiled() -> None:
    _require_build()
    pure = {name: f for name, f in _compiled_modules().items() if not f.endswith((".so", ".pyd"))}
    assert not pure, f"half a build: these are still pure Python: {pure}"


def test_compiled_and_pure_write_the_same_bytes(tmp_path: Path) -> None:
    _require_build()
    # The pure reference: a copy of the same source without the extension modules.
    for package in ("mjlog", "simulate", "analysis"):
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
        )
    compiled, pure = _play(ROOT), _play(tmp_path)
    assert compiled.pop("ukeire").endswith((".so", ".pyd"))
    assert pure.pop("ukeire") == str(tmp_path / "mjlog" / "ukeire.py")
    assert len(compiled) == 9
    assert compiled == pure


@pytest.mark.parametrize("spec", ["random", "greedy", "efficient", "strategic:rules=default"])
def test_a_registered_agent_keeps_its_own_name_and_copies(spec: str) -> None:
    # Both builds (it needs no build): registering the built-in agents (importing
    # simulate.agents) once rebound ``name`` on their classes, which, compiled, hid
    # each instance's native attribute: the rules-blind strategic agent read back as
    # plain "strategic" and a deep copy of any of them (a hand copied with its agents)
    # was refused, "attribute 'name' is read-only".
    from simulate.agents import make_agent

    agent = make_agent(spec)
    assert agent.name == spec
    twin = copy.deepcopy(agent)
    assert twin.name == spec and twin.params == agent.params
