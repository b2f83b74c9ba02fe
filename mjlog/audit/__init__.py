"""The auditor: check every hand of a run against the rules (docs/rules/README.md,
'What the auditor checks') and the log contract (docs/log-schema.md).

- :mod:`~mjlog.audit.checks`: one hand (the wall, dice and break, the seed, every
  event through the one checked step :meth:`HandState.try_apply
  <mjlog.state.HandState.try_apply>`);
- :mod:`~mjlog.audit.tables`: the hand's tables against its events and state;
- :mod:`~mjlog.audit.run_checks`: the manifest, the set of hands, the dealer
  sequence;
- :mod:`~mjlog.audit.runner`: :func:`audit_runs`, hands in chunks over worker
  processes;
- :mod:`~mjlog.audit.report`: :class:`Problem`, :class:`AuditResult` and
  :func:`write_report`.

A problem names the run, match, rotation, hand, seq, the Parquet file it was
read from, the check, what the log says and what the rules say. A file that
cannot be read is a problem naming the file, never a traceback.

>>> import tempfile
>>> from simulate.runner import RunSpec, simulate
>>> run = tempfile.mkdtemp()
>>> _ = simulate(RunSpec.build("yuxi", seed=1, matches=1, hands_per_match=2,
...                            agents=["greedy"] * 4), run, workers=1, progress=False)
>>> res = audit_runs([run])
>>> res.ok, res.hands
(True, 2)
"""

from __future__ import annotations

from mjlog.audit.checks import HandResult, RunContext, audit_hand
from mjlog.audit.report import AuditResult, Problem, write_report
from mjlog.audit.runner import audit_runs

__all__ = [
    "AuditResult",
    "HandResult",
    "Problem",
    "RunContext",
    "audit_hand",
    "audit_runs",
    "write_report",
]
