"""``mjlog balance``: the dealer's advantage, the compensation that cancels it, and a
confirmation run (:mod:`analysis.compensation`)."""

from __future__ import annotations

import json
import math
import sys

import click

from mjlog.commands.simulate import AgentsOption, interrupted
from mjlog.rules import VARIANTS


def _num(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _clean(x):
    """NaN and infinities as null: the JSON stays JSON."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return _num(x)


def _ci(e: dict, unit: str = "points/hand") -> str:
    return f"{e['value']:+.3f} {unit} [{e['lo']:+.3f}, {e['hi']:+.3f}]"


def _position_line(positions: list[dict]) -> str:
    return "; ".join(f"{p['position']}: {_ci(p, '')}".replace(" [", "[") for p in positions)


def _measured_text(r: dict) -> list[str]:
    who = ",".join(r["agents"])
    dup = ("duplicate play: each match once per seat rotation" if r["duplicate"] else
           "one agent in every seat: no rotations, they would replay the same hands")
    ex = r["compensation_exact"]
    return [
        f"{r['variant']}, agents {who}, seed {r['seed']}: {r['hands']} hands per run "
        f"({r['matches']} matches of {r['hands'] // r['matches']} hands, {dup}); 95% CIs, "
        f"the match as the unit",
        f"dealer advantage: {_ci(r['dealer_advantage'])} (the dealer's mean minus the "
        f"other positions' mean; measured with dealer_compensation="
        f"{r['measured_compensation']})",
        f"position advantages (0 = dealer), points/hand: {_position_line(r['positions'])}",
        f"compensation that cancels it: {ex['value']:+.3f} units of base [{ex['lo']:+.3f}, "
        f"{ex['hi']:+.3f}] -> dealer_compensation={r['compensation']} (whole units; base "
        f"{r['base']}, {r['players']} players: one unit moves it by {r['resolution']} "
        f"points/hand; expected residual {r['expected_residual']:+.3f} points/hand)",
    ]


@click.command("balance")
@click.argument("variant", type=click.Choice(VARIANTS))
@click.option("--agents", cls=AgentsOption, default="strategic", show_default=True,
              help="Comma-separated line-up, one per seat, or one for all.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a rule key.")
@click.option("--hands", type=click.IntRange(min=1), default=20000, show_default=True,
              help="At least this many hands per run (whole duplicate matches, two at least).")
@click.option("--hands-per-match", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: every core).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Keep the two runs here (DIR/measure, DIR/confirm; a rerun resumes "
                   "them). Default: a temporary directory, removed.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: one object (documented in docs/cli.md).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def balance_command(variant, agents, sets, hands, hands_per_match, seed, workers, out, fmt,
                    quiet) -> None:
    """Measure the dealer's advantage and each seat position's by duplicate play,
    propose the dealer_compensation that cancels it, and confirm it.

    Two runs of at least HANDS hands on the same seeds: one with the rules as
    given, one with the proposed dealer_compensation (skipped when that is the
    rule already measured). Every figure has its 95% interval, the match as the
    unit; the confirmation says whether its interval covers 0.

    Example: mjlog balance yuxi --hands 4000 --seed 1 --format json
    """
    from mjlog.rundir import check_output

    if out is not None:
        check_output(out, "--out")  # before anything is played: a refusal is instant
    from analysis.compensation import balance_study

    def measured(r: dict) -> None:
        if fmt == "text":
            for line in _measured_text(r):
                click.echo(line)
            sys.stdout.flush()

    try:
        r = balance_study(variant, agents.split(","), hands, seed, sets, hands_per_match,
                          workers=workers, out=out, progress=None if not quiet else False,
                          on_measured=measured)
    except KeyboardInterrupt as e:
        interrupted(e)
    if fmt == "json":
        click.echo(json.dumps(_clean(r), ensure_ascii=False, indent=1, allow_nan=False))
        return
    half = (r["confirmed"]["hi"] - r["confirmed"]["lo"]) / 2
    verdict = (f"the interval covers 0: no dealer advantage this run can detect (half-width "
               f"{half:.3f} points/hand)" if r["covers_zero"] else
               "the interval does NOT cover 0: a dealer advantage remains")
    same = " (the rules measured: no second run)" if r["compensation"] == r[
        "measured_compensation"] else ""
    click.echo(f"confirmed with dealer_compensation={r['compensation']}{same}: dealer "
               f"advantage {_ci(r['confirmed'])}; {verdict}")
    click.echo(f"position advantages confirmed, points/hand: "
               f"{_position_line(r['confirmed_positions'])}")
    if r["runs"]:
        click.echo(f"runs kept in {r['runs']['measure']} and {r['runs']['confirm']}", err=True)
