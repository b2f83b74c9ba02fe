"""``mjlog validate RUN...``: audit run directories against the rules (RULES.md §5)."""

from __future__ import annotations

import sys

import click


@click.command("validate")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--report", "report", type=click.Path(dir_okay=False),
              default="audit-report.jsonl", show_default=True,
              help="Where to write every problem and note (JSON lines; CSV if it ends in "
                   ".csv). Never written inside a run: raw data is immutable.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: every core).")
@click.option("--quiet", is_flag=True, help="Only the summary line.")
@click.option("--show", type=click.IntRange(min=0), default=10, show_default=True,
              help="Print at most this many problems.")
def validate_command(runs, report, workers, quiet, show) -> None:
    """Check every hand of each RUN: the wall, the dice, the seed, every event's
    legality, every win's score, every transfer, the totals and the next dealer.

    Prints a summary, writes every problem to --report, and exits 1 if there is
    any problem (0 when the runs are clean).

    Example: mjlog validate runs/demo/yuxi --workers 4 --report audit.jsonl
    """
    from pathlib import Path

    from mjlog.audit import audit_runs, write_report

    rp = Path(report).resolve()
    for r in runs:
        if Path(r).resolve() in rp.parents:
            raise click.UsageError(f"--report {report} is inside run {r}; a run is never "
                                   f"written to (choose a path outside it)")
    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit="hand", dynamic_ncols=True)
    try:
        res = audit_runs(runs, workers=workers, progress=bar.update if bar else None)
    finally:
        if bar is not None:
            bar.close()
    write_report(report, res)
    if not quiet:
        for p in res.problems[:show]:
            click.echo(p.line())
        if len(res.problems) > show:
            click.echo(f"… {len(res.problems) - show} more in {report}")
        for n in res.notes:
            click.echo(f"note: {n.line()}")
    rate = res.hands / res.seconds if res.seconds > 0 else 0.0
    click.echo(f"runs {res.runs}, hands {res.hands}, events checked {res.events}, "
               f"problems {len(res.problems)} ({res.seconds:.1f} s, {rate:.0f} hands/s); "
               f"report: {report}")
    sys.exit(1 if res.problems else 0)
