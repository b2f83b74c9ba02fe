"""Bad input → one line, non-zero exit, nothing written, inputs untouched.

One row per kind of bad input (issue 15, items 5 and 7): rules files, JSONL
imports, numeric limits from the log schema, seeds, scheduler addresses, OS
errors, huge quoted values, tile notation. Each row runs through
:func:`tests.hostile.refused`, in a fresh working directory holding the row's
files: in a child process (``python -m mjlog``, with a time limit) where a hang is
possible (a FIFO to read, a scheduler to reach), in this process otherwise (click's
runner: the same exit code and output, some 0.2-1.5 s of CPU less a row). One tiny
run and one exported hand are shared by the module.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import pytest

from tests.hostile import refused

BIG = "9" * 100_000  # a value far past any limit, to be quoted cut


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> dict:
    """A one-hand yuxi run and its hand as JSON lines (header, events)."""
    from mjlog.interchange import export_hand
    from simulate.runner import RunSpec, simulate

    d = tmp_path_factory.mktemp("shared")
    run = d / "run"
    simulate(RunSpec.build("yuxi", 1, 1, 1, ["greedy"]), run, workers=1, progress=False)
    lines = export_hand(run, 0, 0)
    return {"run": run, "header": json.loads(lines[0]), "events": lines[1:]}


def _hand(
    header_changes: dict | None = None,
    events: list[str] | None = None,
    raw_header: Callable[[str], str] | None = None,
) -> Callable[[dict], str]:
    """A JSONL file built from the shared hand: header fields changed (``...``
    removes one), events replaced, or the header line rewritten as text."""

    def build(sh: dict) -> str:
        h = dict(sh["header"])
        for k, v in (header_changes or {}).items():
            if v is ...:
                h.pop(k, None)
            else:
                h[k] = v
        line = json.dumps(h)
        if raw_header is not None:
            line = raw_header(line)
        return "\n".join([line, *(sh["events"] if events is None else events)]) + "\n"

    return build


def _transfer(seq: int, seat: int, payer: int, amount) -> str:
    return json.dumps(
        {
            "seq": seq,
            "type": "transfer",
            "seat": seat,
            "from_seat": payer,
            "kind": "win",
            "amount": amount,
        }
    )


OVERFLOW = _hand(events=[_transfer(i, 0, i + 1, 2**31 - 1) for i in range(3)])  # deltas > int32
SIM = ["simulate", "--variant", "yuxi", "--matches", "1", "--hands-per-match", "1", "--quiet"]

# id, args, files to create (name → text, bytes, a builder of the shared hand, or
# "fifo"/"dir"), needle in the one stderr line. "{run}" is the shared run.
CASES = [
    # ---- usage errors are one line too (not usage, hint and error)
    ("unknown-option-of-mjlog", ["--bogus"], {}, "--bogus"),
    ("missing-argument", ["rules"], {}, "Missing argument"),
    # ---- TOML rules files (--rules) and rule values (--set)
    (
        "toml-not-utf8",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": b"cap = 3 # \xff\xfe\n"},
        "not UTF-8",
    ),
    (
        "toml-nested-5000-arrays",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "cap = " + "[" * 5000 + "]" * 5000 + "\n"},
        "nested too deeply",
    ),
    (
        "toml-nested-5000-tables",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "[" + ".".join(["a"] * 5000) + "]\n"},
        "nested too deeply",
    ),
    (
        "toml-inf",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "cap = inf\n"},
        "expected an integer",
    ),
    (
        "toml-nan",
        ["score", "yuxi", "1112223334445m", "--win", "5m", "--by", "self", "--rules", "r.toml"],
        {"r.toml": "base = nan\n"},
        "expected an integer",
    ),
    (
        "toml-float-for-int",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "cap = 3.0\n"},
        "expected an integer",
    ),
    (
        "toml-bool-for-int",
        ["rules", "huangmei", "--rules", "r.toml"],
        {"r.toml": "min_fan = true\n"},
        "expected an integer",
    ),
    (
        "toml-int-for-bool",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "honors = 1\n"},
        "true, false",
    ),
    (
        "toml-5000-digit-int",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "cap = " + "9" * 5000 + "\n"},
        "not valid TOML",
    ),
    (
        "toml-unknown-key-wrong-type",
        ["rules", "xuezhan", "--rules", "r.toml"],
        {"r.toml": "[foo]\nbar = [1, {x = 2}]\n"},
        "unknown rule key 'foo.bar'",
    ),
    (
        "toml-list-of-ints",
        ["rules", "xuezhan", "--rules", "r.toml"],
        {"r.toml": "extras = [1, 2]\n"},
        "expected a list of names",
    ),
    (
        "toml-pair-float",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "points.qidui = [3.5, 4]\n"},
        "points.qidui",
    ),
    (
        "toml-variant-not-a-string",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": 'variant = ["yuxi"]\n'},
        "rules are for variant",
    ),
    (
        "toml-money-past-int32",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "base = 3000000000\n"},
        "2147483647",
    ),
    (
        "toml-is-a-fifo",
        ["rules", "yuxi", "--rules", "r.toml"],
        {"r.toml": "fifo"},
        "not a regular file",
    ),
    ("toml-is-a-directory", ["rules", "yuxi", "--rules", "r.toml"], {"r.toml": "dir"}, "directory"),
    ("set-base-3e9", [*SIM, "--set", "base=3000000000", "--out", "out"], {}, "base"),
    (
        "set-base-times-cap-past-int32",
        [*SIM, "--set", "base=30000000", "--out", "out"],
        {},
        "int32",
    ),
    (
        "set-mult-past-int32",
        ["rules", "xuezhan", "--set", "mult.pinghu=2147483648"],
        {},
        "mult.pinghu",
    ),
    (
        "set-doubling-cap-negative",
        ["rules", "huangmei", "--set", "doubling_cap=-1"],
        {},
        "doubling_cap",
    ),
    (
        "set-doubling-cap-float",
        [
            "score",
            "huangmei",
            "111m222p333s444m1z",
            "--win",
            "1z",
            "--by",
            "discard",
            "--set",
            "payment=doubling",
            "--set",
            "doubling_cap=2.5",
        ],
        {},
        "expected an integer",
    ),
    (
        "score-doubling-past-int32",
        [
            "score",
            "huangmei",
            "111m222p333s444m1z",
            "--win",
            "1z",
            "--by",
            "discard",
            "--set",
            "payment=doubling",
            "--set",
            "doubling_cap=2147483647",
            "--set",
            "fan.pinghu=2147483647",
        ],
        {},
        "int32",
    ),
    (
        "toml-doubling-cap-string",
        ["rules", "huangmei", "--rules", "r.toml"],
        {"r.toml": 'payment = "doubling"\ndoubling_cap = "ten"\n'},
        "doubling_cap",
    ),
    (
        "set-float",
        ["score", "yuxi", "1112223334445m", "--win", "5m", "--by", "self", "--set", "cap=1.5"],
        {},
        "expected an integer",
    ),
    ("set-arabic-digit", ["rules", "yuxi", "--set", "cap=\u0663"], {}, "expected an integer"),
    (
        "set-huge-unknown-key",
        ["rules", "yuxi", "--set", "k" * 100_000 + "=1"],
        {},
        "100000 characters",
    ),
    # ---- numeric limits of simulate, sweep, ladder (from the schema's widths)
    (
        "hands-per-match-32769",
        [*SIM[:-3], "--hands-per-match", "32769", "--quiet", "--out", "out"],
        {},
        "32768",
    ),
    ("matches-1e12", [*SIM[:3], "--matches", "1000000000000", "--out", "out"], {}, "int32"),
    (
        "matches-2-31-too-many-shards",
        [*SIM[:3], "--matches", str(2**31), "--out", "out"],
        {},
        "--hands-per-shard",
    ),
    ("matches-100000-digits", [*SIM[:3], "--matches", BIG, "--out", "out"], {}, "--matches"),
    ("seed-2-64", [*SIM, "--seed", str(2**64), "--out", "out"], {}, "--seed"),
    ("players-5", [*SIM, "--players", "5", "--out", "out"], {}, "--players"),
    ("agents-empty", [*SIM, "--agents", "", "--out", "out"], {}, "unknown agent"),
    (
        "agents-bad-parameter",
        [*SIM, "--agents", "strategic:aggression=nan", "--out", "out"],
        {},
        "aggression",
    ),
    (
        "agents-bad-expert-budget",
        [*SIM, "--agents", "expert:rollouts=-1", "--out", "out"],
        {},
        "rollouts",
    ),
    ("agents-bad-expert-tilt", [*SIM, "--agents", "expert:tilt=nan", "--out", "out"], {}, "tilt"),
    (
        "sweep-grid-float",
        ["sweep", "--variant", "yuxi", "--grid", "cap=1.5,2", "--out", "out", "--quiet"],
        {},
        "cap=1.5",
    ),
    (
        "ladder-seed-2-64",
        ["ladder", "--variant", "yuxi", "--agents", "greedy", "--seed", str(2**64), "--quiet"],
        {},
        "--seed",
    ),
    (
        "ladder-seating-unknown",
        ["ladder", "--variant", "yuxi", "--agents", "greedy", "--seating", "diagonal", "--quiet"],
        {},
        "--seating",
    ),
    (
        "ladder-balanced-into-a-cyclic-run",
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "greedy,random,greedy,random",
            "--hands",
            "8",
            "--seating",
            "balanced",
            "--out",
            "out",
            "--quiet",
        ],
        {"out/manifest.json": "{}"},
        "holds a cyclic ladder's run",
    ),
    (
        "ladder-cyclic-into-a-balanced-folder",
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "greedy",
            "--hands",
            "8",
            "--out",
            "out",
            "--quiet",
        ],
        {"out/seating-0": "dir"},
        "holds a balanced ladder",
    ),
    (
        "ladder-hands-per-shard-0",
        ["ladder", "--variant", "yuxi", "--agents", "greedy", "--hands-per-shard", "0", "--quiet"],
        {},
        "--hands-per-shard",
    ),
    # huangmei doubling: the most money a hand moves, from doubling_cap, past int32
    (
        "ladder-doubling-cap-past-int32",
        [
            "ladder",
            "--variant",
            "huangmei",
            "--agents",
            "greedy",
            "--set",
            "payment=doubling",
            "--set",
            "doubling_cap=2147483647",
            "--quiet",
        ],
        {},
        "int32",
    ),
    (
        "sweep-doubling-base-past-int32",
        [
            "sweep",
            "--variant",
            "huangmei",
            "--set",
            "payment=doubling",
            "--grid",
            "base=1,1000000",
            "--out",
            "out",
            "--quiet",
        ],
        {},
        "int32",
    ),
    (
        "balance-doubling-cap-past-int32",
        ["balance", "huangmei", "--set", "payment=doubling", "--set", "doubling_cap=40", "--quiet"],
        {},
        "int32",
    ),
    # ---- balance: refused before anything is played
    ("balance-bad-variant", ["balance", "mahjong", "--quiet"], {}, "mahjong"),
    ("balance-bad-set-key", ["balance", "yuxi", "--set", "capp=3", "--quiet"], {}, "capp"),
    (
        "balance-bad-compensation",
        ["balance", "yuxi", "--set", "dealer_compensation=0.5", "--quiet"],
        {},
        "expected an integer",
    ),
    (
        "balance-compensation-past-int32",
        ["balance", "yuxi", "--set", "dealer_compensation=-1000000000", "--quiet"],
        {},
        "int32",
    ),
    ("balance-hands-0", ["balance", "yuxi", "--hands", "0", "--quiet"], {}, "--hands"),
    ("balance-hands-words", ["balance", "yuxi", "--hands", "many", "--quiet"], {}, "--hands"),
    (
        "balance-agent-unknown",
        ["balance", "yuxi", "--agents", "nobody", "--quiet"],
        {},
        "unknown agent",
    ),
    (
        "balance-out-is-a-file",
        ["balance", "yuxi", "--hands", "4", "--quiet", "--out", "f"],
        {"f": "not a directory"},
        "f",
    ),
    # ---- scheduler addresses: refused at once, before anything is written
    ("scheduler-not-a-url", [*SIM, "--scheduler", "not a url", "--out", "out"], {}, "--scheduler"),
    (
        "scheduler-refused",
        [*SIM, "--scheduler", "tcp://127.0.0.1:1", "--out", "out"],
        {},
        "cannot reach",
    ),
    (
        "ladder-scheduler-not-a-url",
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "greedy",
            "--scheduler",
            "not a url",
            "--out",
            "out",
            "--quiet",
        ],
        {},
        "--scheduler",
    ),
    (
        "ladder-scheduler-refused",
        [
            "ladder",
            "--variant",
            "yuxi",
            "--agents",
            "greedy",
            "--scheduler",
            "tcp://127.0.0.1:1",
            "--out",
            "out",
            "--quiet",
        ],
        {},
        "cannot reach",
    ),
    # ---- hand references in replay and export
    ("replay-hand-20-digits", ["replay", "{run}", "--hand", "99999999999999999999:0"], {}, "match"),
    ("replay-hand-arabic-digit", ["replay", "{run}", "--hand", "\u0663:0"], {}, "--hand"),
    ("export-hand-past-int16", ["export", "{run}", "--hand", "0:32768"], {}, "hand 32768"),
    (
        "export-rotation-999",
        ["export", "{run}", "--hand", "0:0", "--rotation", "999"],
        {},
        "--rotation",
    ),
    (
        "replay-hands-20-digits",
        ["replay", "{run}", "--html-dir", "pages", "--hands", "99999999999999999999:0"],
        {},
        "--hands",
    ),
    # ---- OS errors name the path
    (
        "export-into-missing-dir",
        ["export", "{run}", "--hand", "0:0", "--out", "nodir/h.jsonl"],
        {},
        "nodir/h.jsonl",
    ),
    ("simulate-under-a-file", [*SIM, "--out", "afile/run"], {"afile": "x"}, "afile/run"),
    (
        "validate-report-missing-dir",
        ["validate", "{run}", "--report", "nodir/a.jsonl"],
        {},
        "nodir/a.jsonl",
    ),
    (
        "replay-html-under-a-file",
        ["replay", "{run}", "--hand", "0:0", "--html", "afile/h.html"],
        {"afile": "x"},
        "afile",
    ),
    # ---- JSONL import
    (
        "import-nested-5000",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": "[" * 5000 + "]" * 5000 + "\n"},
        "nested too deeply",
    ),
    (
        "import-5000-digit-int",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand(raw_header=lambda s: s.replace('"hand": 0', '"hand": ' + "9" * 5000))},
        "not JSON",
    ),
    (
        "import-format-xml",
        ["import", "h.jsonl", "--out", "out", "--format", "xml"],
        {"h.jsonl": _hand()},
        "'xml' is not one of 'text', 'json'",
    ),
    (
        "import-dealer-1.5",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand({"dealer": 1.5})},
        "dealer must be an integer",
    ),
    (
        "import-dealer-true",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand({"dealer": True})},
        "dealer must be an integer",
    ),
    (
        "import-dice-wrong-type",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand({"dice": "26"})},
        "dice",
    ),
    (
        "import-seed-2-64",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand({"seed": 2**64})},
        "seed",
    ),
    (
        "import-lone-surrogate",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand({"players": ["\ud800", "b", "c", "d"]})},
        "surrogate",
    ),
    (
        "import-nan",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand(events=['{"seq": 0, "type": "draw", "seat": NaN}'])},
        "NaN",
    ),
    (
        "import-field-twice",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand(raw_header=lambda s: s[:-1] + ', "dealer": 2}')},
        "given twice",
    ),
    (
        "import-unknown-header-field",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand({"dealr": 0})},
        "dealr",
    ),
    (
        "import-seq-float",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand(events=['{"seq": 0.0, "type": "end"}'])},
        "seq",
    ),
    (
        "import-seat-past-players",
        ["import", "h.jsonl", "--out", "out"],
        {
            "h.jsonl": _hand(
                {"rules": {"players": 3}, "players": ["a", "b", "c"], "wall": None},
                events=['{"seq": 0, "type": "draw", "seat": 3, "tile": "1m"}'],
            )
        },
        "seat",
    ),
    (
        "import-tiles-as-ints",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand(events=['{"seq": 0, "type": "deal", "seat": 0, "tiles": [1, 999]}'])},
        "tiles",
    ),
    (
        "import-huge-value-quoted-cut",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": _hand(events=[json.dumps({"seq": 0, "type": "x" * 1_000_000})])},
        "1000000 characters",
    ),
    (
        "import-binary-garbage",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": bytes(range(256)) * 8},
        "not UTF-8",
    ),
    ("import-a-directory", ["import", "h.jsonl", "--out", "out"], {"h.jsonl": "dir"}, "directory"),
    (
        "import-a-fifo",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": "fifo"},
        "not a regular file",
    ),
    # refused only when written (the deltas overflow int32): --out is left as found
    (
        "import-fails-late-out-absent",
        ["import", "h.jsonl", "--out", "a/b/out"],
        {"h.jsonl": OVERFLOW},
        "cannot be written",
    ),
    (
        "import-fails-late-out-empty",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": OVERFLOW, "out": "dir"},
        "cannot be written",
    ),
    # ---- many hands (issue 20): one bad hand or file refuses the whole import
    (
        "import-hand-key-twice",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": lambda sh: _hand()(sh) + _hand()(sh)},
        "h.jsonl:",
    ),
    (
        "import-key-twice-across-files",
        ["import", "a.jsonl", "b.jsonl", "--out", "out"],
        {"a.jsonl": _hand(), "b.jsonl": _hand()},
        "b.jsonl:1: hand 0:0 (rotation 0) is given twice",
    ),
    (
        "import-second-file-bad",
        ["import", "a.jsonl", "b.jsonl", "--out", "a/b/out"],
        {"a.jsonl": _hand(), "b.jsonl": _hand({"hand": 1}, events=['{"seq": 1, "type": "end"}'])},
        "b.jsonl:2: seq 1 out of order",
    ),
    (
        "import-second-ruleset",
        ["import", "h.jsonl", "--out", "out"],
        {"h.jsonl": lambda sh: _hand()(sh) + _hand({"hand": 1, "rules": {"cap": 3}})(sh)},
        "differ from those of the first hand",
    ),
    (
        "import-fails-late-second-hand",
        ["import", "h.jsonl", "--out", "out"],
        {
            "h.jsonl": lambda sh: (
                _hand()(sh)
                + _hand({"hand": 1}, events=[_transfer(i, 0, i + 1, 2**31 - 1) for i in range(3)])(
                    sh
                )
            ),
            "out": "dir",
        },
        "cannot be written",
    ),
    ("export-hands-junk", ["export", "{run}", "--hands", "0:x", "--out", "h.jsonl"], {}, "--hands"),
    (
        "export-hands-missing",
        ["export", "{run}", "--hands", "0:0,7:0", "--out", "h.jsonl"],
        {},
        "no hand 7:0",
    ),
    (
        "export-match-missing",
        ["export", "{run}", "--match", "3", "--out", "h.jsonl"],
        {},
        "no match 3",
    ),
    (
        "export-two-selections",
        ["export", "{run}", "--hand", "0:0", "--match", "0"],
        {},
        "give one of",
    ),
    (
        "simulate-agent-module-missing",
        [*SIM, "--agents", "no_such_mod:Agent", "--out", "out"],
        {},
        "cannot import no_such_mod",
    ),
    (
        "simulate-agent-not-an-agent",
        [*SIM, "--agents", "collections:OrderedDict", "--out", "out"],
        {},
        "has no start_hand",
    ),
    (
        "ladder-agent-bad-parameters",
        [
            "ladder",
            "--variant",
            "yuxi",
            "--hands",
            "8",
            "--agents",
            "fractions:Fraction:numerator=x",
        ],
        {},
        "bad parameters",
    ),
    # ---- tile notation
    (
        "score-junk-hand",
        ["score", "yuxi", "12x4m", "--win", "5m", "--by", "self"],
        {},
        "unexpected character",
    ),
    (
        "score-junk-melds",
        ["score", "yuxi", "1112223334445m", "--win", "5m", "--by", "self", "--melds", "zzz"],
        {},
        "bad meld",
    ),
    (
        "score-two-winning-tiles",
        ["score", "yuxi", "1112223334445m", "--win", "55m", "--by", "self"],
        {},
        "exactly one tile",
    ),
    # ---- score flags no game produces together (or not in the variant)
    (
        "score-after-bonus-without-bonus",
        ["score", "huangmei", "123m46p789s456s99s", "--win", "5p", "--by", "self", "--after-bonus"],
        {},
        "needs a 发 laid out",
    ),
    (
        "score-after-bonus-on-a-discard",
        [
            "score",
            "huangmei",
            "123m46p789s456s99s",
            "--win",
            "5p",
            "--by",
            "discard",
            "--bonus",
            "2",
            "--after-bonus",
        ],
        {},
        "--after-bonus goes with --by self",
    ),
    (
        "score-bonus-without-bonus-tiles",
        ["score", "xuezhan", "1112223334445m", "--win", "5m", "--by", "self", "--bonus", "3"],
        {},
        "xuezhan has no bonus tiles",
    ),
    (
        "score-void-without-void-suit",
        ["score", "yuxi", "1112223334445m", "--win", "5m", "--by", "self", "--void", "p"],
        {},
        "yuxi has no void suit",
    ),
    (
        "score-first-turn-on-a-discard",
        ["score", "yuxi", "1112223334445m", "--win", "5m", "--by", "discard", "--first-turn"],
        {},
        "is a win by self-draw",
    ),
    (
        "score-robbed-kong-on-the-last-tile",
        ["score", "yuxi", "1112223334446m", "--win", "5m", "--by", "robbed-kong", "--last-tile"],
        {},
        "--last-tile goes with",
    ),
    (
        "score-kong-replacement-after-a-pon",
        [
            "score",
            "yuxi",
            "2223m",
            "--win",
            "3m",
            "--by",
            "self",
            "--melds",
            "1111m,555m,666m",
            "--after-kong",
        ],
        {},
        "must be a kong",
    ),
    (
        "score-kong-chain-zero",
        [
            "score",
            "yuxi",
            "123p456s9s",
            "--win",
            "9s",
            "--by",
            "self",
            "--melds",
            "5555m,c:7777p",
            "--after-kong",
            "--kong-chain",
            "0",
        ],
        {},
        "not in the range",
    ),
    (
        "score-kong-chain-longer-than-the-kongs",
        [
            "score",
            "yuxi",
            "123p456s9s",
            "--win",
            "9s",
            "--by",
            "self",
            "--melds",
            "5555m,c:7777p",
            "--after-kong",
            "--kong-chain",
            "3",
        ],
        {},
        "the last 3 melds in --melds must be kongs",
    ),
    (
        "score-kong-chain-without-after-kong",
        [
            "score",
            "yuxi",
            "123p456s9s",
            "--win",
            "9s",
            "--by",
            "self",
            "--melds",
            "5555m,c:7777p",
            "--kong-chain",
            "2",
        ],
        {},
        "goes with --after-kong --by self",
    ),
    (
        "score-shilaotou-without-it",
        ["score", "huangmei", "123m456p789s11z23m", "--win", "5z", "--by", "shilaotou"],
        {},
        "huangmei has no 十老头",
    ),
    ("analyse-junk", ["analyse", "12\u0663m"], {}, "unexpected character"),
    ("analyse-huge", ["analyse", BIG], {}, "100000 characters"),
]


@pytest.mark.parametrize("args, files, needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused(args, files, needle, shared, tmp_path):
    inputs = [shared["run"]]
    for name, content in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if content == "fifo":
            os.mkfifo(p)
        elif content == "dir":
            p.mkdir()
        elif callable(content):
            p.write_text(content(shared), encoding="utf-8", errors="surrogatepass")
        elif isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
        inputs.append(p)
    args = [a.replace("{run}", str(shared["run"])) for a in args]
    child = "fifo" in files.values() or any(str(a).startswith("--scheduler") for a in args)
    refused(args, tmp_path, inputs=inputs, needle=needle, isolate=child)


def test_cases_have_unique_ids():
    assert len({c[0] for c in CASES}) == len(CASES)


def test_a_seedless_import_reports(shared, tmp_path):
    """An imported hand without seed, rng or wall (the format allows it) is read
    by ``Runs`` (what ``mjlog report`` reads runs with) like any run."""
    from analysis.queries import Runs
    from mjlog.interchange import import_lines

    text = _hand({"seed": ..., "rng": ..., "hand_seed": ..., "wall": None})(shared)
    run = tmp_path / "imported"
    m = import_lines(text.split("\n"), run)
    assert m["seed"] is None
    runs = Runs([run])
    assert [r.seed for r in runs.runs] == [None]


def test_audit_findings_name_the_parquet_file(shared, tmp_path):
    """A hand-level finding names the file it was read from, not only the hand."""
    from mjlog.audit import audit_runs
    from mjlog.interchange import import_lines

    events = shared["events"][:4] + ['{"seq": 4, "type": "pon", "seat": 0}']
    run = tmp_path / "bad"
    import_lines(_hand(events=events)(shared).split("\n"), run)
    res = audit_runs([run], workers=1)
    assert res.problems
    for p in res.problems:
        assert p.file is not None and p.file.endswith(".parquet"), p
        assert p.file in p.line()
    assert any(p.seq == 4 and p.file == "events/part-00000.parquet" for p in res.problems)


def test_a_full_disk_leaves_no_half_written_export(tmp_path, monkeypatch):
    """``export --out``: a write that fails (ENOSPC) leaves neither the file nor its
    temporary, and the error names the file (the CLI prints it as one line)."""
    import errno

    from mjlog.cli import os_error_text
    from mjlog.interchange import write_lines

    def full(*a, **k):  # a full disk shows when the data is flushed
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "h.jsonl"
    with pytest.raises(OSError) as e:
        write_lines(["{}"], target)
    assert os_error_text(e.value) == f"{target}: No space left on device"
    assert list(tmp_path.iterdir()) == []
