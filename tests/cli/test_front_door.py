"""``import mjlog``: the main API from one name, loaded lazily, typed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mjlog

ROOT = Path(mjlog.__file__).resolve().parent


def test_every_public_name_resolves_and_is_listed():
    assert set(mjlog.__all__) == {"__version__", *mjlog._API}
    for name in mjlog._API:
        assert getattr(mjlog, name) is getattr(__import__(mjlog._API[name], fromlist=[name]), name)
    assert set(mjlog.__all__) <= set(dir(mjlog))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        mjlog.nope  # noqa: B018


def test_import_mjlog_loads_nothing_until_asked():
    code = (
        "import sys, mjlog; heavy = [m for m in ('mjlog.engine', 'mjlog.state', 'pyarrow', "
        "'pandas', 'simulate') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_package_is_typed():
    assert (ROOT / "py.typed").is_file()


def test_the_readme_python_example_uses_the_front_door():
    readme = (ROOT.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Python", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert "import mjlog" in block and "from mjlog." not in block
    exec(compile(block, "README.md", "exec"), {})  # it runs as written
