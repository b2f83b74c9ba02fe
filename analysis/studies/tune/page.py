"""A tune as a page: ``mjlog report TUNE_DIR`` renders a tune's directory as one HTML page.

The page shows the proposal against the rules as they are (the keys it changes, why
it keeps the others, where a changed pattern now stands), each target on the
confirmation's fresh walls with its paired difference from the rulebook, what the
budget could confirm, every side effect (those that differ first), how each target
responded to each varied key (one panel per target × key, each trial with its 95 %
interval and the tolerance band drawn), the trials and the race. It is built on the
report's page (:func:`analysis.report.page`: its style, sortable tables, inline
figures and Content-Security-Policy). The directory is read as untrusted input by
:mod:`.reading` (a damaged or unfinished one is refused in one line).

>>> from analysis.studies.sample import data_dir
>>> fig = response_figure(read(data_dir() / "tune" / "huangmei-qidui"))
>>> [ax.get_xlabel() for ax in fig.axes]
['fan.qidui 七一对']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from analysis import fonts, report
from analysis.studies.tune.grammar import Target
from analysis.studies.tune.journal import TuneJournal
from analysis.studies.tune.reading import MAX_BYTES, TuneRead, is_tune, read
from mjlog.judgement import INTERVAL

__all__ = ["MAX_BYTES", "TuneRead", "is_tune", "read", "render", "response_figure", "write_page"]


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
    no_change = tune.extras.get("no_change") or ""
    if no_change:
        notes.append(f"No change proposed: {no_change}.")
    ch = tune.journal.choice
    # said once: the reason for no change often is that no varied key moves a target
    if ch is not None and ch.unmoved and not all(m in no_change for m in ch.unmoved):
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
    # no change proposed: the confirmation measured the rules as they are, so its
    # figures fill that column (none was played beside them to pair with)
    before = {r["metric"]: r for r in (tune.judged if tune.unchanged else tune.before or [])}
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
                "proposal − rules as they are (paired)": "none: the same rules"
                if tune.unchanged
                else "–"
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
                "budget to propose (80% power at T/2 off)": "–"
                if s is None or s.get("hands_to_propose") is None
                else f"{s['hands_to_propose']:,}",
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
        "never saw), 95% intervals shown, the match as the unit; the verdict reads the "
        f"{INTERVAL:.0%} interval (docs/cli.md, verdicts): met = inside the tolerance, "
        "not met = wholly outside, inconclusive = neither. The paired difference is "
        "compare's, on the same walls.",
    )
    section(
        "Budget 预算",
        report.table(_budget(tune)),
        note="What the budget could confirm, per target: the confirmation's expected 95% "
        "half-width, the --budget at which the target is confirmable with 80% power, "
        "and the one at which a proposal half the tolerance off the target's centre is "
        "(what --budget auto takes; a one-sided target has no width to reach).",
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
