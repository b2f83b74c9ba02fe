"""`mjlog compare` on paired runs counts the hands whose outcome differs, and a figure
the two runs measure the same on every match is called identical, never uncertain.
Every run here is tiny and seeded, or the sample sweep."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from analysis import compare
from analysis.queries import Runs
from analysis.studies.sample import data_dir
from mjlog import logio
from mjlog.cli import main
from mjlog.logio import read_table
from simulate.runner import RunSpec, simulate
from simulate.sweep import parse_grid, sweep
from tests.sealed import seal

CAPS = data_dir() / "sweep" / "xuezhan-cap"


@pytest.fixture(scope="module")
def unbound(tmp_path_factory):
    """yuxi at cap 64 (its default) and 16: on 80 hands of strategic play no win pays
    more than 16 a payer, so the cap never binds and the runs are alike hand for hand."""
    out = tmp_path_factory.mktemp("unbound") / "s"
    sweep(
        "yuxi",
        parse_grid(["cap=64,16"]),
        out,
        workers=1,
        progress=False,
        seed=11,
        matches=10,
        hands_per_match=8,
        agents=["strategic"],
        events="none",
    )
    return out


def _cli(*args):
    res = CliRunner().invoke(main, ["compare", *map(str, args)])
    assert res.exit_code == 0, res.output
    return res.stdout


def _outcomes(run) -> pd.Series:
    """Per hand (match, rotation, hand): its deltas, winners and each win's seat,
    patterns and points, as a tuple: read from the tables, without DuckDB."""
    key = ["match", "rotation", "hand"]
    h = read_table(run, "hands", columns=[*key, "outcome", "winners", "deltas"]).to_pandas()
    w = read_table(run, "wins", columns=[*key, "seq", "seat", "patterns", "points"]).to_pandas()
    t = read_table(run, "transfers", columns=[*key, "seq", "payer", "payee", "amount"])
    t = t.to_pandas()
    wins = w.sort_values(["seq", "seat"]).groupby(key)[["seat", "patterns", "points"]]
    wins = wins.apply(lambda g: tuple((s, tuple(sorted(p)), x) for s, p, x in g.to_numpy()))
    pays = t.sort_values(["seq", "payer", "payee"]).groupby(key)[["payer", "payee", "amount"]]
    pays = pays.apply(lambda g: tuple(map(tuple, g.to_numpy())))
    out = h.set_index(key)
    return pd.Series(
        {
            k: (r.outcome, tuple(r.winners), tuple(r.deltas), wins.get(k), pays.get(k))
            for k, r in out.iterrows()
        }
    )


def test_hands_differing_is_the_count_of_hands_that_end_otherwise():
    a, b = CAPS / "cap=1", CAPS / "cap=16"
    oa, ob = _outcomes(a), _outcomes(b)
    want = sum(oa[k] != ob[k] for k in oa.index)
    rows = json.loads(_cli(a, b, "--format", "json"))
    assert 0 < want < len(oa) == 400
    assert {r["hands_differing"] for r in rows} == {want}
    assert all(0 < r["hands_differing_hi"] < 1 for r in rows)
    assert f"outcome differs on {want:,} of 400 hands" in _cli(a, b)


def test_runs_alike_hand_for_hand_are_identical_never_inconclusive(unbound):
    rows = json.loads(_cli(unbound, "--format", "json"))
    assert rows and {r["verdict"] for r in rows} == {"identical"}
    assert {r["hands_differing"] for r in rows} == {0}
    assert all(r["p_adjusted"] is None and r["hands_needed"] is None for r in rows)
    # 0 of 80 hands differ: the share of hands that would is bounded, not 0
    assert all(0 < r["hands_differing_hi"] < 0.1 for r in rows)
    out = _cli(unbound)
    assert "inconclusive" not in out.split("p_adj: Benjamini")[0]
    assert "outcome alike on every one of 80 hands" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("capped_share"))
    assert line.rstrip().endswith("identical: all 80 hands alike")


def test_a_rate_on_fewer_than_10_events_is_flagged_in_the_text(unbound):
    rows = json.loads(_cli(unbound, "--format", "json"))
    rare = {r["metric"] for r in rows if r["rare"]}
    # no win capped: 0 events; the points are means, never flagged
    assert "capped_share" in rare and "money_moved_per_hand" not in rare
    out = _cli(unbound)
    for ln in out.splitlines():
        metric = ln.strip().split(" ")[0]
        if metric in {r["metric"] for r in rows}:
            assert ("(n<10)" in ln) == (metric in rare), ln


def test_unpaired_runs_have_no_count_of_differing_hands(tmp_path):
    rows = compare.paired_comparison([data_dir() / "yuxi", data_dir() / "xuezhan"])
    assert rows["hands_differing"].isna().all() and not rows["identical"].any()


def test_a_figure_the_same_on_every_match_is_identical_though_hands_differ():
    """cap 4 against 16 changes the money of 14 hands, never a winner or a pattern: the
    patterns' rates are identical match for match, the money's are tested."""
    rows = compare.paired_comparison([CAPS / "cap=4", CAPS / "cap=16"]).set_index("metric")
    assert rows["hands_differing"].iloc[0] > 0
    assert rows.loc["pattern_rate[pinghu]", "verdict"] == "identical"
    assert rows.loc["money_moved_per_hand", "verdict"] != "identical"
    assert (
        rows.loc["money_moved_per_hand", "p_adjusted"]
        == rows.loc["money_moved_per_hand", "p_adjusted"]
    )


def _with_transfers(run: Path, out: Path, change) -> Runs:
    """A copy of ``run`` whose transfers ``change`` rewrites (a table in, a table
    out), sealed with a manifest of its files as they now are (same run id)."""
    shutil.copytree(run, out)
    for f in sorted((out / "transfers").glob("part-*.parquet")):
        tab = pq.read_table(f)
        pq.write_table(change(tab), f, **logio.write_options("transfers"))
    seal(out)
    return Runs(out)


def _seq(tab: pa.Table, seq) -> pa.Table:
    """``tab`` with its ``seq`` column made ``seq(frame)`` (a frame of the table)."""
    i = tab.schema.get_field_index("seq")
    new = pa.array(seq(tab.to_pandas()), type=tab.schema.field(i).type)
    return tab.set_column(i, tab.schema.field(i), new)


def test_transfers_alike_but_for_their_event_numbers_are_alike(tmp_path):
    """A hand's transfers are compared in their order, not by the number of the event
    that made each: every transfer's seq moved on by 3, no hand differs."""
    a = CAPS / "cap=16"
    b = _with_transfers(a, tmp_path / "b", lambda t: _seq(t, lambda df: df["seq"] + 3))
    got = compare.hands_differing(Runs(a), b, range(50))
    assert int(got["hands"].sum()) == 400 and int(got["differing"].sum()) == 0


def test_transfers_in_another_order_differ(tmp_path):
    """Each hand's transfers in the reverse order of their events: the hands whose
    transfers read otherwise in order differ, as the tables say (read without DuckDB)."""
    a = CAPS / "cap=16"
    key = ["match", "rotation", "hand"]

    def reverse(df: pd.DataFrame) -> pd.Series:
        by = df.groupby(key)["seq"]
        return by.transform("max") + by.transform("min") - df["seq"]

    b = _with_transfers(a, tmp_path / "b", lambda t: _seq(t, reverse))
    oa, ob = _outcomes(a), _outcomes(b.runs[0].path)
    want = sum(oa[k] != ob[k] for k in oa.index)
    assert 0 < want < 400
    got = compare.hands_differing(Runs(a), b, range(50))
    assert int(got["differing"].sum()) == want


def test_first_walls_of_another_dealer_are_paired_and_said_to_share_the_tiles(tmp_path):
    """xuezhan with another first dealer: the same seed shuffles the same tiles, but the
    first walls differ (the break moves): paired by match, and the note says why the
    walls differ, never that the tile set does."""
    for fd in ("seat0", "random"):
        spec = RunSpec.build(
            "xuezhan", 3, 6, 2, ["random"], sets=[f"first_dealer={fd}"], events=False
        )
        simulate(spec, tmp_path / fd, workers=1, progress=False)
    df = compare.paired_comparison([tmp_path / "seat0", tmp_path / "random"])
    assert (df["pairing"] == "match").all()
    same, shared = int(df["hands_same_walls"].iloc[0]), int(df["hands_shared"].iloc[0])
    assert 0 < same < shared == 12
    assert (
        df["pairing_note"]
        .iloc[0]
        .endswith("the same tiles shuffled alike but the first dealer or the break differs")
    )


def test_runs_under_names_with_glob_characters_are_joined_block_by_block(tmp_path, monkeypatch):
    """A run whose folder name holds glob characters is read literally, its files cut
    to each block's matches as any run's are: the counts are those of its original."""
    a, b = CAPS / "cap=16", CAPS / "cap=1"
    whole = compare.hands_differing(Runs(a), Runs(b), range(50))
    odd = tmp_path / "cap[*?]16"
    shutil.copytree(a, odd)
    monkeypatch.setattr(compare, "DEAL_BLOCK", 7)
    got = compare.hands_differing(Runs(odd), Runs(b), range(50))
    pd.testing.assert_frame_equal(got, whole, check_exact=True)
    assert 0 < int(whole["differing"].sum()) < int(whole["hands"].sum())


def test_a_damaged_footer_unchecked_by_hash_is_one_line_error(tmp_path):
    """With the sha256 check off, a transfers file whose footer is damaged: the
    comparison refuses it in one line, no traceback."""
    run = tmp_path / "r"
    shutil.copytree(CAPS / "cap=16", run)
    p = run / "transfers" / "part-00000.parquet"
    data = bytearray(p.read_bytes())
    data[-12] ^= 0x01  # in the footer's length field: the file is still its size
    p.write_bytes(data)
    with pytest.raises(logio.LogError, match="Parquet") as e:
        compare.hands_differing(Runs(run, verify_hashes=False), Runs(CAPS / "cap=1"), range(50))
    assert "\n" not in str(e.value)
