"""The log's I/O: write and read run directories, shards of four Parquet tables
and a manifest. The one log reader of mjlog: every command, the auditor and the
analysis read runs through here.

The contract is docs/log-schema.md; the schemas are declared in :mod:`mjlog.schema`.

- :mod:`~mjlog.logio.files`: where a shard's files go (:func:`shard_path`), and
  :func:`check_file`, which opens one file and checks its schema and pages;
- :mod:`~mjlog.logio.ids`: the run's id, the hash of its arguments (:func:`run_id`);
- :mod:`~mjlog.logio.writer`: :class:`ShardWriter`, one shard written atomically
  (:class:`SpilledShard`, one written before its run id is known), and
  :func:`hand_records`, the rows of a played hand;
- :mod:`~mjlog.logio.manifest`: :func:`build_manifest` and :func:`write_manifest`;
  :class:`RunFiles`, the manifest checked before any file is read;
  :func:`verify_manifest`, every problem of a run against its manifest;
- :mod:`~mjlog.logio.readers`: :func:`read_table` and :func:`iter_hands`;
- :mod:`~mjlog.logio.shards`: a shard read whole, keyed by hand (the auditor's
  reader), on the fast column decoding of :mod:`~mjlog.logio.columns`.

Identical input gives byte-identical files. Every problem with a file (not
Parquet, truncated, corrupt, a missing column, a wrong type) raises
:class:`LogError`, one line naming the file.

>>> run_id({"variant": "yuxi", "rules": {"cap": 32}, "seed": 1, "matches": 2,
...         "hands_per_match": 8, "players": 4, "agents": [{"name": "greedy"}] * 4,
...         "duplicate": False, "rng": "pcg64-v1", "mjlog_version": "0.1.0"})
'43da3cbb71b40b25'
>>> shard_path("events", 3)
'events/part-00003.parquet'
"""

from __future__ import annotations

from mjlog.logio.files import (
    check_file,
    file_entry,
    remove_temporaries,
    shard_complete,
    shard_path,
)
from mjlog.logio.ids import CONTENT_KEY, RUN_ID_KEYS, canonical_json, run_id
from mjlog.logio.manifest import (
    MANIFEST,
    RunFiles,
    build_manifest,
    manifest_files,
    read_manifest,
    shard_entries,
    verify_manifest,
    write_manifest,
)
from mjlog.logio.readers import HandBundle, iter_hands, read_table
from mjlog.logio.writer import (
    EVENT_COLUMNS,
    ShardWriter,
    SpilledShard,
    hand_records,
    write_options,
)
from mjlog.rundir import LogError
from mjlog.schema import check_schema

__all__ = [
    "CONTENT_KEY",
    "EVENT_COLUMNS",
    "MANIFEST",
    "RUN_ID_KEYS",
    "HandBundle",
    "LogError",
    "RunFiles",
    "ShardWriter",
    "SpilledShard",
    "build_manifest",
    "canonical_json",
    "check_file",
    "check_schema",
    "file_entry",
    "hand_records",
    "iter_hands",
    "manifest_files",
    "read_manifest",
    "read_table",
    "remove_temporaries",
    "run_id",
    "shard_complete",
    "shard_entries",
    "shard_path",
    "verify_manifest",
    "write_manifest",
    "write_options",
]
