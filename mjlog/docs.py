"""The generated parts of the rule pages and the log contract (``make docs``).

The pages under ``docs/`` are hand-written prose with marked regions that this
module fills from the code, so a table can never drift from what the program
does::

    <!-- generated: keys -->
    ... rewritten by ``python -m mjlog.docs`` ...
    <!-- end generated -->

Regions: ``common-keys`` (the keys every variant has, one default column per
variant), ``keys`` (a variant's other rule keys), ``patterns`` (a variant's
patterns: its own Chinese name, key, value rule key and default, and where its scorer
has a pattern table, :mod:`mjlog.scoring.table`, the row's 番 and what the hand holds), ``vocabularies``
(the closed string columns of the log), ``metrics`` (the headline metrics of
:mod:`mjlog.metrics`), ``verdicts`` (every verdict word of :mod:`mjlog.judgement`)
and ``columns TABLE`` (a log table's
columns with their types; the meaning column stays hand-written). A variant page
is ``docs/rules/<variant>.md``. ``tests/house/test_docs.py`` renders every page in
memory and compares it with the file.

>>> print(key_table("huangmei").splitlines()[2])
| `winds` | `true` | `true`, `false` | 东南西北 in play; false = 120 tiles |
>>> print(pattern_table("yuxi").splitlines()[3])
| 碰碰胡 | `pengpenghu` | `points.pengpenghu` | 3 / 4 | 1 | four triplets (kongs and pons count) and a pair |
>>> page = "a\\n<!-- generated: vocabularies -->\\nstale\\n<!-- end generated -->\\n"
>>> "stale" in refresh(page), "`tax_refund`" in refresh(page)
(False, True)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pyarrow as pa

from mjlog import judgement, metrics, schema
from mjlog.errors import InputError
from mjlog.rulekeys import RuleKey
from mjlog.rundir import replace_file
from mjlog.variants import VARIANTS, Variant

__all__ = [
    "common_key_names",
    "key_table",
    "common_key_table",
    "pattern_keys",
    "pattern_table",
    "vocabulary_table",
    "column_table",
    "refresh",
    "pages",
    "main",
]

_REGION = re.compile(r"(<!-- generated: ([^>]*?) -->\n)(.*?)(<!-- end generated -->)", re.S)


def _cell(s: str) -> str:
    return s.replace("|", "\\|")


def _values(k: RuleKey) -> str:
    """What a key accepts, as written on the command line."""
    if k.kind == "bool":
        return "`true`, `false`"
    if k.kind in ("choice", "list"):
        items = ", ".join(f"`{c}`" for c in k.choices)
        return items if k.kind == "choice" else f"any of {items} (comma-separated)"
    if k.kind == "pow2":
        return "a power of two"
    if k.kind == "pair":
        return "`S/D`, `-` for none"
    lo = "" if k.minimum is None else str(k.minimum)
    hi = "" if k.maximum is None else str(k.maximum)
    return f"integer {lo}..{hi}" if hi else f"integer ≥ {lo}" if lo else "integer"


def _what(k: RuleKey) -> str:
    """What a key does, and whether it only says what a hand pays (README, 'Money-only
    keys')."""
    return _cell(k.doc) + (" *(money only)*" if k.money_only else "")


def _default(k: RuleKey) -> str:
    shown = k.show(k.default)
    return f"`{shown}`" if shown else "(none)"


def common_key_names() -> tuple[str, ...]:
    """The rule keys every variant has, in the first variant's order.

    >>> common_key_names()[:2]
    ('players', 'base')
    """
    names = [set(k.name for k in v.rule_keys) for v in VARIANTS.values()]
    first = next(iter(VARIANTS.values()))
    return tuple(k.name for k in first.rule_keys if all(k.name in n for n in names))


def pattern_keys(variant: Variant) -> tuple[str, ...]:
    """The variant's pattern keys, in its scorer's table order."""
    return variant.patterns()


def _value_key(variant: Variant, pattern: str) -> RuleKey | None:
    """The rule key giving a pattern's value (``points.``/``mult.``/``fan.<key>``)."""
    return next(
        (k for k in variant.rule_keys if _is_value_key(k) and k.name.split(".", 1)[1] == pattern),
        None,
    )


def _is_value_key(k: RuleKey) -> bool:
    """A pattern's value (``points.``, ``mult.``, ``fan.<key>``), not a rule of play."""
    return "." in k.name


def key_table(name: str) -> str:
    """The variant's own rule keys (not the common ones, not pattern values)."""
    v = VARIANTS[name]
    common = set(common_key_names())
    rows = ["| key | default | values | what it does |", "|---|---|---|---|"]
    for k in v.rule_keys:
        if k.name in common or _is_value_key(k):
            continue
        rows.append(f"| `{k.name}` | {_default(k)} | {_values(k)} | {_what(k)} |")
    return "\n".join(rows)


def common_key_table() -> str:
    """The keys every variant has, with each variant's default."""
    head = "| key | " + " | ".join(f"`{n}`" for n in VARIANTS) + " | values | what it does |"
    rows = [head, "|---|" + "---|" * len(VARIANTS) + "---|---|"]
    for name in common_key_names():
        keys = [next(k for k in v.rule_keys if k.name == name) for v in VARIANTS.values()]
        defaults = " | ".join(_default(k) for k in keys)
        rows.append(f"| `{name}` | {defaults} | {_values(keys[0])} | {_what(keys[0])} |")
    return "\n".join(rows)


def pattern_table(name: str) -> str:
    """Every pattern of the variant: its own name, key, value key and default."""
    v = VARIANTS[name]
    optional = {c for k in v.rule_keys if k.kind == "list" for c in k.choices}
    table = {r.key: r for r in getattr(v.scorer, "TABLE", ())}  # one row per pattern
    rows = ["| name | key | value key | default |", "|---|---|---|---|"]
    fans = any(r.fan is not None for r in table.values())  # a 番 apart from the value
    if table:
        rows = [rows[0] + (" 番 |" if fans else "") + " what the hand holds |", rows[1] + "---|"]
        rows[1] += "---|" if fans else ""
    for p in pattern_keys(v):
        k = _value_key(v, p)
        if k is None:
            value, default = "—", "—"
        else:
            value = f"`{k.name}`" + (" (money only)" if k.money_only else "")
            default = (
                " / ".join("–" if x is None else str(x) for x in k.default)
                if k.kind == "pair"
                else f"×{k.default}"
                if k.kind == "pow2"
                else str(k.default)
            )
        note = " (optional)" if p in optional else ""
        row = f"| {v.pattern_name(p)} | `{p}`{note} | {value} | {default} |"
        if table:
            row += (f" {table[p].fan} |" if fans else "") + f" {_cell(table[p].holds)} |"
        rows.append(row)
    extra = [
        k
        for k in v.rule_keys
        if _is_value_key(k) and k.name.split(".", 1)[1] not in pattern_keys(v)
    ]
    for k in extra:  # a value that is no pattern of its own (huangmei fan.facai_all)
        key = k.name.split(".", 1)[1]
        rows.append(
            f"| {v.pattern_name(key)} | (a value of `{key.split('_')[0]}`) "
            f"| `{k.name}` | {k.default} |"
        )
    return "\n".join(rows)


def vocabulary_table() -> str:
    """The closed vocabularies of the log's string columns."""
    rows = ["| table | column | values |", "|---|---|---|"]
    for (table, column), _allowed in schema.ALLOWED_VALUES.items():
        ordered = {
            ("hands", "outcome"): schema.OUTCOMES,
            ("events", "type"): schema.EVENT_TYPES,
            ("events", "kind"): tuple(dict.fromkeys(schema.EVENT_KINDS)),
            ("wins", "method"): schema.WIN_METHODS,
            ("transfers", "reason"): schema.TRANSFER_REASONS,
        }.get((table, column), tuple(sorted(_allowed)))
        rows.append(f"| `{table}` | `{column}` | {', '.join(f'`{x}`' for x in ordered)} |")
    return "\n".join(rows)


def _type(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        return "string (dictionary)"
    if pa.types.is_list(t):
        return f"list<{_type(t.value_type)}>"
    return str(t)


def column_table(table: str, old: str = "") -> str:
    """A log table's columns (``id``: the id columns) with type and nullability,
    keeping each column's meaning from ``old`` (the region as it stands)."""
    meaning = {}
    for line in old.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`"):
            meaning[cells[0].strip("`")] = " | ".join(cells[3:])
    fields = (
        schema.ID_FIELDS
        if table == "id"
        else [schema.TABLES[table].field(c) for c in schema.data_columns(table)]
    )
    rows = ["| column | type | null | meaning |", "|---|---|---|---|"]
    for f in fields:
        null = "yes" if f.nullable else "no"
        rows.append(
            f"| `{f.name}` | {_type(f.type)} | {null} | {meaning.get(f.name, 'TODO: describe')} |"
        )
    return "\n".join(rows)


def _render(region: str, old: str, page_variant: str | None) -> str:
    word, _, arg = region.partition(" ")
    if word == "common-keys":
        return common_key_table()
    if word in ("keys", "patterns"):
        variant = arg or page_variant
        if variant not in VARIANTS:
            raise InputError(f"region '{region}' needs a variant page or a variant name")
        return key_table(variant) if word == "keys" else pattern_table(variant)
    if word == "vocabularies":
        return vocabulary_table()
    if word == "metrics":
        return metrics.table()
    if word == "verdicts":
        return judgement.table()
    if word == "columns" and (arg == "id" or arg in schema.TABLES):
        return column_table(arg, old)
    raise InputError(f"unknown generated region '{region}'")


def refresh(text: str, variant: str | None = None) -> str:
    """``text`` with every marked region rewritten from the code."""

    def sub(m: re.Match) -> str:
        body = _render(m.group(2).strip(), m.group(3), variant)
        return f"{m.group(1)}{body}\n{m.group(4)}"

    return _REGION.sub(sub, text)


def pages(docs: Path) -> dict[Path, str]:
    """Every page with generated regions under ``docs``, rendered in memory."""
    out = {}
    for path in sorted(docs.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if "<!-- generated:" not in text:
            continue
        variant = path.stem if path.parent.name == "rules" and path.stem in VARIANTS else None
        out[path] = refresh(text, variant)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m mjlog.docs [DOCS_DIR]``: rewrite the generated regions in place."""
    args = sys.argv[1:] if argv is None else argv
    docs = Path(args[0] if args else "docs")
    for path, text in pages(docs).items():
        if path.read_text(encoding="utf-8") != text:
            replace_file(path, text.encode("utf-8"))  # atomic: a page is never half written
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
