"""The README's layout table says what the tree holds: every path it names exists
(a folder as ``path/``, a file as itself), every top-level folder of the checkout is
in it, and so is every subpackage of ``mjlog``, ``simulate`` and ``analysis``."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("mjlog", "simulate", "analysis")


def layout_paths() -> list[str]:
    """The paths named (in backticks) in the first column of the README's layout table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, "no layout table under '## Layout'"
    return [p for row in rows for p in re.findall(r"`([^`]+)`", row.split(" | ")[0])]


def test_the_table_is_read():
    paths = layout_paths()
    assert "mjlog/tiles.py" in paths and "analysis/studies/" in paths and "tests/" in paths


def test_every_path_the_table_names_exists():
    for p in layout_paths():
        target = ROOT / p
        assert target.is_dir() if p.endswith("/") else target.is_file(), p


def test_every_subpackage_is_named():
    named = set(layout_paths())
    subpackages = sorted(
        f"{init.parent.relative_to(ROOT).as_posix()}/"
        for pkg in PACKAGES
        for init in (ROOT / pkg).rglob("__init__.py")
        if init.parent != ROOT / pkg
    )
    assert "mjlog/audit/" in subpackages and "analysis/studies/" in subpackages
    assert [p for p in subpackages if p not in named] == []


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout"
)
def test_every_top_level_folder_is_named():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    folders = sorted({f.split("/")[0] for f in tracked if "/" in f and not f.startswith(".")})
    assert "mjlog" in folders and "research" in folders
    named = layout_paths()
    missing = [d for d in folders if not any(p.startswith(f"{d}/") for p in named)]
    assert missing == []
