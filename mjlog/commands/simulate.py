"""``mjlog simulate``: play seeded matches and write a run directory."""

from __future__ import annotations

import json
import sys

import click

from mjlog.commands.announce import announce, estimate, refuse_inside, yes_option
from mjlog.errors import InputError
from mjlog.rules import VARIANTS


def scheduler_callback(ctx, param, value):
    """Check a --scheduler address (its form, and that it answers) before anything
    is written."""
    if value is None:
        return None
    from mjlog.extras import require
    from simulate.dask_runner import check_address

    require("distributed", "dask", "--scheduler")

    return check_address(value)


class AgentsOption(click.Option):
    """``--agents``, whose help lists the agents registered when help is asked for
    (importing them all at start-up would slow every command)."""

    def get_help_record(self, ctx):
        from simulate.agents import agent_names

        self.help = (
            f"{self.help} Registered: {', '.join(agent_names())}; parameters as "
            f"name:key=value;key=value."
        )
        return super().get_help_record(ctx)


def run_options(f=None, *, agents: str = "greedy", matches: int = 1, matches_help: str = ""):
    """The options of one run, shared by ``mjlog simulate`` and ``mjlog sweep``;
    ``@run_options(agents=NAME, matches=N)`` sets the default line-up and size."""
    if f is None:
        return lambda g: run_options(g, agents=agents, matches=matches, matches_help=matches_help)
    options = [
        click.option("--variant", type=click.Choice(VARIANTS), required=True),
        click.option(
            "--matches",
            type=click.IntRange(min=1),
            default=matches,
            show_default=True,
            help=matches_help or None,
        ),
        click.option("--hands-per-match", type=click.IntRange(min=1), default=8, show_default=True),
        click.option(
            "--seed",
            type=click.IntRange(min=0),
            default=0,
            show_default=True,
            help="Root seed: fixes every wall, die, dealer and agent choice.",
        ),
        click.option(
            "--players",
            type=click.IntRange(2, 4),
            default=None,
            help="2, 3 or 4 (default: the rules' `players`, 4).",
        ),
        click.option(
            "--agents",
            cls=AgentsOption,
            default=agents,
            show_default=True,
            help="Comma-separated agents per seat, or one for all: a registered "
            "name (built-in or of the mjlog.agents entry points) or a "
            "package.module:factory plugin.",
        ),
        click.option(
            "--rules",
            "rules_file",
            type=click.Path(dir_okay=False),
            help="TOML file of rule values.",
        ),
        click.option(
            "--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a rule key."
        ),
        click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=None,
            help="Local worker processes (default: every core).",
        ),
        click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            callback=scheduler_callback,
            help="Run the shards on this dask.distributed scheduler instead "
            "(tcp://host:8786; the workers must see --out).",
        ),
        click.option(
            "--duplicate",
            is_flag=True,
            help="Duplicate play: each match once per seat rotation, walls and dealers fixed.",
        ),
        click.option(
            "--events",
            type=click.Choice(["all", "none"]),
            default="all",
            show_default=True,
            help="`none` writes only hands, wins and transfers (very large runs).",
        ),
        click.option(
            "--hands-per-shard",
            type=click.IntRange(min=1),
            default=2000,
            show_default=True,
            help="Target hands per shard file (whole matches). Sets the file "
            "layout, recorded in the manifest; not part of the run id.",
        ),
        click.option(
            "--quiet",
            is_flag=True,
            help="No estimate, no progress bar, and no line on success.",
        ),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(["text", "json"]),
            default="text",
            show_default=True,
            help="json: print the result as one object (documented in docs/cli.md).",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return yes_option(f)


def interrupted(e: KeyboardInterrupt) -> None:
    """Report Ctrl-C as one line and exit 130 (the shell's code for SIGINT)."""
    click.echo(
        f"mjlog: interrupted: {e.args[0] if e.args else 'stopped'}; rerun the same "
        f"command to resume",
        err=True,
    )
    sys.exit(130)


@click.command("simulate")
@run_options
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Run directory to write (resumed if it holds this run's shards).",
)
@click.option(
    "--until",
    "until",
    default=None,
    metavar="METRIC=HALF_WIDTH",
    help="Add whole shards until METRIC's 95% half-width is at most HALF_WIDTH "
    "(say dealer_advantage=0.1; see simulate/until.py); needs --max-hands, "
    "ignores --matches. The run written is the chosen number of matches "
    "played again on a fresh seed derived from --seed, so its figures are "
    "not the ones the stop chose (the manifest's `until` records both seeds).",
)
@click.option(
    "--max-hands",
    type=click.IntRange(min=1),
    default=None,
    help="With --until: stop here whatever the half-width.",
)
def simulate_command(
    variant,
    matches,
    hands_per_match,
    seed,
    players,
    agents,
    rules_file,
    sets,
    workers,
    scheduler,
    duplicate,
    events,
    hands_per_shard,
    quiet,
    fmt,
    out,
    until,
    max_hands,
    yes,
) -> None:
    """Play MATCHES × HANDS-PER-MATCH hands and write a run directory (Parquet).

    Uses every core (--workers N), or a Dask cluster (--scheduler ADDRESS); the
    bytes written are the same either way. Interrupted, a rerun of the same
    command resumes from the complete shards.

    Example: mjlog simulate --variant yuxi --matches 10 --hands-per-match 8
    --seed 1 --agents greedy,random,greedy,random --out runs/demo
    """
    from simulate.runner import RunSpec, simulate

    spec = RunSpec.build(
        variant,
        seed,
        matches,
        hands_per_match,
        agents.split(","),
        players=players,
        sets=sets,
        rules_file=rules_file,
        duplicate=duplicate,
        events=events == "all",
        hands_per_shard=hands_per_shard,
    )
    if until is not None or max_hands is not None:
        return until_command(spec, out, until, max_hands, workers, scheduler, quiet, fmt, yes)
    refuse_inside(out)  # a refusal before the estimate: one line
    announce("simulate", _shape(spec), estimate([spec], workers), quiet, yes)
    try:
        m = simulate(
            spec, out, workers=workers, progress=None if not quiet else False, scheduler=scheduler
        )
    except KeyboardInterrupt as e:
        interrupted(e)
    hands = sum(f["rows"] for f in m["files"] if f["table"] == "hands")
    if fmt == "json":
        click.echo(json.dumps(run_json(m, out), allow_nan=False))
    elif not quiet:
        click.echo(f"run {m['run_id']}: {hands} hands of {variant} written to {out}")


def _shape(spec) -> str:
    """A run's size as its options say it: matches × rotations × hands."""
    rot = f" × {spec.rotations} rotations" if spec.rotations > 1 else ""
    return f"{spec.matches:,} matches{rot} × {spec.hands_per_match} hands"


def run_json(m: dict, out) -> dict:
    """A written run as ``--format json`` prints it (docs/cli.md)."""
    return {
        "run_id": m["run_id"],
        "variant": m["variant"],
        "out": str(out),
        "seed": m.get("seed"),
        "matches": m.get("matches"),
        "hands": sum(f["rows"] for f in m["files"] if f["table"] == "hands"),
        "files": len(m["files"]),
    }


def until_command(
    spec,
    out,
    until: str | None,
    max_hands: int | None,
    workers,
    scheduler,
    quiet: bool,
    fmt: str = "text",
    yes: bool = False,
) -> None:
    """``mjlog simulate --until``: check the options, run, say what the rule found."""
    if until is None or max_hands is None:
        raise InputError("--until and --max-hands go together")
    if scheduler:
        raise InputError("--until runs on local workers (no --scheduler)")
    from analysis.prefix import half_widths
    from simulate.until import parse_until, run_until

    metric, half = parse_until(until)
    try:
        m, rule = run_until(
            spec,
            out,
            metric,
            half,
            max_hands,
            half_widths,
            workers,
            progress=None if not quiet else False,
            on_plan=lambda full, n: announce(
                "simulate", "at most: --max-hands", estimate([full], workers, hands=n), quiet, yes
            ),
        )
    except KeyboardInterrupt as e:
        interrupted(e)
    if fmt == "json":
        click.echo(json.dumps({**run_json(m, out), "until": rule}, allow_nan=False))
    elif not quiet:
        how = "reached" if rule["reached"] else "NOT reached (stopped at --max-hands)"

        def show(hw):
            return "undefined" if hw is None else format(hw, ".4g")

        click.echo(
            f"run {m['run_id']}: {rule['hands']} hands of {spec.variant} written to "
            f"{out} on fresh seed {rule['seed']}; {metric} 95% half-width "
            f"{show(rule['run_half_width'])} there. The stop: "
            f"{show(rule['achieved_half_width'])} on seed {rule['stopping_seed']} "
            f"(target {half:g}: {how})"
        )
