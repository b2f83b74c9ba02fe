"""``mjlog tune VARIANT``: propose the rule values that meet a designer's targets, or
(``--rescore``) a pattern table whose values track how rarely play makes each."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click
from click.core import ParameterSource

from mjlog.commands.announce import announce, estimate, yes_option
from mjlog.commands.simulate import AgentsOption, interrupted, scheduler_callback
from mjlog.errors import InputError, quote
from mjlog.extras import require
from mjlog.rules import VARIANTS


class BudgetType(click.ParamType):
    """A number of hands (64 or more), or ``auto``."""

    name = "HANDS|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        return click.IntRange(min=64).convert(value, param, ctx)


@click.command("tune")
@click.argument("variant", type=click.Choice(VARIANTS))
@click.argument("patterns", nargs=-1, metavar="[PATTERN]...")
@click.option(
    "--rescore",
    is_flag=True,
    help="Propose a whole pattern table instead: each PATTERN's value (all of "
    "the table when none is named) follows how rarely play makes it, the "
    "order kept, played again until the table stops changing.",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1, max=50),
    default=6,
    show_default=True,
    help="--rescore: the most rounds of play toward the fixed point.",
)
@click.option(
    "--vary",
    "vary",
    multiple=True,
    metavar="KEY=LO:HI|KEY=a|b",
    help="A rule key the search may move: KEY=LO:HI[:STEP] (every integer from LO to "
    "HI, by STEP: cap=8:32 is 8, 9, …, 32, a cap in fan or points, not powers of two; "
    "a power-of-two key such as xuezhan's mult.*: the powers of two between), "
    "KEY=S1/D1:S2/D2 (a self-draw/discard pair, along the line between), or "
    "KEY=a|b|c (these values). Repeatable.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="METRIC=V±TOL|METRIC<=V",
    help="A figure of `mjlog compare` and what it should be: METRIC=VALUE±TOL "
    "(or +-), METRIC<=VALUE, METRIC>=VALUE. Repeatable.",
)
@click.option(
    "--weight",
    "weights",
    multiple=True,
    metavar="METRIC=W",
    help="How much a target counts in the search's loss (default 1 each).",
)
@click.option(
    "--agents",
    cls=AgentsOption,
    default="strategic",
    show_default=True,
    help="The line-up the rules are tuned under (one spec for all seats, or one per seat).",
)
@click.option(
    "--recheck",
    "rechecks",
    multiple=True,
    metavar="AGENTS",
    help="After the tune, judge the proposal again under this line-up (say "
    "expert, or a plugin) on the confirmation's walls. Repeatable.",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Hold another rule key at this value throughout.",
)
@click.option(
    "--budget",
    type=BudgetType(),
    default="20000",
    show_default=True,
    help="Hands in all: half explore, a quarter race the best, a quarter confirm; "
    "'auto': the hands at which every V±TOL target is confirmable with 80 % power, "
    "sized on a pilot of the rules as they are (OUT/pilot), at most --max-hands.",
)
@click.option(
    "--max-hands",
    type=click.IntRange(min=64),
    default=200000,
    show_default=True,
    help="--budget auto: the most hands it may take.",
)
@click.option(
    "--trials",
    type=click.IntRange(min=2, max=500),
    default=16,
    show_default=True,
    help="Candidates explored (the rules as they are first).",
)
@click.option("--hands-per-match", type=click.IntRange(min=1), default=8, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=2**31 - 1),
    default=0,
    show_default=True,
    help="The shared walls' seed; the confirmation's is derived.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes (default: every core).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    callback=scheduler_callback,
    help="Play the trials' shards on this dask.distributed scheduler "
    "(tcp://host:8786; the workers must see --out).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Directory of the tune: tune.json, rules.toml and every run.",
)
@click.option(
    "--play-all",
    is_flag=True,
    help="Play every run, even one that could be settled from another run's "
    "logged play (only money-only keys differ and no agent reads money): "
    "the same answer, for checking; settling costs a replay, not a game.",
)
@click.option(
    "--keep-order/--no-keep-order",
    default=True,
    show_default=True,
    help="Propose no pattern value that breaks its table's containment order (a "
    "pattern never pays less than one it contains), as --rescore keeps it.",
)
@click.option("--quiet", is_flag=True, help="No estimate and no progress lines.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@yes_option
def tune_command(
    variant,
    patterns,
    rescore,
    rounds,
    vary,
    targets,
    weights,
    agents,
    rechecks,
    sets,
    budget,
    max_hands,
    trials,
    hands_per_match,
    seed,
    workers,
    scheduler,
    out,
    play_all,
    keep_order,
    quiet,
    fmt,
    yes,
) -> None:
    """Search the rule values that bring the TARGETs where the designer wants them.

    Every candidate is played on the same walls (paired), the best few race on
    more, and the winner is confirmed on a fresh seed: each target is called met,
    not met or inconclusive there, with its interval (met: its 90 % interval inside
    the tolerance, compare's test of equivalence at 5 %). Writes OUT/rules.toml
    (the proposal, each key with its evidence, for --rules) and OUT/tune.json
    (every trial). Rerun the same command to resume; how it searches:
    analysis/studies/tune/.

    Example: mjlog tune huangmei --vary fan.qidui=5:60:5
    --target 'pattern_rate[qidui]=0.05±0.01' --budget 20000 --out runs/qidui

    With --rescore [PATTERN]... it proposes a pattern table instead (no --vary or
    --target): each value follows how rarely play makes its pattern, the order
    kept, replayed until the table stops changing (analysis/studies/rescore.py), then
    the old and new tables are confirmed side by side on a fresh seed.
    """
    from analysis.studies import tune
    from mjlog.rules import resolve

    ctx = click.get_current_context()
    given = [
        f"--{n}"
        for n in ("trials", "rounds")
        if ctx.get_parameter_source(n) is not ParameterSource.DEFAULT
    ]
    for flag, spec in (("--agents", agents), *(("--recheck", r) for r in rechecks)):
        if any(ord(c) < 32 or ord(c) == 127 for c in spec):
            raise InputError(f"{flag} {quote(spec)}: an agent spec has no control characters")
    seats = tuple(a.strip() for a in agents.split(","))
    say = None if quiet else (lambda line: print(line, file=sys.stderr, flush=True))

    def announced() -> None:
        """Hands and time before the first hand (docs/cli.md, 'Long work')."""
        from simulate.runner import RunSpec

        probe = RunSpec.build(variant, seed, 2, hands_per_match, list(seats), sets=list(sets))
        hands = budget + len(rechecks) * (budget // 4)  # a recheck replays the confirmation
        what = "--budget" + (f" and {len(rechecks)} recheck(s)" if rechecks else "")
        announce("tune", what, estimate([probe], workers, hands=hands), quiet, yes)

    if rescore:
        mixed = [
            f
            for f, v in (
                ("--vary", vary),
                ("--target", targets),
                ("--weight", weights),
                ("--trials", "--trials" in given),
            )
            if v
        ]
        if budget == "auto":
            mixed.append("--budget auto")
        if mixed:
            raise InputError(
                f"--rescore proposes a whole pattern table: it takes no "
                f"{', '.join(mixed)} (tune those in a run of their own)"
            )
        _rescore(
            variant,
            patterns,
            rounds,
            seats,
            sets,
            budget,
            hands_per_match,
            seed,
            workers,
            scheduler,
            out,
            say,
            fmt,
            not play_all,
            announced,
        )
        return
    require("optuna", "tune", "mjlog tune --vary")
    if patterns:
        raise InputError(f"{quote(patterns[0])}: patterns are named only with --rescore")
    if "--rounds" in given:
        raise InputError("--rounds counts the rounds of --rescore; a tune with --vary has --trials")
    base = resolve(variant, sets=list(sets))
    spec_vary = tune.parse_vary(vary, variant)
    if not targets:
        raise InputError("tune needs at least one --target METRIC=... (or --rescore)")
    weight_of = tune.parse_weights(weights)
    goal = [tune.parse_target(t, weight_of) for t in targets]
    tune.check_targets(goal, base, spec_vary)
    if unknown := set(weight_of) - {t.metric for t in goal}:
        raise InputError(f"--weight names {', '.join(sorted(unknown))}, which no --target has")
    if clash := {v.key for v in spec_vary} & {s.partition("=")[0].strip() for s in sets}:
        raise InputError(f"{', '.join(sorted(clash))}: both varied (--vary) and held (--set)")
    other = [[a.strip() for a in r.split(",")] for r in rechecks]
    from simulate.agents import make_agents

    for lineup in other:
        make_agents(lineup)  # an unknown agent is refused before any hand
    if budget == "auto":
        budget = _auto(variant, goal, seats, sets, hands_per_match, seed, max_hands, out, say)
    plan = tune.Plan(
        variant,
        tuple(spec_vary),
        tuple(goal),
        seats,
        tuple(sets),
        budget,
        trials,
        hands_per_match,
        seed,
        keep_order,
    )
    if plan.split()[0] < 1:
        raise InputError("--budget is too small for --trials")
    _check_budget(plan, base)
    announced()
    _finish(
        lambda: tune.Tuner(
            plan, out, workers=workers, scheduler=scheduler, progress=say, settle=not play_all
        ).run(other),
        tune,
        plan,
        out,
        fmt,
    )


def _auto(variant, goal, seats, sets, hands_per_match, seed, max_hands, out, say) -> int:
    """``--budget auto``: the pilot (played, or found complete in OUT/pilot), then the
    budget it sizes (:func:`analysis.studies.tune.sizing.auto_budget`)."""
    from pathlib import Path

    from analysis.studies.tune import measure, sizing
    from mjlog.rng import derive
    from simulate.runner import RunSpec, simulate

    matches = max(2, sizing.PILOT_HANDS // hands_per_match)
    spec = RunSpec.build(
        variant, derive(seed, 6) % 2**31, matches, hands_per_match, list(seats), sets=list(sets)
    )
    run = Path(out) / sizing.PILOT
    simulate(spec, run, progress=False)
    budget, rows = sizing.auto_budget(
        tuple(goal), measure(run, [t.metric for t in goal]), hands_per_match, max_hands
    )
    if say:
        why = ", ".join(
            f"{t.metric} needs {max(r['hands_needed'], r['hands_to_propose']):,} to propose "
            f"and confirm it, {r['hands_needed']:,} to confirm it at its centre"
            for t, r in zip(goal, rows, strict=True)
            if r["hands_needed"] is not None
        )
        capped = " (capped by --max-hands)" if budget == max_hands else ""
        say(
            f"tune: --budget auto: {budget:,} hands{capped}, sized on a pilot of "
            f"{spec.total_hands} hands ({why or 'no target has a width to reach'})"
        )
    return budget


def _check_budget(plan, base) -> None:
    """Refuse a --budget whose runs the log cannot hold, naming --budget."""
    from simulate.runner import RunSpec

    largest = max(plan.split())
    try:
        RunSpec.build(
            plan.variant,
            plan.seed,
            largest,
            plan.hands_per_match,
            list(plan.agents),
            sets=list(plan.sets),
        )
    except InputError as e:
        raise InputError(
            f"--budget {plan.budget} is beyond the log's limits: its largest run would "
            f"be {largest:,} matches ({e})"
        ) from None


def _rescore(
    variant,
    patterns,
    rounds,
    seats,
    sets,
    budget,
    hands_per_match,
    seed,
    workers,
    scheduler,
    out,
    say,
    fmt,
    settle: bool,
    announced: Callable[[], None],
) -> None:
    """``--rescore``: the table, to a fixed point, confirmed (analysis/studies/rescore.py);
    ``announced`` once the patterns are known good, before the first hand."""
    from analysis.studies import rescore
    from mjlog.rules import resolve

    named = rescore.parse_patterns(list(patterns), resolve(variant, sets=list(sets)))
    plan = rescore.RescorePlan(
        variant, named, seats, tuple(sets), budget, rounds, hands_per_match, seed
    )
    announced()
    _finish(
        lambda: rescore.Rescorer(
            plan, out, workers=workers, scheduler=scheduler, progress=say, settle=settle
        ).run(),
        rescore,
        plan,
        out,
        fmt,
    )


def _finish(search, module, plan, out, fmt: str) -> None:
    """Run a tune's ``search`` (Ctrl-C: one line, resumable), write its files with
    ``module.write_outputs`` and print its JSON or ``module.summary``."""
    try:
        result = search()
    except KeyboardInterrupt as e:
        interrupted(e)
    module.write_outputs(result, plan, out)
    if fmt == "json":
        click.echo(json.dumps(result, ensure_ascii=False, allow_nan=False))
        return
    click.echo(module.summary(result))
