"""The house's shape in figures (issue #39's before/after table), for any checkout:

    python bench/house.py [CHECKOUT]

- lines of Python in ``simulate/`` and in ``research/``;
- lines shipped (``mjlog``, ``simulate``, ``analysis``) that no product path
  imports: modules not reached from the command line (``mjlog.cli`` and every
  command), the front door ``mjlog``, the agents' face or the environment
  (``mjlog.env``), following every import, late ones included;
- import circles among the shipped modules, counting imports inside functions
  (with and without ``TYPE_CHECKING`` imports);
- imports that run upward through the layers of ``tests/test_imports.py``
  (counted with that checkout's own layer map when it has one, else this one's).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGES = ("mjlog", "simulate", "analysis")


def modules(root: Path) -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name: str, path: Path, known: set[str], typing: bool) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    if not typing:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for sub in node.body:
                    skip |= set(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or node.lineno in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def graph(root: Path, typing: bool) -> dict[str, set[str]]:
    mods = modules(root)
    return {n: imports(n, p, set(mods), typing) for n, p in mods.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def unreached(root: Path, g: dict[str, set[str]]) -> list[str]:
    # the product's doors: the command line, the front door, the environment's API
    entry = {m for m in g if m in ("mjlog", "mjlog.__main__", "mjlog.cli", "mjlog.env",
                                   "simulate.agents") or m.startswith("mjlog.commands")}
    seen, todo = set(), list(entry)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo += [d for d in g.get(m, ()) if d not in seen]
    return sorted(set(g) - seen)


def upward(root: Path, g: dict[str, set[str]]) -> int | None:
    here = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(here))
    try:
        from tests.test_imports import layer_of
    except ImportError:
        return None
    n = 0
    for a, deps in g.items():
        for b in deps:
            try:
                n += layer_of(b) > layer_of(a)
            except AssertionError:
                continue
    return n


def lines(paths) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)


def main(root: Path) -> None:
    mods = modules(root)
    g_run, g_all = graph(root, typing=False), graph(root, typing=True)
    dead = unreached(root, g_run)
    research = sorted((root / "research").rglob("*.py")) if (root / "research").exists() else []
    print(f"checkout: {root}")
    print(f"lines in simulate/: {lines((root / 'simulate').rglob('*.py'))}")
    print(f"lines in research/ (tools, tests excluded): "
          f"{lines(p for p in research if 'tests' not in p.parts)}")
    print(f"lines shipped, imported by no product path: {lines(mods[m] for m in dead)} "
          f"({len(dead)} modules: {', '.join(dead) or '-'})")
    c_run, c_all = circles(g_run), circles(g_all)
    print(f"circles counting imports inside functions: {len(c_run)}; "
          f"with TYPE_CHECKING imports too: {len(c_all)}")
    for c in c_all:
        print("  " + " ↔ ".join(c))
    print(f"imports running upward (this checkout's layer map): {upward(root, g_run)}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent))
