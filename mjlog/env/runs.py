"""A finished episode of :mod:`mjlog.env` written as a run directory: one match of
one hand, its seed and match as dealt, so ``mjlog validate`` audits it (the seed
check included)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mjlog.engine import PlayedHand
from mjlog.logio import ShardWriter, build_manifest, hand_records, run_id, write_manifest
from mjlog.rng import RNG
from mjlog.rundir import RunClaim, check_output
from mjlog.state import Phase

if TYPE_CHECKING:
    from mjlog.env.aec import MjlogEnv

__all__ = ["seat_names", "write_episode"]


def seat_names(names: Sequence[str] | None, default: Sequence[str]) -> list[str]:
    """``names`` checked: one non-empty string per seat (``default``'s length);
    ``default`` when None. A ValueError names what is wrong."""
    n = len(default)
    if names is None:
        return list(default)
    if isinstance(names, str | bytes):  # list("abcd") would be four names
        raise ValueError(f"names must be a sequence of {n} strings, not a {type(names).__name__}")
    names = list(names)
    if len(names) != n:
        raise ValueError(f"names: {n} names expected, {len(names)} given (one per seat)")
    for i, a in enumerate(names):
        if not isinstance(a, str) or not a:
            raise ValueError(f"names[{i}] must be a non-empty string, not {a!r}")
    return names


def write_episode(
    env: MjlogEnv, out: str | os.PathLike[str], names: Sequence[str] | None = None
) -> dict[str, Any]:
    """Write the finished episode of ``env`` as a run directory at ``out``, its
    seats named ``names`` (:func:`seat_names`; default: the agent names); returns
    the manifest. A ValueError before anything is written when the hand is not
    over or a name is wrong."""
    from mjlog import __version__

    st, rules, match = env.state, env.rules, env.match
    if st is None or st.phase is not Phase.OVER:
        raise ValueError("the episode is not over: play it to the end first")
    seats = seat_names(names, env.possible_agents)
    meta = {
        "variant": rules.variant,
        "rules": rules.to_json(),
        "seed": env.seed_root,
        "matches": 1,
        "hands_per_match": 1,
        "players": rules.n,
        "agents": [{"name": a, "params": {}} for a in seats],
        "duplicate": False,
        "rng": RNG,
        "mjlog_version": __version__,
    }
    rid = run_id(meta)
    path = check_output(out, "out")
    played = PlayedHand(st, match, 0, 0, env.hand_seed, tuple(seats), env.dealer_rolls)
    with (
        RunClaim(path, rid, "hands_per_shard=1 events=all"),
        ShardWriter(path, 0, rid, rules.variant, events=True) as w,
    ):
        w.add_hand(match, 0, 0, *hand_records(played))
    manifest = build_manifest(meta, w.entries, hands_per_shard=1, events="all")
    write_manifest(Path(path), manifest)
    return manifest
