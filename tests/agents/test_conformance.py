"""The conformance test every variant passes (STYLE.md, Tests).

Seeded random, greedy and mixed tables for every variant and player count, some
with rule keys switched, played through :func:`tests.conformance.play_checked`:
after every event tiles are conserved, hand sizes are right, a seat asked to act
has a legal action, transfers sum to zero; at the end the transfers sum to the
deltas. The checker's loop must give exactly the engine's hand. Then a run
written by ``mjlog simulate``'s runner reads back through Parquet equal to the
hands played in memory, and the same arguments give byte-identical files.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import pytest

from mjlog.engine import play_hand, play_match
from mjlog.logio import iter_hands, read_table
from mjlog.rules import resolve
from simulate import runner
from simulate.agents import make_agents
from simulate.runner import RunSpec, hand_records, simulate
from tests.conformance import play_checked

TABLES = [
    # (variant, players, --set)
    *[(v, n, ()) for v in ("yuxi", "xuezhan", "huangmei") for n in (2, 3, 4)],
    (
        "yuxi",
        4,
        (
            "horses=4",
            "rob_exposed_kong=false",
            "pass_hu_lock=none",
            "late_added_kong=forbidden",
            "bugang_payer=each_other",
            "cap=4",
        ),
    ),
    (
        "yuxi",
        3,
        (
            "honors=false",
            "last4_plain_on_discard=true",
            "dian_gang_hua=self_draw",
            "dealer_on_draw=next",
            "late_added_kong=no_pay",
            "base=2",
        ),
    ),
    (
        "xuezhan",
        4,
        (
            "extras=menqing,duanyaojiu,daiyaojiu,tianhu,dihu,haidilaoyue",
            "extras_stack=multiply",
            "call_transfer=true",
            "zimo_bonus=double",
            "rob_exposed_kong=true",
            "dian_gang_hua=self_draw",
        ),
    ),
    (
        "xuezhan",
        3,
        (
            "zimo_bonus=add_base",
            "first_dealer=random",
            "late_added_kong=no_pay",
            "extras=jiangdui,qingyaojiu,jiangjingougou",
        ),
    ),
    ("huangmei", 4, ("winds=false", "payment=doubling", "min_fan=0", "late_added_kong=forbidden")),
    ("huangmei", 3, ("rob_exposed_kong=false", "min_fan=3", "base=2")),
]
LINEUPS = ["random", "greedy", "mixed"]
SEEDS = 8  # per line-up


def lineup(kind: str, n: int) -> list[str]:
    if kind == "mixed":
        return [("greedy", "random")[s % 2] for s in range(n)]
    return [kind] * n


def table_id(t) -> str:
    v, n, sets = t
    return f"{v}-{n}" + ("-" + "+".join(s.split("=")[0] for s in sets) if sets else "")


@pytest.mark.parametrize("table", TABLES, ids=[table_id(t) for t in TABLES])
def test_invariants_after_every_event(table):
    variant, n, sets = table
    rules = resolve(variant, sets=[*sets, f"players={n}"])
    outcomes = set()
    for kind in LINEUPS:
        specs = lineup(kind, n)
        for seed in range(SEEDS):
            st = play_checked(rules, make_agents(specs), seed, match=seed % 3, hand=seed % 5)
            outcomes.add("win" if st.winners else "draw")
            # the checker's loop plays exactly the engine's hand
            p = play_hand(rules, make_agents(specs), seed, seed % 3, seed % 5, None)
            assert p.state.events == st.events
            assert p.state.deltas == st.deltas and sum(st.deltas) == 0
            assert st.next_dealer is not None and 0 <= st.next_dealer < n
    assert "win" in outcomes


# ---------------------------------------------------------------- Parquet and bytes


def _plain(x):
    """Tuples (and Event tuples) as lists, recursively, for comparing with Arrow rows."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _in_memory(spec: RunSpec):
    """The run's hands, played in memory the way the runner plays them."""
    for m in range(spec.matches):
        for p in play_match(
            spec.rules, make_agents(spec.agents), spec.seed, m, spec.hands_per_match
        ):
            yield m, p


def _files(run: Path) -> dict[str, str]:
    return {
        str(f.relative_to(run)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(run.rglob("*.parquet"))
    }


RUNS = [("yuxi", 4, ("horses=2",)), ("xuezhan", 3, ()), ("huangmei", 2, ())]


@pytest.mark.parametrize("variant,n,sets", RUNS, ids=[r[0] for r in RUNS])
def test_parquet_round_trip(tmp_path, variant, n, sets):
    spec = RunSpec.build(
        variant,
        seed=7,
        matches=2,
        hands_per_match=3,
        agents=lineup("mixed", n),
        players=n,
        sets=sets,
    )
    simulate(spec, tmp_path, workers=1, progress=False)
    back = list(iter_hands(tmp_path))
    mem = list(_in_memory(spec))
    assert len(back) == len(mem) == 6
    for b, (m, p) in zip(back, mem, strict=True):
        row, events, wins, transfers = hand_records(p)
        ids = {"run_id": spec.run_id, "variant": variant, "match": m, "rotation": 0, "hand": p.hand}
        assert b.hand == _plain({**ids, **row})
        assert b.events == [tuple(_plain([i, *e])) for i, e in enumerate(events)]
        assert b.wins == _plain(wins) and b.transfers == _plain(transfers)
        assert sum(t["amount"] for t in b.transfers) > 0 or b.hand["deltas"] == [0] * n
    for table, rows in (
        ("hands", 6),
        ("events", sum(len(b.events) for b in back)),
        ("wins", sum(len(b.wins) for b in back)),
        ("transfers", sum(len(b.transfers) for b in back)),
    ):
        assert read_table(tmp_path, table).num_rows == rows


def test_same_arguments_same_bytes_and_another_seed_differs(tmp_path, monkeypatch):
    # two shards of two matches (the shard size is a RunSpec field or, in older
    # runners, the module constant)
    monkeypatch.setattr(runner, "HANDS_PER_SHARD", 4)
    small = (
        {"hands_per_shard": 4}
        if "hands_per_shard" in inspect.signature(RunSpec.build).parameters
        else {}
    )

    def run(out, seed, workers=1):
        spec = RunSpec.build(
            "yuxi",
            seed=seed,
            matches=4,
            hands_per_match=2,
            agents=["greedy", "random", "greedy", "random"],
            **small,
        )
        simulate(spec, tmp_path / out, workers=workers, progress=False)
        return _files(tmp_path / out)

    a = run("a", 11)
    assert len(a) == 8  # 2 shards × 4 tables
    assert run("b", 11) == a
    assert run("c", 11, workers=2) == a  # whatever the number of workers
    c = run("d", 12)
    assert c.keys() == a.keys()
    assert all(c[k] != a[k] for k in a if k.startswith("hands/"))
