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
    # every run settled from one of the directory's own runs, played there
    again = tmp_path / "again"
    assert res["settled"] and all(
        ".." not in v and not v.startswith("/") and (again / v / "manifest.json").is_file()
        for v in res["settled"].values()
    )
    assert res["best"] == first["best"] and res["targets"] == first["targets"]


def test_a_settled_run_whose_shard_fell_back_to_play_is_journaled_as_played(tmp_path, monkeypatch):
    # every candidate of base is settled from trial 0's play; make one value's
    # shards fail to settle, as a donor shard that does not settle would: the runner
    # plays them, and the journal must say played (its hands counted), not settled
    from mjlog.resettle import NotResettled
    from simulate import runner

    real = runner.resettled_hands

    def not_base_3(spec, donor, shard, first, end):
        if spec.rules["base"] == 3:
            raise NotResettled("as if this shard did not settle")
        return real(spec, donor, shard, first, end)

    monkeypatch.setattr(runner, "resettled_hands", not_base_3)
    res = _tune(tmp_path / "t")
    doc = json.loads((tmp_path / "t" / "tune.json").read_text(encoding="utf-8"))
    trials = {t["point"]["base"]: t for t in res["trials"] if "same_as" not in t}
    fell_back, first = trials["3"], res["trials"][0]
    assert fell_back["hands"] == first["hands"] > 0 and "settled_from" not in fell_back
    assert fell_back["run"] in doc["played"] and fell_back["run"] not in doc["settled"]
    settled = [t for t in trials.values() if "settled_from" in t]
    assert settled and all(t["hands"] == 0 and t["settled"] == first["hands"] for t in settled)
    # the journal counts each settled run's hands as the runner's manifest says
    assert doc["settled_hands"] == {r: _hands(tmp_path / "t" / r) for r in doc["settled"]}
    # the answer is the one every run played gives; the hands played differ by those
    monkeypatch.setattr(runner, "resettled_hands", real)
    r = CliRunner().invoke(main, [*ARGS, "--play-all", "--out", str(tmp_path / "all")])
    played = json.loads(r.stdout)
    assert res["best"] == played["best"] and res["targets"] == played["targets"]
    assert res["hands"] == played["hands"] - sum(doc["settled_hands"].values())


def _hands(run) -> int:
    m = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    return sum(f["rows"] for f in m["files"] if f["table"] == "hands")


def test_a_journal_before_settled_counts_still_loads_with_its_runs_settled_whole(tmp_path):
    res = _tune(tmp_path / "t")
    doc = json.loads((tmp_path / "t" / "tune.json").read_text(encoding="utf-8"))
    assert doc["settled_hands"] and set(doc["settled_hands"]) == set(doc["settled"])
    # as an older mjlog wrote it: no counts, every settled run settled whole
    del doc["settled_hands"]
    (tmp_path / "t" / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    assert _tune(tmp_path / "t") == res
    # a count that is not a whole number is damage: one line, exit 2
    doc["settled_hands"] = {"trials/001": "all"}
    (tmp_path / "t" / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    r = CliRunner().invoke(main, [*ARGS, "--out", str(tmp_path / "t")])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "settled hands" in r.stderr
