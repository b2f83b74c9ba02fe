"""``mjlog simulate --until METRIC=HALF_WIDTH --max-hands N``: play until a figure is precise.

Two passes, so that the figures reported do not come from the hands the stopping
rule chose.

1. **The stopping pass.** Shards of whole matches are played in order into a scratch
   run (the run with ``N`` hands' worth of matches on the given seed, next to
   ``--out``), ``--workers`` shards at a time. After each batch the metric's 95%
   half-width (the match as the unit; a rate's interval never zero-width:
   :func:`analysis.prefix.half_widths`, passed in) is computed on every prefix of
   complete shards *in shard order*, and the first prefix of at least
   :data:`MIN_MATCHES` matches whose half-width is above 0 and at most the target
   decides the number of matches ``M`` (:func:`stopping_rule`). The rule reads only
   the logged rows of that prefix, so ``M``, and with it every byte written, is the
   same for any number of workers.
2. **The run.** ``M`` matches are played into ``--out`` on a *fresh seed*
   (:func:`fresh_seed`, derived from the given one), exactly as ``--seed FRESH
   --matches M`` would play them, and the scratch run is removed. A rule that stops
   when a figure happens to look precise picks a prefix whose figure is off in a
   direction the rule favours (a rare rate stopped low: 12–16 % low with small
   shards, its interval covering 83 % of the time); the fresh hands are independent
   of that choice, so their figures and intervals are ordinary ones on ``M``
   matches (``tests/batch/test_until.py`` measures the coverage).

The manifest records the rule under ``until``: the metric, target and
``--max-hands``, whether it was ``reached``, the stopping pass's
``achieved_half_width`` and ``stopping_seed``, the ``matches``/``hands`` chosen, the
run's ``seed`` and its own ``run_half_width`` (which may land either side of the
target: it is a new sample). The price is playing ``M`` matches twice.
"""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mjlog.errors import InputError, MjlogError, quote
from mjlog.metrics import names, pattern_of, plain

if TYPE_CHECKING:
    from mjlog.rules import Rules

HalfWidths = Callable[[Path, str, Sequence[int]], list[float]]

MIN_MATCHES = 30
"""No stop on fewer matches: a small prefix can show no spread at all (no drawn hand
yet), and a zero-width interval from it says nothing."""

_UNTIL = re.compile(r"^\s*([a-z_]+(?:\[[a-z0-9_]+\])?)\s*=\s*(\S+)\s*$")


def parse_until(text: str) -> tuple[str, float]:
    """``METRIC=HALF_WIDTH`` → (metric, half-width): a finite half-width above 0
    (the metric is checked against the run by :func:`check_metric`).

    >>> parse_until("dealer_advantage=0.1")
    ('dealer_advantage', 0.1)
    >>> parse_until("mean_points[0]=0.05")
    ('mean_points[0]', 0.05)
    """
    from mjlog.errors import finite_float

    m = _UNTIL.match(text)
    if not m:
        raise InputError(
            f"bad --until {quote(text)}; expected METRIC=HALF_WIDTH, say dealer_advantage=0.1"
        )
    half = finite_float(m.group(2), f"the half-width of --until {quote(text)}")
    if not half > 0:
        raise InputError(f"the half-width of --until {quote(text)} must be above 0")
    return m.group(1), half


def until_metrics(rules: Rules) -> list[str]:
    """Every metric ``--until`` can follow in a run under ``rules`` (:mod:`mjlog.metrics`):
    the headline figures of :func:`analysis.compare.precision`, a ``pattern_rate`` for each
    pattern a win can carry under those rules (a figure the run cannot have would
    never narrow: its half-width stays 0).

    >>> from mjlog.rules import resolve
    >>> until_metrics(resolve("yuxi", sets=["players=2"]))[:4]
    ['mean_points[0]', 'mean_points[1]', 'dealer_advantage', 'draw_rate']
    """
    return names(rules.n, rules.spec.patterns(rules))


def check_metric(metric: str, rules: Rules) -> None:
    """Refuse, before any hand is played, a metric the run has not, naming the valid ones."""
    if metric in until_metrics(rules):
        return
    variant, players, patterns = rules.spec, rules.n, rules.spec.patterns(rules)
    pattern = pattern_of(metric)
    if pattern is not None:
        raise InputError(
            f"--until {quote(metric)}: {variant.name} has no pattern "
            f"{quote(pattern)} under these rules; its patterns: "
            f"{', '.join(patterns)}"
        )
    raise InputError(
        f"unknown --until metric {quote(metric)} for {variant.name} with "
        f"{players} players; valid: mean_points[0] to "
        f"mean_points[{players - 1}], {', '.join(plain())}, "
        f"pattern_rate[PATTERN] (a {variant.name} pattern key, say "
        f"{patterns[0]})"
    )


def run_until(
    spec,
    out: str | Path,
    metric: str,
    half_width: float,
    max_hands: int,
    half_widths: HalfWidths,
    workers: int | None = None,
    progress: bool | None = None,
    on_plan: Callable[[Any, int], None] | None = None,
) -> tuple[dict, dict]:
    """Play ``spec`` (its ``matches`` ignored) until ``metric``'s 95% half-width is at most
    ``half_width`` or ``max_hands`` are played; returns (manifest, what the rule found).

    ``half_widths(run, metric, ends)`` measures the metric's 95% half-width on the
    matches [0, end) of a run, per end (the analysis layer's
    :func:`analysis.prefix.half_widths`, passed in: the batch layer measures nothing
    itself). ``on_plan(spec, hands)`` is told the most it may play before the first
    hand (it may refuse by raising)."""
    from mjlog.logio import build_manifest, read_manifest, write_manifest
    from mjlog.rundir import RunClaim
    from simulate import runner
    from simulate.spec import check_numbers

    check_metric(metric, spec.rules)
    if not 0 < half_width < math.inf:
        raise InputError(
            f"the --until half-width must be a finite number above 0, got {quote(half_width)}"
        )
    per_match = spec.rotations * spec.hands_per_match
    max_matches = max_hands // per_match
    if max_matches < 1:
        raise InputError(f"--max-hands {max_hands} is less than one match ({per_match} hands)")
    # the same limits as --matches (log widths, shard count), before anything is played
    check_numbers(
        spec.rules,
        spec.seed,
        max_matches,
        spec.hands_per_match,
        spec.hands_per_shard,
        spec.duplicate,
        max_hands=max_hands,
    )
    full = dataclasses.replace(spec, matches=max_matches)
    out = Path(out)
    fresh = fresh_seed(spec.seed)
    _check_out(out, spec, fresh)
    if on_plan is not None:  # told the most it may play, once every check passed
        on_plan(full, max_matches * per_match)
    scratch = out.parent / f".{out.name}.until-{full.run_id}"
    shards = full.shards()
    workers = max(1, workers or runner.default_workers())
    with RunClaim(scratch, full.run_id, runner.layout_text(full.layout())) as claim:
        runner.clean_shards(scratch, shards)
        good = runner.verified_shards(full, scratch, shards, claim.journal())

        def finished(shard: int, entries: list[dict] | None = None, _settled: bool = False) -> None:
            good[shard] = entries or runner.written_entries(full, scratch, shard)
            claim.record(shard, good[shard])

        def play(first: int, end: int) -> None:
            todo = [s for s in shards[first:end] if s[0] not in good]
            runner.play_shards(
                full,
                scratch,
                shards,
                todo,
                workers,
                progress,
                None,
                f"until {metric}<={half_width:g}",
                finished,
            )
            entries = [e for s, _a, _b in shards[:end] for e in good[s]]
            write_manifest(scratch, build_manifest(full.meta(), entries, **full.layout()))

        matches, hw, reached = stopping_rule(
            [b for _, _, b in shards],
            workers,
            play,
            lambda ends: half_widths(scratch, metric, ends),
            half_width,
        )
    final = dataclasses.replace(spec, seed=fresh, matches=matches)
    try:
        if (out / "manifest.json").exists() and read_manifest(out).get("run_id") != final.run_id:
            raise MjlogError(
                f"{out} holds run {read_manifest(out).get('run_id')}, not the "
                f"one --until chose ({final.run_id}, {matches} matches): "
                f"choose another --out"
            )
        manifest = runner.simulate(final, out, workers=workers, progress=progress)
    except MjlogError:  # refused: nothing is left beside --out (Ctrl-C keeps it, to resume)
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    run_hw = half_widths(out, metric, [matches])[0]
    # undefined (NaN) on one match, or a per-win metric without a win: null in the JSON
    rule = {
        "metric": metric,
        "half_width": half_width,
        "max_hands": max_hands,
        "reached": reached,
        "achieved_half_width": _finite(hw),
        "matches": matches,
        "hands": matches * per_match,
        "stopping_seed": spec.seed,
        "seed": final.seed,
        "run_half_width": _finite(run_hw),
    }
    manifest = {**manifest, "until": rule}
    write_manifest(out, manifest)
    shutil.rmtree(scratch, ignore_errors=True)
    return manifest, rule


def _check_out(out: Path, spec, fresh: int) -> None:
    """Refuse, before the stopping pass plays anything, an ``--out`` the run cannot be
    written to: what :class:`~mjlog.rundir.RunClaim` refuses without a run id, and a
    run that no ``--until`` of these options writes (another seed, rules or agents)."""
    from mjlog.logio import read_manifest
    from mjlog.rundir import check_claimable

    check_claimable(out)
    if (out / "manifest.json").exists():
        old = read_manifest(out)
        m = old.get("matches")
        ours = (
            isinstance(m, int)
            and not isinstance(m, bool)
            and m >= 1
            and dataclasses.replace(spec, seed=fresh, matches=m).run_id == old.get("run_id")
        )
        if not ours:
            raise MjlogError(
                f"{out} holds run {old.get('run_id')}, not one --until writes "
                f"with these options (seed {fresh}, derived from --seed "
                f"{spec.seed}): choose another --out"
            )


def _finite(v: float) -> float | None:
    return v if math.isfinite(v) else None


def stopping_rule(
    ends: Sequence[int],
    batch: int,
    play: Callable[[int, int], None],
    measure: Callable[[Sequence[int]], list[float]],
    target: float,
) -> tuple[int, float, bool]:
    """The rule ``--until`` stops by, on any source of matches: shards, ending at the
    matches ``ends``, are played ``batch`` at a time in order (``play(i, j)`` makes
    shards [i, j) available), then ``measure(ends)`` gives the metric's half-width on
    the matches [0, end) per end of the batch; the first end of at least
    :data:`MIN_MATCHES` matches whose half-width is above 0 and at most ``target``
    is chosen. Returns (matches, its half-width, whether the target was reached);
    unreached, the last end.

    >>> width = {10: 0.3, 20: 0.2, 30: 0.15, 40: 0.1}
    >>> stopping_rule([10, 20, 30, 40], 2, lambda i, j: None,
    ...               lambda ends: [width[e] for e in ends], 0.2)
    (30, 0.15, True)
    """
    last = (0, math.nan)
    for first in range(0, len(ends), batch):
        chunk = ends[first : first + batch]
        play(first, first + len(chunk))
        for end, hw in zip(chunk, measure(chunk), strict=True):
            last = (end, hw)
            if end >= MIN_MATCHES and 0 < hw <= target:
                return end, hw, True
    return last[0], last[1], False


FRESH = 0x756E74696C  # "until" in ASCII: the tag of the derived seed
"""Mixed with the user's seed into the seed of the run ``--until`` writes."""


def fresh_seed(seed: int) -> int:
    """The seed of the run ``--until`` writes: derived from the stopping pass's
    ``seed`` (:func:`mjlog.rng.derive`), so its walls, dealers and agents' choices
    are not the ones the rule stopped on; below 2**53, exact in any JSON reader.

    >>> fresh_seed(3) == fresh_seed(3) != 3
    True
    """
    from mjlog.rng import derive

    s = derive(seed, FRESH) % 2**53
    return s if s != seed else s + 1
