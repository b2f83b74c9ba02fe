"""The manifest: written last, read first, and checked before any file is trusted.

``manifest.json`` holds the run's arguments (hashed into its ``run_id``), the
schema version and one entry per file: table, path, rows, bytes and sha256.

- **Writing**: :func:`build_manifest` from the entries :meth:`ShardWriter.close
  <mjlog.logio.writer.ShardWriter.close>` returned, then :func:`write_manifest`
  (atomic).
- **Reading, strictly**: :class:`RunFiles` checks the manifest's shape and field
  types, refuses duplicate entries, paths that are absolute, hold ``..`` or lead
  (through symlinks too) outside the run, files that are not regular (a FIFO
  would hang a reader), and files whose size or sha256 differ from their entry;
  hashes are checked lazily, once per file actually read. Every reader of
  :mod:`mjlog.logio` goes through it.
- **Checking, leniently**: :func:`verify_manifest` lists every problem of a run
  against its manifest (the auditor reports them all).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mjlog.errors import MjlogError
from mjlog.errors import cut as clip
from mjlog.logio.files import (
    check_file,
    file_entry,
    open_table,
    shard_path,
    shard_tables,
    table_files,
)
from mjlog.logio.ids import RUN_ID_KEYS, jsonable, run_id
from mjlog.rundir import MANIFEST, LogError, read_json, replace_file, sha256_file
from mjlog.schema import SCHEMA_VERSION, TABLES

if TYPE_CHECKING:
    from mjlog.rules import Rules

__all__ = [
    "MANIFEST",
    "RunFiles",
    "build_manifest",
    "manifest_files",
    "read_manifest",
    "shard_entries",
    "verify_manifest",
    "write_manifest",
]

TABLE_NAMES = tuple(TABLES)
PART = re.compile(r"part-(\d{5,})\.parquet")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


# ------------------------------------------------------------------ writing


def build_manifest(
    meta: Mapping[str, Any], files: Iterable[Mapping[str, Any]], **extra: Any
) -> dict[str, Any]:
    """A manifest: the run's ``meta``, its ``run_id``, the schema version and ``files``.

    ``files`` are the entries :meth:`ShardWriter.close` returned, for every
    shard; they are sorted by path. ``extra`` keys (say a creation time) are
    kept but never enter the run id.

    >>> meta = dict.fromkeys(RUN_ID_KEYS, 0)
    >>> m = build_manifest(meta, [{"table": "hands", "path": "hands/part-00000.parquet",
    ...                            "rows": 3, "sha256": "ab"}], created="today")
    >>> m["run_id"], m["schema_version"], len(m["files"]), m["created"]
    ('74080732d960c42d', 1, 1, 'today')
    """
    files = sorted((dict(f) for f in files), key=lambda f: f["path"])
    return {
        **meta,
        **extra,
        "run_id": run_id(meta),
        "schema_version": SCHEMA_VERSION,
        "files": files,
    }


def write_manifest(run_dir: str | os.PathLike[str], manifest: Mapping[str, Any]) -> Path:
    """Write ``manifest.json`` atomically (temporary file, then rename)."""
    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)
    text = json.dumps(
        manifest, indent=2, sort_keys=True, ensure_ascii=False, default=jsonable, allow_nan=False
    )
    return replace_file(run / MANIFEST, (text + "\n").encode("utf-8"))


def read_manifest(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """Read ``manifest.json`` as JSON only (no checks of its entries: that is
    :class:`RunFiles`); a missing, unreadable or malformed one raises
    :class:`LogError`, one line naming the file."""
    path = Path(run_dir) / MANIFEST
    if not os.path.lexists(path):
        raise LogError(f"{path}: no manifest (not a run directory, or the run never finished)")
    manifest = read_json(path, "manifest")
    if not isinstance(manifest, dict):
        raise LogError(f"{path}: expected a JSON object, found {type(manifest).__name__}")
    return manifest


def manifest_files(manifest: Mapping[str, Any], where: str = MANIFEST) -> list[dict[str, Any]]:
    """The file entries of a manifest, checked for shape."""
    files = manifest.get("files")
    if not isinstance(files, list):
        raise LogError(f"{where}: no 'files' list")
    for i, f in enumerate(files):
        if not (isinstance(f, dict) and {"table", "path", "rows", "sha256"} <= f.keys()):
            raise LogError(f"{where}: files[{i}] needs table, path, rows and sha256")
    return files


def verify_manifest(run_dir: str | os.PathLike[str], read_pages: bool = True) -> list[str]:
    """Problems with a run directory against its manifest; empty when all is well.

    Checks that every listed file exists with its row count, sha256 and the
    declared schema, that every shard has all its tables, and reports files in
    the table folders that the manifest does not list (temporary files too).
    ``read_pages`` False takes the row counts from the Parquet footers without
    decoding the data (for a caller that reads every file next, as the auditor).
    """
    run = Path(run_dir)
    try:
        manifest = read_manifest(run)
        files = manifest_files(manifest, str(run / MANIFEST))
    except LogError as e:
        return [str(e)]
    problems = []
    listed = set()
    shards: dict[str, set[str]] = {}
    for f in files:
        rel = f["path"]
        listed.add(rel)
        path = run / rel
        table = f["table"]
        if table not in TABLES or rel.split("/", 1)[0] != table:
            problems.append(f"{rel}: listed with unknown or mismatched table {table!r}")
            continue
        shards.setdefault(Path(rel).name, set()).add(table)
        if not path.is_file():
            problems.append(f"{rel}: listed in the manifest but missing")
            continue
        size = path.stat().st_size
        if isinstance(f.get("bytes"), int) and f["bytes"] != size:
            problems.append(f"{rel}: {size} bytes, the manifest says {f['bytes']}")
        digest = sha256_file(path)
        if digest != f["sha256"]:
            problems.append(f"{rel}: sha256 {digest[:12]}… differs from the manifest's")
        try:
            rows = (
                check_file(path, table) if read_pages else open_table(path, table).metadata.num_rows
            )
        except LogError as e:
            problems.append(str(e))
            continue
        if rows != f["rows"]:
            problems.append(f"{rel}: {rows} rows, the manifest says {f['rows']}")
    want_events = "events" in {t for ts in shards.values() for t in ts}
    for name, tables in sorted(shards.items()):
        missing = [t for t in shard_tables(want_events) if t not in tables]
        if missing:
            problems.append(f"shard {name}: the manifest lists no {', '.join(missing)} file")
    for rel in table_files(run):
        if rel not in listed:
            problems.append(f"{rel}: present but not listed in the manifest")
    return problems


def shard_entries(
    run_dir: str | os.PathLike[str], shard: int, events: bool = True
) -> list[dict[str, Any]]:
    """The manifest entries of a complete shard, computed from its files on disk.

    What :meth:`ShardWriter.close` returned, for a shard written by an earlier
    (resumed) invocation. A missing or unreadable file raises :class:`LogError`.
    """
    run = Path(run_dir)
    out = []
    for t in shard_tables(events):
        rel = shard_path(t, shard)
        path = run / rel
        if not path.is_file():
            raise LogError(f"{path}: missing (shard {shard} incomplete)")
        rows = open_table(path, t).metadata.num_rows
        out.append(file_entry(path, t, rel, rows))
    return out


# ------------------------------------------------------------------ the readers' check


def _want(cond: bool, where: Path, why: str) -> None:
    if not cond:
        raise LogError(f"{where}: {why}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_META_TYPES: dict[str, tuple[type, ...]] = {
    "variant": (str,),
    "rules": (dict,),
    "matches": (int,),
    "hands_per_match": (int,),
    "players": (int,),
    "agents": (list,),
    "duplicate": (bool,),
    "rng": (str, type(None)),
    "mjlog_version": (str,),
    "seed": (int, type(None)),
    "schema_version": (int,),
    "hands_per_shard": (int,),
    "events": (str,),
    "imported": (bool,),
    "content": (str,),
    "settled": (list,),
}


class RunFiles:
    """A run's manifest, checked, and its files, each verified before it is read.

    Opening checks the manifest's shape and types, every entry's path, kind and
    size (cheap: one ``stat`` per file). :meth:`files` and :meth:`file` check a
    file's sha256 the first time it is asked for (``hashes=False`` skips that, for
    data you trust: a file's size is still checked).
    """

    def __init__(self, run_dir: str | os.PathLike[str], hashes: bool = True, strict: bool = True):
        self.path = Path(run_dir)
        self.hashes = hashes
        # strict=False is the auditor's reading: it reports a missing file, a wrong
        # size or run id as findings of its own, and refuses only what is unsafe to read.
        self.strict = strict
        self._verified: set[str] = set()
        if not self.path.is_dir():
            raise LogError(f"{self.path}: no such run directory")
        mpath = self.path / MANIFEST
        if not os.path.lexists(mpath):
            raise LogError(f"{mpath}: no manifest (not a run directory, or the run never finished)")
        self.root = self.path.resolve()
        self._check_inside(mpath, MANIFEST)
        m = read_json(mpath, "manifest")
        self.manifest_path = mpath
        _want(isinstance(m, dict), mpath, f"expected a JSON object, found {type(m).__name__}")
        self.manifest: dict[str, Any] = m
        self._check_meta(m)
        self.entries: dict[str, dict[str, Any]] = {}
        self.by_table: dict[str, list[str]] = {t: [] for t in TABLE_NAMES}
        self.shards: dict[int, dict[str, str]] = {}
        files = m.get("files")
        _want(isinstance(files, list), mpath, "'files' must be a list of file entries")
        for i, f in enumerate(files):
            self._add_entry(i, f)
        for t in ("hands", "wins", "transfers"):
            _want(bool(self.by_table[t]) or not files, mpath, f"lists no {t} files")
        want = {t for t in TABLE_NAMES if self.by_table[t]}
        for shard, tables in sorted(self.shards.items()):
            missing = sorted(want - tables.keys())
            _want(not missing, mpath, f"shard {shard} lists no {', '.join(missing)} file")

    # -- the manifest ---------------------------------------------------------

    def _check_meta(self, m: Mapping[str, Any]) -> None:
        mpath = self.path / MANIFEST
        for k, types in _META_TYPES.items():
            if (
                k in m
                and not isinstance(m[k], types)
                or (k in m and types[0] is int and isinstance(m[k], bool))
            ):
                names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
                raise LogError(f"{mpath}: '{k}' must be {names}, not {clip(json.dumps(m[k]), 60)}")
        rid = m.get("run_id")
        _want(
            isinstance(rid, str) and bool(_HEX16.fullmatch(rid)),
            mpath,
            f"'run_id' must be 16 hex digits, not {clip(json.dumps(rid), 60)}",
        )
        if self.strict and all(k in m for k in RUN_ID_KEYS):
            try:
                want = run_id(m)
            except (MjlogError, TypeError, ValueError) as e:
                raise LogError(
                    f"{mpath}: the run's arguments cannot be hashed: {clip(str(e))}"
                ) from None
            _want(
                rid == want,
                mpath,
                f"run_id {rid} is not the hash of the run's arguments "
                f"({want}): the manifest was edited or belongs to another run",
            )

    def _check_inside(self, path: Path, rel: str) -> Path:
        try:
            real = path.resolve(strict=True)
        except FileNotFoundError:
            raise LogError(f"{path}: listed in the manifest but missing") from None
        except (OSError, RuntimeError) as e:  # a symlink loop
            raise LogError(f"{path}: cannot be resolved ({e})") from None
        _want(
            real == self.root or self.root in real.parents,
            path,
            "leads outside the run directory (a symlink?): refused",
        )
        st = os.stat(real)
        _want(stat.S_ISREG(st.st_mode), path, "not a regular file: refused")
        return real

    def _add_entry(self, i: int, f: Any) -> None:
        mpath = self.path / MANIFEST
        where = f"{mpath}: files[{i}]"
        if not isinstance(f, dict):
            raise LogError(f"{where} must be an object")
        for k, ok in (
            ("table", lambda v: isinstance(v, str)),
            ("path", lambda v: isinstance(v, str)),
            ("rows", lambda v: _is_int(v) and v >= 0),
            ("sha256", lambda v: isinstance(v, str) and _HEX64.fullmatch(v)),
        ):
            if not ok(f.get(k)):
                raise LogError(f"{where}: bad or missing '{k}' ({clip(json.dumps(f.get(k)), 60)})")
        if "bytes" in f and not (_is_int(f["bytes"]) and f["bytes"] >= 0):
            raise LogError(f"{where}: 'bytes' must be a non-negative integer")
        table, rel = f["table"], f["path"]
        if table not in TABLE_NAMES:
            raise LogError(
                f"{where}: unknown table {clip(table, 40)!r}; tables: {', '.join(TABLE_NAMES)}"
            )
        if os.path.isabs(rel) or "\\" in rel or "\0" in rel or ".." in rel.split("/"):
            raise LogError(
                f"{where}: path {clip(rel, 80)!r} is absolute or climbs out of the run: refused"
            )
        head, _, name = rel.partition("/")
        m = PART.fullmatch(name)
        if head != table or m is None:
            raise LogError(f"{where}: path {clip(rel, 80)!r} is not {table}/part-NNNNN.parquet")
        if rel in self.entries:
            raise LogError(f"{mpath}: {rel} is listed twice: refused (it would be counted twice)")
        shard = int(m.group(1))
        if table in self.shards.setdefault(shard, {}):
            raise LogError(f"{mpath}: shard {shard} lists two {table} files")
        path = self.path / rel
        if self.strict or os.path.lexists(path):
            real = self._check_inside(path, rel)
            size = os.stat(real).st_size
            if self.strict and "bytes" in f and f["bytes"] != size:
                raise LogError(f"{path}: {size} bytes, the manifest says {f['bytes']}")
        self.entries[rel] = f
        self.shards[shard][table] = rel
        self.by_table[table].append(rel)

    # -- the files ---------------------------------------------------------------

    def rules(self) -> Rules:
        """The run's resolved rules (:class:`mjlog.rules.Rules`); LogError when the
        manifest's variant or rules cannot be used."""
        from mjlog.rules import Rules

        m = self.manifest
        try:
            return Rules.recorded(m["variant"], m["rules"])
        except (KeyError, TypeError) as e:
            raise LogError(f"{self.manifest_path}: no usable variant/rules ({e})") from None

    @property
    def has_events(self) -> bool:
        return bool(self.by_table["events"])

    def verify(self, rel: str) -> Path:
        """The file of manifest path ``rel``, its sha256 checked once (LogError on a
        mismatch)."""
        path = self.path / rel
        if self.hashes and rel not in self._verified:
            try:
                digest = sha256_file(path)
            except OSError as e:
                raise LogError(f"{path}: cannot read: {e.strerror}") from None
            if digest != self.entries[rel]["sha256"]:
                raise LogError(
                    f"{path}: sha256 {digest[:12]}… differs from the manifest's "
                    f"{self.entries[rel]['sha256'][:12]}…: the file was changed "
                    f"after the run was written"
                )
            self._verified.add(rel)
        return path

    def files(self, table: str) -> list[Path]:
        """Every file of ``table`` in shard order, each verified."""
        if table not in self.by_table:
            raise LogError(f"unknown table {table!r}; tables: {', '.join(TABLE_NAMES)}")
        rels = [self.shards[s][table] for s in sorted(self.shards) if table in self.shards[s]]
        return [self.verify(r) for r in rels]

    def file(self, table: str, shard: int) -> Path:
        rel = self.shards.get(shard, {}).get(table)
        if rel is None:
            raise LogError(f"{self.manifest_path}: shard {shard} lists no {table} file")
        return self.verify(rel)

    def rows(self, table: str) -> int:
        return sum(self.entries[r]["rows"] for r in self.by_table[table])
