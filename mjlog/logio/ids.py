"""A run's identity: the canonical JSON of its arguments and the hash of it.

>>> run_id({"variant": "yuxi", "rules": {"cap": 32}, "seed": 1, "matches": 2,
...         "hands_per_match": 8, "players": 4, "agents": [{"name": "greedy"}] * 4,
...         "duplicate": False, "rng": "pcg64-v1", "mjlog_version": "0.1.0"})
'43da3cbb71b40b25'
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from mjlog.rundir import LogError

__all__ = ["CONTENT_KEY", "RUN_ID_KEYS", "canonical_json", "jsonable", "run_id"]

RUN_ID_KEYS: tuple[str, ...] = (
    "variant",
    "rules",
    "seed",
    "matches",
    "hands_per_match",
    "players",
    "agents",
    "duplicate",
    "rng",
    "mjlog_version",
)
"""The manifest keys ``run_id`` hashes: the arguments of a run, nothing else."""

CONTENT_KEY = "content"
"""An imported run's manifest key: the sha256 of its hands' canonical lines
(:mod:`mjlog.interchange`). ``run_id`` hashes it too when present, so two imports
share an id only when they hold the same hands."""


def jsonable(obj: Any) -> Any:
    """The JSON form of what :mod:`json` cannot write itself: mappings (resolved
    rules), sets (sorted) and dataclasses."""
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    raise TypeError(f"cannot put {type(obj).__name__} {obj!r} into canonical JSON")


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys, no spaces, non-ASCII kept: one text per value.

    Mappings (such as resolved rules) become objects, tuples and sets become
    arrays (sets sorted); NaN and infinities are refused.

    >>> canonical_json({"b": (1, 2), "a": {"z": "发", "y": None}})
    '{"a":{"y":null,"z":"发"},"b":[1,2]}'
    """
    return _CANONICAL.encode(obj)


# one encoder for every call: json.dumps with options builds a new one each time,
# which costs as much as encoding a small object (an import encodes one per event)
_CANONICAL = json.JSONEncoder(
    sort_keys=True,
    separators=(",", ":"),
    ensure_ascii=False,
    allow_nan=False,
    default=jsonable,
)


def run_id(meta: Mapping[str, Any]) -> str:
    """First 16 hex digits of the sha256 of the canonical JSON of the run's arguments.

    Only the keys of :data:`RUN_ID_KEYS` (and :data:`CONTENT_KEY`, when present)
    are hashed; other keys of ``meta`` (a creation time, the shard list) do not
    change the id.

    >>> run_id({"variant": "yuxi"})
    Traceback (most recent call last):
    ...
    mjlog.rundir.LogError: run_id needs meta keys agents, duplicate, hands_per_match, \
matches, mjlog_version, players, rng, rules, seed (missing from the run's metadata)
    """
    missing = sorted(k for k in RUN_ID_KEYS if k not in meta)
    if missing:
        raise LogError(
            f"run_id needs meta keys {', '.join(missing)} (missing from the run's metadata)"
        )
    keys = RUN_ID_KEYS + (CONTENT_KEY,) if CONTENT_KEY in meta else RUN_ID_KEYS
    text = canonical_json({k: meta[k] for k in keys})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
