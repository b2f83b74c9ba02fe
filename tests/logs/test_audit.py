"""The auditor and ``mjlog validate``: clean runs pass, bad files are findings named
by file (never a traceback), run-level checks, --events none runs, parallel =
serial, and the JSON-lines import/export round trip."""

from __future__ import annotations

import json
import shutil
from operator import itemgetter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mjlog import audit as audit_mod
from mjlog.audit import audit_runs, write_report
from mjlog.audit import runner as audit_runner
from mjlog.cli import main
from mjlog.errors import InputError
from mjlog.interchange import export_hand, import_lines
from mjlog.ledger import WIN_TOTAL_REASONS
from mjlog.logio import read_manifest, read_table, run_id, write_manifest
from mjlog.tiles import fmt_tile, parse
from tests import auditruns as ar


def _copy(name: str, tmp_path: Path, **extra) -> Path:
    dst = tmp_path / name
    shutil.copytree(ar.run(name, **extra), dst)
    return dst


def _checks(res):
    return [p.check for p in res.problems]


def _rewrite(run: Path, table: str, fn) -> None:
    """Rewrite a table file through ``fn(pylist rows) -> rows`` (same schema)."""
    path = run / table / "part-00000.parquet"
    tab = pq.read_table(path)
    rows = fn(tab.to_pylist())
    pq.write_table(pa.Table.from_pylist(rows, schema=tab.schema), path)


# ------------------------------------------------------------------ clean runs


def test_clean_runs_pass_and_count():
    runs = [ar.run(v) for v in ar.VARIANT_RUNS]
    res = audit_runs(runs, workers=1)
    assert res.problems == []
    assert res.runs == len(runs)
    hands = sum(read_table(r, "hands", columns=["n_events"]).num_rows for r in runs)
    events = sum(
        sum(read_table(r, "hands", columns=["n_events"]).column(0).to_pylist()) for r in runs
    )
    assert (res.hands, res.events) == (hands, events)


def test_parallel_equals_serial(monkeypatch, tmp_path):
    monkeypatch.setattr(audit_runner, "BATCH_HANDS", 5)  # several chunks per shard
    run = _copy("xuezhan", tmp_path)
    _rewrite(run, "wins", lambda rows: [dict(r, points=r["points"] + 1) for r in rows])
    one = audit_runs([run], workers=1)
    two = audit_runs([run], workers=2)
    assert [p.line() for p in one.problems] == [p.line() for p in two.problems]
    assert (one.hands, one.events) == (two.hands, two.events)
    assert "win_points" in _checks(one)


def test_validate_cli_clean_and_report(tmp_path):
    report = tmp_path / "audit.jsonl"
    r = CliRunner().invoke(
        main, ["validate", str(ar.run("huangmei")), "--workers", "1", "--report", str(report)]
    )
    assert r.exit_code == 0, r.output
    assert "problems 0" in r.output
    assert report.read_text() == ""


def test_validate_cli_problems_exit_1_csv(tmp_path):
    run = _copy("huangmei", tmp_path)
    _rewrite(
        run,
        "hands",
        lambda rows: [
            dict(r, next_dealer=(r["next_dealer"] + 1) % 4) if i == 2 else r
            for i, r in enumerate(rows)
        ],
    )
    report = tmp_path / "audit.csv"
    r = CliRunner().invoke(main, ["validate", str(run), "--workers", "1", "--report", str(report)])
    assert r.exit_code == 1, r.output
    text = report.read_text()
    assert text.startswith("level,run,run_id,match,rotation,hand,seq,check,log,rules,file")
    assert "next_dealer" in text and "manifest_files" in text
    assert "Traceback" not in r.output


def test_validate_refuses_report_inside_run(tmp_path):
    run = _copy("huangmei3", tmp_path)
    r = CliRunner().invoke(main, ["validate", str(run), "--report", str(run / "a.jsonl")])
    assert r.exit_code == 2
    assert not (run / "a.jsonl").exists()


# ------------------------------------------------------------------ bad files


@pytest.mark.parametrize(
    "damage", ["truncate", "garbage", "drop_column", "wrong_type", "missing_file", "not_parquet"]
)
def test_bad_file_is_a_finding_named_by_file(tmp_path, damage):
    run = _copy("huangmei3", tmp_path)
    path = run / "wins" / "part-00000.parquet"
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:300])
    elif damage == "garbage":
        data = bytearray(path.read_bytes())
        data[200:260] = b"\x00" * 60
        path.write_bytes(bytes(data))
    elif damage == "drop_column":
        tab = pq.read_table(path)
        pq.write_table(tab.drop(["points"]), path)
    elif damage == "wrong_type":
        tab = pq.read_table(path)
        i = tab.schema.get_field_index("fan")
        pq.write_table(tab.set_column(i, "fan", tab.column(i).cast(pa.float64())), path)
    elif damage == "missing_file":
        path.unlink()
    else:
        path.write_text("hello")
    res = audit_runs([run], workers=1)
    assert res.problems
    assert all(
        p.file == "wins/part-00000.parquet"
        for p in res.problems
        if p.check in ("manifest_files", "read_error")
    ), [p.line() for p in res.problems]
    assert any(p.file == "wins/part-00000.parquet" for p in res.problems)
    r = CliRunner().invoke(main, ["validate", str(run), "--report", str(tmp_path / "r.jsonl")])
    assert r.exit_code == 1 and r.exception is None or isinstance(r.exception, SystemExit)
    assert "Traceback" not in r.output


def test_manifest_missing_or_broken(tmp_path):
    run = _copy("huangmei3", tmp_path)
    (run / "manifest.json").write_text("{not json")
    res = audit_runs([run], workers=1)
    assert _checks(res) == ["manifest"]
    assert res.problems[0].file == "manifest.json"
    res = audit_runs([tmp_path / "nowhere"], workers=1)
    assert _checks(res) == ["manifest"]


def test_manifest_rules_and_run_id(tmp_path):
    run = _copy("huangmei3", tmp_path)
    m = read_manifest(run)
    m["rules"] = dict(m["rules"], min_fan=3)  # a valid value, but not the run's id
    write_manifest(run, m)
    assert "manifest_run_id" in _checks(audit_runs([run], workers=1))
    m["rules"] = dict(m["rules"], nonsense=1)
    write_manifest(run, m)
    res = audit_runs([run], workers=1)
    assert _checks(res) == ["manifest_rules"]


def test_foreign_rng_is_not_checked(tmp_path):
    run = _copy("huangmei3", tmp_path)
    m = read_manifest(run)
    m["rng"] = "someone-elses/9"
    m["run_id"] = run_id(m)
    write_manifest(run, m)
    res = audit_runs([run], workers=1)
    # only the id columns, written under the old id, disagree; the seed is not checked
    assert set(_checks(res)) == {"hand_ids"}
    assert any(n.check == "seed" and "not checked" in n.rules for n in res.notes)


def test_seed_reproduces_the_wall(tmp_path):
    run = _copy("huangmei3", tmp_path)
    m = read_manifest(run)
    m["seed"] += 1
    m["run_id"] = run_id(m)
    write_manifest(run, m)
    checks = set(_checks(audit_runs([run], workers=1)))
    assert {"hand_seed", "first_dealer"} <= checks or {"hand_seed", "seed_wall"} <= checks


def test_hand_set_and_dealer_sequence(tmp_path):
    run = _copy("huangmei", tmp_path)
    _rewrite(run, "hands", lambda rows: [r for r in rows if (r["match"], r["hand"]) != (1, 3)])
    res = audit_runs([run], workers=1)
    assert {"hand_set", "orphan_rows"} <= set(_checks(res))
    orphan = next(p for p in res.problems if p.check == "orphan_rows")
    assert "(1, 0, 3)" in orphan.log and orphan.file.endswith("part-00000.parquet")
    assert res.hands == 15
    run = _copy("xuezhan", tmp_path / "b")
    # hand 2's dealer no longer follows hand 1's next_dealer (and its break breaks too)
    _rewrite(
        run,
        "hands",
        lambda rows: [
            dict(r, dealer=(r["dealer"] + 1) % 4) if (r["match"], r["hand"]) == (1, 2) else r
            for r in rows
        ],
    )
    res = audit_runs([run], workers=1)
    seq = [p for p in res.problems if p.check == "dealer_sequence"]
    assert [(p.match, p.hand) for p in seq] == [(1, 2)]


def test_duplicate_run_dealer_rule():
    run = ar.run("huangmei3", duplicate=True)
    res = audit_runs([run], workers=1)
    assert res.problems == []
    assert res.hands == 2 * 3 * 3


def test_write_report_jsonl(tmp_path):
    b = ar.bundles("huangmei")[1]
    b[2][0]["fan"] += 1 if b[2] else 0
    res = audit_mod.AuditResult()
    res.problems = audit_mod.audit_hand(ar.context("huangmei"), *b).problems
    p = write_report(tmp_path / "r.jsonl", res)
    rows = [json.loads(x) for x in p.read_text().splitlines()]
    assert all(
        {"run", "match", "rotation", "hand", "seq", "check", "log", "rules"} <= r.keys()
        for r in rows
    )


# ------------------------------------------------------------------ no events


def test_events_none_run_is_audited_for_what_it_has(tmp_path):
    run = ar.run("yuxi", events=False)
    assert not (run / "events").exists()
    res = audit_runs([run], workers=1)
    assert res.problems == [] and res.events == 0
    assert any(n.check == "events" and "not logged" in n.rules for n in res.notes)
    bad = _copy("yuxi", tmp_path, events=False)
    rows = read_table(bad, "hands").to_pylist()
    target = next(i for i, r in enumerate(rows) if r["winners"])
    _rewrite(
        bad,
        "hands",
        lambda rows: [
            dict(
                r,
                deltas=[r["deltas"][0] + 1] + r["deltas"][1:],
                next_dealer=(r["next_dealer"] + 1) % 4,
            )
            if i == target
            else r
            for i, r in enumerate(rows)
        ],
    )
    _rewrite(
        bad,
        "wins",
        lambda rows: [dict(r, total=r["total"] + 1) if i == 0 else r for i, r in enumerate(rows)],
    )
    checks = set(_checks(audit_runs([bad], workers=1)))
    assert {"hand_deltas", "next_dealer", "win_total"} <= checks


@pytest.mark.parametrize(("name", "counts"), [("yuxi", True), ("xuezhan", False)])
def test_win_total_counts_the_ledgers_reasons(tmp_path, name, counts):
    """A win's total is its later transfers whose reason is one of
    mjlog.ledger.WIN_TOTAL_REASONS: a yuxi horse payment counts; xuezhan's
    end-of-wall money to a winner (flower pig, not ready, tax refund) does not."""
    bad = _copy(name, tmp_path, events=False)
    key = itemgetter("match", "rotation", "hand")
    wins = read_table(bad, "wins").to_pylist()
    rows = read_table(bad, "transfers").to_pylist()
    target = next(
        i
        for i, t in enumerate(rows)
        if (t["reason"] in WIN_TOTAL_REASONS) == counts
        and t["reason"] != "win"
        and any(key(w) == key(t) and w["seat"] == t["payee"] and w["seq"] < t["seq"] for w in wins)
    )
    _rewrite(
        bad,
        "transfers",
        lambda rows: [
            dict(r, amount=r["amount"] + 1) if i == target else r for i, r in enumerate(rows)
        ],
    )
    found = {
        (p.check, (p.match, p.rotation, p.hand)) for p in audit_runs([bad], workers=1).problems
    }
    assert ("hand_deltas", key(rows[target])) in found  # the change is seen
    assert (("win_total", key(rows[target])) in found) == counts


@pytest.mark.parametrize("tables", [("transfers",), ("transfers", "events")])
def test_a_wrong_win_transfer_is_set_against_what_the_rules_say(tmp_path, tables):
    """A win transfer's amount changed in the Parquet (in the transfers table, or in
    it and its transfer event): the follow-up win_total and hand_deltas findings quote
    what the rules say, recomputed by replaying the hand, never the log's wrong sum."""
    bad = _copy("yuxi", tmp_path)
    key = itemgetter("match", "rotation", "hand")
    rows = read_table(bad, "transfers").to_pylist()
    i = next(i for i, t in enumerate(rows) if t["reason"] == "win")
    tr = rows[i]
    win = max(
        (
            w
            for w in read_table(bad, "wins").to_pylist()
            if key(w) == key(tr) and w["seat"] == tr["payee"] and w["seq"] < tr["seq"]
        ),
        key=itemgetter("seq"),
    )
    hand = next(h for h in read_table(bad, "hands").to_pylist() if key(h) == key(tr))
    for table in tables:
        _rewrite(
            bad,
            table,
            lambda rs: [
                dict(r, amount=r["amount"] + 5)
                if key(r) == key(tr) and r["seq"] == tr["seq"]
                else r
                for r in rs
            ],
        )
    found = {
        p.check: p
        for p in audit_runs([bad], workers=1).problems
        if (p.match, p.rotation, p.hand) == key(tr)
    }
    first = "transfer" if "events" in tables else "transfers_table"
    assert f"{tr['amount'] + 5} (win)" in found[first].log
    total = found["win_total"]
    assert total.rules.split()[0] == str(win["total"])  # the rules' total
    assert str(win["total"] + 5) in total.log  # the log's sum
    deltas = found["hand_deltas"]
    assert deltas.rules.startswith(str(list(hand["deltas"])))  # the rules' deltas
    assert str(win["total"] + 5) not in deltas.rules


# ------------------------------------------------------------------ jsonl


@pytest.mark.parametrize("variant", ar.VARIANT_RUNS)
def test_export_import_round_trip(tmp_path, variant):
    run = ar.run(variant)
    rows = read_table(run, "hands").to_pylist()
    h = max(rows, key=lambda r: len(r["winners"]))  # a hand with wins
    lines = export_hand(run, h["match"], h["hand"])
    head = json.loads(lines[0])
    assert head["variant"] == ar.rules_of(variant).variant
    assert len(lines) - 1 == h["n_events"]
    out = tmp_path / "imp"
    m = import_lines(lines, out)
    res = audit_runs([out], workers=1)
    assert res.problems == [], [p.line() for p in res.problems]
    got = read_table(out, "hands").to_pylist()[0]
    for col in (
        "dealer",
        "dice",
        "break",
        "wall",
        "winners",
        "deltas",
        "next_dealer",
        "wall_left",
        "n_events",
        "hand_seed",
    ):
        assert got[col] == h[col], col
    src = sorted(
        read_table(
            run, "wins", filters=[("match", "=", h["match"]), ("hand", "=", h["hand"])]
        ).to_pylist(),
        key=lambda r: r["seq"],
    )
    new = read_table(out, "wins").to_pylist()
    drop = ("run_id", "variant")
    assert [{k: v for k, v in r.items() if k not in drop} for r in new] == [
        {k: v for k, v in r.items() if k not in drop} for r in src
    ]
    assert m["imported"] is True


def test_import_without_wall_or_seed(tmp_path):
    lines = export_hand(ar.run("xuezhan"), 1, 1)
    head = json.loads(lines[0])
    head.update(wall=None, seed=None, rng=None, hand_seed=None)
    out = tmp_path / "nowall"
    import_lines([json.dumps(head)] + lines[1:], out)
    res = audit_runs([out], workers=1)
    assert res.problems == []
    notes = {n.check: n.rules for n in res.notes}
    assert "not applicable" in notes["wall_permutation"]
    assert "not applicable" in notes["seed"]


def test_import_tampered_draw_is_reported(tmp_path):
    lines = export_hand(ar.run("yuxi"), 0, 1)
    i = next(i for i, x in enumerate(lines) if '"draw"' in x)
    ev = json.loads(lines[i])
    ev["tile"] = "1z" if ev["tile"] != "1z" else "2z"
    lines[i] = json.dumps(ev)
    warnings = []
    out = tmp_path / "bad"
    import_lines(lines, out, warn=warnings.append)
    assert warnings and "draw_tile" in warnings[0]
    res = audit_runs([out], workers=1)
    p = next(p for p in res.problems if p.check == "draw_tile")
    assert p.seq == ev["seq"]
    # the same edit without a wall: the wall is rebuilt from the draws, which now
    # show one 1z too many or break a later draw
    head = json.loads(lines[0])
    head["wall"] = None
    out2 = tmp_path / "bad2"
    import_lines([json.dumps(head)] + lines[1:], out2, warn=lambda s: None)
    assert audit_runs([out2], workers=1).problems


@pytest.mark.parametrize(
    "bad,msg",
    [
        ("not json", "not JSON"),
        ('{"seq": 0, "type": "fly"}', "unknown event type"),
        ('{"seq": 5, "type": "end"}', "out of order"),
        ('{"seq": 0, "type": "draw", "seat": 0, "tile": "0z", "kind": "live"}', "unknown tile"),
        ('{"seq": 0, "type": "end", "colour": "red"}', "unknown field"),
    ],
)
def test_import_malformed_lines(tmp_path, bad, msg):
    head = export_hand(ar.run("huangmei3"), 0, 0)[0]
    with pytest.raises(InputError, match=msg) as e:
        import_lines([head, bad], tmp_path / "x", name="h.jsonl")
    assert "h.jsonl:2" in str(e.value)


def test_import_never_overwrites(tmp_path):
    from mjlog.logio import LogError

    lines = export_hand(ar.run("huangmei3"), 0, 0)
    with pytest.raises(LogError, match="holds shards of run"):
        import_lines(lines, ar.run("huangmei3"))


def test_export_import_cli(tmp_path):
    f = tmp_path / "h.jsonl"
    r = CliRunner().invoke(
        main, ["export", str(ar.run("huangmei")), "--hand", "0:1", "--out", str(f)]
    )
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["import", str(f), "--out", str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(
        main, ["validate", str(tmp_path / "run"), "--report", str(tmp_path / "a.jsonl")]
    )
    assert r.exit_code == 0, r.output


def test_validate_interrupted_exits_130_not_1(monkeypatch, tmp_path):
    # Ctrl-C is not a finding: the shell's code for SIGINT, one line, no report
    from click.testing import CliRunner

    import mjlog.audit
    from mjlog.cli import main

    def stop(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(mjlog.audit, "audit_runs", stop)
    run = tmp_path / "r"
    run.mkdir()
    r = CliRunner().invoke(main, ["validate", str(run), "--report", str(tmp_path / "rep.jsonl")])
    assert r.exit_code == 130
    assert "interrupted" in r.output and not (tmp_path / "rep.jsonl").exists()


# ------------------------------------------------------------------ what a stopped replay says


def _edited_hand(tmp_path: Path, edit) -> tuple[Path, dict]:
    """A yuxi hand with a win, exported through the CLI, one event line changed by
    ``edit(events) -> seq``, imported through the CLI; (the run, the edited event)."""
    run = ar.run("yuxi")
    h = next(r for r in read_table(run, "hands").to_pylist() if r["winners"])
    f = tmp_path / "h.jsonl"
    r = CliRunner().invoke(
        main, ["export", str(run), "--hand", f"{h['match']}:{h['hand']}", "--out", str(f)]
    )
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]
    seq = edit(lines[1:])
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    r = CliRunner().invoke(main, ["import", str(f), "--out", str(tmp_path / "imp")])
    assert r.exit_code == 0, r.output
    return tmp_path / "imp", lines[1 + seq]


def _validate_json(run: Path) -> dict:
    r = CliRunner().invoke(main, ["validate", str(run), "--workers", "1", "--format", "json"])
    assert r.exit_code == 1, r.output
    return json.loads(r.output)


def test_an_illegal_discard_ends_the_hand_and_says_what_was_not_checked(tmp_path):
    """After the first illegal event the auditor states no fact about the rest of the
    hand (no 'hand_outcome: the rules say draw'); it notes what it did not check."""

    def discard_unheld(evs):
        deals = {e["seat"]: e["tiles"] for e in evs if e["type"] == "deal"}
        i = next(i for i, e in enumerate(evs) if e["type"] != "deal")
        e = evs[i]
        assert e["type"] == "discard"  # the dealer's first discard, from the deal alone
        held = set(parse(deals[e["seat"]]))
        e["tile"] = fmt_tile(next(t for t in range(27) if t not in held))
        return i

    run, ev = _edited_hand(tmp_path, discard_unheld)
    out = _validate_json(run)
    assert [(p["check"], p["seq"]) for p in out["problems"]] == [("illegal_action", ev["seq"])]
    note = next(n for n in out["notes"] if n["check"] == "not_checked")
    assert note["seq"] == ev["seq"] and note["hand"] is not None
    assert note["rules"].startswith(f"after seq {ev['seq']}:")
    assert "winners, outcome" in note["rules"]


def test_import_keeps_the_files_win_total_after_a_changed_payment(tmp_path):
    """A win payment changed in the file: the imported wins row holds the file's own
    total (never 0), and validate sets it against the rules' total."""

    def pay_one_more(evs):
        i = next(i for i, e in enumerate(evs) if e["type"] == "transfer" and e["kind"] == "win")
        evs[i]["amount"] += 1
        return i

    run, ev = _edited_hand(tmp_path, pay_one_more)
    row = min(
        (w for w in read_table(run, "wins").to_pylist() if w["seq"] < ev["seq"]),
        key=lambda w: ev["seq"] - w["seq"],
    )
    assert row["total"] >= ev["amount"] > 1  # the file's transfers, not an invented 0
    out = _validate_json(run)
    found = {p["check"]: p for p in out["problems"]}
    assert found["transfer"]["seq"] == ev["seq"]
    total = found["win_total"]
    assert total["log"] == str(row["total"])
    assert total["rules"].split()[0] == str(row["total"] - 1)
