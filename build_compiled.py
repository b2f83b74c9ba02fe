"""The optional compiled build (issue 48): the hot, typed modules compiled with mypyc
into extension modules beside their source, in place.

    python build_compiled.py          # make compiled
    python build_compiled.py --clean  # make pure: remove the built modules

The pure-Python package stays the reference: it is what ``make test``, ``make demo``
and an install without a compiler get. Python imports a module's ``.so`` before its
``.py``, so a checkout with the built modules runs them; ``--clean`` goes back.
``tests/core/test_compiled_identity.py`` holds the two builds to the same Parquet
bytes. Needs ``mypy`` (the ``test`` extra) and a C compiler.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
#: Chosen by measurement (bench/results/compiled.md): the acceptance kernel and the
#: tables it reads, ~half of a strategic hand's time.
MODULES = ("mjlog/ukeire.py", "mjlog/_hand_tables.py")


def built() -> list[Path]:
    """The extension modules a build left in the checkout (its shared runtime too)."""
    return sorted(p for p in ROOT.glob("*__mypyc*") if p.suffix in (".so", ".pyd")) + sorted(
        p for m in MODULES for p in (ROOT / m).parent.glob(Path(m).stem + ".*.so")
    )


def build() -> None:
    """Compile :data:`MODULES` in place (build/ holds the C sources)."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        sys.exit("build_compiled: no C compiler (cc): the pure-Python package is used")
    from mypyc.build import mypycify
    from setuptools import Distribution

    os.chdir(ROOT)
    # --no-warn-unused-configs: the project's mypy overrides name modules not built here.
    exts = mypycify(["--no-warn-unused-configs", *MODULES], opt_level="3")
    # A bare Distribution: setuptools does not read pyproject.toml's [project] here.
    dist = Distribution({"name": "mjlog-compiled", "ext_modules": exts})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = True
    dist.run_command("build_ext")


def clean() -> None:
    for p in built():
        p.unlink()
        print(f"removed {p.relative_to(ROOT)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clean", action="store_true", help="remove the built modules")
    if ap.parse_args().clean:
        clean()
    else:
        build()
        print("\n".join(f"built {p.relative_to(ROOT)}" for p in built()))


if __name__ == "__main__":
    main()
