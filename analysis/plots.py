"""Figures (matplotlib) of the :mod:`analysis.queries` tables, with Chinese labels.

Each function takes the DataFrame its query returns and gives a
:class:`matplotlib.figure.Figure`; :func:`figures` makes all of them for a set of
runs, and :func:`to_png` / :func:`to_svg` turn one into bytes. Every legend names
the group (variant, rule changes, agent line-up), so a figure always says which
agents played. Labels are rendered with the CJK font of :mod:`analysis.fonts`.

>>> from analysis.studies.sample import tiny_run
>>> from analysis import queries
>>> fig = seat_figure(queries.seat_stats(tiny_run(), by="agent"))
>>> [ax.get_title() for ax in fig.axes][:2]
['胡牌率 win rate (share of hands)', '自摸占比 self-draw share (of wins)']
>>> to_png(fig)[:4]
b'\\x89PNG'
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import fonts, queries
from analysis.queries import group_label

__all__ = [
    "compare_figure",
    "sweep_key",
    "dealer_figure",
    "figures",
    "first_winner_figure",
    "histogram_figure",
    "money_figure",
    "outcomes_figure",
    "patterns_figure",
    "seat_figure",
    "texts",
    "to_png",
    "to_svg",
]

METRICS = {
    "win_rate": "胡牌率 win rate (share of hands)",
    "self_draw_share": "自摸占比 self-draw share (of wins)",
    "deal_in_rate": "点炮率 deal-in rate (share of hands)",
    "mean_points": "每局平均得分 mean points (per seat-hand)",
}

WHAT = {
    "win_points": ("每家支付 points per payer per win", "wins.points"),
    "win_total": ("每次胡牌总得分 total per win, all payers", "wins.total"),
    "win_base": ("每家支付 points per payer per win", "wins.points"),
    "hand_points": ("每局流动金额 money moved per hand", "Σ positive deltas"),
    "hand_length": ("每局事件数 hand length", "events per hand"),
    "wall_left": ("剩余牌墙 tiles left in the wall", "tiles"),
}

CATEGORY_NAMES = {
    "win": "胡牌 win",
    "kong": "杠 kong",
    "settlement": "结算 settlement",
    "other": "其他 other",
}


def _fig(nrows: int = 1, ncols: int = 1, w: float = 6.4, h: float = 4.0, n: int | None = None):
    """A figure of ``nrows`` × ``ncols`` cells, each ``w`` × ``h`` inches, and axes in its
    first ``n`` cells (all by default), row by row: a cell left empty costs nothing to
    draw or lay out, where a hidden axes is still made (some 20 ms each)."""
    fonts.use()
    # A bare Figure, not pyplot: no backend or global list of open figures involved.
    fig = Figure(figsize=(w * ncols, h * nrows), layout="constrained")
    grid = fig.add_gridspec(nrows, ncols)
    n = nrows * ncols if n is None else n
    axes = [fig.add_subplot(grid[i // ncols, i % ncols]) for i in range(n)]
    for ax in axes:
        # Two measurements the layout would redo at every pass and draw for nothing (the
        # page is the same, byte for byte): the top and right spines carry no ticks, so
        # they never reach past the axes; and no y axis here has a label (the tests hold
        # it so), and an empty label takes no room, so it is not placed beside the tick
        # labels, which would be measured again for that. (A y label would need this
        # line gone.)
        ax.spines[["top", "right"]].set_in_layout(False)
        ax.yaxis.set_label_coords(0, 0.5)
    return fig, axes


def _labels(df: pd.DataFrame) -> pd.Series:
    return group_label(df)


def _x_labels(df: pd.DataFrame) -> tuple[pd.Series, str]:
    if "seat" in df:
        # name the seat's agent on the axis when every group seats the same one there
        same = df.groupby("seat")["agent"].transform("nunique") == 1
        label = "座" + df["seat"].astype(str)
        return label.where(
            ~same, label + " " + df["agent"].astype(str)
        ), "座位 seat (agents: see the line-up in the legend)"
    if "agent" in df:
        return df["agent"].astype(str), "智能体 agent"
    if "position" in df:
        pos = df["position"].astype(int)
        return pos.map(
            lambda p: "庄 dealer" if p == 0 else f"庄下{p} dealer+{p}"
        ), "相对庄家 seat after the dealer"
    if "order" in df:
        return df["order"].astype(str), "胡牌顺序 order of winning"
    return pd.Series(["all"] * len(df), index=df.index), ""


def _grouped_bars(ax, df: pd.DataFrame, x: pd.Series, col: str, err: bool = True) -> None:
    """One bar series per group, side by side over the x categories, with CI whiskers."""
    labels = _labels(df)
    key = df["order"].map(lambda o: (o == "none", o)) if "order" in df else x
    cats = list(dict.fromkeys(x[key.sort_values(kind="stable").index]))
    groups = list(dict.fromkeys(labels))
    width = 0.8 / max(len(groups), 1)
    for i, g in enumerate(groups):
        sub = df[labels == g]
        xs = np.array([cats.index(v) for v in x[labels == g]]) - 0.4 + width * (i + 0.5)
        y = sub[col].astype(float).to_numpy()
        ok = ~np.isnan(y)  # no wins, say: no bar and no whisker, a note instead
        yerr = None
        if err and f"{col}_lo" in sub:
            lo = sub[f"{col}_lo"].astype(float).to_numpy()
            hi = sub[f"{col}_hi"].astype(float).to_numpy()
            yerr = np.vstack([np.clip(y - lo, 0, None), np.clip(hi - y, 0, None)])
            yerr = np.nan_to_num(yerr)[:, ok]
        bars = ax.bar(xs[ok], y[ok], width=width, yerr=yerr, capsize=2, label=g)
        for at in xs[~ok]:  # not `x`: that is the categories, for the next group
            ax.text(
                at,
                0,
                "n/a",
                ha="center",
                va="bottom",
                fontsize="x-small",
                color=bars.patches[0].get_facecolor() if bars.patches else "gray",
            )
    ax.set_xticks(range(len(cats)), cats, rotation=20 if len(cats) > 4 else 0)
    ax.grid(axis="y", alpha=0.3)


def _legend(fig: Figure, ax) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=min(len(labels), 2),
            fontsize="small",
            title="组 group: variant [agents by seat]",
        )


def _key_legend(fig: Figure, labels: Iterable[str]) -> list[str]:
    """A legend ``G1: group`` … under the figure, coloured C0, C1 …; returns the keys."""
    from matplotlib.patches import Patch

    labels = list(labels)
    keys = [f"G{i + 1}" for i in range(len(labels))]
    handles = [
        Patch(color=f"C{i % 10}", label=f"{k}: {g}")
        for i, (k, g) in enumerate(zip(keys, labels, strict=True))
    ]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncols=min(len(labels), 2),
        fontsize="small",
        title="组 group: variant [agents by seat]",
    )
    return keys


def seat_figure(
    df: pd.DataFrame, metrics: Iterable[str] = tuple(METRICS), title: str = ""
) -> Figure:
    """The :func:`~analysis.queries.seat_stats` figures (any ``by``) as bars with 95% CIs."""
    metrics = list(metrics)
    x, xlabel = _x_labels(df)
    ncols = 2 if len(metrics) > 1 else 1
    nrows = (len(metrics) + ncols - 1) // ncols
    fig, axes = _fig(nrows, ncols, w=5.6, h=3.4, n=len(metrics))
    for ax, m in zip(axes, metrics, strict=True):
        _grouped_bars(ax, df, x, m)
        ax.set_title(METRICS[m])
        ax.set_xlabel(xlabel)
        if m == "mean_points":
            ax.axhline(0, color="black", lw=0.8)
    _legend(fig, axes[0])
    if title:
        fig.suptitle(title)
    return fig


def dealer_figure(df: pd.DataFrame) -> Figure:
    """Dealer advantage: win rate and mean points by seat position after the dealer.
    A group with a mixed line-up outside duplicate play is marked: there the seat's
    figure is also its agent's."""
    title = "庄家优势 dealer advantage (95% CI by match)"
    if "mixed" in df and "duplicate" in df and (df["mixed"] & ~df["duplicate"]).any():
        title += "\n注意 caveat: mixed line-ups without duplicate play measure the agents too"
    return seat_figure(df, ("win_rate", "mean_points"), title=title)


def first_winner_figure(df: pd.DataFrame) -> Figure:
    """Mean points of a seat by the order it won in (血战到底: does winning first pay?)."""
    return seat_figure(
        df, ("mean_points",), title="先胡优势 first-winner advantage (mean points, 95% CI)"
    )


def patterns_figure(df: pd.DataFrame, top: int = 12) -> Figure:
    """Pattern (番种): the share of wins that carry it and the share of the points it
    adds (:func:`~analysis.queries.pattern_frequencies` ``contribution``), each with its
    95% CI, for the ``top`` patterns of each group."""
    labels = _labels(df)
    # a row per name and key: each variant's bars sit on its own name for a key
    # (yuxi 杠上花 and xuezhan 杠上开花 are both ``gangshanghua``)
    rows = df["name"].astype(str) + " " + df["pattern"].astype(str)
    keep = (
        df.assign(_g=labels, _row=rows)
        .sort_values("per_win", ascending=False)
        .groupby("_g", sort=False)
        .head(top)["_row"]
    )
    kept = set(keep)
    pats = list(
        dict.fromkeys(
            r for r in rows.loc[df.sort_values("per_win", ascending=False).index] if r in kept
        )
    )
    groups = list(dict.fromkeys(labels))
    fig, axes = _fig(1, 2, w=5.6, h=max(3.0, 0.32 * len(pats) * max(1, len(groups)) ** 0.5))
    height = 0.8 / max(len(groups), 1)
    second = "contribution" if "contribution" in df else "points_share"
    for col, ax, title in (
        ("per_win", axes[0], "出现率 share of wins that carry it (95% CI)"),
        (
            second,
            axes[1],
            "边际得分占比 share of the points it adds (95% CI; adds to 1)"
            if second == "contribution"
            else "得分占比 share of all points",
        ),
    ):
        for i, g in enumerate(groups):
            sub = df[(labels == g) & rows.isin(pats)]
            ys = np.array([pats.index(r) for r in rows[sub.index]]) - 0.4 + height * (i + 0.5)
            xerr = None
            if f"{col}_lo" in sub:
                v = sub[col].to_numpy(float)
                xerr = np.nan_to_num(
                    np.vstack(
                        [v - sub[f"{col}_lo"].to_numpy(float), sub[f"{col}_hi"].to_numpy(float) - v]
                    )
                )
            ax.barh(ys, sub[col].to_numpy(float), height=height, xerr=xerr, capsize=2, label=g)
        ax.set_yticks(range(len(pats)), pats)
        ax.invert_yaxis()
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
    axes[1].set_yticklabels([])
    _legend(fig, axes[0])
    fig.suptitle("番种 patterns")
    return fig


def histogram_figure(
    df: pd.DataFrame, what: str = "win_points", log: bool = True, caps: pd.DataFrame | None = None
) -> Figure:
    """The distribution of a value (:func:`~analysis.queries.histogram`), one line per
    group: the share of wins or hands at each value, and the share at or above it.
    ``caps`` (:func:`~analysis.queries.caps`), for the points per payer: each group's
    cap drawn as a dashed line in its colour, where no payer can pay more."""
    title, unit = WHAT[what]
    fig, axes = _fig(1, 2, w=5.0, h=3.6)
    labels = _labels(df)
    cap_of: dict[Any, Any] = {}
    if caps is not None and len(caps) and len(df):
        keyed = df[list(queries.GROUP)].assign(_label=labels.to_numpy()).drop_duplicates()
        cap_of = dict(
            keyed.merge(caps, on=list(queries.GROUP))[["_label", "cap"]].itertuples(index=False)
        )
    for i, g in enumerate(dict.fromkeys(labels)):
        sub = df[labels == g].sort_values("value")
        v = sub["value"].to_numpy(float)
        share = sub["share"].to_numpy(float)
        axes[0].plot(v, share, marker="o", ms=2.5, lw=0.8, label=g, color=f"C{i % 10}")
        axes[1].step(v, share[::-1].cumsum()[::-1], where="post", label=g, color=f"C{i % 10}")
        if g in cap_of:
            for ax in axes:
                ax.axvline(float(cap_of[g]), color=f"C{i % 10}", ls="--", lw=1.0)
    if cap_of:
        axes[0].plot([], [], color="grey", ls="--", lw=1.0, label="封顶 cap (per payer)")
    axes[0].set_title("占比 share at each value")
    axes[1].set_title("累计 share at or above the value")
    for ax in axes:
        if log:
            ax.set_yscale("log")
        ax.set_xlabel(f"{title.split()[0]} ({unit})")
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    _legend(fig, axes[0])
    return fig


def outcomes_figure(df: pd.DataFrame) -> Figure:
    """Drawn-hand (流局) rate with its CI, and mean hand length, per group."""
    fig, axes = _fig(1, 2, w=5.0, h=3.4)
    short = _key_legend(fig, _labels(df))
    for ax, col, title in (
        (axes[0], "draw_rate", "流局率 drawn-hand rate"),
        (axes[1], "mean_length", "平均事件数 mean events per hand"),
    ):
        lo = df.get(f"{col}_lo")
        y = df[col].to_numpy(float)
        yerr = (
            None
            if lo is None
            else np.nan_to_num(
                np.vstack([y - lo.to_numpy(float), df[f"{col}_hi"].to_numpy(float) - y])
            )
        )
        ax.bar(
            range(len(df)), y, yerr=yerr, capsize=3, color=[f"C{i % 10}" for i in range(len(df))]
        )
        ax.set_xticks(range(len(df)), short)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    return fig


def money_figure(df: pd.DataFrame) -> Figure:
    """Money by transfer reason as a share of all money transferred (gross, so the
    stack of a group adds to 100%; :func:`~analysis.queries.money_shares`)."""
    key = "reason" if "reason" in df else "category"
    labels = _labels(df)
    groups = list(dict.fromkeys(labels))
    order = list(dict.fromkeys(df.sort_values("amount", ascending=False)[key]))
    fig, (ax,) = _fig(1, 1, w=9.0, h=0.7 * len(groups) + 2.0)
    left = np.zeros(len(groups))
    for i, k in enumerate(order):
        v = np.array(
            [df[(labels == g) & (df[key] == k)]["share_of_transfers"].sum() for g in groups]
        )
        name = (
            (queries.REASON_NAMES.get(k, k) + " " + k)
            if key == "reason"
            else CATEGORY_NAMES.get(k, k)
        )
        ax.barh(range(len(groups)), v, left=left, label=name, color=f"C{i % 10}")
        left += v
    ax.set_yticks(range(len(groups)), [g.replace(" [", "\n[") for g in groups], fontsize="small")
    ax.invert_yaxis()
    ax.axvline(1, color="black", lw=0.8)
    ax.set_xlabel("占转账总额 share of all money transferred (gross Σ amount; adds to 1)")
    ax.set_title("杠钱与结算 kong money and end-of-wall settlements (95% CIs: see the table)")
    if order:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    else:  # no transfer at all: say so where the bars would be
        ax.text(0.5, 0.5, "no money moved 无转账", ha="center", va="center", transform=ax.transAxes)
    return fig


COMPARE = {
    "draw_rate": "流局率 drawn-hand rate",
    "mean_win_points": "每家平均支付 mean points per payer per win",
    "mean_win_total": "每次胡牌平均总得分 mean total per win (all payers)",
    "mean_moved_per_hand": "每局流动金额 money moved per hand",
    "mean_length": "平均事件数 mean events per hand",
    "dealer_advantage": "庄家优势 dealer advantage",
    "share_kong": "杠钱占比 kong share",
    "share_settlement": "结算占比 settlement share",
    "share_capped": "封顶占比 share capped",
}


def sweep_key(df: pd.DataFrame) -> str | None:
    """The one rule key a one-key sweep varies (a typed column of the query result), or
    None when the rows differ otherwise (several variants, line-ups or keys)."""
    if df["variant"].nunique() != 1 or df["lineup"].nunique() != 1 or len(df) < 2:
        return None
    known = set(queries.GROUP) | {"hands", "matches", "wins"}
    keys = [
        c
        for c in df.columns
        if c not in known
        and not c.startswith(("share_", "mean_", "draw_", "dealer_", "p90", "max_"))
        and c not in ("mixed", "duplicate")
        and (str(df[c].dtype) in ("Int64", "Float64", "string", "boolean"))
    ]
    varying = [c for c in keys if df[c].nunique(dropna=False) > 1]
    return varying[0] if len(varying) == 1 else None


COMPARE_UNITS = {
    "draw_rate": "share of hands",
    "mean_win_points": "points per payer per win",
    "mean_win_total": "total per win, all payers",
    "mean_moved_per_hand": "points per hand",
    "mean_length": "events per hand",
    "dealer_advantage": "points per hand",
    "share_kong": "share of money transferred",
    "share_settlement": "share of money transferred",
    "share_capped": "share of wins",
}


def _at_defaults(df: pd.DataFrame, key: str) -> pd.Series | None:
    """The swept ``key``'s column with a run that logs no value for it (a run at the
    variant's default beside one that changed it: ``data/yuxi`` and a ``cap=8`` run)
    given the variant's default; None when a default cannot be found."""
    vals = df[key]
    if not vals.isna().any():
        return vals
    from mjlog.rules import Rules, keys

    out = []
    for v, x in zip(df["variant"], vals, strict=True):
        if not pd.isna(x):
            out.append(x)
            continue
        try:
            d = Rules(str(v))[key]
            out.append(d if str(vals.dtype) in ("Int64", "Float64") else keys(str(v))[key].show(d))
        except Exception:  # a variant or key this mjlog does not know
            return None
    return pd.Series(out, index=df.index, dtype=vals.dtype)


def compare_figure(df: pd.DataFrame, metrics: Iterable[str] = tuple(COMPARE)) -> Figure:
    """Headline figures side by side (:func:`~analysis.queries.compare`) with their 95%
    CIs: bars per group, or, for a one-key sweep, a line over the swept value."""
    metrics = [m for m in metrics if m in df]
    key = sweep_key(df)
    if key is not None:
        filled = _at_defaults(df, key)
        if filled is None:
            key = None
        else:
            df = df.assign(**{key: filled})
    ncols = 4
    nrows = (len(metrics) + ncols - 1) // ncols
    fig, axes = _fig(nrows, ncols, w=3.4, h=2.8, n=len(metrics))
    if key is None:
        short = _key_legend(fig, _labels(df))
        xs: np.ndarray = np.arange(len(df))
    else:
        vals = df[key]
        numeric = str(vals.dtype) in ("Int64", "Float64")
        xs = vals.astype(float).to_numpy() if numeric else np.arange(len(df))
        order = np.argsort(xs, kind="stable")
    for ax, m in zip(axes, metrics, strict=True):
        y = df[m].astype(float).to_numpy()
        lo, hi = df.get(f"{m}_lo"), df.get(f"{m}_hi")
        yerr = (
            None
            if lo is None or hi is None
            else np.nan_to_num(
                np.vstack(
                    [
                        np.clip(y - lo.astype(float).to_numpy(), 0, None),
                        np.clip(hi.astype(float).to_numpy() - y, 0, None),
                    ]
                )
            )
        )
        if key is None:
            ax.bar(
                xs,
                np.nan_to_num(y),
                yerr=yerr,
                capsize=3,
                color=[f"C{i % 10}" for i in range(len(df))],
            )
            ax.set_xticks(xs, short)
        else:
            ax.errorbar(
                xs[order],
                y[order],
                yerr=None if yerr is None else yerr[:, order],
                marker="o",
                capsize=3,
            )
            if str(df[key].dtype) in ("Int64", "Float64"):
                if xs.min() > 0 and xs.max() / xs.min() >= 8:
                    ax.set_xscale("log", base=2)
                ax.set_xticks(xs, [f"{v:g}" for v in xs])
            else:
                ax.set_xticks(xs, df[key].astype(str))
            ax.set_xlabel(key)
        ax.set_title(f"{COMPARE[m]}\n({COMPARE_UNITS.get(m, '')}, 95% CI)", fontsize="medium")
        ax.grid(axis="y", alpha=0.3)
    if key is not None:
        fig.legend(
            handles=[],
            title=f"组 group: {df['variant'].iloc[0]} [{df['lineup'].iloc[0]}]",
            loc="outside lower center",
            fontsize="small",
        )
    fig.suptitle("对比 comparison" + (f": {key}" if key else ""))
    return fig


def figures(runs_or_tables) -> dict[str, Figure]:
    """Every figure, by name, for runs or for the :func:`analysis.queries.tables` of them."""
    t = runs_or_tables if isinstance(runs_or_tables, dict) else queries.tables(runs_or_tables)
    return {
        "compare": compare_figure(t["compare"]),
        "seats": seat_figure(t["seats"], title="每个座位 per seat (95% CI by match)"),
        "agents": seat_figure(t["agents"], title="每个智能体 per agent (95% CI by match)"),
        # every seat of a variant pooled: mean points is 0 by construction (zero-sum)
        "variants": seat_figure(
            t["variants"],
            ("win_rate", "self_draw_share", "deal_in_rate"),
            title="每个玩法 per variant (95% CI by match)",
        ),
        "dealer": dealer_figure(t["dealer"]),
        "patterns": patterns_figure(t["patterns"]),
        "win_points": histogram_figure(t["hist_win_points"], "win_points", caps=t.get("caps")),
        "hand_points": histogram_figure(t["hist_hand_points"], "hand_points"),
        "hand_length": histogram_figure(t["hist_hand_length"], "hand_length", log=False),
        "outcomes": outcomes_figure(t["outcomes"]),
        "money": money_figure(t["money"]),
        "first_winner": first_winner_figure(t["first_winner"]),
    }


def to_png(fig: Figure, dpi: int = 100) -> bytes:
    """PNG bytes (the same figure gives the same bytes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buf = io.BytesIO()
    engine, was = fig.get_layout_engine(), fig.dpi
    # savefig with a layout engine draws the figure twice, the first time drawing
    # nothing, only to lay it out; laid out here on the canvas that draws it, at its
    # dpi, it is drawn once: the same bytes for some 15% less of a report's drawing.
    try:
        if engine is not None:
            fig.set_dpi(dpi)
            FigureCanvasAgg(fig)
            engine.execute(fig)
            fig.set_layout_engine(None)
        fig.savefig(buf, format="png", dpi=dpi)
    finally:
        if engine is not None:
            fig.set_layout_engine(engine)
            fig.set_dpi(was)
    return buf.getvalue()


def to_svg(fig: Figure) -> bytes:
    """SVG bytes, glyphs as paths; no date and fixed ids, so the same figure gives the
    same bytes."""
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "mjlog", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def texts(fig: Figure) -> list[str]:
    """Every text the figure draws (titles, labels, ticks, legends)."""
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]
