"""The hostile-input suite, agent identity and CSV cells (issue 38).

Two agents that differ only in their parameters (or two specs of one plugin) are
two agents: a ladder keeps them apart instead of pooling them under one name. And
no CSV the project writes holds a live spreadsheet formula: a text cell that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (an agent's or
plugin's name, a parameter, a run's path) comes out behind a single quote, while
numbers stay numbers.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tests import auditruns as ar
from tests.hostile import run

ROOT = Path(__file__).resolve().parents[2]
FORMULA = ("=", "+", "-", "@", "\t", "\r")
LADDER = [
    "ladder",
    "--variant",
    "yuxi",
    "--hands",
    "8",
    "--hands-per-match",
    "1",
    "--seating",
    "cyclic",
    "--workers",
    "1",
    "--quiet",
]


def tagged(**params):
    """A plugin factory that takes any parameter: its agent plays greedy's game and
    calls itself ``greedy`` in the hands table (a plugin names its agents as it likes)."""
    from simulate.agents import GreedyAgent

    return GreedyAgent()


def inert(text: str, numeric: set[str]) -> list[dict[str, str]]:
    """The CSV's rows, each text cell checked not to start a formula and each cell of
    a ``numeric`` column checked to be a plain number (or empty)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows
    for row in rows:
        for col, cell in row.items():
            if col in numeric:
                assert cell == "" or float(cell) == float(cell), (col, cell)
                assert not cell.startswith("'"), (col, cell)
            else:
                assert not cell.startswith(FORMULA), f"{col}: live cell {cell!r}"
    return rows


def evil_site(tmp_path: Path) -> Path:
    """A site folder holding one installed distribution whose ``mjlog.agents`` entry
    points have names a spreadsheet reads as formulas."""
    site = tmp_path / "site"
    info = site / "evil_agents-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-agents\nVersion: 1.0\n")
    factory = "tests.analysis.test_agent_identity_and_csv:tagged"
    (info / "entry_points.txt").write_text(
        "[mjlog.agents]\n" + "".join(f"{n} = {factory}\n" for n in ("-evil", "+evil", "@evil"))
    )
    return site


def test_ladder_keeps_agents_that_differ_only_in_parameters_apart(tmp_path):
    agents = "strategic:aggression=0.9,strategic:aggression=0.1,greedy,random"
    res = run([*LADDER, "--agents", agents, "--format", "json"], tmp_path, isolate=False)
    assert res.code == 0, res.stderr
    rows = {r["agent"]: r for r in json.loads(res.stdout)}
    assert sorted(rows) == [
        "greedy",
        "random",
        "strategic:aggression=0.1",
        "strategic:aggression=0.9",
    ]
    assert {r["hands"] for r in rows.values()} == {8}  # one seat of each of the 8 hands


def test_ladder_keeps_two_specs_of_one_plugin_apart_and_its_csv_inert(tmp_path):
    """Entry points named ``-evil``, ``+evil``, ``@evil`` with a parameter that is a
    formula: every cell of ``--format csv`` and of ``--csv`` is inert, the two specs
    of ``-evil`` are two rows, and none is pooled with the real ``greedy`` their
    agents call themselves."""
    env = {"PYTHONPATH": os.pathsep.join([str(evil_site(tmp_path)), str(ROOT)])}
    agents = "-evil:tag=@SUM(1),-evil:tag=x\r=1+1,+evil,@evil"  # a CR may not start a row
    res = run(
        [*LADDER, f"--agents={agents}", "--format", "csv", "--csv", "out.csv"], tmp_path, env=env
    )
    assert res.code == 0, res.stderr
    numeric = {
        "hands",
        "mean_points",
        "ci_low",
        "ci_high",
        "win_rate",
        "deal_in_rate",
        "mean_points_per_win",
    }
    want = ["'+evil", "'-evil:tag=@SUM(1)", "'-evil:tag=x\r=1+1", "'@evil"]
    # stdout is read as text here, its line ends (a quoted CR too) turned into \n
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as f:
        written = f.read()
    for text, cr in ((res.stdout, "\n"), (written, "\r")):
        rows = inert(text, numeric)
        assert sorted(r["agent"] for r in rows) == sorted(a.replace("\r", cr) for a in want)
        assert {int(r["hands"]) for r in rows} == {8}
    # the JSON is data, not a spreadsheet: the labels as they are
    res = run([*LADDER, f"--agents={agents}", "--format", "json"], tmp_path, env=env)
    assert sorted(r["agent"] for r in json.loads(res.stdout)) == [
        "+evil",
        "-evil:tag=@SUM(1)",
        "-evil:tag=x\r=1+1",
        "@evil",
    ]


def test_validate_csv_report_of_a_run_named_like_a_formula_is_inert(tmp_path):
    """``mjlog validate --report x.csv``: the run's path (as given) starts every
    problem's row; a folder named ``=HYPERLINK(…)`` must not become a live link."""
    name = '=HYPERLINK("x.invalid","y")'
    dst = tmp_path / name
    shutil.copytree(ar.run("huangmei"), dst)
    path = dst / "hands" / "part-00000.parquet"
    tab = pq.read_table(path)
    rows = [
        dict(r, next_dealer=(r["next_dealer"] + 1) % 4) if i == 2 else r
        for i, r in enumerate(tab.to_pylist())
    ]
    pq.write_table(pa.Table.from_pylist(rows, schema=tab.schema), path)
    res = run(
        ["validate", name, "--workers", "1", "--report", "audit.csv"], tmp_path, isolate=False
    )
    assert res.code == 1, res.stdout + res.stderr
    got = inert((tmp_path / "audit.csv").read_text(), {"match", "rotation", "hand", "seq"})
    assert {r["run"] for r in got} == {"'" + name}


def test_the_csv_helper_quotes_text_not_numbers():
    import pandas as pd

    from mjlog.csvsafe import csv_text

    df = pd.DataFrame(
        {
            "agent": ["-0.66", "=1+1", "@a", "+a", "\tx", "\rx", "ok", None],
            "points": [-0.66, 1.0, -2.0, 0.0, 3.5, -1e-9, 2.0, 1.0],
            "n": [-1, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    back = pd.read_csv(io.StringIO(csv_text(df)), keep_default_na=False)
    assert back["agent"].tolist() == ["'-0.66", "'=1+1", "'@a", "'+a", "'\tx", "'\rx", "ok", ""]
    assert back["points"].tolist() == df["points"].tolist()
    assert back["n"].tolist() == df["n"].tolist()
