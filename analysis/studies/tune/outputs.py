"""What a tune writes: the proposal as a rules file, and the summary as text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analysis.studies.tune.search import Plan
from analysis.studies.tune.study import RULES_FILE
from mjlog.judgement import Verdict
from mjlog.rules import keys
from mjlog.rundir import write_atomic

RESULT_FILE = "result.json"
"""The tune's answer as ``--format json`` prints it, written beside the journal (what
``mjlog report TUNE_DIR`` reads besides it: :mod:`analysis.studies.tune.page`)."""


def rules_toml(result: Mapping[str, Any], plan: Plan) -> str:
    """The proposal as a rules file ``--rules`` reads: each changed key with the
    evidence in a comment above it."""
    import tomlkit

    doc = tomlkit.document()
    doc.add(
        tomlkit.comment(
            f"mjlog tune {plan.variant}, tune {result['tune_id']}: tuned "
            f"with {', '.join(plan.agents)}; {result['hands']} hands; "
            f"confirmed on seed {result['confirm_seed']}"
        )
    )
    for t in result["targets"]:
        doc.add(tomlkit.comment(_evidence(t)))
    table = keys(plan.variant)
    for v in plan.vary:
        value = table[v.key].parse(result["best"][v.key], plan.variant)
        doc.add(
            tomlkit.comment(
                f"{v.key}: {result['before'][v.key]} before, searched "
                f"{v.show(v.values[0])} to {v.show(v.values[-1])}"
                + (f"; {kept}" if (kept := (result.get("kept") or {}).get(v.key)) else "")
            )
        )
        doc.add(v.key, toml_value(table[v.key], value))
    for s in plan.sets:
        k, _, val = s.partition("=")
        doc.add(tomlkit.comment(f"held at {s} during the tune"))
        doc.add(k.strip(), toml_value(table[k.strip()], table[k.strip()].parse(val, plan.variant)))
    return tomlkit.dumps(doc)


def toml_value(rk, value: Any) -> Any:
    """A rule value as a rules file holds it: a self-draw/discard pair as its ``S/D``
    text (TOML has no null for ``-``), anything else as its JSON value."""
    return rk.show(value) if rk.kind == "pair" else rk.to_json(value)


def _evidence(t: Mapping[str, Any]) -> str:
    want = f"{t['metric']}{t['op']}{t['target']:g}" + (f"±{t['tol']:g}" if t["tol"] else "")

    def fmt(v: float | None) -> str:
        return "nan" if v is None else f"{v:.4g}"

    return (
        f"{want}: {fmt(t['value'])} [{fmt(t['lo'])}, {fmt(t['hi'])}] over "
        f"{t['matches']} matches: {t['verdict']}"
    )


def _num(v: float | None, digits: int = 4) -> str:
    return "—" if v is None else f"{v:.{digits}g}"


def summary(result: Mapping[str, Any]) -> str:
    """The tune as text: the proposal, each target before and after (the confirmation's
    fresh walls) with its verdict, how each target responded to each key over the
    trials, and the trial history."""
    lines = _proposal(result)
    lines += _targets(result)
    lines += _side_effects(result)
    lines += _history(result)
    return "\n".join(lines)


def _proposal(result: Mapping[str, Any]) -> list[str]:
    """The head: what was played, and the proposal with the keys it keeps."""
    lines = [
        f"mjlog tune {result['variant']} (tune {result['tune_id']}, tuned with "
        f"{', '.join(result['agents'])}; {result['hands']} hands played):"
    ]
    if result.get("settled"):
        lines.append(
            f"  {len(result['settled'])} runs settled from logged play instead: only "
            f"money-only keys differ and no agent reads money (the same hands)"
        )
    lines.append("")
    changed = result.get("changed", list(result["best"]))
    if result.get("no_change"):
        lines.append(f"proposal: no change ({result['no_change']})")
    else:
        lines.append(
            "proposal: "
            + ", ".join(f"{k}={result['best'][k]} (was {result['before'][k]})" for k in changed)
        )
    for k, why in (result.get("kept") or {}).items():
        lines.append(f"  {k} {why}")
    unmoved = (result.get("choice") or {}).get("unmoved") or []
    if unmoved and not result.get("no_change"):
        lines.append(f"  no varied key moves {', '.join(unmoved)} (the same on every match)")
    return lines


def _targets(result: Mapping[str, Any]) -> list[str]:
    """Each target before and after, and its paired difference from the rulebook."""
    lines: list[str] = []
    lines += [
        "",
        f"targets on fresh walls (seed {result['confirm_seed']}), 95 % intervals "
        f"(a verdict reads the 90 % one: docs/cli.md, verdicts):",
    ]
    before = {r["metric"]: r for r in result.get("targets_before") or []}
    # no change proposed: the confirmation measured the rules as they are
    now = "after" if result.get("changed") else "the rules as they are"
    for r in result["targets"]:
        want = f"{r['metric']}{r['op']}{r['target']:g}" + (f"±{r['tol']:g}" if r["tol"] else "")
        was = before.get(r["metric"])
        was_text = (
            (
                f"before {_num(was['value'])} [{_num(was['lo'])}, {_num(was['hi'])}] "
                f"({was['verdict']}); "
            )
            if was
            else ""
        )
        lines.append(
            f"  {want}: {was_text}{now} {_num(r['value'])} [{_num(r['lo'])}, "
            f"{_num(r['hi'])}]: {r['verdict'].upper()}"
        )
    for r in result["targets"]:
        if vs := r.get("vs_rulebook"):
            lines.append(
                f"  {r['metric']} proposal − rules as they are, paired: {_num(vs['diff'])} "
                f"[{_num(vs['lo'])}, {_num(vs['hi'])}]: {_said(vs)}"
            )
    unmet = [r["metric"] for r in result["targets"] if r["met"] is False]
    if unmet and len(result["targets"]) > 1:
        lines.append(
            f"  trade-off: {', '.join(unmet)} not met at the best compromise of the "
            f"weights; see how each target responds below"
        )
    return lines


def _side_effects(result: Mapping[str, Any]) -> list[str]:
    """Every other figure's paired difference, where changed patterns now stand, the
    containment order, and the rechecks under other agents."""
    lines: list[str] = []
    effects = result.get("side_effects") or []
    if effects:
        n = sum(e["verdict"] == Verdict.DIFFERS for e in effects)
        lines += [
            "",
            f"side effects (proposal − rules as they are, paired on the same fresh walls, "
            f"compare's decision over every figure): {n} of {len(effects)} differ",
        ]
        for e in effects:
            lines.append(
                f"  {e['metric']}: {_num(e['before'])} → {_num(e['after'])}, "
                f"{_num(e['diff'])} [{_num(e['lo'])}, {_num(e['hi'])}]: {_said(e)}"
            )
    for st in (result.get("standing") or {}).values():
        where = []
        if st["passes"]:
            where.append(f"now above {', '.join(st['passes'])}")
        if st["falls_below"]:
            where.append(f"now below {', '.join(st['falls_below'])}")
        if where:
            lines.append(
                f"  {st['pattern']} at {st['value']} (was {st['was']}): {'; '.join(where)}"
            )
    order = result.get("order") or {}
    for k, why in (order.get("left_out") or {}).items():
        lines.append(f"  trial {k} left out (--keep-order): {'; '.join(why)}")
    if order.get("broken"):
        lines.append(f"  the proposal breaks the containment order: {'; '.join(order['broken'])}")
    for rc in result.get("recheck") or []:
        lines.append(f"  rechecked under {rc['agents']} (the same fresh walls):")
        was = {r["metric"]: r for r in rc["before"]}
        for r in rc["targets"]:
            w = was[r["metric"]]
            lines.append(
                f"    {r['metric']}: before {_num(w['value'])} [{_num(w['lo'])}, "
                f"{_num(w['hi'])}]; after {_num(r['value'])} [{_num(r['lo'])}, "
                f"{_num(r['hi'])}]: {r['verdict'].upper()}"
            )
    return lines


def _history(result: Mapping[str, Any]) -> list[str]:
    """How each target responded to each key, the trials and the race."""
    lines: list[str] = []
    lines += ["", "response of each target to each key (trials on the shared walls):"]
    trials = [t for t in result["trials"] if "same_as" not in t]
    for key in result["best"]:
        for metric in (r["metric"] for r in result["targets"]):
            pts = sorted(
                {(t["point"][key], t["values"].get(metric)) for t in trials},
                key=lambda p: (_order(p[0]), p[1] is None, p[1] or 0.0),  # not set order
            )
            lines.append(f"  {metric} by {key}: " + ", ".join(f"{k}→{_num(v, 3)}" for k, v in pts))
    lines += ["", "trials:"]
    for t in result["trials"]:
        pt = ", ".join(f"{k}={v}" for k, v in t["point"].items())
        same = (
            f" (as trial {t['same_as']}, not replayed)"
            if "same_as" in t
            else f" (settled from {t['settled_from']})"
            if "settled_from" in t
            else ""
        )
        lines.append(f"  {t['trial']:3d} {pt}: loss {t['loss']:.3g}{same}")
    for r in result["race"]:
        lines.append(
            f"  race round {r['round']}: trials {r['trials']} "
            + (
                "tied: the same figures on every match (the nearest the rulebook is proposed)"
                if r.get("tied")
                else f"best in {', '.join(f'{s:.0%}' for s in r['share_best'])} of resamples"
            )
        )
    return lines


def _said(row: Mapping[str, Any]) -> str:
    """A paired difference's verdict in words (compare's)."""
    if row["verdict"] == Verdict.EQUIVALENT and row.get("margin") is not None:
        return f"equivalent ±{row['margin']:g}"
    return str(row["verdict"]).upper() if row["verdict"] == Verdict.DIFFERS else str(row["verdict"])


def _order(shown: str) -> tuple:
    try:
        return (0, float(shown.split("/")[0]))
    except ValueError:
        return (1, shown)


def write_outputs(result: Mapping[str, Any], plan: Plan, out: str | Path) -> None:
    """``rules.toml`` (the proposal with its evidence), ``report.txt`` (the summary) and
    ``result.json`` (the answer as ``--format json`` prints it)."""
    write_atomic(Path(out) / RULES_FILE, rules_toml(result, plan), "--out")
    write_atomic(
        Path(out) / RESULT_FILE,
        json.dumps(result, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        "--out",
    )
    write_atomic(Path(out) / "report.txt", summary(result) + "\n", "--out")
