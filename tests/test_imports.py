"""No import cycles in mjlog: every module imports on its own, first, and the graph
of module-level imports between mjlog's modules has no cycle.

Imports inside functions (the deliberate late ones) and under ``TYPE_CHECKING``
are not edges: they run after every module is loaded.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import mjlog

ROOT = Path(mjlog.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "__main__.py":  # runs the CLI when imported
            continue
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _top_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The mjlog modules ``name`` imports when it is loaded."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in [node] if not isinstance(node, ast.If | ast.Try) else ast.walk(node):
            if isinstance(sub, ast.Import):
                found |= {a.name for a in sub.names}
            elif isinstance(sub, ast.ImportFrom):
                base = sub.module or ""
                if sub.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - sub.level + 1]
                                    + ([base] if base else []))
                # ``from pkg import mod`` imports the submodule pkg.mod
                found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                          for a in sub.names}
    return {m for m in found if m in known and m != name}


def test_module_level_imports_have_no_cycle():
    mods = _modules()
    graph = {name: _top_level_imports(name, path, set(mods)) for name, path in mods.items()}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        raise AssertionError(f"import cycle: {' -> '.join(e.args[1])}") from None
    assert set(order) == set(mods)


def test_every_module_imports_first():
    # One interpreter; before each module, every mjlog module is forgotten, so each
    # one is the first of mjlog to be imported (what a cycle breaks). Third-party
    # modules stay loaded: they cannot take part in a cycle of mjlog's.
    script = (
        "import importlib, sys\n"
        "bad = []\n"
        "for name in sys.argv[1:]:\n"
        "    for m in [m for m in sys.modules if m == 'mjlog' or m.startswith('mjlog.')]:\n"
        "        del sys.modules[m]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as e:\n"
        "        bad.append(f'{name}: {type(e).__name__}: {e}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    res = subprocess.run([sys.executable, "-c", script, *_modules()], capture_output=True,
                         text=True, cwd=ROOT.parent, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
