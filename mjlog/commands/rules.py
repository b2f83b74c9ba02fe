"""``mjlog rules VARIANT``: print the resolved rules."""

from __future__ import annotations

import json

import click

from mjlog.rules import VARIANTS, resolve


@click.command("rules")
@click.argument("variant", type=click.Choice(VARIANTS))
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False),
              help="TOML file of rule values (read with a safe parser).")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override one rule key; repeatable (e.g. --set cap=32).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def rules_command(variant: str, rules_file: str | None, sets: tuple[str, ...],
                  as_json: bool) -> None:
    """Print every rule key of VARIANT with its resolved value and meaning.

    Values come from the defaults of RULES.md, then --rules FILE, then --set.
    """
    r = resolve(variant, file=rules_file, sets=sets)
    if as_json:
        click.echo(json.dumps({"variant": variant, "rules": r.to_json()}, ensure_ascii=False))
        return
    click.echo(f"# {variant}: resolved rules")
    for line in r.lines():
        click.echo(line)
