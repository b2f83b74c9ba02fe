"""``mjlog balance``: its JSON shape, the sign logic of the proposal, where it writes.

Small seeded runs of greedy agents (fast); the figures are checked for behaviour
(signs, intervals, the confirmation moving toward 0), never against fixed numbers.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main

SMALL = ["--agents", "greedy", "--hands", "96", "--hands-per-match", "4", "--seed", "3",
         "--workers", "1", "--quiet"]
# where only the shape or the files are checked: 4 matches (the last --hands counts)
TINY = ("--hands", "16")


def balance(*args: str) -> dict:
    r = CliRunner().invoke(main, ["balance", "yuxi", *SMALL, "--format", "json", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def plain() -> dict:
    return balance()


def _interval(e):
    assert set(e) == {"value", "lo", "hi"}
    assert e["lo"] <= e["value"] <= e["hi"]


def test_json_shape(plain):
    for key in ("dealer_advantage", "confirmed", "compensation_exact"):
        _interval(plain[key])
    assert isinstance(plain["compensation"], int)
    assert isinstance(plain["covers_zero"], bool)
    assert plain["covers_zero"] == (plain["confirmed"]["lo"] <= 0 <= plain["confirmed"]["hi"])
    assert plain["unit"].startswith("points per hand") and plain["level"] == 0.95
    assert plain["hands"] >= 96 and plain["matches"] * plain["hands_per_match"] == plain["hands"]
    assert [p["position"] for p in plain["positions"]] == [0, 1, 2, 3]
    assert plain["positions"][0]["value"] == plain["dealer_advantage"]["value"]
    for p in plain["positions"] + plain["confirmed_positions"]:
        _interval({k: p[k] for k in ("value", "lo", "hi")})
        assert p["matches"] == plain["matches"]
    assert plain["runs"] is None  # nothing kept unless --out
    # the proposal is the exact compensation rounded to whole units
    assert abs(plain["compensation"] - plain["compensation_exact"]["value"]) <= 0.5
    a, n, b = plain["dealer_advantage"]["value"], plain["players"], plain["base"]
    assert plain["compensation_exact"]["value"] == pytest.approx(a / (n * b))
    assert plain["resolution"] == n * b


@pytest.mark.parametrize("given", [6, -6])
def test_a_large_compensation_flips_the_advantage_and_the_proposal_undoes_it(given, plain):
    r = balance("--set", f"dealer_compensation={given}")
    assert r["measured_compensation"] == given
    adv = r["dealer_advantage"]
    if given > 0:  # the dealer now pays far too much: it is behind, with confidence
        assert adv["hi"] < 0 < plain["dealer_advantage"]["hi"]
        assert r["compensation"] < given
    else:
        assert adv["lo"] > 0 > plain["dealer_advantage"]["lo"]
        assert r["compensation"] > given
    # the confirmation (same walls, the proposed key) is closer to 0 than the measure
    assert abs(r["confirmed"]["value"]) < abs(adv["value"])
    # the same seeds: the proposal from the flipped rules is the plain study's
    assert r["compensation"] == plain["compensation"]


def test_same_seed_same_figures(plain):
    assert balance() == plain


def test_out_keeps_both_runs_and_they_validate(tmp_path):
    out = tmp_path / "study"
    r = balance(*TINY, "--set", "dealer_compensation=3", "--out", str(out))
    assert r["runs"] == {"measure": str(out / "measure"), "confirm": str(out / "confirm")}
    for name in ("measure", "confirm"):
        assert (out / name / "manifest.json").exists()
        v = CliRunner().invoke(main, ["validate", str(out / name), "--workers", "1"])
        assert v.exit_code == 0, v.output
    rules = json.loads((out / "confirm" / "manifest.json").read_text())["rules"]
    assert rules.get("dealer_compensation", 0) == r["compensation"]  # 0: left out
    again = balance(*TINY, "--set", "dealer_compensation=3", "--out", str(out))  # resumes
    assert again == r


def test_nothing_written_without_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert balance(*TINY)["hands"] == 16
    assert [p.name for p in tmp_path.iterdir()] == ["tmp"]
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_mixed_line_up_plays_duplicate():
    r = CliRunner().invoke(main, ["balance", "yuxi", "--agents", "greedy,random,greedy,random",
                                  "--hands", "32", "--hands-per-match", "2", "--workers", "1",
                                  "--quiet", "--format", "json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["duplicate"] is True
    assert d["hands"] == d["matches"] * 4 * d["hands_per_match"]


def test_text_gives_every_figure_with_its_interval_and_unit():
    r = CliRunner().invoke(main, ["balance", "yuxi", *SMALL, *TINY, "--set",
                                  "dealer_compensation=4"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert any(line.startswith("dealer advantage: ") and "points/hand [" in line
               for line in lines)
    assert any(line.startswith("compensation that cancels it: ") and "units of base [" in line
               for line in lines)
    assert any(line.startswith("confirmed with dealer_compensation=") and "points/hand ["
               in line for line in lines)
