"""A tune journal is read back from disk: the runs it names as played are only ever
runs of the tune's own directory, whatever the file says (mjlog tune, settling)."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from mjlog.cli import main

ARGS = [
    "tune",
    "yuxi",
    "--vary",
    "base=1:6",
    "--agents",
    "greedy",
    "--budget",
    "320",
    "--trials",
    "4",
    "--workers",
    "1",
    "--quiet",
    "--format",
    "json",
    "--target",
    "money_moved_per_hand=12±1",
]


def _tune(out):
    r = CliRunner().invoke(main, [*ARGS, "--out", str(out)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _truncated(tmp_path, played):
    """The finished tune's journal cut back to its first trial, naming ``played`` as
    the runs it played, in a new directory beside a copy of that trial's run."""
    doc = json.loads((tmp_path / "t" / "tune.json").read_text(encoding="utf-8"))
    doc["trials"], doc["race"], doc["confirm"] = doc["trials"][:1], [], None
    for key in ("recheck", "finished", "choice"):
        doc.pop(key, None)
    doc["played"], doc["settled"] = played, {}
    out = tmp_path / "again"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    shutil.copytree(tmp_path / "t" / "trials" / "000", out / "trials" / "000")
    return out


def test_a_journal_cannot_point_settling_outside_its_directory(tmp_path):
    first = _tune(tmp_path / "t")
    # a run that would pass as a donor, outside the tune's directory
    shutil.copytree(tmp_path / "t" / "trials" / "000", tmp_path / "evil")
    for outside in ("../evil", str(tmp_path / "evil"), "trials/../../evil"):
        out = _truncated(tmp_path, [outside, "trials/000"])
        r = CliRunner().invoke(main, [*ARGS, "--out", str(out)])
        # refused before anything is read or played: one line naming the journal
        assert r.exit_code == 2, r.output
        assert r.stderr.count("\n") == 1 and "tune.json" in r.stderr, r.stderr
        assert sorted(p.name for p in out.iterdir()) == ["trials", "tune.json"]
    # the same journal naming only its own run resumes to the same answer
    res = _tune(_truncated(tmp_path, ["trials/000"]))
    assert set(res["settled"].values()) <= {"trials/000", "confirm"}
    assert res["best"] == first["best"] and res["targets"] == first["targets"]
