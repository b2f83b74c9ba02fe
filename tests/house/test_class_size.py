"""No class of mjlog runs over 400 lines (issue 39): a bigger one is split into
parts with one job each, as mjlog.env's environment, encoder and run writer were."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 400


def test_no_class_is_over_400_lines():
    big = []
    for path in sorted((ROOT / "mjlog").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LIMIT:
                    big.append(f"{rel}:{node.lineno} {node.name}: {lines} lines")
    assert not big, "classes over 400 lines:\n" + "\n".join(big)
