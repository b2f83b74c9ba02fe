"""``mjlog plan``: how many hands a question needs, and how long they take here."""

from __future__ import annotations

import json

import click

from mjlog.metrics import METRICS
from simulate.estimate import duration


def _number(option: str):
    """A click callback reading a finite number above 0 (``nan``, ``inf``, ``-1``
    refused, naming the user's text)."""

    def read(ctx, param, value):
        if value is None:
            return None
        from mjlog.errors import InputError, finite_float, quote

        v = finite_float(value, option)
        if not v > 0:
            raise InputError(f"{option} must be above 0, got {quote(value)}")
        return v

    return read


@click.command("plan")
@click.argument("pilot", type=click.Path(exists=True, file_okay=False))
@click.argument("other", required=False, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--metric",
    required=True,
    help="The figure the question is about, as mjlog compare names it: "
    f"{', '.join(m.shown for m in METRICS)}.",
)
@click.option(
    "--detect",
    default=None,
    metavar="DIFFERENCE",
    callback=_number("--detect"),
    help="A rule change's effect to detect (in the metric's unit): "
    "shown to differ from 0 80 % of the time when the true difference "
    "is this.",
)
@click.option(
    "--margin",
    default=None,
    metavar="MARGIN",
    callback=_number("--margin"),
    help="An equivalence margin: 'equivalent within ±MARGIN' 80 % of the time "
    "when there is no difference (two one-sided tests).",
)
@click.option(
    "--within",
    default=None,
    metavar="TOLERANCE",
    callback=_number("--within"),
    help="A level to within ±TOLERANCE: one run whose figure is shown within "
    "±TOLERANCE of its true value (its 90 % interval inside the band, as mjlog tune "
    "confirms a target V±T) 80 % of the time; the pilot's value is taken as the truth.",
)
@click.option(
    "--paired/--unpaired",
    default=True,
    show_default=True,
    help="Paired by match (same seed: same walls, as mjlog compare pairs) or two independent runs.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Workers to time the plan on (default: every core here).",
)
@click.option(
    "--time-hands",
    type=click.IntRange(min=0),
    default=16,
    show_default=True,
    help="Hands of the pilot's variant, rules and agents to time here (0: no timing).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def plan_command(
    pilot, other, metric, detect, margin, within, paired, workers, time_hands, fmt
) -> None:
    """How many hands a question needs, from a PILOT run, and how long they take.

    PILOT is a run directory (a sweep point is one) or a sweep folder (its first two
    points). With one run the spread of a match comes from it, and a paired plan
    cannot know what pairing gains (it assumes nothing: an upper bound); with OTHER
    (a run on the same seed under the other rules), or a sweep folder, the paired
    spread is measured. The answer is matches and hands a side (two sides: the
    baseline and the change), at a two-sided 5 % test and 80 % power. With --within the
    answer is one run's size (a level, not a difference: OTHER is not read).

    Example: mjlog plan runs/pilot --metric draw_rate --detect 0.01 --workers 8

    Example: mjlog plan runs/pilot --metric 'pattern_rate[qidui]' --within 0.01
    """
    import duckdb

    from analysis.studies.plan import plan
    from mjlog.errors import InputError, MjlogError
    from simulate.runner import default_workers

    if sum(x is not None for x in (detect, margin, within)) != 1:
        raise InputError(
            "give one question: --detect DIFFERENCE, --margin MARGIN or --within TOLERANCE"
        )
    workers = workers or default_workers()
    try:
        p = plan(
            [pilot, *([other] if other else [])],
            metric.strip(),
            detect=detect,
            margin=margin,
            within=within,
            paired=paired,
            workers=workers,
            time_hands=time_hands,
        )
    except duckdb.Error as e:
        raise MjlogError(f"cannot read the pilot: {str(e).splitlines()[0]}") from None
    if fmt == "json":
        click.echo(json.dumps(p.as_dict(), ensure_ascii=False, allow_nan=False))
        return
    if p.question == "level":
        _say_level(p)
        return
    what = (
        f"detect a difference of {p.effect:g}"
        if p.question == "detect"
        else f"show equivalence within ±{p.effect:g}"
    )
    click.echo(
        f"question: {what} in {p.metric} ({p.unit}), "
        f"{'paired by match' if p.paired else 'unpaired'}; two-sided 5 % test, "
        f"80 % power"
    )
    click.echo(f"pilot: {', '.join(p.pilot)}: {p.how}; SD of a unit's difference {p.sd:.4g}")
    click.echo(
        f"as run: {p.compare_as} (its one primary metric, tested at 5 %; a compare "
        "without --primary adjusts over every metric and would need more)"
    )
    click.echo(
        f"needs: {p.matches:,} matches a side ({p.hands:,} hands a side, "
        f"{p.total_hands:,} in all; --matches {p.matches})"
    )
    _say_time(p, "a side")


def _say_level(p) -> None:
    """The text answer to --within: one run's size."""
    from mjlog.judgement import INTERVAL

    click.echo(
        f"question: {p.metric} ({p.unit}) shown within ±{p.effect:g} of its true value "
        f"by one run (its {INTERVAL:.0%} interval inside the band, as mjlog tune confirms "
        f"a target); 80 % power, the pilot's value taken as the truth"
    )
    click.echo(f"pilot: {', '.join(p.pilot)}: {p.how}; SD of a match's figure {p.sd:.4g}")
    click.echo(f"as run: {p.compare_as}, or any run of this size")
    click.echo(f"needs: {p.matches:,} matches ({p.hands:,} hands; --matches {p.matches})")
    _say_time(p, "")


def _say_time(p, per: str) -> None:
    if p.seconds is None or p.seconds_one_worker is None:
        click.echo(f"time: {p.timing}")
    else:
        click.echo(
            f"time: {duration(p.seconds)} on {p.workers} worker(s), "
            f"{duration(p.seconds_one_worker)} on one ({p.shards:,} shard(s)"
            f"{' ' + per if per else ''}); {p.timing}"
        )
