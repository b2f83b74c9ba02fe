"""Where the tiles a seat cannot see probably are: a reading learned from play.

A seat sees each other seat's discards (in order), melds and void, and how many
copies of each tile are still hidden. :func:`features` turns that into a vector
``x(s, t)`` for each other seat ``s`` and tile ``t``: how often and how early
``s`` let ``t`` and its neighbours go, how much of its discards and melds lie in
``t``'s suit, how long it has played. The reading is a conditional logit over
where each hidden copy of ``t`` lies: in seat ``s``'s concealed hand with odds
``(tiles s conceals) × exp(β · x(s, t))``, in the wall with odds ``(hidden wall
tiles)``. :func:`utilities` gives the ``β · x(s, t)``; ``expert:reading=1``
tilts its samples by them (:func:`simulate.sampling._tilt`).

β is learned by maximum likelihood (:func:`learn`, scipy's L-BFGS) from
all-strategic hands, whose concealed hands a recorder reads at every seat's turn
(a measuring tool: the agent only ever gets the features), one β per variant,
shipped in ``simulate/readings/<variant>.json`` with the command that made it::

    python -m simulate.reading --variant huangmei --hands 1500 --seed 9001 \\
        --out simulate/readings/huangmei.json

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

import argparse
import json
import math
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from mjlog.agent import SeatView
from mjlog.events import DISCARD
from mjlog.phase import Phase
from simulate.efficient import unseen_counts

#: x(s, t), in order; each is about seat s and tile t, from what any seat sees
FEATURES = (
    "held",                    # 1: a seat's hand against the wall
    "discarded",               # copies of t it discarded
    "discarded_early",         # ... among its first five discards
    "discarded_late",          # ... among its last three
    "neighbour_discarded",     # its discards of t ± 1 (same suit)
    "neighbour_early",         # ... among its first five
    "two_off_discarded",       # its discards of t ± 2
    "near_last_discards",      # its last three discards within 2 of t (same suit)
    "suit_share",              # share of its discards in t's suit (honours: in honours)
    "turns",                   # its discards / 10
    "suit_share_x_turns",
    "melds_in_suit",           # its melds in t's suit (honours: honour melds)
    "melds_other_suits",       # its suited melds in other suits (suited t only)
    "one_suit_melds",          # its suited melds all in t's suit
    "melded",                  # it has a pon or kong of t
    "honour",
    "terminal",                # a 1 or a 9
    "middle",                  # a 4, 5 or 6
    "seen",                    # copies of t the reading seat sees
    "void",                    # t is in its void suit
)
_F = len(FEATURES)
_DIR = Path(__file__).parent / "readings"


def _suit(t: int) -> int:
    return min(t // 9, 3)


def features(view: SeatView, seat: int, seen: list[int] | None = None,
             discards: list[int] | None = None) -> np.ndarray:
    """``x(seat, t)`` for every tile ``t``, a (34, len(FEATURES)) array, from what
    ``view``'s seat sees of ``seat``: its discards in order, its melds, its void."""
    if discards is None:
        discards = [e.tile for e in view.history if e.type == DISCARD and e.seat == seat]
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


# ------------------------------------------------------------------ learning
@dataclass
class Observation:
    """One seat's turn: the features of the other live seats' tiles, and where
    the hidden copies of each tile really were (each seat's hand, the wall)."""

    X: np.ndarray        # (seats, 34, F)
    held: np.ndarray     # (seats, 34): copies in each seat's concealed hand
    wall: np.ndarray     # (34,): hidden copies elsewhere
    sizes: np.ndarray    # (seats,): tiles each conceals
    wall_size: int


class _Recorder:
    """Plays strategic; at each of its turns with a choice, records what
    ``record(view)`` reads of the true state (a measuring tool)."""

    name, params = "strategic", {}

    def __init__(self, out: list, record):
        from simulate.strategic import StrategicAgent
        self.base, self.out, self.record = StrategicAgent(), out, record

    def start_hand(self, seat, rng) -> None:
        self.base.start_hand(seat, rng)

    def choose(self, view, options):
        if view.phase is Phase.ACT and len(options) > 1:
            self.out.extend(self.record(view))
        return self.base.choose(view, options)


def _observe(view: SeatView) -> list[Observation]:
    st = view._s  # the truth: a recorder's privilege, never an agent's
    seen = seen_copies(view)
    hidden = np.array(unseen_counts(view))
    bonus = view.rules.spec.bonus_tile
    if bonus is not None:
        hidden[bonus] = 0
    others = [s for s in range(view.n) if s != view.seat and not view.won[s]]
    X = np.array([features(view, s, seen) for s in others])
    held = np.array([st.hands[s] for s in others])
    if bonus is not None:
        held[:, bonus] = 0
    wall = hidden - held.sum(0)
    return [Observation(X, held, wall, held.sum(1), int(wall.sum()))]


def observe(variant: str, hands: int, seed: int, first: int = 0,
            record=_observe) -> list:
    """Observations from hands ``first`` … ``first + hands − 1`` (each its own
    match) of an all-strategic table: ``record(view)`` at every turn with a
    choice (by default an :class:`Observation` of where the hidden copies were)."""
    from mjlog.engine import play_hand
    from mjlog.rules import Rules
    rules = Rules(variant)
    out: list = []
    agents = [_Recorder(out, record) for _ in range(rules.n)]
    for h in range(first, first + hands):
        play_hand(rules, agents, seed=seed, match=h, hand=0, dealer=h % rules.n)
    return out


def loss(beta, obs: list[Observation], l2: float = 0.0) -> tuple[float, np.ndarray]:
    """The negative log-likelihood of where the hidden copies were, and its gradient."""
    total, grad = 0.0, np.zeros(_F)
    for o in obs:
        u = o.X @ beta
        a = np.vstack([np.log(np.maximum(o.sizes, 1e-12))[:, None] + u,
                       np.full((1, 34), math.log(max(o.wall_size, 1e-12)))])
        a -= a.max(0)
        p = np.exp(a)
        p /= p.sum(0)
        k = np.vstack([o.held, o.wall[None, :]])
        total -= float((k * np.log(np.maximum(p, 1e-300))).sum())
        grad -= np.einsum("st,stf->f", o.held - k.sum(0) * p[:-1], o.X)
    n = len(obs)
    return total + l2 * n * float(beta @ beta), grad + 2 * l2 * n * beta


def copies(obs: list[Observation]) -> int:
    return int(sum(o.held.sum() + o.wall.sum() for o in obs))


def learn(obs: list[Observation], l2: float = 1e-3) -> np.ndarray:
    """β by maximum likelihood (a little ridge keeps rare features finite)."""
    from scipy.optimize import minimize
    r = minimize(loss, np.zeros(_F), args=(obs, l2), jac=True, method="L-BFGS-B",
                 options={"maxiter": 500})
    return r.x


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


class OneLineParser(argparse.ArgumentParser):
    """argparse that refuses in one line and exits 2, as every command of the project."""

    def error(self, message: str):  # one line, as every refusal of the project
        self.exit(2, f"{self.prog}: {message}\n")


def _writable(out: str) -> str | None:
    """Why ``out`` cannot take the reading, or None: refused before any hand is played."""
    from mjlog.errors import MjlogError
    from mjlog.rundir import check_output
    try:
        p = check_output(out, "--out")
    except MjlogError as e:
        return str(e)
    if p.is_dir():
        return f"--out {out} is a directory; give a file name"
    if not p.absolute().parent.is_dir():
        return f"--out {out}: the folder {p.parent} does not exist"
    return None


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(
        prog="python -m simulate.reading",
        description="Learn the reading of hidden tiles (β) from all-strategic hands: 80 %% "
                    "of the hands' turns fit it, the last 20 %% score it against the "
                    "uniform reading (β = 0), in nats per hidden copy.")
    p.add_argument("--variant", required=True, choices=("yuxi", "xuezhan", "huangmei"))
    p.add_argument("--hands", type=int, default=1500, help="hands to learn from (default 1500)")
    p.add_argument("--seed", type=int, default=9001, help="their seed (default 9001)")
    p.add_argument("--out", help="write the JSON here (atomically); else print it")
    a = p.parse_args(argv)
    if a.hands < 5:
        p.error("--hands must be at least 5")
    if a.out and (why := _writable(a.out)):
        p.error(why)
    obs = observe(a.variant, a.hands, a.seed)
    cut = len(obs) * 4 // 5
    beta = learn(obs[:cut])
    held_out = obs[cut:]
    n = copies(held_out)
    doc = {"variant": a.variant, "hands": a.hands, "seed": a.seed,
           "command": f"python -m simulate.reading --variant {a.variant} --hands {a.hands} "
                      f"--seed {a.seed}",
           "held_out_nats_per_copy": {"reading": round(loss(beta, held_out)[0] / n, 5),
                                      "uniform": round(loss(np.zeros(_F), held_out)[0] / n, 5)},
           "features": list(FEATURES), "beta": [round(float(b), 6) for b in beta]}
    text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
    if a.out:
        from mjlog.errors import MjlogError
        from mjlog.rundir import write_atomic
        try:
            write_atomic(a.out, text, "--out")
        except (MjlogError, OSError) as e:
            p.exit(2, f"{p.prog}: {e}\n")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
