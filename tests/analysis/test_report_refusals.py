"""The hostile-input suite, `mjlog report` and the CLI's last line of defence: odd
shapes of runs render or are refused in one line; a corrupt run inside a sweep is
named; and a bug in any command (an exception that is not the user's input) ends in
one line saying how to see its traceback (`mjlog --debug`, or `MJLOG_DEBUG=1`),
which `--debug` then shows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analysis.studies.sample import data_dir
from tests.hostile import refused, run
from tests.sealed import damage

TINY = ["--matches", "2", "--hands-per-match", "2", "--seed", "3", "--workers", "1", "--quiet"]


@pytest.fixture
def sweep(tmp_path) -> Path:
    """A copy of the sample sweep (xuezhan, four caps)."""
    dst = tmp_path / "sweep"
    shutil.copytree(data_dir() / "sweep" / "xuezhan-cap", dst)
    return dst


# ------------------------------------------------------------------ a bug


def _boom(*args, **kwargs):
    raise ZeroDivisionError("a bug\nover two lines")


@pytest.mark.parametrize(
    "command",
    [
        ["report", str(data_dir() / "huangmei"), "--out", "r"],
        ["simulate", "--variant", "yuxi", *TINY, "--out", "run"],
    ],
)
def test_a_bug_ends_in_one_line_that_says_how_to_see_it(tmp_path, monkeypatch, command):
    import analysis.queries
    import simulate.runner

    monkeypatch.setattr(analysis.queries, "tables", _boom)
    monkeypatch.setattr(simulate.runner, "simulate", _boom)
    monkeypatch.delenv("MJLOG_DEBUG", raising=False)
    res = refused(command, tmp_path, isolate=False, needle="mjlog --debug (or MJLOG_DEBUG=1)")
    assert res.code == 3
    assert res.stderr.startswith(
        "mjlog: error: an unexpected ZeroDivisionError in mjlog "
        "(a bug, not your input): a bug\\nover two lines; "
    )


@pytest.mark.parametrize("how", ["--debug", "MJLOG_DEBUG=1"])
def test_debug_shows_the_traceback(tmp_path, monkeypatch, how):
    import analysis.queries

    monkeypatch.setattr(analysis.queries, "tables", _boom)
    args = ["report", str(data_dir() / "huangmei"), "--out", "r"]
    if how == "--debug":
        monkeypatch.delenv("MJLOG_DEBUG", raising=False)
        args = ["--debug", *args]
    else:
        monkeypatch.setenv("MJLOG_DEBUG", "1")
    res = run(args, tmp_path, isolate=False)
    assert res.code == 3
    assert "Traceback (most recent call last)" in res.stderr
    assert "in _boom" in res.stderr and "ZeroDivisionError: a bug" in res.stderr
    assert res.stderr.splitlines()[-1].endswith("the traceback is above")
    assert not (tmp_path / "r").exists()


def test_a_usage_error_is_still_no_bug(tmp_path):
    res = refused(["report", "--bogus"], tmp_path, isolate=False, needle="--bogus")
    assert res.code == 2 and "a bug" not in res.stderr


# ------------------------------------------------------------------ corrupt runs
# (in this process: a run's files are regular files here, nothing can hang)


def test_a_changed_file_inside_a_sweep_is_named(sweep, tmp_path):
    f = damage(sweep / "cap=4" / "wins" / "part-00000.parquet")
    refused(
        ["report", str(sweep), "--out", str(tmp_path / "r")],
        tmp_path,
        inputs=[sweep],
        needle=f"{f}: sha256 ",
        isolate=False,
    )


def test_an_unreadable_file_inside_a_sweep_is_named(sweep, tmp_path):
    # its manifest vouches for it (the hash matches), but it is no Parquet file
    f = damage(sweep / "cap=4" / "wins" / "part-00000.parquet", vouched_by=sweep / "cap=4")
    refused(
        ["report", str(sweep), "--out", str(tmp_path / "r")],
        tmp_path,
        inputs=[sweep],
        needle=str(f),
        isolate=False,
    )


def test_a_broken_manifest_inside_a_sweep_is_named(sweep, tmp_path):
    (sweep / "cap=2" / "manifest.json").write_text('{"run_id": ')
    refused(
        ["report", str(sweep), "--out", str(tmp_path / "r")],
        tmp_path,
        inputs=[sweep],
        needle=str(sweep / "cap=2" / "manifest.json"),
        isolate=False,
    )


def test_a_sweep_with_no_runs_is_refused(tmp_path):
    empty = tmp_path / "sweep"
    empty.mkdir()
    (empty / "sweep.json").write_text(
        json.dumps({"variant": "xuezhan", "grid": {"cap": ["8"]}, "points": []})
    )
    refused(
        ["report", str(empty), "--out", str(tmp_path / "r")],
        tmp_path,
        inputs=[empty],
        needle="holds no runs",
        isolate=False,
    )


# ------------------------------------------------------------------ odd shapes that render


def _renders(args: list[str], cwd: Path) -> str:
    res = run(["report", *args, "--out", str(cwd / "r")], cwd, isolate=False)
    assert res.code == 0, res.stderr
    assert "Traceback" not in res.stderr
    page = (cwd / "r" / "index.html").read_text(encoding="utf-8")
    assert page.rstrip().endswith("</html>")
    return page


def test_one_hand_of_two_players(tmp_path):
    # one match of one hand, two seats: nothing to say, and it says so
    out = tmp_path / "one"
    res = run(
        [
            "simulate",
            "--variant",
            "xuezhan",
            "--players",
            "2",
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
        tmp_path,
        isolate=False,
    )
    assert res.code == 0, res.stderr
    page = _renders([str(out)], tmp_path)
    assert "too few hands to say anything yet (1 hands in 1 matches" in page


def test_an_interrupted_sweep_given_with_one_of_its_own_runs(sweep, tmp_path):
    # a point never finished, and a run given twice (alone and in its sweep): the
    # finished points are reported, each once
    shutil.rmtree(sweep / "cap=16")
    page = _renders([str(sweep), str(sweep / "cap=2")], tmp_path)
    assert "3 run(s)" in page and "cap=16" not in page.split("Contents")[0]


# ------------------------------------------------------------------ a tune's directory
# `mjlog report TUNE_DIR` (analysis/studies/tune/page.py): a tune directory from
# elsewhere is untrusted; a damaged or unfinished one is refused in one line, exit 2.


def _stopped(doc: dict) -> None:
    # as a tune killed after its fourth trial: no race, no confirmation yet
    doc["trials"], doc["race"], doc["confirm"] = doc["trials"][:4], [], None
    doc.pop("finished")


def _result(doc: dict, **fields) -> str:
    return json.dumps({"tune_id": doc["tune_id"], "best": {"fan.qidui": "40"}, **fields})


# (id, what it does to the journal's JSON, the journal's text (None: the JSON), the
# result's text (None: no result.json), the one line's needle)
TUNE_DAMAGE = [
    ("not json", None, lambda d: '{"trials": [', None, "not a tune's JSON"),
    ("nan", None, lambda d: '{"trials": NaN}', None, "NaN is not a JSON number"),
    ("a list", None, lambda d: "[1, 2]", None, "not an object"),
    ("deep", None, lambda d: "[" * 100_000, None, "not a tune's JSON"),
    ("run outside", lambda d: d["trials"][2].update(run="../x"), None, None, "'../x'"),
    ("loss text", lambda d: d["trials"][3].update(loss="0.1"), None, None, "3's loss is '0.1'"),
    ("op", lambda d: d["confirm"]["targets"][0].update(op="≈"), None, None, "target 0's op"),
    ("target", lambda d: d["confirm"]["targets"][0].update(target="x"), None, None, "target"),
    ("keys", lambda d: d["trials"][5]["point"].update(cap="8"), None, None, "trial 5 varies"),
    ("no trial", lambda d: d["confirm"].update(trial=99), None, None, "trial 99, which is"),
    ("variant", lambda d: d.update(variant="<b>"), None, None, "its variant is '<b>'"),
    ("stopped", _stopped, None, None, "a tune stopped after 4 trial(s) (4 played), before"),
    ("rescore", lambda d: d.update(mode="rescore"), None, None, "a --rescore tune"),
    ("sized", lambda d: d.update(sizing=[{"half_width": "1"}]), None, None, "sizing 0's half"),
    (
        "recheck",
        lambda d: d.update(
            recheck={"x": {"agents": "x", "hands": 0, "targets": [{}], "before": []}}
        ),
        None,
        None,
        "recheck 'x''s op",
    ),
    ("other result", None, None, lambda d: '{"tune_id": "0"}', "not this journal's result"),
    (
        "kept",
        None,
        None,
        lambda d: _result(d, kept={"fan.qidui": 5}, targets=[{}]),
        "a damaged tune result: the result's kept fan.qidui is 5, not text",
    ),
    (
        "sizing",
        None,
        None,
        lambda d: _result(d, targets=[{"confirmable": "yes"}]),
        "target 0's confirmable is 'yes'",
    ),
]


@pytest.mark.parametrize(
    "journal,text,result,needle", [c[1:] for c in TUNE_DAMAGE], ids=[c[0] for c in TUNE_DAMAGE]
)
def test_a_damaged_or_unfinished_tune_directory_is_refused(tmp_path, journal, text, result, needle):
    tune = tmp_path / "tune"
    shutil.copytree(data_dir() / "tune" / "huangmei-qidui", tune)
    doc = json.loads((tune / "tune.json").read_text(encoding="utf-8"))
    if journal:
        journal(doc)
    raw = text(doc) if text else json.dumps(doc)
    (tune / "tune.json").write_text(raw, encoding="utf-8")
    if result:
        (tune / "result.json").write_text(result(doc), encoding="utf-8")
    res = refused(
        ["report", str(tune), "--out", str(tmp_path / "r")],
        tmp_path,
        inputs=[tune],
        needle=needle,
        isolate=False,
    )
    assert res.code == 2 and "a bug" not in res.stderr


def test_a_tune_directory_is_reported_alone(tmp_path):
    tune = data_dir() / "tune" / "huangmei-qidui"
    refused(
        ["report", str(tune), str(data_dir() / "huangmei"), "--out", str(tmp_path / "r")],
        tmp_path,
        inputs=[tune],
        needle="is a tune's directory: report it alone",
        isolate=False,
    )
