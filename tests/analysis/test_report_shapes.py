"""`mjlog report` renders every shape of runs a designer gives it: a one-key and a
multi-key grid, a duplicate and a mixed line-up, a sweep of one point, runs of several
variants and the sample sweep in data/. Each page must be whole (every tag closed,
every section there), every figure an image, and no number shown as 'nan'.

The runs are tiny (3 matches of 4 hands, made here with `mjlog sweep` and `mjlog
simulate`); each shape's report is rendered once (PNG figures: matplotlib's layout,
not the encoding, is what costs, so SVG is no cheaper) and shared by its checks.
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.caveats import TOO_FEW
from analysis.studies.sample import data_dir
from mjlog.cli import main

TINY = ["--matches", "3", "--hands-per-match", "4", "--seed", "5", "--workers", "1", "--quiet"]

SHAPES = {
    # shape: how to make its runs (each a command; the report reads every --out)
    "one-key grid": [
        ["sweep", "--variant", "xuezhan", "--agents", "strategic", "--grid", "cap=2,8"]
    ],
    "multi-key grid": [
        [
            "sweep",
            "--variant",
            "xuezhan",
            "--agents",
            "strategic",
            "--grid",
            "cap=2,8",
            "--grid",
            "zimo_bonus=none,double",
        ]
    ],
    "duplicate line-up": [
        [
            "sweep",
            "--variant",
            "xuezhan",
            "--duplicate",
            "--agents",
            "strategic,greedy,random,efficient",
            "--grid",
            "cap=2,8",
        ]
    ],
    "mixed line-up": [
        [
            "sweep",
            "--variant",
            "yuxi",
            "--agents",
            "strategic,greedy,random,efficient",
            "--grid",
            "cap=2,8",
        ]
    ],
    "one point": [
        ["sweep", "--variant", "huangmei", "--agents", "strategic", "--grid", "min_fan=2"]
    ],
    "several variants": [
        ["simulate", "--variant", v, "--agents", "strategic"]
        for v in ("yuxi", "xuezhan", "huangmei")
    ],
    "sample sweep": None,  # data/sweep/xuezhan-cap
}

SECTIONS = [
    "Contents",
    "Findings",
    "Runs",
    "Comparison",
    "Per seat",
    "Dealer advantage",
    "Patterns",
    "Points per payer per win",
    "Total per win",
    "Points per hand",
    "Swing",
    "How many hands",
    "Hand length and drawn hands",
    "Kong money and end-of-wall settlements",
    "First-winner advantage",
]

VOID = {"meta", "img", "br", "hr", "input", "link", "col", "area", "base", "wbr", "source"}
NOT_A_NUMBER = re.compile(r"(?<![\w.])(nan|NaN|[-+]?inf|<NA>|None)(?![\w])")


class Page(HTMLParser):
    """The page's structure: tags must nest and close; the text outside script and
    style, the headings and the image sources are kept."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []
        self.h2: list[str] = []
        self.images: list[str] = []
        self._h2: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs).get("src", ""))
            self.text.append(dict(attrs).get("alt", ""))
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "h2":
            self._h2 = []

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()
        if tag == "h2" and self._h2 is not None:
            self.h2.append("".join(self._h2))
            self._h2 = None

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("script", "style"):
            return
        self.text.append(data)
        if self._h2 is not None:
            self._h2.append(data)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """shape → its run directories (made once, the first time a test asks)."""
    tmp = tmp_path_factory.mktemp("shapes")
    done: dict[str, list[str]] = {}

    def get(shape: str) -> list[str]:
        if shape not in done:
            if SHAPES[shape] is None:
                done[shape] = [str(data_dir() / "sweep" / "xuezhan-cap")]
                return done[shape]
            done[shape] = []
            for i, cmd in enumerate(SHAPES[shape]):
                out = tmp / f"{shape.replace(' ', '-')}-{i}"
                r = CliRunner().invoke(main, [*cmd, *TINY, "--out", str(out)])
                assert r.exit_code == 0, r.output
                done[shape].append(str(out))
        return done[shape]

    return get


@pytest.fixture(scope="module")
def reports(runs, tmp_path_factory):
    """shape → (index.html, the command's result); each shape rendered once."""
    tmp = tmp_path_factory.mktemp("reports")
    done: dict[str, tuple[Path, object]] = {}

    def get(shape: str):
        if shape not in done:
            page = tmp / shape.replace(" ", "-")
            res = CliRunner().invoke(main, ["report", *runs(shape), "--out", str(page)])
            done[shape] = (page / "index.html", res)
        return done[shape]

    return get


@pytest.mark.parametrize("shape", list(SHAPES))
def test_report_renders_every_shape(reports, shape):
    path, res = reports(shape)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == str(path)
    assert res.stderr == ""  # small runs: no progress lines
    html = path.read_text(encoding="utf-8")
    assert html.rstrip().endswith("</html>")
    page = Page()
    page.feed(html)
    page.close()
    assert not page.errors and page.stack == [], (page.errors[:3], page.stack)
    for section in SECTIONS:
        assert any(h.startswith(section) for h in page.h2), (section, page.h2)
    # a section that adds nothing for this shape is left out: per agent with one agent
    # in every seat (the seats pooled), per variant with one variant (0 by construction)
    several_agents = shape in ("duplicate line-up", "mixed line-up")
    assert any(h.startswith("Per agent") for h in page.h2) == several_agents
    assert any(h.startswith("Per variant") for h in page.h2) == (shape == "several variants")
    one_variant_sweep = shape not in ("several variants", "one point")
    assert any(h.startswith("Paired comparison") for h in page.h2) == one_variant_sweep
    assert any(h.startswith("Skill and luck") for h in page.h2) == (shape == "duplicate line-up")
    assert len(page.images) >= 10
    assert all(base64.b64decode(s.split(",", 1)[1])[:4] == b"\x89PNG" for s in page.images)
    text = " ".join(page.text)
    bad = NOT_A_NUMBER.findall(text)
    assert not bad, [
        text[max(0, m.start() - 80) : m.end() + 20] for m in NOT_A_NUMBER.finditer(text)
    ][:3]


def _findings(path: Path) -> list[str]:
    import html as h

    page = path.read_text(encoding="utf-8")
    block = re.search(r'<ul class="findings">(.*?)</ul>', page, re.S).group(1)
    return [
        h.unescape(re.sub(r"<[^>]+>", "", i)) for i in re.findall(r"<li[^>]*>(.*?)</li>", block)
    ]


def test_the_sample_sweep_states_each_point_against_the_first(reports):
    path, res = reports("sample sweep")
    assert res.exit_code == 0, res.output
    paired = [f for f in _findings(path) if " vs " in f]
    # cap=2, 4 and 16 against cap=1, each on its metrics, with an interval and a verdict
    for point in ("cap=2", "cap=4", "cap=16"):
        assert any(f"xuezhan-cap/{point} vs " in f for f in paired), point
    verdicts = ("differs", "equivalent ±", "inconclusive")
    assert all(
        "95% CI [" in f and " matches" in f and any(v in f for v in verdicts) for f in paired
    )


def test_a_sweep_alone_gets_its_paired_findings(reports):
    """One sweep, one variant and line-up (what .ci/wheel-check reports; it once ended
    in a traceback): the report pairs each point with the first by walls and says each
    difference (a row's `diff`, not pandas' Series.diff)."""
    path, res = reports("sample sweep")
    assert res.exit_code == 0, res.output
    page = path.read_text(encoding="utf-8")
    found = re.findall(r" vs [^:<]+: dealer_advantage ([+-]\d+\.\d{3}) ", page)
    assert len(found) == 3, found  # cap=2, 4 and 16 against cap=1


def test_findings_on_tiny_runs_say_too_few_hands(reports):
    # 3 matches a point: no figure is stated as a finding, none as '0.0% [0.0%, 0.0%]'
    path, res = reports("one-key grid")
    assert res.exit_code == 0, res.output
    found = _findings(path)
    assert found and all(TOO_FEW in f for f in found if not f.startswith("Caveat"))
    assert all("95% CI" not in f for f in found)
    # a run of enough matches is stated, with its interval
    found = _findings(reports("sample sweep")[0])
    assert not any(TOO_FEW in f for f in found)
    assert sum("95% CI [" in f for f in found) >= 8


def test_the_demo_says_too_few_hands(tmp_path):
    res = CliRunner().invoke(
        main, ["demo", "--out", str(tmp_path / "demo"), "--matches", "2", "--hands-per-match", "2"]
    )
    assert res.exit_code == 0, res.output
    runs = [ln for ln in res.stdout.splitlines() if ln.strip().startswith("run ")]
    assert len(runs) == 3
    assert all(f"with a winner (what share of hands: {TOO_FEW}, 2 matches" in ln for ln in runs)
    assert "%" not in "".join(runs)
    found = _findings(tmp_path / "demo" / "report" / "index.html")
    assert all(TOO_FEW in f for f in found if not f.startswith("Caveat"))


def test_lineup_traps_are_flagged_in_the_report_and_by_compare(runs, reports):
    # random never wins; in xuezhan its 查花猪 penalty carries most of the money
    found = _findings(reports("mixed line-up")[0])
    assert any(
        f.startswith(
            "Caveat: yuxi cap=2 [strategic,greedy,random,efficient]: seat 2 "
            "(random) never won in 12 hands"
        )
        for f in found
    ), found
    found = _findings(reports("duplicate line-up")[0])
    assert any("random never won, in any of its seats (48 seat-hands)" in f for f in found)
    assert any(
        "查花猪 flower_pig carries" in f and "of all money transferred" in f for f in found
    ), found
    # compare says the same, in its text (not in its JSON)
    sweep = Path(runs("duplicate line-up")[0])
    res = CliRunner().invoke(main, ["compare", str(sweep / "cap=2"), str(sweep / "cap=8")])
    assert res.exit_code == 0, res.output
    assert "random never won, in any of its seats" in res.stdout
    assert "查花猪 flower_pig carries" in res.stdout
    # a line-up of agents that play the rules gets no such warning
    plain = Path(runs("one-key grid")[0])
    res = CliRunner().invoke(main, ["compare", str(plain / "cap=2"), str(plain / "cap=8")])
    assert res.exit_code == 0 and "never won" not in res.stdout and "carries" not in res.stdout
