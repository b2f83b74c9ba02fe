"""The hand's parts, one way (issue 39): a position below claims, choices, calls
and wins, which hold it directly; :class:`~mjlog.state.HandState` composes them.

No part reaches the state (no back reference), so a hand is
freed by reference counting and a deep copy's parts read the copy's own
position; the modules import one another downward only, even counting the
imports a type checker alone reads; no class is over 400 lines; and the type
checker is satisfied (``mypy --strict``).
"""

from __future__ import annotations

import ast
import copy
import gc
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from mjlog.agent import GreedyAgent, RandomAgent
from mjlog.engine import play, play_hand
from mjlog.hand import suit_keys, suit_misses
from mjlog.phase import Phase
from mjlog.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
#: the hand-state modules, the position first; the parts above it; the state last
HAND = ("position", "seats", "ledger", "claims", "choices", "calls", "wins", "state")
PARTS = ("claims", "choices", "calls", "flow")


def played(variant: str, seed: int = 7):
    rules = Rules(variant)
    return play_hand(rules, [GreedyAgent() for _ in range(rules.n)], seed, 0, 0, 0).state


def reachable(root: object, stop: tuple[type, ...]) -> list[object]:
    """Every object reachable from ``root`` through references the collector sees,
    not entering classes, modules or a module's namespace (a function's globals: a
    hand is never a module global), nor ``stop`` objects."""
    namespaces = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
    seen, todo, out = {id(root)}, [root], []
    while todo:
        for r in gc.get_referents(todo.pop()):
            if (
                id(r) in seen
                or isinstance(r, type)
                or type(r).__name__ == "module"
                or id(r) in namespaces
            ):
                continue
            seen.add(id(r))
            out.append(r)
            if not isinstance(r, stop):
                todo.append(r)
    return out


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_no_part_reaches_the_state(variant):
    st = played(variant)
    assert sys.getrefcount(st) == 2  # its name's reference alone: no part holds it
    for name in PARTS:
        part = getattr(st, name)
        assert part is not st, name
        assert not any(o is st for o in reachable(part, ())), name
        assert part.pos is st.pos, name  # each holds the position itself


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_a_hand_dies_with_its_last_reference(variant):
    # the auditor pauses the cycle collector: a hand must go without it
    gc.collect()
    gc.disable()
    try:
        st = played(variant, seed=3)
        twin = copy.deepcopy(st)
        # held by its name alone (getrefcount counts its own argument too), so ``del``
        # frees it; not through a weak reference, which a compiled class does not take
        assert sys.getrefcount(st) == 2 and sys.getrefcount(twin) == 2
        del st, twin
        assert gc.collect() == 0  # nothing it held was left in a cycle
    finally:
        gc.enable()


def test_a_deep_copy_has_its_own_position_and_shares_what_never_changes():
    st = played("xuezhan", seed=11)
    twin = copy.deepcopy(st)
    assert twin.pos is not st.pos and twin.hands == st.hands and twin.deltas == st.deltas
    for name in PARTS:
        assert getattr(twin, name).pos is twin.pos, name
    assert twin.choices.claims is twin.claims and twin.flow.claims is twin.claims
    assert twin.hands is twin.pos.hands and twin.hands is twin.seats.hands
    assert twin.hu_lock is twin.claims.hu_lock and twin.events is twin.pos.events
    assert twin.rules is st.rules and twin.spec is st.spec and twin.wall is st.wall
    assert all(a is b for a, b in zip(twin.events, st.events, strict=True))
    assert twin.events is not st.events and twin.hands is not st.hands


def _imports(path: Path) -> set[str]:
    """The ``mjlog`` modules ``path`` imports, those under TYPE_CHECKING included."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m.removeprefix("mjlog.") for m in out if m.startswith("mjlog.")}


def test_the_hand_modules_import_one_way_even_for_the_type_checker():
    graph = {m: _imports(ROOT / "mjlog" / f"{m}.py") & set(HAND) for m in HAND}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        raise AssertionError(f"import cycle: {' -> '.join(e.args[1])}") from None
    assert order.index("position") < min(order.index(p) for p in ("claims", "choices", "wins"))
    assert not graph["position"] & {"claims", "choices", "calls", "wins", "state"}
    assert not any("state" in deps for deps in graph.values())  # nothing imports the state


# The size of every class and the strict types of these modules are held for all of
# mjlog by tests/house/test_class_size.py and tests/house/test_types.py.


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_a_deep_copy_plays_on_as_the_original(variant):
    # hands copied (with their agents, whose seeded streams have moved on) on acting
    # turns and each played to the end end as the original did: the copy holds the
    # whole state, in both builds (compiled, it is filled in by __setstate__ and the
    # frozen parts' __reduce__)
    rules = Rules(variant)
    agents = [GreedyAgent() for _ in range(rules.n)]
    copies = []

    def watch(s):
        if s.phase is Phase.ACT and len(s.events) % 5 == 0:
            copies.append(copy.deepcopy((s, agents)))

    st = play_hand(rules, agents, 5, 0, 0, 0, observe=watch).state
    assert len(copies) > 3 and st.over
    for twin, their_agents in copies:
        assert twin.events != st.events and not twin.over
        play(twin, their_agents)
        assert twin.events == st.events and twin.hand_row() == st.hand_row()
        assert twin.melds == st.melds and twin.wins == st.wins and twin.ledger is not st.ledger


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_the_seats_keys_and_fours_follow_every_change_of_a_hand(variant):
    # kept tile by tile (draws, discards, pons, kongs, a robbed kong's undoing, a
    # laid out 发): after every event they equal what the hand's counts give
    rules = Rules(variant)
    kongs = 0

    def check(st):
        seats = st.seats
        for s in range(st.n):
            h = seats.hands[s]
            assert seats.keys[s] == suit_keys(h) and seats.fours[s] == h.count(4), (s, h)
            assert seats.misses[s] in (None, suit_misses(h))

    for seed in range(40):
        agents = [RandomAgent() for _ in range(rules.n)]
        st = play_hand(rules, agents, seed, 0, 0, 0, observe=check).state
        kongs += sum(ev.type == "kong" for ev in st.events)
    assert kongs >= 10
