"""``mjlog sweep``: one run per point of a grid of rule values."""

from __future__ import annotations

import json

import click

from mjlog.commands.simulate import interrupted, run_options

#: A sweep's default size: 2,000 hands a point at 8 hands a match, where a rate near
#: 5 % has a 95 % interval of about ±1 point (one match, 8 hands, says nothing).
SWEEP_MATCHES = 250


@click.command("sweep")
@run_options(
    agents="strategic",
    matches=SWEEP_MATCHES,
    matches_help="Matches per point (default: 2,000 hands a point at 8 hands a match, "
    "where a rate near 5% has a 95% interval of about ±1 point).",
)
@click.option(
    "--grid",
    "grids",
    multiple=True,
    required=True,
    metavar="KEY=V1,V2,...",
    help="A rule key and its values (repeat for more keys; every combination "
    "runs). Separate values with ';' when one holds a comma.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Parent directory: one run directory per point, and sweep.json.",
)
def sweep_command(
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
    grids,
    out,
    yes,
) -> None:
    """Run the same simulation for every combination of rule values.

    Each point is written to PARENT/<key=value__key=value> as an ordinary run;
    PARENT/sweep.json lists the points with their run ids. Rerun the same
    command to resume an interrupted sweep.

    The agents default to strategic, which plays the rules in force, so a rule
    change can change its play; greedy and random ignore the rules' values (a
    sweep of them measures the scoring alone), and a seat that never wins makes
    the money figures one seat's penalties (mjlog report and compare warn).

    Example: mjlog sweep --variant xuezhan --grid cap=8,16,32
    --grid zimo_bonus=none,add_base --matches 100 --out runs/caps
    """
    from mjlog.commands.announce import announce, estimate, refuse_inside
    from simulate.sweep import parse_grid, plan, sweep

    build = dict(
        seed=seed,
        matches=matches,
        hands_per_match=hands_per_match,
        agents=agents.split(","),
        players=players,
        rules_file=rules_file,
        duplicate=duplicate,
        events=events == "all",
        hands_per_shard=hands_per_shard,
    )
    grid = parse_grid(grids)
    planned = plan(variant, grid, sets, **build)
    specs = [spec for _name, _point, spec in planned]
    points = {name: point for name, point, _ in planned}
    refuse_inside(out)  # a refusal before the estimate: one line
    per = specs[0].total_hands
    what = f"{len(specs)} points × {per:,} hands, {matches:,} matches of {hands_per_match} a point"
    announce("sweep", what, estimate(specs, workers), quiet, yes)

    def done(name: str, manifest: dict) -> None:
        if not quiet and fmt == "text":
            from analysis.queries import mark_defaults
            from simulate.sweep import point_name

            hands = sum(f["rows"] for f in manifest["files"] if f["table"] == "hands")
            # a grid value that is the variant's default says so (cap=64 in yuxi)
            shown = "__".join(
                point_name({k: v})
                + (" (default)" if "(" in mark_defaults(variant, f"{k}={v}") else "")
                for k, v in points[name].items()
            )
            click.echo(f"{shown}: run {manifest['run_id']}, {hands} hands")

    try:
        doc = sweep(
            variant,
            grid,
            out,
            sets=sets,
            workers=workers,
            scheduler=scheduler,
            progress=None if not quiet else False,
            on_run=done,
            **build,
        )
    except KeyboardInterrupt as e:
        interrupted(e)
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "sweep_id": doc["sweep_id"],
                    "variant": variant,
                    "out": str(out),
                    "grid": doc["grid"],
                    "points": [
                        {"dir": p["dir"], "point": p["point"], "run_id": p["run_id"]}
                        for p in doc["points"]
                    ],
                },
                ensure_ascii=False,
                allow_nan=False,
            )
        )
    elif not quiet:
        click.echo(
            f"sweep {doc['sweep_id']}: {len(doc['points'])} runs of {variant} in {out} "
            f"(listed in {out}/sweep.json)"
        )
