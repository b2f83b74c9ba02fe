"""Run directories you can trust: where a command may write, who owns a run being
written, and a manifest checked before a byte of the run is read.

Three promises, the first two kept here:

- **Raw data is immutable.** A *data directory* holds ``manifest.json`` or
  ``.run_id`` (a run) or ``sweep.json`` (a sweep). :func:`check_output` refuses
  any output path at or inside one; only ``simulate``, ``sweep`` and ``import``
  write there, into their own run, through :class:`RunClaim`.
- **One writer per run.** :class:`RunClaim` takes ``--out`` only when it is new,
  empty, or this same run being resumed. The ``.run_id`` marker is created
  exclusively (written aside, then hard-linked into place, which fails if it
  exists) and ``flock``-ed for the life of the run, so a second writer stops with
  one line instead of mixing two runs.
- **Readers verify the manifest.** That is :class:`mjlog.logio.RunFiles`, with
  the log readers; this module holds the safe-reading primitives it uses
  (:func:`read_json`, :func:`sha256_file`) and :class:`LogError`.

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from mjlog.errors import InputError, MjlogError
from mjlog.errors import cut as clip

__all__ = [
    "LogError",
    "MANIFEST",
    "MARKER",
    "RunClaim",
    "atomic_file",
    "check_claimable",
    "check_output",
    "data_dir_of",
    "duckdb_path",
    "naming",
    "open_output",
    "read_json",
    "removing_new_dirs",
    "sha256_file",
    "write_atomic",
]

MANIFEST = "manifest.json"
MARKER = ".run_id"
SWEEP = "sweep.json"
SWEEP_MARKER = ".sweep_id"
_DATA_MARKERS = (MANIFEST, MARKER, SWEEP, SWEEP_MARKER)
MAX_JSON_BYTES = 64 << 20  # a manifest of 10^6 shards is ~400 MB: far past any real run


class LogError(MjlogError):
    """A run directory, manifest or log file that cannot be read as the contract says."""


RunError = LogError  # the name this module raises under; one class for every reader


# ------------------------------------------------------------------ outputs


def _is_data_dir(p: Path) -> Path | None:
    for m in _DATA_MARKERS:
        if os.path.lexists(p / m):
            return p / m
    return None


def data_dir_of(path: str | os.PathLike[str]) -> Path | None:
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


def check_output(path: str | os.PathLike[str], option: str) -> Path:
    """``path`` if a command may write there: refuses a path at or inside a run or
    sweep directory (:class:`InputError`, one line)."""
    p = Path(path)
    for parent in Path(os.path.abspath(p)).parents:
        if os.path.exists(parent):
            if not parent.is_dir():
                raise InputError(
                    f"{option} {clip(str(path))}: {clip(str(parent))} is not a directory"
                )
            break
    owner = data_dir_of(p)
    if owner is not None:
        found = _is_data_dir(owner)
        kind = "run" if found is not None and found.name in (MANIFEST, MARKER) else "sweep"
        raise InputError(
            f"{option} {clip(str(path))} is inside the {kind} directory "
            f"{clip(str(owner))}: a {kind} is never written to; choose a path "
            f"outside it"
        )
    return p


def write_atomic(path: str | os.PathLike[str], data: str | bytes, option: str = "output") -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a
    rename, after :func:`check_output`: a crash leaves the old file or the new one,
    never half of either (:func:`open_output`)."""
    with open_output(path, option) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


@contextmanager
def open_output(
    path: str | os.PathLike[str], option: str = "output", text: bool = False
) -> Iterator[IO[Any]]:
    """A file to write the output ``path`` through, after :func:`check_output`: an
    :func:`atomic_file`, or, for a device or a pipe (``/dev/null``), the path itself
    (written to, never replaced). ``text``: UTF-8 text with ``\n`` line ends."""
    p = check_output(path, option)
    if p.is_dir():
        raise InputError(f"{option} {clip(str(path))} is a directory; give a file name")
    if p.exists() and not p.is_file():
        with naming(p), _open(p, text) as f:
            yield f
        return
    with atomic_file(p, text) as f:
        yield f


def replace_file(p: Path, raw: bytes) -> Path:
    """Put ``raw`` at ``p`` atomically, unchecked (the writer of a run uses it for
    the run's own manifest): :func:`atomic_file`."""
    with atomic_file(p) as f:
        f.write(raw)
    return p


@contextmanager
def atomic_file(p: Path, text: bool = False) -> Iterator[IO[Any]]:
    """A temporary file beside ``p`` (``.NAME.tmp-PID``) to write in the block;
    flushed to disk and renamed onto ``p`` when the block ends, removed when it
    fails, so that ``p`` is the old file or the new one, never half of either. An
    OSError that names no file (a full disk) names ``p`` (:func:`naming`)."""
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    try:
        with naming(p):
            with _open(tmp, text) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _open(p: Path, text: bool) -> IO[Any]:
    return open(p, "w", encoding="utf-8", newline="\n") if text else open(p, "wb")


@contextmanager
def naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """An OSError raised in the block that names no file names ``path``: a full
    disk shows on a write, which the kernel (and pyarrow) report without one.

    >>> import errno
    >>> try:
    ...     with naming("out/a.parquet"):
    ...         raise OSError(errno.ENOSPC, "Error writing bytes to file")
    ... except OSError as e:
    ...     print(e.filename, e.strerror, sep=": ")
    out/a.parquet: No space left on device
    """
    try:
        yield
    except OSError as e:
        if e.filename is None:
            e.filename = os.fspath(path)
            if e.errno:  # pyarrow's text wraps the kernel's: keep the kernel's
                e.strerror = os.strerror(e.errno)
        raise


@contextmanager
def removing_new_dirs(path: str | os.PathLike[str]) -> Iterator[None]:
    """When the block fails, remove directory ``path`` and those of its parents that
    did not exist when it began, each only while empty: a refused command leaves
    no folder it made, and never removes what another writer put there meanwhile."""
    top = None  # the outermost of them
    for p in (Path(path), *Path(path).parents):
        if os.path.lexists(p):
            break
        top = p
    try:
        yield
    except BaseException:
        for p in (Path(path), *Path(path).parents) if top is not None else ():
            try:
                p.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                break
            if p == top:
                break
        raise


def duckdb_path(path: str | os.PathLike[str]) -> str:
    """A file name DuckDB reads literally: its glob characters (``* ? [``) escaped as
    one-character classes, so ``run[1]`` never matches ``run1``."""
    return re.sub(r"([\[*?])", r"[\1]", os.fspath(path))


def sha256_file(path: str | os.PathLike[str]) -> str:
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


def check_claimable(
    out: str | os.PathLike[str],
    option: str = "--out",
    inside: str | os.PathLike[str] | None = None,
    marker: str = MARKER,
    manifest: str = MANIFEST,
) -> None:
    """The refusals of :class:`RunClaim` that need no run id (``RunError``, one
    line): ``out`` inside a run or sweep directory (but ``inside``), not a
    directory, or holding files but no run. For a writer that learns its run id
    only from its work (an import, from the hands' content): checked first, so
    that a hopeless ``out`` is refused before the work."""
    out = Path(out)
    inside = Path(inside).resolve() if inside is not None else None
    parent = data_dir_of(out.parent) if out.parent != out else None
    if parent is not None and parent.resolve() != inside:
        raise RunError(
            f"{option} {clip(str(out))} lies inside the data directory "
            f"{clip(str(parent))}; choose a path outside it"
        )
    if os.path.lexists(out) and not out.is_dir():
        raise RunError(f"{option} {clip(str(out))} exists and is not a directory")
    if (
        out.is_dir()
        and not os.path.lexists(out / marker)
        and not os.path.lexists(out / manifest)
        and any(not n.startswith(marker) for n in os.listdir(out))
    ):
        raise RunError(
            f"{option} {clip(str(out))} is not empty and holds no run: give a "
            f"new or empty directory"
        )


class RunClaim:
    """Own ``out`` as run ``run_id`` (with ``layout``) while it is written.

    Refuses (``RunError``, one line) an ``out`` that lies inside another run or
    sweep, that is not a directory, that holds anything while not being this
    run, or that another process is writing now. Use as a context manager; the
    lock is released on exit, the marker stays (it says whose shards these are).
    """

    def __init__(
        self,
        out: str | os.PathLike[str],
        run_id: str,
        layout: str,
        option: str = "--out",
        inside: str | os.PathLike[str] | None = None,
        marker: str = MARKER,
        manifest: str = MANIFEST,
        id_key: str = "run_id",
    ):
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

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _refuse(self, why: str) -> RunError:
        return RunError(f"{self.option} {clip(str(self.out))} {why}")

    def acquire(self) -> None:
        out = self.out
        check_claimable(out, self.option, self.inside, self.marker, self.manifest)
        marker = out / self.marker
        if out.is_dir():
            if not os.path.lexists(marker) and os.path.lexists(out / self.manifest):
                self._check_manifest_id()
        else:
            out.mkdir(parents=True, exist_ok=True)
            self.created = True
        content = f"{self.run_id} {self.layout}\n"
        tmp = out / f"{self.marker}.new-{os.getpid()}"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        to_close: int | None = fd  # unless the claim keeps it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with naming(marker):
                os.write(fd, content.encode())
                os.fsync(fd)
            try:
                os.link(tmp, marker)  # atomic and exclusive: fails if a marker exists
                self._fd, to_close = fd, None
            except FileExistsError:
                pass
        finally:
            tmp.unlink(missing_ok=True)
            if to_close is not None:
                os.close(to_close)
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
            raise self._refuse(
                f"has a marker {self.marker} that cannot be opened ({e.strerror})"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise self._refuse(f"has a {self.marker} that is not a regular file")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._refuse(
                    "is being written by another mjlog process right now; "
                    f"wait for it, or choose another {self.option}"
                ) from None
            head = os.pread(fd, 256, 0).decode("utf-8", "replace")
            have_id, _, have_layout = head.split("\n", 1)[0].strip().partition(" ")
            if have_id != self.run_id:
                raise self._refuse(
                    f"holds shards of run {clip(have_id, 40)}, not "
                    f"{self.run_id}: choose another {self.option}"
                )
            if have_layout and have_layout != self.layout:
                raise self._refuse(
                    f"holds shards of run {self.run_id} written with "
                    f"{have_layout}, not {self.layout}: choose another "
                    f"{self.option}"
                )
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
            raise self._refuse(
                f"holds run {clip(str(rid), 40)}, not {self.run_id}: choose another directory"
            )

    def record(
        self, shard: int, entries: list[dict[str, Any]], settled_from: str | None = None
    ) -> None:
        """Journal a finished shard's manifest entries in the marker (after its line
        of run id and layout), so a resumed run checks the shard against the hashes
        it was written with; ``settled_from``: the id of the run its hands were
        settled from (not played). Only the claim's holder writes here."""
        assert self._fd is not None, "record() needs the claim"
        doc: dict[str, Any] = {"shard": shard, "files": entries}
        if settled_from is not None:
            doc["settled_from"] = settled_from
        line = json.dumps(doc, sort_keys=True, allow_nan=False) + "\n"
        with naming(self.out / self.marker):
            os.write(self._fd, line.encode())
            os.fsync(self._fd)

    def _lines(self) -> list[dict[str, Any]]:
        """The shard lines journalled by :meth:`record`, in order; a torn last line (a
        writer killed mid-write) is ignored."""
        assert self._fd is not None, "journal() needs the claim"
        size = os.fstat(self._fd).st_size
        text = os.pread(self._fd, size, 0).decode("utf-8", "replace")
        out = []
        for line in text.splitlines()[1:]:
            try:
                d = json.loads(line)
                out.append({**d, "shard": int(d["shard"]), "files": list(d["files"])})
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def journal(self) -> dict[int, list[dict[str, Any]]]:
        """The shards journalled by :meth:`record` (this writer's and earlier ones')."""
        return {d["shard"]: d["files"] for d in self._lines()}

    def settled(self) -> dict[int, str]:
        """The journalled shards whose hands were settled from another run's play, each
        with that run's id (a shard journalled again, played, is not among them)."""
        out: dict[int, str] = {}
        for d in self._lines():
            out.pop(d["shard"], None)
            if isinstance(d.get("settled_from"), str):
                out[d["shard"]] = d["settled_from"]
        return out

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
