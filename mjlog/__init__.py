"""mjlog: play, log, replay, audit and analyse three Chinese mahjong variants.

The front door: the main API, loaded lazily (``import mjlog`` costs nothing until
a name is used). The rulebook is ``docs/rules/`` (one page per variant), the log
contract ``docs/log-schema.md``.

>>> import mjlog
>>> mjlog.waits(mjlog.parse_counts("1112345678999m"))
[0, 1, 2, 3, 4, 5, 6, 7, 8]
>>> rules = mjlog.resolve("yuxi", sets=["cap=32"])
>>> played = mjlog.play_hand(rules, [mjlog.GreedyAgent() for _ in range(4)], seed=1,
...                          match=0, hand=0, dealer=None)
>>> played.state.over, sum(played.state.deltas)
(True, 0)

Playing runs of many hands with the built-in agents (``strategic``, ``expert``)
is the batch layer's: :func:`simulate.runner.simulate` and
:func:`simulate.agents.make_agents`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name → the module that defines it
_API = {
    # tiles and hand analysis
    "parse": "mjlog.tiles",
    "parse_counts": "mjlog.tiles",
    "fmt": "mjlog.tiles",
    "shanten": "mjlog.hand",
    "waits": "mjlog.hand",
    # rules and scoring
    "VARIANTS": "mjlog.rules",
    "Rules": "mjlog.rules",
    "resolve": "mjlog.rules",
    "score": "mjlog.scoring",
    "WinContext": "mjlog.scoring.base",
    "Method": "mjlog.scoring.base",
    # play
    "Agent": "mjlog.agent",
    "SeatView": "mjlog.agent",
    "GreedyAgent": "mjlog.agent",
    "RandomAgent": "mjlog.agent",
    "play_hand": "mjlog.engine",
    "play_match": "mjlog.engine",
    "HandState": "mjlog.state",
    "Event": "mjlog.events",
    # logs: read runs, replay and audit them
    "read_manifest": "mjlog.logio",
    "read_table": "mjlog.logio",
    "iter_hands": "mjlog.logio",
    "RunFiles": "mjlog.logio",
    "load_hand": "mjlog.replay",
    "Replay": "mjlog.replay",
    "audit_runs": "mjlog.audit",
    # errors
    "MjlogError": "mjlog.errors",
    "InputError": "mjlog.errors",
    "LogError": "mjlog.rundir",
}

__all__ = [
    "__version__",
    "parse",
    "parse_counts",
    "fmt",
    "shanten",
    "waits",
    "VARIANTS",
    "Rules",
    "resolve",
    "score",
    "WinContext",
    "Method",
    "Agent",
    "SeatView",
    "GreedyAgent",
    "RandomAgent",
    "play_hand",
    "play_match",
    "HandState",
    "Event",
    "read_manifest",
    "read_table",
    "iter_hands",
    "RunFiles",
    "load_hand",
    "Replay",
    "audit_runs",
    "MjlogError",
    "InputError",
    "LogError",
]


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'mjlog' has no attribute {name!r}")
    value = getattr(import_module(_API[name]), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # what type checkers and editors see
    from mjlog.agent import Agent, GreedyAgent, RandomAgent, SeatView
    from mjlog.audit import audit_runs
    from mjlog.engine import play_hand, play_match
    from mjlog.errors import InputError, MjlogError
    from mjlog.events import Event
    from mjlog.hand import shanten, waits
    from mjlog.logio import RunFiles, iter_hands, read_manifest, read_table
    from mjlog.replay import Replay, load_hand
    from mjlog.rules import VARIANTS, Rules, resolve
    from mjlog.rundir import LogError
    from mjlog.scoring import score
    from mjlog.scoring.base import Method, WinContext
    from mjlog.state import HandState
    from mjlog.tiles import fmt, parse, parse_counts
