"""The house's shape in figures (issue #39's before/after table), for any checkout:

    python bench/house.py [CHECKOUT]

- lines of Python in ``simulate/`` and in ``research/``;
- lines shipped (``mjlog``, ``simulate``, ``analysis``) that no product path
  imports: modules not reached from the command line (``mjlog.cli`` and every
  command), the front door ``mjlog``, the agents' face or the environment
  (``mjlog.env``), following every import, late ones included;
- import circles among the shipped modules, counting imports inside functions
  (with and without ``TYPE_CHECKING`` imports);
- imports that run upward through the layers of ``tests/house/test_imports.py`` (this
  checkout's layer map and import reader, applied to the checkout measured).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.house.test_imports import imports, layer_of, modules  # noqa: E402  (this checkout's)

try:  # a checkout whose layer map names what each layer may import (a DAG)
    from tests.house.test_imports import may_import  # noqa: E402
except ImportError:  # an older, ranked map

    def may_import(a: str, b: str) -> bool:
        return layer_of(b) <= layer_of(a)


def graph(root: Path, typing: bool) -> dict[str, set[str]]:
    mods = modules(root)
    return {n: set(imports(n, p, set(mods), typing)) for n, p in mods.items()}


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
    entry = {
        m
        for m in g
        if m in ("mjlog", "mjlog.__main__", "mjlog.cli", "mjlog.env", "simulate.agents")
        or m.startswith("mjlog.commands")
    }
    seen, todo = set(), list(entry)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo += [d for d in g.get(m, ()) if d not in seen]
    return sorted(set(g) - seen)


def upward(g: dict[str, set[str]]) -> int:
    n = 0
    for a, deps in g.items():
        for b in deps:
            try:
                n += not may_import(a, b)
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
    print(
        f"lines in research/ (tools, tests excluded): "
        f"{lines(p for p in research if 'tests' not in p.parts)}"
    )
    print(
        f"lines shipped, imported by no product path: {lines(mods[m] for m in dead)} "
        f"({len(dead)} modules: {', '.join(dead) or '-'})"
    )
    c_run, c_all = circles(g_run), circles(g_all)
    print(
        f"circles counting imports inside functions: {len(c_run)}; "
        f"with TYPE_CHECKING imports too: {len(c_all)}"
    )
    for c in c_all:
        print("  " + " ↔ ".join(c))
    print(f"imports running upward (this checkout's layer map): {upward(g_run)}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent))
