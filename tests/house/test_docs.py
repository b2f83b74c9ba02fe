"""The documentation against the code: generated tables, worked examples, links.

- every page's generated regions are what ``make docs`` writes now;
- every worked example (a ```` ```mjlog-score ```` block: the command, then what
  it must report) runs through ``mjlog score`` with the stated result, and every
  pattern of a variant has one;
- no page, no module and not the README sends a reader outside the repository.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjlog import docs
from mjlog.cli import main
from mjlog.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RULES = DOCS / "rules"
_BLOCK = re.compile(r"```mjlog-score\n(.*?)\n(.*?)\n```", re.S)


def _examples() -> list[tuple[str, str, str]]:
    out = []
    for page in sorted(RULES.glob("*.md")):
        for cmd, want in _BLOCK.findall(page.read_text(encoding="utf-8")):
            out.append((page.stem, cmd.strip(), want.strip()))
    return out


def _expected(line: str) -> dict[str, str]:
    """``legal: yes · patterns: a b · fan: 2 · points: 6`` as a dict."""
    out = {}
    for part in line.split(" · "):
        key, _, value = part.partition(":")
        out[key.strip()] = value.strip()
    return out


def _score(args: list[str]) -> dict:
    """``mjlog score ARGS --format json`` as a dict."""
    res = CliRunner().invoke(main, ["score", *args, "--format", "json"])
    if res.exit_code == 2 and "--format" in res.output:
        # mjlog score before the scorer branch: --json (the JSON fields are the same)
        res = CliRunner().invoke(main, ["score", *args, "--json"])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.output)


def test_generated_regions_are_current():
    rendered = docs.pages(DOCS)
    assert {p.name for p in rendered} >= {
        "README.md",
        "log-schema.md",
        *(f"{v}.md" for v in VARIANTS),
    }
    stale = [
        str(p.relative_to(ROOT))
        for p, text in rendered.items()
        if p.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"run `make docs`: {stale} differ from the code"


def test_generator_rewrites_only_its_regions(tmp_path):
    page = tmp_path / "rules" / "yuxi.md"
    page.parent.mkdir()
    page.write_text(
        "prose\n<!-- generated: keys -->\nold\n<!-- end generated -->\nmore\n", encoding="utf-8"
    )
    assert docs.main([str(tmp_path)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("prose\n") and text.endswith("<!-- end generated -->\nmore\n")
    assert "old" not in text
    for k in VARIANTS["yuxi"].rule_keys:
        if k.name not in docs.common_key_names() and "." not in k.name:
            assert f"| `{k.name}` |" in text


def test_every_rule_key_and_pattern_is_on_a_page():
    common = (RULES / "README.md").read_text(encoding="utf-8")
    for name, v in VARIANTS.items():
        page = (RULES / f"{name}.md").read_text(encoding="utf-8")
        for k in v.rule_keys:
            assert f"`{k.name}`" in page or f"`{k.name}`" in common, (name, k.name)
        for p in docs.pattern_keys(v):
            assert f"### {v.pattern_name(p)} `{p}`" in page, (name, p)


def test_the_verdict_table_is_the_vocabulary_of_the_code():
    """docs/cli.md's verdict table is generated from mjlog.judgement: a row per word,
    its JSON value as written, at the one level (a word added or renamed in the code
    and not in the docs fails here or in the regions' check above)."""
    from mjlog.judgement import ALPHA, INTERVAL, Verdict, table

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    region = text.split("<!-- generated: verdicts -->\n", 1)[1].split("<!-- end generated -->")[0]
    rows = [r for r in region.splitlines() if r.startswith("| *")]
    assert [r.split(" | ")[1] for r in rows] == [f'`"{v.value}"`' for v in Verdict]
    assert f"at {ALPHA * 100:g} %" in region and f"the {INTERVAL * 100:g} % interval" in region
    assert region == table() + "\n"


@pytest.mark.parametrize(
    ("variant", "cmd", "want"),
    _examples(),
    ids=[f"{v}:{c.split(' ', 3)[3]}" for v, c, _ in _examples()],
)
def test_worked_example(variant, cmd, want):
    argv = shlex.split(cmd)
    assert argv[:3] == ["mjlog", "score", variant], cmd
    got = _score(argv[2:])
    exp = _expected(want)
    assert got["legal"] == (exp["legal"] == "yes"), (cmd, got)
    if "reason" in exp:
        assert got["reason"] == exp["reason"], (cmd, got)
    if "patterns" in exp:
        assert got["patterns"] == exp["patterns"].split(), (cmd, got)
    for key in ("fan", "multiplier", "points"):
        if key in exp:
            assert str(got[key]) == exp[key], (cmd, key, got)


def test_every_pattern_has_a_worked_example():
    shown: dict[str, set[str]] = {v: set() for v in VARIANTS}
    for variant, _cmd, want in _examples():
        shown[variant].update(_expected(want).get("patterns", "").split())
    for name, v in VARIANTS.items():
        missing = set(docs.pattern_keys(v)) - shown[name]
        assert not missing, f"docs/rules/{name}.md: no worked example shows {sorted(missing)}"


_OUTSIDE = ("../shared", "shared/RULES", "RULES.md", "LOG_SCHEMA.md")


def test_nothing_points_outside_the_repository():
    """The rulebook and the log contract are docs/rules/ and docs/log-schema.md."""
    files = [ROOT / "README.md", *DOCS.rglob("*.md"), *(ROOT / "mjlog").rglob("*.py")]
    hits = [
        f"{f.relative_to(ROOT)}:{i}: {line.strip()}"
        for f in files
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if any(s in line for s in _OUTSIDE)
    ]
    assert not hits, "\n".join(hits)


def test_log_contract_explains_every_transfer_reason():
    from mjlog.schema import TRANSFER_REASONS

    text = (DOCS / "log-schema.md").read_text(encoding="utf-8")
    table = text.split("### Transfer reasons", 1)[1].split("###", 1)[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", table, re.M)
    assert set(TRANSFER_REASONS) <= set(listed), set(TRANSFER_REASONS) - set(listed)
    assert "compensation" in listed  # the dealer_compensation key's transfers


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return s.replace(" ", "-")


def test_links_between_pages_resolve():
    bad = []
    for page in [ROOT / "README.md", *DOCS.rglob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md":
                heads = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.M)
                if anchor not in {_anchor(h) for h in heads}:
                    bad.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("mjlog sc", {"score"}),
        ("mjlog rules ", set(VARIANTS)),
        ("mjlog validate --format ", {"text", "json"}),
    ],
)
def test_shell_completion_as_documented(words, expected):
    """docs/cli.md, "Shell completion": the shell asks mjlog (bash shown)."""
    assert "_MJLOG_COMPLETE=bash_source mjlog" in (DOCS / "cli.md").read_text(encoding="utf-8")
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    res = CliRunner().invoke(
        main,
        [],
        prog_name="mjlog",
        env={"_MJLOG_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword)},
    )
    assert res.exit_code == 0, res.output
    got = {line.split(",", 1)[1] for line in res.output.splitlines() if line}
    assert got == expected
