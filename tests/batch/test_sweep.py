"""`mjlog sweep`: one run per grid point, sweep.json, resume, refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from mjlog.cli import main
from mjlog.logio import read_manifest, verify_manifest

ARGS = [
    "sweep",
    "--variant",
    "xuezhan",
    "--grid",
    "cap=8,16",
    "--grid",
    "zimo_bonus=none,add_base",
    "--set",
    "base=2",
    "--matches",
    "2",
    "--hands-per-match",
    "2",
    "--agents",
    "random",
    "--seed",
    "4",
    "--workers",
    "1",
]
POINTS = [
    "cap=8__zimo_bonus=none",
    "cap=8__zimo_bonus=add_base",
    "cap=16__zimo_bonus=none",
    "cap=16__zimo_bonus=add_base",
]


def files(parent: Path) -> dict[str, bytes]:
    """Every file but the run markers (a writer's journal of what it finished, which a
    resumed run appends to)."""
    return {
        str(p.relative_to(parent)): p.read_bytes()
        for p in sorted(parent.rglob("*"))
        if p.is_file() and p.name != ".run_id"
    }


def test_sweep_runs_every_point_and_resumes(tmp_path):
    out = tmp_path / "sweep"
    res = CliRunner().invoke(main, ARGS + ["--out", str(out)])
    assert res.exit_code == 0, res.output
    said = [line.split(":")[0] for line in res.stdout.splitlines()[:4]]
    # the directory names, each value at xuezhan's default marked (cap=16, no bonus)
    assert [p.replace(" (default)", "") for p in said] == POINTS
    assert said == [
        "cap=8__zimo_bonus=none (default)",
        "cap=8__zimo_bonus=add_base",
        "cap=16 (default)__zimo_bonus=none (default)",
        "cap=16 (default)__zimo_bonus=add_base",
    ]
    doc = json.loads((out / "sweep.json").read_text())
    assert doc["variant"] == "xuezhan" and doc["sets"] == ["base=2"]
    assert doc["grid"] == {"cap": ["8", "16"], "zimo_bonus": ["none", "add_base"]}
    assert [p["dir"] for p in doc["points"]] == POINTS
    for p in doc["points"]:
        m = read_manifest(out / p["dir"])
        assert p["complete"] and m["run_id"] == p["run_id"]
        assert m["rules"]["cap"] == int(p["point"]["cap"]) and m["rules"]["base"] == 2
        assert m["rules"]["zimo_bonus"] == p["point"]["zimo_bonus"]
        assert verify_manifest(out / p["dir"]) == []
    assert len({p["run_id"] for p in doc["points"]}) == 4
    before = files(out)
    # An interrupted sweep: one run lost a shard file, one never started.
    (out / POINTS[1] / "wins" / "part-00000.parquet").unlink()
    shutil.rmtree(out / POINTS[3])
    res = CliRunner().invoke(main, ARGS + ["--quiet", "--out", str(out)])
    assert res.exit_code == 0 and res.output == ""
    assert files(out) == before


def test_sweep_refuses_another_sweep_and_bad_grids(tmp_path):
    out = tmp_path / "sweep"

    def small(grid: str, *extra: str) -> list[str]:
        return [
            "sweep",
            "--variant",
            "xuezhan",
            "--grid",
            grid,
            "--matches",
            "1",
            "--hands-per-match",
            "1",
            "--quiet",
            *extra,
            "--out",
            str(out),
        ]

    assert CliRunner().invoke(main, small("cap=8")).exit_code == 0
    for args, needle in (
        (small("cap=16"), "choose another --out"),
        (small("cap=8", "--grid", "cap=16"), "names 'cap' twice"),
        (small("cap=8", "--set", "cap=4"), "cap given by both --set and --grid"),
        (small("cap=8,oops"), "grid point cap=oops"),
        (small("cap"), "bad --grid 'cap'"),
    ):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, (args, res.output)
        assert needle in res.output and "Traceback" not in res.output, res.output


def test_sweep_plays_strategic_by_default(tmp_path):
    # greedy ignores the rules' values: a first sweep of it would measure no change in
    # play, so a sweep's default line-up is strategic (simulate keeps greedy)
    out = tmp_path / "sweep"
    res = CliRunner().invoke(
        main,
        [
            "sweep",
            "--variant",
            "yuxi",
            "--grid",
            "cap=2,8",
            "--matches",
            "1",
            "--hands-per-match",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "sweep.json").read_text())
    assert doc["base"]["agents"] == ["strategic"]
    for p in doc["points"]:
        assert {a["name"] for a in read_manifest(out / p["dir"])["agents"]} == {"strategic"}


def test_a_grid_value_at_the_variants_default_is_marked(tmp_path):
    """`sweep --grid cap=64` in yuxi says 64 is yuxi's default (issue 47), and only there."""
    args = ["sweep", "--variant", "yuxi", "--grid", "cap=64,16", "--matches", "2"]
    args += ["--agents", "greedy", "--workers", "1", "--out", str(tmp_path / "sw")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stdout.splitlines() if ": run " in ln]
    assert [ln.split(":")[0] for ln in lines] == ["cap=64 (default)", "cap=16"]
