"""The checks of a run as a whole: its manifest before any hand, its set of hands
and the dealer passing from hand to hand after them.

The manifest: files, rows, checksums (:func:`mjlog.logio.verify_manifest`),
resolved rules, players and run id. The hands: exactly matches × rotations ×
hands_per_match of them (``hand_set``), each hand's dealer the previous hand's
``next_dealer`` (``dealer_sequence``; in a duplicate run, hand 0's dealer plus
the hand number).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mjlog.audit.checks import HandResult, RunContext
from mjlog.audit.report import AuditResult, Problem, run_problem
from mjlog.logio import RUN_ID_KEYS, LogError, RunFiles, read_manifest, run_id, verify_manifest
from mjlog.replay import Check
from mjlog.rng import RNG
from mjlog.rules import Rules, unrecorded

__all__ = ["check_manifest", "cross_hand", "file_of"]


def file_of(msg: str, run: Path) -> str | None:
    """The file a reader's one-line error names, relative to the run, if any."""
    head = msg.split(":", 1)[0].strip()
    if head.endswith((".parquet", ".json", ".jsonl")):
        try:
            return str(Path(head).relative_to(run)) if Path(head).is_absolute() else head
        except ValueError:
            return head
    return None


def check_manifest(run: Path, res: AuditResult) -> tuple[RunContext | None, dict[str, Any] | None]:
    """Check the run's manifest into ``res``; the context its hands are audited in
    (None when the manifest cannot be trusted), and the manifest."""
    name = str(run)
    try:
        manifest = read_manifest(run)
    except LogError as e:
        res.problems.append(
            run_problem(
                name, Check.MANIFEST, str(e), "a readable manifest.json", file="manifest.json"
            )
        )
        return None, None
    rid = manifest.get("run_id")
    try:  # nothing is read from a manifest that cannot be trusted as a list of files
        files = RunFiles(run, hashes=False, strict=False)
    except LogError as e:
        res.problems.append(
            run_problem(
                name,
                Check.MANIFEST_FILES,
                str(e),
                "a manifest whose every entry is a regular file of "
                "the run, listed once, of its listed size",
                file=file_of(str(e), run) or "manifest.json",
                rid=rid if isinstance(rid, str) else None,
            )
        )
        return None, None
    for msg in verify_manifest(run, read_pages=False):  # the shards are read in full below
        res.problems.append(
            run_problem(
                name,
                Check.MANIFEST_FILES,
                msg,
                "files as the manifest lists them (rows, sha256, schema)",
                file=file_of(msg, run),
                rid=rid,
            )
        )
    variant: Any = manifest.get("variant")  # whatever the manifest holds: Rules checks it
    try:
        recorded = manifest.get("rules") or {}
        rules = Rules.recorded(variant, recorded)
    except Exception as e:
        res.problems.append(
            run_problem(
                name,
                Check.MANIFEST_RULES,
                f"{e}",
                "valid resolved rules for a known variant",
                file="manifest.json",
                rid=rid,
            )
        )
        return None, manifest
    missing = unrecorded(rules.variant, recorded)  # keys added since the run was written excepted
    diff = [k for k, v in rules.to_json().items() if k in recorded and recorded[k] != v]
    if missing or diff:
        res.problems.append(
            run_problem(
                name,
                Check.MANIFEST_RULES,
                f"rules not fully resolved (missing {missing}, not canonical {diff})",
                "every rule key with its resolved value",
                file="manifest.json",
                rid=rid,
            )
        )
    if manifest.get("players") != rules.n:
        res.problems.append(
            run_problem(
                name,
                Check.MANIFEST_PLAYERS,
                manifest.get("players"),
                f"{rules.n} (rules.players)",
                "manifest.json",
                rid,
            )
        )
    if all(k in manifest for k in RUN_ID_KEYS):
        want = run_id(manifest)
        if rid != want:
            res.problems.append(
                run_problem(
                    name,
                    Check.MANIFEST_RUN_ID,
                    rid,
                    f"{want} (the hash of the run's arguments)",
                    "manifest.json",
                    rid,
                )
            )
    else:
        missing = [k for k in RUN_ID_KEYS if k not in manifest]
        res.problems.append(
            run_problem(
                name,
                Check.MANIFEST_KEYS,
                f"missing {missing}",
                "every key of the run's arguments",
                "manifest.json",
                rid,
            )
        )
    seed = manifest.get("seed")
    rng = manifest.get("rng")
    if seed is not None and rng != RNG:
        res.notes.append(
            run_problem(
                name,
                Check.SEED,
                "",
                f"not checked: the log's rng {rng!r} is not the one this mjlog implements ({RNG})",
                rid=rid,
                level="note",
            )
        )
    ctx = RunContext(name, rid, rules.variant, rules.to_json(), seed, rng, files.has_events)
    return ctx, manifest


def cross_hand(
    ctx: RunContext,
    manifest: Mapping[str, Any],
    results: list[HandResult],
    n: int,
    res: AuditResult,
    unreadable: bool = False,
) -> None:
    """The set of hands and the dealer sequence, into ``res``."""
    keys = [r.key for r in results]
    rid = ctx.run_id
    if unreadable:
        res.notes.append(
            run_problem(
                ctx.run,
                Check.HAND_SET,
                "",
                "not checked: some files could not be read",
                rid=rid,
                level="note",
            )
        )
    elif manifest.get("imported"):
        res.notes.append(
            run_problem(
                ctx.run,
                Check.HAND_SET,
                "",
                "not checked: an imported run holds the hands it was given",
                rid=rid,
                level="note",
            )
        )
    else:
        try:
            rot = n if manifest.get("duplicate") else 1
            want = {
                (m, r, h)
                for m in range(int(manifest["matches"]))
                for r in range(rot)
                for h in range(int(manifest["hands_per_match"]))
            }
        except (KeyError, TypeError, ValueError):
            want = None
        if want is not None:
            got = Counter(keys)
            missing = sorted(want - set(got))
            extra = sorted(set(got) - want)
            dup = sorted(k for k, c in got.items() if c > 1)
            if missing or extra or dup:
                res.problems.append(
                    run_problem(
                        ctx.run,
                        Check.HAND_SET,
                        f"{len(keys)} hands; missing {missing[:5]}"
                        f"{'…' if len(missing) > 5 else ''}, unexpected {extra[:5]}, "
                        f"duplicated {dup[:5]}",
                        f"{len(want)} hands: matches × rotations × hands_per_match",
                        rid=rid,
                    )
                )
    by_key = {r.key: r for r in results}
    duplicate = bool(manifest.get("duplicate"))
    for r in results:
        m, rot, h = r.key
        if h == 0 or r.dealer is None:
            continue
        prev = by_key.get((m, rot, h - 1))
        first = by_key.get((m, rot, 0))
        if duplicate:
            if first is None or first.dealer is None:
                continue
            want_d, why = (first.dealer + h) % n, f"hand 0's dealer S{first.dealer} + {h}"
        else:
            if prev is None or prev.next_dealer is None:
                continue
            want_d, why = prev.next_dealer, f"hand {h - 1}'s next_dealer"
        if r.dealer != want_d:
            res.problems.append(
                Problem(
                    ctx.run,
                    Check.DEALER_SEQUENCE,
                    f"dealer S{r.dealer}",
                    f"S{want_d} ({why})",
                    m,
                    rot,
                    h,
                    None,
                    file=r.file,
                    run_id=rid,
                )
            )
