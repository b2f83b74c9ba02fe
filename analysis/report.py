"""One self-contained HTML report comparing runs: tables and figures inline, no network.

:func:`write_report` computes every table once (:func:`analysis.queries.tables`),
draws every figure (:func:`analysis.plots.figures`) and writes ``OUT/index.html``
with the figures as base64 PNG (or SVG) ``data:`` URIs. The report names the
runs, their rule changes and their agents (with parameters) at the top, and
every table and legend names the agent line-up. Nothing in it depends on the
time or the host, so the same runs give the same file. For example::

    write_report(["data/yuxi", "data/xuezhan", "data/huangmei"], "/tmp/report")
    # -> /tmp/report/index.html (tests/test_report_cli.py checks it)
"""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from analysis import plots, queries
from analysis.queries import GROUP

__all__ = ["render", "write_report"]

_CSS = """
body { font-family: "Noto Sans", "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei",
       sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; }
th { background: #f3f3f3; } td:nth-child(-n+3) { text-align: left; }
img { max-width: 100%; display: block; margin: 0.8em 0; }
p.note { color: #555; font-size: 0.9em; }
"""


def _ci(df: pd.DataFrame, col: str, digits: int = 3) -> pd.Series:
    """``value [lo, hi]`` strings."""
    def one(r):
        v, lo, hi = r[col], r.get(f"{col}_lo"), r.get(f"{col}_hi")
        if pd.isna(v):
            return "–"
        if lo is None or pd.isna(lo):
            return f"{v:.{digits}f}"
        return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
    return df.apply(one, axis=1)


def _table(df: pd.DataFrame, columns: dict[str, str] | None = None,
           ci: dict[str, str] | None = None, floats: int = 3) -> str:
    out = pd.DataFrame(index=df.index)
    for c, name in (columns or {c: c for c in df.columns}).items():
        out[name] = df[c]
    for c, name in (ci or {}).items():
        out[name] = _ci(df, c)
    fmt = {c: (lambda v, d=floats: "–" if pd.isna(v) else f"{v:.{d}f}")
           for c in out.columns if pd.api.types.is_float_dtype(out[c])}
    return out.to_html(index=False, escape=True, formatters=fmt, border=0, na_rep="–")


def _img(fig, fmt: str) -> str:
    if fmt == "svg":
        data, mime = plots.to_svg(fig), "image/svg+xml"
    else:
        data, mime = plots.to_png(fig), "image/png"
    title = html.escape(fig._suptitle.get_text() if fig._suptitle else "figure")
    return (f'<img alt="{title}" src="data:{mime};base64,'
            f'{base64.b64encode(data).decode("ascii")}">')


_G = {"variant": "variant 玩法", "config": "rules 规则", "lineup": "agents by seat 智能体"}
_SEAT_CI = {"win_rate": "win rate 胡牌率", "self_draw_share": "self-draw share 自摸占比",
            "deal_in_rate": "deal-in rate 点炮率", "mean_points": "mean points 平均得分"}


def render(t: dict[str, pd.DataFrame], figs: dict, fmt: str = "png",
           title: str = "mjlog report") -> str:
    """The HTML page for the tables ``t`` (:func:`analysis.queries.tables`) and figures."""
    runs = t["runs"]
    parts = [
        "<!doctype html>",
        '<html lang="zh"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{len(runs)} run(s), {int(runs.hands.sum()):,} hands; variants "
        f"{html.escape(', '.join(dict.fromkeys(runs.variant)))}; agents "
        f"{html.escape('; '.join(dict.fromkeys(runs.agents)))}. Groups pool runs of the same "
        "variant, rules and agent line-up (agents listed seat by seat). Intervals are 95% "
        "and take the match as the unit, as mjlog ladder does (cluster-robust t interval "
        "of a ratio of per-match sums).</p>",
        "<h2>Runs 运行</h2>",
        _table(runs, {"run_id": "run", "variant": "variant", "config": "rules changed",
                      "agents": "agents (seat 0..n-1)", "seed": "seed", "matches": "matches",
                      "hands_per_match": "hands/match", "hands": "hands",
                      "path": "directory"}),
    ]

    def section(h: str, fig: str | None, *body: str, note: str = "") -> None:
        parts.append(f"<h2>{html.escape(h)}</h2>")
        if note:
            parts.append(f'<p class="note">{html.escape(note)}</p>')
        if fig is not None:
            parts.append(_img(figs[fig], fmt))
        parts.extend(body)

    c = t["compare"]
    section("Comparison 对比", "compare", _table(c, {
        **_G, "hands": "hands", "draw_rate": "drawn 流局率", "mean_length": "events/hand",
        "wins": "wins", "mean_win_points": "points/win", "p90_win_points": "p90",
        "max_win_points": "max", "share_capped": "capped", "mean_moved_per_hand":
        "moved/hand", "dealer_win_rate": "dealer win rate", "dealer_advantage":
        "dealer advantage", "share_kong": "kong share", "share_settlement":
        "settlement share"}),
        note="Variants, sweep points and line-ups side by side; G1, G2… in the figure are "
             "the rows of this table in order.")
    for key, h in (("seats", "Per seat 每个座位"), ("agents", "Per agent 每个智能体"),
                   ("variants", "Per variant 每个玩法")):
        df = t[key]
        cols = {**_G, **{k: k for k in ("seat", "agent") if k in df}, "hands": "hands"}
        section(h, key, _table(df, cols, _SEAT_CI),
                note="win rate = hands won / hands; self-draw share = self-drawn wins / "
                     "wins; deal-in rate = hands the seat paid for a win as discarder / hands;"
                     " mean points = mean of the seat's hands.deltas.")
    d = t["dealer"]
    section("Dealer advantage 庄家优势", "dealer", _table(
        d, {**_G, "position": "seat after dealer", "hands": "hands",
            "advantage": "advantage (points vs the others)"},
        {"win_rate": "win rate", "mean_points": "mean points"}),
        note="position 0 is the dealer; advantage = its mean points minus the other "
             "positions' pooled mean.")
    p = t["patterns"]
    top = p.groupby(list(GROUP), sort=False).head(15)
    section("Patterns 番种", "patterns", _table(
        top, {**_G, "name": "番种", "pattern": "key", "wins_with": "wins with it",
              "count": "times counted", "per_hand": "per hand",
              "points_share": "share of all points"}, {"per_win": "per win"}),
        note="per win = wins counting the pattern / wins; share of all points = Σ total of "
             "the wins counting it / Σ total of all wins (a win counts for every pattern it "
             "has, so shares add to more than 1). Top 15 per group.")
    dist_cols = {**_G, "n": "n", "var": "variance", "p50": "p50", "p90": "p90",
                 "p99": "p99", "max": "max"}
    section("Points per win 每次胡牌得分", "win_points", _table(
        t["win_points"], {**dist_cols, "share_capped": "share capped"}, {"mean": "mean"}),
        note="wins.total: everything a win brought its winner.")
    section("Points per hand 每局流动金额", "hand_points", _table(
        t["hand_points"], {**dist_cols, "share_capped": "hands with a capped win"},
        {"mean": "mean"}), note="money moved in a hand = Σ of its positive hands.deltas.")
    o = t["outcomes"]
    section("Hand length and drawn hands 局长与流局", "hand_length",
            _img(figs["outcomes"], fmt),
            _table(t["hand_length"], dist_cols, {"mean": "mean events"}),
            _table(o, {**_G, "hands": "hands", "draws": "drawn hands",
                       "mean_wall_left": "tiles left", "mean_winners": "winners/hand"},
                   {"draw_rate": "drawn-hand rate 流局率"}))
    m = t["money"]
    section("Kong money and end-of-wall settlements 杠钱与结算", "money", _table(
        m, {**_G, "name": "名称", "reason": "reason", "amount": "amount",
            "share": "share of money moved", "share_of_transfers": "share of transfers",
            "hands_with": "hands with it", "per_hand": "per hand"}),
        _table(t["money_category"], {**_G, "category": "category", "amount": "amount",
                                     "share": "share of money moved",
                                     "hands_with": "hands with it"}),
        note="share = Σ amount of the reason's transfers / Σ money moved (Σ positive deltas "
             "per hand). 查大叫 not_ready, 查花猪 flower_pig and 退税 tax_refund are the "
             "end-of-wall settlements.")
    fw = t["first_winner"]
    section("First-winner advantage 先胡优势", "first_winner", _table(
        fw, {**_G, "order": "order of winning", "hands": "seat-hands"},
        {"mean_points": "mean points", "deal_in_rate": "deal-in rate"}),
        note="Seats by the order they won in (none: did not win). In xuezhan (血战到底) "
             "winners leave and play goes on, so later winners face fewer payers.")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(runs: Iterable[str | os.PathLike] | queries.Runs, out: str | os.PathLike,
                 fmt: str = "png", title: str = "mjlog report") -> Path:
    """Write ``out/index.html`` for ``runs``; returns its path."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be png or svg, not {fmt!r}")
    r = queries.as_runs(runs)
    t = queries.tables(r)
    figs = plots.figures(t)
    page = render(t, figs, fmt, title)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    tmp = out / f".index.html.tmp-{os.getpid()}"
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
    return path
