"""``mjlog report``: one self-contained HTML report comparing runs."""

from __future__ import annotations

import click


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder to write index.html into.",
)
@click.option(
    "--figures",
    "figures",
    type=click.Choice(["png", "svg"]),
    default="png",
    show_default=True,
    help="How the figures are embedded.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='What to print: the page\'s path, or {"index": path}.',
)
@click.option("--title", default="mjlog report", show_default=True)
@click.option(
    "--quiet",
    is_flag=True,
    help="No progress lines (on stderr, for large runs: which step the report is at).",
)
def report_command(runs, out, figures, fmt, title, quiet) -> None:
    """Compare RUNS (run directories or sweep folders) in OUT/index.html.

    Opens with a table of contents and the findings, each with its 95% CI (the
    match as the unit, as in `mjlog ladder` and `mjlog compare`) and whether it
    is significant. Tables (sortable) and figures are inline (no network): win
    rate, self-draw share, deal-in rate and mean points per seat, agent and
    variant; dealer advantage; patterns (番种: share of wins carrying each, share
    of the points each adds); points per win and per hand; swing; skill and luck
    (duplicate runs); hands needed; hand length and drawn hands; kong money and
    end-of-wall settlements; first-winner advantage; sweep points paired by walls.
    Every figure is per agent line-up. A finding resting on fewer than 30
    matches reads "too few hands to say"; a seat that never wins, or a penalty
    that carries most of the money, is flagged as a caveat.

    Example: mjlog report runs/yuxi runs/xuezhan --out runs/report
    """
    from mjlog.rundir import check_output

    check_output(out, "--out")  # before the heavy imports: a refusal is instant
    from analysis.report import write_report

    path = write_report(
        list(runs), out, fmt=figures, title=title, progress=False if quiet else None
    )
    if fmt == "json":
        import json

        click.echo(json.dumps({"index": str(path)}, ensure_ascii=False, allow_nan=False))
    else:
        click.echo(str(path))
