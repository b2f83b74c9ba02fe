"""One hand as human-readable JSON lines, and back to a run directory.

The format (``mjlog-hand/1``, documented in ``docs/jsonl-format.md``): the
first line is a header object — variant, rules, players (one name per seat),
match, rotation, hand, dealer, dice, break, the wall in order-keeping notation
(or null), the root seed and rng (or null) — then one object per event, in
play order, with tiles in notation (``"5m"``; a set of tiles ``"123m45p"``,
order kept). Null fields are left out.

Import writes a run directory through the ordinary writer (``ShardWriter``,
``build_manifest``, ``write_manifest``): the events as given, the transfers
table from the transfer events, and the wins and hands rows recomputed by
replaying the events through :class:`~mjlog.state.HandState`. The auditor
(``mjlog validate``) then checks it like any run; a file without a wall is
replayed on a wall rebuilt from its draws, and the wall and seed checks are
reported as not applicable.

>>> import tempfile, os
>>> from simulate.runner import RunSpec, simulate
>>> run = tempfile.mkdtemp()
>>> _ = simulate(RunSpec.build("huangmei", 5, 1, 2, ["greedy"]), run, workers=1,
...              progress=False)
>>> lines = export_hand(run, 0, 1)
>>> json.loads(lines[0])["format"], json.loads(lines[1])["type"]
('mjlog-hand/1', 'deal')
>>> out = os.path.join(tempfile.mkdtemp(), "imported")
>>> m = import_lines(lines, out)
>>> m["imported"], sum(f["rows"] for f in m["files"] if f["table"] == "hands")
(True, 1)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mjlog import __version__
from mjlog.errors import InputError
from mjlog.events import DEAL, HORSE, TRANSFER, WIN, Event
from mjlog.logio import ShardWriter, build_manifest, read_manifest, run_id, write_manifest
from mjlog.replay import Replay, apply_checked, fmt_ordered, load_hand, truncated
from mjlog.rng import RNG, hand_seed
from mjlog.rules import Rules
from mjlog.schema import EVENT_TYPES
from mjlog.tiles import TileNotationError, fmt, fmt_tile, parse, parse_tile

__all__ = ["FORMAT", "export_hand", "import_lines", "import_file", "event_to_json",
           "event_from_json"]

FORMAT = "mjlog-hand/1"
_ORDERED = (DEAL, HORSE)  # tiles whose order matters in the log (the deal, the horses)


def event_to_json(seq: int, ev: Event) -> dict[str, Any]:
    """One event line.

    >>> event_to_json(7, Event("pon", 2, 13, 1))
    {'seq': 7, 'type': 'pon', 'seat': 2, 'tile': '5p', 'from_seat': 1}
    """
    d: dict[str, Any] = {"seq": seq}
    for k, v in ev._asdict().items():
        if v is None:
            continue
        if k == "tile":
            v = fmt_tile(v)
        elif k == "tiles":
            v = fmt_ordered(v) if ev.type in _ORDERED else fmt(v)
        d[k] = v
    return d


def event_from_json(d: Mapping[str, Any], where: str) -> Event:
    """Parse one event line (``where`` names it in errors).

    >>> event_from_json({"seq": 3, "type": "draw", "seat": 0, "tile": "9s", "kind": "live"}, "x")
    Event(type='draw', seat=0, tile=26, from_seat=None, kind='live', tiles=None, amount=None)
    """
    unknown = set(d) - {"seq", "type", "seat", "tile", "from_seat", "kind", "tiles", "amount"}
    if unknown:
        raise InputError(f"{where}: unknown field(s) {sorted(unknown)}")
    typ = d.get("type")
    if typ not in EVENT_TYPES:
        raise InputError(f"{where}: unknown event type {typ!r}; valid: {', '.join(EVENT_TYPES)}")
    for k in ("seat", "from_seat", "amount"):
        if d.get(k) is not None and (not isinstance(d[k], int) or isinstance(d[k], bool)):
            raise InputError(f"{where}: {k} must be an integer, not {d[k]!r}")
    if d.get("kind") is not None and not isinstance(d["kind"], str):
        raise InputError(f"{where}: kind must be a string, not {d['kind']!r}")
    try:
        tile = parse_tile(d["tile"]) if d.get("tile") is not None else None
        tiles = d.get("tiles")
        if tiles is not None:
            tiles = tuple(parse(tiles) if isinstance(tiles, str) else
                          (parse_tile(t) if isinstance(t, str) else t for t in tiles))
            if (d["type"] == WIN) and tiles != tuple(sorted(tiles)):
                tiles = tuple(sorted(tiles))  # a win's tiles are a set
    except TileNotationError as e:
        raise InputError(f"{where}: {e}") from None
    return Event(typ, d.get("seat"), tile, d.get("from_seat"), d.get("kind"), tiles,
                 d.get("amount"))


# ------------------------------------------------------------------ export


def export_hand(run_dir: str | os.PathLike, match: int, hand: int,
                rotation: int = 0) -> list[str]:
    """The hand as JSON lines (header first), without trailing newlines."""
    rp = load_hand(run_dir, match, hand, rotation)
    m = read_manifest(run_dir)
    h = rp.hand
    header = {
        "format": FORMAT,
        "variant": rp.rules.variant,
        "rules": rp.rules.to_json(),
        "players": list(h.get("agents") or []),
        "match": match, "rotation": rotation, "hand": hand,
        "dealer": h["dealer"], "dice": list(h["dice"]), "break": h["break"],
        "dealer_rolls": list(h["dealer_rolls"]) if h.get("dealer_rolls") else None,
        "wall": fmt_ordered(h["wall"]) if h.get("wall") else None,
        "seed": m.get("seed"), "rng": m.get("rng"), "hand_seed": h.get("hand_seed"),
        "source_run": m.get("run_id"),
    }
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(event_to_json(i, e), ensure_ascii=False)
              for i, e in enumerate(rp.events)]
    return lines


# ------------------------------------------------------------------ import


def _header(d: Mapping[str, Any], where: str) -> tuple[Rules, dict[str, Any]]:
    if d.get("format") != FORMAT:
        raise InputError(f"{where}: not an {FORMAT} header (format {d.get('format')!r})")
    for k in ("variant", "players", "dealer", "dice", "break"):
        if k not in d:
            raise InputError(f"{where}: the header needs {k!r}")
    rules = Rules(d["variant"], d.get("rules") or {})
    players = d["players"]
    if isinstance(players, int):
        players = [f"player{s}" for s in range(players)]
    if not isinstance(players, list) or len(players) != rules.n:
        raise InputError(f"{where}: 'players' must name one player per seat "
                         f"({rules.n} under the rules)")
    wall = d.get("wall")
    try:
        if isinstance(wall, str):
            wall = parse(wall)
        else:
            wall = [parse_tile(t) if isinstance(t, str) else t for t in wall or []]
    except TileNotationError as e:
        raise InputError(f"{where}: wall: {e}") from None
    return rules, {**d, "players": [str(p) for p in players], "wall": wall}


def import_lines(lines: Iterable[str], out: str | os.PathLike, name: str = "<jsonl>",
                 warn=None) -> dict[str, Any]:
    """Write the hand of ``lines`` as a run directory ``out``; returns the manifest.

    ``warn`` gets one line when the events break the rules (the run is still
    written, so that the auditor reports it in full).
    """
    out = Path(out)
    if (out / "manifest.json").exists() or (out.exists() and any(out.iterdir())):
        raise InputError(f"{out}: exists and is not empty; a run is never overwritten")
    header = None
    events: list[Event] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name}:{i}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: not JSON: {e}") from None
        if not isinstance(d, dict):
            raise InputError(f"{where}: expected a JSON object")
        if header is None:
            rules, header = _header(d, where)
            continue
        if d.get("seq", len(events)) != len(events):
            raise InputError(f"{where}: seq {d.get('seq')} out of order (expected {len(events)})")
        events.append(event_from_json(d, where))
    if header is None:
        raise InputError(f"{name}: empty file")
    match, rotation, k = (int(header.get(x) or 0) for x in ("match", "rotation", "hand"))
    dealer, dice, brk = header["dealer"], list(header["dice"]), header["break"]
    rp = Replay(rules, {"dealer": dealer, "dice": dice, "break": brk, "wall": header["wall"]},
                events)
    st = rp.new_state()
    stop = None
    for ev in events:
        stop = apply_checked(st, ev)
        if stop is not None:
            break
    if stop is None and not st.over:
        stop = truncated(st)
    if stop is not None and warn is not None:
        warn(f"{name}: event {stop.seq}: {stop.check}: {stop.log}; the rules say {stop.rules} "
             f"(written anyway; `mjlog validate` reports it)")
    n = rules.n
    seed, rng = header.get("seed"), header.get("rng")
    hs = header.get("hand_seed")
    if hs is None:
        hs = hand_seed(seed, match, k) if seed is not None and rng == RNG else 0
    transfers = [{"seq": i, "payer": e.from_seat, "payee": e.seat, "amount": e.amount,
                  "reason": e.kind} for i, e in enumerate(events) if e.type == TRANSFER]
    deltas = [0] * n
    for t in transfers:
        if all(isinstance(t[c], int) for c in ("payer", "payee", "amount")) and (
                0 <= t["payer"] < n and 0 <= t["payee"] < n):
            deltas[t["payer"]] -= t["amount"]
            deltas[t["payee"]] += t["amount"]
    winners = [e.seat for e in events if e.type == WIN]
    hand_row = {
        "hand_seed": hs, "players": n, "dealer": dealer, "dice": dice,
        "dealer_rolls": header.get("dealer_rolls"), "break": brk,
        "wall": list(header["wall"]), "agents": header["players"],
        "outcome": "win" if winners else "draw", "winners": winners, "deltas": deltas,
        "n_events": len(events), "wall_left": st.live,
        "next_dealer": st.next_dealer if st.next_dealer is not None else dealer,
    }
    wins = [{"seq": w.seq, "seat": w.seat, "from_seat": w.from_seat, "tile": w.tile,
             "method": w.method, "win_order": w.win_order, "patterns": list(w.patterns),
             "fan": w.fan, "multiplier": w.multiplier, "points": w.points, "total": w.total,
             "capped": w.capped} for w in st.wins]
    meta = {
        "variant": rules.variant, "rules": rules.to_json(), "seed": seed,
        "matches": 1, "hands_per_match": 1, "players": n,
        "agents": [{"name": p, "params": {}} for p in header["players"]],
        "duplicate": False, "rng": rng, "mjlog_version": __version__,
    }
    rid = run_id(meta)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with ShardWriter(out, 0, rid, rules.variant, events=True) as w:
            w.add_hand(match, rotation, k, hand_row, events, wins, transfers)
    except ValueError as e:
        raise InputError(f"{name}: cannot be written as a run: {e}") from None
    manifest = build_manifest(meta, w.entries, imported=True,
                              source={"file": Path(name).name,
                                      "run": header.get("source_run")})
    write_manifest(out, manifest)
    return manifest


def import_file(path: str | os.PathLike, out: str | os.PathLike, warn=None) -> dict[str, Any]:
    """:func:`import_lines` over a file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read: {e}") from None
    return import_lines(text.splitlines(), out, name=str(p), warn=warn)


def write_lines(lines: Sequence[str], path: str | os.PathLike, option: str = "--out") -> None:
    """Write the lines atomically, never inside a run (:func:`mjlog.rundir.write_atomic`)."""
    from mjlog.rundir import write_atomic

    write_atomic(path, "\n".join(lines) + "\n", option)
