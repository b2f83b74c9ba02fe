"""``mjlog validate RUN...``: audit run directories against the rules
(docs/rules/README.md, 'What the auditor checks')."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

import click


def result_json(res, reproduced=None) -> dict:
    """The audit as one JSON object (the shape is documented in docs/cli.md)."""
    out = {
        "runs": res.runs,
        "hands": res.hands,
        "events": res.events,
        "seconds": round(res.seconds, 3),
        "problems": [asdict(p) for p in res.problems],
        "notes": [asdict(n) for n in res.notes],
    }
    if reproduced is not None:
        out["reproduced"] = {"hands": reproduced.hands, "differ": reproduced.differ}
    return out


@click.command("validate")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option(
    "--report",
    "report",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write every problem and note to this file (JSON lines; CSV if it "
    "ends in .csv). Never inside a run or sweep: raw data is immutable.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: every core).",
)
@click.option(
    "--reproduce",
    is_flag=True,
    help="Also play every hand again with the run's recorded agents from its seed "
    "and report the first event of each hand where the log differs from their play "
    "(a changed but legal decision passes the rules audit, not this). As slow as "
    "simulating the run.",
)
@click.option("--quiet", is_flag=True, help="Only the summary line.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: one object {runs, hands, events, seconds, "
    "problems: [...], notes: [...]} (every finding, --show ignored).",
)
@click.option(
    "--show",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Print at most this many problems.",
)
def validate_command(runs, report, workers, reproduce, quiet, show, fmt) -> None:
    """Check every hand of each RUN: the wall, the dice, the seed, every event's
    legality, every win's score, every transfer, the totals and the next dealer.

    Prints a summary (and every problem to --report FILE when given), and exits 1
    if there is any problem, 0 when the runs are clean, 2 on bad input (a run
    whose manifest cannot be read is a problem of that run).

    With --reproduce it also plays every hand again with the run's recorded agents
    from its seed and reports where the log differs from their play (or that the
    run's agents cannot be played again).

    Example: mjlog validate runs/demo/yuxi --workers 4 --report audit.jsonl
    """
    from pathlib import Path

    from mjlog.errors import InputError
    from mjlog.rundir import check_output

    if report is not None:  # before the heavy imports: a refusal is instant
        check_output(report, "--report")
        if Path(report).is_dir():
            raise InputError(f"--report {report} is a directory; give a file name")
    from mjlog.audit import audit_runs, write_report

    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit="hand", dynamic_ncols=True)
    try:
        res = audit_runs(runs, workers=workers, progress=bar.update if bar else None)
    except KeyboardInterrupt:
        # 130, not 1: an interrupted audit found nothing, it stopped (nothing was written)
        click.echo(
            "mjlog: interrupted: the audit stopped before the end; nothing was written", err=True
        )
        sys.exit(130)
    finally:
        if bar is not None:
            bar.close()
    reproduced = None
    if reproduce:
        reproduced = _reproduce(runs, res, quiet)
    if report is not None:
        write_report(report, res)
    if fmt == "json":
        click.echo(json.dumps(result_json(res, reproduced), ensure_ascii=False, allow_nan=False))
        sys.exit(1 if res.problems else 0)
    if not quiet:
        for p in res.problems[:show]:
            click.echo(p.line())
        if len(res.problems) > show:
            more = f"in {report}" if report else "(--show N, or --report FILE for all)"
            click.echo(f"… {len(res.problems) - show} more {more}")
        for n in res.notes:
            click.echo(f"note: {n.line()}")
    rate = res.hands / res.seconds if res.seconds > 0 else 0.0
    click.echo(
        f"runs {res.runs}, hands {res.hands}, events checked {res.events}, "
        f"problems {len(res.problems)} ({res.seconds:.1f} s, {rate:.0f} hands/s)"
        + (f"; report: {report}" if report else "")
    )
    if reproduced is not None:
        click.echo(
            f"reproduced {reproduced.hands} hands with the recorded agents: "
            f"{reproduced.differ} differ from the log"
        )
    sys.exit(1 if res.problems else 0)


def _reproduce(runs, res, quiet):
    """``--reproduce``: every hand played again (simulate.reproduce), its findings
    added to the audit's."""
    from simulate.reproduce import reproduce_runs

    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit="hand", desc="reproduce", dynamic_ncols=True)
    try:
        out = reproduce_runs(runs, progress=bar.update if bar else None)
    except KeyboardInterrupt:
        click.echo("mjlog: interrupted: nothing was written", err=True)
        sys.exit(130)
    finally:
        if bar is not None:
            bar.close()
    res.problems += out.problems
    res.notes += out.notes
    return out
