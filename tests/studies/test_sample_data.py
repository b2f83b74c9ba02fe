"""The committed samples in data/ are what `make data` writes, byte for byte.

Regenerating all of data/ takes a while, so each test replays one shard of one sample:
the last shard (the final 1,000 hands) of each variant, written again from its seed
into a temporary folder and compared byte for byte with the committed files. The
other shards are tied to the same seed and spec through the manifest: its run id
must be the sample spec's, and every listed file must match its sha256. When an
engine change alters the play, these fail: run `make data` and commit data/.
"""

from __future__ import annotations

import json

import pytest

from analysis.studies.sample import SAMPLES, SWEEP, data_dir
from mjlog.logio import shard_path, verify_manifest
from simulate.runner import play_shard

REGENERATE = "data/ is stale: run `make data` and commit it"


@pytest.mark.parametrize("variant", list(SAMPLES))
def test_sample_last_shard_regenerates_byte_for_byte(variant, tmp_path):
    run = data_dir() / variant
    spec = SAMPLES[variant].spec()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["run_id"] == spec.run_id, REGENERATE
    assert verify_manifest(run) == []
    shard, first, end = spec.shards()[-1]
    assert end - first < SAMPLES[variant].matches  # really a part of the run
    play_shard(spec, tmp_path, shard, first, end)
    for table in ("hands", "events", "wins", "transfers"):
        rel = shard_path(table, shard)
        assert (tmp_path / rel).read_bytes() == (run / rel).read_bytes(), f"{rel}: {REGENERATE}"


def test_sweep_sample_matches_its_spec():
    parent = data_dir() / "sweep" / SWEEP["name"]
    doc = json.loads((parent / "sweep.json").read_text())
    assert doc["variant"] == SWEEP["variant"]
    assert doc["grid"] == {SWEEP["key"]: [str(v) for v in SWEEP["values"]]}
    assert all(p["complete"] for p in doc["points"])
    for p in doc["points"]:
        m = json.loads((parent / p["dir"] / "manifest.json").read_text())
        assert m["run_id"] == p["run_id"] and m["seed"] == SWEEP["seed"]
        assert verify_manifest(parent / p["dir"]) == []


def test_samples_stay_small():
    total = sum(p.stat().st_size for p in data_dir().rglob("*") if p.is_file())
    assert total < 5 * 2**20
