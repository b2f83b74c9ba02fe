"""Run directories you can trust: where a command may write, who owns a run being
written, and a manifest checked before a byte of the run is read.

Three promises, each kept in one place here:

- **Raw data is immutable.** A *data directory* holds ``manifest.json`` or
  ``.run_id`` (a run) or ``sweep.json`` (a sweep). :func:`check_output` refuses
  any output path at or inside one; only ``simulate``, ``sweep`` and ``import``
  write there, into their own run, through :class:`RunClaim`.
- **One writer per run.** :class:`RunClaim` takes ``--out`` only when it is new,
  empty, or this same run being resumed. The ``.run_id`` marker is created
  exclusively (written aside, then hard-linked into place, which fails if it
  exists) and ``flock``-ed for the life of the run, so a second writer stops with
  one line instead of mixing two runs.
- **Readers verify the manifest.** :class:`RunFiles` checks the manifest's shape
  and field types, refuses duplicate entries, paths that are absolute, hold
  ``..`` or lead (through symlinks too) outside the run, files that are not
  regular (a FIFO would hang a reader), and files whose size or sha256 differ
  from their entry; hashes are checked lazily, once per file actually read.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> (d / "run").mkdir(); _ = (d / "run" / "manifest.json").write_text("{}")
>>> check_output(d / "report.html", "--out") == d / "report.html"
True
>>> try:
...     check_output(d / "run" / "hands", "--out")
... except InputError as e:
...     print(str(e).split(": ", 1)[1])
a run is never written to; choose a path outside it
>>> duckdb_path("/data/run[1]/hands/part-00000.parquet")
'/data/run[[]1]/hands/part-00000.parquet'
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mjlog.errors import InputError, MjlogError
from mjlog.errors import cut as clip

__all__ = [
    "MANIFEST",
    "MARKER",
    "LogError",
    "RunClaim",
    "RunFiles",
    "check_output",
    "data_dir_of",
    "duckdb_path",
    "read_json",
    "sha256_file",
    "write_atomic",
]

MANIFEST = "manifest.json"
MARKER = ".run_id"
SWEEP = "sweep.json"
SWEEP_MARKER = ".sweep_id"
_DATA_MARKERS = (MANIFEST, MARKER, SWEEP, SWEEP_MARKER)
TABLE_NAMES = ("hands", "events", "wins", "transfers")
MAX_JSON_BYTES = 64 << 20  # a manifest of 10^6 shards is ~400 MB: far past any real run
_PART = re.compile(r"part-(\d{5,})\.parquet")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class LogError(MjlogError):
    """A run directory, manifest or log file that cannot be read as the contract says."""


RunError = LogError  # the name this module raises under; one class for every reader


# ------------------------------------------------------------------ outputs


def _is_data_dir(p: Path) -> Path | None:
    for m in _DATA_MARKERS:
        if os.path.lexists(p / m):
            return p / m
    return None


def data_dir_of(path: str | os.PathLike) -> Path | None:
    """The run or sweep directory that ``path`` is or lies in (symlinks resolved),
    or None.

    >>> data_dir_of("/") is None
    True
    """
    p = Path(os.path.abspath(path))
    for cand in (p, *p.parents, Path(os.path.realpath(p)), *Path(os.path.realpath(p)).parents):
        if cand.is_dir() and _is_data_dir(cand) is not None:
            return cand
    return None


def check_output(path: str | os.PathLike, option: str) -> Path:
    """``path`` if a command may write there: refuses a path at or inside a run or
    sweep directory (:class:`InputError`, one line)."""
    p = Path(path)
    for parent in Path(os.path.abspath(p)).parents:
        if os.path.exists(parent):
            if not parent.is_dir():
                raise InputError(f"{option} {clip(str(path))}: {clip(str(parent))} is not a "
                                 f"directory")
            break
    owner = data_dir_of(p)
    if owner is not None:
        kind = "run" if _is_data_dir(owner).name in (MANIFEST, MARKER) else "sweep"
        raise InputError(f"{option} {clip(str(path))} is inside the {kind} directory "
                         f"{clip(str(owner))}: a {kind} is never written to; choose a path "
                         f"outside it")
    return p


def write_atomic(path: str | os.PathLike, data: str | bytes, option: str = "output") -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a
    rename, after :func:`check_output`: a crash leaves the old file or the new one,
    never half of either."""
    p = check_output(path, option)
    if p.is_dir():
        raise InputError(f"{option} {clip(str(path))} is a directory; give a file name")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if p.exists() and not p.is_file():  # a device or a pipe (/dev/null): written to, kept
        with open(p, "wb") as f:
            f.write(raw)
        return p
    return replace_file(p, raw)


def replace_file(p: Path, raw: bytes) -> Path:
    """Put ``raw`` at ``p`` atomically, unchecked (the writer of a run uses it for
    the run's own manifest): a temporary file beside it, flushed, then renamed."""
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError) and e.filename is None:  # a full disk names no file
            e.filename = str(p)
        raise
    return p


def duckdb_path(path: str | os.PathLike) -> str:
    """A file name DuckDB reads literally: its glob characters (``* ? [``) escaped as
    one-character classes, so ``run[1]`` never matches ``run1``."""
    return re.sub(r"([\[*?])", r"[\1]", os.fspath(path))


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ------------------------------------------------------------------ JSON in


def read_json(path: Path, what: str = "JSON") -> Any:
    """A JSON file from a run, read safely: size-limited, UTF-8, no NaN or infinity,
    nesting or huge numbers refused with one line naming the file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise RunError(f"{path}: missing") from None
    except OSError as e:
        raise RunError(f"{path}: cannot read: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise RunError(f"{path}: not a regular file")
    if st.st_size > MAX_JSON_BYTES:
        raise RunError(f"{path}: {st.st_size} bytes, more than a {what} may hold")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunError(f"{path}: not UTF-8 ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise RunError(f"{path}: cannot read: {e.strerror}") from None

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        return json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise RunError(f"{path}: nested too deeply to be a {what}") from None
    except ValueError as e:  # JSONDecodeError, huge integers, NaN
        raise RunError(f"{path}: not valid JSON: {clip(str(e))}") from None


# ------------------------------------------------------------------ the writer's claim


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunClaim:
    """Own ``out`` as run ``run_id`` (with ``layout``) while it is written.

    Refuses (``RunError``, one line) an ``out`` that lies inside another run or
    sweep, that is not a directory, that holds anything while not being this
    run, or that another process is writing now. Use as a context manager; the
    lock is released on exit, the marker stays (it says whose shards these are).
    """

    def __init__(self, out: str | os.PathLike, run_id: str, layout: str,
                 option: str = "--out", inside: str | os.PathLike | None = None,
                 marker: str = MARKER, manifest: str = MANIFEST, id_key: str = "run_id"):
        self.out = Path(out)
        self.run_id = run_id
        self.layout = layout
        self.option = option
        self.inside = Path(inside).resolve() if inside is not None else None
        self.marker, self.manifest, self.id_key = marker, manifest, id_key
        self._fd: int | None = None
        self.created = False  # True when this claim made the directory

    def __enter__(self) -> RunClaim:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def _refuse(self, why: str) -> RunError:
        return RunError(f"{self.option} {clip(str(self.out))} {why}")

    def acquire(self) -> None:
        out = self.out
        parent = data_dir_of(out.parent) if out.parent != out else None
        if parent is not None and parent.resolve() != self.inside:
            raise self._refuse(f"lies inside the data directory {clip(str(parent))}; "
                               f"choose a path outside it")
        if os.path.lexists(out) and not out.is_dir():
            raise self._refuse("exists and is not a directory")
        marker = out / self.marker
        if out.is_dir():
            names = [n for n in os.listdir(out) if not n.startswith(self.marker)]
            if not os.path.lexists(marker):
                if self.manifest in names:
                    self._check_manifest_id()
                elif names:
                    raise self._refuse("is not empty and holds no run: give a new or "
                                       "empty directory")
        else:
            out.mkdir(parents=True, exist_ok=True)
            self.created = True
        content = f"{self.run_id} {self.layout}\n"
        tmp = out / f"{self.marker}.new-{os.getpid()}"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, content.encode())
            os.fsync(fd)
            try:
                os.link(tmp, marker)  # atomic and exclusive: fails if a marker exists
                self._fd, fd = fd, None
            except FileExistsError:
                pass
        finally:
            tmp.unlink(missing_ok=True)
            if fd is not None:
                os.close(fd)
        if self._fd is None:
            self._take_existing(marker)
        for stale in out.glob(f"{self.marker}.new-*"):  # left by a writer killed while claiming
            pid = stale.name.rsplit("-", 1)[-1]
            if pid.isdigit() and not _alive(int(pid)):
                stale.unlink(missing_ok=True)

    def _take_existing(self, marker: Path) -> None:
        try:
            fd = os.open(marker, os.O_RDWR | os.O_NOFOLLOW)
        except OSError as e:
            raise self._refuse(f"has a marker {self.marker} that cannot be opened "
                               f"({e.strerror})") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise self._refuse(f"has a {self.marker} that is not a regular file")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._refuse("is being written by another mjlog process right now; "
                                   f"wait for it, or choose another {self.option}") from None
            head = os.pread(fd, 256, 0).decode("utf-8", "replace")
            have_id, _, have_layout = head.split("\n", 1)[0].strip().partition(" ")
            if have_id != self.run_id:
                raise self._refuse(f"holds shards of run {clip(have_id, 40)}, not "
                                   f"{self.run_id}: choose another {self.option}")
            if have_layout and have_layout != self.layout:
                raise self._refuse(f"holds shards of run {self.run_id} written with "
                                   f"{have_layout}, not {self.layout}: choose another "
                                   f"{self.option}")
            if not have_layout:  # a marker from before layouts were recorded
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{self.run_id} {self.layout}\n".encode(), 0)
            os.lseek(fd, 0, os.SEEK_END)
            self._check_manifest_id()
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _check_manifest_id(self) -> None:
        path = self.out / self.manifest
        if not os.path.lexists(path):
            return
        m = read_json(path, self.manifest)
        rid = m.get(self.id_key) if isinstance(m, dict) else None
        if rid != self.run_id:
            raise self._refuse(f"holds run {clip(str(rid), 40)}, not {self.run_id}: choose "
                               f"another directory")

    def record(self, shard: int, entries: list[dict[str, Any]]) -> None:
        """Journal a finished shard's manifest entries in the marker (after its line
        of run id and layout), so a resumed run checks the shard against the hashes
        it was written with. Only the claim's holder writes here."""
        assert self._fd is not None, "record() needs the claim"
        line = json.dumps({"shard": shard, "files": entries}, sort_keys=True) + "\n"
        os.write(self._fd, line.encode())
        os.fsync(self._fd)

    def journal(self) -> dict[int, list[dict[str, Any]]]:
        """The shards journalled by :meth:`record` (this writer's and earlier ones');
        a torn last line (a writer killed mid-write) is ignored."""
        assert self._fd is not None, "journal() needs the claim"
        size = os.fstat(self._fd).st_size
        text = os.pread(self._fd, size, 0).decode("utf-8", "replace")
        out: dict[int, list[dict[str, Any]]] = {}
        for line in text.splitlines()[1:]:
            try:
                d = json.loads(line)
                out[int(d["shard"])] = list(d["files"])
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


# ------------------------------------------------------------------ the readers' check


def _want(cond: bool, where: Path, why: str) -> None:
    if not cond:
        raise RunError(f"{where}: {why}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_META_TYPES: dict[str, tuple[type, ...]] = {
    "variant": (str,), "rules": (dict,), "matches": (int,), "hands_per_match": (int,),
    "players": (int,), "agents": (list,), "duplicate": (bool,), "rng": (str, type(None)),
    "mjlog_version": (str,), "seed": (int, type(None)), "schema_version": (int,),
    "hands_per_shard": (int,), "events": (str,), "imported": (bool,),
    "content": (str,),
}


class RunFiles:
    """A run's manifest, checked, and its files, each verified before it is read.

    Opening checks the manifest's shape and types, every entry's path, kind and
    size (cheap: one ``stat`` per file). :meth:`files` and :meth:`file` check a
    file's sha256 the first time it is asked for (``hashes=False`` skips that, for
    data you trust: a file's size is still checked).
    """

    def __init__(self, run_dir: str | os.PathLike, hashes: bool = True, strict: bool = True):
        self.path = Path(run_dir)
        self.hashes = hashes
        # strict=False is the auditor's reading: it reports a missing file, a wrong
        # size or run id as findings of its own, and refuses only what is unsafe to read.
        self.strict = strict
        self._verified: set[str] = set()
        if not self.path.is_dir():
            raise RunError(f"{self.path}: no such run directory")
        mpath = self.path / MANIFEST
        if not os.path.lexists(mpath):
            raise RunError(f"{mpath}: no manifest (not a run directory, or the run never "
                           f"finished)")
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
            if k in m and not isinstance(m[k], types) or (
                    k in m and types[0] is int and isinstance(m[k], bool)):
                names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
                raise RunError(f"{mpath}: '{k}' must be {names}, not "
                               f"{clip(json.dumps(m[k]), 60)}")
        rid = m.get("run_id")
        _want(isinstance(rid, str) and bool(_HEX16.fullmatch(rid)), mpath,
              f"'run_id' must be 16 hex digits, not {clip(json.dumps(rid), 60)}")
        from mjlog.logio import RUN_ID_KEYS, run_id  # logio imports this module

        if self.strict and all(k in m for k in RUN_ID_KEYS):
            try:
                want = run_id(m)
            except (MjlogError, TypeError, ValueError) as e:
                raise RunError(f"{mpath}: the run's arguments cannot be hashed: "
                               f"{clip(str(e))}") from None
            _want(rid == want, mpath, f"run_id {rid} is not the hash of the run's arguments "
                  f"({want}): the manifest was edited or belongs to another run")

    def _check_inside(self, path: Path, rel: str) -> Path:
        try:
            real = path.resolve(strict=True)
        except FileNotFoundError:
            raise RunError(f"{path}: listed in the manifest but missing") from None
        except (OSError, RuntimeError) as e:  # a symlink loop
            raise RunError(f"{path}: cannot be resolved ({e})") from None
        _want(real == self.root or self.root in real.parents, path,
              "leads outside the run directory (a symlink?): refused")
        st = os.stat(real)
        _want(stat.S_ISREG(st.st_mode), path, "not a regular file: refused")
        return real

    def _add_entry(self, i: int, f: Any) -> None:
        mpath = self.path / MANIFEST
        where = f"{mpath}: files[{i}]"
        if not isinstance(f, dict):
            raise RunError(f"{where} must be an object")
        for k, ok in (("table", lambda v: isinstance(v, str)),
                      ("path", lambda v: isinstance(v, str)),
                      ("rows", lambda v: _is_int(v) and v >= 0),
                      ("sha256", lambda v: isinstance(v, str) and _HEX64.fullmatch(v))):
            if not ok(f.get(k)):
                raise RunError(f"{where}: bad or missing '{k}' "
                               f"({clip(json.dumps(f.get(k)), 60)})")
        if "bytes" in f and not (_is_int(f["bytes"]) and f["bytes"] >= 0):
            raise RunError(f"{where}: 'bytes' must be a non-negative integer")
        table, rel = f["table"], f["path"]
        if table not in TABLE_NAMES:
            raise RunError(f"{where}: unknown table {clip(table, 40)!r}; tables: "
                           f"{', '.join(TABLE_NAMES)}")
        if os.path.isabs(rel) or "\\" in rel or "\0" in rel or ".." in rel.split("/"):
            raise RunError(f"{where}: path {clip(rel, 80)!r} is absolute or climbs out of "
                           f"the run: refused")
        head, _, name = rel.partition("/")
        m = _PART.fullmatch(name)
        if head != table or m is None:
            raise RunError(f"{where}: path {clip(rel, 80)!r} is not "
                           f"{table}/part-NNNNN.parquet")
        if rel in self.entries:
            raise RunError(f"{mpath}: {rel} is listed twice: refused (it would be counted "
                           f"twice)")
        shard = int(m.group(1))
        if table in self.shards.setdefault(shard, {}):
            raise RunError(f"{mpath}: shard {shard} lists two {table} files")
        path = self.path / rel
        if self.strict or os.path.lexists(path):
            real = self._check_inside(path, rel)
            size = os.stat(real).st_size
            if self.strict and "bytes" in f and f["bytes"] != size:
                raise RunError(f"{path}: {size} bytes, the manifest says {f['bytes']}")
        self.entries[rel] = f
        self.shards[shard][table] = rel
        self.by_table[table].append(rel)

    # -- the files ---------------------------------------------------------------

    def rules(self):
        """The run's resolved rules (:class:`mjlog.rules.Rules`); LogError when the
        manifest's variant or rules cannot be used."""
        from mjlog.rules import Rules

        m = self.manifest
        try:
            return Rules(m["variant"], m["rules"])
        except (KeyError, TypeError) as e:
            raise LogError(f"{self.manifest_path}: no usable variant/rules ({e})") from None

    @property
    def has_events(self) -> bool:
        return bool(self.by_table["events"])

    def verify(self, rel: str) -> Path:
        """The file of manifest path ``rel``, its sha256 checked once (RunError on a
        mismatch)."""
        path = self.path / rel
        if self.hashes and rel not in self._verified:
            try:
                digest = sha256_file(path)
            except OSError as e:
                raise RunError(f"{path}: cannot read: {e.strerror}") from None
            if digest != self.entries[rel]["sha256"]:
                raise RunError(f"{path}: sha256 {digest[:12]}… differs from the manifest's "
                               f"{self.entries[rel]['sha256'][:12]}…: the file was changed "
                               f"after the run was written")
            self._verified.add(rel)
        return path

    def files(self, table: str) -> list[Path]:
        """Every file of ``table`` in shard order, each verified."""
        if table not in self.by_table:
            raise RunError(f"unknown table {table!r}; tables: {', '.join(TABLE_NAMES)}")
        rels = sorted(self.by_table[table], key=lambda r: int(_PART.fullmatch(
            r.split("/", 1)[1]).group(1)))
        return [self.verify(r) for r in rels]

    def file(self, table: str, shard: int) -> Path:
        rel = self.shards.get(shard, {}).get(table)
        if rel is None:
            raise RunError(f"{self.manifest_path}: shard {shard} lists no {table} file")
        return self.verify(rel)

    def rows(self, table: str) -> int:
        return sum(self.entries[r]["rows"] for r in self.by_table[table])
