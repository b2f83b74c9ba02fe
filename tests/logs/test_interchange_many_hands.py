"""Many hands in one JSON-lines stream, one run for all (issue 20, item 1).

Export → import → export is byte-identical; run ids come from the content;
duplicate keys, a second ruleset and a clash of run ids are refused in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjlog.audit import audit_runs
from mjlog.cli import main
from mjlog.errors import InputError
from mjlog.interchange import export_lines, import_files, import_lines, import_sources
from mjlog.logio import RUN_ID_KEYS, LogError, read_table
from tests import bounded


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A duplicate xuezhan run: 2 matches x 2 hands x 4 rotations, events logged."""
    from simulate.runner import RunSpec, simulate

    out = tmp_path_factory.mktemp("many") / "run"
    simulate(
        RunSpec.build("xuezhan", 3, 2, 2, ["greedy", "random"] * 2, duplicate=True),
        out,
        workers=1,
        progress=False,
    )
    return out


def _export(run, tmp_path, name="all.jsonl", args=()):
    f = tmp_path / name
    r = CliRunner().invoke(main, ["export", str(run), *args, "--out", str(f)])
    assert r.exit_code == 0, r.output
    return f


def test_export_import_export_is_byte_identical(run, tmp_path):
    first = _export(run, tmp_path)
    text = first.read_text(encoding="utf-8")
    assert text.count('"format"') == 16
    r = CliRunner().invoke(main, ["import", str(first), "--out", str(tmp_path / "imp")])
    assert r.exit_code == 0, r.output
    assert "16 hands" in r.output
    second = _export(tmp_path / "imp", tmp_path, "again.jsonl")
    assert second.read_bytes() == first.read_bytes()
    res = audit_runs([tmp_path / "imp"], workers=1)
    assert res.problems == [], [p.line() for p in res.problems]
    # the hands rows are those of the source (run id aside)
    cols = ("match", "rotation", "hand", "dealer", "wall", "deltas", "next_dealer", "hand_seed")
    src = read_table(run, "hands", columns=list(cols)).to_pylist()
    assert read_table(tmp_path / "imp", "hands", columns=list(cols)).to_pylist() == src


def test_many_files_shards_and_selections(run, tmp_path):
    lines = list(export_lines(run))
    heads = [i for i, x in enumerate(lines) if x.startswith('{"format"')]
    a, b = lines[: heads[5]], lines[heads[5] :]
    (tmp_path / "a.jsonl").write_text("\n".join(a) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n\n".join(b) + "\n", encoding="utf-8")  # blank lines
    out = tmp_path / "ab"
    m = import_sources(
        [
            (
                str(tmp_path / n),
                (lambda n=n: enumerate((tmp_path / n).read_text(encoding="utf-8").split("\n"), 1)),
            )
            for n in ("a.jsonl", "b.jsonl")
        ],
        out,
        hands_per_shard=3,
    )
    assert sum(f["rows"] for f in m["files"] if f["table"] == "hands") == 16
    assert len({f["path"] for f in m["files"] if f["table"] == "hands"}) == 6  # 3 per shard
    assert m["source"] == {"files": ["a.jsonl", "b.jsonl"], "run": m["source"]["run"]}
    assert list(export_lines(out)) == lines  # layout aside, the same hands
    # same content, other layout and file names: the same run id
    assert (
        import_files([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], tmp_path / "ab2")["run_id"]
        == m["run_id"]
    )
    one = list(export_lines(run, hands=[(1, 2, 0)]))
    assert json.loads(one[0])["match"] == 1 and json.loads(one[0])["rotation"] == 2
    assert sum(x.startswith('{"format"') for x in export_lines(run, matches=[0])) == 8
    with pytest.raises(InputError, match="no hand 9:0"):
        list(export_lines(run, hands=[(9, 0, 0)]))


def test_run_id_follows_content(run, tmp_path):
    lines = list(export_lines(run, hands=[(0, 0, 0)]))
    m1 = import_lines(lines, tmp_path / "one")
    # the same hand, spaced and keyed differently: the same id
    same = [json.dumps(json.loads(x), indent=None, separators=(", ", ":  ")) for x in lines]
    assert import_lines(same, tmp_path / "same")["run_id"] == m1["run_id"]
    # two foreign hands without seed or source that differ only in a player's name
    head = json.loads(lines[0])
    head.update(seed=None, rng=None, hand_seed=None, source_run=None)
    head2 = dict(head, players=["x", *head["players"][1:]])
    ids = {
        import_lines([json.dumps(h)] + lines[1:], tmp_path / f"f{i}")["run_id"]
        for i, h in enumerate((head, head2))
    }
    assert len(ids) == 2


def test_duplicate_key_refused_naming_file_and_line(run, tmp_path):
    lines = list(export_lines(run, hands=[(0, 0, 0), (0, 0, 1)]))
    f = tmp_path / "dup.jsonl"
    f.write_text("\n".join(lines + lines[:3]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_files([f], tmp_path / "out")
    assert f"{f}:{len(lines) + 1}: hand 0:0 (rotation 0) is given twice" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_second_ruleset_refused(run, tmp_path):
    lines = list(export_lines(run, hands=[(0, 0, 0)]))
    head = json.loads(lines[0])
    head["rules"] = dict(head["rules"], cap=head["rules"]["cap"] * 2)
    head["hand"] = 5
    with pytest.raises(InputError, match="differ from those of the first hand"):
        import_lines(lines + [json.dumps(head)] + lines[1:], tmp_path / "out", name="x.jsonl")


def test_runs_refuses_one_id_two_contents(run, tmp_path):
    from analysis.queries import Runs

    lines = list(export_lines(run, hands=[(0, 0, 0)]))
    a = tmp_path / "a"
    import_lines(lines, a)
    b = tmp_path / "b"
    import_lines(lines, b)
    assert len(Runs([a, b]).runs) == 1  # the same content twice: counted once
    assert len(Runs([run, run]).runs) == 1
    # b's data replaced by other hands under a's id and manifest
    c = tmp_path / "c"
    import_lines(list(export_lines(run, hands=[(0, 0, 1)])), c)
    mb = json.loads((b / "manifest.json").read_text())
    mc = json.loads((c / "manifest.json").read_text())
    mc.update({k: mb[k] for k in (*RUN_ID_KEYS, "run_id", "content")})
    (c / "manifest.json").write_text(json.dumps(mc))
    with pytest.raises(LogError, match="different content"):
        Runs([a, c], verify_hashes=False)


def test_import_format_json_reports_the_written_run(run, tmp_path):
    f = _export(run, tmp_path)
    r = CliRunner().invoke(
        main, ["import", str(f), "--out", str(tmp_path / "imp"), "--format", "json"]
    )
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    manifest = json.loads((tmp_path / "imp" / "manifest.json").read_text())
    assert got["run_id"] == manifest["run_id"] and got["variant"] == "xuezhan"
    assert got["hands"] == 16 and got["out"] == str(tmp_path / "imp")


TWO_PASS = Path(__file__).parents[1] / "fixtures" / "import-two-pass"


def _fixture_sources(tmp_path, names=("a.jsonl", "b.jsonl")):
    return [
        (
            str(tmp_path / n),
            lambda n=n: enumerate((tmp_path / n).read_text(encoding="utf-8").split("\n"), 1),
        )
        for n in names
    ]


def test_one_pass_writes_what_the_two_pass_import_wrote(tmp_path):
    """The committed output of the two-pass import (tests/fixtures/README.md), byte
    for byte: the manifest (each file's sha256), the marker, the warnings."""
    for n in ("a.jsonl", "b.jsonl"):
        shutil.copy(TWO_PASS / n, tmp_path / n)
    out, warnings = tmp_path / "run", []
    m = import_sources(_fixture_sources(tmp_path), out, warn=warnings.append, hands_per_shard=2)
    want = TWO_PASS / "expected"
    assert (out / "manifest.json").read_bytes() == (want / "manifest.json").read_bytes()
    assert (out / ".run_id").read_bytes() == (want / "run_id.txt").read_bytes()
    for f in m["files"]:
        assert hashlib.sha256((out / f["path"]).read_bytes()).hexdigest() == f["sha256"]
    assert [w.replace(f"{tmp_path}/", "") for w in warnings] == (want / "warnings.txt").read_text(
        encoding="utf-8"
    ).splitlines()
    # the hand whose seed was derived before the second seed was read: 0
    seeds = read_table(out, "hands", columns=["match", "hand", "hand_seed"]).to_pylist()
    assert {"match": 1, "hand": 0, "hand_seed": 0} in seeds
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "b.jsonl", "run"]  # no spill left


def test_refusal_after_shards_were_spilled_leaves_nothing(tmp_path):
    """A repeated key read after shards were written (one hand each), into a new
    nested --out and into an empty one: both left as found, no spill beside them."""
    shutil.copy(TWO_PASS / "a.jsonl", tmp_path / "a.jsonl")
    text = (TWO_PASS / "a.jsonl").read_text(encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(text.split("\n", 1)[0] + "\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "x" / "y" / "run", tmp_path / "empty"):
        with pytest.raises(InputError) as e:
            import_sources(_fixture_sources(tmp_path), out, hands_per_shard=1)
        assert str(e.value).startswith(
            f"{tmp_path / 'b.jsonl'}:1: hand 0:0 (rotation 0) is given twice"
        )
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "b.jsonl", "empty"]
    assert os.listdir(tmp_path / "empty") == []


def test_a_bad_line_is_refused_before_a_value_the_log_cannot_hold(tmp_path):
    """As with two passes, every line is checked before a write error is told:
    a hand whose deltas overflow, then a bad line, refuses on the bad line."""
    lines = (TWO_PASS / "a.jsonl").read_text(encoding="utf-8").splitlines()
    head = [i for i, x in enumerate(lines) if x.startswith('{"format"')]
    hand = [lines[0]] + [
        json.dumps(
            {
                "seq": j,
                "type": "transfer",
                "seat": 0,
                "from_seat": j + 1,
                "kind": "win",
                "amount": 2**31 - 1,
            }
        )
        for j in range(3)
    ]
    with pytest.raises(InputError, match="cannot be written"):
        import_lines(hand, tmp_path / "one")
    with pytest.raises(InputError, match=r"^x\.jsonl:\d+: not JSON"):
        import_lines(hand + [lines[head[1]], "{oops"], tmp_path / "two", name="x.jsonl")
    assert sorted(os.listdir(tmp_path)) == []


def test_another_writer_claiming_out_meanwhile_keeps_its_files(tmp_path):
    """A writer that claims --out while the import reads (here: from inside the
    source) wins; the import stops in one line and removes nothing of it."""
    from mjlog.rundir import RunClaim

    lines = (TWO_PASS / "a.jsonl").read_text(encoding="utf-8").split("\n")
    out = tmp_path / "out"
    other = RunClaim(out, "0123456789abcdef", "hands_per_shard=1")

    def source():
        for i, line in enumerate(lines, 1):
            if i == 2:
                other.acquire()
                (out / "hands").mkdir()
            yield i, line

    try:
        with pytest.raises(LogError, match="being written by another mjlog process"):
            import_sources([("a.jsonl", source)], out)
        assert sorted(p.name for p in out.iterdir()) == [".run_id", "hands"]
    finally:
        other.release()
    assert sorted(os.listdir(tmp_path)) == ["out"]  # no spill left


@pytest.mark.parametrize("name", ["run", "r[1]*"])
def test_a_killed_imports_spill_is_swept_by_the_next_import(tmp_path, name):
    """An import killed mid-read (SIGKILL: no cleanup runs) leaves its spill beside
    --out; the next import to that --out removes it, and leaves alone a spill whose
    import still runs (its lock held)."""
    import fcntl
    import signal
    import subprocess
    import sys
    import time

    src = tmp_path / "a.jsonl"
    shutil.copy(TWO_PASS / "a.jsonl", src)
    script = (
        "import sys, time\n"
        "from mjlog.interchange import import_sources\n"
        "def lines():\n"
        f"    yield from enumerate(open({str(src)!r}, encoding='utf-8').read().split('\\n'), 1)\n"
        # held mid-read until killed, however slow the machine (a finite nap could
        # end before this test kills it, and the import finish and sweep its spill)
        f"    time.sleep({bounded.WALL})\n"
        f"import_sources([('a.jsonl', lines)], {str(tmp_path / name)!r})\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parents[2])
    try:
        deadline = time.monotonic() + bounded.WALL  # the sign of progress: the lock
        while not [
            d
            for d in tmp_path.iterdir()
            if d.name.startswith(f".{name}.import-") and (d / ".lock").exists()
        ]:
            assert p.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # some hands spilled
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    (killed,) = [d for d in tmp_path.iterdir() if d.name.startswith(f".{name}.import-")]
    live = tmp_path / f".{name}.import-live"
    live.mkdir()
    fd = os.open(live / ".lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        manifest = import_files([src], tmp_path / name)
    finally:
        os.close(fd)
    assert manifest["imported"] and (tmp_path / name / "manifest.json").exists()
    assert not killed.exists() and live.exists()
    assert sorted(os.listdir(tmp_path)) == sorted([live.name, "a.jsonl", name])


def test_the_progress_bar_counts_the_files_bytes(tmp_path, capsys, monkeypatch):
    """Importing files, the bar's total is their size, so it can tell the time left;
    it reaches it. Lines held in memory have no size: the bar counts hands."""
    import tqdm.auto

    ends = []  # where each bar stood when closed (close may be called twice)

    class Recorded(tqdm.auto.tqdm):
        def close(self):
            if not getattr(self, "recorded", False):
                self.recorded = True
                ends.append((self.n, self.total, self.unit))
            super().close()

    monkeypatch.setattr(tqdm.auto, "tqdm", Recorded)
    src = TWO_PASS / "a.jsonl"
    import_files([src], tmp_path / "run", progress=True)
    size = os.stat(src).st_size
    kib = f"{size / 1024:.1f}k"
    assert f"/{kib}" in capsys.readouterr().err  # the first frame shows the total
    assert ends == [(size, size, "B")]  # ASCII: characters are bytes
    lines = src.read_text(encoding="utf-8").split("\n")
    import_lines(lines, tmp_path / "again", progress=True)
    assert ends[1] == (sum('"format"' in x for x in lines), None, "hand")
