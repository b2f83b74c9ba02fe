"""The browser replay viewer: `mjlog replay --html` / `--html-dir`, and the page
itself in a real headless Chromium (Playwright) checked against the replayer.

The browser tests fail, never skip, when no Chromium can be found (see
tests/browser.py and tests/ensure_chromium.sh). Screenshots go to
tests/artifacts/ (gitignored).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from mjlog.cli import main
from mjlog.replay import load_hand
from mjlog.scoring import explain_win
from mjlog.variants import get_variant
from mjlog.viewer import discards_notation, hand_notation

ARTIFACTS = Path(__file__).parents[1] / "artifacts"


def _simulate(out: Path, variant: str, seed: int = 1, matches: int = 1, hands: int = 3) -> Path:
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            variant,
            "--matches",
            str(matches),
            "--hands-per-match",
            str(hands),
            "--seed",
            str(seed),
            "--agents",
            "greedy",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("viewer-runs")
    return {
        v: _simulate(base / v, v, matches=2 if v == "huangmei" else 1)
        for v in ("huangmei", "xuezhan", "yuxi")
    }


def _replay(run: Path, *args: str) -> str:
    res = CliRunner().invoke(main, ["replay", str(run), *args])
    assert res.exit_code == 0, res.output
    return res.output


def _page_data(path: Path) -> dict:
    text = path.read_text("utf-8")
    m = re.search(r'<script id="mjlog-data" type="application/json">(.*?)</script>', text, re.S)
    assert m, "no embedded data"
    return json.loads(m.group(1))


def _first_hand(run: Path, want) -> tuple[int, int]:
    """(match, hand) of the first hand of ``run`` for which ``want(replay)`` holds."""
    for m in range(2):
        for h in range(3):
            try:
                rp = load_hand(run, m, h)
            except Exception:
                continue
            if want(rp):
                return m, h
    raise AssertionError(f"no suitable hand in {run}")


# ------------------------------------------------------------------ the files


def test_html_page_is_self_contained_and_embeds_the_replayers_states(runs, tmp_path):
    run = runs["xuezhan"]
    out = tmp_path / "hand.html"
    _replay(run, "--hand", "0:0", "--html", str(out))
    text = out.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>")
    # nothing fetched: no external script, style, image or font
    for bad in ("http://", "https://", "<link", " src=", "@import", "url("):
        assert bad not in text, bad
    # a CSP allowing the page's own inline script and style, by hash, and nothing else
    csp = (
        re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', text)
        .group(1)
        .replace("&#x27;", "'")
    )
    script = re.search(r"<script>(.*?)</script>", text, re.S).group(1)
    style = re.search(r"<style>(.*?)</style>", text, re.S).group(1)
    want = {"script-src": script, "style-src": style}
    rules = dict(d.split(" ", 1) for d in csp.split("; "))
    assert rules["default-src"] == "'none'" and rules["base-uri"] == "'none'"
    for directive, block in want.items():
        digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
        assert rules[directive] == f"'sha256-{digest}'", directive
    assert "unsafe" not in csp
    data = _page_data(out)
    rp = load_hand(run, 0, 0)
    snaps = [s for _, _, s in rp.states()]
    assert len(data["steps"]) == len(snaps) == len(rp.events)
    for step, snap in zip(data["steps"], snaps, strict=True):
        assert step["seq"] == snap.seq
        assert step["hands"] == [list(h) for h in snap.hands]
        assert step["discards"] == [list(d) for d in snap.discards]
        assert step["wall"] == snap.live and step["deltas"] == list(snap.deltas)
        assert step["void"] == ["mps"[v] if v is not None else None for v in snap.void]
    assert data["meta"]["variant"] == "xuezhan" and data["meta"]["has_void"]
    # every win with its patterns (key, Chinese name) and payments adding up to its total
    assert [w["seq"] for w in data["wins"]] == [w["seq"] for w in rp.wins]
    for w, row in zip(data["wins"], rp.wins, strict=True):
        assert [k for k, _ in w["patterns"]] == row["patterns"]
        assert all(zh and zh != k for k, zh in w["patterns"])
        assert all(zh == get_variant("xuezhan").pattern_name(k) for k, zh in w["patterns"])
        assert sum(t[3] for t in w["transfers"]) == row["total"]
        assert all(t[2] == row["seat"] for t in w["transfers"])
        # the scorer's breakdown of the win: its points are the win's, and the seats
        # it says pay are the seats the transfers of reason win come from
        b = w["breakdown"]
        assert b == explain_win(SimpleNamespace(**row), rp.rules).to_json()
        assert (b["points"], b["fan"], b["multiplier"]) == (
            row["points"],
            row["fan"],
            row["multiplier"],
        )
        assert sorted(w["payers"]) == sorted(t[1] for t in w["transfers"] if t[4] == "win")
        assert b["formula"].endswith(f"{row['points']} points")  # xuezhan: ×… → N points


def test_wins_come_from_the_replayed_state_not_the_logged_rows(runs):
    """The page shows what replaying the events gives: the state's win records, a
    wins table left out or tampered with changes nothing."""
    from mjlog.viewer import hand_data

    for variant, run in runs.items():
        m, h = _first_hand(run, lambda rp: rp.wins)
        rp = load_hand(run, m, h)
        want = hand_data(rp)["wins"]
        assert want and all(w["breakdown"]["formula"] for w in want)
        rp.wins = [dict(r, points=r["points"] + 99, patterns=["qingyise"]) for r in rp.wins]
        assert hand_data(rp)["wins"] == want
        rp.wins, rp.transfers = [], []
        assert hand_data(rp)["wins"] == want
        assert hand_data(rp)["meta"]["variant_name"] == get_variant(variant).title


def test_at_sets_where_the_page_opens(runs, tmp_path):
    out = tmp_path / "at.html"
    _replay(runs["yuxi"], "--hand", "0:1", "--html", str(out), "--at", "20")
    assert _page_data(out)["start"] == 20


def test_html_dir_writes_pages_and_an_index(runs, tmp_path):
    run = runs["huangmei"]
    out = tmp_path / "site"
    msg = _replay(run, "--html-dir", str(out), "--hands", "all")
    assert "wrote 6 hand page(s)" in msg
    index = (out / "index.html").read_text("utf-8")
    links = re.findall(r'<a href="([^"]+)">', index)
    assert links == [f"match{m:03d}-hand{h:03d}.html" for m in range(2) for h in range(3)]
    assert all((out / href).is_file() for href in links)
    for m in range(2):
        for h in range(3):
            rp = load_hand(run, m, h)
            row = re.search(rf'<tr data-key="{m}:0:{h}">(.*?)</tr>', index, re.S).group(1)
            for w in rp.wins:
                assert f'data-patterns="{",".join(w["patterns"])}"' in row
                assert f"points {w['points']}" in row
                formula = explain_win(SimpleNamespace(**w), rp.rules).formula
                assert f'<span class="formula">{formula}</span>' in row
            assert " ".join(f"{d:+d}" for d in rp.hand["deltas"]) in row
    # the match score carries over from hand to hand
    d1 = _page_data(out / "match001-hand002.html")["meta"]
    r0, r1 = load_hand(run, 1, 0), load_hand(run, 1, 1)
    assert d1["match_before"] == [
        a + b for a, b in zip(r0.hand["deltas"], r1.hand["deltas"], strict=True)
    ]
    # each page links to the index and its neighbours
    mid = (out / links[1]).read_text("utf-8")
    assert f'id="link-prev" href="{links[0]}"' in mid and 'href="index.html"' in mid
    assert f'id="link-next" href="{links[2]}"' in mid
    assert 'id="link-prev"' not in (out / links[0]).read_text("utf-8")
    assert 'id="link-next"' not in (out / links[-1]).read_text("utf-8")
    # a chosen list
    msg = _replay(run, "--html-dir", str(tmp_path / "two"), "--hands", "0:1,1:0")
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == [
        "index.html",
        "match000-hand001.html",
        "match001-hand000.html",
    ]


@pytest.mark.parametrize(
    "args, msg",
    [
        (["--html", "x.html"], "--html needs --hand"),
        (["--html-dir", "d", "--hands", "0-1"], "bad --hands item '0-1'"),
        (["--html-dir", "d", "--hands", "7:0"], "no such hand(s) in the run: 7:0"),
        (["--hand", "0:0", "--html", "x.html", "--html-dir", "d"], "not both"),
        (["--hand", "0:0", "--html", "x.html", "--at", "9999"], "--at 9999"),
    ],
)
def test_html_errors_are_one_line_exit_2(runs, tmp_path, monkeypatch, args, msg):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["replay", str(runs["yuxi"]), *args])
    assert res.exit_code == 2, res.output
    assert msg in res.output


# ------------------------------------------------------------------ in the browser

READ_PAGE = """() => {
  const t = document.getElementById('table');
  const seats = [...document.querySelectorAll('.seat')].map(e => ({
    seat: +e.dataset.seat, hand: e.dataset.hand, melds: e.dataset.melds,
    discards: e.dataset.discards, score: +e.dataset.score,
    total: e.dataset.total === undefined ? null : +e.dataset.total,
    bonus: +e.dataset.bonus, void: e.dataset.void, won: e.dataset.won === '1',
    tiles: e.querySelectorAll('.hand .tile').length}));
  return {seq: +t.dataset.seq, wall: +t.dataset.wallLeft, seats,
          wallText: document.getElementById('wall-left').textContent,
          event: document.getElementById('event').textContent,
          hash: location.hash, playing: document.body.dataset.playing,
          wins: [...document.querySelectorAll('.wincard')].map(w => w.dataset.patterns),
          formulas: [...document.querySelectorAll('.wincard .formula')].map(
            f => f.textContent),
          payers: [...document.querySelectorAll('.wincard .payers')].map(
            p => p.dataset.payers),
          slider: +document.getElementById('slider').value};
}"""


def _expected(snap, before: list[int]) -> list[dict]:
    out = []
    for s in range(len(snap.hands)):
        melds = ",".join(f"{k}:{t % 9 + 1}{'mpsz'[t // 9]}" for k, t, _ in snap.melds[s]) or "-"
        out.append(
            {
                "seat": s,
                "hand": hand_notation(snap.hands[s]),
                "melds": melds,
                "discards": discards_notation(snap.discards[s]),
                "score": snap.deltas[s],
                "total": before[s] + snap.deltas[s],
                "bonus": snap.bonus[s],
                "void": "mps"[snap.void[s]] if snap.void[s] is not None else "",
                "won": snap.won[s] or s in snap.winners,
            }
        )
    return out


def _check(view: dict, snap, before: list[int]) -> None:
    assert view["seq"] == snap.seq
    assert view["wall"] == snap.live and view["wallText"] == str(snap.live)
    assert view["slider"] == snap.seq and view["hash"] == f"#seq={snap.seq}"
    got = [{k: v for k, v in s.items() if k != "tiles"} for s in view["seats"]]
    assert got == _expected(snap, before), f"seq {snap.seq}"
    for s, seat in enumerate(view["seats"]):
        # the tiles drawn are the hand (plus, after a win on a discard, the winning tile)
        extra = 1 if seat["won"] and seat["tiles"] == len(snap.hands[s]) + 1 else 0
        assert seat["tiles"] == len(snap.hands[s]) + extra


def _same_tile(rp, w: dict, t: dict) -> bool:
    """The transfer ``t`` is paid before the first win on another tile after ``w``."""
    later = [o["seq"] for o in rp.wins if o["win_order"] > w["win_order"]]
    return t["seq"] < min(later, default=len(rp.events))


def _open(page, path: Path, fragment: str = "") -> None:
    page.goto(path.as_uri() + fragment)
    page.wait_for_selector("body[data-ready='1']")


def _page_for(run: Path, tmp_path: Path, want, name: str):
    m, h = _first_hand(run, want)
    out = tmp_path / f"{name}.html"
    _replay(run, "--hand", f"{m}:{h}", "--html", str(out))
    rp = load_hand(run, m, h)
    before = _page_data(out)["meta"]["match_before"]
    return out, rp, [s for _, _, s in rp.states()], before


WALK = """() => {
  // every step, through the page's own key handler, read after each one
  const read = READ;
  const out = [read()];
  const n = +document.getElementById('slider').max;
  for (let i = 0; i < n; i++) {
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
    out.push(read());
  }
  return out;
}""".replace("READ", READ_PAGE, 1)


def _seq(page) -> int:
    return int(page.evaluate("document.getElementById('table').dataset.seq"))


def test_pages_in_chromium_follow_the_replayer(runs, tmp_path):
    """One browser for everything (a launch costs seconds): two hand pages checked
    against the replayer at every step, the controls, the fragment, the index."""
    from tests.browser import chromium

    ARTIFACTS.mkdir(exist_ok=True)
    pages = [
        # xuezhan: void suits, several winners, payments at once
        _page_for(runs["xuezhan"], tmp_path, lambda rp: len(rp.wins) >= 2, "xuezhan"),
        # huangmei: laid-out 发 and a win
        _page_for(
            runs["huangmei"],
            tmp_path,
            lambda rp: rp.wins and any(e.type == "bonus" for e in rp.events),
            "huangmei",
        ),
    ]
    site = tmp_path / "site"
    _replay(runs["yuxi"], "--html-dir", str(site), "--hands", "all")
    with chromium() as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for path, rp, snaps, before in pages:
            variant = rp.rules.variant
            _open(page, path)
            # the whole hand, step by step: what the page shows is the replayer's state
            views = page.evaluate(WALK)
            assert len(views) == len(snaps)
            for view, snap in zip(views, snaps, strict=True):
                _check(view, snap, before)
                shown = [w for w in rp.wins if w["seq"] <= snap.seq]
                assert view["wins"] == [",".join(w["patterns"]) for w in shown], snap.seq
                # each win card shows the scorer's formula and the seats that pay
                assert view["formulas"] == [
                    explain_win(SimpleNamespace(**w), rp.rules).formula for w in shown
                ]
                assert [sorted(map(int, p.split(","))) for p in view["payers"]] == [
                    sorted(
                        t["payer"]
                        for t in rp.transfers
                        if t["payee"] == w["seat"]
                        and t["reason"] == "win"
                        and t["seq"] > w["seq"]
                        and _same_tile(rp, w, t)
                    )
                    for w in shown
                ], snap.seq
            # a win on screen, with its patterns and payments
            shot_at = next(w["seq"] for w in rp.wins) + 1
            _open(page, path, f"#seq={shot_at}")
            _check(page.evaluate(READ_PAGE), snaps[shot_at], before)
            page.screenshot(path=str(ARTIFACTS / f"viewer-{variant}.png"), full_page=True)
            # real key presses: arrows, Home, End
            _open(page, path)
            for k in range(1, 6):
                page.keyboard.press("ArrowRight")
                _check(page.evaluate(READ_PAGE), snaps[k], before)
            page.keyboard.press("ArrowLeft")
            _check(page.evaluate(READ_PAGE), snaps[4], before)
            page.keyboard.press("End")
            _check(page.evaluate(READ_PAGE), snaps[-1], before)
            page.keyboard.press("ArrowRight")  # stays at the end
            assert _seq(page) == len(snaps) - 1
            page.keyboard.press("ArrowLeft")
            _check(page.evaluate(READ_PAGE), snaps[-2], before)
            page.keyboard.press("Home")
            _check(page.evaluate(READ_PAGE), snaps[0], before)
            # the fragment restores the position on load, and follows edits
            mid = len(snaps) // 2
            _open(page, path, f"#seq={mid}")
            _check(page.evaluate(READ_PAGE), snaps[mid], before)
            page.evaluate("location.hash = '#seq=7'")
            page.wait_for_selector("#table[data-seq='7']")
            _check(page.evaluate(READ_PAGE), snaps[7], before)
            # buttons, slider and event list (focus on a control: the keys still work)
            page.click("#b-next")
            assert _seq(page) == 8
            page.keyboard.press("ArrowRight")
            assert _seq(page) == 9
            page.click("#b-end")
            assert _seq(page) == len(snaps) - 1
            page.click("#b-start")
            assert _seq(page) == 0
            page.click("#events li[data-seq='12']")
            _check(page.evaluate(READ_PAGE), snaps[12], before)
            page.eval_on_selector(
                "#slider", "(e) => { e.value = 30; e.dispatchEvent(new Event('input')); }"
            )
            _check(page.evaluate(READ_PAGE), snaps[30], before)
        # space plays and pauses (the last page, from seq 30, fast)
        page.select_option("#speed", "250")
        page.keyboard.press("Space")
        assert page.evaluate(READ_PAGE)["playing"] == "1"
        # a function, not an expression string: the page's CSP forbids eval
        page.wait_for_function("() => +document.getElementById('table').dataset.seq >= 32")
        page.keyboard.press("Space")
        view = page.evaluate(READ_PAGE)
        assert view["playing"] == "0"
        page.wait_for_timeout(600)
        assert _seq(page) == view["seq"]
        _check(view, pages[-1][2][view["seq"]], pages[-1][3])
        # the tiles carry their Chinese names on hover
        title = page.get_attribute(".seat .hand .tile", "title")
        assert re.fullmatch(r"\S+ [1-9][mpsz]", title), title
        # the index lists the hands and links to their pages
        page.goto((site / "index.html").as_uri())
        rows = page.eval_on_selector_all("#hands tbody tr", "rs => rs.map(r => r.dataset.key)")
        assert rows == ["0:0:0", "0:0:1", "0:0:2"]
        page.screenshot(path=str(ARTIFACTS / "viewer-index.png"), full_page=True)
        page.click("#hands tbody tr:nth-child(2) a")
        page.wait_for_selector("body[data-ready='1']")
        assert page.url.endswith("match000-hand001.html#seq=0")
        assert not errors, errors
    for name in ("xuezhan", "huangmei", "index"):
        assert (ARTIFACTS / f"viewer-{name}.png").stat().st_size > 10_000


def test_the_wall_counter_counts_down_through_the_deal(runs, tmp_path):
    """Issue 47: the page's wall counter read the full wall (136) through the deal.
    Each deal takes its tiles off the wall: 136 - 13 after the first 13-tile seat."""
    run = runs["yuxi"]
    out = tmp_path / "hand.html"
    _replay(run, "--hand", "0:0", "--html", str(out))
    steps = _page_data(out)["steps"]
    deals = [s for s in steps if s["ev"][0] == "deal"]
    total = 136
    held = [sum(len(h) for h in s["hands"]) for s in deals]
    assert [s["wall"] for s in deals] == [total - k for k in held]
    assert held[-1] == 13 * len(deals) + 1 and deals[0]["wall"] < total
    after = steps[len(deals)]  # the first event after the deal: the count goes on from there
    assert after["wall"] <= deals[-1]["wall"]
