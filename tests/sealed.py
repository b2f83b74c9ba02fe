"""Seal a run a test rewrote behind the writer's back (a table rewritten with pyarrow),
so that it loads: the one place in the tests that knows the manifest's form.

The readers refuse a run whose files are not those its manifest vouches for; a test
that changes a run's files on purpose (hostile strings, other transfers) seals it again
with :func:`seal`, as the writer would have. A test of a damaged file makes it with
:func:`damage`, vouched for by the manifest or not.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from mjlog import logio


def seal(run: Path, manifest: dict[str, Any] | None = None) -> str:
    """Rewrite ``run``'s manifest from ``manifest`` (else the one on disk): its run id
    recomputed from its arguments, its file entries from the files on disk
    (``logio.shard_entries``: sizes and hashes in whatever form the readers check), the
    run marker updated. Returns the run id."""
    if manifest is None:
        manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    meta = {k: manifest[k] for k in logio.RUN_ID_KEYS}
    extra = {
        k: v
        for k, v in manifest.items()
        if k not in meta and k not in ("run_id", "schema_version", "files")
    }
    shards = sorted(int(p.stem.rsplit("-", 1)[1]) for p in (run / "hands").glob("part-*.parquet"))
    events = manifest.get("events") != "none"
    files = [e for s in shards for e in logio.shard_entries(run, s, events=events)]
    new = logio.build_manifest(meta, files, **extra)
    logio.write_manifest(run, new)
    marker = run / ".run_id"
    if marker.is_file():
        rest = marker.read_text("utf-8").split(" ", 1)[1:]
        marker.write_text(" ".join([new["run_id"], *rest]), "utf-8")
    return new["run_id"]


def damage(f: Path, vouched_by: Path | None = None) -> Path:
    """Zero 40 bytes inside the Parquet file ``f``'s pages: a file its manifest's
    sha256 refuses; or, with ``vouched_by`` (the run holding ``f``), its manifest's
    entry for ``f`` rehashed to the damaged bytes, a file that passes the hash and only
    the Parquet reader can refuse. Returns ``f``."""
    data = bytearray(f.read_bytes())
    data[100:140] = bytes(40)
    f.write_bytes(bytes(data))
    if vouched_by is not None:
        path = f.relative_to(vouched_by).as_posix()
        m = json.loads((vouched_by / "manifest.json").read_text())
        (entry,) = [e for e in m["files"] if e["path"] == path]
        entry["sha256"] = hashlib.sha256(bytes(data)).hexdigest()
        (vouched_by / "manifest.json").write_text(json.dumps(m))
    return f
