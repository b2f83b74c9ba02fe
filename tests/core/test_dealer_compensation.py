"""The rule key ``dealer_compensation`` in every variant, both ways: the same hand with
and without it differs exactly by the compensation; the auditor accepts both logs
and names a tampered compensation transfer; runs written before the key existed read
it as 0 (tests/logs/test_old_runs.py)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.engine import play_hand
from mjlog.events import END, TRANSFER, TransferReason
from mjlog.rules import resolve
from simulate.agents import make_agents
from simulate.runner import RunSpec, simulate

VARIANTS = ["yuxi", "xuezhan", "huangmei"]
COMP = TransferReason.COMPENSATION


def _hand(variant: str, sets: list[str], seed: int = 7, hand: int = 0):
    rules = resolve(variant, sets=sets)
    return play_hand(rules, make_agents(["greedy"] * rules.n), seed, 0, hand, None).state


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("c, base", [(2, 1), (-1, 3)])
def test_compensation_is_the_only_difference(variant, c, base):
    plain = _hand(variant, [f"base={base}"])
    paid = _hand(variant, [f"base={base}", f"dealer_compensation={c}"])
    n, d = plain.n, plain.dealer
    extra = [e for e in paid.events if e.type == TRANSFER and e.kind == COMP]
    # the same play, the compensation last before the end, one transfer per other seat
    assert [e for e in paid.events if e not in extra] == plain.events
    assert paid.events[-1].type == END
    assert paid.events[-1 - len(extra) : -1] == extra
    others = {(d + i) % n for i in range(1, n)}
    if c > 0:
        assert {e.seat for e in extra} == others and {e.from_seat for e in extra} == {d}
    else:
        assert {e.from_seat for e in extra} == others and {e.seat for e in extra} == {d}
    assert {e.amount for e in extra} == {abs(c) * base} and len(extra) == n - 1
    diff = [a - b for a, b in zip(paid.deltas, plain.deltas, strict=True)]
    assert diff == [-(n - 1) * c * base if s == d else c * base for s in range(n)]
    assert sum(paid.deltas) == 0
    assert plain.next_dealer == paid.next_dealer


def test_blood_battle_pays_every_other_seat_winners_included():
    """xuezhan: seats that won and left still receive (each other *player*)."""
    for hand in range(12):
        st = _hand("xuezhan", ["dealer_compensation=1"], seed=3, hand=hand)
        gone = [s for s in st.winners if s != st.dealer]
        if gone:
            paid = {e.seat for e in st.events if e.type == TRANSFER and e.kind == COMP}
            assert set(gone) <= paid and len(paid) == st.n - 1
            return
    pytest.fail("no xuezhan hand in 12 where a non-dealer won: pick another seed")


def test_the_key_is_logged_and_names_the_run():
    for variant in VARIANTS:
        a = RunSpec.build(variant, 1, 2, 2, ["greedy"])
        b = RunSpec.build(variant, 1, 2, 2, ["greedy"], sets=["dealer_compensation=0"])
        c = RunSpec.build(variant, 1, 2, 2, ["greedy"], sets=["dealer_compensation=1"])
        assert a.run_id == b.run_id != c.run_id
        assert a.meta()["rules"]["dealer_compensation"] == 0
        assert c.meta()["rules"]["dealer_compensation"] == 1


def _validate(run) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["validate", str(run), "--workers", "1"])
    return r.exit_code, r.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One small run per variant and compensation value."""
    out = {}
    for variant in VARIANTS:
        for c in (0, 2):
            d = tmp_path_factory.mktemp(f"{variant}-c{c}")
            simulate(
                RunSpec.build(variant, 5, 1, 3, ["greedy"], sets=[f"dealer_compensation={c}"]),
                d,
                workers=1,
                progress=False,
            )
            out[variant, c] = d
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_validate_accepts_both_ways(variant, runs):
    for c in (0, 2):
        code, text = _validate(runs[variant, c])
        assert code == 0, text
        assert "problems 0" in text


def _rewrite(path, fn):
    tab = pq.read_table(path)
    pq.write_table(pa.Table.from_pylist(fn(tab.to_pylist()), schema=tab.schema), path)


@pytest.mark.parametrize("variant", VARIANTS)
def test_validate_names_a_tampered_compensation_transfer(variant, runs, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(runs[variant, 2], run)
    rows = pq.read_table(run / "transfers" / "part-00000.parquet").to_pylist()
    target = next(r for r in rows if r["reason"] == "compensation")
    key = (target["match"], target["rotation"], target["hand"], target["seq"])

    def bump(rows, amount="amount"):
        return [
            dict(r, **{amount: r[amount] + 1})
            if (r["match"], r["rotation"], r["hand"], r["seq"]) == key
            else r
            for r in rows
        ]

    # the event and the transfers row say the same thing: only the rules disagree
    _rewrite(run / "events" / "part-00000.parquet", bump)
    _rewrite(run / "transfers" / "part-00000.parquet", bump)
    code, text = _validate(run)
    assert code == 1, text
    at = f"match {key[0]}, rotation {key[1]}, hand {key[2]}, seq {key[3]}"
    named = [line for line in text.splitlines() if at in line]
    assert named and any("compensation" in line for line in named), text
    assert "Traceback" not in text


@pytest.mark.parametrize("variant", VARIANTS)
def test_in_money_the_compensation_is_not_scaled_by_base(variant, tmp_path):
    """``dealer_compensation_unit = money``: ``c`` of money, whatever the base, so a
    larger base pays a fraction of a point (the lever of ``mjlog balance``)."""
    sets = ["base=100", "dealer_compensation=3", "dealer_compensation_unit=money"]
    plain = _hand(variant, ["base=100"])
    paid = _hand(variant, sets)
    extra = [e for e in paid.events if e.type == TRANSFER and e.kind == COMP]
    assert {e.amount for e in extra} == {3} and len(extra) == paid.n - 1
    diff = [a - b for a, b in zip(paid.deltas, plain.deltas, strict=True)]
    assert diff == [-(paid.n - 1) * 3 if s == paid.dealer else 3 for s in range(paid.n)]
    run = tmp_path / "run"
    simulate(RunSpec.build(variant, 5, 1, 2, ["greedy"], sets=sets), run, workers=1, progress=False)
    code, text = _validate(run)
    assert code == 0 and "problems 0" in text, text


def test_the_unit_of_an_old_run_is_base():
    from mjlog.rules import Rules

    old = Rules("yuxi", {"dealer_compensation": 2}).to_json()
    del old["dealer_compensation_unit"]
    assert Rules.recorded("yuxi", old)["dealer_compensation_unit"] == "base"
