"""The replay API and ``mjlog replay``: snapshots rebuilt through HandState agree
with the log, options shown are the ones the log took from, and the command
renders every step (glyphs, notation, --at, --json)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event
from mjlog.logio import LogError, read_table
from mjlog.replay import (
    Replay,
    ReplayError,
    check_step,
    describe,
    fmt_ordered,
    load_hand,
    rebuild_wall,
    to_event,
)
from mjlog.tiles import parse
from tests import auditruns as ar

CHOICES = (DISCARD, PON, KONG, VOID)


def _hands(name):
    return read_table(ar.run(name), "hands").to_pylist()


@pytest.mark.parametrize("variant", ar.VARIANT_RUNS)
def test_replay_agrees_with_the_log(variant):
    for h in _hands(variant)[:6]:
        rp = load_hand(ar.run(variant), h["match"], h["hand"], h["rotation"])
        snaps = [s for _, _, s in rp.states()]
        assert len(snaps) == h["n_events"]
        last = snaps[-1]
        assert last.over and last.event.type == "end"
        assert list(last.deltas) == h["deltas"]
        assert list(last.winners) == h["winners"]
        assert last.next_dealer == h["next_dealer"]
        assert last.live == h["wall_left"]
        # tile count: each seat holds 13 (+1 when acting) in hand and melds, or is a
        # winner; the wall never grows
        lives = [s.live for s in snaps[len(h["agents"]) :]]
        assert lives == sorted(lives, reverse=True)


@pytest.mark.parametrize("variant", ar.VARIANT_RUNS)
def test_each_choice_was_among_the_options_shown(variant):
    """A snapshot's options are what the next logged choice is taken from."""
    seen = 0
    for h in _hands(variant)[:4]:
        rp = load_hand(ar.run(variant), h["match"], h["hand"], h["rotation"])
        prev = None
        for _, ev, snap in rp.states():
            if prev is not None and prev.forced is not None:
                # a forced event comes next unless a claim window closed silently
                assert ev == prev.forced or prev.window is not None
            if prev is not None and ev.type in CHOICES and prev.options:
                if prev.window is None or (ev.type in (PON, KONG) and ev.from_seat is not None):
                    assert ev in prev.options.get(ev.seat, ()), (describe(ev), prev.options)
                    seen += 1
            if (
                prev is not None
                and ev.type == WIN
                and prev.window is not None
                and prev.forced is None
            ):
                assert ev in prev.options.get(ev.seat, ())
            prev = snap
    assert seen > 20


def test_state_at_equals_stepping():
    h = _hands("xuezhan")[3]
    rp = load_hand(ar.run("xuezhan"), h["match"], h["hand"])
    snaps = {seq: s for seq, _, s in rp.states()}
    for seq in (0, 4, 5, len(snaps) // 2, len(snaps) - 1):
        assert rp.state_at(seq) == snaps[seq]
    with pytest.raises(Exception, match="no event"):
        rp.state_at(len(snaps))


def test_snapshot_json_round_trips_notation():
    h = _hands("huangmei")[0]
    rp = load_hand(ar.run("huangmei"), h["match"], h["hand"])
    snap = rp.state_at(10)
    j = snap.to_json(notation=True)
    assert json.loads(json.dumps(j)) == j
    assert sorted(parse(j["hands"][0])) == list(snap.hands[0])
    ids = snap.to_json()
    assert ids["hands"][0] == list(snap.hands[0])
    assert ids["wall_left"] == snap.live


def test_illegal_event_raises_replay_error():
    b = ar.bundles("yuxi")[0]
    hand, events = b[0], b[1]
    i = next(i for i, e in enumerate(events) if e[1] == "draw")
    events[i][3] = (events[i][3] + 5) % 34
    rp = Replay.from_parts(ar.rules_of("yuxi"), hand, events)
    with pytest.raises(ReplayError) as e:
        for _ in rp.states():
            pass
    assert e.value.discrepancy.check == "draw_tile"
    assert e.value.discrepancy.seq == i


def test_check_step_on_a_closed_window():
    """After a discard nobody claims, the logged draw closes the window itself."""
    b = ar.bundles("huangmei")[2]
    rp = Replay.from_parts(ar.rules_of("huangmei"), b[0], b[1])
    st = rp.new_state()
    closed = 0
    for ev in rp.events:
        had = st.window is not None
        assert check_step(st, ev) is None
        closed += had and st.window is None
        st.apply(ev)
    assert closed > 0


def test_rebuilt_wall_matches_the_drawn_positions():
    for name in ("xuezhan", "huangmei3"):
        for b in ar.bundles(name)[:3]:
            evs = [to_event(e) for e in b[1]]
            wall, problems = rebuild_wall(ar.rules_of(name), evs)
            assert problems == []
            real = b[0]["wall"]
            n = b[0]["players"]
            live = sum(e.type == "draw" and e.kind == "live" for e in evs)
            tail = sum(e.type == "draw" and e.kind == "tail" for e in evs) + sum(
                len(e.tiles) for e in evs if e.type == "horse"
            )
            front = 13 * n + 1 + live
            # every position that was dealt or drawn agrees with the logged wall
            assert wall[:front] == real[:front]
            assert wall[len(real) - tail :] == real[len(real) - tail :]
            assert sorted(wall) == sorted(real)
            assert len(real) - front - tail == b[0]["wall_left"]
            rp = Replay.from_parts(ar.rules_of(name), dict(b[0], wall=[]), evs)
            assert not rp.wall_logged
            assert list(rp.final_state().deltas) == b[0]["deltas"]


def test_rebuild_wall_reports_impossible_draws():
    b = ar.bundles("xuezhan")[0]
    evs = [to_event(e) for e in b[1]]
    draws = [i for i, e in enumerate(evs) if e.type == "draw"]
    for i in draws[:6]:
        evs[i] = evs[i]._replace(tile=0)  # 1m drawn six times more
    _, problems = rebuild_wall(ar.rules_of("xuezhan"), evs)
    assert problems and "1m" in problems[0]


def test_load_hand_errors():
    with pytest.raises(LogError, match="no such hand"):
        load_hand(ar.run("huangmei3"), 9, 9)
    with pytest.raises(LogError, match="without events"):
        load_hand(ar.run("yuxi", events=False), 0, 0)


def test_fmt_ordered_and_describe():
    tiles = [26, 0, 0, 33, 9]
    assert parse(fmt_ordered(tiles)) == tiles
    assert (
        describe(Event("kong", 1, 4, 0, "exposed"), notation=True) == "S1 kong 5m (exposed from S0)"
    )


# ------------------------------------------------------------------ the command


def test_replay_cli_every_step():
    h = _hands("huangmei")[1]
    ref = f"{h['match']}:{h['hand']}"
    r = CliRunner().invoke(main, ["replay", str(ar.run("huangmei")), "--hand", ref, "--step"])
    assert r.exit_code == 0, r.output
    assert r.output.count("\nseq ") == h["n_events"]
    assert "🀇" in r.output or "🀙" in r.output or "🀐" in r.output  # glyphs by default
    assert "over: winners" in r.output


def test_replay_cli_at_notation_and_json():
    run = str(ar.run("xuezhan"))
    r = CliRunner().invoke(main, ["replay", run, "--hand", "0:1", "--at", "6", "--notation"])
    assert r.exit_code == 0, r.output
    assert r.output.count("\nseq ") == 1 and "seq   6" in r.output
    assert "may:" in r.output or "next (forced)" in r.output
    r = CliRunner().invoke(main, ["replay", run, "--hand", "0:1", "--at", "6", "--json"])
    out = json.loads(r.output)
    assert [s["seq"] for s in out["steps"]] == [6]
    assert out["variant"] == "xuezhan" and len(out["steps"][0]["hands"]) == 4
    r = CliRunner().invoke(main, ["replay", run, "--hand", "0:1", "--json", "--notation"])
    out = json.loads(r.output)
    assert len(out["steps"]) == out["n_events"]
    assert isinstance(out["steps"][0]["hands"][0], str)


@pytest.mark.parametrize(
    "args", [["--hand", "3"], ["--hand", "9:9"], ["--hand", "0:0", "--at", "100000"]]
)
def test_replay_cli_errors_are_one_line(args):
    r = CliRunner().invoke(main, ["replay", str(ar.run("huangmei3")), *args])
    assert r.exit_code == 2
    assert "Traceback" not in r.output
