"""An illegal claim is refused by the rule it breaks (issue 16, defect 3).

Each scenario plays a scripted hand, keeps its events up to a discard or a kong,
then appends a claim the rules refuse there. The checked path must name the
rule (``plain_on_discard``, ``pass_lock``, ...), never the event that was due
instead (``draw_tile``, ``bonus_tile``, ``transfer``).
"""

from __future__ import annotations

import pytest

from mjlog.events import DISCARD, KONG, PON, WIN, Event
from mjlog.replay import Check, run_checked
from mjlog.state import HandState
from mjlog.tiles import parse_tile
from tests.core import test_huangmei_flow as hm
from tests.core import test_xuezhan_flow as xz
from tests.core import test_yuxi_rules as yx

T = parse_tile


def refusal(st, at, claim):
    """Replay ``st``'s events up to event ``at``, then ``claim``: its discrepancy."""
    events = list(st.events[: at + 1]) + [claim]
    fresh = HandState(st.rules, st.wall, st.dealer, st.dice, st.break_pos)
    applied, d = run_checked(fresh, events)
    assert applied == at + 1 and d is not None, (applied, d)
    assert d.seq == at + 1
    return d


def find(st, type_, seat, tile, nth=0):
    hits = [
        i
        for i, e in enumerate(st.events)
        if e.type == type_ and e.seat == seat and e.tile == T(tile)
    ]
    return hits[nth]


def win(seat, tile, from_seat, kind="discard"):
    return Event(WIN, seat, T(tile), from_seat, kind, ())


def test_plain_hand_on_a_discard_yuxi():
    st, _ = yx.plain_self_draw()
    d = refusal(st, find(st, DISCARD, 0, "9p"), win(1, "9p", 0))
    assert d.check == Check.PLAIN_ON_DISCARD and "self-draw" in d.rules


def test_pass_lock_yuxi():
    st, _ = yx.pass_then(yx.R, pon=False)
    d = refusal(st, find(st, DISCARD, 1, "4p"), win(2, "4p", 1))
    assert d.check == Check.PASS_LOCK and "弃胡" in d.rules


def test_pass_lock_xuezhan():
    st, _ = xz.run(
        xz.LOCKED, voids="mmmm", draws="4p", scripts={1: ["discard 4p"], 2: ["pass 4p"]}, stop=True
    )
    d = refusal(st, find(st, DISCARD, 1, "4p"), win(2, "4p", 1))
    assert d.check == Check.PASS_LOCK and "过手胡" in d.rules


def test_pon_lock_xuezhan():
    st, _ = xz.run(
        xz.PONLOCK, voids="mmmm", draws="5s", scripts={1: ["discard 5s"], 2: ["pass 5s"]}, stop=True
    )
    d = refusal(st, find(st, DISCARD, 1, "5s"), Event(PON, 2, T("5s"), 1))
    assert d.check == Check.PON_LOCK and "过手碰" in d.rules


@pytest.mark.parametrize(
    "hand, claim",
    [
        ("55p 12345678s 9s 1m 2m", Event(PON, 1, T("5p"), 0)),
        ("555p 12345678s 9s 1m", Event(KONG, 1, T("5p"), 0, "exposed")),
    ],
)
def test_pon_or_kong_in_the_void_suit(hand, claim):
    st, _ = xz.run(
        {0: "123m456m789m1234s 5p", 1: hand}, voids="mpmm", stop=True, scripts={0: ["discard 5p"]}
    )
    d = refusal(st, find(st, DISCARD, 0, "5p"), claim)
    assert d.check == Check.VOID_SUIT


def test_win_as_a_flower_pig():
    st, _ = xz.run(
        {0: "123m456m789m1234s 5p", 1: "123s456s789s234s 5p"},
        voids="mpmm",
        stop=True,
        scripts={0: ["discard 5p"]},
    )
    d = refusal(st, find(st, DISCARD, 0, "5p"), win(1, "5p", 0))
    assert d.check == Check.FLOWER_PIG and "花猪" in d.rules


def test_win_below_min_fan():
    st, _ = hm.run(hm.EXAMPLE, draws="3p 9m 9m 6p", scripts={1: hm.EXAMPLE_SCRIPT + ["win 6p"]})
    d = refusal(st, find(st, DISCARD, 2, "3p"), win(1, "3p", 2))
    assert d.check == Check.MIN_FAN and "min_fan" in d.rules


def test_win_holding_a_dead_fa():
    hands = {
        0: "123p456p789p2345s 1s",
        1: "66z123m456m789m11s",
        2: "111z222z333z444z7z",
        3: "55z77z112233445p",
    }
    st, _ = hm.run(
        hands,
        tail="2p 3p",
        draws="9m 9m 9m 4p",
        scripts={1: ["pon 1s", "discard 9m", "discard 4p"]},
        stop=True,
    )
    d = refusal(st, find(st, DISCARD, 0, "1s"), win(1, "1s", 0))
    assert d.check == Check.DEAD_GREEN and "发" in d.rules


def test_rob_of_an_exposed_kong_barred_by_the_rules():
    st, _ = yx.exposed_kong_robbed(yx.rules("rob_exposed_kong=false"), script=())
    d = refusal(st, find(st, KONG, 1, "5m"), win(3, "5m", 1, "robbed_kong"))
    assert d.check == Check.BARRED_ROB and "rob_exposed_kong" in d.rules


@pytest.mark.parametrize("seat", [0, 1])
def test_rob_barred_for_the_discarder_and_who_passed_the_discard(seat):
    hands = dict(xz.ROB_EXPOSED)
    hands[0] = "23p111m222m333m99m 5m"
    hands[2] = "1155667788p567p"
    st, _ = xz.run(
        hands,
        voids="smps",
        draws="9p 9p 9p 4p",
        rules=xz.XZ(rob_exposed_kong=True),
        scripts={1: ["pass 4p"], 3: ["kong 4p"]},
        stop=True,
    )
    d = refusal(st, find(st, KONG, 3, "4p"), win(seat, "4p", 3, "robbed_kong"))
    assert d.check == Check.BARRED_ROB


def test_a_legal_claim_on_an_earlier_tile_keeps_the_plain_check():
    # a claim on a discard play has left behind is not explained by a rule
    st, _ = yx.plain_self_draw()
    i = find(st, DISCARD, 0, "9p")
    d = refusal(st, i + 1, win(1, "9p", 0))
    assert d.check not in {c.value for c in (Check.PLAIN_ON_DISCARD, Check.PASS_LOCK)}
