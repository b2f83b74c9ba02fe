"""One self-contained HTML report comparing runs: findings, tables and figures inline.

:func:`write_report` computes every table once (:func:`analysis.queries.tables`, plus
swing, skill and precision from :mod:`analysis.balance` and
:func:`analysis.compare.precision`), draws every figure
(:func:`analysis.plots.figures`) and writes ``OUT/index.html`` with the figures as
base64 PNG (or SVG) ``data:`` URIs. The page opens with a table of contents and a
*findings* section: each sentence gives its 95% interval and says whether the
difference from 0 (or from the baseline sweep point, paired by walls) is
significant. Every interval takes the match as its unit, as the CLI does, and the
units are the CLI's (points per seat-hand, points per hand, share of wins…).

Safety: every string that reaches the page (run paths, agent names, rule values,
table cells) goes through :func:`html.escape`; the page's Content-Security-Policy
allows nothing but its own inline style and script (by their sha256) and
``data:`` images, so a hostile run directory cannot make the page load or run
anything. Nothing depends on the time or the host: the same runs give the same
file. For example::

    write_report(["data/yuxi", "data/xuezhan", "data/huangmei"], "/tmp/report")
    # -> /tmp/report/index.html (tests/analysis/test_report_cli.py checks it)
"""

from __future__ import annotations

import base64
import html
import math
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from analysis import compare, plots, queries
from analysis.caveats import MIN_MATCHES, TOO_FEW, lineup_warnings, too_few
from analysis.queries import GROUP
from analysis.rates import rare_note
from mjlog import metrics
from mjlog.judgement import Verdict
from mjlog.viewer import csp as _csp

__all__ = ["CSP", "figure", "findings", "page", "render", "table", "write_report"]

_CSS = """
body { font-family: "Noto Sans", "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei",
       sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; display: block;
        overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th.asc::after { content: " \\25B2"; } th.desc::after { content: " \\25BC"; }
td:nth-child(-n+3) { text-align: left; }
img { max-width: 100%; display: block; margin: 0.8em 0; }
p.note { color: #555; font-size: 0.9em; }
ul.findings li, ul.answer li { margin: 0.35em 0; } .caveat { color: #a40; }
nav ol { columns: 2; }
"""

# Click a column head to sort by it (numbers by value: the first number in the cell).
_JS = """
document.querySelectorAll("table.sortable").forEach(function (t) {
  var heads = t.querySelectorAll("thead th");
  heads.forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = !th.classList.contains("asc");
      heads.forEach(function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(asc ? "asc" : "desc");
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      function key(r) {
        var s = r.cells[col] ? r.cells[col].textContent.trim() : "";
        var m = s.match(/^[-+]?\\d[\\d,]*(\\.\\d+)?(e[-+]?\\d+)?/i);
        return m ? parseFloat(m[0].replace(/,/g, "")) : s;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), c;
        if (typeof x === "number" && typeof y === "number") c = x - y;
        else c = String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


CSP = _csp(scripts=[_JS], styles=[_CSS]).replace(
    "default-src 'none'", "default-src 'none'; img-src data:", 1
)
"""The page's Content-Security-Policy (the viewer's, :func:`mjlog.viewer.csp`): its own
inline style and script by their sha256, ``data:`` images, nothing else (no
``unsafe-inline``; Trusted Types: the sorting script builds nothing from strings)."""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _fmt(v, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{digits}f}"


def _ci(df: pd.DataFrame, col: str, digits: int = 3) -> pd.Series:
    """``value [lo, hi]`` strings."""

    def one(r):
        v, lo, hi = r[col], r.get(f"{col}_lo"), r.get(f"{col}_hi")
        if pd.isna(v):
            return "–"
        if lo is None or pd.isna(lo):
            return f"{v:.{digits}f}"
        return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"

    return df.apply(one, axis=1) if len(df) else pd.Series([], dtype=object)


def _table(
    df: pd.DataFrame,
    columns: dict[str, str] | None = None,
    ci: dict[str, str] | None = None,
    floats: int = 3,
) -> str:
    """An escaped, sortable HTML table (pandas escapes every cell and head)."""
    out = pd.DataFrame(index=df.index)
    for c, name in (columns or {c: c for c in df.columns}).items():
        if c in df:
            out[name] = df[c]
    for c, name in (ci or {}).items():
        if c in df:
            out[name] = _ci(df, c)
    fmt: dict[str, Callable[..., str]] = {
        c: (lambda v, d=floats: "–" if pd.isna(v) else f"{v:.{d}f}")
        for c in out.columns
        if pd.api.types.is_float_dtype(out[c])
    }
    page = out.to_html(
        index=False, escape=True, formatters=fmt, border=0, na_rep="–", classes="sortable"
    )
    # pandas styles the head row inline; the CSP allows no style attribute (the
    # stylesheet right-aligns cells anyway)
    return page.replace(' style="text-align: right;"', "")


def _img(fig, fmt: str) -> str:
    if fmt == "svg":
        data, mime = plots.to_svg(fig), "image/svg+xml"
    else:
        data, mime = plots.to_png(fig), "image/png"
    title = _e(fig._suptitle.get_text() if fig._suptitle else "figure")
    return f'<img alt="{title}" src="data:{mime};base64,{base64.b64encode(data).decode("ascii")}">'


_G = {"variant": "variant 玩法", "config": "rules 规则", "lineup": "agents by seat 智能体"}
_SEAT_CI = {
    "win_rate": "win rate 胡牌率 (share of hands)",
    "self_draw_share": "self-draw share 自摸占比 (of wins)",
    "deal_in_rate": "deal-in rate 点炮率 (share of hands)",
    "mean_points": "mean points 平均得分 (per seat-hand)",
}


def _sig(lo: float, hi: float) -> str:
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "not testable (too few matches)"
    if lo > 0 or hi < 0:
        return "significant at the 5% level (the interval excludes 0)"
    return "not significant at the 5% level (the interval includes 0)"


def _label(r) -> str:
    config = queries.mark_defaults(str(r["variant"]), str(r["config"]))
    cfg = "" if config == "default" else f" {config}"
    return f"{r['variant']}{cfg} [{r['lineup']}]"


def findings(t: dict[str, pd.DataFrame]) -> list[str]:
    """The report's findings as plain sentences (escaped when rendered), each with its
    95% interval (the match as the unit) and whether it is significant.

    The line-up warnings (:func:`analysis.caveats.lineup_warnings`) come first. A figure
    resting on too few matches (:func:`analysis.caveats.too_few`) is not stated: a group
    of fewer than :data:`~analysis.caveats.MIN_MATCHES` matches gets one sentence saying
    "too few hands to say", and a figure whose interval could not be computed says so
    in its own sentence."""
    c = t["compare"]
    small = c[[too_few(m) for m in c["matches"]]]
    out = [f"Caveat: {w}" for w in lineup_warnings(t["seats"], t["money"])]
    out += [
        f"{_label(r)}: {TOO_FEW} anything yet ({int(r.hands):,} hands in "
        f"{int(r.matches):,} matches; a finding needs at least {MIN_MATCHES} matches; "
        f"'How many hands' estimates how many a question needs)."
        for _, r in small.iterrows()
    ]

    def enough(df: pd.DataFrame | None) -> pd.DataFrame:
        """``df`` without the groups of too few matches."""
        if df is None or df.empty or small.empty:
            return pd.DataFrame() if df is None else df
        key = pd.MultiIndex.from_frame(df[list(GROUP)].astype(str))
        return df[~key.isin(pd.MultiIndex.from_frame(small[list(GROUP)].astype(str)))]

    d = enough(t["dealer"])
    out += _dealer_findings(d[d.position == 0])
    out += [
        f"{_label(r)}: {_drawn(r)}; {_win_points(t, r)}."
        for _, r in enough(t["outcomes"]).iterrows()
    ]
    out += _patterns_findings(enough(t["patterns"]))
    out += _swing_findings(enough(t.get("swing")))
    out += _skill_findings(enough(t.get("skill")))
    out += _paired_findings(t.get("paired", pd.DataFrame()))
    out += _precision_findings(enough(t.get("precision")))
    return _once(out, [_label(r) for _, r in c.iterrows()])


def _once(found: list[str], labels: list[str]) -> list[str]:
    """Each finding once: sentences that say the same of several groups (``LABEL: the
    same words``, say every point of a sweep the rule never touched) become one,
    naming the groups it holds for, in the place of the first."""
    by_label = sorted(set(labels), key=len, reverse=True)  # the longest label that fits
    said: dict[str, list[str]] = {}
    order: list[tuple[str, str | None]] = []
    for f in found:
        label = next((lb for lb in by_label if f.startswith(f"{lb}: ")), None)
        if label is None:
            order.append((f, None))
            continue
        rest = f[len(label) + 2 :]
        if rest not in said:
            said[rest] = []
            order.append((rest, rest))
        said[rest].append(label)
    out = []
    for text, said_of in order:
        if said_of is None:
            out.append(text)
            continue
        rest = said_of
        groups = said[rest]
        if len(groups) == 1:
            out.append(f"{groups[0]}: {rest}")
        else:
            out.append(f"{_groups(groups)}, alike: {rest}")
    return out


def _groups(labels: list[str]) -> str:
    """Several group labels in few words: ``yuxi [agents] at cap=64 (default), cap=16``
    when they share the variant and line-up, else the labels joined."""
    import re

    found = [re.fullmatch(r"(\S+)(?: (.*))? (\[[^\]]*\])", lb) for lb in labels]
    parts = [m for m in found if m is not None]
    if len(parts) == len(found) and len({(m.group(1), m.group(3)) for m in parts}) == 1:
        head = parts[0]
        configs = ", ".join(m.group(2) or "default" for m in parts)
        return f"{head.group(1)} {head.group(3)} at {configs}"
    return "; ".join(labels)


def headline(t: dict[str, pd.DataFrame]) -> list[str]:
    """The designer's answer, one sentence per comparison (``t["paired_all"]``: every
    metric of each point against the first, :func:`analysis.compare.paired_comparison`):
    how many hands end otherwise, which figures differ, which are identical or
    equivalent, which are inconclusive and about how many hands would settle them.
    Comparisons with the same answer are said once, naming their points. A cap no win
    reached is said first."""
    pc = t.get("paired_all")
    out = _cap_headline(t)
    if pc is None or pc.empty:
        return out
    said: dict[str, list[str]] = {}
    labels = [_short(str(x)) for x in (pc["baseline_group"].iloc[0], *pc["group"].unique())]
    common, configs = _common(labels)
    name = dict(zip(labels, configs, strict=True))
    base = name[labels[0]]
    for (_b, g), rows in pc.groupby(["baseline_group", "group"], sort=False):
        said.setdefault(_answer(rows), []).append(name[_short(str(g))])
    for answer, points in said.items():
        out.append(f"{common}{', '.join(points)} against {base}: {answer}")
    return out


def _short(group: str) -> str:
    """A comparison's group without its directory: ``yuxi cap=16 [agents]``."""
    return group.rsplit("] ", 1)[0] + "]" if "] " in group else group


def _common(labels: list[str]) -> tuple[str, list[str]]:
    """(``"yuxi [agents]: "``, the rule settings) when every label shares its variant
    and line-up, else ("", the labels)."""
    import re

    found = [re.fullmatch(r"(\S+)(?: (.*))? (\[[^\]]*\])", lb) for lb in labels]
    parts = [m for m in found if m is not None]
    if len(parts) == len(found) and len({(m.group(1), m.group(3)) for m in parts}) == 1:
        return f"{parts[0].group(1)} {parts[0].group(3)}: ", [
            m.group(2) or "default" for m in parts
        ]
    return "", labels


def _answer(rows: pd.DataFrame) -> str:
    """One comparison's answer in words (:func:`headline`)."""
    r0 = rows.iloc[0]
    hands = int(r0["hands"])
    out = []
    if too_few(r0["units"]):
        return f"{_few(r0['units'])}."
    n = r0.get("hands_differing")
    if bool(r0["paired"]) and n is not None and n == n:
        hi = r0.get("hands_differing_hi")
        bound = f"; 95% upper bound {hi:.1%} of hands" if hi == hi else ""
        out.append(
            f"no hand's outcome differs (0 of {hands:,}{bound})"
            if n == 0
            else f"the outcome of {int(n):,} of {hands:,} hands differs"
        )
    elif not bool(r0["paired"]):
        out.append(f"unpaired ({r0['pairing_note']})")
    by = {
        v: rows[rows.verdict == v] for v in (Verdict.DIFFERS, Verdict.IDENTICAL, Verdict.EQUIVALENT)
    }
    if len(by[Verdict.IDENTICAL]) == len(rows):
        out.append("every figure is identical")
    else:
        if len(by[Verdict.DIFFERS]):
            out.append(
                "differs: "
                + "; ".join(
                    f"{r.metric} {r['diff']:+.3g} [{r.lo:+.3g}, {r.hi:+.3g}] {r.unit}"
                    for _, r in by[Verdict.DIFFERS].iterrows()
                )
            )
        for v in (Verdict.IDENTICAL, Verdict.EQUIVALENT):
            if len(by[v]):
                out.append(f"{v}: {_names(by[v].metric)}")
        inc = rows[rows.verdict == Verdict.INCONCLUSIVE]
        if len(inc):
            need = inc["hands_needed"].max()
            settle = (
                f" (about {max(need - hands, 0):,.0f} more hands a point would settle them all)"
                if need == need
                else ""
            )
            out.append(f"inconclusive: {_names(inc.metric)}{settle}")
        other = rows[rows.verdict.isna() | (rows.verdict == Verdict.EXPLORATORY)]
        if len(other):
            out.append(f"not tested: {_names(other.metric)}")
    return "; ".join(out) + "."


def _names(metrics) -> str:
    """Metric names, pattern rates gathered: ``draw_rate, pattern_rate[qidui, pinghu]``."""
    plain: list[str] = []
    pats: list[str] = []
    for m in metrics:
        (pats if m.startswith("pattern_rate[") else plain).append(m)
    if pats:
        plain.append("pattern_rate[" + ", ".join(p[len("pattern_rate[") : -1] for p in pats) + "]")
    return ", ".join(plain)


def _cap_headline(t: dict[str, pd.DataFrame]) -> list[str]:
    """'The cap never bound' when groups of several caps (a cap study) capped no win."""
    caps, c = t.get("caps"), t["compare"]
    if caps is None or caps["cap"].nunique() < 2 or "share_capped" not in c:
        return []
    m = c[[*GROUP, "share_capped", "max_win_points"]].merge(caps, on=list(GROUP))
    if m.empty or (m["share_capped"].fillna(0) > 0).any():
        return []
    most = ", ".join(
        f"{x:.0f} under cap {cap}" for x, cap in zip(m["max_win_points"], m["cap"], strict=True)
    )
    return [
        f"The cap never bound: no win was capped at any cap ({', '.join(map(str, m['cap']))}); "
        f"the most one payer paid for a win was {most}."
    ]


def _few(matches) -> str:
    """'too few hands to say (4 matches; a finding needs at least 30)'."""
    n = "no" if matches is None or matches != matches else f"{int(matches):,}"
    return f"{TOO_FEW} ({n} matches; a finding needs at least {MIN_MATCHES})"


def _dealer_findings(d: pd.DataFrame) -> list[str]:
    out = []
    for _, r in d.iterrows():
        if too_few(r.matches, r.advantage_lo, r.advantage_hi):
            s = f"{_label(r)}: the dealer's advantage: {_few(r.matches)}."
        else:
            s = (
                f"{_label(r)}: the dealer's advantage is {r.advantage:+.3f} points per hand "
                f"over the other seats (95% CI [{r.advantage_lo:+.3f}, "
                f"{r.advantage_hi:+.3f}], {int(r.matches)} matches); "
                f"{_sig(r.advantage_lo, r.advantage_hi)}."
            )
        if r.get("mixed") and not r.get("duplicate"):
            s += (
                " Caveat: a mixed line-up without duplicate play: the seats' agents differ, "
                "so this measures the agents as much as the seat."
            )
        out.append(s)
    return out


def _drawn(r) -> str:
    if too_few(r.matches, r.draw_rate_lo, r.draw_rate_hi):
        return f"drawn hands: {_few(r.matches)}"
    return (
        f"{r.draw_rate:.1%} of hands are drawn (95% CI [{r.draw_rate_lo:.1%}, "
        f"{r.draw_rate_hi:.1%}]{rare_note(r.get('draw_rate_count'))})"
    )


def _patterns_findings(p: pd.DataFrame) -> list[str]:
    out = []
    for _key, g in p.groupby(list(GROUP), sort=False) if len(p) else []:
        top = g.sort_values("contribution", ascending=False).iloc[0]
        ride = g.sort_values("per_win", ascending=False).iloc[0]
        if too_few(
            top.matches, top.contribution_lo, top.contribution_hi, ride.per_win_lo, ride.per_win_hi
        ):
            out.append(
                f"{_label(top)}: which pattern (番种) carries the points: {_few(top.matches)}."
            )
            continue
        out.append(
            f"{_label(top)}: {top['name']} {top.pattern} adds the largest share of "
            f"the points, {top.contribution:.1%} (95% CI [{top.contribution_lo:.1%}, "
            f"{top.contribution_hi:.1%}]); {ride['name']} {ride.pattern} is on the "
            f"most wins, {ride.per_win:.1%} of them (95% CI [{ride.per_win_lo:.1%}, "
            f"{ride.per_win_hi:.1%}]{rare_note(ride.get('per_win_count'))})."
        )
    return out


def _swing_findings(sw: pd.DataFrame) -> list[str]:
    out = []
    for _, r in sw.iterrows():
        what = f"{_label(r)}: a seat's match total ({r.hands_per_match:g} hands)"
        out.append(
            f"{what}: {_few(r.matches)}."
            if too_few(r.matches, r.sd_lo, r.sd_hi)
            else f"{what} has an SD of {r.sd:.1f} points (95% bootstrap CI [{r.sd_lo:.1f}, "
            f"{r.sd_hi:.1f}]); 90% of match totals lie in [{r.p5:+.0f}, {r.p95:+.0f}]."
        )
    return out


def _skill_findings(sk: pd.DataFrame) -> list[str]:
    """Duplicate groups only; the share always with its line-up and match length."""
    out = []
    for _, r in sk[sk["duplicate"].fillna(False).astype(bool)].iterrows() if len(sk) else []:
        what = (
            f"{_label(r)}: the skill share (line-up {r.lineup}, matches of "
            f"{r.hands_per_match:g} hands; it grows with match length)"
        )
        out.append(
            f"{what}: {_few(r.matches)}."
            if too_few(r.matches, r.skill_share_lo, r.skill_share_hi)
            else f"{what}: the agents explain {r.skill_share:.0%} of the variance of a seat's "
            f"match total (95% bootstrap CI [{r.skill_share_lo:.0%}, "
            f"{r.skill_share_hi:.0%}]), the walls and play the rest (luck)."
        )
    return out


def _paired_findings(pc: pd.DataFrame) -> list[str]:
    out, told = [], set()
    for _, r in pc.iterrows():
        if r.get("verdict") == Verdict.IDENTICAL:  # the answer says it, once
            continue
        what = f"{r.group} vs {r.baseline_group}: {r.metric}"
        if too_few(r.units):  # one sentence per pair of groups
            if (r.group, r.baseline_group) not in told:
                told.add((r.group, r.baseline_group))
                out.append(f"{r.group} vs {r.baseline_group}: {_few(r.units)}.")
            continue
        if too_few(r.units, r["diff"], r.lo, r.hi):  # `r.diff` is Series.diff
            out.append(f"{what}: {_few(r.units)}.")
            continue
        how = "paired by match" if r.paired else "unpaired"
        p_adj = "" if r.p_adjusted != r.p_adjusted else f", p_adj = {r.p_adjusted:.2g}"
        out.append(
            f"{what} {r['diff']:+.3f} {r.unit} (95% CI [{r.lo:+.3f}, {r.hi:+.3f}], "
            f"{how}, {int(r.units)} matches{p_adj}): "
            f"{compare.verdict_text(r.to_dict())}."
        )
    return out


def _precision_findings(pr: pd.DataFrame) -> list[str]:
    out = []
    for _, r in pr[pr.metric == "dealer_advantage"].iterrows() if len(pr) else []:
        if too_few(r.matches, r.half_width):
            out.append(
                f"{_label(r)}: how precisely the dealer advantage is known: {_few(r.matches)}."
            )
            continue
        out.append(
            f"{_label(r)}: the dealer advantage is known to ±{r.half_width:.3f} "
            f"points per hand (95% half-width) from {int(r.hands):,} hands; "
            f"±{r.target:g} needs about {_n(r.hands_needed)} hands."
        )
    return out


def _n(v) -> str:
    return "–" if v is None or v != v else f"{int(v):,}"


def _win_points(t, r) -> str:
    """Points per payer per win (``wins.points``) and the total over payers."""

    def row(name):
        w = t.get(name)
        if w is None:
            return None
        w = w[(w.variant == r.variant) & (w.config == r.config) & (w.lineup == r.lineup)]
        return None if w.empty or pd.isna(w["mean"].iloc[0]) else w.iloc[0]

    x, tot = row("win_points"), row("win_total")
    if x is None:
        return "no wins"
    if too_few(x.matches, x.mean_lo, x.mean_hi):
        return f"points per win: {_few(x.matches)}"
    out = (
        f"a win pays {x['mean']:.2f} points per payer on average (95% CI "
        f"[{x.mean_lo:.2f}, {x.mean_hi:.2f}], wins.points; at most {x['max']:.0f})"
    )
    if tot is not None and not too_few(tot.matches, tot.mean_lo, tot.mean_hi):
        out += (
            f", {tot['mean']:.2f} in all over its payers (95% CI [{tot.mean_lo:.2f}, "
            f"{tot.mean_hi:.2f}], wins.total)"
        )
    return out


def render(
    t: dict[str, pd.DataFrame], figs: dict, fmt: str = "png", title: str = "mjlog report"
) -> str:
    """The HTML page for the tables ``t`` (:func:`analysis.queries.tables`, and
    optionally ``swing``, ``skill``, ``precision``, ``paired``) and figures."""
    t = marked(t)
    runs = t["runs"]
    body: list[str] = []
    toc: list[tuple[str, str]] = []

    def section(h: str, fig: str | None, *parts: str, note: str = "") -> None:
        anchor = f"s{len(toc) + 1}"
        toc.append((anchor, h))
        body.append(f'<h2 id="{anchor}">{_e(h)}</h2>')
        if note:
            body.append(f'<p class="note">{_e(note)}</p>')
        if fig is not None:
            body.append(_img(figs[fig], fmt))
        body.extend(parts)

    answer = headline(t)
    if answer:
        section(
            "Answer 答案",
            None,
            '<ul class="answer">' + "".join(f"<li>{_e(a)}</li>" for a in answer) + "</ul>",
            note="Each point against the first, every figure of mjlog compare, paired by "
            "walls: identical = the same on every paired match; equivalent = within "
            "the margin (two one-sided tests); differs; inconclusive = neither yet.",
        )
    fs = findings(t)
    section(
        "Findings 结论",
        None,
        '<ul class="findings">'
        + "".join(f"<li{' class=caveat' if 'Caveat' in f else ''}>{_e(f)}</li>" for f in fs)
        + "</ul>",
        note="Each figure with its 95% interval; the unit of every interval is the match. "
        "Significant = the interval excludes 0 (a two-sided t test at 5%); paired "
        "comparisons also give p-values adjusted for the many metrics compared.",
    )
    section(
        "Runs 运行",
        None,
        _table(
            runs,
            {
                "run_id": "run",
                "variant": "variant",
                "config": "rules changed",
                "agents": "agents (seat 0..n-1)",
                "seed": "seed",
                "matches": "matches",
                "hands_per_match": "hands/match",
                "hands": "hands",
                "path": "directory",
            },
        ),
    )
    c = t["compare"]
    section(
        "Comparison 对比",
        "compare",
        _table(
            c,
            {
                **_G,
                "hands": "hands",
                "matches": "matches",
                "wins": "wins",
                "p90_win_points": "p90 points per payer per win",
                "max_win_points": "max points per payer per win",
                "max_win_total": "max total per win (all payers)",
            },
            {
                "draw_rate": "drawn 流局率 (share of hands)",
                "mean_length": "events/hand",
                "mean_win_points": "points per payer per win",
                "mean_win_total": "total per win (all payers)",
                "share_capped": "capped (share of wins)",
                "mean_moved_per_hand": "moved (points per hand)",
                "dealer_win_rate": "dealer win rate",
                "dealer_advantage": "dealer advantage (points per hand)",
                "share_kong": "kong (share of transfers)",
                "share_settlement": "settlement (share of transfers)",
            },
        ),
        note="Variants, sweep points and line-ups side by side, 95% CIs by match. A one-key "
        "sweep is drawn as a line over the swept value; otherwise G1, G2… in the figure "
        "are the rows of this table in order.",
    )
    if "paired" in t and len(t["paired"]):
        pc = t["paired"]
        section(
            "Paired comparison 配对比较",
            None,
            _table(
                pc,
                {
                    "baseline_group": "baseline",
                    "group": "other",
                    "metric": "metric",
                    "unit": "unit",
                    "baseline": "baseline value",
                    "value": "value",
                    "diff": "difference",
                    "lo": "95% CI low",
                    "hi": "95% CI high",
                    "p": "p",
                    "p_adjusted": "p (BH)",
                    "paired_se": "paired SE",
                    "unpaired_se": "unpaired SE",
                    "units": "matches",
                    "paired": "paired",
                },
                floats=4,
            ),
            note="Each sweep point against the first, matches paired by their walls (same "
            "seed): the paired SE is what the pairing buys over the unpaired one "
            "(mjlog compare gives the same table).",
        )
    for key, h in (
        ("seats", "Per seat 每个座位"),
        ("agents", "Per agent 每个智能体"),
        ("variants", "Per variant 每个玩法"),
    ):
        if not _adds(t, key):
            continue
        df = t[key]
        cols = {
            **_G,
            **{k: k for k in ("seat", "agent") if k in df},
            "hands": "seat-hands",
            "matches": "matches",
        }
        ci = dict(_SEAT_CI)
        if key == "variants":
            ci.pop("mean_points")
        section(
            h,
            key,
            _table(df, cols, ci),
            note="win rate = hands won / hands; self-draw share = self-drawn wins / "
            "wins; deal-in rate = hands the seat paid for a win as discarder / hands;"
            " mean points = mean of the seat's hands.deltas (per variant it is 0 by "
            "construction: the game is zero-sum, so it is not shown).",
        )
    d = t["dealer"]
    mixed = bool(("mixed" in d) and (d["mixed"] & ~d["duplicate"]).any())
    section(
        "Dealer advantage 庄家优势",
        "dealer",
        _table(
            d,
            {
                **_G,
                "position": "seat after dealer",
                "hands": "seat-hands",
                "matches": "matches",
                "mixed": "mixed line-up",
                "duplicate": "duplicate",
            },
            {
                "advantage": "advantage (points per hand vs the others)",
                "win_rate": "win rate",
                "mean_points": "mean points (per seat-hand)",
            },
        ),
        note="position 0 is the dealer; advantage = its mean points minus the other "
        "positions' pooled mean, paired within the match."
        + (
            " Caveat: some groups are mixed line-ups without duplicate play; there the "
            "agents at each position differ, so the advantage measures them as much as "
            "the seat. Use duplicate play (mjlog ladder --out, simulate --duplicate)."
            if mixed
            else ""
        ),
    )
    p = t["patterns"]
    top = p.groupby(list(GROUP), sort=False).head(15)
    section(
        "Patterns 番种",
        "patterns",
        _table(
            top,
            {
                **_G,
                "name": "番种",
                "pattern": "key",
                "wins_with": "wins with it",
                "count": "times counted",
                "per_hand": "per hand",
                "points_share": "points of the wins carrying it (overlapping)",
            },
            {
                "contribution": "share of points it adds 边际得分占比",
                "per_win": "share of wins that carry it 出现率",
            },
        ),
        note="share of points it adds = each win's total split among its patterns by what "
        "each adds (huangmei: its fan / the win's fan; yuxi, xuezhan: its log2 "
        "doubling), summed over wins / all points: these add to 100% per group. "
        "share of wins that carry it = wins counting it / wins. The overlapping "
        "column credits a win's whole total to each of its patterns (adds to more "
        "than 100%). Top 15 per group.",
    )
    dist_cols = {
        **_G,
        "n": "n",
        "var": "variance",
        "p50": "p50",
        "p90": "p90",
        "p99": "p99",
        "max": "max",
    }
    section(
        "Points per payer per win 每家支付",
        "win_points",
        _table(
            t["win_points"],
            dist_cols,
            {"mean": "mean (points per payer per win)", "share_capped": "share capped"},
        ),
        note="wins.points: what each payer of a win pays, the rulebook's points (a cap "
        "limits this figure).",
    )
    if "win_total" in t:
        section(
            "Total per win 每次胡牌总得分",
            None,
            _table(
                t["win_total"],
                dist_cols,
                {"mean": "mean (points per win, all payers)", "share_capped": "share capped"},
            ),
            note="wins.total: the sum over a win's payers, everything it brought its winner "
            "(a self-draw is paid by every other seat still in the hand).",
        )
    section(
        "Points per hand 每局流动金额",
        "hand_points",
        _table(
            t["hand_points"],
            dist_cols,
            {"mean": "mean (points per hand)", "share_capped": "hands with a capped win"},
        ),
        note="money moved in a hand = Σ of its positive hands.deltas.",
    )
    if "swing" in t:
        section(
            "Swing 波动",
            None,
            _table(
                t["swing"],
                {
                    **_G,
                    "matches": "matches",
                    "hands_per_match": "hands per match",
                    "mean_abs": "mean |total|",
                    "p5": "p5",
                    "p25": "p25",
                    "p50": "p50",
                    "p75": "p75",
                    "p95": "p95",
                },
                {"sd": "SD of a seat's match total (points)"},
            ),
            note="A seat's match total = its points summed over one match; the SD's 95% "
            "interval is a bootstrap over matches (seeded).",
        )
    if "skill" in t and t["skill"]["duplicate"].any():
        section(
            "Skill and luck 技术与运气",
            None,
            _table(
                t["skill"][t["skill"]["duplicate"]],
                {
                    **_G,
                    "matches": "matches",
                    "hands_per_match": "hands per match",
                    "agents": "line-up places",
                    "luck_share": "luck share",
                },
                {"skill_share": "skill share (ω², 95% bootstrap CI)"},
            ),
            note="Duplicate runs only: the share of the variance of a seat's match total "
            "explained by which agent sat there (ω²); the rest is the walls, the seat "
            "and the play. It holds for this line-up and this match length only: "
            "longer matches average more luck away, so the share grows with them.",
        )
    if "precision" in t:
        pr = t["precision"]
        pr = pr[~pr.metric.str.startswith("pattern_rate")]
        section(
            "How many hands 所需局数",
            None,
            _table(
                pr,
                {
                    **_G,
                    "metric": "metric",
                    "unit": "unit",
                    "value": "value",
                    "half_width": "95% half-width now",
                    "hands": "hands",
                    "target": "target ±",
                    "hands_needed": "hands needed",
                },
                floats=4,
            ),
            note="hands needed = hands × (half-width / target)²: the standard error falls as "
            "1/√hands. Targets: 0.1 points for point metrics, 0.01 for shares. "
            "mjlog simulate --until METRIC=HALF_WIDTH plays until one is reached.",
        )
    o = t["outcomes"]
    section(
        "Hand length and drawn hands 局长与流局",
        "hand_length",
        _img(figs["outcomes"], fmt),
        _table(t["hand_length"], dist_cols, {"mean": "mean events"}),
        _table(
            o,
            {
                **_G,
                "hands": "hands",
                "draws": "drawn hands",
                "matches": "matches",
                "mean_wall_left": "tiles left",
                "mean_winners": "winners/hand",
            },
            {"draw_rate": "drawn-hand rate 流局率 (share of hands)"},
        ),
    )
    m = t["money"]
    section(
        "Kong money and end-of-wall settlements 杠钱与结算",
        "money",
        _table(
            m,
            {
                **_G,
                "name": "名称",
                "reason": "reason",
                "amount": "amount",
                "hands_with": "hands with it",
                "share": "amount / money moved (net, reference)",
            },
            {"share_of_transfers": "share of all money transferred", "per_hand": "points per hand"},
        ),
        _table(
            t["money_category"],
            {**_G, "category": "category", "amount": "amount", "hands_with": "hands with it"},
            {"share_of_transfers": "share of all money transferred"},
        ),
        note=(
            "No money moved in these runs: not one transfer (every share below is undefined). "
            if m.empty
            else ""
        )
        + "share of all money transferred = Σ amount of the reason's transfers / Σ amount "
        "of every transfer (gross over gross: adds to 100%). Money moved (Σ positive "
        "deltas) is net: transfers within a hand cancel, so amount / money moved adds "
        "to more than 100% and is kept for reference only. 查大叫 not_ready, 查花猪 "
        "flower_pig and 退税 tax_refund are the end-of-wall settlements.",
    )
    fw = t["first_winner"]
    section(
        "First-winner advantage 先胡优势",
        "first_winner",
        _table(
            fw,
            {**_G, "order": "order of winning", "hands": "seat-hands"},
            {"mean_points": "mean points (per seat-hand)", "deal_in_rate": "deal-in rate"},
        ),
        note="Seats by the order they won in (none: did not win). In xuezhan (血战到底) "
        "winners leave and play goes on, so later winners face fewer payers.",
    )

    lead = (
        f"{len(runs)} run(s), {int(runs.hands.sum()):,} hands; variants "
        f"{', '.join(dict.fromkeys(map(str, runs.variant)))}; agents "
        f"{'; '.join(dict.fromkeys(map(str, runs.agents)))}. Groups pool runs of the same "
        "variant, rules and agent line-up (agents listed seat by seat). Intervals are 95% "
        "and take the match as the unit, as mjlog ladder and mjlog compare do "
        "(cluster-robust t interval of a ratio of per-match sums). Click a column head to "
        "sort a table."
    )
    return page(title, lead, toc, body)


def page(title: str, lead: str, toc: list[tuple[str, str]], body: list[str]) -> str:
    """A whole report page: ``title`` and the ``lead`` paragraph (plain text, escaped
    here), a table of contents of ``toc`` (anchor, heading), then ``body`` (HTML), under
    the report's style, sorting script and Content-Security-Policy (:data:`CSP`). Every
    page of mjlog report is built here (the runs' :func:`render`, a tune's
    :mod:`analysis.studies.tune.page`).

    >>> page("t", "a < b", [("s1", "One")], ["<h2 id=s1>One</h2>"]).count("a &lt; b")
    1
    """
    head = [
        "<!doctype html>",
        '<html lang="zh"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(lead)}</p>",
        "<nav><h2>Contents 目录</h2><ol>"
        + "".join(f'<li><a href="#{a}">{_e(h)}</a></li>' for a, h in toc)
        + "</ol></nav>",
    ]
    return "\n".join([*head, *body, f"<script>{_JS}</script>", "</body></html>"]) + "\n"


def table(df: pd.DataFrame, columns: dict[str, str] | None = None, floats: int = 3) -> str:
    """``df`` as the report's escaped, sortable HTML table (``columns``: the columns
    shown, renamed; floats with ``floats`` decimals)."""
    return _table(df, columns, floats=floats)


def figure(fig, fmt: str = "png") -> str:
    """A matplotlib figure as the report embeds it: an ``<img>`` with the PNG (or SVG)
    inline as a ``data:`` URI, its suptitle as the ``alt`` text."""
    return _img(fig, fmt)


def _adds(t: dict[str, pd.DataFrame], key: str) -> bool:
    """Whether the per-agent or per-variant section says anything the per-seat one
    does not: one agent in every seat makes "per agent" the seats pooled, one variant
    makes "per variant" the same pool (its mean points 0 by construction)."""
    if key == "agents":
        return t["agents"]["agent"].nunique() > 1 if "agent" in t["agents"] else True
    if key == "variants":
        return t["runs"]["variant"].nunique() > 1
    return True


def marked(t: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The tables with every rule value that is its variant's default marked
    ``(default)`` in their ``config`` (:func:`analysis.queries.mark_defaults`)."""
    out = {}
    for k, df in t.items():
        if isinstance(df, pd.DataFrame) and {"variant", "config"} <= set(df.columns):
            df = df.assign(
                config=[
                    queries.mark_defaults(str(v), str(c))
                    for v, c in zip(df["variant"], df["config"], strict=True)
                ]
            )
        out[k] = df
    return out


def _paired(r: queries.Runs) -> pd.DataFrame | None:
    """Sweep points against the first, when the runs are one variant and line-up and
    each group is one run (the report's headline and paired section)."""
    info = r.info()
    if (
        len(info) < 2
        or info.variant.nunique() != 1
        or info.agents.nunique() != 1
        or info.config.nunique() != len(info)
    ):
        return None
    return compare.paired_comparison([x.path for x in r.runs])


def _key_rows(pc: pd.DataFrame) -> pd.DataFrame:
    """The paired comparison's key metrics, those of one figure each (the report's
    table and findings; :func:`mjlog.metrics.plain`)."""
    return pc[pc.metric.isin(metrics.plain())].reset_index(drop=True)


def _targets(metric: str) -> float:
    return 0.01 if metric.endswith(("rate", "share")) or metric.startswith("pattern_rate") else 0.1


LARGE = 100_000
"""Runs of at least this many hands make :func:`write_report` (``progress=None``) say
on stderr which step it is at: there the tables take minutes, not seconds."""


def _steps(enabled: bool | None, hands: int) -> Callable[[str], None]:
    """``say(step)``: ``report: STEP, 12 s`` on stderr, or nothing (``enabled`` False,
    or None and fewer than :data:`LARGE` hands)."""
    start = time.monotonic()
    show = hands >= LARGE if enabled is None else enabled

    def say(step: str) -> None:
        if show:
            print(f"report: {step}, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)

    return say


def write_report(
    runs: Iterable[str | os.PathLike] | queries.Runs,
    out: str | os.PathLike,
    fmt: str = "png",
    title: str = "mjlog report",
    progress: bool | None = False,
) -> Path:
    """Write ``out/index.html`` for ``runs``; returns its path. The page is written
    whole or not at all, and a failed write leaves no folder it made. ``progress``:
    a line on stderr per step (True), none (False), or only for runs of at least
    :data:`LARGE` hands (None, as ``mjlog report`` does)."""
    from analysis import balance

    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be png or svg, not {fmt!r}")
    r = queries.as_runs(runs)
    if r is not runs:
        # DuckDB's allocator (jemalloc) hands back what a query freed only when DuckDB
        # next allocates, unless its background thread does it (after its decay time,
        # 1 s unless mjlog report set it lower): between the queries the report works
        # in Python, where a 10M-hand run's pages DuckDB held (~100 MB) would stay.
        # Global to the process: only for runs that are ours.
        r.con.execute("SET allocator_background_threads = true")
    hands = sum(x.hands for x in r.runs)
    say = _steps(progress, hands)
    say(f"{len(r.runs)} runs, {hands:,} hands: computing the tables")
    for table in queries.COPIED:  # every query reads them: their files once, here
        r.copy(table)
    t = queries.tables(r)
    say("tables done; swing, skill and precision")
    t["swing"] = balance.swing(r)
    t["skill"] = balance.skill_share(r)
    pr = compare.precision(r)
    pr["target"] = pr["metric"].map(_targets)
    from analysis.stats import hands_needed

    pr["hands_needed"] = [
        hands_needed(h, n, x) for h, n, x in zip(pr.half_width, pr.hands, pr.target, strict=True)
    ]
    t["precision"] = pr
    paired = _paired(r)
    if paired is not None:
        t["paired_all"] = paired
        t["paired"] = _key_rows(paired)
    r.release()  # every table is made: DuckDB's rows go before the figures are drawn
    if r is not runs:  # and DuckDB itself, when the runs are ours (at 1M hands: 60 MB)
        r.close()
    say("drawing the figures")
    t = marked(t)
    figs = plots.figures(t)
    page = render(t, figs, fmt, title)
    from mjlog.rundir import removing_new_dirs, write_atomic

    out = Path(out)
    with removing_new_dirs(out):
        out.mkdir(parents=True, exist_ok=True)
        path = write_atomic(out / "index.html", page, "--out")
    say("page written")
    return path
