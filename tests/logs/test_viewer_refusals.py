"""A shared run is untrusted data: hostile strings in it must reach the viewer's
pages as text, never as markup or script (issue 15, point 4).

The run is written by mjlog, then rewritten with pyarrow as an attacker would
(the Parquet writer refuses values outside the log's vocabularies; a run from
elsewhere need not come from that writer), and sealed with a manifest that
matches its files (:func:`tests.sealed.seal`, the one place that knows the
manifest's form).
A markup payload calls ``pwned()`` or sets ``window.__pwned`` if it ever runs.

In Chromium (tests/browser.py) every event of every page is stepped through with
the page's own key handler and controls, checking at each step that no element
was injected (the escaping, checked apart from the CSP that would also stop a
script) and, at the end, that nothing ran, no CSP violation or error was
reported and the hostile text is displayed literally.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mjlog import logio
from mjlog.cli import main
from mjlog.replay import load_hand
from mjlog.viewer import hand_data, render_hand_page, render_index
from tests.sealed import seal

# The markup would call pwned(<its name>) or set window.__pwned if it ever ran; the
# rest probe entities (shown as typed), the page's {{PLACEHOLDERS}}, line separators in
# JSON and names that JavaScript objects inherit.
PAYLOADS = [
    "<img src=x onerror=\"pwned('img')\">",
    "</script><script>pwned('script')</script>",
    '"><svg onload="pwned(\'svg\')">',
    "'><iframe srcdoc=\"<script>parent.pwned('iframe')</script>\"></iframe>",
    "<!--<script>window.__pwned='comment'</script>-->",
    "javascript:pwned('url')",
    '<a href="javascript:pwned(\'href\')" id="evil-link">x</a>',
    '<style>*{display:none}</style><b id="evil-b">bold</b>',
    "&lt;img src=x onerror=pwned('entity')&gt; &amp;",
    "{{JS}}{{DATA}}",
    "\u2028\u2029</SCRIPT >",
    "constructor",
    "__proto__",
]
TEXT_OF_PAGE = "() => document.body.innerText"


def _simulate(out: Path) -> Path:
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            "--variant",
            "xuezhan",
            "--matches",
            "1",
            "--hands-per-match",
            "2",
            "--seed",
            "1",
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


# ------------------------------------------------------------------ a hostile run


def _rewrite(run: Path, table: str, change) -> None:
    """Rewrite every file of ``table`` with ``change(row, i)`` applied to each row,
    keeping the file's schema (dictionary columns and metadata) as it was."""
    for f in sorted((run / table).glob("part-*.parquet")):
        tab = pq.read_table(f)
        rows = tab.to_pylist()
        for i, r in enumerate(rows):
            change(r, i)
        pq.write_table(pa.Table.from_pylist(rows, schema=tab.schema), f)


def _p(i: int) -> str:
    return PAYLOADS[i % len(PAYLOADS)]


def make_hostile(run: Path) -> Path:
    """Hostile strings in the wins (every pattern, the method), the transfers
    (reason), the hands (agents, outcome) and the manifest (agent names)."""
    manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    for s, a in enumerate(manifest["agents"]):
        a["name"] = _p(s + 3)
    rid = logio.run_id({k: manifest[k] for k in logio.RUN_ID_KEYS})

    def ids(r: dict) -> None:
        r["run_id"] = rid

    def hands(r: dict, i: int) -> None:
        ids(r)
        r["agents"] = [_p(i + s) for s in range(len(r["agents"]))]
        r["outcome"] = _p(i + 5)

    def wins(r: dict, i: int) -> None:
        ids(r)
        r["patterns"] = [*r["patterns"], *PAYLOADS]
        r["method"] = _p(i)

    def transfers(r: dict, i: int) -> None:
        ids(r)
        r["reason"] = _p(i)

    _rewrite(run, "hands", hands)
    _rewrite(run, "wins", wins)
    _rewrite(run, "transfers", transfers)
    _rewrite(run, "events", lambda r, i: ids(r))
    assert seal(run, manifest) == rid
    return run


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    run = make_hostile(_simulate(tmp_path_factory.mktemp("hostile") / "run"))
    # the run loads, and its hostile strings are what the replayer reads
    rp = load_hand(run, 0, 0)
    assert rp.wins and all(w["patterns"][-len(PAYLOADS) :] == PAYLOADS for w in rp.wins)
    assert rp.hand["agents"][0] == PAYLOADS[0]
    assert load_hand(run, 0, 1).wins
    return run


def _replay(run: Path, *args: str) -> str:
    res = CliRunner().invoke(main, ["replay", str(run), *args])
    assert res.exit_code == 0, res.output
    return res.output


# ------------------------------------------------------------------ the files


def test_hostile_strings_reach_the_files_only_escaped(hostile_run, tmp_path):
    site = tmp_path / "site"
    _replay(hostile_run, "--html-dir", str(site), "--hands", "all")
    one = tmp_path / "one.html"
    _replay(hostile_run, "--hand", "0:0", "--html", str(one))
    pages = sorted(site.iterdir()) + [one]
    assert len(pages) == 4
    for page in pages:
        text = page.read_text("utf-8")
        # our two scripts (the data block, the viewer) and one style, nothing else
        assert len(re.findall(r"<script\b", text, re.I)) == (
            2 if page.name != "index.html" else 0
        ), page
        assert len(re.findall(r"</script", text, re.I)) == text.count("<script"), page
        assert len(re.findall(r"<style\b", text, re.I)) == 1, page
        for bad in ("<img", "<svg", "<iframe", "<!--", '<a href="java', "<b id=", "</SCRIPT >"):
            assert bad not in text, (page, bad)
        assert re.search(
            r'<meta http-equiv="Content-Security-Policy" content="default-src '
            r"&#x27;none&#x27;; ",
            text,
        ), page
    index = (site / "index.html").read_text("utf-8")
    # the manifest's agent names, escaped
    assert "&#x27;&gt;&lt;iframe srcdoc=&quot;&lt;script&gt;" in index
    assert "&lt;a href=&quot;javascript:pwned(&#x27;href&#x27;)&quot;" in index
    # the wins shown are the replayed state's: the logged rows' strings never reach a page
    for page in pages:
        m = re.search(
            r'<script id="mjlog-data" type="application/json">(.*?)</script>',
            page.read_text("utf-8"),
            re.S,
        )
        if m:
            wins = json.loads(m.group(1))["wins"]
            assert wins and "pwned" not in json.dumps(wins), page


# ------------------------------------------------------------------ in the browser

# How many elements the data injected (our page has two scripts, one style, one
# meta http-equiv): the escaping, checked apart from the CSP.
INJECTED = """(document.querySelectorAll(
    'img, svg, iframe, object, embed, #evil-link, #evil-b, base, form, link, meta[http-equiv]'
  ).length - 1 + document.scripts.length - 2 + document.querySelectorAll('style').length - 1)"""

# Every step, through the page's own key handler: what was injected, if anything.
WALK = """() => {
  const out = [];
  const n = +document.getElementById('slider').max;
  const key = (k) => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
  key('Home');
  for (let i = 0; i <= n; i++) {
    if (i) key('ArrowRight');
    // textContent, not innerText: reading it costs no layout
    out.push([+document.getElementById('table').dataset.seq, INJECTED,
              document.getElementById('wins').textContent,
              document.getElementById('payments').textContent]);
  }
  return out;
}""".replace("INJECTED", INJECTED)

INDEX_BAD = """() => document.querySelectorAll(
  'img, svg, iframe, object, embed, #evil-link, #evil-b, script, base, form').length
  + document.querySelectorAll('style').length - 1"""


def _norm(s: str) -> str:
    """What innerText shows of a string: line separators are whitespace to it."""
    return re.sub(r"\s+", " ", s).strip()


def _walk(page, path: Path, problems: list[str]) -> list:
    """Open ``path`` and step through every event; fails if anything was injected."""
    page.goto(path.as_uri())
    try:
        page.wait_for_selector("body[data-ready='1']")
    except Exception:
        pytest.fail(f"{path.name} did not render: {problems}", pytrace=False)
    steps = page.evaluate(WALK)
    assert [s[0] for s in steps] == list(range(len(steps)))
    assert all(s[1] == 0 for s in steps), f"{path.name}: elements injected at seqs " + str(
        [s[0] for s in steps if s[1]]
    )
    return steps


def test_hostile_run_executes_nothing_in_chromium(hostile_run, tmp_path):
    from tests.browser import chromium

    site = tmp_path / "site"
    _replay(hostile_run, "--html-dir", str(site), "--hands", "all")
    one = tmp_path / "one.html"
    _replay(hostile_run, "--hand", "0:1", "--html", str(one), "--at", "3")
    # the same data, every string field poisoned, straight into the renderer: the
    # page must not depend on the replayer having refused a hostile event
    forged = tmp_path / "forged.html"
    forged.write_text(render_hand_page(_poisoned(hand_data(load_hand(hostile_run, 0, 0)))), "utf-8")
    forged_index = tmp_path / "forged-index.html"
    forged_index.write_text(
        render_index(
            {
                "variant": PAYLOADS[0],
                "run_id": PAYLOADS[1],
                "seed": PAYLOADS[2],
                "agents": [{"name": p} for p in PAYLOADS],
            },
            [],
        ),
        "utf-8",
    )

    ran: list[str] = []
    problems: list[str] = []
    with chromium() as page:
        page.expose_function("pwned", lambda what: ran.append(str(what)))
        page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
        page.on(
            "console",
            lambda m: (
                problems.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        page.on("dialog", lambda d: (ran.append(f"dialog {d.message}"), d.dismiss()))
        hands = sorted(site.glob("match*.html"))
        assert len(hands) == 2
        for path in hands:
            steps = _walk(page, path, problems)
            # the wins on screen are the replayed state's, with their formulas: the
            # hostile patterns and methods of the logged rows are not read
            last_wins, last_pays = steps[-1][2], steps[-1][3]
            assert "pwned" not in last_wins and " points" in last_wins
            # the transfers' reasons are the events' (the replayer checks them)
            assert "pwned" not in last_pays and "(win " in last_pays
            agents = page.eval_on_selector_all(".seat .agent", "es => es.map(e => e.textContent)")
            assert agents in ([_p(s) for s in range(4)], [_p(1 + s) for s in range(4)])
        # the --html page (the second hand again), opened with a hostile fragment:
        # it is ignored, the page opens at --at; then the controls, keys, play
        page.goto(one.as_uri() + "#seq=\"><img src=x onerror=pwned('hash')>")
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate("() => document.getElementById('table').dataset.seq") == "3"
        page.click("#b-start")
        page.keyboard.press("End")
        page.click("#b-prev")
        page.click("#events li[data-seq='2']")
        page.select_option("#speed", "250")
        page.keyboard.press("Space")
        page.keyboard.press("Space")
        page.keyboard.press("End")
        assert page.evaluate(f"() => {INJECTED}") == 0
        assert "pwned" not in page.text_content("#wins")
        steps = _walk(page, forged, problems)
        assert all(_norm(PAYLOADS[0]) in _norm(s[2]) for s in steps if s[2])
        # every poisoned string of a win (patterns, breakdown, payers) shown as typed
        for p in PAYLOADS:
            assert _norm(p) in _norm(steps[-1][2]), p
        assert _norm(PAYLOADS[1]) in _norm(page.inner_text("#events"))
        assert _norm(PAYLOADS[2]) in _norm(page.inner_text("#meta"))
        # the run's index shows the manifest's agents, the forged one every field
        for path, want in ((site / "index.html", PAYLOADS[3:7]), (forged_index, PAYLOADS[:4])):
            page.goto(path.as_uri())
            assert page.evaluate(INDEX_BAD) == 0, path
            shown = _norm(page.evaluate(TEXT_OF_PAGE))
            for p in want:
                assert _norm(p) in shown, (path, p)
        page.goto(site.joinpath("index.html").as_uri())
        page.click("#hands tbody tr:nth-child(1) a")
        page.wait_for_selector("body[data-ready='1']")
        page.wait_for_timeout(300)  # an injected image's error event would have fired
        ran_in_page = page.evaluate("() => window.__pwned === undefined ? null : window.__pwned")
    assert not ran, ran
    assert ran_in_page is None
    assert not problems, problems


def _poisoned(data: dict) -> dict:
    """Every string the page shows from its data replaced by a payload: the run's
    id and agents, every step's sentences and every transfer's reason, every
    win's method, patterns, breakdown (terms, formula, payers) and payments."""
    k = iter(range(10**6))
    m = data["meta"]
    m["run_id"] = PAYLOADS[2]
    m["agents"] = PAYLOADS[:4]
    for st in data["steps"]:
        st["text"], st["words"], st["next"] = PAYLOADS[1], _p(next(k)), _p(next(k))
        if st["ev"][0] == "transfer":
            st["ev"][4] = _p(next(k))
    for w in data["wins"]:
        w["method"] = PAYLOADS[0]
        w["patterns"] = [[_p(next(k)), p] for p in PAYLOADS]
        b = w["breakdown"]
        b["terms"] = [
            {"key": _p(next(k)), "name": p, "count": 2, "value": _p(next(k)), "role": r}
            for p in PAYLOADS
            for r in ("base", "fan", "main")
        ]
        b["formula"], b["payer_text"], b["points"] = _p(next(k)), _p(next(k)), _p(next(k))
        w["payers"] = PAYLOADS[:3]
        for tr in w["transfers"]:
            tr[4] = _p(next(k))
    data["reasons"] = {p: p for p in PAYLOADS}
    return data
