"""``mjlog export`` and ``mjlog import``: hands as JSON lines, and back to a run
(format: docs/jsonl-format.md)."""

from __future__ import annotations

import json
import sys

import click

from mjlog.errors import InputError, quote


def parse_hand_keys(text: str) -> list[tuple[int, int, int]]:
    """``--hands`` as (match, rotation, hand) keys: ``M:H`` or ``M:R:H``, comma-separated.

    >>> parse_hand_keys("0:3, 2:1:0")
    [(0, 0, 3), (2, 1, 0)]
    """
    import re

    from mjlog.schema import int_max

    keys = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        nums = part.split(":")
        if len(nums) not in (2, 3) or not all(re.fullmatch(r"[0-9]{1,20}", n) for n in nums):
            raise InputError(
                f"bad --hands {quote(part)}: expected MATCH:HAND or MATCH:ROTATION:HAND, e.g. 0:3"
            )
        m, r, h = (int(nums[0]), 0, int(nums[1])) if len(nums) == 2 else map(int, nums)
        for name, v in (("match", m), ("rotation", r), ("hand", h)):
            if v > int_max("hands", name):
                raise InputError(
                    f"bad --hands {quote(part)}: {name} {v} is past the log's "
                    f"largest ({int_max('hands', name)})"
                )
        keys.append((m, r, h))
    if not keys:
        raise InputError("--hands names no hand")
    return keys


@click.command("export")
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--hand",
    "hand_ref",
    default=None,
    metavar="MATCH:HAND",
    help="One hand, e.g. 0:3 (with --rotation in a duplicate run).",
)
@click.option("--rotation", type=click.IntRange(0, 3), default=0, show_default=True)
@click.option(
    "--hands",
    "hands_ref",
    default=None,
    metavar="M:H,…|all",
    help="Hands to export: MATCH:HAND or MATCH:ROTATION:HAND, comma-separated, "
    "or 'all' (the default).",
)
@click.option(
    "--match",
    "matches",
    type=click.IntRange(0, 2**31 - 1),
    multiple=True,
    help="Every hand of this match (repeatable).",
)
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl", show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="File to write (default: standard output).",
)
def export_command(run, hand_ref, rotation, hands_ref, matches, fmt, out) -> None:
    """Write hands of RUN as human-readable JSON lines: per hand a header (variant,
    rules, players, dealer, dice, break, wall, seed), then one line per event,
    tiles in notation. Without --hand, --hands or --match: every hand.

    Example: mjlog export runs/demo/yuxi --hands 0:3,1:0 --out hands.jsonl
    """
    from mjlog.commands.replay import parse_hand_ref
    from mjlog.interchange import export_lines
    from mjlog.rundir import check_output

    if sum(x is not None and x != () for x in (hand_ref, hands_ref, matches)) > 1:
        raise InputError("give one of --hand, --hands and --match")
    if out is not None:
        check_output(out, "--out")
    keys = None
    if hand_ref is not None:
        m, h = parse_hand_ref(hand_ref)
        keys = [(m, rotation, h)]
    elif hands_ref is not None and hands_ref.strip() != "all":
        keys = parse_hand_keys(hands_ref)
    lines = export_lines(run, hands=keys, matches=list(matches) or None)
    if out is None:
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
        return
    n = _write_stream(lines, out)
    click.echo(f"{n} hands written to {out}", err=True)


def _write_stream(lines, out: str) -> int:
    """Write streamed lines whole or not at all (:func:`mjlog.rundir.open_output`);
    returns the number of hands."""
    from mjlog.rundir import open_output

    n = 0
    with open_output(out, "--out", text=True) as f:
        for line in lines:
            f.write(line + "\n")
            n += line.startswith('{"format"')
    return n


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False),
    help="Run directory to create: new, empty, or this import's run (a rerun "
    "finishes a killed import, and leaves a finished one as it is).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: print the written run as one object "
    "(the shape of `simulate --format json`, docs/cli.md).",
)
def import_command(files, out, quiet, fmt) -> None:
    """Turn JSON-lines files of hands (one header line per hand, any number of
    hands) into one run directory that `mjlog validate` checks. Wins, transfers
    and the hands rows are recomputed by replaying the events under the header's
    rules; a hand without a wall is replayed on a wall rebuilt from its draws.
    The run id is derived from the hands' content. Rerun into the same --out, the
    same import finishes what a killed one left, or, finished, changes nothing.

    Example: mjlog import a.jsonl b.jsonl --out runs/imported
    """
    from mjlog.interchange import import_files

    m = import_files(
        files,
        out,
        warn=lambda s: click.echo(f"warning: {s}", err=True),
        progress=not quiet and sys.stderr.isatty(),
    )
    if fmt == "json":
        from mjlog.commands.simulate import run_json

        click.echo(json.dumps(run_json(m, out), allow_nan=False))
        return
    n = sum(f["rows"] for f in m["files"] if f["table"] == "hands")
    click.echo(f"run {m['run_id']} ({m['variant']}, {n} hand{'s' * (n != 1)}) written to {out}")
