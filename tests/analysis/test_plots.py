"""Figures: every one renders, and every character of every label has a glyph in the
project's CJK font (no fallback boxes)."""

from __future__ import annotations

import warnings

import pytest

from analysis import fonts, plots, queries
from analysis.studies.sample import data_dir


@pytest.fixture(scope="module")
def figs():
    runs = queries.Runs(
        [data_dir() / v for v in ("yuxi", "xuezhan", "huangmei")]
        + [data_dir() / "sweep" / "xuezhan-cap"]
    )
    return plots.figures(runs)


def test_the_font_comes_from_the_installed_package(tmp_path):
    import shutil

    from matplotlib import font_manager

    path = fonts.font_path()
    assert "site-packages" in str(path) or "dist-packages" in str(path)
    # even when another copy of the family is known (a system font, say)
    other = tmp_path / "wqy-microhei.ttc"
    shutil.copy(path, other)
    font_manager.fontManager.addfont(str(other))
    fonts._register.cache_clear()
    fonts.use()
    assert font_manager.findfont(fonts.FAMILY, fallback_to_default=False) == str(path)


def test_missing_finds_characters_the_font_lacks():
    assert fonts.missing("清一色 碰碰胡 番种 查花猪 abc 123 ×Σ") == ""
    assert fonts.missing("麻将 \U0001f004 \U0001f004") == "\U0001f004"  # 🀄 has no glyph


def test_every_figure_is_drawn(figs):
    assert set(figs) == {
        "compare",
        "seats",
        "agents",
        "variants",
        "dealer",
        "patterns",
        "win_points",
        "hand_points",
        "hand_length",
        "outcomes",
        "money",
        "first_winner",
    }


def test_every_label_has_glyphs(figs):
    for name, fig in figs.items():
        text = "".join(plots.texts(fig))
        assert any("\u4e00" <= ch <= "\u9fff" for ch in text), name  # Chinese is there
        assert fonts.missing(text) == "", (name, fonts.missing(text))


def test_no_figure_has_a_y_label(figs):
    # plots._fig places every y label once, where an empty one takes no room (the layout
    # then skips measuring the tick labels again for it): a y label would need that gone
    for name, fig in figs.items():
        assert [ax.get_ylabel() for ax in fig.axes] == [""] * len(fig.axes), name


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_rendering_warns_of_no_missing_glyph(figs, fmt):
    # matplotlib warns "Glyph N (...) missing from font(s) ..." when it falls back to a box
    render = plots.to_png if fmt == "png" else plots.to_svg
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fig in (figs["patterns"], figs["money"], figs["seats"]):
            assert len(render(fig)) > 1000


def test_a_missing_glyph_would_be_caught():
    fig, (ax,) = plots._fig()
    ax.set_title("\U0001f004")
    with pytest.warns(UserWarning, match="[Gg]lyph"):
        plots.to_png(fig)
    assert fonts.missing("".join(plots.texts(fig))) == "\U0001f004"


def test_patterns_carry_each_variants_own_name(figs):
    # one key, the name of each variant's own table: a row per (name, key)
    from mjlog.variants import VARIANTS

    ticks = [t.get_text() for t in figs["patterns"].axes[0].get_yticklabels()]
    for row in ("杠上花 gangshanghua", "杠上开花 gangshanghua", "小七对 qidui", "七对 qidui"):
        assert row in ticks, row
    for row in ticks:
        name, key = row.rsplit(" ", 1)
        assert any(v.pattern_name(key) == name for v in VARIANTS.values()), row


def test_legends_name_the_agents(figs):
    for name in ("seats", "agents", "patterns", "win_points", "compare", "money"):
        assert any(
            "strategic,strategic,strategic,strategic" in t for t in plots.texts(figs[name])
        ), name


def test_a_one_key_sweep_is_a_line_over_the_typed_value():
    c = queries.compare(data_dir() / "sweep" / "xuezhan-cap")
    assert plots.sweep_key(c) == "cap"
    fig = plots.compare_figure(c)
    ax = fig.axes[0]
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [1, 2, 4, 16]  # the cap itself on the x axis
    assert "95% CI" in ax.get_title() and ax.get_xlabel() == "cap"
    assert plots.sweep_key(queries.compare([data_dir() / "yuxi", data_dir() / "xuezhan"])) is None


def test_panels_that_misled_are_fixed(figs):
    # per variant: no mean-points panel (always 0: the game is zero-sum)
    assert not any("mean points" in t for t in plots.texts(figs["variants"]))
    # money: gross shares, each group's stack adds to 1
    m = queries.money_shares([data_dir() / "xuezhan"])
    assert abs(m["share_of_transfers"].sum() - 1) < 1e-9
    ax = figs["money"].axes[0]
    widths = {}
    for p in ax.patches:
        widths.setdefault(round(p.get_y(), 6), 0.0)
        widths[round(p.get_y(), 6)] += p.get_width()
    assert all(abs(w - 1) < 1e-9 for w in widths.values())


def test_undefined_values_draw_no_whisker():
    import pandas as pd

    df = pd.DataFrame(
        {
            "variant": ["yuxi"] * 2,
            "config": ["default"] * 2,
            "lineup": ["a"] * 2,
            "agent": ["x", "y"],
            "self_draw_share": [0.5, float("nan")],
            "self_draw_share_lo": [0.4, float("nan")],
            "self_draw_share_hi": [0.6, float("nan")],
        }
    )
    fig = plots.seat_figure(df, ("self_draw_share",))
    ax = fig.axes[0]
    assert len(ax.patches) == 1 and "n/a" in plots.texts(fig)


def test_a_run_beside_the_sample_at_its_default_draws_both_points(tmp_path):
    """`mjlog report data/yuxi RUN`, RUN with one changed key (cap=8): the sample logs
    no value for cap (its default, 64), so the line over cap had no x for it and the
    comparison figure came out blank. The default is the variant's, and is drawn."""
    from simulate.runner import RunSpec, simulate

    spec = RunSpec.build(
        "yuxi", seed=3, matches=4, hands_per_match=4, agents=["strategic"], sets=("cap=8",)
    )
    simulate(spec, tmp_path / "cap8", workers=1, progress=False)
    c = queries.compare(queries.Runs([data_dir() / "yuxi", tmp_path / "cap8"]))
    fig = plots.compare_figure(c)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        line = ax.get_lines()[0]  # the line through the points (the rest: whiskers)
        assert list(line.get_xdata()) == [8.0, 64.0], ax.get_title()
        assert all(y == y for y in line.get_ydata()), ax.get_title()
