"""Marginal pattern contributions, swing, skill share and typed rule columns."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from analysis import balance, compare, queries
from analysis.studies.sample import data_dir
from mjlog.logio import read_table
from mjlog.rules import Rules
from simulate.runner import RunSpec, simulate

SAMPLES = [data_dir() / v for v in ("yuxi", "xuezhan", "huangmei")]


@pytest.fixture(scope="module")
def patterns():
    return queries.pattern_frequencies(SAMPLES)


def test_contributions_add_to_one_and_are_not_the_carried_share(patterns):
    sums = patterns.groupby("variant")["contribution"].sum()
    assert np.allclose(sums.to_numpy(), 1.0)
    hm = patterns[patterns.variant == "huangmei"].set_index("pattern")
    # 平胡 rides on most wins but adds little of their fan
    assert hm.loc["pinghu", "points_share"] > 0.8 > hm.loc["pinghu", "contribution"]
    assert (patterns.contribution_lo <= patterns.contribution + 1e-12).all()
    assert (patterns.contribution <= patterns.contribution_hi + 1e-12).all()


def test_huangmei_contribution_recomputed_from_the_fan_table(patterns):
    rules = Rules("huangmei")
    w = read_table(data_dir() / "huangmei", "wins", columns=["patterns", "total"]).to_pandas()
    added: Counter = Counter()
    for pats, total in zip(w["patterns"], w["total"], strict=True):
        c = Counter(pats)
        fan = {
            k: (rules["fan.facai_all"] if k == "facai" and n == 4 else n * rules[f"fan.{k}"])
            for k, n in c.items()
        }
        s = sum(fan.values())
        for k, f in fan.items():
            added[k] += total * f / s
    want = {k: v / w["total"].sum() for k, v in added.items()}
    got = patterns[patterns.variant == "huangmei"].set_index("pattern")["contribution"]
    assert set(got.index) == set(want)
    assert all(np.isclose(got[k], want[k]) for k in want)


def test_swing_sd_is_that_of_a_seats_match_total():
    s = queries.as_runs(data_dir() / "xuezhan")
    got = balance.swing(s).iloc[0]
    h = read_table(data_dir() / "xuezhan", "hands", columns=["match", "deltas"]).to_pandas()
    totals = np.vstack(h.groupby("match")["deltas"].apply(lambda d: np.sum(np.vstack(d), 0)))
    assert np.isclose(got.sd, totals.ravel().std(ddof=1))
    assert got.sd_lo < got.sd < got.sd_hi and got.matches == len(totals)
    assert balance.swing(s).equals(balance.swing(s))  # seeded bootstrap


def test_omega_squared_matches_statsmodels_anova():
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    rng = np.random.default_rng(7)
    t = pd.DataFrame(
        {"run_id": "r", "match": np.repeat(np.arange(40), 4), "spec": np.tile(np.arange(4), 40)}
    )
    t["total"] = rng.normal(0, 5, len(t)) + t["spec"] * 1.5
    s, q, n = balance._layout(t)
    a = sm.stats.anova_lm(ols("total ~ C(spec)", data=t).fit())
    ss_b, ss_w = a.loc["C(spec)", "sum_sq"], a.loc["Residual", "sum_sq"]
    ms_w = a.loc["Residual", "mean_sq"]
    want = (ss_b - a.loc["C(spec)", "df"] * ms_w) / (ss_b + ss_w + ms_w)
    assert np.isclose(balance._omega2(s, q, n), want)


@pytest.fixture(scope="module")
def ladders(tmp_path_factory):
    d = tmp_path_factory.mktemp("dup")
    out = {}
    for name, agents, dup in (
        ("mixed", ["strategic", "random", "strategic", "random"], True),
        ("same", ["greedy"] * 4, True),
        ("plain", ["strategic", "random", "strategic", "random"], False),
    ):
        spec = RunSpec.build(
            "yuxi",
            seed=11,
            matches=30,
            hands_per_match=2,
            agents=agents,
            duplicate=dup,
            events=False,
        )
        simulate(spec, d / name, workers=1, progress=False)
        out[name] = d / name
    return out


def test_skill_share_separates_a_skill_gap_from_none(ladders):
    t = balance.skill_share([ladders["mixed"], ladders["same"], ladders["plain"]])
    t = t.set_index(t.lineup + t.duplicate.astype(str))
    mixed = t.loc["strategic,random,strategic,randomTrue"]
    same = t.loc["greedy,greedy,greedy,greedyTrue"]
    assert mixed.skill_share_lo > same.skill_share_hi
    assert 0 <= same.skill_share_lo <= same.skill_share <= same.skill_share_hi
    assert np.isnan(t.loc["strategic,random,strategic,randomFalse", "skill_share"])
    d = balance.skill_share_difference(ladders["same"], ladders["mixed"])
    assert d["lo"] <= d["diff"] <= d["hi"] and d["lo"] > 0 and d["p"] < 0.05


def test_skill_share_difference_pairs_the_matches_of_the_same_walls(ladders, tmp_path):
    """Runs dealt the same walls match by match are resampled together: a run against
    itself differs by exactly 0 with no width; runs on other walls (another seed)
    are resampled independently."""
    d = balance.skill_share_difference(ladders["same"], ladders["mixed"])
    assert d["paired"]
    own = balance.skill_share_difference(ladders["mixed"], ladders["mixed"])
    assert own["paired"] and (own["lo"], own["diff"], own["hi"]) == (0.0, 0.0, 0.0)
    spec = RunSpec.build(
        "yuxi",
        seed=12,
        matches=30,
        hands_per_match=2,
        agents=["greedy"] * 4,
        duplicate=True,
        events=False,
    )
    simulate(spec, tmp_path / "other", workers=1, progress=False)
    other = balance.skill_share_difference(ladders["mixed"], tmp_path / "other")
    assert not other["paired"] and other["lo"] < other["hi"]


def test_rule_values_are_typed_columns():
    sweep = data_dir() / "sweep" / "xuezhan-cap"
    for df in (queries.outcomes(sweep), queries.compare(sweep), compare.precision(sweep)):
        assert str(df["cap"].dtype) == "Int64"
        assert list(dict.fromkeys(df["cap"])) == [1, 2, 4, 16]
    mixed = queries.outcomes([data_dir() / "yuxi", sweep])
    assert mixed["cap"].isna().iloc[0] and mixed["cap"].iloc[1] == 1


def test_seat_positions_and_the_proposal_recomputed_from_the_hands():
    """analysis.compensation on a sample: each position's advantage is the t interval
    of per-match (pts_p − mean of the others) / hands, computed here with pandas and
    scipy from the hands table; the proposal is A / n points, rounded to the lever's step."""
    from scipy import stats as st

    from analysis.compensation import Lever, positions, propose

    run = data_dir() / "yuxi"
    got = positions(run)
    h = read_table(run, "hands", columns=["match", "dealer", "deltas", "players"]).to_pandas()
    n = int(h["players"].iloc[0])
    rows = []
    for r in h.itertuples():
        for p in range(n):
            seat = (r.dealer + p) % n
            mine = r.deltas[seat]
            rows.append((r.match, p, mine - (sum(r.deltas) - mine) / (n - 1)))
    df = pd.DataFrame(rows, columns=["match", "position", "adv"])
    for g in got:
        per = df[df.position == g["position"]].groupby("match")["adv"].agg(["sum", "size"])
        assert (per["size"] == per["size"].iloc[0]).all()  # equal matches: plain t interval
        means = per["sum"] / per["size"]
        ci = st.ttest_1samp(means, 0).confidence_interval(0.95)
        assert g["value"] == pytest.approx(means.mean())
        assert (g["lo"], g["hi"]) == pytest.approx((ci.low, ci.high))
        assert g["matches"] == len(per)
    a = got[0]["value"]
    exact, lever, step = propose(a, n, Lever(1, "base", 0), margin=0.1)
    assert exact == pytest.approx(a / n) and abs(lever.points - exact) <= step / n / 2 + 1e-12


def test_swing_figures_are_those_of_every_seat_s_match_total_to_the_last_bit():
    # DuckDB sums per match; the SD, mean |total| and quantiles are NumPy's over the
    # seats' totals in their order (match, seat), exactly as computed here
    got = balance.swing(queries.as_runs(data_dir() / "yuxi")).iloc[0]
    h = read_table(data_dir() / "yuxi", "hands", columns=["match", "deltas"]).to_pandas()
    h = h.sort_values("match", kind="stable")
    per = h.groupby("match")["deltas"].apply(lambda d: np.sum(np.vstack(d), 0))
    v = np.vstack(per).ravel().astype(float)
    assert got.sd == v.std(ddof=1) and got.mean_abs == np.abs(v).mean()
    assert [got.p5, got.p50, got.p95] == [np.quantile(v, q) for q in (0.05, 0.5, 0.95)]
    assert got.matches == len(per) and got.hands_per_match == len(h) / len(per)
