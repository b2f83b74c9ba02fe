"""`mjlog simulate` through the CLI: a complete run, determinism, resume, bad input."""

import json
from pathlib import Path

from click.testing import CliRunner

from mjlog.cli import main

ARGS = [
    "simulate",
    "--variant",
    "yuxi",
    "--matches",
    "3",
    "--hands-per-match",
    "3",
    "--seed",
    "11",
    "--agents",
    "greedy,random,greedy,random",
    "--workers",
    "1",
    "--quiet",
]


def _files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*.parquet"))}


def test_simulate_writes_a_complete_deterministic_run(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        res = CliRunner().invoke(main, ARGS + ["--out", str(out)])
        assert res.exit_code == 0, res.output
    fa = _files(a)
    assert set(fa) == {f"{t}/part-00000.parquet" for t in ("hands", "events", "wins", "transfers")}
    assert fa == _files(b)
    m = json.loads((a / "manifest.json").read_text())
    assert m["variant"] == "yuxi" and m["seed"] == 11 and m["rng"] == "splitmix64-fy/1"
    assert m["rules"]["cap"] == 64 and len(m["run_id"]) == 16
    assert [x["name"] for x in m["agents"]] == ["greedy", "random", "greedy", "random"]
    rows = {f["table"]: f["rows"] for f in m["files"]}
    assert rows["hands"] == 9 and rows["events"] > 9 * 50


def test_other_seed_gives_other_bytes(tmp_path):
    CliRunner().invoke(main, ARGS + ["--out", str(tmp_path / "a")])
    args = list(ARGS)
    args[args.index("11")] = "12"
    CliRunner().invoke(main, args + ["--out", str(tmp_path / "b")])
    fa, fb = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert fa["hands/part-00000.parquet"] != fb["hands/part-00000.parquet"]


def test_rerun_resumes_and_refuses_another_run(tmp_path):
    out = tmp_path / "r"
    assert CliRunner().invoke(main, ARGS + ["--out", str(out)]).exit_code == 0
    before = _files(out)
    (out / "wins/part-00000.parquet").unlink()  # an interrupted shard
    assert CliRunner().invoke(main, ARGS + ["--out", str(out)]).exit_code == 0
    assert _files(out) == before
    args = list(ARGS)
    args[args.index("11")] = "99"
    res = CliRunner().invoke(main, args + ["--out", str(out)])
    assert res.exit_code == 2 and "choose another --out" in res.output


def test_bad_input_is_one_line(tmp_path):
    for extra, needle in (
        (["--agents", "greedy,alien,greedy,greedy"], "unknown agent 'alien'"),
        (["--set", "cap=x"], "expected an integer"),
    ):
        args = [a for a in ARGS]
        if extra[0] == "--agents":
            args[args.index("--agents") + 1] = extra[1]
        else:
            args += extra
        res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "x")])
        assert res.exit_code == 2, res.output
        assert needle in res.output and "Traceback" not in res.output
