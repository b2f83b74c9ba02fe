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
#: Chosen by measurement (bench/results/compiled.md, cProfile with a CPU timer of a
#: strategic run, callgrind of random and greedy runs): the acceptance kernel and its
#: tables, the hand analysis, the tiles, the events, the seat's view, the agents, the
#: scorers, the engine's hand state with the parts it composes, the engine's loop, the
#: random routine and the log writer. What compiling them asked of the source:
#: - a deep copy of a hand (the checked step's test, calibrations) makes blank objects:
#:   the hand's classes are ``mypyc_attr(serializable=True)`` (compiled, their
#:   ``__new__`` then skips ``__init__`` and they copy by ``__getstate__``) and a
#:   ``Meld`` and a ``Stream`` copy through their constructors (``__reduce__``);
#: - a compiled dataclass evaluates its annotations at import: the huangmei scorer's
#:   ``_Win`` is a plain class (``Rules`` is imported for the type checker alone), and
#:   the generic pattern rows are not native classes (``mypyc_attr(native_class=False)``);
#: - the tile functions that check a tile take ``object`` (a compiled ``int`` parameter
#:   would refuse a float with a TypeError before their ValueError);
#: - compiled calls between these modules are direct: a test replaces no function of
#:   theirs (tests/core/test_rng.py makes a real rejected draw by inverting SplitMix64's
#:   output function; tests/core/test_xuezhan_flow.py plays its scripted hands in turn).
#: Left out: the rules and the variants (under 1 % of a random hand each).
MODULES = (
    "mjlog/ukeire.py",
    "mjlog/_hand_tables.py",
    "mjlog/hand.py",
    "mjlog/events.py",
    "mjlog/phase.py",
    "mjlog/agent.py",
    "mjlog/tiles.py",
    "mjlog/melds.py",
    "mjlog/scoring/__init__.py",
    "mjlog/scoring/base.py",
    "mjlog/scoring/breakdown.py",
    "mjlog/scoring/patterns.py",
    "mjlog/scoring/table.py",
    "mjlog/scoring/yuxi.py",
    "mjlog/scoring/xuezhan.py",
    "mjlog/scoring/huangmei.py",
    "mjlog/ledger.py",
    "mjlog/position.py",
    "mjlog/seats.py",
    "mjlog/claims.py",
    "mjlog/choices.py",
    "mjlog/calls.py",
    "mjlog/wins.py",
    "mjlog/state.py",
    "mjlog/rng.py",
    "mjlog/engine.py",
    "mjlog/logio/writer.py",
    "simulate/agents/params.py",
    "simulate/agents/values.py",
    "simulate/agents/efficient.py",
    "simulate/agents/strategic.py",
)


def built() -> list[Path]:
    """The extension modules a build left in the checkout (its shared runtime too)."""
    return sorted(p for p in ROOT.glob("*__mypyc*") if p.suffix in (".so", ".pyd")) + sorted(
        p for m in MODULES for p in (ROOT / m).parent.glob(Path(m).stem + ".*.so")
    )


def compiler() -> bool:
    """Whether a C compiler is on the path (``$CC``, else ``cc``)."""
    return shutil.which(os.environ.get("CC", "cc")) is not None


def extensions(*more_flags: str) -> list:
    """:data:`MODULES` as setuptools extensions (mypyc writes their C under build/);
    run from the checkout's root, whose pyproject.toml holds mypy's settings."""
    from mypyc.build import mypycify

    # --no-warn-unused-configs: the project's mypy overrides name modules not built here;
    # annotation-unchecked: a note on the untyped defs of the non-strict modules (the
    # agents), which mypyc would otherwise count as an error.
    flags = ["--no-warn-unused-configs", "--disable-error-code=annotation-unchecked"]
    return mypycify([*flags, *more_flags, *MODULES], opt_level="3")


def build() -> None:
    """Compile :data:`MODULES` in place (build/ holds the C sources)."""
    if not compiler():
        sys.exit("build_compiled: no C compiler (cc): the pure-Python package is used")
    from setuptools import Distribution

    os.chdir(ROOT)
    # A bare Distribution: setuptools does not read pyproject.toml's [project] here.
    dist = Distribution({"name": "mjlog-compiled", "ext_modules": extensions()})
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
