"""The hostile-input suite, writes (issue #38): a write is checked before it
starts, a full disk is one line naming the file with nothing half-written left,
and an import rerun into the run it wrote resumes or does nothing, as
``simulate`` does.

A full disk is injected in this process (click's runner): files opened for
writing under a folder fail on write with ENOSPC and no file name, as the
kernel reports it; pyarrow's writers fail as pyarrow does on a full disk.
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import os
import shutil
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests import bounded
from tests.hostile import refused, run

ROOT = Path(__file__).resolve().parents[2]
TWO_PASS = Path(__file__).parents[1] / "fixtures" / "import-two-pass"  # two shards by default
# what pyarrow raises when the disk is full (seen writing to /dev/full): no file named
ARROW_ENOSPC = (
    errno.ENOSPC,
    "Error writing bytes to file. Detail: [errno 28] No space left on device",
)


# ------------------------------------------------------------------ helpers


class _FullFile:
    """A file open for writing on a full disk: every write fails."""

    def __init__(self, f):
        self._f = f

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def full_disk(monkeypatch, root: Path) -> None:
    """Files opened for writing under ``root`` (by Python) fail on write (ENOSPC)."""
    real = io.open
    root = root.resolve()

    def fake_open(file, mode="r", *a, **k):
        f = real(file, mode, *a, **k)
        if isinstance(file, str | bytes | os.PathLike) and set(mode) & set("wax+"):
            p = Path(os.path.abspath(os.fsdecode(file)))
            if p == root or root in p.parents:
                return _FullFile(f)
        return f

    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr(builtins, "open", fake_open)


def arrow_full(monkeypatch, writer: type) -> None:
    """pyarrow's ``writer`` (a Parquet or an Arrow IPC writer) fails as on a full disk."""

    def write_table(self, *a, **k):
        raise OSError(*ARROW_ENOSPC)

    monkeypatch.setattr(writer, "write_table", write_table)


def stats(d: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under ``d``: inode, mtime and sha256 (a rewrite changes the first two)."""
    out = {}
    for p in sorted(d.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p.relative_to(d))] = (
                st.st_ino,
                st.st_mtime_ns,
                hashlib.sha256(p.read_bytes()).hexdigest(),
            )
    return out


def contents(d: Path) -> dict[str, str]:
    return {k: v[2] for k, v in stats(d).items()}


@pytest.fixture
def sources(tmp_path) -> list[Path]:
    """Two JSON-lines files whose hands make two shards (the keys restart)."""
    for n in ("a.jsonl", "b.jsonl"):
        shutil.copy(TWO_PASS / n, tmp_path / n)
    return [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]


def imported(sources: list[Path], out: Path, cwd: Path):
    return run(["import", *map(str, sources), "--out", str(out)], cwd, isolate=False)


# ------------------------------------------------------------------ write before check


def _finished_episode():
    from mjlog.env import MjlogEnv

    env = MjlogEnv("yuxi")
    env.reset(seed=3)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return env


@pytest.mark.parametrize(
    "names,needle",
    [
        (["a", "b", "c"], "4 names expected, 3 given"),
        (["a", "b", "c", "d", "e"], "4 names expected, 5 given"),
        ("abcd", "not a str"),
        (["a", "b", 3, "d"], "names[2]"),
    ],
)
def test_write_run_checks_the_names_before_writing(tmp_path, names, needle):
    """A wrong ``names`` is a ValueError before anything reaches the disk (it used
    to write a run that `mjlog validate` then rejected)."""
    env = _finished_episode()
    out = tmp_path / "nested" / "run"
    with pytest.raises(ValueError) as e:
        env.write_run(out, names=names)
    assert needle in str(e.value)
    assert os.listdir(tmp_path) == []
    env.write_run(out, names=["a", "b", "c", "d"])  # the right count is written
    assert run(["validate", str(out)], tmp_path, isolate=False).code == 0


# ------------------------------------------------------------------ a full disk


@pytest.fixture
def small_run(tmp_path_factory) -> Path:
    from simulate.runner import RunSpec, simulate

    out = tmp_path_factory.mktemp("small") / "run"
    simulate(RunSpec.build("yuxi", 1, 1, 2, ["greedy"]), out, workers=1, progress=False)
    return out


def test_a_full_disk_stops_report_in_one_line_naming_the_page(small_run, tmp_path, monkeypatch):
    import analysis.report

    # the page's content is not what is tested: a small one, made fast
    monkeypatch.setattr(analysis.report.plots, "figures", lambda t: {})
    monkeypatch.setattr(analysis.report, "render", lambda *a, **k: "<p>page</p>\n")
    out = tmp_path / "rep" / "sub"
    full_disk(monkeypatch, tmp_path)
    refused(
        ["report", str(small_run), "--out", str(out)],
        tmp_path,
        inputs=[small_run],
        needle=f"{out / 'index.html'}: No space left on device",
        isolate=False,
    )


@pytest.mark.parametrize("target", ["file", "device"])
def test_a_full_disk_stops_export_in_one_line_naming_the_file(
    small_run, tmp_path, monkeypatch, target
):
    """To a file (a temporary one renamed) and to a device written in place."""
    out = tmp_path / "h.jsonl"
    if target == "device":
        if not Path("/dev/full").is_char_device():
            pytest.skip("no /dev/full")
        out = Path("/dev/full")
    else:
        full_disk(monkeypatch, tmp_path)
    refused(
        ["export", str(small_run), "--out", str(out)],
        tmp_path,
        inputs=[small_run],
        needle=f"{out}: No space left on device",
        isolate=False,
    )


@pytest.mark.parametrize("where", ["spill", "publish"])
def test_a_full_disk_stops_import_in_one_line_naming_the_file(
    sources, tmp_path, monkeypatch, where
):
    """The disk fills while the hands are spilled, or while the shards are written
    into --out: one line naming the file, no spill, no --out, no temporary left."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow_full(
        monkeypatch, pa.ipc.RecordBatchStreamWriter if where == "spill" else pq.ParquetWriter
    )
    out = tmp_path / "x" / "run"
    res = refused(
        ["import", *map(str, sources), "--out", str(out)], tmp_path, inputs=sources, isolate=False
    )
    line = res.stderr.strip()
    assert line.endswith(": No space left on device"), line
    named = line.removeprefix("mjlog: error: ").rsplit(": ", 1)[0]
    # the spill lies beside --out, the shards inside it
    assert Path(named).is_relative_to(out if where == "publish" else out.parent), line
    assert ".tmp-" not in line and Path(named).suffix in (".parquet", ".arrows"), line


# ------------------------------------------------------------------ reruns


def test_rerun_of_a_finished_import_changes_nothing(sources, tmp_path):
    out = tmp_path / "run"
    first = imported(sources, out, tmp_path)
    assert first.code == 0, first.stderr
    before, names = stats(out), sorted(os.listdir(tmp_path))
    again = imported(sources, out, tmp_path)
    assert again.code == 0, again.stderr
    assert again.stdout == first.stdout
    assert stats(out) == before  # not a byte rewritten, not a file replaced
    assert sorted(os.listdir(tmp_path)) == names


def test_rerun_of_a_killed_import_completes_it_byte_for_byte(sources, tmp_path):
    """An import killed (SIGKILL: nothing cleaned up) after its first shard was
    written and while the second's files waited for their rename: the same command
    again ends with the bytes of an uninterrupted import, no temporary left."""
    out, ref = tmp_path / "run", tmp_path / "ref"
    script = (
        "import os, signal, sys\n"
        "real = os.replace\n"
        "def replace(src, dst, *a, **k):\n"
        "    if 'part-00001' in os.fspath(dst):\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return real(src, dst, *a, **k)\n"
        "os.replace = replace\n"
        "from mjlog.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    p = subprocess.run(
        bounded.python(120, "-c", script, "import", *map(str, sources), "--out", str(out)),
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=bounded.WALL,  # CPU-bounded: a busy machine cannot fail it
    )
    assert p.returncode == -signal.SIGKILL, p.stderr
    left = {str(q.relative_to(out)) for q in out.rglob("*") if q.is_file()}
    assert "hands/part-00000.parquet" in left and "manifest.json" not in left
    assert any(".tmp-" in q for q in left)  # the second shard's files, not renamed
    first = {k: v for k, v in stats(out).items() if "part-00000" in k}
    res = imported(sources, out, tmp_path)
    assert res.code == 0, res.stderr
    assert {k: v for k, v in stats(out).items() if "part-00000" in k} == first  # kept
    assert imported(sources, ref, tmp_path).code == 0
    assert contents(out) == contents(ref)
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "b.jsonl", "ref", "run"]  # no spill


def test_another_import_into_an_imported_run_is_refused(sources, tmp_path):
    out = tmp_path / "run"
    assert imported(sources[:1], out, tmp_path).code == 0
    refused(
        ["import", str(sources[1]), "--out", str(out)],
        tmp_path,
        inputs=[*sources, out],
        needle="holds",
        isolate=False,
    )


def test_import_into_a_folder_that_is_no_run_is_refused(sources, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    refused(
        ["import", *map(str, sources), "--out", str(out)],
        tmp_path,
        inputs=[*sources, out],
        needle="not empty",
        isolate=False,
    )
