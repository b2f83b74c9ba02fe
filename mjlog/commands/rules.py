"""``mjlog rules VARIANT``: the resolved rules, as a TOML file ``--rules`` reads back.

>>> from mjlog.rules import resolve
>>> text = rules_toml(resolve("xuezhan", sets=["cap=32"]))
>>> 'cap = 32 # ' in text and 'variant = "xuezhan"' in text
True
"""

from __future__ import annotations

import json
from typing import Any

import click

from mjlog.rulekeys import RuleKey
from mjlog.rules import VARIANTS, Rules, keys, resolve

__all__ = ["rules_command", "rules_toml"]


def _toml_value(key: RuleKey, value: Any) -> Any:
    """A rule value as TOML: integers, booleans and names as themselves; a pair as
    its ``S/D`` string (TOML has no null for ``-``); a list as an array of names."""
    if key.kind == "pair":
        return key.show(value)
    if key.kind == "list":
        return list(value)
    return value


def rules_toml(r: Rules) -> str:
    """Every key of ``r`` as TOML, each with its meaning as a comment and a mark on
    the keys changed from the variant's defaults. ``--rules`` reads it back to the
    same rules (a test holds the round trip for every variant)."""
    import tomlkit

    spec = keys(r.variant)
    doc = tomlkit.document()
    doc.add(
        tomlkit.comment(
            f"mjlog rules for {r.variant}: use with --rules FILE "
            f"(keys changed from the defaults are marked)"
        )
    )
    doc.add("variant", r.variant)
    tables: dict[str, tomlkit.items.Table] = {}
    for name in sorted(r, key=lambda k: ("." in k, k)):
        key, value = spec[name], r[name]
        note = key.doc
        if key.kind == "choice":
            note += f" [{' | '.join(key.choices)}]"
        if value != key.default:
            note += f" (changed; default {key.show(key.default)})"
        head, dot, leaf = name.partition(".")
        where: tomlkit.TOMLDocument | tomlkit.items.Table = doc
        if dot:
            table = tables.get(head)
            if table is None:
                table = tables[head] = tomlkit.table()
                doc.add(head, table)
            where = table
        else:
            leaf = name
        item = tomlkit.item(_toml_value(key, value))
        if note:
            item.comment(" ".join(note.split()))
        where.add(leaf, item)
    return tomlkit.dumps(doc)


@click.command("rules")
@click.argument("variant", type=click.Choice(VARIANTS))
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(dir_okay=False),
    help="TOML file of rule values (read with a safe parser).",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override one rule key; repeatable (e.g. --set cap=32).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='text: a TOML file that --rules reads back; json: one object {"variant", "rules"}.',
)
@click.option("--json", "as_json", is_flag=True, hidden=True)  # before --format
def rules_command(
    variant: str, rules_file: str | None, sets: tuple[str, ...], fmt: str, as_json: bool
) -> None:
    """Print every rule key of VARIANT with its resolved value and meaning, as TOML.

    Values come from the variant's defaults, then --rules FILE, then --set. The
    output is itself a rules file:

        mjlog rules xuezhan --set cap=32 > r.toml
        mjlog simulate --variant xuezhan --rules r.toml ...
    """
    r = resolve(variant, file=rules_file, sets=sets)
    if as_json or fmt == "json":
        click.echo(
            json.dumps(
                {"variant": variant, "rules": r.to_json()}, ensure_ascii=False, allow_nan=False
            )
        )
        return
    click.echo(rules_toml(r), nl=False)
