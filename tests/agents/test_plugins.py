"""Agents from another package (issue 20, item 2): the ``mjlog.agents`` entry-point
group and ``package.module:factory`` specs, in simulate (2 workers, spawned
workers, Dask), ladder and validate; the manifest records spec and version.

The plugin (``tests/plugin_pkg``) is zipped into a wheel and installed with pip
into a temporary directory that the commands see on PYTHONPATH: a real install
(dist-info, entry points), without changing the venv other tests run in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mjlog.errors import InputError
from simulate.agents import make_agent, parse_spec, plugins
from tests import bounded

PKG = Path(__file__).parents[1] / "plugin_pkg"
ROOT = Path(__file__).resolve().parents[2]


def build_wheel(dest: Path) -> Path:
    """The plugin as a wheel, zipped here from its source: a build backend would
    need setuptools' bdist_wheel (or the network) on the CI machine."""
    import base64
    import hashlib
    import tomllib
    import zipfile

    meta = tomllib.loads((PKG / "pyproject.toml").read_text())["project"]
    name, version = meta["name"].replace("-", "_"), meta["version"]
    info = f"{name}-{version}.dist-info"
    files = {
        f"mjlog_test_plugin/{p.name}": p.read_bytes()
        for p in sorted((PKG / "mjlog_test_plugin").glob("*.py"))
    }
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {version}\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    eps = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in table.items())
        for group, table in meta["entry-points"].items()
    )
    files[f"{info}/entry_points.txt"] = eps.encode()
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    files[f"{info}/RECORD"] = ("\n".join(record + [f"{info}/RECORD,,"]) + "\n").encode()
    whl = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    return whl


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The plugin installed by pip into a directory of its own."""
    d = tmp_path_factory.mktemp("site")
    whl = build_wheel(tmp_path_factory.mktemp("wheel"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(d / "lib"),
            str(whl),
        ],
        check=True,
        capture_output=True,
        cwd=d,
    )
    assert (d / "lib" / "mjlog_test_plugin-0.3.1.dist-info" / "entry_points.txt").exists()
    return d / "lib"


def mjlog(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run(
        bounded.python(300, "-m", "mjlog", *args),
        env=env,
        cwd=site,
        capture_output=True,
        text=True,
        timeout=bounded.WALL,  # CPU-bounded: a busy machine cannot fail it
    )


@pytest.fixture
def on_path(site, monkeypatch):
    """The plugin importable in this process (for Dask's in-process workers)."""
    monkeypatch.syspath_prepend(str(site))
    for f in (plugins.entry_points, plugins.factory, plugins.version):
        f.cache_clear()
    yield
    for f in (plugins.entry_points, plugins.factory, plugins.version):
        f.cache_clear()


def broken_factory(**params):
    raise RuntimeError("the plugin's own bug")


def test_specs_parse():
    assert parse_spec("strategic:aggression=0.7") == ("strategic", {"aggression": "0.7"})
    assert parse_spec("pkg.mod:Make") == ("pkg.mod:Make", {})
    assert parse_spec("mod:Make:k=v;j=w") == ("mod:Make", {"k": "v", "j": "w"})
    with pytest.raises(InputError, match="bad agent parameter"):
        make_agent("greedy:x")
    with pytest.raises(InputError, match="cannot import no_such_module"):
        make_agent("no_such_module:Agent")
    with pytest.raises(InputError, match="has no Nope"):
        make_agent("simulate.agents:Nope")
    with pytest.raises(InputError, match="has no start_hand"):
        make_agent("collections:OrderedDict")
    with pytest.raises(InputError, match="its factory failed: RuntimeError: the plugin's own"):
        make_agent("tests.agents.test_plugins:broken_factory")


def test_simulate_two_workers_ladder_validate(site, tmp_path):
    out = tmp_path / "run"
    r = mjlog(
        site,
        "simulate",
        "--variant",
        "yuxi",
        "--matches",
        "4",
        "--hands-per-match",
        "2",
        "--seed",
        "3",
        "--agents",
        "first,greedy,mjlog_test_plugin.agents:FirstAgent:skip=no,random",
        "--hands-per-shard",
        "2",
        "--workers",
        "2",
        "--quiet",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "manifest.json").read_text())
    assert m["agents"][0] == {"name": "first", "params": {}, "spec": "first", "version": "0.3.1"}
    assert m["agents"][1] == {"name": "greedy", "params": {}, "settings": {}}
    assert m["agents"][2] == {
        "name": "mjlog_test_plugin.agents:FirstAgent",
        "params": {"skip": "no"},
        "version": "0.3.1",
        "spec": "mjlog_test_plugin.agents:FirstAgent:skip=no",
    }
    r = mjlog(site, "validate", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    r = mjlog(
        site,
        "ladder",
        "--variant",
        "huangmei",
        "--agents",
        "first,greedy,greedy,greedy",
        "--hands",
        "16",
        "--hands-per-match",
        "4",
        "--workers",
        "2",
    )
    assert r.returncode == 0, r.stderr
    assert "first" in r.stdout and "greedy" in r.stdout
    # without the plugin installed: one line naming the valid agents
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mjlog",
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "first,greedy,greedy,greedy",
            "--hands",
            "8",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert "unknown agent 'first'" in r.stderr


def test_spawned_worker_imports_the_plugin_by_name(site):
    code = """
import multiprocessing as mp, tempfile
from simulate.runner import RunSpec, play_shard

if __name__ == "__main__":
    spec = RunSpec.build("xuezhan", 1, 2, 2, ["first", "random", "first", "greedy"])
    with mp.get_context("spawn").Pool(1) as pool:
        print(pool.apply(play_shard, (spec, tempfile.mkdtemp(), 0, 0, spec.matches))[1])
"""
    (site.parent / "spawn_test.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    r = subprocess.run(
        [sys.executable, str(site.parent / "spawn_test.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=bounded.WALL,  # a wait only: the script's CPU is a few seconds
        cwd=site,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["4"]


def test_dask_workers_make_the_plugin(on_path, tmp_path):
    from distributed import LocalCluster

    from simulate.runner import RunSpec, simulate

    spec = RunSpec.build("yuxi", 2, 2, 2, ["first", "greedy"] * 2, hands_per_shard=2)
    ref = simulate(spec, tmp_path / "local", workers=1, progress=False)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        m = simulate(spec, tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False)
    assert m["files"] == ref["files"]
    assert m["agents"][0]["version"] == "0.3.1"
