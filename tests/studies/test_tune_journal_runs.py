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


def test_a_journal_cannot_point_settling_outside_its_directory(tmp_path):
    first = _tune(tmp_path / "t")
    # a run that would pass as a donor, outside the tune's directory
    shutil.copytree(tmp_path / "t" / "trials" / "000", tmp_path / "evil")
    out = tmp_path / "again"
    out.mkdir()
    doc = json.loads((tmp_path / "t" / "tune.json").read_text(encoding="utf-8"))
    doc["trials"], doc["race"], doc["confirm"] = doc["trials"][:1], [], None
    doc.pop("recheck", None), doc.pop("finished")
    doc["played"] = ["../evil", str(tmp_path / "evil"), "trials/../../evil", "trials/000"]
    doc["settled"] = {}
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    shutil.copytree(tmp_path / "t" / "trials" / "000", out / "trials" / "000")
    res = _tune(out)
    assert set(res["settled"].values()) <= {"trials/000", "confirm"}
    assert res["best"] == first["best"] and res["targets"] == first["targets"]
