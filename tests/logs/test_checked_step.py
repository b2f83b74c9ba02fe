"""The one checked step against its plain reference, on thousands of mutated events.

:func:`mjlog.replay.apply_checked` accepts an event only through
:meth:`HandState.try_apply` (the fast lane, which is the one path) and explains
a refusal with :func:`mjlog.replay.check_step` (the reference: the event due,
:meth:`HandState.auto`, or a seat's :meth:`HandState.options`). Here both judge
the same events at the same points: every logged event, events with one field
changed, and claims (win, pon, exposed kong) by other seats on discards. They
must agree on acceptance, leave the same state when they accept, and give the
same discrepancy when they refuse.
"""

from __future__ import annotations

import copy
import gc
import random
import sys

import pytest

from mjlog.events import DISCARD, KONG, PON, WIN, Event
from mjlog.replay import Replay, apply_checked, check_step
from tests import auditruns as ar

FIELDS = ("type", "seat", "tile", "from_seat", "kind", "tiles", "amount")
TYPES = (
    "deal",
    "void",
    "draw",
    "bonus",
    "discard",
    "pon",
    "kong",
    "win",
    "horse",
    "transfer",
    "end",
)
KINDS = (
    "live",
    "tail",
    "exposed",
    "concealed",
    "added",
    "self_draw",
    "discard",
    "robbed_kong",
    "shilaotou",
    "win",
    "kong_exposed",
    "m",
    "p",
    "s",
    None,
)


def mutated(rng: random.Random, ev: Event, n: int) -> Event:
    """``ev`` with one field changed."""
    f = rng.choice(FIELDS)
    old = getattr(ev, f)
    if f == "type":
        new = rng.choice([t for t in TYPES if t != old])
    elif f in ("seat", "from_seat"):
        new = rng.choice([s for s in [*range(n), None] if s != old])
    elif f == "tile":
        new = rng.choice([t for t in [*range(34), None] if t != old])
    elif f == "kind":
        new = rng.choice([k for k in KINDS if k != old])
    elif f == "tiles":
        new = (rng.randrange(34),) if not old else tuple(sorted(old[1:]))
    else:
        new = rng.choice([1, 2, 4, 99, None]) if old != 1 else 3
    return ev._replace(**{f: new})


def claims_on(st, ev: Event) -> list[Event]:
    """Every claim another seat could log on the discard ``ev``."""
    out = []
    for s in range(st.n):
        if s == ev.seat:
            continue
        hand = tuple(sorted(t for t in range(34) for _ in range(st.hands[s][t])) + [ev.tile])
        out += [
            Event(WIN, s, ev.tile, ev.seat, "discard", tuple(sorted(hand))),
            Event(PON, s, ev.tile, ev.seat),
            Event(KONG, s, ev.tile, ev.seat, "exposed"),
        ]
    return out


def judge_both(st, ev: Event) -> tuple:
    """(fast discrepancy, reference discrepancy, fast state, reference state).

    Each path judges its own deep copy, except where no claim window is open and
    the reference refuses: then neither path may change the state (nothing to
    close), so the fast path judges ``st`` itself and is held to leaving it as it
    was (the copies, the test's main cost, are made only when needed)."""
    if st.window is None:
        d_ref = check_step(st, ev)  # no window to close: it only reads
        if d_ref is not None:
            before = position(st)
            d_fast = apply_checked(st, ev)
            if d_fast is not None:
                assert position(st) == before, ev
            return d_fast, d_ref, st, st
    fast, ref = copy.deepcopy(st), copy.deepcopy(st)
    d_fast = apply_checked(fast, ev)
    d_ref = check_step(ref, ev)
    if d_ref is None:
        ref.apply(ev)
    return d_fast, d_ref, fast, ref


def same_position(a, b) -> bool:
    return (
        a.events == b.events
        and a.phase == b.phase
        and a.turn == b.turn
        and a.hands == b.hands
        and a.deltas == b.deltas
        and a.pending == b.pending
        and (a.window is None) == (b.window is None)
    )


def position(st) -> tuple:
    """What an event could change, as a value."""
    return (
        len(st.events),
        st.phase,
        st.turn,
        st.front,
        st.back,
        tuple(st.pending),
        tuple(map(tuple, st.hands)),
        tuple(map(tuple, st.melds)),
        tuple(st.deltas),
        st.window is None,
        tuple(st.hu_lock),
        tuple(map(frozenset, st.pon_lock)),
    )


@pytest.mark.parametrize("name", ar.VARIANT_RUNS)
def test_checked_step_agrees_with_its_reference(name):
    rng = random.Random(f"checked-step-{name}")
    rules = ar.rules_of(name)
    judged = refused = 0
    for b in ar.bundles(name):
        rp = Replay.from_parts(rules, b[0], b[1])
        st = rp.new_state()
        for i, ev in enumerate(rp.events):
            candidates = [mutated(rng, ev, st.n) for _ in range(2)] if rng.random() < 0.12 else []
            prev = rp.events[i - 1] if i else None
            if prev is not None and prev.type == DISCARD and rng.random() < 0.3:
                # three of the claims, on more discards: every refused claim is explained
                # by replaying the hand to its discard, the costly part of this test
                candidates += rng.sample(claims_on(st, prev), 3)
            for cand in candidates:
                d_fast, d_ref, fast, ref = judge_both(st, cand)
                assert (d_fast is None) == (d_ref is None), (name, i, cand, d_fast, d_ref)
                if d_fast is None:
                    assert same_position(fast, ref), (name, i, cand)
                else:
                    refused += 1
                    assert d_fast == d_ref, (name, i, cand)
                judged += 1
            assert apply_checked(st, ev) is None, (name, i, ev)
            judged += 1
    assert judged > 1000 and refused > 300, (judged, refused)


@pytest.mark.parametrize("name", ["yuxi", "xuezhan"])
def test_a_replayed_hand_is_freed_without_the_cycle_collector(name):
    # the parts of a state (claims, choices, calls, wins) hold its position, never
    # the state: no reference cycle, so a hand dies with its last reference even
    # while the auditor has the cyclic collector paused; a deep copy's parts read
    # the copy's position
    b = ar.bundles(name)[0]
    gc.collect()
    gc.disable()
    try:
        rp = Replay.from_parts(ar.rules_of(name), b[0], b[1])
        st = rp.new_state()
        for ev in rp.events:
            assert apply_checked(st, ev) is None
        twin = copy.deepcopy(st)
        assert twin.claims.pos is twin.pos and twin.choices.pos is twin.pos
        assert twin.flow.pos is twin.pos and twin.hands == st.hands and st.over
        # held by its name alone (getrefcount counts its argument): ``del`` frees it,
        # and nothing it held is left in a cycle (a compiled class takes no weak reference)
        assert sys.getrefcount(st) == 2 and sys.getrefcount(twin) == 2
        del st, twin
        assert gc.collect() == 0
    finally:
        gc.enable()
