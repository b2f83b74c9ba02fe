"""Invariants every variant's engine must keep after every event (STYLE.md).

Used by ``tests/agents/test_conformance.py``. The checks are :mod:`mjlog.conformance`
(importable by a plugin author's tests too); this module keeps the name
``tests.conformance`` for the suite's imports.
"""

from __future__ import annotations

from mjlog.conformance import check_state, play_checked, tiles_in_play

__all__ = ["check_state", "play_checked", "tiles_in_play"]
