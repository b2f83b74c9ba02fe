"""The metric registry (``mjlog.metrics``) against every place that names a metric.

The registry names, describes and sets the margin of each headline family; the
per-match arrays are computed in ``analysis.compare.metric_arrays``. These tests
keep the two in step and check that each reader (``--until``, ``compare``'s
verdicts, ``plan``, ``tune``, the report, the help and docs/cli.md) lists what the
registry lists.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis import compare, decide, queries
from mjlog import metrics
from mjlog.cli import main
from mjlog.logio import read_manifest
from mjlog.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def _rules(run: Path) -> Rules:
    m = read_manifest(run)
    return Rules.recorded(m["variant"], m["rules"])


@pytest.mark.parametrize("variant", ["yuxi", "xuezhan", "huangmei"])
def test_compare_computes_exactly_the_registered_metrics_in_their_units(variant):
    run = DATA / variant
    rules = _rules(run)
    patterns = list(rules.spec.patterns(rules))
    units, pats = compare.match_units(queries.Runs(run))
    arrays = compare.metric_arrays(units, pats, patterns)
    assert list(arrays) == metrics.names(rules.n, patterns)
    for name, (_y, _x, unit) in arrays.items():
        assert unit == metrics.FAMILIES[metrics.family(name)].unit, name


def test_per_agent_points_are_of_the_mean_points_family():
    units, pats = compare.match_units(queries.Runs(DATA / "yuxi"))
    units = units.assign(**{"points@a": units["pts0"], "seat_hands@a": units["hands"]})
    arrays = compare.metric_arrays(units, pats, [], agents=["a"])
    assert arrays["mean_points[a]"][2] == metrics.FAMILIES["mean_points"].unit
    assert "mean_points[0]" not in arrays


def test_until_accepts_the_registry_names():
    from simulate.until import until_metrics

    rules = _rules(DATA / "xuezhan")
    assert until_metrics(rules) == metrics.names(rules.n, rules.spec.patterns(rules))


def test_verdict_margins_are_the_registry_margins():
    """A figure in points takes its registry margin at base 1 (scaled by the base);
    a rate's registry margin is the rate of a 5 % baseline, which the scaled margin
    (a fifth of the rarer side, docs/cli.md) gives there."""
    assert decide.DEFAULT_MARGINS == {m.family: m.margin for m in metrics.METRICS}
    for m in metrics.METRICS:
        name = f"{m.family}[1]" if m.index else m.family
        if m.in_points:
            assert decide.margin_for(name) == m.margin == metrics.margin(name)
            assert decide.margin_for(name, base=4) == 4 * m.margin
        else:
            assert decide.margin_for(name, baseline=0.05) == m.margin == metrics.margin(name)
    assert decide.margin_for("draw_rate", {"draw_rate": 0.5}) == 0.5


def test_a_margin_for_no_family_is_refused_naming_every_family():
    from mjlog.errors import InputError

    with pytest.raises(InputError) as e:
        decide.parse_margins(["no_such_metric=0.1"])
    assert all(m.family in str(e.value) for m in metrics.METRICS)


def test_report_pairs_the_single_metric_families():
    assert set(metrics.plain()) == {m.family for m in metrics.METRICS if not m.index}
    assert "mean_points" not in metrics.plain() and "pattern_rate" not in metrics.plain()


@pytest.mark.parametrize("command", ["plan"])
def test_help_names_every_family(command):
    res = CliRunner().invoke(main, [command, "--help"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    for m in metrics.METRICS:
        assert m.shown in text, m.shown


def test_docs_table_has_a_row_per_family():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    region = page.split("<!-- generated: metrics -->", 1)[1].split("<!-- end generated -->")[0]
    rows = [line for line in region.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == [m.shown for m in metrics.by_unit()]
    for m in metrics.METRICS:
        row = next(r for r in rows if r.startswith(f"| `{m.shown}`"))
        assert m.unit in row and f"| {m.margin:g} |" in row


def test_pattern_names_round_trip():
    names = metrics.names(4, ["qidui", "gang_kai"])
    assert metrics.patterns_in(names) == ["qidui", "gang_kai"]
    assert metrics.pattern_of("pattern_rate[qidui]") == "qidui"
    assert metrics.pattern_of("draw_rate") is None
