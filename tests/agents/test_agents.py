"""Agents: the registry, parameters, legality, determinism, and the ladder CLI."""

import csv
from itertools import pairwise

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.engine import play_hand
from mjlog.errors import InputError
from mjlog.events import VOID
from mjlog.rules import Rules
from simulate.agents import agent_names, make_agent, make_agents
from simulate.agents.strategic import StrategicAgent
from tests.agents.seatviews import seat_view
from tests.conformance import play_checked

AGENTS = ["random", "greedy", "efficient", "strategic"]


def test_registry_lists_every_agent():
    assert agent_names() == sorted(AGENTS + ["expert"])  # expert: tests/agents/test_expert.py


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("strategic:aggression=2", "must be in 0..1"),
        ("strategic:nerve=1", "unknown strategic parameter 'nerve'"),
        ("strategic:aggression", "expected key=value"),
        ("greedy:x=1", "takes no parameters"),
    ],
)
def test_bad_agent_parameters(spec, needle):
    with pytest.raises(InputError, match=needle):
        make_agent(spec)


def test_strategic_parameters_are_parsed():
    a = make_agent("strategic:aggression=0.9;defense=0.1;fold=2")
    assert a.params == {"aggression": 0.9, "defense": 0.1, "fold": 2, "rules": "in_force"}
    assert make_agent("strategic:rules=default").params["rules"] == "default"


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_every_agent_plays_legal_whole_hands(variant):
    rules = Rules(variant)
    for seed in range(3):
        st = play_checked(rules, make_agents(AGENTS), seed)
        assert st.over


@pytest.mark.parametrize("agent", ["efficient", "strategic"])
def test_same_seed_same_hand(agent):
    r = Rules("xuezhan")
    a = play_hand(r, make_agents([agent] * 4), seed=5, match=0, hand=0, dealer=None)
    b = play_hand(r, make_agents([agent] * 4), seed=5, match=0, hand=0, dealer=None)
    assert a.state.events == b.state.events


def test_strategic_void_looks_at_what_the_hand_becomes():
    # fewest tiles are in s (3), but s holds a ready-made run while p is scattered:
    # voiding p leaves a better hand than voiding s
    view = seat_view("xuezhan", "1112345m1479p789s")
    agent = StrategicAgent()
    opts = [(VOID, 0, None, None, c) for c in "mps"]
    from mjlog.events import Event

    opts = [Event(*o) for o in opts]
    assert agent.choose_void(view, opts).kind == "p"


def test_ladder_cli_writes_the_csv(tmp_path):
    out = tmp_path / "ladder.csv"
    res = CliRunner().invoke(
        main,
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "efficient,greedy,random,greedy",
            "--hands",
            "64",
            "--seed",
            "4",
            "--workers",
            "1",
            "--csv",
            str(out),
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == [
        "agent",
        "hands",
        "mean_points",
        "ci_low",
        "ci_high",
        "win_rate",
        "deal_in_rate",
        "mean_points_per_win",
        "mean_total_per_win",
    ]
    by = {r["agent"]: r for r in rows}
    assert set(by) == {"efficient", "greedy", "random"}
    # duplicate play: each agent sat every seat equally often
    assert int(by["greedy"]["hands"]) == 2 * int(by["efficient"]["hands"])
    # the table is zero-sum over seat-hands
    total = sum(float(r["mean_points"]) * int(r["hands"]) for r in rows)
    assert abs(total) < 1e-6
    assert float(by["random"]["win_rate"]) <= float(by["efficient"]["win_rate"])
    # 64 hands ask for less than one balanced match (96 hands here): it plays two,
    # the fewest that give an interval
    assert int(by["efficient"]["hands"]) == 2 * 96  # one seat of every hand
    for r in rows:
        assert float(r["ci_low"]) <= float(r["mean_points"]) <= float(r["ci_high"])


def test_ladder_hands_per_shard_spreads_the_work_not_the_standings(tmp_path):
    """Smaller shards give a short ladder more files (so more workers can play it);
    the hands, the standings and the CSV are the same."""
    got = {}
    for k, extra in (("one", []), ("many", ["--hands-per-shard", "32", "--workers", "2"])):
        out = tmp_path / k
        res = CliRunner().invoke(
            main,
            [
                "ladder",
                "--variant",
                "xuezhan",
                "--agents",
                "efficient,greedy,greedy,greedy",
                "--hands",
                "128",
                "--seed",
                "5",
                "--out",
                str(out),
                "--csv",
                str(tmp_path / f"{k}.csv"),
                "--quiet",
                *extra,
            ],
        )
        assert res.exit_code == 0, res.output
        got[k] = (
            len(list((out / "hands").glob("*.parquet"))),
            (tmp_path / f"{k}.csv").read_text(),
            [x for x in res.output.splitlines() if not x.startswith("written ")],
        )
    # 4 matches of 8 hands in 4 rotations: 32 hands a match, one match a shard
    assert got["one"][0] == 1 and got["many"][0] == 4
    assert got["one"][1:] == got["many"][1:]


def test_ladder_on_a_dask_cluster_plays_the_same_hands(tmp_path):
    """``--scheduler``: the shards go to a dask.distributed cluster; every seating's
    run has the same bytes as on one local worker, and the standings are the same."""
    from distributed import LocalCluster

    cmd = [
        "ladder",
        "--variant",
        "yuxi",
        "--agents",
        "efficient,greedy,random,greedy",
        "--hands",
        "96",
        "--seed",
        "8",
        "--hands-per-shard",
        "32",
        "--format",
        "csv",
        "--quiet",
    ]
    local = CliRunner().invoke(main, [*cmd, "--workers", "1", "--out", str(tmp_path / "a")])
    assert local.exit_code == 0, local.output
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        res = CliRunner().invoke(
            main, [*cmd, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "b")]
        )
        played_there = cluster.scheduler.transition_counter  # tasks it moved along
        # the cluster's workers cannot write into this machine's temporary folder
        bare = CliRunner().invoke(main, [*cmd, "--scheduler", cluster.scheduler_address])
    assert bare.exit_code == 2 and "needs --out" in bare.output
    assert res.exit_code == 0, res.output
    assert played_there > 0
    assert res.output == local.output and "efficient" in res.output

    def shards(root):
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.parquet"))
        }

    a, b = shards(tmp_path / "a"), shards(tmp_path / "b")
    # balanced: three orders of the agents after the first, each its own run
    assert {k.split("/")[0] for k in a} == {"seating-0", "seating-1", "seating-2"}
    assert a == b


def test_ladder_gaps_pair_the_agents_by_match(tmp_path):
    import numpy as np
    import pyarrow.parquet as pq
    from scipy import stats

    from analysis.studies.ladder import ladder_tables

    table, gaps = ladder_tables(
        "yuxi",
        ["efficient", "greedy", "random", "greedy"],
        hands=64,
        seed=4,
        hands_per_match=1,
        workers=1,
        out=tmp_path / "run",
    )
    order = list(table["agent"])
    assert list(zip(gaps["ahead"], gaps["behind"], strict=True)) == list(pairwise(order))
    # independently of the ladder's query: each agent's mean points per match,
    # read from the hands tables of every seat order, then scipy's paired t interval
    runs = sorted((tmp_path / "run").glob("seating-*"))
    assert len(runs) == 3  # balanced by default: greedy, random, greedy in every order
    hands = [h for r in runs for h in pq.read_table(r / "hands").to_pylist()]
    per = {}
    for h in hands:
        for seat, agent in enumerate(h["agents"]):
            per.setdefault((agent, h["match"]), []).append(h["deltas"][seat])
    matches = sorted({h["match"] for h in hands})
    mean = table.set_index("agent")["mean_points"]
    for g in gaps.itertuples():
        a = np.array([np.mean(per[g.ahead, m]) for m in matches])
        b = np.array([np.mean(per[g.behind, m]) for m in matches])
        ci = stats.ttest_rel(a, b).confidence_interval()
        assert g.matches == len(matches)
        assert g.difference == pytest.approx(mean[g.ahead] - mean[g.behind])
        assert (g.ci_low, g.ci_high) == pytest.approx((ci.low, ci.high))
    res = CliRunner().invoke(
        main,
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "efficient,greedy,random,greedy",
            "--hands",
            "64",
            "--seed",
            "4",
            "--hands-per-match",
            "1",
            "--workers",
            "1",
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "lead over the next agent down" in res.output and "balanced seating" in res.output
    assert any(
        line.split()[:3] == ["efficient", "greedy", str(len(matches))]
        for line in res.output.splitlines()
    )


def test_lead_across_pairs_an_agent_with_another_in_its_seat_on_the_same_walls(tmp_path):
    """``lead_across``: greedy in random's seat of the same line-up and walls,
    against random there, paired by match; checked against the hands tables read
    independently and scipy's paired t interval."""
    import numpy as np
    import pyarrow.parquet as pq
    from scipy import stats

    from analysis.ladder import lead_across
    from analysis.studies.ladder import ladder_tables

    runs = {}
    for first in ("greedy", "random"):
        runs[first] = tmp_path / first
        ladder_tables(
            "xuezhan",
            [first, "efficient", "efficient", "efficient"],
            hands=48,
            seed=9,
            hands_per_match=1,
            workers=1,
            out=runs[first],
        )
    got = lead_across(runs["greedy"], "greedy", runs["random"], "random")
    per = {}
    for k, run in runs.items():
        for h in pq.read_table(run / "hands").to_pylist():
            per.setdefault(k, {}).setdefault(h["match"], []).append(
                h["deltas"][h["agents"].index(k)]
            )
    matches = sorted(per["random"])
    a = np.array([np.mean(per["greedy"][m]) for m in matches])
    b = np.array([np.mean(per["random"][m]) for m in matches])
    ci = stats.ttest_rel(a, b).confidence_interval()
    assert got["matches"] == len(matches) == 12
    assert got["difference"] == pytest.approx(a.mean() - b.mean())
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert got["ci_low"] > 0  # greedy beats random
    # a run against itself: exactly level
    same = lead_across(runs["greedy"], "greedy", runs["greedy"])
    assert (same["difference"], same["ci_low"], same["ci_high"]) == (0, 0, 0)


def test_lead_across_refuses_other_walls_and_unknown_agents(tmp_path):
    from analysis.ladder import lead_across
    from analysis.studies.ladder import ladder_tables
    from mjlog.errors import InputError

    for seed in (1, 2):
        ladder_tables(
            "yuxi",
            ["greedy", "random", "random", "random"],
            hands=8,
            seed=seed,
            hands_per_match=1,
            workers=1,
            out=tmp_path / str(seed),
        )
    with pytest.raises(InputError, match="do not hold the same walls"):
        lead_across(tmp_path / "1", "greedy", tmp_path / "2")
    with pytest.raises(InputError, match="no agent 'expert' in this run"):
        lead_across(tmp_path / "1", "expert", tmp_path / "1", "greedy")


def test_changed_hands_splits_the_lead_into_how_often_and_how_much(tmp_path):
    """``changed_hands``: strategic against a twin of other settings under the same
    name, in the same seats of the same line-ups (balanced seating) and walls; the
    share of seat-hands whose points differ, and the difference per changed one,
    checked against the hands tables read independently and against ``lead_across``."""
    import math
    import shutil

    import pyarrow.parquet as pq

    from analysis.ladder import changed_hands, lead_across
    from analysis.studies.ladder import ladder_tables
    from mjlog.errors import InputError

    for name, spec in (("a", "strategic"), ("b", "strategic:aggression=0.1;defense=0.9")):
        ladder_tables(
            "yuxi",
            [spec, "efficient", "greedy", "random"],
            hands=48,
            seed=6,
            hands_per_match=1,
            workers=1,
            out=tmp_path / name,
            seating="balanced",
        )
    got = changed_hands(tmp_path / "a", "strategic", tmp_path / "b")

    def seat_points(run):
        out = {}
        for r in sorted(run.glob("seating-*")):
            for h in pq.read_table(r / "hands").to_pylist():
                s = h["agents"].index("strategic")
                out[(h["match"], h["rotation"], h["hand"], tuple(h["agents"]))] = h["deltas"][s]
        return out

    a, b = seat_points(tmp_path / "a"), seat_points(tmp_path / "b")
    assert a.keys() == b.keys() and got["hands"] == len(a)
    diffs = [a[k] - b[k] for k in a]
    changed = [d for d in diffs if d]
    assert changed, "the two settings should part somewhere on these walls"
    assert got["share"] == pytest.approx(len(changed) / len(diffs))
    assert got["per_changed"] == pytest.approx(sum(changed) / len(changed))
    assert got["share_low"] <= got["share"] <= got["share_high"]
    assert got["per_changed_low"] <= got["per_changed"] <= got["per_changed_high"]
    lead = lead_across(tmp_path / "a", "strategic", tmp_path / "b")
    assert got["share"] * got["per_changed"] == pytest.approx(lead["difference"])
    same = changed_hands(tmp_path / "a", "strategic", tmp_path / "a")
    assert same["share"] == 0 and math.isnan(same["per_changed"])
    with pytest.raises(InputError, match="no agent 'expert' in this run"):
        changed_hands(tmp_path / "a", "expert", tmp_path / "b")
    ladder_tables(
        "yuxi",
        ["strategic", "efficient", "greedy", "random"],
        hands=48,
        seed=7,
        hands_per_match=1,
        workers=1,
        out=tmp_path / "c",
        seating="balanced",
    )
    with pytest.raises(InputError, match="do not hold the same walls"):
        changed_hands(tmp_path / "a", "strategic", tmp_path / "c")
    # the same walls, but strategic never in a line-up of the other run
    ladder_tables(
        "yuxi",
        ["strategic", "greedy", "greedy", "greedy"],
        hands=48,
        seed=6,
        hands_per_match=1,
        workers=1,
        out=tmp_path / "d",
        seating="cyclic",
    )
    with pytest.raises(InputError, match="share no seat-hand of 'strategic'"):
        changed_hands(tmp_path / "a", "strategic", tmp_path / "d")
    # one folder holding the same seating from both ladders: two agents (other
    # settings), so a's strategic pairs with itself alone
    for i, name in enumerate("ab"):
        shutil.copytree(tmp_path / name / "seating-0", tmp_path / "ab" / f"seating-{i}")
    assert changed_hands(tmp_path / "ab", "strategic", tmp_path / "a")["share"] == 0
    # one folder holding one line-up twice on the same walls (a longer run of it holds
    # them too): no pairing one to one
    ladder_tables(
        "yuxi",
        ["strategic", "efficient", "greedy", "random"],
        hands=12,
        seed=6,
        hands_per_match=1,
        workers=1,
        out=tmp_path / "e",
        seating="cyclic",
    )
    shutil.copytree(tmp_path / "a" / "seating-0", tmp_path / "mixed" / "seating-0")
    shutil.copytree(tmp_path / "e", tmp_path / "mixed" / "seating-1")
    with pytest.raises(InputError, match="played twice on the same walls"):
        changed_hands(tmp_path / "mixed", "strategic", tmp_path / "a")


def test_a_balanced_ladder_seats_every_agent_just_before_every_other_equally(tmp_path):
    """``--seating balanced``: every order of the agents after the first, on the same
    walls; each agent sits just before each other one equally often, and the
    standings pool every seating per match (checked against the hands tables)."""
    from collections import Counter

    import numpy as np
    import pyarrow.parquet as pq

    from analysis.ladder import lead_across
    from analysis.studies.ladder import ladder_tables

    agents = ["greedy", "random", "efficient", "strategic"]
    table, gaps = ladder_tables(
        "yuxi",
        agents,
        hands=48,
        seed=5,
        hands_per_match=1,
        workers=1,
        out=tmp_path / "run",
        seating="balanced",
    )
    runs = sorted((tmp_path / "run").glob("seating-*"))
    assert len(runs) == 6
    before, points = Counter(), {}
    for r in runs:
        for h in pq.read_table(r / "hands").to_pylist():
            a = h["agents"]
            before.update((a[s], a[(s + 1) % 4]) for s in range(4))
            for s, name in enumerate(a):
                points.setdefault(name, []).append(h["deltas"][s])
    assert set(before) == {(x, y) for x in agents for y in agents if x != y}
    assert len(set(before.values())) == 1  # every ordered pair of neighbours alike
    t = table.set_index("agent")
    for name, pts in points.items():
        assert t.loc[name, "hands"] == len(pts) == 48
        assert t.loc[name, "mean_points"] == pytest.approx(np.mean(pts))
    assert gaps["matches"].tolist() == [2, 2, 2]
    # the balanced folder pairs with itself as any run does
    assert lead_across(tmp_path / "run", "greedy", tmp_path / "run")["difference"] == 0


def test_two_agents_that_play_alike_finish_level_only_when_balanced(tmp_path):
    """Balanced seating plays every assignment of the agents to the seats, so two
    agents that play alike (expert with no samples plays strategic's choices) finish
    exactly level on any walls; the cyclic seating's single order need not."""
    from analysis.ladder import gaps
    from analysis.studies.ladder import ladder_tables

    twins = ["expert:rollouts=0", "strategic", "efficient", "greedy"]
    lead = {}
    for seating in ("balanced", "cyclic"):
        out = tmp_path / seating
        ladder_tables(
            "xuezhan",
            twins,
            hands=48,
            seed=7,
            hands_per_match=1,
            workers=1,
            out=out,
            seating=seating,
        )
        lead[seating] = gaps(out, ["expert", "strategic"]).iloc[0]["difference"]
    assert lead["balanced"] == 0
    assert lead["cyclic"] != 0  # these walls favour one seat of the cyclic order
