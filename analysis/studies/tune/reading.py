"""A tune's directory read as untrusted input, for its page (:mod:`.page`).

A tune directory is one holding a journal, ``tune.json``
(:data:`~analysis.studies.tune.study.TUNE_FILE`). A directory from elsewhere is
untrusted: the journal is read with a plain JSON parser (no NaN or infinity, at most
:data:`MAX_BYTES`) and validated by :meth:`TuneJournal.from_json` (runs named inside
the directory only, finite numbers, indices that exist), then here (every trial
varies the same keys, every target row, recheck row and sizing row has the shape the
tune writes). The result a finished tune writes beside it, ``result.json``
(:data:`~analysis.studies.tune.outputs.RESULT_FILE`), adds what the journal does not
hold (the line-up, the budget, why a key was kept, where a changed pattern now
stands); it must be the journal's own (same tune id, same proposal) and is checked
field by field. A trial's interval is measured from its run when the run is still in
the directory (its files verified); without it the trial has none.

**A damaged or unfinished directory** is refused in one line (exit 2): a damaged
journal or result says what is wrong; a tune stopped before its confirmation says
which stage it reached (trials explored, race rounds) and that rerunning its
``mjlog tune`` command finishes it.

>>> from analysis.studies.sample import data_dir
>>> tune = read(data_dir() / "tune" / "huangmei-qidui")
>>> tune.stage()
'finished: 12 trials explored on the shared walls, 2 race round(s), confirmed on seed 770132986'
>>> [t.metric for t in tune.targets], tune.keys
(['pattern_rate[qidui]'], ['fan.qidui'])
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.studies.tune.effects import VERDICT_ORDER, side_effects
from analysis.studies.tune.grammar import Target
from analysis.studies.tune.journal import DamagedJournal, Trial, TuneJournal
from analysis.studies.tune.outputs import RESULT_FILE
from analysis.studies.tune.study import TUNE_FILE
from mjlog.errors import InputError, quote
from mjlog.rules import VARIANTS

__all__ = ["MAX_BYTES", "TuneRead", "is_tune", "read"]

MAX_BYTES = 32 * 2**20
"""The largest journal or result read (a 500-trial tune's journal is well under 1 MB)."""

OPS = ("=", "<=", ">=")


def is_tune(path: str | Path) -> bool:
    """Whether ``path`` is a tune's directory: it holds a journal, whatever its name."""
    return (Path(path) / TUNE_FILE).is_file()


def _json(path: Path) -> Any:
    """The JSON in ``path``: no NaN or infinity (JSON has neither), bounded in size."""

    def refuse(const: str) -> Any:
        raise ValueError(f"{const} is not a JSON number")

    try:
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES // 2**20} MB")
        return json.loads(path.read_bytes().decode("utf-8"), parse_constant=refuse)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        raise DamagedJournal(f"{path}: not a tune's JSON ({e})") from None


def _bad(what: str, v: Any, want: str) -> DamagedJournal:
    return DamagedJournal(f"{what} is {quote(v)}, not {want}")


def _num(v: Any, what: str, none: bool = True) -> float | None:
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _bad(what, v, "a finite number")
    return float(v)


def _count(v: Any, what: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _bad(what, v, "a whole number")
    return v


def _text(v: Any, what: str, none: bool = False) -> str | None:
    if v is None and none:
        return None
    if not isinstance(v, str):
        raise _bad(what, v, "text")
    return v


def _texts(v: Any, what: str) -> list[str]:
    if not isinstance(v, list):
        raise _bad(what, v, "a list")
    return [str(_text(x, f"{what}[{i}]")) for i, x in enumerate(v)]


def _obj(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _bad(what, v, "an object")
    return v


def _judged(row: Mapping[str, Any], what: str) -> dict[str, Any]:
    """A target as the confirmation judged it: the fields the page shows, checked."""
    op = row.get("op")
    if op not in OPS:
        raise _bad(f"{what}'s op", op, "one of = <= >=")
    return {
        "metric": _text(row.get("metric"), f"{what}'s metric"),
        "op": op,
        "target": _num(row.get("target"), f"{what}'s target", none=False),
        "tol": _num(row.get("tol"), f"{what}'s tol"),
        **{k: _num(row.get(k), f"{what}'s {k}") for k in ("value", "lo", "hi")},
        "matches": _count(row.get("matches"), f"{what}'s matches"),
        "verdict": _text(row.get("verdict"), f"{what}'s verdict"),
    }


def _paired(row: Mapping[str, Any], what: str) -> dict[str, Any]:
    """A paired difference proposal − rulebook (a figure of compare), checked."""
    return {
        "metric": _text(row.get("metric"), f"{what}'s metric"),
        "unit": _text(row.get("unit", ""), f"{what}'s unit"),
        **{
            k: _num(row.get(k), f"{what}'s {k}")
            for k in ("before", "after", "diff", "lo", "hi", "margin")
        },
        "verdict": _text(row.get("verdict"), f"{what}'s verdict"),
    }


def _sized(row: Mapping[str, Any], what: str) -> dict[str, Any]:
    confirmable = row.get("confirmable")
    if confirmable not in (True, False, None):
        raise _bad(f"{what}'s confirmable", confirmable, "true, false or null")
    return {
        "half_width": _num(row.get("half_width"), f"{what}'s half_width"),
        "confirmable": confirmable,
        "hands_needed": _count(row.get("hands_needed"), f"{what}'s hands_needed"),
        "hands_to_propose": _count(row.get("hands_to_propose"), f"{what}'s hands_to_propose"),
        "basis": _text(row.get("basis", "the tune's result"), f"{what}'s basis"),
    }


def _extras(doc: Any, j: TuneJournal, path: Path) -> dict[str, Any]:
    """What the page takes from ``result.json``, each field checked; the result must
    be the journal's own."""
    d = _obj(doc, str(path))
    best = j.trials[j.confirm.trial].point if j.confirm else None
    if d.get("tune_id") != j.tune_id or d.get("best") != best:
        raise DamagedJournal(
            f"not this journal's result (tune {quote(d.get('tune_id'))}, "
            f"proposal {quote(d.get('best'))}; the journal's: tune {j.tune_id}, {best})"
        )
    order = _obj(d.get("order") or {}, "the result's order")
    standing = _obj(d.get("standing") or {}, "the result's standing")
    targets = d.get("targets") or []
    if not isinstance(targets, list) or len(targets) != len(j.confirm.targets if j.confirm else []):
        raise _bad("the result's targets", targets, "one row per target of the journal")
    return {
        "agents": _texts(d.get("agents", []), "the result's agents"),
        "budget": _count(d.get("budget"), "the result's budget"),
        "seed": _count(d.get("seed"), "the result's seed"),
        "no_change": _text(d.get("no_change"), "the result's no_change", none=True),
        "kept": {
            k: str(_text(v, f"the result's kept {k}"))
            for k, v in _obj(d.get("kept") or {}, "the result's kept").items()
        },
        "standing": [
            {
                "pattern": _text(s.get("pattern"), f"standing {k}'s pattern"),
                "was": _text(s.get("was"), f"standing {k}'s was"),
                "value": _text(s.get("value"), f"standing {k}'s value"),
                "passes": _texts(s.get("passes", []), f"standing {k}'s passes"),
                "falls_below": _texts(s.get("falls_below", []), f"standing {k}'s falls_below"),
            }
            for k, s in ((k, _obj(s, f"standing {k}")) for k, s in standing.items())
        ],
        "broken": _texts(order.get("broken") or [], "the result's broken order"),
        "left_out": {
            k: _texts(v, f"left out {k}")
            for k, v in _obj(order.get("left_out") or {}, "left_out").items()
        },
        "sizing": [_sized(_obj(r, f"target {i}"), f"target {i}") for i, r in enumerate(targets)],
    }


def _stopped(j: TuneJournal, path: Path) -> InputError:
    """The one line for a tune stopped before its confirmation: the stage it reached."""
    done = sum(t.same_as is None for t in j.trials)
    stage = (
        "before its first trial"
        if not j.trials
        else f"after {len(j.trials)} trial(s) ({done} played)"
        + (f" and {len(j.race)} race round(s)" if j.race else ", before the race")
    )
    return InputError(
        f"{path}: a tune stopped {stage}, not confirmed yet: rerun its mjlog tune "
        f"command (the same --out) to finish it, then report it"
    )


@dataclass
class TuneRead:
    """A tune's directory as the page reads it: the validated journal, the targets as
    the confirmation judged them, the checked extras of ``result.json`` (empty when
    there is none), and each trial's 95 % interval per target where its run is here."""

    path: Path
    journal: TuneJournal
    targets: list[Target]
    judged: list[dict[str, Any]]
    before: list[dict[str, Any]] | None
    compared: list[dict[str, Any]] | None
    extras: dict[str, Any] = field(default_factory=dict)
    #: trial number → metric → (lo, hi), for the trials whose run is in the directory.
    intervals: dict[int, dict[str, tuple[float, float]]] = field(default_factory=dict)

    @property
    def keys(self) -> list[str]:
        """The varied keys, in the journal's order."""
        return list(self.journal.trials[0].point)

    @property
    def proposal(self) -> Trial:
        assert self.journal.confirm is not None
        return self.journal.trials[self.journal.confirm.trial]

    @property
    def rulebook(self) -> Trial:
        """Trial 0: the rules as they are, always played first."""
        return self.journal.trials[0]

    @property
    def unchanged(self) -> bool:
        """Whether the proposal is the rules as they are (trial 0): its confirmation's
        figures are then the rules' own, and there is no paired difference."""
        return self.proposal is self.rulebook

    def stage(self) -> str:
        j = self.journal
        explored = sum(t.same_as is None for t in j.trials)
        c = j.confirm
        assert c is not None
        return (
            f"{'finished' if j.finished else 'confirmed'}: {explored} trials explored on "
            f"the shared walls, {len(j.race)} race round(s), confirmed on seed {c.seed}"
        )

    def side_effects(self) -> list[dict[str, Any]]:
        """Every figure of compare that is not a target, proposal − rulebook paired on
        the confirmation's walls, those that differ first (as the tune lists them)."""
        rows = side_effects(self.compared or [], self.targets)
        return sorted(rows, key=lambda r: VERDICT_ORDER.get(r["verdict"], len(VERDICT_ORDER)))

    def sizing(self) -> list[dict[str, Any] | None]:
        """Per target, what the budget could confirm: the journal's sizing (on trial 0),
        else the result's, else None."""
        rows = self.journal.sizing or self.extras.get("sizing")
        if not rows or len(rows) != len(self.targets):
            return [None] * len(self.targets)
        return [_sized(r, f"sizing {i}") for i, r in enumerate(rows)]


def _check_points(j: TuneJournal) -> None:
    keys = set(j.trials[0].point) if j.trials else set()
    for t in j.trials:
        if set(t.point) != keys or not keys:
            raise DamagedJournal(f"trial {t.trial} varies {sorted(t.point)}, not {sorted(keys)}")


def read(
    path: str | Path, intervals: bool = True, result: Mapping[str, Any] | None = None
) -> TuneRead:
    """The tune in directory ``path``, validated (a damaged or unfinished one is
    refused in one line); ``intervals``: measure each trial's run still here;
    ``result``: the tune's answer (:meth:`Tuner.run`), checked as ``result.json`` is,
    instead of the directory's ``result.json``."""
    path = Path(path)
    doc = _json(path / TUNE_FILE)
    if not isinstance(doc, dict):
        raise DamagedJournal(f"{path / TUNE_FILE}: a damaged tune journal: not an object")
    if doc.get("mode") == "rescore":
        raise InputError(
            f"{path}: a --rescore tune; its page is not drawn yet (see {path}/report.txt)"
        )
    try:
        j = TuneJournal.from_json(doc)
        if doc.get("variant") not in VARIANTS:
            raise _bad("its variant", doc.get("variant"), f"one of {', '.join(VARIANTS)}")
        _check_points(j)
        if j.confirm is None:
            raise _stopped(j, path)
        c = j.confirm
        judged = [_judged(r, f"target {i}") for i, r in enumerate(c.targets)]
        before = None if c.before is None else [_judged(r, "before") for r in c.before]
        compared = None if c.compared is None else [_paired(r, "compared") for r in c.compared]
        for rc in j.recheck.values():  # shown as they are: checked like the confirmation's
            for r in [*rc.targets, *rc.before]:
                _judged(r, f"recheck {quote(rc.agents)}")
        targets = [Target(r["metric"], r["op"], r["target"], r["tol"]) for r in judged]
        tune = TuneRead(path, j, targets, judged, before, compared)
        tune.sizing()
    except DamagedJournal as e:
        raise DamagedJournal(f"{path / TUNE_FILE}: a damaged tune journal: {e}") from None
    if result is not None or (path / RESULT_FILE).is_file():
        try:
            doc = dict(result) if result is not None else _json(path / RESULT_FILE)
            tune.extras = _extras(doc, j, path / RESULT_FILE)
        except DamagedJournal as e:
            raise DamagedJournal(f"{path / RESULT_FILE}: a damaged tune result: {e}") from None
    if intervals:
        tune.intervals = _intervals(tune)
    return tune


def _intervals(tune: TuneRead) -> dict[int, dict[str, tuple[float, float]]]:
    """Each trial's 95 % interval per target, measured from its run (verified) when
    the run is in the directory; a repeated trial has its original's."""
    from analysis.studies.tune.measuring import measure

    root = tune.path.resolve()
    out: dict[int, dict[str, tuple[float, float]]] = {}
    for t in tune.journal.trials:
        if t.same_as is not None:
            if t.same_as in out:
                out[t.trial] = out[t.same_as]
            continue
        run = tune.path / t.run
        # the name is checked (no ..); a link must not lead out of the directory either
        if not (run / "manifest.json").is_file() or not run.resolve().is_relative_to(root):
            continue
        m = measure(run, [x.metric for x in tune.targets])
        rows = [m.judge(x) for x in tune.targets]
        out[t.trial] = {
            r["metric"]: (r["lo"], r["hi"])
            for r in rows
            if math.isfinite(r["lo"]) and math.isfinite(r["hi"])
        }
    return out
