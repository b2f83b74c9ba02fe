"""``research/expert_study.py``'s own inputs: ``--budget-spec`` is checked before any
part runs, and names its own fragment so it never overwrites the default's."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from tests import bounded

SCRIPT = Path(__file__).resolve().parents[2] / "research" / "expert_study.py"


def _bench():
    spec = importlib.util.spec_from_file_location("expert_study", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_budget_spec_gets_its_own_fragment():
    b = _bench()
    assert b.budget_fragment(1000, "expert") == "budget1000"
    assert b.budget_fragment(1000, "expert:shanten=2") == "budget1000_shanten=2"
    # the part name is the stem before the first "-": a spec must not add one
    assert "-" not in b.budget_fragment(0, "expert:policy=strategic;z=-1")


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("greedy", "not an expert agent"),
        ("expert:shantn=2", "unknown expert parameter 'shantn'"),
        ("expert:rollouts=-3", "rollouts"),
    ],
)
def test_a_bad_budget_spec_is_refused_before_any_part_runs(spec, needle, tmp_path):
    r = subprocess.run(
        # CPU bounded, not the wall clock (tests/bounded.py: a loaded machine is slow)
        bounded.python(
            120, "-m", "research.expert_study", "--parts", "budget", "--budget-spec", spec, "yuxi"
        ),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=bounded.WALL,
    )
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


def test_conclusions_at_a_fresh_seed_pair_with_strategic_played_on_the_same_walls(tmp_path):
    """Away from the committed seed the conclusions play strategic's side themselves.
    The twin (``expert:rollouts=0`` plays strategic's choices exactly) then differs
    from it by exactly 0 in every metric and in the skill share, and every run
    lands under ``base`` with the seed in its name (``data/`` is not touched)."""
    b = _bench()
    frags, _ = b.conclusions_part("yuxi", 2, tmp_path, 1, seed=4711, agent="expert:rollouts=0")
    assert sorted(frags) == ["conclusions4711", "skill4711"]
    text, skill = frags["conclusions4711"], frags["skill4711"]
    rows = [r.split(" | ") for r in text.strip().splitlines()]
    assert {r[1] for r in rows} >= {"dealer_advantage", "draw_rate"}
    # exactly 0 apart; a rate on a handful of events keeps an interval (analysis.rates:
    # the same few events on both sides are no certainty about the rates)
    assert all(
        r[3] == r[4]
        and r[5].startswith("+0.0000 [+0.0000" if not r[2].startswith("share of ") else "+0.0000 [")
        for r in rows
    ), rows
    assert all(r[-1] == "2 |" for r in rows)
    cells = skill.split(" | ")  # same walls: the bootstrap pairs the matches, so exactly 0
    assert cells[1] == cells[2] and cells[3] == "+0.000 [+0.000, +0.000]"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "skill4711-yuxi-expert",
        "skill4711-yuxi-strategic",
        "strategic4711-yuxi",
        "yuxi-4711",
    ]
