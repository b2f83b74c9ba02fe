"""The wheel's optional compiled modules (issue 48); the package's metadata is in
pyproject.toml.

By default the wheel is pure Python (``py3-none-any``), what ``make dist`` builds and
``.ci/wheel-check`` installs. With ``MJLOG_COMPILE=1`` the modules ``build_compiled.py``
names are compiled with mypyc into the wheel beside their source (a wheel for this
platform and Python): ``make dist-compiled``, which builds in the project's own
environment (``--no-isolation``), where mypy and the packages it reads the types of
are installed. Without a C compiler that wheel is pure Python again, with a note.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup


def _ext_modules() -> list:
    if os.environ.get("MJLOG_COMPILE") != "1":
        return []
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import build_compiled

    if not build_compiled.compiler():
        print("MJLOG_COMPILE=1 but no C compiler: a pure-Python wheel", file=sys.stderr)
        return []
    try:
        return build_compiled.extensions()
    except ImportError:
        sys.exit("MJLOG_COMPILE=1 needs mypy (the test extra): build with make dist-compiled")


setup(ext_modules=_ext_modules())
