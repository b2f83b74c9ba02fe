"""``mjlog ladder``: rank agents by duplicate play."""

from __future__ import annotations

import click

from mjlog.commands.announce import announce, estimate, refuse_inside, yes_option
from mjlog.commands.simulate import AgentsOption, scheduler_callback
from mjlog.rules import VARIANTS
from simulate.seating import DEFAULT_SEATING, SEATINGS


@click.command("ladder")
@click.option("--variant", type=click.Choice(VARIANTS), required=True)
@click.option(
    "--agents",
    cls=AgentsOption,
    required=True,
    help="Comma-separated line-up, one per seat "
    "(e.g. strategic,efficient,greedy,random; plugins by entry-point "
    "name or package.module:factory).",
)
@click.option(
    "--hands",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="At least this many hands in all, in two whole matches or more (the "
    "match is the interval's unit): a match is played once per seat rotation "
    "and, balanced, per seat order (192 hands for four agents and 8 hands a "
    "match).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--hands-per-match", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a rule key.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: every core); a shard is one worker's.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    callback=scheduler_callback,
    help="Play the shards on this dask.distributed scheduler instead "
    "(tcp://host:8786); needs --out, which its workers must see. The "
    "standings are the same as on local workers.",
)
@click.option(
    "--hands-per-shard",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Target hands per shard (whole matches). Smaller shards spread a short "
    "ladder of a slow agent over more workers; the standings are the same.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the table as CSV to this file.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "csv"]),
    default="text",
    show_default=True,
    help="How to print the table: aligned text, a JSON list of rows, or CSV.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Keep the run directory here (default: a temporary one).",
)
@click.option(
    "--seating",
    type=click.Choice(SEATINGS),
    default=DEFAULT_SEATING,
    show_default=True,
    help="balanced: every assignment of the agents to the seats (every order of "
    "the agents after the first, each in every seat rotation; each order a run "
    "under OUT/seating-K), on the same walls, so two agents that play alike "
    "finish level; cyclic: the line-up's rotations only (fewer hands a match, "
    "but the agent listed before another always plays just before it: on "
    "given walls, luck that one agent gets and the other does not).",
)
@click.option("--quiet", is_flag=True, help="No estimate and no progress bar.")
@yes_option
def ladder_command(
    variant,
    agents,
    hands,
    seed,
    hands_per_match,
    sets,
    workers,
    scheduler,
    hands_per_shard,
    seating,
    csv_path,
    fmt,
    out,
    quiet,
    yes,
) -> None:
    """Play duplicate matches and rank the agents: mean points per hand with a 95%
    interval (matches as the unit), win rate, deal-in rate, mean points per win.

    The text output adds each agent's lead over the next one down, paired by
    match: two agents' own intervals may overlap while the paired lead's does
    not include 0 (--format json/csv give the standings only).
    """
    from mjlog.csvsafe import csv_text
    from mjlog.rundir import check_output, write_atomic

    if csv_path:  # before the heavy imports: a refusal is instant
        check_output(csv_path, "--csv")
    if out is not None:  # before the estimate and anything played: one line
        refuse_inside(out)
    from analysis.studies.ladder import ladder_tables

    table, gaps = ladder_tables(
        variant,
        agents.split(","),
        hands,
        seed,
        hands_per_match,
        sets,
        workers=workers,
        out=out,
        progress=None if not quiet else False,
        hands_per_shard=hands_per_shard,
        seating=seating,
        scheduler=scheduler,
        on_plan=lambda specs, n: announce(
            "ladder",
            f"{len(specs)} seating{'s' if len(specs) > 1 else ''} × {specs[0].total_hands:,}",
            estimate(specs, workers, hands=n),
            quiet,
            yes,
        ),
    )
    if fmt == "json":
        click.echo(table.to_json(orient="records", force_ascii=False))
    elif fmt == "csv":
        click.echo(csv_text(table), nl=False)
    else:
        click.echo(
            f"{variant}, {int(table['hands'].sum())} seat-hands, seed {seed}, "
            f"line-up {agents}, {seating} seating"
        )
        click.echo(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        if len(gaps):
            click.echo(
                "\nlead over the next agent down, points per hand, paired by match (95% interval):"
            )
            shown = gaps.assign(p=[f"{p:.3g}" if p >= 0.001 else "<0.001" for p in gaps["p"]])
            click.echo(shown.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    if csv_path:
        write_atomic(csv_path, csv_text(table), "--csv")
        click.echo(f"written {csv_path}", err=True)
