"""Learning the reading of hidden tiles (a measuring tool, outside the wheel).

Plays all-strategic hands, records at every turn where the hidden copies really
were (:func:`observe`, the recorder's privilege, never an agent's), and fits the
β of :mod:`simulate.agents.reading` by maximum likelihood (:func:`learn`,
scipy's L-BFGS). The shipped β came from::

    python -m research.reading_fit --variant huangmei --hands 1500 --seed 9001 \\
        --out simulate/agents/readings/huangmei.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass

import numpy as np

from mjlog.agent import SeatView
from mjlog.phase import Phase
from simulate.agents.efficient import unseen_counts
from simulate.agents.reading import _F, FEATURES, features, seen_copies


@dataclass
class Observation:
    """One seat's turn: the features of the other live seats' tiles, and where
    the hidden copies of each tile really were (each seat's hand, the wall)."""

    X: np.ndarray  # (seats, 34, F)
    held: np.ndarray  # (seats, 34): copies in each seat's concealed hand
    wall: np.ndarray  # (34,): hidden copies elsewhere
    sizes: np.ndarray  # (seats,): tiles each conceals
    wall_size: int


class _Recorder:
    """Plays strategic; at each of its turns with a choice, records what
    ``record(view)`` reads of the true state (a measuring tool)."""

    name, params = "strategic", {}

    def __init__(self, out: list, record):
        from simulate.agents.strategic import StrategicAgent

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


def observe(variant: str, hands: int, seed: int, first: int = 0, record=_observe) -> list:
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
        a = np.vstack(
            [
                np.log(np.maximum(o.sizes, 1e-12))[:, None] + u,
                np.full((1, 34), math.log(max(o.wall_size, 1e-12))),
            ]
        )
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

    r = minimize(
        loss, np.zeros(_F), args=(obs, l2), jac=True, method="L-BFGS-B", options={"maxiter": 500}
    )
    return r.x


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
        prog="python -m research.reading_fit",
        description="Learn the reading of hidden tiles (β) from all-strategic hands: 80 %% "
        "of the hands' turns fit it, the last 20 %% score it against the "
        "uniform reading (β = 0), in nats per hidden copy.",
    )
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
    doc = {
        "variant": a.variant,
        "hands": a.hands,
        "seed": a.seed,
        "command": f"python -m research.reading_fit --variant {a.variant} --hands {a.hands} "
        f"--seed {a.seed}",
        "held_out_nats_per_copy": {
            "reading": round(loss(beta, held_out)[0] / n, 5),
            "uniform": round(loss(np.zeros(_F), held_out)[0] / n, 5),
        },
        "features": list(FEATURES),
        "beta": [round(float(b), 6) for b in beta],
    }
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
