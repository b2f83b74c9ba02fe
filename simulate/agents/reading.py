"""Where the tiles a seat cannot see probably are: a reading learned from play.

A seat sees each other seat's discards (in order), melds and void, and how many
copies of each tile are still hidden. :func:`features` turns that into a vector
``x(s, t)`` for each other seat ``s`` and tile ``t``: how often and how early
``s`` let ``t`` and its neighbours go, how much of its discards and melds lie in
``t``'s suit, how long it has played. The reading is a conditional logit over
where each hidden copy of ``t`` lies: in seat ``s``'s concealed hand with odds
``(tiles s conceals) × exp(β · x(s, t))``, in the wall with odds ``(hidden wall
tiles)``. :func:`utilities` gives the ``β · x(s, t)``; ``expert:reading=1``
tilts its samples by them (:func:`mjlog.sampling._tilt`).

β is learned from all-strategic hands by ``research/reading_fit.py`` (a
measuring tool outside the wheel: the agent only ever gets the features), one β
per variant, shipped in ``simulate/agents/readings/<variant>.json`` with the
command that made it.

A reading of one hand's seat, on the shipped β:

>>> from mjlog.agent import SeatView
>>> from mjlog.engine import play_hand
>>> from mjlog.rules import Rules
>>> from simulate.agents import make_agents
>>> st = play_hand(Rules("yuxi"), make_agents(["strategic"] * 4), seed=1, match=0,
...                hand=0, dealer=0).state
>>> st.won  # the hand is over: seat 3 won it
[False, False, False, True]
>>> u = utilities(SeatView(st, 0), coefficients("yuxi"))
>>> sorted(u), len(u[1])  # a utility per tile for each other seat still in the hand
([1, 2], 34)
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from mjlog.agent import SeatView
from mjlog.events import DISCARD
from simulate.agents.efficient import unseen_counts

#: x(s, t), in order; each is about seat s and tile t, from what any seat sees
FEATURES = (
    "held",  # 1: a seat's hand against the wall
    "discarded",  # copies of t it discarded
    "discarded_early",  # ... among its first five discards
    "discarded_late",  # ... among its last three
    "neighbour_discarded",  # its discards of t ± 1 (same suit)
    "neighbour_early",  # ... among its first five
    "two_off_discarded",  # its discards of t ± 2
    "near_last_discards",  # its last three discards within 2 of t (same suit)
    "suit_share",  # share of its discards in t's suit (honours: in honours)
    "turns",  # its discards / 10
    "suit_share_x_turns",
    "melds_in_suit",  # its melds in t's suit (honours: honour melds)
    "melds_other_suits",  # its suited melds in other suits (suited t only)
    "one_suit_melds",  # its suited melds all in t's suit
    "melded",  # it has a pon or kong of t
    "honour",
    "terminal",  # a 1 or a 9
    "middle",  # a 4, 5 or 6
    "seen",  # copies of t the reading seat sees
    "void",  # t is in its void suit
)
_F = len(FEATURES)
_DIR = Path(__file__).parent / "readings"


def _suit(t: int) -> int:
    return min(t // 9, 3)


def features(
    view: SeatView, seat: int, seen: list[int] | None = None, discards: list[int] | None = None
) -> np.ndarray:
    """``x(seat, t)`` for every tile ``t``, a (34, len(FEATURES)) array, from what
    ``view``'s seat sees of ``seat``: its discards in order, its melds, its void."""
    if discards is None:
        discards = [
            e.tile
            for e in view.history
            if e.type == DISCARD and e.seat == seat and e.tile is not None  # (it always is)
        ]
    if seen is None:
        seen = seen_copies(view)
    d, nd = discards, len(discards)
    cnt, early, late = [0] * 34, [0] * 34, [0] * 34
    per_suit = [0] * 4
    for i, t in enumerate(d):
        cnt[t] += 1
        early[t] += i < 5
        late[t] += i >= nd - 3
        per_suit[_suit(t)] += 1
    meld_suit, melded = [0] * 4, [0] * 34
    for m in view.melds[seat]:
        meld_suit[_suit(m.tile)] += 1
        melded[m.tile] = 1
    suited_melds = sum(meld_suit[:3])
    void = view.void[seat]
    last = d[-3:]
    X = np.zeros((34, _F))
    for t in range(34):
        su, r, x = _suit(t), t % 9, X[t]
        x[0], x[1], x[2], x[3] = 1, cnt[t], early[t], late[t]
        if t < 27:
            x[4] = (cnt[t - 1] if r >= 1 else 0) + (cnt[t + 1] if r <= 7 else 0)
            x[5] = (early[t - 1] if r >= 1 else 0) + (early[t + 1] if r <= 7 else 0)
            x[6] = (cnt[t - 2] if r >= 2 else 0) + (cnt[t + 2] if r <= 6 else 0)
            x[7] = sum(1 for u in last if _suit(u) == su and 0 < abs(u - t) <= 2)
            x[12] = suited_melds - meld_suit[su]
            x[13] = suited_melds > 0 and meld_suit[su] == suited_melds
            x[16] = r in (0, 8)
            x[17] = 3 <= r <= 5
        else:
            x[15] = 1
        x[8] = per_suit[su] / max(1, nd)
        x[9] = nd / 10
        x[10] = x[8] * x[9]
        x[11] = meld_suit[su]
        x[14] = melded[t]
        x[18] = seen[t]
        x[19] = void is not None and su == void
    return X


def seen_copies(view: SeatView) -> list[int]:
    """Copies of each tile the seat sees: its hand, every discard, every meld."""
    return [4 - u for u in unseen_counts(view)]


def utilities(view: SeatView, beta) -> dict[int, list[float]]:
    """Seat → ``β · x(seat, t)`` for every tile, for each other seat still in the
    hand (the bonus tile, whose place the history pins, at 0)."""
    seen = seen_copies(view)
    beta = np.asarray(beta, dtype=float)
    bonus = view.rules.spec.bonus_tile
    per_seat: list[list[int]] = [[] for _ in range(view.n)]
    for e in view.history:
        if e.type == DISCARD:
            assert e.seat is not None and e.tile is not None  # a discard names both
            per_seat[e.seat].append(e.tile)
    out = {}
    for s in range(view.n):
        if s == view.seat or view.won[s]:
            continue
        u = (features(view, s, seen, per_seat[s]) @ beta).tolist()
        if bonus is not None:
            u[bonus] = 0.0
        out[s] = u
    return out


@lru_cache(maxsize=8)
def coefficients(variant: str) -> tuple[float, ...]:
    """The shipped β of ``variant``."""
    path = _DIR / f"{variant}.json"
    try:
        doc = json.loads(path.read_text())
        if list(doc["features"]) != list(FEATURES):
            raise ValueError("its features are not this version's")
        return tuple(float(b) for b in doc["beta"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: no reading for {variant}: {e}") from None
