"""A study's runs are split so that every worker has a shard to play (issue 48, "every
core busy in a study"), by the run alone: the same layout and the same answer
whatever the workers."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from simulate.spec import STUDY_SHARDS, study_shard_hands

# A key that play reads (not money-only): every run is played by the workers, each
# after the study has read the one before through DuckDB (whose threads, forked into a
# worker, once left it waiting for ever: "a worker process died").
ARGS = [
    "tune",
    "huangmei",
    "--vary",
    "fan.qidui=5:60:5",
    "--agents",
    "greedy",
    "--budget",
    "960",
    "--trials",
    "4",
    "--quiet",
    "--format",
    "json",
    "--target",
    "pattern_rate[qidui]=0.05±0.01",
]


def _tune(out, workers):
    r = CliRunner().invoke(main, [*ARGS, "--workers", str(workers), "--out", str(out)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _layouts(out):
    """Per run of the tune: (matches, hands per shard, shards)."""
    got = {}
    for m in sorted(out.rglob("manifest.json")):
        doc = json.loads(m.read_text(encoding="utf-8"))
        shards = {f["path"].split("/")[-1] for f in doc["files"] if f["table"] == "hands"}
        got[str(m.parent.relative_to(out))] = (
            doc["matches"],
            doc["hands_per_shard"],
            len(shards),
        )
    return got


def test_every_run_of_a_tune_has_a_shard_for_every_worker_and_one_answer(tmp_path):
    one, two = _tune(tmp_path / "one", 1), _tune(tmp_path / "two", 2)
    assert one == two  # the same proposal, trials, race and confirmation
    # and the same journal: trials asked in batches and played side by side, each
    # run journaled in the order asked, not as the workers finished them
    journal = (tmp_path / "one" / "tune.json").read_bytes()
    assert (tmp_path / "two" / "tune.json").read_bytes() == journal
    layouts = _layouts(tmp_path / "one")
    assert layouts == _layouts(tmp_path / "two") and len(layouts) >= 4
    for run, (matches, per_shard, shards) in layouts.items():
        assert per_shard == study_shard_hands(matches, 8), run
        assert shards >= min(matches, STUDY_SHARDS), run  # never one shard for many matches


@pytest.mark.parametrize(
    ("matches", "hpm", "rotations", "shards"),
    [
        (1, 8, 1, 1),
        (7, 8, 1, 7),
        (8, 8, 1, 8),
        (20, 8, 1, 10),
        (150, 8, 1, 9),
        (10_000, 8, 1, 40),
        (9, 4, 4, 9),
    ],
)
def test_a_study_runs_shards(matches, hpm, rotations, shards):
    per_match = hpm * rotations
    per_shard = study_shard_hands(matches, hpm, rotations) // per_match
    assert -(-matches // per_shard) == shards


def test_a_tune_killed_inside_a_batch_of_trials_resumes_to_the_same_answer(tmp_path):
    """Past the sampler's start-up trials (8 trials: the rules as they are, then
    batches of 4 and 3), a tune killed with half a batch journaled asks the sampler
    the same points again: a trial's point depends on the batches before its own."""
    args = [a if a != "4" else "8" for a in ARGS]  # --trials 8
    first = CliRunner().invoke(main, [*args, "--workers", "2", "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    done = json.loads(first.stdout)
    assert len(done["trials"]) >= 8
    doc = json.loads((tmp_path / "a" / "tune.json").read_text(encoding="utf-8"))
    # as killed after trial 6: the first two of the last batch (5, 6, 7) journaled
    doc["trials"], doc["race"], doc["confirm"] = doc["trials"][:7], [], None
    for key in ("recheck", "finished", "choice", "settled", "played", "settled_hands"):
        doc.pop(key, None)
    out = tmp_path / "b"
    for k in range(7):  # their runs, and none after
        shutil.copytree(tmp_path / "a" / "trials" / f"{k:03d}", out / "trials" / f"{k:03d}")
    (out / "tune.json").write_text(json.dumps(doc), encoding="utf-8")
    again = CliRunner().invoke(main, [*args, "--workers", "1", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == done
