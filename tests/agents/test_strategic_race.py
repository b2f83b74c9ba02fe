"""strategic's race ranking: a plan's chance to win in the draws left."""

from mjlog.agent import SeatView
from mjlog.rules import Rules
from mjlog.state import HandState
from mjlog.tiles import parse_counts
from simulate.agents import make_agent


def _view(variant: str, hand: str, wall_left: int, void=None):
    """Seat 0's view of a hand set by hand: its tiles, its void and the live wall (a real
    view, as the engine gives: the compiled build's agent takes no stand-in)."""
    rules = Rules(variant)
    st = HandState(rules, rules.spec.wall_tiles(rules), 0)
    st.hands[0][:] = parse_counts(hand)
    st.void[0] = void
    st.pos.front = st.pos.back + 1 - wall_left
    return SeatView(st, 0)


def test_seven_pairs_held_but_not_won_is_a_plan_not_a_crash():
    # xuezhan: seven pairs with a void-suit pair in them is no win; the void
    # tiles go first, and ranking the plans must not fail on a finished shape
    a = make_agent("strategic")
    a.start_hand(0, None)
    v = _view("xuezhan", "11223344m556677s", 40, void=2)
    plan = a.plan(v, a.reading(v), a.plain_speed(v, [2] * 34, None))
    assert plan[0] in ("pairs", "plain", "flush", "half", "triplets")


def test_a_far_chase_gives_way_to_the_plain_hand_with_too_few_draws_left():
    # five pairs chase a pattern (seven pairs or all triplets) with the wall
    # full, not with one draw left (two tiles away, it cannot be won in time)
    a = make_agent("strategic")
    a.start_hand(0, None)
    hand = "1155m2299p138s467z"
    plans = []
    for wall in (80, 4):
        v = _view("huangmei", hand, wall)
        plans.append(a.plan(v, a.reading(v), a.plain_speed(v, [2] * 34, None))[0])
    assert plans[0] != "plain" and plans[1] == "plain"
