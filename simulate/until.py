"""``mjlog simulate --until METRIC=HALF_WIDTH --max-hands N``: play until a figure is precise.

Shards of whole matches are played in order into a scratch run (the run with
``N`` hands' worth of matches, next to ``--out``), ``--workers`` shards at a time.
After each batch the metric's 95% half-width (the match as the unit,
:func:`analysis.prefix.half_widths`, passed in) is computed on every prefix of complete
shards *in shard order*, and the first prefix of at least :data:`MIN_MATCHES`
matches whose half-width is above 0 and at most the target decides the number
of matches ``M``. The rule reads only the logged rows of that prefix, so
``M``, and with it every byte written, is the same for any number of workers
(batches only decide how much is played beyond ``M`` in scratch and thrown away).

The run's id hashes its number of matches, so the scratch rows (written under the
id of the ``N``-hand run) cannot be kept: the run of ``M`` matches is then played
into ``--out`` as ``--matches M`` would play it (byte-identical to it), and the
scratch run is removed. The price is playing the hands twice; the gain is an
ordinary, auditable run. The manifest records the rule under ``until``.
"""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mjlog.errors import InputError, MjlogError, quote

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
        raise InputError(f"bad --until {quote(text)}; expected METRIC=HALF_WIDTH, say "
                         f"dealer_advantage=0.1")
    half = finite_float(m.group(2), f"the half-width of --until {quote(text)}")
    if not half > 0:
        raise InputError(f"the half-width of --until {quote(text)} must be above 0")
    return m.group(1), half


def until_metrics(rules: Rules) -> list[str]:
    """Every metric ``--until`` can follow in a run under ``rules``: the headline
    figures of :func:`analysis.compare.precision`, a ``pattern_rate`` for each
    pattern a win can carry under those rules (a figure the run cannot have would
    never narrow: its half-width stays 0).

    >>> from mjlog.rules import resolve
    >>> until_metrics(resolve("yuxi", sets=["players=2"]))[:4]
    ['mean_points[0]', 'mean_points[1]', 'dealer_advantage', 'draw_rate']
    """
    return [*(f"mean_points[{p}]" for p in range(rules.n)), "dealer_advantage", "draw_rate",
            "mean_points_per_win", "money_moved_per_hand",
            *(f"pattern_rate[{k}]" for k in rules.spec.patterns(rules)), "capped_share"]


def check_metric(metric: str, rules: Rules) -> None:
    """Refuse, before any hand is played, a metric the run has not, naming the valid ones."""
    if metric in until_metrics(rules):
        return
    variant, players, patterns = rules.spec, rules.n, rules.spec.patterns(rules)
    pattern = re.fullmatch(r"pattern_rate\[(.*)\]", metric)
    if pattern:
        raise InputError(f"--until {quote(metric)}: {variant.name} has no pattern "
                         f"{quote(pattern.group(1))} under these rules; its patterns: "
                         f"{', '.join(patterns)}")
    raise InputError(f"unknown --until metric {quote(metric)} for {variant.name} with "
                     f"{players} players; valid: mean_points[0] to "
                     f"mean_points[{players - 1}], dealer_advantage, draw_rate, "
                     f"mean_points_per_win, money_moved_per_hand, capped_share, "
                     f"pattern_rate[PATTERN] (a {variant.name} pattern key, say "
                     f"{patterns[0]})")


def run_until(spec, out: str | Path, metric: str, half_width: float, max_hands: int,
              half_widths: HalfWidths, workers: int | None = None,
              progress: bool | None = None) -> tuple[dict, dict]:
    """Play ``spec`` (its ``matches`` ignored) until ``metric``'s 95% half-width is at most
    ``half_width`` or ``max_hands`` are played; returns (manifest, what the rule found).

    ``half_widths(run, metric, ends)`` measures the metric's 95% half-width on the
    matches [0, end) of a run, per end (the analysis layer's
    :func:`analysis.prefix.half_widths`, passed in: the batch layer measures nothing
    itself)."""
    from mjlog.logio import build_manifest, read_manifest, write_manifest
    from mjlog.rundir import RunClaim
    from simulate import runner

    check_metric(metric, spec.rules)
    if not 0 < half_width < math.inf:
        raise InputError(f"the --until half-width must be a finite number above 0, got "
                         f"{quote(half_width)}")
    per_match = spec.rotations * spec.hands_per_match
    max_matches = max_hands // per_match
    if max_matches < 1:
        raise InputError(f"--max-hands {max_hands} is less than one match ({per_match} hands)")
    # the same limits as --matches (log widths, shard count), before anything is played
    runner._check_numbers(spec.rules, spec.seed, max_matches, spec.hands_per_match,
                          spec.hands_per_shard, spec.duplicate, max_hands=max_hands)
    full = dataclasses.replace(spec, matches=max_matches)
    out = Path(out)
    scratch = out.parent / f".{out.name}.until-{full.run_id}"
    shards = full.shards()
    workers = max(1, workers or runner.default_workers())
    found = last = None
    with RunClaim(scratch, full.run_id, runner._fmt(full.layout())) as claim:
        runner._clean(scratch, shards)
        good = runner._verified_shards(full, scratch, shards, claim.journal())

        def finished(shard: int, entries: list[dict] | None = None) -> None:
            good[shard] = entries or runner._entries(full, scratch, shard)
            claim.record(shard, good[shard])

        checked = 0
        while found is None and checked < len(shards):
            batch = shards[checked:checked + workers]
            todo = [s for s in batch if s[0] not in good]
            runner._play(full, scratch, shards, todo, workers, progress, None,
                         f"until {metric}<={half_width:g}", finished)
            entries = [e for s, _a, _b in shards[:checked + len(batch)] for e in good[s]]
            write_manifest(scratch, build_manifest(full.meta(), entries, **full.layout()))
            ends = [b for _, _, b in batch]
            for end, hw in zip(ends, half_widths(scratch, metric, ends), strict=True):
                last = (end, hw)
                if end >= MIN_MATCHES and 0 < hw <= half_width:
                    found = last
                    break
            checked += len(batch)
    matches, hw = found or last
    final = dataclasses.replace(spec, matches=matches)
    if (out / "manifest.json").exists() and read_manifest(out).get("run_id") != final.run_id:
        raise MjlogError(f"{out} holds run {read_manifest(out).get('run_id')}, not the one "
                         f"--until chose ({final.run_id}, {matches} matches): choose "
                         f"another --out")
    manifest = runner.simulate(final, out, workers=workers, progress=progress)
    # undefined (NaN) on one match, or a per-win metric without a win: null in the JSON
    rule = {"metric": metric, "half_width": half_width, "max_hands": max_hands,
            "reached": found is not None,
            "achieved_half_width": hw if math.isfinite(hw) else None,
            "hands": matches * per_match}
    manifest = {**manifest, "until": rule}
    write_manifest(out, manifest)
    shutil.rmtree(scratch, ignore_errors=True)
    return manifest, rule
