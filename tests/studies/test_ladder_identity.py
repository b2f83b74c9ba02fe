"""An agent is its full spec (issue 38): name, parameters with the defaults filled
in, a plugin's version. The ladder, its leads, the queries that group by agent or
line-up and the report keep two specs of one agent apart, under labels read from
the runs' manifests (docs/ladder.md, "Who is who")."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from analysis import queries
from mjlog.cli import main
from simulate.agents import agent_entry
from simulate.runner import RunSpec, simulate

TWO_STRATEGIC = ["strategic", "strategic:aggression=0.1", "greedy", "random"]


def _seat_points(run) -> dict[int, list[int]]:
    """Each place of the manifest's line-up: its points per seat-hand, read from the
    hands table (the runner seats place j at seat (j + rotation) mod n)."""
    out: dict[int, list[int]] = {}
    for h in pq.read_table(run / "hands").to_pylist():
        n = len(h["agents"])
        for j in range(n):
            out.setdefault(j, []).append(h["deltas"][(j + h["rotation"]) % n])
    return out


def test_ladder_rows_are_agents_with_their_parameters(tmp_path):
    from analysis.studies.ladder import ladder_tables

    table, gaps = ladder_tables(
        "yuxi",
        TWO_STRATEGIC,
        hands=8,
        seed=2,
        hands_per_match=1,
        workers=1,
        out=tmp_path / "run",
        seating="cyclic",
    )
    labels = ["strategic", "strategic:aggression=0.1", "greedy", "random"]
    assert sorted(table["agent"]) == sorted(labels)
    pts = _seat_points(tmp_path / "run")
    t = table.set_index("agent")
    for j, label in enumerate(labels):
        assert t.loc[label, "hands"] == len(pts[j]) == 8
        assert t.loc[label, "mean_points"] == pytest.approx(np.mean(pts[j]))
    assert set(gaps["ahead"]) | set(gaps["behind"]) == set(labels)


def test_ladder_labels_an_agent_by_its_name_when_no_other_shares_it(tmp_path):
    """The plain name when one spec of that name plays; one spec given two ways
    (``aggression`` at its default) is one agent."""
    from analysis.studies.ladder import ladder_tables

    default = agent_entry("strategic")["settings"]["aggression"]
    table = ladder_tables(
        "yuxi",
        ["strategic:aggression=0.9", "greedy", "random", "random"],
        hands=8,
        hands_per_match=1,
        workers=1,
        seating="cyclic",
    )[0]
    assert sorted(table["agent"]) == ["greedy", "random", "strategic"]
    table = ladder_tables(
        "yuxi",
        ["strategic", f"strategic:aggression={default}", "greedy", "random"],
        hands=8,
        hands_per_match=1,
        workers=1,
        seating="cyclic",
    )[0]
    assert sorted(table["agent"]) == ["greedy", "random", "strategic"]
    assert table.set_index("agent").loc["strategic", "hands"] == 16


def test_ladder_cli_text_and_csv_name_both_specs(tmp_path):
    res = CliRunner().invoke(
        main,
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            ",".join(TWO_STRATEGIC),
            "--hands",
            "8",
            "--hands-per-match",
            "1",
            "--seating",
            "cyclic",
            "--workers",
            "1",
            "--quiet",
            "--csv",
            str(tmp_path / "t.csv"),
        ],
    )
    assert res.exit_code == 0, res.output
    lead = res.stdout.split("lead over")[1]
    assert "strategic:aggression=0.1" in lead and "strategic " in lead
    text = (tmp_path / "t.csv").read_text()
    assert "\nstrategic:aggression=0.1," in text and "\nstrategic," in text


def _sim(out, agents, seed=5):
    spec = RunSpec.build("yuxi", seed, 2, 1, agents, duplicate=True, events=False)
    simulate(spec, out, workers=1, progress=False)
    return out


def test_queries_keep_specs_apart_by_agent_and_line_up(tmp_path):
    run = _sim(tmp_path / "a", TWO_STRATEGIC)
    by_agent = queries.seat_stats(run, by="agent").set_index("agent")
    pts = _seat_points(run)
    for j, label in enumerate(["strategic", "strategic:aggression=0.1"]):
        assert by_agent.loc[label, "hands"] == len(pts[j])
        assert by_agent.loc[label, "mean_points"] == pytest.approx(np.mean(pts[j]))
    seats = queries.seat_stats(run, by="seat")
    assert set(seats["agent"]) == {"strategic", "strategic:aggression=0.1", "greedy", "random"}
    # two runs of one name, other parameters: two line-ups, never pooled
    b = _sim(tmp_path / "b", ["strategic:aggression=0.9"] * 4)
    c = _sim(tmp_path / "c", ["strategic:aggression=0.2"] * 4)
    v = queries.seat_stats([b, c], by="variant")
    assert sorted(v["lineup"]) == [
        ",".join(["strategic:aggression=0.2"] * 4),
        ",".join(["strategic:aggression=0.9"] * 4),
    ]
    assert v["hands"].tolist() == [4 * 8, 4 * 8]
    # read alone, each is plain strategic
    assert queries.seat_stats(b, by="agent")["agent"].tolist() == ["strategic"]


def test_report_per_agent_table_has_a_row_per_spec(tmp_path):
    run = _sim(tmp_path / "run", TWO_STRATEGIC)
    t = queries.tables(run)
    assert sorted(t["agents"]["agent"]) == sorted(
        ["strategic", "strategic:aggression=0.1", "greedy", "random"]
    )
    res = CliRunner().invoke(
        main, ["report", str(run), "--out", str(tmp_path / "r"), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    html = open(json.loads(res.output)["index"], encoding="utf-8").read()
    section = html.split("Per agent 每个智能体</h2>")[1].split("<h2")[0]
    assert "strategic:aggression=0.1" in section
    assert section.count("<td>strategic</td>") == 1


def test_old_runs_keep_their_names():
    """A manifest of an older mjlog (no settings) still labels its seats."""
    from pathlib import Path

    old = Path(__file__).parents[1] / "fixtures" / "runs-0.1-before-new-keys" / "yuxi"
    assert queries.seat_stats(old, by="agent")["agent"].tolist() == ["greedy"]
