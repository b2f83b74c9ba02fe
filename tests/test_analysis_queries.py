"""analysis.queries: which runs are read, how groups are formed, and the figures'
invariants (zero-sum points, rates within their intervals, shares adding up)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from analysis import queries
from analysis.studies import sample
from analysis.studies.sample import data_dir
from mjlog.logio import LogError
from simulate.runner import RunSpec, simulate

SAMPLES = [data_dir() / v for v in ("yuxi", "xuezhan", "huangmei")]


@pytest.fixture(scope="module")
def runs():
    return queries.Runs(SAMPLES)


def test_groups_name_variant_rules_and_agents(runs):
    info = runs.info()
    assert list(info.variant) == ["yuxi", "xuezhan", "huangmei"]
    assert set(info.agents) == {"strategic,strategic,strategic,strategic"}
    s = queries.seat_stats(runs, by="seat")
    assert list(dict.fromkeys(s.variant)) == ["yuxi", "xuezhan", "huangmei"]  # as given
    assert set(s.lineup) == {"strategic,strategic,strategic,strategic"}
    assert list(s[s.variant == "yuxi"].agent) == ["strategic"] * 4


def test_seat_figures_are_consistent(runs):
    by_var = queries.seat_stats(runs, by="variant")
    hands = queries.outcomes(runs).set_index("variant").hands
    for r in by_var.itertuples():
        assert r.hands == 4 * hands[r.variant]  # every seat of every hand
        assert r.points == 0  # money only moves between the players
    for by in ("seat", "agent", "position"):
        s = queries.seat_stats(runs, by=by)
        for m in ("win_rate", "self_draw_share", "deal_in_rate", "mean_points"):
            assert (s[f"{m}_lo"] <= s[m] + 1e-12).all() and (s[m] <= s[f"{m}_hi"] + 1e-12).all()
        assert (
            s.groupby("variant")
            .hands.sum()
            .equals(by_var.set_index("variant").hands.loc[s.groupby("variant").hands.sum().index])
        )
    agents = queries.seat_stats(runs, by="agent")
    # one agent per variant, in all four seats
    assert len(agents) == 3 and (agents.hands == 4 * hands[agents.variant].to_numpy()).all()
    assert (agents.groupby("variant").points.sum() == 0).all()


def test_first_winner_orders(runs):
    fw = queries.first_winner(runs)
    assert set(fw[fw.variant == "yuxi"].order) <= {"1st", "none"}
    assert {"1st", "2nd", "3rd", "none"} <= set(fw[fw.variant == "xuezhan"].order)
    assert (fw.groupby("variant").points.sum() == 0).all()


def test_patterns_have_names_and_bounded_shares(runs):
    p = queries.pattern_frequencies(runs)
    assert (p.wins_with <= p.wins).all() and (p["count"] >= p.wins_with).all()
    assert ((p.points_share > 0) & (p.points_share <= 1)).all()
    names = dict(zip(p.pattern, p.name, strict=True))
    assert names["qingyise"] == "清一色" and names["facai"] == "发财"
    # every win counts at least one pattern, so the per-win shares cover all wins
    assert (p.groupby("variant").per_win.max() > 0.5).all()


def test_money_shares_add_up(runs):
    by_reason = queries.money_shares(runs)
    by_cat = queries.money_shares(runs, by="category")
    assert np.allclose(
        by_reason.groupby("variant").share.sum().sort_index(),
        by_cat.groupby("variant").share.sum().sort_index(),
    )
    # within a hand transfers can cancel, never exceed: Σ transfers ≥ money moved
    assert (by_reason.groupby("variant").share.sum() >= 1 - 1e-12).all()
    settle = set(by_reason[by_reason.variant == "xuezhan"].reason)
    assert "not_ready" in settle  # 查大叫 (查花猪 and 退税 only when someone is caught)
    assert set(by_reason[by_reason.variant == "huangmei"].reason) == {"win"}


def test_distribution_quantiles_are_ordered(runs):
    for what in ("win_points", "hand_points", "hand_length", "wall_left"):
        d = queries.distribution(runs, what)
        assert ((d.p50 <= d.p90) & (d.p90 <= d.p99) & (d.p99 <= d["max"])).all(), what
        h = queries.histogram(runs, what)
        assert np.allclose(h.groupby("variant").share.sum(), 1)
        assert (h.groupby("variant").n.sum().loc[d.variant].to_numpy() == d.n.to_numpy()).all()


def test_sweep_folder_is_expanded_in_grid_order():
    r = queries.Runs(data_dir() / "sweep" / "xuezhan-cap")
    assert list(r.info().config) == ["cap=1", "cap=2", "cap=4", "cap=16"]
    c = queries.compare(r)
    assert list(c.config) == ["cap=1", "cap=2", "cap=4", "cap=16"]
    assert c.share_capped.is_monotonic_decreasing and c.share_capped.iloc[0] > 0
    assert c.mean_win_points.is_monotonic_increasing


def test_a_run_given_twice_counts_once(runs):
    twice = queries.Runs([SAMPLES[0], SAMPLES[0]])
    assert len(twice) == 1
    assert queries.outcomes(twice).hands.iloc[0] == queries.outcomes(SAMPLES[0]).hands.iloc[0]


def test_paths_are_parameters_not_sql(tmp_path):
    odd = tmp_path / "it's a run; DROP TABLE x --"
    shutil.copytree(SAMPLES[2], odd)
    assert queries.outcomes(odd).hands.iloc[0] == queries.outcomes(SAMPLES[2]).hands.iloc[0]


def test_not_a_run(tmp_path):
    with pytest.raises(LogError, match="holds no runs"):
        queries.Runs(tmp_path)
    with pytest.raises(LogError, match="no such run directory"):
        queries.Runs(tmp_path / "nope")


def test_a_run_without_events_gives_every_figure_but_events():
    run = sample.tiny_run("xuezhan", matches=4, events=False)
    r = queries.Runs(run)
    assert queries.tables(r)["compare"].hands.iloc[0] == 32
    with pytest.raises(LogError, match="without events"):
        queries.hand_events(r)


def test_duplicate_rotations_pool_into_one_lineup(tmp_path):
    spec = RunSpec.build(
        "yuxi",
        seed=3,
        matches=2,
        hands_per_match=2,
        agents=["greedy", "random", "random", "random"],
        duplicate=True,
    )
    simulate(spec, tmp_path / "dup", workers=1, progress=False)
    s = queries.seat_stats(tmp_path / "dup", by="agent")
    assert list(s.lineup.unique()) == ["greedy,random,random,random"]
    assert s.config.iloc[0] == "default dup"
    # 2 matches × 4 rotations × 2 hands; greedy sits once per hand
    assert dict(zip(s.agent, s.hands, strict=True)) == {"greedy": 16, "random": 48}


def test_hand_events_and_replay_agree():
    run = SAMPLES[0]
    big = queries.biggest_wins(run, 1).iloc[0]
    ev = queries.hand_events(run, int(big.match), int(big.hand))
    assert list(ev.seq) == list(range(len(ev))) and ev.type.iloc[-1] == "end"
    frame = queries.replay_frame(run, int(big.match), int(big.hand))
    assert len(frame) == len(ev) and frame.event.iloc[-1] == "end"


def test_wilson_edges():
    lo, hi = queries.wilson([0, 10], [10, 10])
    assert lo[0] == 0 and 0 < hi[0] < 0.35 and 0.65 < lo[1] < 1 and np.isclose(hi[1], 1)
    lo, hi = queries.wilson(0, 0)
    assert np.isnan(lo) and np.isnan(hi)
