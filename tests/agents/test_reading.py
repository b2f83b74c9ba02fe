"""The learned reading of hidden tiles (simulate.agents.reading) and expert's use of it:
features from what a seat sees only, a fit that beats the uniform reading on
hands it did not see, samples that follow it, and a learner that writes only
where it is asked (its refusals: tests/cli/test_bad_input_refusals.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mjlog.agent import SeatView
from mjlog.engine import play_hand
from mjlog.events import DISCARD
from mjlog.rng import Stream
from mjlog.rules import Rules
from mjlog.sampling import rebuild, sample_wall
from simulate.agents import make_agents, reading
from tests.agents.test_expert import _replay, _seat0_discards

VARIANTS = ("yuxi", "xuezhan", "huangmei")


def _midhand(variant: str, seed: int, back: int = 3):
    """A seat-0 view some discards before the end of an all-strategic hand."""
    rules = Rules(variant)
    played = play_hand(rules, make_agents(["strategic"] * 4), seed=seed, match=0, hand=0, dealer=0)
    ks = list(_seat0_discards(played.state.events))
    st = _replay(rules, list(played.state.wall), 0, played.state.events, ks[back])
    return st, SeatView(st, 0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_features_are_what_the_seat_sees(variant):
    """On any sample of the hidden tiles the seat's view gives the same features."""
    st, view = _midhand(variant, seed=31)
    real = {s: reading.features(view, s) for s in range(4) if s != 0}
    assert any(x[:, 1].sum() for x in real.values())  # the seats have discarded
    for i in range(3):
        other = rebuild(view, view.history, sample_wall(view, view.history, Stream(i)))
        assert other.hands != st.hands  # other hidden tiles
        for s, x in real.items():
            assert np.array_equal(reading.features(SeatView(other, 0), s), x)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_shipped_readings(variant):
    """Each variant's β is the module's features, and reads as play does: a seat
    seldom holds a tile it has let go or one it has melded."""
    beta = dict(zip(reading.FEATURES, reading.coefficients(variant), strict=True))
    assert beta["discarded"] < 0 and beta["melded"] < 0
    doc = json.loads((reading._DIR / f"{variant}.json").read_text())
    nats = doc["held_out_nats_per_copy"]
    assert nats["reading"] < nats["uniform"]


def test_a_broken_reading_file_is_named(tmp_path, monkeypatch):
    (tmp_path / "yuxi.json").write_text('{"features": ["held"], "beta": [1.0]}')
    (tmp_path / "xuezhan.json").write_text("{not json")
    monkeypatch.setattr(reading, "_DIR", tmp_path)
    reading.coefficients.cache_clear()
    try:
        for v in ("yuxi", "xuezhan", "huangmei"):
            with pytest.raises(ValueError, match=f"{v}.json: no reading for {v}"):
                reading.coefficients(v)
    finally:
        reading.coefficients.cache_clear()


@pytest.mark.parametrize("variant", ["yuxi", "huangmei"])
def test_samples_follow_the_reading(variant):
    """Tilted by the reading, the other seats' sampled hands score higher on it
    than uniform ones, and hold fewer of the tiles they discarded."""
    st, view = _midhand(variant, seed=44, back=2)
    lean = reading.utilities(view, reading.coefficients(variant))
    discarded = {
        s: {e.tile for e in view.history if e.type == DISCARD and e.seat == s} for s in lean
    }

    def score(walls):
        fit = kept = 0.0
        for w in walls:
            hands = rebuild(view, view.history, w).hands
            for s, u in lean.items():
                fit += sum(c * x for c, x in zip(hands[s], u, strict=True))
                kept += sum(hands[s][t] for t in discarded[s])
        return fit / len(walls), kept / len(walls)

    uniform = [sample_wall(view, view.history, Stream(i)) for i in range(40)]
    read = [sample_wall(view, view.history, Stream(i), 0.0, 300, lean) for i in range(40)]
    (fit0, kept0), (fit1, kept1) = score(uniform), score(read)
    assert fit1 > fit0 + 1 and kept1 < kept0, (fit0, fit1, kept0, kept1)
    # every sample still replays the hand, and the tilt alone is unchanged by an empty reading
    assert all(rebuild(view, view.history, w) for w in read)
    assert sample_wall(view, view.history, Stream(7), 0.35, 100, {}) == sample_wall(
        view, view.history, Stream(7), 0.35, 100
    )


def test_playouts_alone_read_the_table():
    """The calibration calls ``playouts`` without ``search``: the reading is taken
    there, for the decision at hand."""
    from mjlog.events import DISCARD as D
    from simulate.agents import make_agent

    st, view = _midhand("yuxi", seed=44, back=2)
    agent = make_agent("expert:reading=1;rollouts=2")
    agent.start_hand(0, Stream(5))
    plans = [(o, "strategic") for o in st.act_options() if o.type == D][:2]
    points = agent.playouts(view, plans, base=1, first=0, count=2)
    assert len(points) == 2 and all(len(p) == 2 for p in points)
    assert agent.lean == reading.utilities(view, reading.coefficients("yuxi"))
