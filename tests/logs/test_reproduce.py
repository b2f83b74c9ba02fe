"""``mjlog validate --reproduce``: a run's hands played again with its recorded agents
from its seed; the first event where the log differs is reported, a changed but
legal decision included (the rules audit passes it); a run whose agents cannot be
played again, or whose files cannot be read, says so in one line (issue 47)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.replay import Replay, load_hand, run_checked
from mjlog.tiles import fmt_tile
from simulate.runner import RunSpec, simulate

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = Path(__file__).parents[1] / "plugin_pkg"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("repro") / "run"
    spec = RunSpec.build("yuxi", 3, 1, 3, ["greedy", "random"] * 2)
    simulate(spec, out, workers=1, progress=False)
    return out


def _validate(*args) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["validate", *map(str, args), "--workers", "1"])
    assert "Traceback" not in r.output
    return r.exit_code, r.output


def _export(run: Path, tmp_path: Path) -> list[dict]:
    f = tmp_path / "h.jsonl"
    r = CliRunner().invoke(main, ["export", str(run), "--hand", "0:1", "--out", str(f)])
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]


def _import(lines: list[dict], tmp_path: Path, name: str) -> Path:
    f = tmp_path / f"{name}.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    r = CliRunner().invoke(main, ["import", str(f), "--out", str(tmp_path / name)])
    assert r.exit_code == 0, r.output
    return tmp_path / name


def test_a_simulated_run_reproduces(run):
    code, out = _validate(run, "--reproduce", "--format", "json")
    assert code == 0, out
    res = json.loads(out)
    assert res["reproduced"] == {"hands": 3, "differ": 0}
    assert res["problems"] == []


def test_an_exported_hand_imported_unchanged_reproduces(run, tmp_path):
    imp = _import(_export(run, tmp_path), tmp_path, "same")
    code, out = _validate(imp, "--reproduce")
    assert code == 0, out
    assert "1 hands with the recorded agents: 0 differ" in out
    assert "an imported run" in out  # played by the names its hands row gives


def _legal_edit(run: Path) -> tuple[int, int]:
    """(seq, tile): a discard of hand 0:1 changed to another tile its player holds
    there, the hand staying legal to its end (the latest such discard)."""
    rp = load_hand(run, 0, 1)
    for seq in reversed(range(len(rp.events))):
        ev = rp.events[seq]
        if ev.type != "discard":
            continue
        held = rp.state_at(seq - 1).hands[ev.seat] if seq else []
        for t in (t for t, c in enumerate(held) if c and t != ev.tile):
            evs = list(rp.events)
            evs[seq] = ev._replace(tile=t)
            st = Replay(rp.rules, rp.hand, evs).new_state()
            done, stop = run_checked(st, evs)
            if stop is None and st.over:
                return seq, t
    raise AssertionError("no legal edit of a discard in hand 0:1")


def test_an_edited_legal_discard_passes_the_audit_but_not_reproduce(run, tmp_path):
    """The issue's case: one discard changed to another tile the player holds."""
    lines = _export(run, tmp_path)
    head, edited = lines[0], lines[1:]
    i, t = _legal_edit(run)
    orig = edited[i]["tile"]
    edited[i]["tile"] = fmt_tile(t)
    imp = _import([head, *edited], tmp_path, "edited")
    code, out = _validate(imp)
    assert code == 0 and "problems 0" in out, out  # legal: the rules audit passes it
    code, out = _validate(imp, "--reproduce", "--format", "json")
    assert code == 1, out
    res = json.loads(out)
    (p,) = res["problems"]
    assert (p["check"], p["seq"], p["hand"]) == ("reproduce", edited[i]["seq"], 1)
    assert p["log"].endswith(f"discard {fmt_tile(t)}") and p["rules"].endswith(f"discard {orig}")
    assert res["reproduced"] == {"hands": 1, "differ": 1}


def test_a_hand_cut_short_is_where_the_log_ends(run, tmp_path):
    lines = _export(run, tmp_path)
    imp = _import(lines[:-5], tmp_path, "short")  # import warns; validate reports
    code, out = _validate(imp, "--reproduce", "--format", "json")
    assert code == 1
    p = next(p for p in json.loads(out)["problems"] if p["check"] == "reproduce")
    assert p["seq"] == len(lines) - 6 and "the log ends here" in p["log"]


def _mjlog(*args, plugin: bool) -> subprocess.CompletedProcess:
    """``python -m mjlog`` in a fresh process, with the test plugin importable or not."""
    paths = [str(ROOT)] + ([str(PLUGIN)] if plugin else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    return subprocess.run(
        [sys.executable, "-m", "mjlog", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_a_plugin_run_reproduces_where_the_plugin_is_and_says_so_where_not(tmp_path):
    """A run played by a plugin agent: played again where the plugin is importable;
    where it is not, one line says the run cannot be replayed and why (exit 1)."""
    out = tmp_path / "plug"
    agents = "greedy,mjlog_test_plugin.agents:FirstAgent,greedy,random"
    sim = ["simulate", "--variant", "yuxi", "--matches", "1", "--hands-per-match", "2"]
    r = _mjlog(*sim, "--agents", agents, "--workers", "1", "--out", out, plugin=True)
    assert r.returncode == 0, r.stderr
    r = _mjlog("validate", out, "--reproduce", "--workers", "1", plugin=True)
    assert r.returncode == 0 and "2 hands with the recorded agents: 0 differ" in r.stdout, r
    r = _mjlog("validate", out, "--reproduce", "--workers", "1", plugin=False)
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    line = next(x for x in r.stdout.splitlines() if "not_reproducible" in x)
    assert "not replayed" in line and "mjlog_test_plugin" in line
    assert "problems 1 " in r.stdout and "reproduced 0 hands" in r.stdout


def test_a_truncated_run_says_it_cannot_be_replayed(run, tmp_path):
    import shutil

    bad = tmp_path / "cut"
    shutil.copytree(run, bad)
    f = bad / "events" / "part-00000.parquet"
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    code, out = _validate(bad, "--reproduce")
    assert code == 1
    line = next(x for x in out.splitlines() if "not_reproducible" in x)
    assert "the run cannot be read" in line and "part-00000.parquet" in line


def test_a_run_without_events_is_compared_on_its_hands_rows(tmp_path):
    out = tmp_path / "quiet"
    spec = RunSpec.build("xuezhan", 4, 1, 2, ["greedy"], events=False)
    simulate(spec, out, workers=1, progress=False)
    code, text = _validate(out, "--reproduce")
    assert code == 0 and "2 hands with the recorded agents: 0 differ" in text, text
