"""The variant registry: one module per variant, asked instead of compared by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mjlog import rules as rules_mod
from mjlog.rulekeys import RuleError
from mjlog.rules import Rules, keys
from mjlog.variants import VARIANTS, Variant, get_variant

ROOT = Path(__file__).resolve().parents[2]
# the project hook's pattern: a variant's name compared anywhere but in its module
NAME_TEST = re.compile(
    r"""(variant|\.name)\s*(==|!=|in)\s*[([{]?\s*["'](yuxi|xuezhan|huangmei)["']"""
)


def test_registry_names_the_valid_variants():
    assert list(VARIANTS) == ["yuxi", "xuezhan", "huangmei"] == list(rules_mod.VARIANTS)
    with pytest.raises(RuleError, match="valid variants: yuxi, xuezhan, huangmei"):
        get_variant("sichuan")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_each_module_opens_with_its_rules_and_holds_its_keys(name):
    v = get_variant(name)
    assert isinstance(v, Variant) and v.name == name
    module = __import__(f"mjlog.variants.{name}", fromlist=["_"])
    assert module.__doc__.startswith(f"{name} — ")
    assert f"docs/rules/{name}.md" in module.__doc__
    assert set(keys(name)) == {k.name for k in v.rule_keys}
    assert Rules(name).spec is v
    assert v.scorer.NAMES and all(v.pattern_name(k) == zh for k, zh in v.scorer.NAMES.items())


def test_nothing_outside_the_variants_compares_a_variant_name():
    hits = []
    for top in ("mjlog", "simulate", "analysis"):
        for path in (ROOT / top).rglob("*.py"):
            if path.is_relative_to(ROOT / "mjlog" / "variants"):
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if NAME_TEST.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert hits == []
