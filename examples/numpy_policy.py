"""Train a small numpy policy in the Gymnasium environment, then rank it against
``random`` in a duplicate ladder. No deep-learning library: a linear softmax
policy over the flat observation (``mjlog.env``), trained by REINFORCE.

    python examples/numpy_policy.py --variant xuezhan --minutes 3 --out runs/policy.npz
    python -m mjlog ladder --variant xuezhan --hands 4000 --seed 1 \\
        --agents "examples.numpy_policy:LinearPolicy:weights=runs/policy.npz,random,random,random"

(run from the repository root, so that ``examples`` is importable by name, in the
command and in its workers). The script runs the same ladder itself at the end.

The policy: logits = W · observation + b over the 109 actions, illegal actions
masked out; it samples while training and plays the most likely legal action
in the ladder. One update per batch of hands: each decision's gradient of
log π(a | obs), weighted by the hand's points minus a running baseline.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from mjlog.env import N_ACTIONS, action_of, flat_size, observe_view
from simulate.gym import gym_env


class Policy:
    """A linear softmax policy over the masked actions."""

    def __init__(self, n_obs: int, rng: np.random.Generator):
        self.W = np.zeros((N_ACTIONS, n_obs), np.float32)
        self.b = np.zeros(N_ACTIONS, np.float32)
        self.rng = rng

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.W @ obs + self.b
        z = np.where(mask > 0, z, -np.inf)
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, W=self.W, b=self.b)


class LinearPolicy:
    """The trained policy as an mjlog agent: ``--agents
    examples.numpy_policy:LinearPolicy:weights=PATH.npz``. Plays the most likely
    legal action, ties broken at random from its seeded stream (reproducible)."""

    def __init__(self, weights: str):
        with np.load(weights, allow_pickle=False) as f:  # never unpickle a file
            self.W, self.b = f["W"], f["b"]
        self.name = "numpy_policy"
        self.params = {"weights": Path(weights).name}

    def start_hand(self, seat, rng) -> None:
        self.seat, self.rng = seat, rng

    def choose(self, view, options):
        obs = observe_view(view)
        if obs.shape[0] != self.W.shape[1]:
            raise ValueError(
                f"the weights were trained for {self.W.shape[1]} inputs, "
                f"this table gives {obs.shape[0]}"
            )
        z = self.W @ obs + self.b
        scores = [z[action_of(o)] for o in options]
        top = max(scores)
        best = [o for o, v in zip(options, scores, strict=True) if v == top]
        # ties broken by the seat's own stream: untrained (zero) weights play exactly
        # as `random` does, so what the ladder shows is what training added
        return best[self.rng.below(len(best))]


def train(
    variant: str, seconds: float, seed: int = 0, batch: int = 16, lr: float = 0.01, log=print
) -> tuple[Policy, int]:
    env = gym_env(variant, seat=0, opponents=["random"])
    n = env.aec.n
    rng = np.random.default_rng(seed)
    pol = Policy(flat_size(n), rng)
    baseline, scale = 0.0, 1.0
    hands = 0
    t0 = time.monotonic()
    gW, gb = np.zeros_like(pol.W), np.zeros_like(pol.b)
    recent: list[float] = []
    while time.monotonic() - t0 < seconds:
        obs, _ = env.reset(seed=int(rng.integers(2**63)))
        steps = []
        total, done = 0.0, False
        while not done:
            x, mask = obs["observation"], obs["action_mask"]
            p = pol.probs(x, mask)
            a = int(rng.choice(N_ACTIONS, p=p))
            steps.append((x, p, a))
            obs, r, done, _, _ = env.step(a)
            total += r
        hands += 1
        recent.append(total)
        adv = (total - baseline) / scale
        baseline += 0.02 * (total - baseline)
        scale += 0.02 * (abs(total - baseline) + 1.0 - scale)
        for x, p, a in steps:
            g = -p
            g[a] += 1.0
            gW += adv * np.outer(g, x)
            gb += adv * g
        if hands % batch == 0:
            pol.W += lr * gW / batch
            pol.b += lr * gb / batch
            gW[:] = 0.0
            gb[:] = 0.0
        if hands % 500 == 0:
            log(
                f"{hands} hands, {time.monotonic() - t0:.0f} s, mean points of the last 500: "
                f"{np.mean(recent[-500:]):+.2f}"
            )
    return pol, hands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="xuezhan")
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/policy.npz")
    ap.add_argument("--ladder-hands", type=int, default=4000)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    pol, hands = train(a.variant, a.minutes * 60, a.seed)
    pol.save(a.out)
    print(f"trained on {hands} hands; weights in {a.out}")
    if a.ladder_hands:
        from analysis.studies.ladder import ladder

        spec = f"examples.numpy_policy:LinearPolicy:weights={a.out}"
        table = ladder(
            a.variant,
            [spec, "random", "random", "random"],
            a.ladder_hands,
            seed=a.seed + 1,
            workers=a.workers,
        )
        print(table.to_string(index=False))


if __name__ == "__main__":
    import sys

    # run as a script: the repository root on the path, so that the ladder (and its
    # workers) import `examples.numpy_policy` by name
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
