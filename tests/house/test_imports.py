"""One direction through the house, and nothing imports upward or in a circle, not
even inside a function. The layers and what each may import (besides itself):

    core
    logs, audit, viewer          → core
    env                          → core, logs           (agent objects, never names)
    agents                       → core, logs
    batch (simulate)             → core, logs, agents
    analysis (reading runs)      → core, logs           (never plays: no simulate)
    studies (analysis.studies)   → every layer above but the commands
    commands                     → everything

Every ``import`` of the project's own modules counts, at module level or inside a
function (a late import still ties the two modules); only imports under
``TYPE_CHECKING`` are left out, since they never run. ``research/``, ``bench/``
and ``tests/`` sit above everything and are not checked: nothing shipped may
import them, which the layer map enforces by knowing no layer for them.
"""

from __future__ import annotations

import ast
import functools
import subprocess
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("mjlog", "simulate", "analysis")

#: (layer, module prefixes, the layers below it that it may import). A module belongs
#: to the layer of its longest matching prefix; it may import its own layer and those
#: it names.
LAYERS: list[tuple[str, list[str], set[str]]] = [
    ("core", ["mjlog"], set()),
    (
        "logs",
        [
            "mjlog.logio",
            "mjlog.rundir",
            "mjlog.replay",
            "mjlog.audit",
            "mjlog.viewer",
            "mjlog.interchange",
            "mjlog.docs",
        ],
        {"core"},
    ),
    ("env", ["mjlog.env"], {"core", "logs"}),
    ("agents", ["simulate.agents"], {"core", "logs"}),
    ("batch", ["simulate"], {"core", "logs", "agents", "env"}),
    ("analysis", ["analysis"], {"core", "logs"}),
    ("studies", ["analysis.studies"], {"core", "logs", "env", "agents", "batch", "analysis"}),
    (
        "commands",
        ["mjlog.commands", "mjlog.cli", "mjlog.__main__"],
        {"core", "logs", "env", "agents", "batch", "analysis", "studies"},
    ),
]
RANK = {name: i for i, (name, _, _) in enumerate(LAYERS)}


def layer_of(module: str) -> int:
    best, rank = -1, None
    for i, (_, prefixes, _) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    assert rank is not None, f"{module} is in no layer: add it to LAYERS"
    return rank


def may_import(a: str, b: str) -> bool:
    """Whether module ``a``'s layer may import module ``b``'s."""
    la, lb = LAYERS[layer_of(a)], LAYERS[layer_of(b)]
    return la[0] == lb[0] or lb[0] in la[2]


def test_the_layer_map_runs_one_way():
    # every layer imports only layers listed before it: the map is a ranking's subset
    for i, (name, _, below) in enumerate(LAYERS):
        assert all(RANK[b] < i for b in below), name


def modules(root: Path = ROOT) -> dict[str, Path]:
    """The shipped modules of the checkout ``root`` by name."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """Line numbers of the statements under ``if TYPE_CHECKING:``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                skip |= set(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return skip


def imports(name: str, path: Path, known: set[str], typing: bool = False) -> dict[str, int]:
    """The project's modules ``name`` imports anywhere in its code → the first line
    (``typing``: those under ``TYPE_CHECKING`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = set() if typing else _type_checking_blocks(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if node.__class__ not in (ast.Import, ast.ImportFrom) or node.lineno in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            # ``from pkg import mod`` imports the submodule pkg.mod
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        for t in targets:
            while t and t not in known:  # ``import a.b.c`` of a non-module attribute
                t = t.rpartition(".")[0]
            if t and t != name:
                found.setdefault(t, node.lineno)
    return found


@functools.cache  # parsed once per process: three tests read it, none changes it
def graph() -> dict[str, dict[str, int]]:
    mods = modules()
    return {n: imports(n, p, set(mods)) for n, p in mods.items()}


def test_every_module_has_a_layer():
    for name in modules():
        layer_of(name)


def test_every_import_is_one_the_layer_map_allows():
    g, mods = graph(), modules()
    up = [
        f"{mods[a].relative_to(ROOT)}:{line} imports {b} "
        f"({LAYERS[layer_of(a)][0]} → {LAYERS[layer_of(b)][0]}, not allowed)"
        for a, deps in g.items()
        for b, line in deps.items()
        if not may_import(a, b)
    ]
    assert not up, "imports the layer map does not allow:\n" + "\n".join(sorted(up))


def test_no_cycle_even_through_late_imports():
    g = graph()
    try:
        list(TopologicalSorter({a: set(d) for a, d in g.items()}).static_order())
    except CycleError as e:
        raise AssertionError(f"import cycle: {' -> '.join(e.args[1])}") from None


def test_the_shipped_packages_never_import_the_measuring_tools():
    g = graph()
    for a, deps in g.items():
        assert not [b for b in deps if b.split(".")[0] in ("research", "bench", "tests")], a


@pytest.mark.parametrize("pkg", PACKAGES)
def test_every_module_imports_first(pkg):
    # One interpreter; before each module, every project module is forgotten, so each
    # one is the first of the project to be imported (what a cycle breaks).
    names = [n for n in modules() if n.split(".")[0] == pkg and not n.endswith("__main__")]
    script = (
        "import importlib, importlib.machinery as mach, sys\n"
        # Each module's source is compiled once and its code object reused when a later
        # round imports it again: every round still executes every module afresh (a new
        # module object), and without .pyc files (PYTHONDONTWRITEBYTECODE) compiling the
        # same sources again each round was most of this test's time.
        "compiled = {}\n"
        "to_code = mach.SourceFileLoader.source_to_code\n"
        "def once(self, data, path, **kw):\n"
        "    key = (path, bytes(data))\n"
        "    if key not in compiled:\n"
        "        compiled[key] = to_code(self, data, path, **kw)\n"
        "    return compiled[key]\n"
        "mach.SourceFileLoader.source_to_code = once\n"
        "bad = []\n"
        "own = ('mjlog', 'simulate', 'analysis')\n"
        "for name in sys.argv[1:]:\n"
        "    for m in [m for m in sys.modules if m.split('.')[0] in own]:\n"
        "        del sys.modules[m]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as e:\n"
        "        bad.append(f'{name}: {type(e).__name__}: {e}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    res = subprocess.run(
        bounded.python(300, "-c", script, *names),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=bounded.WALL,  # CPU-bounded: a busy machine cannot fail it
    )
    assert res.returncode == 0, res.stdout + res.stderr


def test_no_module_reads_another_modules_private_names():
    """A leading underscore means "this module's own": no shipped module imports
    another's private name, nor reads one through the module (``queries._finish``)."""
    mods = modules()
    bad = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        aliases = {}  # local name -> project module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in mods and node.module != name:
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {a.name}")
                    if f"{node.module}.{a.name}" in mods:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in mods and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and aliases[node.value.id] != name
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}")
    assert not bad, "private names read across modules:\n" + "\n".join(sorted(bad))
