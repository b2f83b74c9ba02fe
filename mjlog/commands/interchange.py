"""``mjlog export`` and ``mjlog import``: one hand as JSON lines, and back to a run
(format: docs/jsonl-format.md)."""

from __future__ import annotations

import click


@click.command("export")
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option("--hand", "hand_ref", required=True, metavar="MATCH:HAND",
              help="The hand to export, e.g. 0:3.")
@click.option("--rotation", type=click.IntRange(0, 3), default=0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl",
              show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="File to write (default: standard output).")
def export_command(run, hand_ref, rotation, fmt, out) -> None:
    """Write one hand of RUN as human-readable JSON lines: a header (variant, rules,
    players, dealer, dice, break, wall, seed), then one line per event, tiles in
    notation.

    Example: mjlog export runs/demo/yuxi --hand 0:3 --out hand.jsonl
    """
    from mjlog.commands.replay import parse_hand_ref
    from mjlog.interchange import export_hand, write_lines
    from mjlog.rundir import check_output

    if out is not None:
        check_output(out, "--out")
    match, hand = parse_hand_ref(hand_ref)
    lines = export_hand(run, match, hand, rotation)
    if out is None:
        for line in lines:
            click.echo(line)
    else:
        write_lines(lines, out)
        click.echo(f"{len(lines) - 1} events of match {match} hand {hand} written to {out}",
                   err=True)


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Run directory to create (must not exist or be empty).")
def import_command(file, out) -> None:
    """Turn a JSON-lines hand (FILE.jsonl) into a run directory that `mjlog validate`
    checks. Wins, transfers and the hands row are recomputed by replaying the
    events under the header's rules; a file without a wall is replayed on a wall
    rebuilt from its draws.

    Example: mjlog import hand.jsonl --out runs/imported
    """
    from mjlog.interchange import import_file
    from mjlog.rundir import check_output

    check_output(out, "--out")
    m = import_file(file, out, warn=lambda s: click.echo(f"warning: {s}", err=True))
    click.echo(f"run {m['run_id']} ({m['variant']}, 1 hand) written to {out}")
