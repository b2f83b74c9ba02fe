"""How much of a ready seat's waits the table shows: a measuring tool.

Given the other seats' real hands, expert's search gains +0.2 to +0.3 points
per seat-hand over strategic, almost all of it from the waits of the seats that
are ready (``research/results/expert.md``, "Which knowledge the ceiling is made
of"). This module asks how much of those waits a seat could read from what it
sees. At every turn of an all-strategic table, for each other seat whose true
hand is ready with a wait still live (a copy unseen by the reading seat), it
records the features :func:`simulate.agents.reading.features` gives of that seat
(discards in order, melds, void: what any seat sees) and the true waits. A
reading then names a distribution over the live tile kinds, and its **share**
of an observation is the probability it puts on the true waits: the chance that
a tile drawn from the reading would deal in. Three readings are scored on hands
they did not learn from, with the hand as the unit (:mod:`analysis.stats`):

- *uniform*: every live kind alike;
- *tile reading*: the shipped reading of where hidden copies lie
  (:func:`simulate.agents.reading.utilities`), as odds of a wait;
- *wait reading*: a multinomial logit over the live kinds on the same features,
  learned here by maximum likelihood from the true waits (:func:`learn`).

Knowing the hand gives a share of 1. Each reading's **AUC** is the chance that
it ranks a true wait above another live kind (within one observation, ties
half); it is given for strategic's own danger rule too
(:meth:`simulate.agents.strategic.StrategicAgent.danger`, the rank its defence
discards by), which names no distribution, so no share. ``python -m research.wait_reading
--variant yuxi --hands 1500 --seed 9100`` prints the table.

>>> obs = observe("yuxi", hands=4, seed=9100)
>>> o = obs[0]
>>> o.X.shape, bool(o.waits.any()), bool((o.waits <= o.live).all())
((34, 20), True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mjlog.agent import SeatView
from mjlog.hand import shanten, waits
from research import reading_fit
from research.reading_fit import OneLineParser
from simulate.agents import reading
from simulate.agents.efficient import unseen_counts
from simulate.agents.reading import FEATURES, features, seen_copies
from simulate.agents.strategic import StrategicAgent

_F = len(FEATURES)


@dataclass
class WaitObservation:
    """One ready seat at another seat's turn: its features, its live waits, the
    live kinds (a copy unseen by the reading seat) and the hand it came from."""

    X: np.ndarray  # (34, F)
    waits: np.ndarray  # (34,) bool: the seat's waits that are live
    live: np.ndarray  # (34,) bool
    hand: int
    rule: np.ndarray  # (34,) strategic's danger of each kind against this seat


def _record(hand: int):
    rule = StrategicAgent()

    def record(view: SeatView) -> list[WaitObservation]:
        st = view._s  # the truth: a recorder's privilege, never an agent's
        seen = seen_copies(view)
        unseen = unseen_counts(view)
        rule.seat = view.seat
        suit = dict(rule.threats(view))
        live = np.array([c < 4 for c in seen])
        bonus = view.rules.spec.bonus_tile
        if bonus is not None:
            live[bonus] = False
        out = []
        for s in range(view.n):
            if s == view.seat or view.won[s]:
                continue
            counts, nm = list(st.hands[s]), len(view.melds[s])
            if shanten(counts, nm) != 0:
                continue
            held = counts[:]
            for m in view.melds[s]:
                held[m.tile] += 3
            w = np.zeros(34, dtype=bool)
            w[waits(counts, nm, held)] = True
            w &= live
            if w.any():
                threat = [(s, suit.get(s))]
                danger = np.array([rule.danger(view, t, threat, unseen) for t in range(34)])
                out.append(WaitObservation(features(view, s, seen), w, live.copy(), hand, danger))
        return out

    return record


def observe(variant: str, hands: int, seed: int, first: int = 0) -> list[WaitObservation]:
    """The ready seats seen at every turn of hands ``first`` … ``first + hands − 1``."""
    out: list[WaitObservation] = []
    for h in range(first, first + hands):
        out += reading_fit.observe(variant, 1, seed, first=h, record=_record(h))
    return out


def _log_dist(u: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Log of the softmax of ``u`` over the live kinds of each row."""
    u = np.where(live, u, -np.inf)
    u = u - u.max(1, keepdims=True)
    return u - np.log(np.exp(u).sum(1, keepdims=True))


def _stack(obs):
    return (
        np.stack([o.X for o in obs]),
        np.stack([o.waits for o in obs]),
        np.stack([o.live for o in obs]),
    )


def _nll(beta, X, W, L, l2):
    lp = _log_dist(X @ beta, L)
    p = np.exp(lp)
    k = W.sum(1, keepdims=True)
    val = -np.where(W, lp, 0).sum()
    grad = -np.einsum("nt,ntf->f", W - k * p, X)
    n = len(X)
    return val + l2 * n * beta @ beta, grad + 2 * l2 * n * beta


def learn(obs: list[WaitObservation], l2: float = 1e-3) -> np.ndarray:
    """β of the wait reading: each true wait a draw from softmax(β · x) over the live kinds."""
    from scipy.optimize import minimize

    X, W, L = _stack(obs)
    return minimize(
        _nll,
        np.zeros(_F),
        args=(X, W, L, l2),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 500},
    ).x


def _shares(beta, X, W, L) -> np.ndarray:
    return np.where(W, np.exp(_log_dist(X @ np.asarray(beta, float), L)), 0).sum(1)


def shares(beta, obs: list[WaitObservation]) -> np.ndarray:
    """Each observation's share: the probability the reading β puts on its waits."""
    return _shares(beta, *_stack(obs))


def _ranks(scores: np.ndarray, W, L) -> np.ndarray:
    other = L & ~W
    d = scores[:, :, None] - scores[:, None, :]  # [n, wait, other]
    pair = W[:, :, None] & other[:, None, :]
    won = np.where(pair, (d > 0) + 0.5 * (d == 0), 0).sum((1, 2))
    n = pair.sum((1, 2))
    return np.where(n > 0, won / np.maximum(n, 1), 0.5)


def ranks(scores: np.ndarray, obs: list[WaitObservation]) -> np.ndarray:
    """Each observation's AUC of ``scores`` (n, 34; higher: more likely a wait):
    the chance that a true wait outranks another live kind, ties counted half."""
    _, W, L = _stack(obs)
    return _ranks(scores, W, L)


def table(variant: str, hands: int, seed: int) -> list[dict]:
    """The readings' shares and AUCs on the last fifth of the hands, a wait
    reading learned on the first four fifths: rows of name, ``share``, its
    ``gain`` over uniform and ``auc``, each (value, lo, hi) with the hand as
    the unit (NaN where a reading has none)."""
    from analysis.stats import compare_units, estimate

    cut = hands * 4 // 5
    beta = learn(observe(variant, cut, seed))
    test = observe(variant, hands - cut, seed, first=cut)
    ids = [o.hand for o in test]
    units = sorted(set(ids))
    where = {h: i for i, h in enumerate(units)}
    n = np.zeros(len(units))
    np.add.at(n, [where[h] for h in ids], 1)

    def per_hand(s):
        y = np.zeros(len(units))
        np.add.at(y, [where[h] for h in ids], s)
        return y

    readings = {
        "uniform": np.zeros(_F),
        "tile reading": np.array(reading.coefficients(variant)),
        "wait reading": beta,
    }
    X, W, L = _stack(test)  # once: each reading is scored on the same arrays
    base = None
    rows = []
    for name, b in [*readings.items(), ("strategic's danger rule", None)]:
        if b is None:  # a rank of danger, not a distribution: no share
            share = gain = (math.nan,) * 3
            auc = _ranks(np.stack([o.rule for o in test]), W, L)
        else:
            y = per_hand(_shares(b, X, W, L))
            base = y if base is None else base  # uniform, the first
            e, d = estimate(y, n), compare_units(base, n, y, n, paired=True)
            share, gain = (e.value, e.lo, e.hi), (d.diff, d.lo, d.hi)
            auc = _ranks(X @ b, W, L)
        a = estimate(per_hand(auc), n)
        rows.append(
            {
                "reading": name,
                "share": share,
                "gain": gain,
                "auc": (a.value, a.lo, a.hi),
                "hands": len(units),
                "observations": len(test),
                "learned_on": cut,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(
        prog="python -m research.wait_reading",
        description="How much of a ready seat's waits a seat can read from the table: a "
        "wait reading learned on the first 80 %% of all-strategic hands, scored "
        "with the uniform and the tile reading on the last 20 %% (the share of "
        "probability on the true waits; knowing the hand gives 1).",
    )
    p.add_argument("--variant", required=True, choices=("yuxi", "xuezhan", "huangmei"))
    p.add_argument("--hands", type=int, default=1500, help="hands to play (default 1500)")
    p.add_argument("--seed", type=int, default=9100, help="their seed (default 9100)")
    a = p.parse_args(argv)
    if a.hands < 10:
        p.error("--hands must be at least 10")
    rows = table(a.variant, a.hands, a.seed)
    r0 = rows[0]
    print(
        f"{a.variant}, seed {a.seed}: learned on hands 0–{r0['learned_on'] - 1}, scored on "
        f"{r0['observations']} ready seats in {r0['hands']} hands; the hand is the unit"
    )
    print(
        "| reading | share of the waits [95% CI] | gain over uniform [95% CI] "
        "| AUC: a wait ranked above another live kind [95% CI] |"
    )
    print("|---|---|---|---|")

    def ci(v, sign=""):
        return "—" if math.isnan(v[0]) else f"{v[0]:{sign}.3f} [{v[1]:{sign}.3f}, {v[2]:{sign}.3f}]"

    for r in rows:
        gain = "—" if r["reading"] == "uniform" else ci(r["gain"], "+")
        print(f"| {r['reading']} | {ci(r['share'])} | {gain} | {ci(r['auc'])} |")
    print("| the true hand | 1 | | 1 |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
