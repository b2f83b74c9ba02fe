"""DuckDB (analysis.queries) and plain pandas compute the same figures.

The pandas side reads the tables whole with pyarrow (fine for the samples) and
recomputes every figure its own way: explode seats, count, group. Run on the
three committed samples and the committed sweep, so line-ups, variants and
sweep points are all covered.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import queries
from analysis.studies.sample import data_dir
from mjlog.logio import read_table

GROUP = list(queries.GROUP)
RUNS = [data_dir() / v for v in ("yuxi", "xuezhan", "huangmei")] + [
    data_dir() / "sweep" / "xuezhan-cap"
]


@pytest.fixture(scope="module")
def runs():
    return queries.Runs(RUNS)


@pytest.fixture(scope="module")
def frames(runs):
    """hands, wins and transfers of every run as pandas, with the group columns."""
    hands, wins, transfers = [], [], []
    for r in runs.runs:
        h = read_table(
            r.path,
            "hands",
            columns=[
                "run_id",
                "variant",
                "match",
                "rotation",
                "hand",
                "players",
                "dealer",
                "agents",
                "winners",
                "deltas",
                "outcome",
                "n_events",
                "wall_left",
            ],
        ).to_pandas()
        h["variant"] = h["variant"].astype(str)
        h["config"] = r.config
        h["lineup"] = h["agents"].map(lambda a: ",".join(a))
        hands.append(h)
        wins.append(read_table(r.path, "wins").to_pandas())
        transfers.append(read_table(r.path, "transfers").to_pandas())
    key = ["run_id", "match", "rotation", "hand"]
    h = pd.concat(hands, ignore_index=True)
    w = pd.concat(wins, ignore_index=True).drop(columns=["variant"])
    w = w.merge(h[key + GROUP + ["agents"]], on=key)
    t = pd.concat(transfers, ignore_index=True).drop(columns=["variant"])
    t = t.merge(h[key + GROUP], on=key)
    for df in (h, w, t):
        df["run_id"] = df["run_id"].astype(str)
    w["method"] = w["method"].astype(str)
    t["reason"] = t["reason"].astype(str)
    return h, w, t


@pytest.fixture(scope="module")
def seats(frames):
    """One row per seat and hand (pandas), built once: the tests only read it."""
    h, w, _ = frames
    return _seats(h, w)


@pytest.fixture(scope="module")
def by_position(runs):
    return queries.seat_stats(runs, by="position")


def _same(duck: pd.DataFrame, ref: pd.DataFrame, on: list[str], cols: list[str]) -> None:
    m = duck.merge(ref, on=on, how="outer", suffixes=("_duck", "_pd"), indicator=True)
    assert (m["_merge"] == "both").all(), m[m["_merge"] != "both"][on]
    for c in cols:
        a = m[f"{c}_duck"].to_numpy(float)
        b = m[f"{c}_pd"].to_numpy(float)
        assert np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True), (
            c,
            m[on + [f"{c}_duck", f"{c}_pd"]][~np.isclose(a, b, equal_nan=True)],
        )


def _seats(h: pd.DataFrame, w: pd.DataFrame) -> pd.DataFrame:
    key = ["run_id", "match", "rotation", "hand"]
    rows = h.loc[h.index.repeat(h["players"])].copy()
    rows["seat"] = rows.groupby(level=0).cumcount()
    rows["agent"] = [a[s] for a, s in zip(rows["agents"], rows["seat"], strict=True)]
    rows["pts"] = [d[s] for d, s in zip(rows["deltas"], rows["seat"], strict=True)]
    rows["position"] = (rows["seat"] - rows["dealer"]) % rows["players"]
    won = (
        w.assign(self_draw=w["method"] == "self_draw")
        .groupby(key + ["seat"])
        .agg(n_wins=("seq", "size"), n_self=("self_draw", "sum"), order=("win_order", "min"))
        .reset_index()
    )
    fed = w[w.from_seat.notna()].assign(seat=lambda d: d.from_seat.astype(int))
    fed = fed.groupby(key + ["seat"]).size().rename("n_fed").reset_index()
    rows = (
        rows.reset_index(drop=True)
        .merge(won, on=key + ["seat"], how="left")
        .merge(fed, on=key + ["seat"], how="left")
    )
    rows[["n_wins", "n_self", "n_fed"]] = rows[["n_wins", "n_self", "n_fed"]].fillna(0)
    names = {1: "1st", 2: "2nd", 3: "3rd"}
    rows["order"] = rows["order"].map(lambda o: "none" if pd.isna(o) else names[int(o)])
    return rows


@pytest.mark.parametrize("by", ["seat", "agent", "position", "order", "variant"])
def test_seat_stats_agree(runs, seats, by):
    s = seats
    keys = (
        GROUP
        + {
            "seat": ["seat", "agent"],
            "agent": ["agent"],
            "position": ["position"],
            "order": ["order"],
            "variant": [],
        }[by]
    )
    ref = (
        s.groupby(keys)
        .agg(
            hands=("pts", "size"),
            win_rate=("n_wins", lambda x: (x > 0).mean()),
            self_draws=("n_self", "sum"),
            wins=("n_wins", "sum"),
            deal_in_rate=("n_fed", lambda x: (x > 0).mean()),
            mean_points=("pts", "mean"),
            var=("pts", "var"),
        )
        .reset_index()
    )
    ref["self_draw_share"] = ref.self_draws / ref.wins
    duck = queries.seat_stats(runs, by=by)
    for c in ("seat", "position"):
        if c in duck:
            duck[c] = duck[c].astype(int)
            ref[c] = ref[c].astype(int)
    duck["var"] = (duck.points_sq - duck.points**2 / duck.hands) / (duck.hands - 1)
    _same(
        duck,
        ref,
        keys,
        ["hands", "win_rate", "self_draw_share", "deal_in_rate", "mean_points", "var"],
    )
    # the intervals take the match as the unit: reproduced by statsmodels below
    assert (duck.matches > 1).all()


def _wls_interval(units: pd.DataFrame, y: str, x: str) -> tuple[float, float, float]:
    """The ratio Σy/Σx over matches with its 95% interval, computed independently: a
    weighted least-squares fit of y/x on a constant (weights x) with
    heteroskedasticity-robust HC1 errors and a t interval (statsmodels)."""
    import statsmodels.api as sm

    fit = sm.WLS(units[y] / units[x], np.ones(len(units)), weights=units[x]).fit(
        cov_type="HC1", use_t=True
    )
    lo, hi = np.asarray(fit.conf_int(alpha=0.05))[0]
    return float(np.asarray(fit.params)[0]), float(lo), float(hi)


@pytest.mark.parametrize(
    "metric,y,x",
    [("win_rate", "won", "one"), ("mean_points", "pts", "one"), ("deal_in_rate", "fed", "one")],
)
def test_match_unit_intervals_reproduced(seats, by_position, metric, y, x):
    """A few seat_stats intervals, from raw rows (pandas) and statsmodels: a mean's t
    interval whole; a rate's standard error, and its interval (analysis.rates, never
    zero-width) from the per-match counts pandas sums."""
    from analysis.rates import rate

    s = seats.assign(
        won=lambda d: (d.n_wins > 0).astype(float),
        one=1.0,
        fed=lambda d: (d.n_fed > 0).astype(float),
    )
    duck = by_position
    for (variant, config, position), g in list(s.groupby(["variant", "config", "position"]))[:6]:
        units = g.groupby(["run_id", "match"])[[y, x]].sum().reset_index()
        value, lo, hi = _wls_interval(units, y, x)
        row = duck[
            (duck.variant == variant) & (duck.config == config) & (duck.position == position)
        ].iloc[0]
        assert row.matches == len(units)
        if metric == "mean_points":
            assert (
                np.isclose(row[metric], value)
                and np.isclose(row[f"{metric}_lo"], lo)
                and np.isclose(row[f"{metric}_hi"], hi)
            ), (variant, config, position)
            continue
        r = rate(units[y], units[x])
        assert np.isclose(row[metric], value) and np.isclose(
            row[f"{metric}_se"], (hi - lo) / 2 / _t(len(units))
        )
        assert np.allclose([row[f"{metric}_lo"], row[f"{metric}_hi"]], [r.lo, r.hi])
        assert row[f"{metric}_count"] == units[y].sum()


def _t(m: int) -> float:
    """The t quantile of a 95% interval on ``m`` units."""
    from scipy import stats as st

    return float(st.t.ppf(0.975, m - 1))


def test_draw_rate_and_points_per_win_intervals_reproduced(frames):
    from analysis.rates import rate

    h, w, _ = frames
    units = (
        h.assign(draw=(h.outcome == "draw").astype(float), one=1.0)
        .groupby(GROUP + ["run_id", "match"])[["draw", "one"]]
        .sum()
        .reset_index()
    )
    out = queries.outcomes(queries.Runs(RUNS))
    wins = (
        w.assign(one=1.0).groupby(GROUP + ["run_id", "match"])[["total", "one"]].sum().reset_index()
    )
    dist = queries.distribution(queries.Runs(RUNS), "win_total")
    for (v, c, lu), g in units.groupby(GROUP):
        value, lo, hi = _wls_interval(g, "draw", "one")
        row = out[(out.variant == v) & (out.config == c) & (out.lineup == lu)].iloc[0]
        r = rate(g["draw"], g["one"])  # a rate's interval: analysis.rates
        assert np.allclose(
            [row.draw_rate, row.draw_rate_se, row.draw_rate_lo, row.draw_rate_hi],
            [value, (hi - lo) / 2 / _t(len(g)), r.lo, r.hi],
        )
        # points per win: matches without a win count with weight 0 (dropped here)
        gw = wins[(wins.variant == v) & (wins.config == c) & (wins.lineup == lu)]
        value, lo, hi = _wls_interval(gw, "total", "one")
        row = dist[(dist.variant == v) & (dist.config == c) & (dist.lineup == lu)].iloc[0]
        m_all = row.matches
        # HC1's m/(m−1) counts the units: equal when every match has a win
        if m_all == len(gw):
            assert np.allclose([row["mean"], row.mean_lo, row.mean_hi], [value, lo, hi])
        else:
            assert np.isclose(row["mean"], value)


def test_pattern_frequencies_agree(runs, frames):
    h, w, _ = frames
    e = w[["run_id", "match", "rotation", "hand", "seq", "seat", "total", "patterns", *GROUP]]
    e = e.explode("patterns").dropna(subset=["patterns"]).rename(columns={"patterns": "pattern"})
    per = (
        e.groupby(GROUP + ["run_id", "match", "rotation", "hand", "seq", "seat", "pattern"])
        .agg(n=("total", "size"), total=("total", "first"))
        .reset_index()
    )
    ref = (
        per.groupby(GROUP + ["pattern"])
        .agg(wins_with=("n", "size"), count=("n", "sum"), points_with=("total", "sum"))
        .reset_index()
    )
    tot = w.groupby(GROUP).agg(wins=("total", "size"), points=("total", "sum")).reset_index()
    ref = ref.merge(tot, on=GROUP).merge(
        h.groupby(GROUP).size().rename("hands").reset_index(), on=GROUP
    )
    ref["per_win"] = ref.wins_with / ref.wins
    ref["per_hand"] = ref.wins_with / ref.hands
    ref["points_share"] = ref.points_with / ref.points
    duck = queries.pattern_frequencies(runs)
    _same(
        duck,
        ref,
        GROUP + ["pattern"],
        ["wins_with", "count", "per_win", "per_hand", "points_share"],
    )


def _reference_weights(rules, method: str, patterns) -> dict[str, float]:
    """How a win's points split among its patterns, from the rule keys directly (the
    formula analysis.queries held before it read the scorer's breakdown): huangmei
    adds ``fan.*``, xuezhan multiplies ``mult.*``, yuxi doubles from its highest
    ``points.*`` in the win's column. Equal shares when nothing adds."""
    import math
    from collections import Counter

    counts = Counter(patterns)
    w = dict.fromkeys(counts, 0.0)
    family = next(k.split(".")[0] for k in rules if k.split(".")[0] in ("fan", "mult", "points"))
    if family == "fan":
        for k, n in counts.items():
            f = rules.get(f"fan.{k}")
            if k == "facai" and n == 4 and "fan.facai_all" in rules:
                f, n = rules["fan.facai_all"], 1
            w[k] = float((f or 0) * n)
    elif family == "mult":
        for k, n in counts.items():
            m = rules[f"mult.{k}"] if f"mult.{k}" in rules else 1
            w[k] = n * math.log2(m)
    else:
        col = 0 if method == "self_draw" else 1
        vals = {k: (rules[f"points.{k}"][col] if f"points.{k}" in rules else None) for k in counts}
        valued = [k for k in counts if vals[k]]
        if valued:
            base = max(valued, key=lambda k: vals[k])
            w = {k: 1.0 * counts[k] for k in counts}
            w[base] = math.log2(vals[base]) + (counts[base] - 1)
    total = sum(w.values())
    if total <= 0:
        return {k: 1 / len(counts) for k in counts}
    return {k: v / total for k, v in w.items()}


def test_pattern_contributions_agree(runs, frames):
    # each win's total split among its patterns (the scorer's breakdown terms in
    # analysis.queries; the rule keys read directly here), summed, over Σ total
    from mjlog.rules import Rules

    _, w, _ = frames
    rules = {(r.variant, r.config): Rules(r.variant, runs.rules[r.run_id]) for r in runs.runs}
    added: dict[tuple, float] = {}
    for row in w.itertuples(index=False):
        shares = _reference_weights(rules[(row.variant, row.config)], row.method, row.patterns)
        for pat, share in shares.items():
            key = (row.variant, row.config, row.lineup, pat)
            added[key] = added.get(key, 0.0) + share * row.total
    ref = pd.DataFrame([(*k, v) for k, v in added.items()], columns=[*GROUP, "pattern", "added"])
    ref = ref.merge(w.groupby(GROUP)["total"].sum().rename("points").reset_index(), on=GROUP)
    ref["contribution"] = ref.added / ref.points
    duck = queries.pattern_frequencies(runs)
    _same(duck, ref, GROUP + ["pattern"], ["contribution"])
    assert len(ref) > 50


@pytest.mark.parametrize(
    "what", ["win_points", "win_total", "win_base", "hand_points", "hand_length"]
)
def test_distributions_agree(runs, frames, what):
    h, w, _ = frames
    if what.startswith("win"):  # win_points: per payer, the rulebook's points
        col = "total" if what == "win_total" else "points"
        v = w.assign(value=w[col], capped=w["capped"].astype(float))
    else:
        capped = w.groupby(["run_id", "match", "rotation", "hand"])["capped"].max()
        v = h.merge(
            capped.rename("capped").reset_index(),
            how="left",
            on=["run_id", "match", "rotation", "hand"],
        )
        v["capped"] = v["capped"].fillna(False).astype(float)
        v["value"] = (
            v["deltas"].map(lambda d: sum(x for x in d if x > 0))
            if what == "hand_points"
            else v["n_events"]
        )
    g = v.groupby(GROUP)["value"]
    ref = pd.DataFrame(
        {
            "n": g.size(),
            "mean": g.mean(),
            "var": g.var(),
            "max": g.max(),
            "p50": g.quantile(0.5),
            "p90": g.quantile(0.9),
            "p99": g.quantile(0.99),
            "share_capped": v.groupby(GROUP)["capped"].mean(),
        }
    ).reset_index()
    duck = queries.distribution(runs, what)
    cols = ["n", "mean", "var", "max", "p50", "p90", "p99"]
    _same(duck, ref, GROUP, cols + ([] if what == "hand_length" else ["share_capped"]))


def test_money_shares_agree(runs, frames):
    h, _, t = frames
    moved = (
        h.assign(moved=h["deltas"].map(lambda d: sum(x for x in d if x > 0)))
        .groupby(GROUP)
        .agg(moved=("moved", "sum"), hands=("moved", "size"))
        .reset_index()
    )
    ref = (
        t.groupby(GROUP + ["reason"])
        .agg(
            amount=("amount", "sum"),
            hands_with_n=(
                "hand",
                lambda s: len(
                    set(
                        zip(
                            t.loc[s.index, "run_id"],
                            t.loc[s.index, "match"],
                            t.loc[s.index, "rotation"],
                            s,
                            strict=True,
                        )
                    )
                ),
            ),
        )
        .reset_index()
    )
    ref = ref.merge(moved, on=GROUP)
    ref["share"] = ref.amount / ref.moved
    ref["hands_with"] = ref.hands_with_n / ref.hands
    duck = queries.money_shares(runs)
    _same(duck, ref, GROUP + ["reason"], ["amount", "share", "hands_with"])
    cat = queries.money_shares(runs, by="category")
    settle = cat[cat.category == "settlement"].set_index(GROUP)["amount"]
    want = ref[ref.reason.isin(queries.SETTLEMENT_REASONS)].groupby(GROUP)["amount"].sum()
    assert settle.astype("int64").to_dict() == want.astype("int64").to_dict()


def test_outcomes_agree(runs, frames):
    h, _, _ = frames
    ref = (
        h.groupby(GROUP)
        .agg(
            hands=("hand", "size"),
            draw_rate=("outcome", lambda o: (o == "draw").mean()),
            mean_length=("n_events", "mean"),
        )
        .reset_index()
    )
    _same(queries.outcomes(runs), ref, GROUP, ["hands", "draw_rate", "mean_length"])
