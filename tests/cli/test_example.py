"""The training example (examples/numpy_policy.py), seconds-long: it trains, saves
weights, and its agent plays a duplicate ladder by its import path."""

from __future__ import annotations

import numpy as np

from analysis.studies.ladder import ladder
from examples.numpy_policy import LinearPolicy, train


def test_train_save_and_ladder(tmp_path):
    pol, hands = train("xuezhan", seconds=2.0, seed=1, log=lambda s: None)
    assert hands >= 1 and np.isfinite(pol.W).all()
    weights = tmp_path / "p.npz"
    pol.save(weights)
    LinearPolicy(str(weights))  # loads without pickle
    spec = f"examples.numpy_policy:LinearPolicy:weights={weights}"
    table = ladder("xuezhan", [spec, "random", "random", "random"], 32, seed=2, workers=1)
    # the agent as the manifest records it (its spec's name), not as it calls itself
    assert set(table["agent"]) == {"examples.numpy_policy:LinearPolicy", "random"}
    # two matches (the fewest a ladder plays) of 32 hands, four seats each
    assert table["hands"].sum() == 2 * 32 * 4
