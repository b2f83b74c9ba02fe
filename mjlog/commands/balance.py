"""``mjlog balance``: every seat position's advantage and its verdict, the dealer
compensation that cancels the dealer's, and its confirmation on fresh seeds
(:mod:`analysis.compensation`)."""

from __future__ import annotations

import json
import math

import click

from mjlog.commands.announce import announce, estimate, yes_option
from mjlog.commands.simulate import AgentsOption, interrupted, scheduler_callback
from mjlog.judgement import Verdict
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


def _margin(ctx, param, value):
    """``--margin``: a finite number above 0 (a refusal names the option)."""
    from mjlog.errors import InputError, finite_float

    if value is None:
        return None
    m = finite_float(value, "--margin")
    if not m > 0:
        raise InputError(f"--margin must be above 0 (points per hand), got {value!r}")
    return m


def _ci(e: dict, unit: str = "") -> str:
    return f"{e['value']:+.3f}{unit} [{e['lo']:+.3f}, {e['hi']:+.3f}]"


def _short(lever: dict) -> str:
    """A compensation as the rules say it, the base and unit only where they matter."""
    value = f"dealer_compensation={lever['dealer_compensation']}"
    if lever["dealer_compensation_unit"] == "base":
        return value
    return f"base={lever['base']}, dealer_compensation_unit=money, {value}"


def _why(p: dict) -> str:
    if p["verdict"] == Verdict.EQUIVALENT:
        nonzero = (
            f"; differs from 0 (p_adj {p['p_adjusted']:.2g}), by less than the margin"
            if p["differs_from_zero"]
            else ""
        )
        return f"equivalent (TOST p_adj {p['p_equivalence']:.2g}){nonzero}"
    if p["verdict"] == Verdict.DIFFERS:
        return f"differs from 0 (p_adj {p['p_adjusted']:.2g}), not shown within the margin"
    need = p["hands_needed"]
    more = f"; about {need:,.0f} hands would settle it" if need and math.isfinite(need) else ""
    return f"inconclusive (smallest detectable {p['mde']:.3f}{more})"


def _position_lines(rows: list[dict], n: int) -> list[str]:
    from analysis.compensation import position_name

    names = [f"position {p['position']} ({position_name(p['position'], n)}):" for p in rows]
    width = max(map(len, names))
    return [f"  {name:<{width}} {_ci(p)}  {_why(p)}" for name, p in zip(names, rows, strict=True)]


def _measured_text(r: dict) -> list[str]:
    who = ",".join(r["agents"])
    dup = (
        "duplicate play: each match once per seat rotation"
        if r["duplicate"]
        else "one agent in every seat: no rotations, they would replay the same hands"
    )
    ex, c, n = r["compensation_exact"], r["compensation"], r["players"]
    pooled = (
        f"; measured on {r['measured_hands']:,} hands, pooled with {', '.join(r['pooled_runs'])}"
        if r.get("pooled_runs")
        else ""
    )
    lines = [
        f"{r['variant']}, agents {who}, seed {r['seed']}: {r['hands']} hands per run "
        f"({r['matches']} matches of {r['hands'] // r['matches']} hands, {dup}){pooled}; "
        f"95% CIs, the match as the unit; points/hand = money ÷ base",
        f"equivalence margin ±{r['margin']:.3f} points/hand; p-values adjusted "
        f"(Benjamini-Hochberg) across the {n} positions",
        f"measured with the rules as given ({_short(r['measured_compensation'])}), each "
        f"position's mean minus the others', points/hand:",
        *_position_lines(r["positions"], n),
    ]
    adv = r["dealer_advantage"]
    if r["changes"]:
        sets = " ".join(f"--set {s}" for s in r["compensation_sets"])
        lines.append(
            f"compensation that cancels the dealer's advantage: {ex['value']:+.4f} points "
            f"[{ex['lo']:+.4f}, {ex['hi']:+.4f}] the dealer pays each other player per hand "
            f"-> {sets} ({c['points']:+.4f} points; one step moves the dealer advantage by "
            f"{r['resolution']:.3f} points/hand; expected residual "
            f"{r['expected_residual']:+.3f})"
        )
    if not r["changes"]:
        lines.append(
            f"compensation that cancels the dealer's advantage: {ex['value']:+.4f} points "
            f"[{ex['lo']:+.4f}, {ex['hi']:+.4f}] the dealer pays each other player per hand; "
            f"no playable compensation beats {_short(r['measured_compensation'])}: the "
            f"nearest step ({r['resolution']:.3f} points/hand) rounds to it; no second run, "
            f"the verdict rests on the measurement"
        )
    if adv["lo"] <= 0 <= adv["hi"]:
        lines.append(
            f"  the dealer advantage's interval {_ci(adv)} holds 0: the measurement does "
            "not show one, so that compensation is a point estimate the data do not tell "
            "from none"
        )
    return lines


def _headline(r: dict) -> str:
    from analysis.compensation import position_name

    n, m = r["players"], f"±{r['margin']:.3f} points/hand"
    rules = _short(r["compensation"])
    rows = r["confirmed_positions"]
    if r["verdict"] == Verdict.EQUIVALENT:
        head = f"verdict: equivalent: every position within {m} with {rules}"
        nonzero = [p for p in rows if p["differs_from_zero"]]
        if nonzero:
            head += (
                " ("
                + ", ".join(
                    f"position {p['position']} ({position_name(p['position'], n)}) {_ci(p)}"
                    for p in nonzero
                )
                + " differ from 0, by less than the margin)"
            )
    elif r["verdict"] == Verdict.DIFFERS:
        off = ", ".join(
            f"position {p['position']} ({position_name(p['position'], n)}) {_ci(p)}"
            for p in rows
            if p["verdict"] == Verdict.DIFFERS
        )
        head = f"verdict: differs from 0 (margin {m}) with {rules}: {off}"
    else:
        need = r["hands_needed"]
        more = (
            f"; about {need:,.0f} hands per run would settle it"
            if need and math.isfinite(need)
            else ""
        )
        head = (
            f"verdict: inconclusive: with {rules}, a position neither shown within "
            f"{m} nor shown to differ from 0{more}"
        )
    top = r["largest"]
    if top["position"] != 0:
        head += (
            f"; the most advantaged is position {top['position']} "
            f"({position_name(top['position'], n)}, not the dealer) {_ci(top)}: "
            f"dealer_compensation moves the dealer against the rest, not it"
        )
    else:
        head += f"; the dealer is the most advantaged position {_ci(top)}"
    return head


@click.command("balance")
@click.argument("variant", type=click.Choice(VARIANTS))
@click.option(
    "--agents",
    cls=AgentsOption,
    default="strategic",
    show_default=True,
    help="Comma-separated line-up, one per seat, or one for all.",
)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a rule key.")
@click.option(
    "--hands",
    type=click.IntRange(min=1),
    default=20000,
    show_default=True,
    help="At least this many hands per run (whole duplicate matches, two at least).",
)
@click.option("--hands-per-match", type=click.IntRange(min=1), default=8, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="The measurement's seed; the confirmation plays a seed derived from it.",
)
@click.option(
    "--margin",
    default=None,
    metavar="M",
    callback=_margin,
    help="Equivalence margin, points per hand: a position whose advantage is "
    "shown within ±M is balanced. [default: 0.1]",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: every core).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    callback=scheduler_callback,
    help="Play the shards on this dask.distributed scheduler instead "
    "(tcp://host:8786); needs --out, which its workers must see. The "
    "figures are the same as on local workers.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Keep the two runs here (DIR/measure, DIR/confirm; a rerun resumes "
    "them). Default: a temporary directory, removed.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: one object (documented in docs/cli.md).",
)
@click.option(
    "--runs",
    "pooled",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    metavar="RUN",
    help="A run already played with the same variant, rules and line-up on another "
    "seed, pooled match by match with the measure run (repeatable; checked).",
)
@click.option("--quiet", is_flag=True, help="No estimate and no progress bar.")
@yes_option
def balance_command(
    variant,
    agents,
    sets,
    hands,
    hands_per_match,
    seed,
    margin,
    workers,
    scheduler,
    out,
    fmt,
    pooled,
    quiet,
    yes,
) -> None:
    """Measure every seat position's advantage, propose the dealer compensation
    that cancels the dealer's, and confirm it on fresh seeds.

    The verdict is equivalence within a margin (two one-sided tests at every
    position, p-values adjusted across them): equivalent (a position within the
    margin is balanced even if shown to differ from 0, which the text names),
    differs, or inconclusive with the hands that would settle it. The compensation is
    proposed at a step of at most half the margin (a larger base, paid in money);
    the confirmation plays it on a seed derived from --seed (no second run when the
    proposal is the rules measured).

    Example: mjlog balance yuxi --hands 4000 --seed 1 --format json
    """
    from mjlog.errors import InputError
    from mjlog.rundir import check_output

    if scheduler is not None and out is None:  # before anything is played
        raise InputError(
            "balance on a --scheduler needs --out: the cluster's workers write the runs there"
        )
    if out is not None:
        check_output(out, "--out")  # before anything is played: a refusal is instant
    from analysis.compensation import MARGIN
    from analysis.studies.balance import balance_study

    try:
        r = balance_study(
            variant,
            agents.split(","),
            hands,
            seed,
            sets,
            hands_per_match,
            workers=workers,
            out=out,
            progress=None if not quiet else False,
            margin=MARGIN if margin is None else margin,
            scheduler=scheduler,
            runs=pooled,
            on_plan=lambda specs, n: announce(
                "balance",
                f"a measure run of {specs[0].total_hands:,} and at most a confirmation as large",
                estimate(specs, workers, hands=n),
                quiet,
                yes,
            ),
        )
    except KeyboardInterrupt as e:
        interrupted(e)
    if fmt == "json":
        click.echo(json.dumps(_clean(r), ensure_ascii=False, indent=1, allow_nan=False))
        return
    click.echo(_headline(r))  # the verdict first; what it rests on and the proposal after
    for line in _measured_text(r):
        click.echo(line)
    if r["changes"]:
        click.echo(
            f"confirmed on fresh seeds (seed {r['confirm_seed']}, derived from "
            f"{r['seed']}) with {', '.join(r['compensation_sets'])}:"
        )
        for line in _position_lines(r["confirmed_positions"], r["players"]):
            click.echo(line)
    if r["runs"]:
        click.echo(f"runs kept in {r['runs']['measure']} and {r['runs']['confirm']}", err=True)
