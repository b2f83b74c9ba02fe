"""``mjlog simulate``: play seeded matches and write a run directory."""

from __future__ import annotations

import sys

import click

from mjlog.rules import VARIANTS


def _scheduler(ctx, param, value):
    """Check a --scheduler address (its form, and that it answers) before anything
    is written."""
    if value is None:
        return None
    from simulate.dask_runner import check_address

    return check_address(value)


def run_options(f):
    """The options of one run, shared by ``mjlog simulate`` and ``mjlog sweep``."""
    options = [
        click.option("--variant", type=click.Choice(VARIANTS), required=True),
        click.option("--matches", type=click.IntRange(min=1), default=1, show_default=True),
        click.option("--hands-per-match", type=click.IntRange(min=1), default=8,
                     show_default=True),
        click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Root seed: fixes every wall, die, dealer and agent choice."),
        click.option("--players", type=click.IntRange(2, 4), default=None,
                     help="2, 3 or 4 (default: the rules' `players`, 4)."),
        click.option("--agents", default="greedy", show_default=True,
                     help="Comma-separated agents per seat, or one for all "
                          "(random, greedy, efficient, strategic, a plugin of the "
                          "mjlog.agents entry points or package.module:factory; "
                          "parameters as name:key=value)."),
        click.option("--rules", "rules_file", type=click.Path(dir_okay=False),
                     help="TOML file of rule values."),
        click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override a rule key."),
        click.option("--workers", type=click.IntRange(min=1), default=None,
                     help="Local worker processes (default: every core)."),
        click.option("--scheduler", default=None, metavar="ADDRESS", callback=_scheduler,
                     help="Run the shards on this dask.distributed scheduler instead "
                          "(tcp://host:8786; the workers must see --out)."),
        click.option("--duplicate", is_flag=True,
                     help="Duplicate play: each match once per seat rotation, walls and "
                          "dealers fixed."),
        click.option("--events", type=click.Choice(["all", "none"]), default="all",
                     show_default=True,
                     help="`none` writes only hands, wins and transfers (very large runs)."),
        click.option("--hands-per-shard", type=click.IntRange(min=1), default=2000,
                     show_default=True,
                     help="Target hands per shard file (whole matches). Sets the file "
                          "layout, recorded in the manifest; not part of the run id."),
        click.option("--quiet", is_flag=True, help="No progress bar."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def interrupted(e: KeyboardInterrupt) -> None:
    """Report Ctrl-C as one line and exit 130 (the shell's code for SIGINT)."""
    click.echo(f"mjlog: interrupted: {e.args[0] if e.args else 'stopped'}; rerun the same "
               f"command to resume", err=True)
    sys.exit(130)


@click.command("simulate")
@run_options
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Run directory to write (resumed if it holds this run's shards).")
def simulate_command(variant, matches, hands_per_match, seed, players, agents, rules_file,
                     sets, workers, scheduler, duplicate, events, hands_per_shard, quiet,
                     out) -> None:
    """Play MATCHES × HANDS-PER-MATCH hands and write a run directory (Parquet).

    Uses every core (--workers N), or a Dask cluster (--scheduler ADDRESS); the
    bytes written are the same either way. Interrupted, a rerun of the same
    command resumes from the complete shards.

    Example: mjlog simulate --variant yuxi --matches 10 --hands-per-match 8
    --seed 1 --agents greedy,random,greedy,random --out runs/demo
    """
    from simulate.runner import RunSpec, simulate

    spec = RunSpec.build(variant, seed, matches, hands_per_match, agents.split(","),
                         players=players, sets=sets, rules_file=rules_file,
                         duplicate=duplicate, events=events == "all",
                         hands_per_shard=hands_per_shard)
    try:
        m = simulate(spec, out, workers=workers, progress=None if not quiet else False,
                     scheduler=scheduler)
    except KeyboardInterrupt as e:
        interrupted(e)
    hands = sum(f["rows"] for f in m["files"] if f["table"] == "hands")
    if not quiet:
        click.echo(f"run {m['run_id']}: {hands} hands of {variant} written to {out}")
