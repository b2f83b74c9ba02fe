"""The rule key ``dealer_rotation``: ``fixed`` passes the deal to the next seat every
hand, whatever happened, so two settings of a rule keep the same dealers and walls
hand by hand (the study design for sweeps, docs/cli.md); the engine and the auditor
agree on it, and the manifest records it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from analysis.compare import same_walls
from analysis.queries import Runs
from mjlog.cli import main
from mjlog.logio import read_table
from mjlog.rules import Rules
from simulate.runner import RunSpec, simulate

VARIANTS = ["yuxi", "xuezhan", "huangmei"]


def _run(tmp_path, name, variant, sets, agents=("greedy",), seed=11, matches=2, hands=8):
    out = tmp_path / name
    simulate(
        RunSpec.build(variant, seed, matches, hands, list(agents), sets=sets),
        out,
        workers=1,
        progress=False,
    )
    return out


def _deals(run) -> dict:
    rows = read_table(
        run, "hands", columns=["match", "hand", "dealer", "next_dealer", "wall"]
    ).to_pylist()
    return {(r["match"], r["hand"]): (r["dealer"], r["wall"]) for r in rows}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_has_the_key_and_its_default_follows_the_rules(variant):
    assert Rules(variant)["dealer_rotation"] == "rules"
    fixed = Rules(variant, {"dealer_rotation": "fixed"})
    # a single winner deals next under the rules; under fixed the next seat does
    assert fixed.spec.next_dealer(fixed, 2, [0], [0], 1) == 3 % fixed.n
    assert Rules(variant).spec.next_dealer(Rules(variant), 2, [0], [0], 1) == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_fixed_rotation_passes_the_deal_each_hand_and_validates(variant, tmp_path):
    run = _run(tmp_path, variant, variant, ["dealer_rotation=fixed"], matches=1)
    rows = read_table(run, "hands", columns=["hand", "dealer", "next_dealer"]).to_pylist()
    n = Rules(variant).n
    first = rows[0]["dealer"]
    assert [r["dealer"] for r in rows] == [(first + r["hand"]) % n for r in rows]
    assert all(r["next_dealer"] == (r["dealer"] + 1) % n for r in rows)
    r = CliRunner().invoke(main, ["validate", str(run), "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "problems 0" in r.output


def test_the_manifest_records_it_and_it_names_the_run():
    a = RunSpec.build("huangmei", 1, 1, 2, ["greedy"])
    b = RunSpec.build("huangmei", 1, 1, 2, ["greedy"], sets=["dealer_rotation=fixed"])
    assert a.meta()["rules"]["dealer_rotation"] == "rules"
    assert b.meta()["rules"]["dealer_rotation"] == "fixed"
    assert a.run_id != b.run_id


def test_two_settings_share_dealers_and_walls_hand_by_hand_only_when_fixed(tmp_path):
    """huangmei min_fan 2 against 4: the rule changes who wins, so under the rules'
    rotation (the winner deals) the later deals of a match part; fixed keeps them."""
    deals = {}
    for rotation in ("rules", "fixed"):
        for fan in (2, 4):
            run = _run(
                tmp_path,
                f"{rotation}-{fan}",
                "huangmei",
                [f"min_fan={fan}", f"dealer_rotation={rotation}"],
            )
            deals[rotation, fan] = run
    a, b = (_deals(deals["rules", f]) for f in (2, 4))
    assert a.keys() == b.keys() and a != b, "the rule should move a dealer on this seed"
    a, b = (_deals(deals["fixed", f]) for f in (2, 4))
    assert a.keys() == b.keys() and a == b  # every hand: the same dealer and wall
    assert same_walls(Runs([deals["fixed", 2]]), Runs([deals["fixed", 4]]))


def test_duplicate_play_logs_the_keys_next_dealer_but_follows_its_schedule(tmp_path):
    """Rulebook §1: in duplicate play the dealers are the schedule's ((first dealer +
    h) mod n); the logged ``next_dealer`` is still the one ``dealer_rotation`` gives
    (yuxi, ``rules``: the single winner; the dealer again after a draw)."""
    out = tmp_path / "dup"
    simulate(
        RunSpec.build("yuxi", 4, 1, 6, ["greedy", "random"] * 2, duplicate=True),
        out,
        workers=1,
        progress=False,
    )
    cols = ["rotation", "hand", "dealer", "next_dealer", "winners"]
    rows = read_table(out, "hands", columns=cols).to_pylist()
    n = Rules("yuxi").n
    first = {r["rotation"]: r["dealer"] for r in rows if r["hand"] == 0}
    assert all(r["dealer"] == (first[r["rotation"]] + r["hand"]) % n for r in rows)
    for r in rows:
        want = r["winners"][0] if len(r["winners"]) == 1 else r["dealer"]
        if len(r["winners"]) <= 1:
            assert r["next_dealer"] == want, r
    by = {(r["rotation"], r["hand"]): r for r in rows}
    unfollowed = [
        k
        for k, r in by.items()
        if (k[0], k[1] + 1) in by and by[k[0], k[1] + 1]["dealer"] != r["next_dealer"]
    ]
    assert unfollowed, "this seed should give a hand whose key's next dealer is not the schedule's"
    r = CliRunner().invoke(main, ["validate", str(out), "--workers", "1"])
    assert r.exit_code == 0 and "problems 0" in r.output, r.output
