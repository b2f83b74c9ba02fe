"""A replay viewer in the browser: one self-contained HTML page per logged hand.

The replayer (:mod:`mjlog.replay`) rebuilds every step of a hand through the one
transition function; this module turns those snapshots into JSON, embeds it in
one HTML page with its CSS and JavaScript (no network, no server), and writes an
``index.html`` for many hands. The page only renders what the replayer computed:
it never re-implements a rule.

What a page shows at each step: every seat's hand face up, melds, discard piles,
laid-out 发 (huangmei) and void suits (xuezhan), the live wall count, the dealer,
the scores (this hand and the match so far), the event in words, and from each
win on: the winning hand, its patterns (keys and Chinese names), fan and every
payment. Controls: step, jump, play/pause, a slider, an event list, the keys
←/→, Home/End and space; the URL fragment ``#seq=N`` keeps the position.

A run is data, and a shared one may be hostile: every value reaches a page as
text. The data is embedded as JSON with ``<``, ``>``, ``&``, U+2028 and U+2029
escaped; the page's script builds its DOM with ``createElement`` and text nodes
(never ``innerHTML``); the index escapes every value. Each page carries a
Content-Security-Policy (:func:`csp`) that lets only its own inline script and
style run, by their sha256, and nothing be fetched.

The page's elements carry ``data-`` attributes in notation (``data-hand``,
``data-discards``, ``data-wall-left``, ``data-score`` …) so tests and scripts can
read what it shows.

>>> from mjlog.rules import Rules
>>> from mjlog.engine import play_hand
>>> from mjlog.replay import Replay
>>> from mjlog.agent import GreedyAgent
>>> p = play_hand(Rules("huangmei"), [GreedyAgent() for _ in range(4)], seed=5, match=0, hand=0,
...               dealer=None)
>>> rp = Replay.from_parts(p.state.rules, p.state.hand_row(), p.state.events)
>>> data = hand_data(rp)
>>> len(data["steps"]) == len(p.state.events), data["meta"]["variant"]
(True, 'huangmei')
>>> page = render_hand_page(data)
>>> page.startswith("<!DOCTYPE html>") and "http://" not in page and "https://" not in page
True
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from mjlog.errors import InputError, quote
from mjlog.events import (
    BONUS,
    DEAL,
    DISCARD,
    DRAW,
    END,
    HORSE,
    KONG,
    PON,
    REASON_NAMES,
    TRANSFER,
    VOID,
    WIN,
    Event,
)
from mjlog.ledger import WIN_TOTAL_REASONS, WinRecord
from mjlog.replay import (
    Replay,
    ReplayError,
    Snapshot,
    describe,
    fmt_ordered,
    run_events,
    summarise,
)
from mjlog.scoring import explain_win
from mjlog.scoring.breakdown import payer_seats
from mjlog.state import HandState
from mjlog.tiles import fmt, fmt_tile, name
from mjlog.variants import VARIANTS

__all__ = [
    "REASON_NAMES",
    "hand_data",
    "words",
    "render_hand_page",
    "render_index",
    "parse_hands",
    "page_name",
    "write_hand_page",
    "write_pages",
]

_SUIT_NAMES = {"m": "万 (m)", "p": "筒 (p)", "s": "条 (s)"}
_KONG_WORDS = {
    "exposed": "an exposed kong (明杠)",
    "added": "an added kong (补杠)",
    "concealed": "a concealed kong (暗杠)",
}


# ------------------------------------------------------------------ words


def _t(t: int | None) -> str:
    """A tile in notation and in words (``?`` for an event that names none)."""
    return "?" if t is None else f"{fmt_tile(t)} {name(t)}"


def _win_how(ev: Event) -> str:
    """How a win was made, in words leading to its tile."""
    how = {
        "self_draw": "by self-draw (自摸) on",
        "discard": f"on S{ev.from_seat}'s discard (点炮)",
        "robbed_kong": f"by robbing S{ev.from_seat}'s kong (抢杠胡) of",
        "shilaotou": "with ten honour discards (十老头), the last",
    }
    return how.get(ev.kind or "", f"({ev.kind}) on")


def words(ev: Event, dealer: int | None = None) -> str:
    """The event as a sentence, for the page's status line.

    >>> words(Event("pon", 2, 13, 1))
    'S2 pons 5p 五筒 discarded by S1.'
    >>> words(Event("win", 3, 4, None, "self_draw", (4,)))
    'S3 wins by self-draw (自摸) on 5m 五万.'
    >>> words(Event("transfer", 1, None, 0, "kong_exposed", None, 2))
    'S0 pays S1 2 (kong_exposed 明杠).'
    """
    t, s = ev.type, f"S{ev.seat}"
    if t == DEAL:
        n = len(ev.tiles or ())
        who = " (the dealer)" if ev.seat == dealer else ""
        return f"{s}{who} is dealt {n} tiles."
    if t == VOID:
        return f"{s} chooses {_SUIT_NAMES.get(ev.kind or '', ev.kind)} as its void suit (定缺)."
    if t == DRAW:
        where = "the tail (a replacement)" if ev.kind == "tail" else "the wall"
        return f"{s} draws {_t(ev.tile)} from {where}."
    if t == BONUS:
        return f"{s} lays out {_t(ev.tile)} (a bonus tile); a replacement follows from the tail."
    if t == DISCARD:
        return f"{s} discards {_t(ev.tile)}."
    if t == PON:
        return f"{s} pons {_t(ev.tile)} discarded by S{ev.from_seat}."
    if t == KONG:
        what = _KONG_WORDS.get(ev.kind or "", f"a kong ({ev.kind})")
        src = f", claiming S{ev.from_seat}'s discard" if ev.kind == "exposed" else ""
        return f"{s} declares {what} of {_t(ev.tile)}{src}."
    if t == WIN:
        return f"{s} wins {_win_how(ev)} {_t(ev.tile)}."
    if t == HORSE:
        tiles = ", ".join(_t(x) for x in ev.tiles or ()) or "none"
        return f"Horses (买马) turned from the tail: {tiles}."
    if t == TRANSFER:
        why = (
            f"{ev.kind} {REASON_NAMES[ev.kind]}"
            if ev.kind is not None and ev.kind in REASON_NAMES
            else ev.kind
        )
        return f"S{ev.from_seat} pays {s} {ev.amount} ({why})."
    if t == END:
        return "The hand ends."
    return describe(ev)


# ------------------------------------------------------------------ data


def _meld_json(ms: Sequence[tuple[str, int, int | None]]) -> list[list]:
    return [[k, t, f] for k, t, f in ms]


def _next_text(snap: Snapshot) -> str:
    if snap.over:
        return ""
    if snap.forced is not None:
        return "Next (forced): " + describe(snap.forced)
    if not snap.options:
        return "Nobody may claim: the window closes."
    claim = " (or pass)" if snap.window is not None else ""
    return " · ".join(f"S{s} may: {summarise(o)}{claim}" for s, o in snap.options.items())


def _step(snap: Snapshot, dealer: int) -> dict[str, Any]:
    ev = snap.event
    return {
        "seq": snap.seq,
        "ev": [
            ev.type,
            ev.seat,
            ev.tile,
            ev.from_seat,
            ev.kind,
            list(ev.tiles) if ev.tiles is not None else None,
            ev.amount,
        ],
        "text": describe(ev),
        "words": words(ev, dealer),
        "next": _next_text(snap),
        "may": sorted(snap.options),
        "phase": snap.phase,
        "turn": snap.turn,
        "hands": [list(h) for h in snap.hands],
        "melds": [_meld_json(m) for m in snap.melds],
        "discards": [list(d) for d in snap.discards],
        "bonus": list(snap.bonus),
        "void": ["mps"[v] if v is not None else None for v in snap.void],
        "won": list(snap.won),
        "wall": snap.live,
        "deltas": list(snap.deltas),
        "winners": list(snap.winners),
        "over": snap.over,
        "next_dealer": snap.next_dealer,
    }


def _win_payments(st: HandState) -> dict[int, list[list]]:
    """seq of each win → its payments ``[seq, payer, payee, amount, reason]`` from the
    state's ledger: to the winner, reason win/horse/call_transfer, after its win
    and before the first win on another tile (what ``wins.total`` adds up)."""
    wins = st.ledger.wins
    out: dict[int, list[list]] = {}
    for w in wins:
        end = min((o.seq for o in wins if o.win_order > w.win_order), default=len(st.events))
        out[w.seq] = [
            list(t)
            for t in st.ledger.transfers
            if w.seq < t[0] < end and t[2] == w.seat and t[4] in WIN_TOTAL_REASONS
        ]
    return out


def _win_data(
    w: WinRecord, st: HandState, snap: Snapshot, ev: Event, paid: list[list]
) -> dict[str, Any]:
    """One win as the page shows it: the state's record, its breakdown (the
    scorer's :func:`~mjlog.scoring.explain_win`) and the seats that pay it."""
    rules = st.rules
    b = explain_win(w, rules)
    earlier = {o.seat for o in st.ledger.wins if o.win_order < w.win_order}
    return {
        "seq": w.seq,
        "seat": w.seat,
        "from_seat": w.from_seat,
        "tile": w.tile,
        "method": w.method,
        "win_order": w.win_order,
        "hand": sorted(ev.tiles or ()),
        "melds": _meld_json(snap.melds[w.seat]),
        "bonus": snap.bonus[w.seat],
        "patterns": [[k, rules.spec.pattern_name(k)] for k in w.patterns],
        "fan": w.fan,
        "multiplier": w.multiplier,
        "points": w.points,
        "total": w.total,
        "capped": w.capped,
        "breakdown": b.to_json(),
        "payers": payer_seats(b, w.seat, w.from_seat, rules.n, earlier),
        "transfers": paid,
    }


def hand_data(rp: Replay, match_before: Sequence[int] | None = None) -> dict[str, Any]:
    """Everything one page shows, as JSON-ready data: ``meta`` (the hand row and
    the run), ``steps`` (one per event, from the replayer's snapshots), ``wins``
    (the replayed state's win records, each with its breakdown, its payers and its
    payments), ``tiles`` (names). ``match_before`` is each seat's match score
    before this hand.

    Raises :class:`mjlog.replay.ReplayError` when the log breaks the rules.
    """
    h = rp.hand
    dealer = h["dealer"]
    events = rp.events
    st = rp.new_state()
    snaps: list[Snapshot] = []
    _, d = run_events(st, events, lambda seq, ev, s: snaps.append(Snapshot.of(seq, ev, s)))
    if d is not None:
        raise ReplayError(rp.where, d)
    n = rp.rules.n
    variant = rp.rules.variant
    paid = _win_payments(st)
    wins = [_win_data(w, st, snaps[w.seq], events[w.seq], paid[w.seq]) for w in st.ledger.wins]
    meta = {
        "run_id": h.get("run_id"),
        "variant": variant,
        "variant_name": rp.rules.spec.title,
        "match": h.get("match"),
        "rotation": h.get("rotation", 0),
        "hand": h.get("hand"),
        "players": n,
        "dealer": dealer,
        "dice": list(h.get("dice") or ()),
        "break": h.get("break"),
        "agents": list(h.get("agents") or ()),
        "outcome": h.get("outcome"),
        "winners": list(h.get("winners") or ()),
        "deltas": list(h.get("deltas") or snaps[-1].deltas),
        "n_events": len(events),
        "wall_size": len(rp.wall),
        "wall_logged": rp.wall_logged,
        "next_dealer": h.get("next_dealer"),
        "has_bonus": rp.rules.spec.bonus_tile is not None,
        "has_void": rp.rules.spec.has_void,
        "match_before": list(match_before) if match_before is not None else None,
    }
    return {
        "meta": meta,
        "tiles": {"names": [name(t) for t in range(34)]},
        "reasons": REASON_NAMES,
        "wins": wins,
        "steps": [_step(s, dealer) for s in snaps],
    }


# ------------------------------------------------------------------ pages


def _asset(fname: str) -> str:
    return resources.files("mjlog").joinpath("viewer_assets", fname).read_text("utf-8")


def _embed_json(obj: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element: ``<``, ``>``
    and ``&`` become ``\\u003c``, ``\\u003e`` and ``\\u0026`` (no ``</script>``, no
    ``<!--``, nothing an HTML parser acts on), and U+2028/U+2029 are escaped too.
    ``JSON.parse`` reads the same values back.

    >>> _embed_json({"k": "</script><!--&\u2028"})
    '{"k":"\\\\u003c/script\\\\u003e\\\\u003c!--\\\\u0026\\\\u2028"}'
    """
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return s.translate(_JSON_ESCAPES)


_JSON_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def _csp_hash(text: str) -> str:
    """A CSP source for one inline block: its sha256, as the browser computes it."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def csp(scripts: Sequence[str] = (), styles: Sequence[str] = ()) -> str:
    """The Content-Security-Policy of a page whose only active content is the inline
    ``scripts`` and ``styles`` given (their exact text): nothing is fetched, no other
    script runs (no inline handler, no ``javascript:`` URL, no injected element),
    no string reaches an HTML sink (Trusted Types: the viewer builds its DOM with
    ``createElement`` and ``textContent``), no form is sent, no ``<base>`` applies.

    >>> csp(styles=["p{}"]).split("; ")
    ["default-src 'none'", "style-src 'sha256-gG2yISYereRMiG2lMXrbiUgi0Ubw9p7QCeWcroOvy9Y='", \
"base-uri 'none'", "form-action 'none'"]
    """
    parts = ["default-src 'none'"]
    if scripts:
        parts.append("script-src " + " ".join(_csp_hash(t) for t in scripts))
        parts.append("require-trusted-types-for 'script'; trusted-types 'none'")
    if styles:
        parts.append("style-src " + " ".join(_csp_hash(t) for t in styles))
    parts += ["base-uri 'none'", "form-action 'none'"]
    return "; ".join(parts)


def _title(meta: Mapping[str, Any]) -> str:
    rot = f" rotation {meta['rotation']}" if meta.get("rotation") else ""
    return (
        f"{meta['variant']} {meta['variant_name']} · match {meta['match']}{rot} hand {meta['hand']}"
    )


def _nav(links: Mapping[str, str | None]) -> str:
    label = {"prev": "&larr; previous hand", "index": "all hands", "next": "next hand &rarr;"}
    return "".join(
        f'<a class="index" id="link-{k}" href="{html.escape(href)}">{label[k]}</a>'
        for k in ("prev", "index", "next")
        if (href := links.get(k))
    )


def render_hand_page(data: Mapping[str, Any], links: Mapping[str, str | None] | None = None) -> str:
    """One self-contained HTML page (inline CSS, JavaScript and data). ``links``
    may name the ``index``, ``prev`` and ``next`` pages (an ``--html-dir``)."""
    page = _asset("hand.html")
    css, js = _inline("viewer.css", "style"), _inline("viewer.js", "script")
    parts = {
        "{{CSP}}": html.escape(csp(scripts=[js], styles=[css])),
        "{{TITLE}}": html.escape(_title(data["meta"])),
        "{{INDEX_LINK}}": _nav(links or {}),
        "{{CSS}}": css,
        "{{DATA}}": _embed_json(data),
        "{{JS}}": js,
    }
    return _fill(page, parts)


def _inline(fname: str, tag: str) -> str:
    """An asset as the text of an inline ``<style>``/``<script>`` (what its CSP
    hash covers); it must not end its element early."""
    text = "\n" + _asset(fname) + "\n"
    low = text.lower()
    if f"</{tag}" in low or "<!--" in low:
        raise AssertionError(f"viewer asset {fname} would end its <{tag}> element")
    return text


def _fill(page: str, parts: Mapping[str, str]) -> str:
    """Substitute every placeholder in one pass (a value is never re-scanned)."""
    return re.sub(r"\{\{[A-Z_]+\}\}", lambda m: parts.get(m.group(0), m.group(0)), page)


def page_name(match: int, hand: int, rotation: int = 0) -> str:
    """File name of one hand's page in an ``--html-dir``.

    >>> page_name(0, 3), page_name(2, 1, rotation=1)
    ('match000-hand003.html', 'match002-rot1-hand001.html')
    """
    rot = f"-rot{rotation}" if rotation else ""
    return f"match{match:03d}{rot}-hand{hand:03d}.html"


def _match_scores(
    run_dir: str | os.PathLike[str], match: int, rotation: int, hand: int
) -> list[int] | None:
    from mjlog.logio import read_table

    rows = read_table(
        run_dir,
        "hands",
        columns=["match", "rotation", "hand", "deltas"],
        filters=[("match", "=", match), ("rotation", "=", rotation), ("hand", "<", hand)],
    ).to_pylist()
    if not rows:
        return None
    tot = [0] * len(rows[0]["deltas"])
    for r in rows:
        for s, d in enumerate(r["deltas"]):
            tot[s] += d
    return tot


def write_hand_page(
    run_dir: str | os.PathLike[str],
    match: int,
    hand: int,
    out: str | os.PathLike[str],
    rotation: int = 0,
    start: int | None = None,
) -> Path:
    """Replay one hand of a run and write its page to ``out``; the page opens at
    event ``start`` (default 0) unless its URL has a ``#seq=N`` fragment."""
    from mjlog.replay import load_hand

    rp = load_hand(run_dir, match, hand, rotation)
    if start is not None and not 0 <= start < len(rp.events):
        raise InputError(
            f"--at {start}: the hand has {len(rp.events)} events (0..{len(rp.events) - 1})"
        )
    before = _match_scores(run_dir, match, rotation, hand) if hand > 0 else None
    data = hand_data(rp, before or ([0] * rp.rules.n))
    data["start"] = start or 0
    return _write(out, render_hand_page(data))


def _write(path: str | os.PathLike[str], text: str) -> Path:
    """A page, whole or not at all, never into a run (a device is written to)."""
    from mjlog.rundir import write_atomic

    p = Path(path)
    if p.parent and not p.parent.is_dir():
        p.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(p, text, "--html")


def parse_hands(spec: str) -> list[tuple[int, int, int]] | None:
    """``--hands``: ``all`` (None) or a comma list of ``MATCH:HAND`` or
    ``MATCH:ROTATION:HAND``; keys come back as (match, rotation, hand).

    >>> parse_hands("0:0, 0:1,2:1:3")
    [(0, 0, 0), (0, 0, 1), (2, 1, 3)]
    >>> parse_hands("all") is None
    True
    >>> parse_hands("0-1")
    Traceback (most recent call last):
    ...
    mjlog.errors.InputError: bad --hands item '0-1': expected MATCH:HAND or MATCH:ROTATION:HAND
    """
    if spec.strip().lower() == "all":
        return None
    keys = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split(":")
        if len(parts) not in (2, 3) or not all(
            re.fullmatch(r"[0-9]{1,9}", p.strip()) for p in parts
        ):  # ASCII, int32 at most
            raise InputError(
                f"bad --hands item {quote(item)}: expected MATCH:HAND or MATCH:ROTATION:HAND"
            )
        nums = [int(p) for p in parts]
        keys.append((nums[0], 0, nums[1]) if len(nums) == 2 else (nums[0], nums[1], nums[2]))
    if not keys:
        raise InputError("--hands names no hand (give MATCH:HAND,… or all)")
    return keys


def write_pages(
    run_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    hands: Iterable[tuple[int, int, int]] | None = None,
    progress: Any = None,
) -> tuple[Path, int]:
    """Write a page per hand (``hands`` keys, or every hand) and ``index.html``
    listing them. Reads the run once, shard by shard. Returns (index path, pages)."""
    from mjlog.logio import LogError, iter_hands, read_manifest
    from mjlog.rules import Rules

    manifest = read_manifest(run_dir)
    rules = Rules.recorded(manifest["variant"], manifest["rules"])
    wanted = None if hands is None else set(hands)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    totals: dict[tuple[int, int], list[int]] = {}
    rows: list[dict[str, Any]] = []
    seen: set[tuple[int, int, int]] = set()
    # (name, data, the previous page): a page is written once the next one is known, for
    # its "next hand" link
    pending: list[tuple[str, dict[str, Any], str | None]] = []

    def flush(next_name: str | None) -> None:
        if pending:
            name_, data_, prev_ = pending.pop()
            links = {"index": "index.html", "prev": prev_, "next": next_name}
            _write(out / name_, render_hand_page(data_, links))

    for b in iter_hands(run_dir, events=True):
        h = b.hand
        key = (h["match"], h["rotation"], h["hand"])
        mk = key[:2]
        before = totals.setdefault(mk, [0] * len(h["deltas"]))
        if wanted is None or key in wanted:
            where = f"{run_dir} match {key[0]} rotation {key[1]} hand {key[2]}"
            rp = Replay.from_parts(
                rules, h, b.events, wins=b.wins, transfers=b.transfers, where=where
            )
            data = hand_data(rp, list(before))
            fname = page_name(key[0], key[2], key[1])
            flush(fname)
            pending.append((fname, data, rows[-1]["href"] if rows else None))
            rows.append(_index_row(data, fname))
            seen.add(key)
            if progress is not None:
                progress(1)
        totals[mk] = [a + d for a, d in zip(before, h["deltas"], strict=True)]
    flush(None)
    if wanted is not None and wanted - seen:
        missing = ", ".join(
            f"{m}:{r}:{h}" if r else f"{m}:{h}" for m, r, h in sorted(wanted - seen)
        )
        raise LogError(f"{run_dir}: no such hand(s) in the run: {missing}")
    index = _write(out / "index.html", render_index(manifest, rows))
    return index, len(rows)


def _index_row(data: Mapping[str, Any], href: str) -> dict[str, Any]:
    m = data["meta"]
    return {
        "href": href,
        "match": m["match"],
        "rotation": m["rotation"],
        "hand": m["hand"],
        "dealer": m["dealer"],
        "outcome": m["outcome"],
        "winners": m["winners"],
        "deltas": m["deltas"],
        "n_events": m["n_events"],
        "wins": [
            {
                "seat": w["seat"],
                "method": w["method"],
                "tile": w["tile"],
                "patterns": w["patterns"],
                "fan": w["fan"],
                "points": w["points"],
                "total": w["total"],
                "formula": w["breakdown"]["formula"],
            }
            for w in data["wins"]
        ],
    }


def render_index(manifest: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str:
    """The ``index.html`` of an ``--html-dir``: one row per hand, linked. Every
    value is escaped (a run is data, and a shared run may be hostile).

    >>> page = render_index({"variant": "<i>", "run_id": '"><b>', "agents": [{"name": "<s>"}]},
    ...                     [])
    >>> "<i>" in page or "<b>" in page or "<s>" in page, "&lt;s&gt;" in page
    (False, True)
    """
    e = _text
    variant = manifest.get("variant", "?")
    spec = VARIANTS.get(variant) if isinstance(variant, str) else None
    vname = spec.title if spec is not None else ""
    body = []
    for r in rows:
        wins = []
        for w in r["wins"]:
            pats = " ".join(
                f'<span class="pat">{e(zh)} <code>{e(k)}</code>{f" ×{e(c)}" if c > 1 else ""}'
                f"</span>"
                for k, zh, c in _grouped(w["patterns"])
            )
            keys = e(",".join(str(k) for k, _ in w["patterns"]))
            tile = e(_tile_code(w["tile"]))
            pts = "" if w["points"] is None else e(w["points"])
            tot = "" if w["total"] is None else f" (total {e(w['total'])})"
            fan = "" if w["fan"] is None else f" · fan {e(w['fan'])}"
            formula = (
                f' · <span class="formula">{e(w["formula"])}</span>' if w.get("formula") else ""
            )
            wins.append(
                f'<div class="win" data-patterns="{keys}">S{e(w["seat"])} '
                f"{e(w['method'])} {tile} {pats}{fan}{formula} · points {pts}{tot}"
                f"</div>"
            )
        deltas = e(" ".join(_signed(d) for d in r["deltas"]))
        rot = e(r["rotation"]) if r["rotation"] else ""
        winners = ", ".join(f"S{e(s)}" for s in r["winners"]) or "-"
        body.append(
            f'<tr data-key="{e(r["match"])}:{e(r["rotation"])}:{e(r["hand"])}">'
            f'<td><a href="{e(r["href"])}">{e(r["match"])}:{e(r["hand"])}</a></td>'
            f"<td>{rot}</td><td>S{e(r['dealer'])}</td><td>{e(r['outcome'])}</td>"
            f"<td>{winners}</td>"
            f"<td>{''.join(wins) or '-'}</td><td class=num>{deltas}</td>"
            f"<td class=num>{e(r['n_events'])}</td></tr>"
        )
    page = _asset("index.html")
    css = _inline("viewer.css", "style")
    parts = {
        "{{CSP}}": e(csp(styles=[css])),
        "{{TITLE}}": e(f"{variant} {vname} · run {manifest.get('run_id', '?')}"),
        "{{CSS}}": css,
        "{{META}}": e(
            f"{len(rows)} hands · seed {manifest.get('seed', '?')}"
            f" · agents {', '.join(_agent_names(manifest))}"
        ),
        "{{ROWS}}": "\n".join(body),
    }
    return _fill(page, parts)


def _text(value: Any) -> str:
    """Any value as HTML text or a quoted attribute value."""
    return html.escape(str(value), quote=True)


def _signed(d: Any) -> str:
    return f"{d:+d}" if isinstance(d, int) else str(d)


def _tile_code(t: Any) -> str:
    return fmt_tile(t) if isinstance(t, int) and 0 <= t < 34 else "-" if t is None else str(t)


def _grouped(patterns: Sequence[Sequence[str]]) -> list[tuple[str, str, int]]:
    """(key, name, count) with repeated keys (``gen``, ``facai``) counted once.

    >>> _grouped([["qidui", "七对"], ["facai", "发财"], ["facai", "发财"]])
    [('qidui', '七对', 1), ('facai', '发财', 2)]
    """
    out: dict[str, list] = {}
    for k, zh in patterns:
        out.setdefault(k, [k, zh, 0])[2] += 1
    return [tuple(v) for v in out.values()]


def _agent_names(manifest: Mapping[str, Any]) -> list[str]:
    out = []
    for a in manifest.get("agents") or ():
        out.append(str(a.get("name", "?")) if isinstance(a, Mapping) else str(a))
    return out


# notation helpers the tests share with the page's data attributes
def hand_notation(tiles: Sequence[int]) -> str:
    """What ``data-hand`` holds: sorted notation, ``-`` for none."""
    return fmt(tiles) if tiles else "-"


def discards_notation(tiles: Sequence[int]) -> str:
    """What ``data-discards`` holds: notation in discard order, ``-`` for none."""
    return fmt_ordered(tiles) if tiles else "-"
