"""Benchmark of the optional compiled build (issue 48): ``bench/bench_strategic.py``
run on a compiled copy of this checkout with a pure copy as ``--base``, so every
agent and variant is measured pure and compiled pass by pass, and the two builds'
Parquet bytes are compared.

    python bench/bench_compiled.py [--quick]

Both copies are the tracked files (``git ls-files``) in temporary directories; the
compiled one is built there by ``build_compiled.py`` (needs mypy and a C compiler),
never in the checkout. ``run(quick)`` returns ``{"section": markdown}`` for
``bench/run.py --only compiled``.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from run import machine  # bench/ is on the path, as for bench/run.py

ROOT = Path(__file__).resolve().parent.parent


def _copy(dest: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        target = dest / name.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name.decode(), target)
    return dest


def _modules() -> str:
    """The modules the build compiles (build_compiled.MODULES), as the section names them."""
    tree = ast.parse((ROOT / "build_compiled.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODULES":
            return ", ".join(f"`{m}`" for m in ast.literal_eval(node.value))
    raise LookupError("build_compiled.py names no MODULES")


def run(quick: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as d:
        pure, compiled = _copy(Path(d) / "pure"), _copy(Path(d) / "compiled")
        # bench_strategic finds the reference loop beside the tree it runs from
        bare = Path("shared/bench/bareloop.py")
        if (ROOT.parent / bare).exists():
            (Path(d) / bare).parent.mkdir(parents=True)
            shutil.copy2(ROOT.parent / bare, Path(d) / bare)
        subprocess.run(
            [sys.executable, "build_compiled.py"], cwd=compiled, check=True, capture_output=True
        )
        out = subprocess.run(
            [sys.executable, "bench/bench_strategic.py", "--base", str(pure)]
            + (["--quick"] if quick else []),
            cwd=compiled,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    table = out[out.index("| variant") :].replace(str(pure), "PURE")
    section = (
        "## Agents: pure Python against the compiled build\n\n"
        f"`python bench/bench_compiled.py{' --quick' if quick else ''}`: "
        "`bench/bench_strategic.py --base PURE` run on a copy of the checkout built by "
        f"`make compiled` (mypyc: {_modules()}), PURE a "
        "copy without the build; 'base' is pure, 'this tree' compiled; hands per "
        "CPU-second, median of the passes, and the speed-up as the ratio of the two "
        "builds' ratios to the reference loop timed in the same process. "
        f"Machine: {machine()}.\n\n" + table
    )
    return {"section": section}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    print(run(quick=ap.parse_args().quick)["section"])


if __name__ == "__main__":
    main()
