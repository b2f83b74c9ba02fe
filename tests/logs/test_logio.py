"""The log layer: schemas, ShardWriter, manifest, readers (docs/log-schema.md)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mjlog import logio
from mjlog.logio import LogError, RunFiles, ShardWriter, columns
from mjlog.logio.shards import ShardTables
from mjlog.schema import (
    EVENT_TYPES,
    EVENTS,
    HAND_KEY,
    HANDS,
    SCHEMA_VERSION,
    TABLES,
    TRANSFER_REASONS,
    TRANSFERS,
    WINS,
    check_schema,
    data_columns,
    schema_version,
)

RUN_ID = "0123456789abcdef"


# --------------------------------------------------------------- synthetic data


def synth_hand(rng: random.Random, n_events: int = 120, players: int = 4, kind: str = "plain"):
    """A realistic-looking hand: deal, draws and discards, a pon, a kong, an end.

    ``kind`` is ``plain`` (one self-draw), ``multi`` (two winners on one
    discard, xuezhan-like: a multiplier, one win capped), or ``draw`` (no
    winner, huangmei-like dealer rolls).
    """
    wall = [t for t in range(34) for _ in range(4)]
    rng.shuffle(wall)
    dealer = rng.randrange(players)
    ev: list[tuple] = []

    def add(*e):
        ev.append((len(ev), *e))

    pos = 0
    for i in range(players):
        s = (dealer + i) % players
        k = 14 if s == dealer else 13
        add("deal", s, None, None, None, tuple(sorted(wall[pos : pos + k])), None)
        pos += k
    seat = dealer
    add("discard", seat, wall[rng.randrange(pos)], None, None, None, None)
    transfers: list[dict] = []
    deltas = [0] * players

    def pay(payer, payee, amount, reason):
        transfers.append(dict(seq=len(ev), payer=payer, payee=payee, amount=amount, reason=reason))
        add("transfer", payee, None, payer, reason, None, amount)
        deltas[payer] -= amount
        deltas[payee] += amount

    kong_done = False
    while len(ev) < n_events - 8:
        seat = (seat + 1) % players
        r = rng.random()
        if r < 0.05:
            add("pon", seat, ev[-1][3], ev[-1][2], None, None, None)
        else:
            add("draw", seat, wall[pos], None, "live", None, None)
            pos += 1
            if not kong_done and r > 0.97:
                add("kong", seat, wall[pos - 1], None, "concealed", None, None)
                pay((seat + 1) % players, seat, 2, "kong_concealed")
                add("draw", seat, wall[-1], None, "tail", None, None)
                kong_done = True
        add("discard", seat, wall[rng.randrange(pos)], None, None, None, None)
    wins: list[dict] = []
    winners: list[int] = []
    if kind == "plain":
        winner, tile = seat, wall[pos]
        add("draw", winner, tile, None, "live", None, None)
        pos += 1
        add("win", winner, tile, None, "self_draw", tuple(sorted(wall[pos - 14 : pos])), None)
        wins.append(
            dict(
                seq=len(ev) - 1,
                seat=winner,
                from_seat=None,
                tile=tile,
                method="self_draw",
                win_order=1,
                patterns=["zimo", "pinghu"],
                fan=2,
                multiplier=None,
                points=4,
                total=12,
                capped=False,
            )
        )
        winners = [winner]
        for p in range(players):
            if p != winner:
                pay(p, winner, 4, "win")
    elif kind == "multi":
        discarder, tile = seat, ev[-1][3]
        for order, w in enumerate(((discarder + 1) % players, (discarder + 2) % players)):
            add("win", w, tile, discarder, "discard", tuple(sorted(wall[:13] + [tile])), None)
            wins.append(
                dict(
                    seq=len(ev) - 1,
                    seat=w,
                    from_seat=discarder,
                    tile=tile,
                    method="discard",
                    win_order=1,
                    patterns=["qingyise", "gen", "gen"],
                    fan=4 + order,
                    multiplier=16 * (order + 1),
                    points=16,
                    total=16,
                    capped=bool(order),
                )
            )
            winners.append(w)
            pay(discarder, w, 16, "win")
    add("end", None, None, None, None, None, None)
    hand_row = {
        "hand_seed": rng.getrandbits(64),
        "players": players,
        "dealer": dealer,
        "dice": [rng.randint(1, 6), rng.randint(1, 6)],
        "dealer_rolls": [3, 5, 2, 2, 6, 1, 4, 4] if kind == "draw" else None,
        "break": rng.randrange(136),
        "wall": wall,
        "agents": ["greedy", "random", "greedy", "random"][:players],
        "outcome": "draw" if kind == "draw" else "win",
        "winners": winners,
        "deltas": deltas,
        "n_events": len(ev),
        "wall_left": 136 - pos,
        "next_dealer": winners[0] if winners else (dealer + 1) % players,
    }
    return hand_row, ev, wins, transfers


def synth_hands(seed: int, n: int, n_events: int = 120):
    """n hands keyed (match, rotation, hand), 4 hands a match, varied kinds."""
    rng = random.Random(seed)
    kinds = ("plain", "multi", "draw")
    return [((i // 4, 0, i % 4), synth_hand(rng, n_events, kind=kinds[i % 3])) for i in range(n)]


def write_shard(run, shard, hands, **kw):
    with ShardWriter(run, shard, RUN_ID, "yuxi", **kw) as w:
        for key, (row, ev, wins, tr) in hands:
            w.add_hand(*key, row, ev, wins, tr)
    return w.entries


def seal(run):
    """Write the manifest of the shards on disk, entries recomputed (what a writer does
    at the end of a run): readers refuse a run without a verified manifest."""
    entries = [
        logio.file_entry(p, t, f"{t}/{p.name}", pq.ParquetFile(p).metadata.num_rows)
        for t in TABLES
        for p in sorted((Path(run) / t).glob("part-*.parquet"))
    ]
    logio.write_manifest(run, logio.build_manifest(META, entries))


def write_run(run, seed=7, shards=2, per_shard=6, **kw):
    """A run directory with a manifest; returns the input hands in order."""
    hands = synth_hands(seed, shards * per_shard, n_events=40)
    files = []
    for s in range(shards):
        files += write_shard(run, s, hands[s * per_shard : (s + 1) * per_shard], **kw)
    logio.write_manifest(run, logio.build_manifest(META, files))
    return hands


META = {
    "variant": "yuxi",
    "rules": {"cap": 32, "horses": 2, "points.longqidui": (6, 7)},
    "seed": 20240501,
    "matches": 3,
    "hands_per_match": 4,
    "players": 4,
    "agents": [{"name": "greedy", "params": {"risk": 0.5}}] * 4,
    "duplicate": False,
    "rng": "mjlog-pcg64/1",
    "mjlog_version": "0.1.0",
}


def norm(v):
    """Tuples read back as lists."""
    if isinstance(v, tuple | list):
        return [norm(x) for x in v]
    return v


# ------------------------------------------------------------------- schemas


def test_schemas_declare_the_contract_types():
    for schema in TABLES.values():
        assert schema.names[:5] == ["run_id", "variant", "match", "rotation", "hand"]
        assert (
            str(schema.field("run_id").type)
            == "dictionary<values=string, indices=int32, ordered=0>"
        )
        assert schema.field("match").type == pa.int32()
        assert schema.field("rotation").type == pa.int8()
        assert schema.field("hand").type == pa.int16()
        assert schema_version(schema.metadata) == SCHEMA_VERSION
    assert HANDS.field("hand_seed").type == pa.uint64()
    assert HANDS.field("wall").type == pa.list_(pa.int8())
    assert HANDS.field("agents").type == pa.list_(pa.string())
    assert HANDS.field("deltas").type == pa.list_(pa.int32())
    assert HANDS.field("break").type == pa.int16()
    assert HANDS.field("dealer_rolls").nullable and not HANDS.field("wall").nullable
    for t, c in [
        (HANDS, "outcome"),
        (EVENTS, "type"),
        (EVENTS, "kind"),
        (WINS, "method"),
        (TRANSFERS, "reason"),
    ]:
        assert pa.types.is_dictionary(t.field(c).type), c
    assert EVENTS.field("tile").type == pa.int8() and EVENTS.field("tiles").type == pa.list_(
        pa.int8()
    )
    assert WINS.field("patterns").type == pa.list_(pa.string())
    assert WINS.field("capped").type == pa.bool_()
    assert WINS.field("multiplier").nullable
    assert len(EVENT_TYPES) == 11 and len(TRANSFER_REASONS) == 10


def test_check_schema_finds_drift():
    assert all(check_schema(t, s) == [] for t, s in TABLES.items())
    drift = EVENTS.set(EVENTS.get_field_index("tile"), pa.field("tile", pa.int64()))
    assert check_schema("events", drift) == ["column tile has type int64, expected int8"]
    plain = EVENTS.set(EVENTS.get_field_index("type"), pa.field("type", pa.string()))
    assert check_schema("events", plain) == []  # plain strings are read back as dictionary
    newer = EVENTS.with_metadata({b"mjlog.schema_version": b"99"})
    assert "newer" in check_schema("events", newer)[0]


# --------------------------------------------------------------------- run id


def test_run_id_is_pinned_and_ignores_key_order_and_extras():
    rid = logio.run_id(META)
    agent = '{"name":"greedy","params":{"risk":0.5}}'
    text = (
        f'{{"agents":[{agent},{agent},{agent},{agent}],"duplicate":false,"hands_per_match":4,'
        '"matches":3,"mjlog_version":"0.1.0","players":4,"rng":"mjlog-pcg64/1",'
        '"rules":{"cap":32,"horses":2,"points.longqidui":[6,7]},"seed":20240501,"variant":"yuxi"}'
    )
    assert logio.canonical_json({k: META[k] for k in logio.RUN_ID_KEYS}) == text
    assert rid == hashlib.sha256(text.encode()).hexdigest()[:16]
    assert rid == "dd045460b3e6cb45"  # pinned: a change here changes every run id
    reordered = dict(reversed(list(META.items())))
    reordered["rules"] = dict(reversed(list(META["rules"].items())))
    assert logio.run_id(reordered) == rid
    assert logio.run_id({**META, "created": "2024-05-01T12:00", "files": []}) == rid


@pytest.mark.parametrize("key", logio.RUN_ID_KEYS)
def test_run_id_changes_with_every_argument(key):
    changed = dict(META)
    v = changed[key]
    changed[key] = (
        not v
        if isinstance(v, bool)
        else v + 1
        if isinstance(v, int)
        else v + "x"
        if isinstance(v, str)
        else {**v, "cap": 64}
        if isinstance(v, dict)
        else [{"name": "random"}] + v[1:]
    )
    assert logio.run_id(changed) != logio.run_id(META)


def test_run_id_names_missing_keys():
    meta = dict(META)
    del meta["rng"], meta["seed"]
    with pytest.raises(LogError, match="missing") as e:
        logio.run_id(meta)
    assert "rng, seed" in str(e.value)


def test_canonical_json():
    assert (
        logio.canonical_json({"b": 1, "a": [1, 2], "c": "麻将"}) == '{"a":[1,2],"b":1,"c":"麻将"}'
    )
    with pytest.raises(ValueError):
        logio.canonical_json({"x": float("nan")})


# ---------------------------------------------------------------- round trip


def test_round_trip_values_and_exact_types(tmp_path):
    hands = write_run(tmp_path)
    for name, schema in TABLES.items():
        t = logio.read_table(tmp_path, name)
        assert t.schema.equals(schema), name
        assert schema_version(t.schema.metadata) == SCHEMA_VERSION
        md = pq.read_metadata(tmp_path / logio.shard_path(name, 0)).metadata
        assert md[b"mjlog.schema_version"] == b"1" and md[b"mjlog.table"] == name.encode()
    bundles = list(logio.iter_hands(tmp_path, batch_rows=7))  # small batches: hands span them
    assert len(bundles) == len(hands)
    for b, (key, (row, ev, wins, tr)) in zip(bundles, hands, strict=True):
        assert (b.hand["match"], b.hand["rotation"], b.hand["hand"]) == key
        assert b.hand["run_id"] == RUN_ID and b.hand["variant"] == "yuxi"
        assert {k: b.hand[k] for k in row} == {k: norm(v) for k, v in row.items()}
        assert [norm(e) for e in b.events] == [norm(e) for e in ev]
        assert b.wins == wins and b.transfers == tr
    events = logio.read_table(tmp_path, "events")
    assert events.num_rows == sum(len(h[1][1]) for h in hands)
    assert set(events.column("type").to_pylist()) <= set(EVENT_TYPES)


def test_column_decoding_equals_to_pylist(tmp_path):
    """The fast decoding the readers share (mjlog.logio.columns) gives what pyarrow's
    to_pylist gives, on every column of every table, whole and sliced (a slice
    starts at an offset into its buffers), nulls included."""
    write_run(tmp_path)
    for name in TABLES:
        tab = logio.read_table(tmp_path, name)
        for lo, hi in ((0, tab.num_rows), (3, tab.num_rows - 2)):
            part = tab.slice(lo, hi - lo)
            for c in part.column_names:
                col = part.column(c)
                want = col.to_pylist()
                assert columns.pylist(col) == want, (name, c)
                if pa.types.is_list(col.type):
                    assert columns.tuples(col) == [None if v is None else tuple(v) for v in want], (
                        name,
                        c,
                    )
            keys = columns.key_array(part)
            assert [columns.unkey(k) for k in keys.tolist()] == list(
                zip(*(part.column(c).to_pylist() for c in HAND_KEY), strict=True)
            )
    kinds = logio.read_table(tmp_path, "events").column("kind")
    assert None in kinds.to_pylist()  # the null path was taken


def test_shard_reader_agrees_with_iter_hands(tmp_path):
    """The auditor's whole-shard reader gives every hand as the streaming reader does."""
    write_run(tmp_path)
    streamed = list(logio.iter_hands(tmp_path))
    got = []
    for shard in (0, 1):
        tabs = ShardTables(tmp_path, shard, with_events=True)
        assert tabs.orphans == []
        keys = tabs.hand_keys.tolist()
        for a, b in ((0, 2), (2, len(keys))):  # two chunks
            part = {t: tabs.by_hand(t, keys[a], keys[b - 1]) for t in tabs.children}
            for k, row in zip(keys[a:b], tabs.hands(a, b), strict=True):
                ev = part["events"][k]
                got.append(
                    (
                        row,
                        [(q, *e) for q, e in zip(ev.seqs, ev.events, strict=True)],
                        part["wins"].get(k, []),
                        part["transfers"].get(k, []),
                    )
                )
    assert len(got) == len(streamed)
    for (row, ev, wins, tr), b in zip(got, streamed, strict=True):
        assert row == b.hand
        assert [norm(e) for e in ev] == [norm(e) for e in b.events]
        assert wins == b.wins and tr == b.transfers


def test_read_table_columns_and_filters(tmp_path):
    write_run(tmp_path)
    t = logio.read_table(
        tmp_path, "hands", columns=["match", "hand", "outcome"], filters=[("match", "=", 1)]
    )
    assert t.column_names == ["match", "hand", "outcome"]
    assert t.column("match").to_pylist() == [1] * 4
    assert pa.types.is_dictionary(t.schema.field("outcome").type)
    one = logio.read_table(tmp_path / "wins" / "part-00001.parquet", "wins")
    assert set(one.column("match").to_pylist()) == {1, 2}
    with pytest.raises(LogError, match="no column"):
        logio.read_table(tmp_path, "hands", columns=["nope"])
    with pytest.raises(LogError, match="unknown table"):
        logio.read_table(tmp_path, "hand")


def test_events_without_seq_are_numbered(tmp_path):
    ((_, (row, ev, wins, tr)),) = synth_hands(3, 1)
    with ShardWriter(tmp_path, 0, RUN_ID, "yuxi") as w:
        w.add_hand(0, 0, 0, row, [e[1:] for e in ev], wins, tr)  # mjlog.events.Event shape
    seal(tmp_path)
    got = next(logio.iter_hands(tmp_path))
    assert [norm(e) for e in got.events] == [norm(e) for e in ev]


def test_duckdb_reads_a_run(tmp_path):
    write_run(tmp_path)
    q = (
        f"SELECT method, count(*) AS n, sum(total) AS money "
        f"FROM read_parquet('{tmp_path}/wins/*.parquet') GROUP BY method ORDER BY method"
    )
    rows = duckdb.sql(q).fetchall()
    wins = logio.read_table(tmp_path, "wins").to_pandas()
    want = wins.groupby("method", observed=True)["total"].agg(["count", "sum"])
    assert rows == sorted((m, int(r["count"]), int(r["sum"])) for m, r in want.iterrows())
    assert len(rows) == 2


# ----------------------------------------------------------- byte identity


def test_identical_input_gives_identical_bytes(tmp_path):
    hands = synth_hands(11, 9)
    a = write_shard(tmp_path / "a", 0, hands, row_group_hands=4)
    b = write_shard(tmp_path / "b", 0, hands, row_group_hands=4)
    assert a == b
    for e in a:
        assert (tmp_path / "a" / e["path"]).read_bytes() == (
            tmp_path / "b" / e["path"]
        ).read_bytes()
    other = write_shard(tmp_path / "c", 0, synth_hands(12, 9), row_group_hands=4)
    assert [e["sha256"] for e in other] != [e["sha256"] for e in a]


# ------------------------------------------------------------------ atomicity


def _all_files(root: Path):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_exception_inside_with_leaves_nothing(tmp_path):
    hands = synth_hands(5, 6)
    with pytest.raises(RuntimeError, match="engine bug"):
        with ShardWriter(tmp_path, 3, RUN_ID, "yuxi", row_group_hands=2) as w:
            for key, (row, ev, wins, tr) in hands:
                w.add_hand(*key, row, ev, wins, tr)  # row groups already written to temp files
            assert any(p.name.startswith(".part-00003") for p in tmp_path.rglob("*"))
            raise RuntimeError("engine bug")
    assert _all_files(tmp_path) == []
    assert not logio.shard_complete(tmp_path, 3)
    with pytest.raises(ValueError, match="aborted"):
        w.add_hand(9, 0, 0, *hands[0][1])


def test_bad_value_at_flush_leaves_nothing(tmp_path):
    hands = synth_hands(5, 3)
    row, ev, wins, tr = hands[2][1]
    bad = [ev[0], (1, "discard", 0, 300, None, None, None, None), *ev[2:]]
    with pytest.raises(ValueError, match=r"shard 0 match 0 rotation 0 hand 2: events.tile"):
        with ShardWriter(tmp_path, 0, RUN_ID, "yuxi") as w:
            for key, h in hands[:2]:
                w.add_hand(*key, *h)
            w.add_hand(*hands[2][0], row, bad, wins, tr)
    assert _all_files(tmp_path) == []


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r, e, w, t: r.pop("wall"), "missing \\['wall'\\]"),
        (lambda r, e, w, t: r.update(colour=1), "unknown \\['colour'\\]"),
        (lambda r, e, w, t: r.update(n_events=3), "n_events is 3"),
        (lambda r, e, w, t: e.__setitem__(5, (5, "discard", 1)), "events must be tuples"),
        (lambda r, e, w, t: e.__setitem__(5, (6,) + e[5][1:]), "seq 0, 1, 2"),
        (lambda r, e, w, t: e.__setitem__(5, (5, "chi") + e[5][2:]), "unknown value.*chi"),
        (lambda r, e, w, t: t[0].update(reason="bribe"), "unknown value.*bribe"),
        (lambda r, e, w, t: t[0].pop("reason"), "transfers row columns wrong"),
        (lambda r, e, w, t: r.update(dealer=None), "hand 0: hands.dealer: null in a non-nullable"),
        (lambda r, e, w, t: r.update(hand_seed=-1), "hands.hand_seed"),
        (lambda r, e, w, t: w[0].update(patterns="zimo"), "wins.patterns"),
        (lambda r, e, w, t: r["wall"].__setitem__(7, 34), "hands.wall: value 34 outside 0..33"),
        (lambda r, e, w, t: e.__setitem__(5, e[5][:2] + (4,) + e[5][3:]), "events.seat: value 4"),
        (lambda r, e, w, t: t[0].update(amount=0), "transfers.amount: value 0 outside"),
        (lambda r, e, w, t: r.update(dice=[0, 7]), "hands.dice: value 0 outside 1..6"),
    ],
)
def test_writer_rejects_bad_input(tmp_path, mutate, message):
    ((key, (row, ev, wins, tr)),) = synth_hands(8, 1)
    row, ev, wins, tr = dict(row), list(ev), [dict(x) for x in wins], [dict(x) for x in tr]
    row["wall"] = list(row["wall"])
    mutate(row, ev, wins, tr)
    with pytest.raises(ValueError, match=message):
        with ShardWriter(tmp_path, 0, RUN_ID, "yuxi") as w:
            w.add_hand(*key, row, ev, wins, tr)
    assert _all_files(tmp_path) == []


def test_hands_must_come_in_order(tmp_path):
    hands = synth_hands(5, 2)
    with ShardWriter(tmp_path, 0, RUN_ID, "yuxi") as w:
        w.add_hand(1, 0, 1, *hands[0][1])
        with pytest.raises(ValueError, match="increasing"):
            w.add_hand(1, 0, 0, *hands[1][1])
        w.abort()
    assert _all_files(tmp_path) == []


def test_shard_complete_and_hands_renamed_last(tmp_path, monkeypatch):
    hands = synth_hands(5, 4)
    assert not logio.shard_complete(tmp_path, 0)
    renamed = []
    real = os.replace
    monkeypatch.setattr(
        os, "replace", lambda a, b: (renamed.append(Path(b).parent.name), real(a, b))
    )
    entries = write_shard(tmp_path, 0, hands)
    assert renamed == ["events", "wins", "transfers", "hands"]
    assert [e["table"] for e in entries] == ["hands", "events", "wins", "transfers"]
    assert logio.shard_complete(tmp_path, 0)
    assert logio.shard_entries(tmp_path, 0) == entries
    assert not logio.shard_complete(tmp_path, 1)
    (tmp_path / logio.shard_path("wins", 0)).unlink()
    assert not logio.shard_complete(tmp_path, 0)
    assert _all_files(tmp_path) == sorted(e["path"] for e in entries if e["table"] != "wins")


def test_failed_rename_leaves_shard_incomplete(tmp_path, monkeypatch):
    real = os.replace

    def flaky(a, b):
        if Path(b).parent.name == "transfers":
            raise OSError("disk full")
        real(a, b)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(OSError, match="disk full"):
        write_shard(tmp_path, 0, synth_hands(5, 2))
    assert not logio.shard_complete(tmp_path, 0)
    assert not (tmp_path / "hands" / "part-00000.parquet").exists()
    assert not [p for p in tmp_path.rglob(".part-*")]


def test_events_false(tmp_path):
    hands = synth_hands(5, 5)
    entries = write_shard(
        tmp_path, 0, [(k, (r, [], w, t)) for k, (r, e, w, t) in hands], events=False
    )
    assert [e["table"] for e in entries] == ["hands", "wins", "transfers"]
    assert not (tmp_path / "events" / "part-00000.parquet").exists()
    assert logio.shard_complete(tmp_path, 0, events=False)
    assert not logio.shard_complete(tmp_path, 0, events=True)
    seal(tmp_path)
    bundles = list(logio.iter_hands(tmp_path))
    assert [b.events for b in bundles] == [[]] * 5
    assert [b.wins for b in bundles] == [h[1][2] for h in hands]
    with pytest.raises(LogError, match="events"):
        list(logio.iter_hands(tmp_path, events=True))
    logio.write_manifest(tmp_path, logio.build_manifest(META, entries))
    assert logio.verify_manifest(tmp_path) == []


def test_row_groups_every_row_group_hands(tmp_path):
    hands = synth_hands(5, 10)
    write_shard(tmp_path, 0, hands, row_group_hands=3)
    seal(tmp_path)
    for t in ("hands", "events"):
        md = pq.read_metadata(tmp_path / logio.shard_path(t, 0))
        assert md.num_row_groups == 4, t
    md = pq.read_metadata(tmp_path / logio.shard_path("hands", 0))
    assert [md.row_group(i).num_rows for i in range(4)] == [3, 3, 3, 1]
    assert len(list(logio.iter_hands(tmp_path))) == 10


def test_empty_shard(tmp_path):
    entries = write_shard(tmp_path, 0, [])
    assert [e["rows"] for e in entries] == [0, 0, 0, 0]
    seal(tmp_path)
    assert logio.read_table(tmp_path, "events").schema.equals(EVENTS)
    assert list(logio.iter_hands(tmp_path)) == []


# ------------------------------------------------------------------- manifest


def test_manifest_round_trip_and_pretty(tmp_path):
    write_run(tmp_path)
    m = logio.read_manifest(tmp_path)
    assert m["run_id"] == logio.run_id(META) and m["schema_version"] == SCHEMA_VERSION
    assert [f["path"] for f in m["files"]] == sorted(f["path"] for f in m["files"])
    assert len(m["files"]) == 8
    text = (tmp_path / "manifest.json").read_text(encoding="utf-8")
    assert text == json.dumps(m, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["manifest.json"]
    assert logio.verify_manifest(tmp_path) == []


def test_read_manifest_errors(tmp_path):
    with pytest.raises(LogError, match="no manifest"):
        logio.read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(LogError, match="not valid JSON"):
        logio.read_manifest(tmp_path)
    assert "not valid JSON" in logio.verify_manifest(tmp_path)[0]


def _one_line_naming(err: LogError, path: Path):
    msg = str(err)
    assert "\n" not in msg and str(path) in msg, msg


def test_verify_catches_a_flipped_byte(tmp_path):
    write_run(tmp_path)
    path = tmp_path / logio.shard_path("events", 1)
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x01
    path.write_bytes(data)
    problems = logio.verify_manifest(tmp_path)
    assert problems and all("events/part-00001.parquet" in p for p in problems), problems
    assert any("sha256" in p for p in problems)


def test_truncated_file(tmp_path):
    write_run(tmp_path)
    path = tmp_path / logio.shard_path("hands", 0)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    for call in (
        lambda: logio.read_table(tmp_path, "hands"),
        lambda: list(logio.iter_hands(tmp_path)),
        lambda: logio.check_file(path, "hands"),
    ):
        with pytest.raises(LogError) as e:
            call()
        _one_line_naming(e.value, path)
    problems = logio.verify_manifest(tmp_path)
    assert any("hands/part-00000.parquet" in p and "sha256" in p for p in problems)
    assert any(str(path) in p and "not a readable Parquet file" in p for p in problems)


def test_not_parquet(tmp_path):
    write_run(tmp_path)
    path = tmp_path / logio.shard_path("wins", 0)
    path.write_text("hello, I am a CSV\n1,2,3\n", encoding="utf-8")
    with pytest.raises(LogError) as e:
        logio.read_table(tmp_path, "wins")
    _one_line_naming(e.value, path)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop_columns(["tile"]), "missing column tile"),
        (
            lambda t: t.set_column(
                t.schema.get_field_index("tile"), "tile", t.column("tile").cast(pa.int64())
            ),
            "column tile has type int64, expected int8",
        ),
    ],
)
def test_schema_drift(tmp_path, change, message):
    write_run(tmp_path)
    path = tmp_path / logio.shard_path("events", 0)
    pq.write_table(change(pq.read_table(path)), path)
    seal(tmp_path)  # keep the manifest honest, so that only the drift is reported
    assert logio.verify_manifest(tmp_path) == [f"{path}: not a events table: {message}"]
    for call in (
        lambda: logio.read_table(tmp_path, "events"),
        lambda: list(logio.iter_hands(tmp_path)),
    ):
        with pytest.raises(LogError, match=message) as e:
            call()
        _one_line_naming(e.value, path)


def test_verify_reports_unlisted_and_missing_files(tmp_path):
    write_run(tmp_path)
    extra = tmp_path / "wins" / "part-00009.parquet"
    extra.write_bytes((tmp_path / "wins" / "part-00000.parquet").read_bytes())
    stale = tmp_path / "hands" / ".part-00002.parquet.tmp-4242"
    stale.write_bytes(b"half")
    (tmp_path / logio.shard_path("transfers", 1)).unlink()
    assert logio.verify_manifest(tmp_path) == [
        "transfers/part-00001.parquet: listed in the manifest but missing",
        "hands/.part-00002.parquet.tmp-4242: present but not listed in the manifest",
        "wins/part-00009.parquet: present but not listed in the manifest",
    ]


def test_verify_reports_a_wrong_row_count(tmp_path):
    write_run(tmp_path)
    m = logio.read_manifest(tmp_path)
    m["files"][0]["rows"] += 1
    logio.write_manifest(tmp_path, m)
    (problem,) = logio.verify_manifest(tmp_path)
    assert problem.startswith(m["files"][0]["path"]) and "the manifest says" in problem


def test_orphan_rows_are_reported(tmp_path):
    hands = synth_hands(5, 3)
    write_shard(tmp_path, 0, hands)
    # A wins file with a row for a hand the hands file does not have.
    path = tmp_path / logio.shard_path("wins", 0)
    t = pq.read_table(path)
    hand = t.column("hand").to_pylist()
    t = t.set_column(
        t.schema.get_field_index("hand"),
        t.schema.field("hand"),
        pa.array([h + 5 if i == 0 else h for i, h in enumerate(hand)], pa.int16()),
    )
    pq.write_table(t, path)
    seal(tmp_path)
    with pytest.raises(LogError, match="rows for hand .* not in part-00000.parquet") as e:
        list(logio.iter_hands(tmp_path))
    _one_line_naming(e.value, path)


def test_damaged_bytes_never_escape_as_raw_errors(tmp_path):
    """Flip bytes all over each file: reading gives LogError or data, never a traceback."""
    write_shard(tmp_path, 0, synth_hands(4, 3, n_events=30))
    seal(tmp_path)
    for table in TABLES:
        path = tmp_path / logio.shard_path(table, 0)
        original = path.read_bytes()
        for pos in range(0, len(original), 31):
            data = bytearray(original)
            data[pos] ^= 0x10
            path.write_bytes(data)
            try:  # the hashes would refuse every flip: read past them, to the pages
                unhashed = RunFiles(tmp_path, hashes=False)
                logio.read_table(unhashed, table)
                list(logio.iter_hands(unhashed))
            except LogError as e:
                assert "\n" not in str(e)
        path.write_bytes(original)


# ----------------------------------------------------------------------- size


def test_size_per_hand(tmp_path):
    n = 1000
    hands = synth_hands(2024, n, n_events=120)
    entries = write_shard(tmp_path, 0, hands)
    n_events = sum(e["rows"] for e in entries if e["table"] == "events")
    sizes = {e["table"]: (tmp_path / e["path"]).stat().st_size for e in entries}
    per_hand = sum(sizes.values()) / n
    detail = ", ".join(f"{t} {s / n:.1f}" for t, s in sizes.items())
    print(f"\n{n} hands, {n_events / n:.1f} events/hand: {per_hand:.1f} bytes/hand ({detail})")
    assert 115 <= n_events / n <= 125
    assert per_hand <= 600
    assert data_columns("events")[0] == "seq"


# ----------------------------------------------------------------------- docs


def _doc_type(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        return f"{t.value_type} (dictionary)"
    if pa.types.is_list(t):
        return f"list<{t.value_type}>"
    return str(t)


def test_docs_list_every_column():
    """docs/log-schema.md gives every column with its type and nullability, in order."""
    text = (Path(__file__).parents[2] / "docs" / "log-schema.md").read_text(encoding="utf-8")
    sections: dict[str, list[tuple[str, str, bool]]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("### "):
            current = line[4:].split(" ")[0]
            sections[current] = []
        elif current in ("id", *TABLES) and line.startswith("| `"):
            name, typ, null = (c.strip() for c in line.strip("|").split("|")[:3])
            sections[current].append((name.strip("`"), typ, null == "yes"))
    for table, schema in TABLES.items():
        want = [(f.name, _doc_type(f.type), f.nullable) for f in schema]
        assert sections["id"] + sections[table] == want, table


def test_docs_list_every_manifest_key_a_reader_checks():
    """docs/log-schema.md's manifest table names every key RunFiles checks the type of
    (the run's arguments, the layout, an import's and a settled run's own keys)."""
    from mjlog.logio.manifest import _META_TYPES

    text = (Path(__file__).parents[2] / "docs" / "log-schema.md").read_text(encoding="utf-8")
    table = text.split("### manifest.json", 1)[1].split("The manifest may hold more keys", 1)[0]
    named = {
        k
        for row in table.splitlines()
        if row.startswith("| `")
        for k in re.findall(r"`([a-z_]+)`", row.split("|")[1])
    }
    assert set(_META_TYPES) | {"run_id", "files"} <= named, set(_META_TYPES) - named


def test_docs_duckdb_example_runs(tmp_path):
    run = tmp_path / "r1"
    write_run(run)
    text = (Path(__file__).parents[2] / "docs" / "log-schema.md").read_text(encoding="utf-8")
    sql = text.split("```sql\n", 1)[1].split("```", 1)[0]
    queries = [
        q.strip()
        for q in sql.replace("RUNS/*", str(tmp_path) + "/*").replace("RUN/", f"{run}/").split(";")
        if q.strip()
    ]
    assert len(queries) == 3
    for q in queries:
        duckdb.sql(q).fetchall()
    by_method = duckdb.sql(queries[0]).fetchall()
    assert sum(r[1] for r in by_method) == logio.read_table(run, "wins").num_rows


@pytest.mark.parametrize("row_group_hands", [3, 2000])
def test_spilled_shard_publishes_the_bytes_shard_writer_writes(tmp_path, row_group_hands):
    """A shard spilled before its run id is known (what import does) is published
    as the very files a ShardWriter given the id first writes, row groups and all;
    the spill is gone after."""
    hands = synth_hands(11, 7, n_events=30)  # 3 row groups of 3, 3 and 1 hands, or one
    want = write_shard(tmp_path / "direct", 4, hands, row_group_hands=row_group_hands)
    spill = tmp_path / "spill"
    with logio.SpilledShard(spill, 4, "yuxi", row_group_hands=row_group_hands) as w:
        for key, (row, ev, wins, tr) in hands:
            w.add_hand(*key, row, ev, wins, tr)
    got = w.publish(tmp_path / "spilled", RUN_ID)
    assert got == want
    for e in want:
        a, b = (tmp_path / d / e["path"] for d in ("direct", "spilled"))
        assert a.read_bytes() == b.read_bytes()
        if e["table"] == "hands":
            assert pq.ParquetFile(b).metadata.num_row_groups == -(-7 // row_group_hands)
    assert [p for p in spill.rglob("*") if p.is_file()] == []
