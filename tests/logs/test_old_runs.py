"""Runs written before a rule key existed still replay and validate.

The fixtures (tests/fixtures/README.md) were written by an older mjlog; their
manifests lack the keys added since. Each such key declares the value those runs
were played under (``RuleKey.absent``); a key that has always been recorded may
not be missing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.logio import RunFiles
from mjlog.rules import Rules, keys, unrecorded

OLD = Path(__file__).parents[1] / "fixtures" / "runs-0.1-before-new-keys"
VARIANTS = ("yuxi", "xuezhan", "huangmei")


def _manifest_rules(variant: str) -> dict:
    return json.loads((OLD / variant / "manifest.json").read_text())["rules"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_old_run_lacks_keys_added_since_and_each_has_its_absent_value(variant):
    old = _manifest_rules(variant)
    later = sorted(k for k in keys(variant) if k not in old)
    assert later, "the fixture predates at least one key of every variant"
    assert all(keys(variant)[k].absent is not None for k in later)
    assert unrecorded(variant, old) == []
    rules = RunFiles(OLD / variant).rules()
    assert {k: rules[k] for k in later} == {k: keys(variant)[k].absent for k in later}


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_old_run_validates_and_replays(variant):
    r = CliRunner().invoke(main, ["validate", str(OLD / variant), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["problems"] == []
    r = CliRunner().invoke(main, ["replay", str(OLD / variant), "--hand", "1:1"])
    assert r.exit_code == 0, r.output


def test_a_key_added_later_reads_as_the_old_play_not_todays_default():
    # before ziyise_hunyise an all-honor hand earned no 混一色: old runs keep that
    old = _manifest_rules("huangmei")
    assert "ziyise_hunyise" not in old
    assert Rules.recorded("huangmei", old)["ziyise_hunyise"] is False
    assert Rules("huangmei")["ziyise_hunyise"] is True


def test_a_key_always_recorded_may_not_be_missing(tmp_path):
    run = tmp_path / "yuxi"
    shutil.copytree(OLD / "yuxi", run)
    m = json.loads((run / "manifest.json").read_text())
    del m["rules"]["cap"]
    (run / "manifest.json").write_text(json.dumps(m))
    r = CliRunner().invoke(main, ["validate", str(run)])
    assert r.exit_code == 1
    assert "manifest_rules" in r.output and "'cap'" in r.output
