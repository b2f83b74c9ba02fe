"""The balance study played: measure the dealer's advantage on a run, decide, propose
a compensation and confirm it on fresh walls (the decisions are
:mod:`analysis.compensation`'s)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from analysis.compensation import (
    COMPENSATION_UNIT,
    CONFIRM,
    MARGIN,
    UNIT,
    Lever,
    decide_positions,
    interval,
    positions,
    propose,
    scale_for,
    study_verdict,
)
from mjlog.errors import InputError
from mjlog.judgement import Verdict


def balance_study(
    variant: str,
    agents: Sequence[str],
    hands: int,
    seed: int = 0,
    sets: Sequence[str] = (),
    hands_per_match: int = 8,
    workers: int | None = None,
    out: str | Path | None = None,
    progress: bool | None = False,
    margin: float = MARGIN,
    scheduler: str | None = None,
    on_measured: Callable[[dict], None] | None = None,
    on_plan: Callable[[list[Any], int], None] | None = None,
    runs: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Measure, decide, propose, confirm (the module docstring): at least ``hands``
    hands of play per run, the runs written under ``out`` (``measure`` and
    ``confirm``) or in a temporary directory removed afterwards. ``scheduler``
    plays the shards on that dask.distributed scheduler (its workers write the
    runs, so it needs ``out``). ``on_measured`` is told the measurement and the
    proposal before the confirmation run starts; ``on_plan(specs, hands)`` the
    measure run and the hands of both runs before any is played (it may refuse by
    raising). ``runs``: runs already played under the same variant, rules and
    line-up, on other seeds (:func:`pooled_runs` checks them), pooled match by
    match with the measure run. Returns the figures
    ``mjlog balance --format json`` prints (docs/cli.md)."""
    from mjlog.rng import derive
    from simulate.runner import RunSpec, simulate
    from simulate.spec import study_shard_hands

    if scheduler is not None and out is None:
        raise InputError(
            "balance on a --scheduler needs --out: the cluster's workers write the runs there"
        )
    probe = RunSpec.build(variant, seed, 1, hands_per_match, agents, sets=sets)
    # One agent in every seat: its rotations would replay the same hands (each seat's
    # choices come from that seat's seeded stream), so duplicate play only for a mix.
    duplicate = len(set(probe.agents)) > 1
    per_match = (probe.rules.n if duplicate else 1) * hands_per_match
    matches = max(2, -(-hands // per_match))  # two at least: an interval needs them

    def build(root: int, extra: Sequence[str] = ()) -> RunSpec:
        return RunSpec.build(
            variant,
            root,
            matches,
            hands_per_match,
            agents,
            sets=[*sets, *extra],
            duplicate=duplicate,
            events=False,
            hands_per_shard=study_shard_hands(
                matches, hands_per_match, per_match // hands_per_match
            ),
        )

    spec = build(seed)
    pooled, pooled_hands = pooled_runs(spec, runs)
    if on_plan is not None:  # the measure run and, at most, a confirmation as large
        on_plan([spec], 2 * spec.total_hands)
    n, current = spec.rules.n, Lever.of(spec.rules)
    confirm_seed = derive(seed, CONFIRM)
    with tempfile.TemporaryDirectory(prefix="mjlog-balance-") as scratch:
        root = Path(out) if out is not None else Path(scratch)
        measured_dir = root / "measure"
        simulate(
            spec,
            measured_dir,
            workers=workers,
            progress=progress,
            desc="measure",
            scheduler=scheduler,
        )
        measured_hands = spec.total_hands + pooled_hands
        measured = decide_positions(positions([measured_dir, *pooled]), margin, measured_hands)
        adv = measured[0]
        scale = scale_for(n, current.base, margin)
        while True:  # the finest base whose money the log can hold
            exact, lever, step = propose(adv["value"], n, current, margin, scale)
            try:
                confirm_spec = None if lever == current else build(confirm_seed, lever.sets())
                break
            except InputError:
                if scale == 1:
                    raise
                scale //= 10
        lo, hi = (current.points + adv[k] / n for k in ("lo", "hi"))
        result: dict[str, Any] = {
            "variant": variant,
            "agents": list(spec.agents),
            "seed": seed,
            "players": n,
            "base": current.base,
            "duplicate": duplicate,
            "hands": spec.total_hands,
            "pooled_runs": [str(r) for r in pooled],
            "measured_hands": measured_hands,
            "matches": matches,
            "hands_per_match": hands_per_match,
            "unit": UNIT,
            "level": 0.95,
            "margin": margin,
            "dealer_advantage": interval(adv),
            "positions": measured,
            "measured_verdict": study_verdict(measured)[0],
            "measured_compensation": current.as_dict(),
            "compensation_exact": {"value": exact, "lo": lo, "hi": hi},
            "compensation": lever.as_dict(),
            "compensation_sets": lever.sets(),
            "compensation_unit": COMPENSATION_UNIT,
            "changes": confirm_spec is not None,
            # what one step of the lever moves the dealer advantage by
            "resolution": step,
            "expected_residual": adv["value"] - n * (lever.points - current.points),
            "confirm_seed": confirm_seed if confirm_spec is not None else None,
        }
        if on_measured is not None:
            on_measured(result)
        if confirm_spec is None:  # the rules measured are the proposal: no second run
            confirm_dir, confirmed = measured_dir, measured
        else:
            confirm_dir = root / "confirm"
            simulate(
                confirm_spec,
                confirm_dir,
                workers=workers,
                progress=progress,
                desc="confirm",
                scheduler=scheduler,
            )
            confirmed = decide_positions(positions(confirm_dir), margin, confirm_spec.total_hands)
        verdict, need = study_verdict(confirmed)
        top = max(confirmed, key=lambda p: p["value"])
        result.update(
            {
                "confirmed": interval(confirmed[0]),
                "confirmed_positions": confirmed,
                "verdict": verdict,
                "equivalent": verdict == Verdict.EQUIVALENT,
                "hands_needed": need,
                "largest": {"position": top["position"], **interval(top)},
                "runs": (
                    {"measure": str(measured_dir), "confirm": str(confirm_dir)}
                    if out is not None
                    else None
                ),
            }
        )
    return result


def pooled_runs(spec: Any, runs: Sequence[str | Path]) -> tuple[list[Path], int]:
    """The runs to pool with the measure run ``spec`` and their hands: each must be
    of its variant, resolved rules, line-up and duplicate play, and every seed
    distinct (a seed played twice would count its hands twice); refused in one line
    naming the run and what differs."""
    from mjlog.logio import LogError, RunFiles

    seeds = {spec.seed: "the measure run (--seed)"}
    meta = spec.meta()
    out, hands = [], 0
    for run in runs:
        try:
            files = RunFiles(run)
            m = files.manifest
            rules = files.rules().to_json()
        except LogError as e:
            raise InputError(f"--runs {run}: {e}") from None
        for key, mine, theirs in (
            ("variant", spec.variant, m.get("variant")),
            ("rules", meta["rules"], rules),
            ("line-up", meta["agents"], m.get("agents")),
            ("duplicate play", spec.duplicate, m.get("duplicate")),
        ):
            if mine != theirs:
                raise InputError(
                    f"--runs {run}: not the study's {key} ({_diff(mine, theirs)}); "
                    "only runs of the same variant, rules and line-up pool"
                )
        if m.get("seed") in seeds:
            raise InputError(
                f"--runs {run}: seed {m.get('seed')} is also {seeds[m.get('seed')]}'s: "
                "the same hands would count twice"
            )
        seeds[m.get("seed")] = str(run)
        out.append(Path(run))
        hands += sum(f["rows"] for f in m["files"] if f["table"] == "hands")
    return out, hands


def _diff(mine: Any, theirs: Any) -> str:
    if isinstance(mine, list) and isinstance(theirs, list):
        mine, theirs = (
            [a.get("name") if isinstance(a, dict) else a for a in x] for x in (mine, theirs)
        )
        if mine == theirs:
            return "the agents' parameters or settings differ"
    if isinstance(mine, dict) and isinstance(theirs, dict):
        keys = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
        return ", ".join(f"{k}={theirs.get(k)!r}, not {mine.get(k)!r}" for k in keys[:3])
    return f"{theirs!r}, not {mine!r}"
