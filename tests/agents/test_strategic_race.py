"""strategic's race ranking: a plan's chance to win in the draws left."""

from simulate.agents import make_agent
from tests.agents.seatviews import seat_view as _view


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
