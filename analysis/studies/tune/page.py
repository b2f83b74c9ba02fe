"""A tune as a page: ``mjlog report TUNE_DIR`` renders a tune's directory as one HTML page.

The page shows the proposal against the rules as they are (the keys it changes, why
it keeps the others), each target on the confirmation's fresh walls with its paired
difference from the rulebook, what the budget could confirm, every side effect (those
that differ first), how each target responded to each varied key (one panel per
target × key, each trial with its 95 % interval and the tolerance band drawn), the
trials and the race. It is built on the report's page (:func:`analysis.report.page`:
its style, sortable tables, inline figures and Content-Security-Policy).

**What it reads.** A tune directory is one holding a journal, ``tune.json``
(:data:`~analysis.studies.tune.study.TUNE_FILE`). A directory from elsewhere is
untrusted: the journal is read with a plain JSON parser (no NaN or infinity, at most
:data:`MAX_BYTES`) and validated by :meth:`TuneJournal.from_json` (runs named inside
the directory only, finite numbers, indices that exist), then here (every trial
varies the same keys, every target row has the shape a confirmation writes). The
result a finished tune writes beside it, ``result.json``
(:data:`~analysis.studies.tune.outputs.RESULT_FILE`), adds what the journal does not
hold (the line-up, the budget, why a key was kept, where a changed pattern now
stands); it must be the journal's own (same tune id, same proposal) and is checked
field by field. A trial's interval is measured from its run when the run is still in
the directory (its files verified); without it the trial is drawn as a point.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from analysis import fonts, report
from analysis.studies.tune.effects import VERDICT_ORDER, side_effects
from analysis.studies.tune.grammar import Target
from analysis.studies.tune.journal import DamagedJournal, Trial, TuneJournal
from analysis.studies.tune.outputs import RESULT_FILE
from analysis.studies.tune.study import TUNE_FILE
from mjlog.errors import InputError, quote
from mjlog.rules import VARIANTS

__all__ = ["MAX_BYTES", "TuneRead", "is_tune", "read", "response_figure", "write_page"]

MAX_BYTES = 32 * 2**20
"""The largest journal or result read (a 500-trial tune's journal is well under 1 MB)."""

OPS = ("=", "<=", ">=")


def is_tune(path: str | Path) -> bool:
    """Whether ``path`` is a tune's directory: it holds a journal, whatever its name."""
    return (Path(path) / TUNE_FILE).is_file()


# ------------------------------------------------------------------ reading, untrusted
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
        "basis": _text(row.get("basis", "the tune's result"), f"{what}'s basis"),
    }


def _extras(doc: Any, j: TuneJournal, path: Path) -> dict[str, Any]:
    """What the page takes from ``result.json``, each field checked; the result must
    be the journal's own."""
    d = _obj(doc, str(path))
    best = j.trials[j.confirm.trial].point if j.confirm else None
    if d.get("tune_id") != j.tune_id or d.get("best") != best:
        raise DamagedJournal(
            f"{path} is not this journal's result (tune {quote(d.get('tune_id'))}, "
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


# ------------------------------------------------------------------ the figure
def _position(shown: Sequence[str]) -> tuple[dict[str, float], bool]:
    """Where each shown value sits on the x axis: at its number when every value is
    one, else in order (a pair ``S/D`` by its first side, text last)."""
    try:
        return {s: float(s) for s in shown}, True
    except ValueError:

        def order(s: str) -> tuple:
            try:
                return (0, float(s.split("/")[0]), s)
            except ValueError:
                return (1, 0.0, s)

        return {s: float(i) for i, s in enumerate(sorted(set(shown), key=order))}, False


def _named(variant: str, pattern: str) -> str:
    """``qidui 七一对``: a pattern key with its name in ``variant`` (the key alone when
    it is no pattern)."""
    from mjlog.variants import get_variant

    name = get_variant(variant).pattern_name(pattern)
    return pattern if name == pattern else f"{pattern} {name}"


def _key_label(variant: str, key: str) -> str:
    """``fan.qidui 七一对``: a pattern value key with its pattern's name."""
    stem, _, pattern = key.partition(".")
    return f"{stem}.{_named(variant, pattern)}" if pattern else key


def _metric_label(variant: str, metric: str) -> str:
    """``pattern_rate[qidui] 七一对``: a pattern's rate with the pattern's name."""
    from mjlog.metrics import pattern_of
    from mjlog.variants import get_variant

    p = pattern_of(metric)
    name = None if p is None else get_variant(variant).pattern_name(p)
    return metric if name in (None, p) else f"{metric} {name}"


def _band(ax, t: Target) -> None:
    """The tolerance band (``V ± T``) or the bound (``<= V``, ``>= V``), shaded."""
    if t.op == "=":
        tol = t.tol or 0.0
        ax.axhspan(t.value - tol, t.value + tol, color="tab:green", alpha=0.15, lw=0)
        ax.axhline(t.value, color="tab:green", lw=1, ls="--", label=f"target {_want(t)}")
        return
    lo, hi = ax.get_ylim()
    if t.op == "<=":
        ax.axhspan(min(lo, t.value), t.value, color="tab:green", alpha=0.15, lw=0)
    else:
        ax.axhspan(t.value, max(hi, t.value), color="tab:green", alpha=0.15, lw=0)
    ax.axhline(t.value, color="tab:green", lw=1, ls="--", label=f"target {_want(t)}")
    ax.set_ylim(min(lo, t.value), max(hi, t.value))


def _want(t: Target) -> str:
    return f"{t.metric}{t.op}{t.value:g}" + (f"±{t.tol:g}" if t.tol else "")


def _panel(ax, tune: TuneRead, t: Target, key: str) -> None:
    """One target against one key: every distinct trial (shared walls) with its
    interval, the rulebook and the proposal marked, and the confirmation's two
    figures (fresh walls) beside them."""
    trials = [x for x in tune.journal.trials if x.same_as is None]
    at, numeric = _position([x.point[key] for x in trials])
    width = (max(at.values()) - min(at.values())) or 1.0
    nudge = width * 0.012  # the fresh walls' figures beside the trials', not on them
    for x in trials:
        v = x.values.get(t.metric)
        if v is None:
            continue
        ci = tune.intervals.get(x.trial, {}).get(t.metric)
        err = None if ci is None else [[max(v - ci[0], 0.0)], [max(ci[1] - v, 0.0)]]
        mark = "s" if x.trial == 0 else "*" if x is tune.proposal else "o"
        size = 11 if mark == "*" else 6
        ax.errorbar(
            at[x.point[key]], v, yerr=err, fmt=mark, ms=size, color="tab:blue", capsize=3, lw=1
        )
    for row, trial, colour in (
        (tune.before or [], tune.rulebook, "tab:gray"),
        (tune.judged, tune.proposal, "tab:red"),
    ):
        r = next((r for r in row if r["metric"] == t.metric), None)
        if r is None or r["value"] is None or trial.point[key] not in at:
            continue
        lo = r["value"] if r["lo"] is None else r["lo"]
        hi = r["value"] if r["hi"] is None else r["hi"]
        ax.errorbar(
            at[trial.point[key]] + nudge,
            r["value"],
            yerr=[[r["value"] - lo], [hi - r["value"]]],
            fmt="D",
            ms=5,
            color=colour,
            capsize=3,
            lw=1,
        )
    _band(ax, t)
    if not numeric:
        ax.set_xticks(list(at.values()), list(at), fontsize="small")
    ax.set_xlabel(_key_label(tune.journal.variant, key))
    ax.set_ylabel(_metric_label(tune.journal.variant, t.metric))
    ax.set_title(f"{_metric_label(tune.journal.variant, t.metric)} by {key}", fontsize="medium")


def response_figure(tune: TuneRead) -> Figure:
    """Each target's response to each varied key: one panel per target × key (rows:
    targets, columns: keys); each trial on the shared walls with its 95 % interval
    (blue; square: the rules as they are, star: the proposal), the confirmation on
    fresh walls beside them (grey: the rules as they are, red: the proposal) and the
    target's band (green)."""
    from matplotlib.lines import Line2D

    fonts.use()  # the Chinese names render as glyphs, not boxes
    rows, cols = len(tune.targets), len(tune.keys)
    fig = Figure(figsize=(5.6 * cols, 3.6 * rows + 0.8), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    for i, t in enumerate(tune.targets):
        for k, key in enumerate(tune.keys):
            _panel(axes[i][k], tune, t, key)
    legend = [
        Line2D([], [], color="tab:blue", marker="o", ls="", label="trial (shared walls, 95% CI)"),
        Line2D([], [], color="tab:blue", marker="s", ls="", label="trial 0: the rules as they are"),
        Line2D([], [], color="tab:blue", marker="*", ms=11, ls="", label="the proposal's trial"),
        Line2D([], [], color="tab:gray", marker="D", ls="", label="rules as they are, fresh walls"),
        Line2D([], [], color="tab:red", marker="D", ls="", label="proposal, fresh walls"),
        Line2D([], [], color="tab:green", ls="--", label="target, tolerance band shaded"),
    ]
    fig.legend(
        handles=legend, loc="outside lower center", ncols=2 if cols == 1 else 3, fontsize="small"
    )
    fig.suptitle(f"响应 How each target responds to each key ({tune.journal.variant})")
    return fig


# ------------------------------------------------------------------ the page
def _n(v: float | None, digits: int = 4) -> str:
    return "–" if v is None else f"{v:.{digits}g}"


def _ci(v: float | None, lo: float | None, hi: float | None) -> str:
    return "–" if v is None else f"{_n(v)} [{_n(lo)}, {_n(hi)}]"


def _said(row: Mapping[str, Any]) -> str:
    if row["verdict"] == "equivalent" and row.get("margin") is not None:
        return f"equivalent ±{row['margin']:g}"
    return str(row["verdict"])


def _proposal(tune: TuneRead) -> tuple[pd.DataFrame, list[str]]:
    kept = tune.extras.get("kept", {})
    rows = [
        {
            "key": _key_label(tune.journal.variant, k),
            "rules as they are": tune.rulebook.point[k],
            "proposal": tune.proposal.point[k],
            "changed": "yes" if tune.proposal.point[k] != tune.rulebook.point[k] else "no",
            "why": kept.get(k, ""),
        }
        for k in tune.keys
    ]
    notes = []
    if tune.extras.get("no_change"):
        notes.append(f"No change proposed: {tune.extras['no_change']}.")
    ch = tune.journal.choice
    if ch is not None and ch.unmoved:
        notes.append(f"No varied key moves {', '.join(ch.unmoved)} (the same on every match).")
    for s in tune.extras.get("standing", []):
        where = [f"now above {', '.join(s['passes'])}"] if s["passes"] else []
        where += [f"now below {', '.join(s['falls_below'])}"] if s["falls_below"] else []
        if where:
            name = _named(tune.journal.variant, s["pattern"])
            notes.append(f"{name} at {s['value']} (was {s['was']}): {'; '.join(where)}.")
    for k, why in tune.extras.get("left_out", {}).items():
        notes.append(f"Trial {k} left out (--keep-order): {'; '.join(why)}.")
    if tune.extras.get("broken"):
        notes.append(
            f"The proposal breaks the containment order: {'; '.join(tune.extras['broken'])}."
        )
    return pd.DataFrame(rows), notes


def _targets(tune: TuneRead) -> pd.DataFrame:
    before = {r["metric"]: r for r in tune.before or []}
    vs = {r["metric"]: r for r in tune.compared or []}
    rows = []
    for t, r in zip(tune.targets, tune.judged, strict=True):
        b, d = before.get(t.metric), vs.get(t.metric)
        rows.append(
            {
                "target": _want(t),
                "rules as they are": "–" if b is None else _ci(b["value"], b["lo"], b["hi"]),
                "verdict before": "–" if b is None else b["verdict"],
                "proposal": _ci(r["value"], r["lo"], r["hi"]),
                "verdict": str(r["verdict"]).upper(),
                "proposal − rules as they are (paired)": "–"
                if d is None
                else f"{_ci(d['diff'], d['lo'], d['hi'])}: {_said(d)}",
                "matches": r["matches"],
            }
        )
    return pd.DataFrame(rows)


def _budget(tune: TuneRead) -> pd.DataFrame:
    rows = []
    for t, s in zip(tune.targets, tune.sizing(), strict=True):
        rows.append(
            {
                "target": _want(t),
                "expected half-width (95%)": "–" if s is None else _n(s["half_width"]),
                "tolerance": "–" if t.tol is None or t.op != "=" else f"{t.tol:g}",
                "confirmable": "not recorded"
                if s is None
                else {True: "yes", False: "NO", None: "not ruled out"}[s["confirmable"]],
                "budget needed (80% power)": "–"
                if s is None or s["hands_needed"] is None
                else f"{s['hands_needed']:,}",
                "sized on": "–" if s is None else s["basis"],
            }
        )
    return pd.DataFrame(rows)


def _effects(tune: TuneRead) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "figure": _metric_label(tune.journal.variant, e["metric"]),
                "unit": e.get("unit", ""),
                "rules as they are": _n(e["before"]),
                "proposal": _n(e["after"]),
                "difference [95% CI]": _ci(e["diff"], e["lo"], e["hi"]),
                "verdict": _said(e),
            }
            for e in tune.side_effects()
        ],
        columns=[
            "figure",
            "unit",
            "rules as they are",
            "proposal",
            "difference [95% CI]",
            "verdict",
        ],
    )


def _trials(tune: TuneRead) -> pd.DataFrame:
    j = tune.journal
    rows = []
    for t in j.trials:
        ci = tune.intervals.get(t.trial, {})
        how = (
            f"as trial {t.same_as}"
            if t.same_as is not None
            else f"settled from {t.settled_from}"
            if t.settled_from
            else "played"
        )
        rows.append(
            {
                "trial": t.trial,
                **{k: v for k, v in t.point.items()},
                **{
                    m: _ci(v, *(ci.get(m) or (None, None))) if ci.get(m) else _n(v)
                    for m, v in t.values.items()
                },
                "loss": f"{t.loss:.3g}",
                "hands": t.hands,
                "how": how,
                "role": "the rules as they are"
                if t.trial == 0
                else "proposal"
                if t is tune.proposal
                else "",
            }
        )
    return pd.DataFrame(rows)


def _race(tune: TuneRead) -> pd.DataFrame:
    j = tune.journal
    rows = []
    for r in j.race:
        for k, share, lossed in zip(r.trials, r.share_best, r.losses, strict=False):
            rows.append(
                {
                    "round": r.round,
                    "trial": k,
                    **j.trials[k].point,
                    "best in (share of resamples)": "tied" if r.tied else f"{share:.0%}",
                    "loss on the race's walls": f"{lossed:.3g}",
                    "hands this round": r.hands,
                }
            )
    return pd.DataFrame(rows)


def _rechecks(tune: TuneRead) -> pd.DataFrame:
    rows = []
    for rc in tune.journal.recheck.values():
        was = {r.get("metric"): r for r in rc.before}
        for r in rc.targets:
            w = was.get(r.get("metric"), {})
            rows.append(
                {
                    "agents": rc.agents,
                    "target": str(r.get("metric")),
                    "rules as they are": _ci(w.get("value"), w.get("lo"), w.get("hi")),
                    "proposal": _ci(r.get("value"), r.get("lo"), r.get("hi")),
                    "verdict": str(r.get("verdict")).upper(),
                }
            )
    return pd.DataFrame(rows)


def render(tune: TuneRead, fmt: str = "png", title: str | None = None) -> str:
    """The page of ``tune`` (:func:`read`): HTML, every figure inline."""
    j = tune.journal
    toc: list[tuple[str, str]] = []
    body: list[str] = []

    def section(h: str, *parts: str, note: str = "") -> None:
        anchor = f"s{len(toc) + 1}"
        toc.append((anchor, h))
        body.append(f'<h2 id="{anchor}">{_esc(h)}</h2>')
        if note:
            body.append(f'<p class="note">{_esc(note)}</p>')
        body.extend(parts)

    table, notes = _proposal(tune)
    section(
        "Proposal 提案",
        report.table(table),
        _list(notes),
        note="Each varied key: the rulebook's value, the proposal's, and why a key the "
        "proposal leaves alone keeps its value (from result.json when the tune wrote one).",
    )
    section(
        "Targets 目标",
        report.table(_targets(tune)),
        note=f"On fresh walls (seed {j.confirm.seed if j.confirm else '–'}, hands the search "
        "never saw), 95% intervals, the match as the unit: met = the interval inside the "
        "tolerance, not met = wholly outside, inconclusive = neither. The paired difference "
        "is compare's, on the same walls.",
    )
    section(
        "Budget 预算",
        report.table(_budget(tune)),
        note="What the budget could confirm, per target: the confirmation's expected 95% "
        "half-width and the --budget at which the target is confirmable with 80% power "
        "(a one-sided target has no width to reach).",
    )
    effects = tune.side_effects()
    n = sum(e["verdict"] == "differs" for e in effects)
    section(
        "Side effects 副作用",
        report.table(_effects(tune)) if effects else "<p>None recorded.</p>",
        note=f"{n} of {len(effects)} other figures differ: every figure of mjlog compare "
        "that is not a target, proposal − rules as they are, paired on the confirmation's "
        "walls, through compare's decision (those that differ first)."
        if tune.compared is not None
        else "No paired comparison: the proposal is the rules as they are."
        if tune.before is None
        else "Not recorded: this tune's journal was written before tunes compared the "
        "proposal with the rules as they are on every figure (mjlog compare DIR/confirm-before "
        "DIR/confirm does, when the runs are there).",
    )
    section(
        "Response 响应",
        report.figure(response_figure(tune), fmt),
        note="One panel per target and varied key. Every trial was played on the same "
        "walls, so they differ by the rules alone; a trial without an interval has its "
        "run no longer in the directory.",
    )
    section("Trials 试验", report.table(_trials(tune)))
    section(
        "Race 竞赛",
        report.table(_race(tune))
        if j.race
        else "<p>No race: its budget held no round (or the field was one).</p>",
        note="The best few, the rules as they are and the best nearer them, played again on "
        "fresh shared walls until one is best in 95% of paired bootstrap resamples.",
    )
    if j.recheck:
        section("Rechecks 复核", report.table(_rechecks(tune)))
    ex = tune.extras
    lead = (
        f"mjlog tune {j.variant}, tune {j.tune_id}; {tune.stage()}"
        + (f"; tuned with {', '.join(ex['agents'])}" if ex.get("agents") else "")
        + (f"; --budget {ex['budget']:,}" if ex.get("budget") else "")
        + (f"; seed {ex['seed']}" if ex.get("seed") is not None else "")
        + f"; {_hands(j):,} hands played. Click a column head to sort a table."
    )
    return report.page(title or f"mjlog tune {j.variant} · {j.tune_id}", lead, toc, body)


def _hands(j: TuneJournal) -> int:
    return (
        sum(t.hands for t in j.trials)
        + sum(r.hands for r in j.race)
        + (j.confirm.hands if j.confirm else 0)
        + sum(r.hands for r in j.recheck.values())
    )


def _esc(x: Any) -> str:
    import html

    return html.escape(str(x), quote=True)


def _list(items: Sequence[str]) -> str:
    return "<ul>" + "".join(f"<li>{_esc(x)}</li>" for x in items) + "</ul>" if items else ""


def write_page(
    path: str | Path, out: str | Path, fmt: str = "png", title: str | None = None
) -> Path:
    """Write ``out/index.html`` for the tune in ``path``; returns its path. Written
    whole or not at all; a failed write leaves no folder it made."""
    from mjlog.rundir import removing_new_dirs, write_atomic

    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be png or svg, not {fmt!r}")
    text = render(read(path), fmt, title)
    out = Path(out)
    with removing_new_dirs(out):
        out.mkdir(parents=True, exist_ok=True)
        return write_atomic(out / "index.html", text, "--out")
