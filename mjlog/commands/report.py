"""``mjlog report``: one self-contained HTML report comparing runs, or a tune's page."""

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

    Given a tune's directory (one holding tune.json, as `mjlog tune --out`
    writes it), the page shows the tune instead: the proposal against the rules as
    they are, each target on fresh walls, what the budget could confirm, every side
    effect, how each target responded to each varied key, the trials and the race.
    A tune not confirmed yet is refused, naming the stage it reached.

    Example: mjlog report runs/yuxi runs/xuezhan --out runs/report
    """
    from pathlib import Path

    from mjlog.errors import InputError
    from mjlog.rundir import check_output

    check_output(out, "--out")  # before the heavy imports: a refusal is instant
    tunes = [r for r in runs if (Path(r) / "tune.json").is_file()]
    if tunes and len(runs) > 1:
        raise InputError(f"{tunes[0]} is a tune's directory: report it alone")
    if tunes:
        from analysis.studies.tune.page import write_page

        default = click.get_current_context().get_parameter_source("title")
        path = write_page(
            tunes[0],
            out,
            fmt=figures,
            title=None if default is click.core.ParameterSource.DEFAULT else title,
        )
    else:
        _purging_duckdb()  # before DuckDB loads
        from analysis.report import write_report

        path = write_report(
            list(runs), out, fmt=figures, title=title, progress=False if quiet else None
        )
    if fmt == "json":
        import json

        click.echo(json.dumps({"index": str(path)}, ensure_ascii=False, allow_nan=False))
    else:
        click.echo(str(path))


def _purging_duckdb() -> None:
    """Have DuckDB's allocator (jemalloc) hand freed pages back to the system within
    0.1 s, not 1 s (``dirty_decay_ms:100`` in ``DUCKDB_JE_MALLOC_CONF``, DuckDB's
    documented way to configure it, read when DuckDB loads; unless set already, or
    DuckDB is loaded).

    Why: at 10M hands a seat figure's sorted rows, freed while they are fetched
    (~100 MB), stayed in the process at the report's peak. At 0 (at once) the peak was
    ~20-45 MB lower again, for ~27 % more CPU at 10M (bench/results/compare.md).
    The same bytes are written."""
    import os
    import sys

    if "duckdb" not in sys.modules:
        os.environ.setdefault("DUCKDB_JE_MALLOC_CONF", "dirty_decay_ms:100")
