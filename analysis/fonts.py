"""A CJK font for the figures, installed from PyPI with the project (no system font).

The font is WenQuanYi Micro Hei (文泉驿微米黑; Apache-2.0 or GPLv3 with the font
embedding exception), shipped by the ``paperang-p2-fonts-cjk`` package: one 5 MB
TrueType collection covering GB 2312 and more, plus Latin. :func:`use` registers it
with matplotlib (``fontManager.addfont``) and makes it the default family, so
Chinese labels render as glyphs, never as empty boxes. :func:`missing` lists the
characters of a text that the font lacks; the tests check every label with it.

>>> missing("清一色 碰碰胡 查大叫 退税 胡牌率 ×·—")
''
>>> FAMILY
'WenQuanYi Micro Hei'
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

__all__ = ["FAMILY", "font_path", "missing", "use"]

FAMILY = "WenQuanYi Micro Hei"
_PACKAGE = "paperang_p2_fonts_cjk"
_FILE = "wqy-microhei.ttc"


@functools.cache
def font_path() -> Path:
    """The font file, inside the installed package."""
    try:
        root = importlib.resources.files(_PACKAGE)
    except ModuleNotFoundError:
        raise RuntimeError(
            f"the CJK font package is not installed (pip install paperang-p2-fonts-cjk; "
            f"`make` installs it): {_PACKAGE}"
        ) from None
    path = Path(str(root / "fonts" / _FILE))
    if not path.is_file():
        raise RuntimeError(f"{path}: the CJK font file is missing from {_PACKAGE}")
    return path


@functools.cache
def _charmap() -> frozenset[int]:
    from matplotlib.ft2font import FT2Font

    return frozenset(FT2Font(str(font_path())).get_charmap())


def missing(text: str) -> str:
    """The distinct characters of ``text`` (whitespace aside) that the font has no glyph
    for, in order of first appearance; empty when every one renders."""
    cmap = _charmap()
    out = []
    for ch in text:
        if not ch.isspace() and ord(ch) not in cmap and ch not in out:
            out.append(ch)
    return "".join(out)


@functools.cache
def _register() -> None:
    from matplotlib import font_manager

    fm = font_manager.fontManager
    ours = str(font_path())
    fm.addfont(ours)
    # A system copy of the same family (say Debian's fonts-wqy-microhei) must not be
    # picked instead: the figures use the file this project installs, nothing else.
    names = {f.name for f in fm.ttflist if f.fname == ours}
    fm.ttflist = [f for f in fm.ttflist if f.name not in names or f.fname == ours]
    clear = getattr(getattr(fm, "_findfont_cached", None), "cache_clear", None)
    if clear is not None:
        clear()


def use() -> str:
    """Register the font with matplotlib (once) and make it the default sans-serif;
    returns the family name. Cheap: the plots call it before every figure."""
    import matplotlib

    _register()
    matplotlib.rcParams["font.family"] = "sans-serif"
    sans = [f for f in matplotlib.rcParams["font.sans-serif"] if f != FAMILY]
    matplotlib.rcParams["font.sans-serif"] = [FAMILY, *sans]
    matplotlib.rcParams["axes.unicode_minus"] = False  # the font's hyphen, not U+2212
    matplotlib.rcParams["svg.fonttype"] = "path"  # self-contained SVG
    return FAMILY
