"""The wheel's optional compiled modules (issue 48); the package's metadata is in
pyproject.toml.

By default the wheel is pure Python (``py3-none-any``), what ``make dist`` builds and
``.ci/wheel-check`` installs. With ``MJLOG_COMPILE=1`` the modules ``build_compiled.py``
names are compiled with mypyc into the wheel beside their source (a wheel for this
platform and Python): ``make dist-compiled``. The build then requires mypy and the
packages whose types it reads (the frontend installs them in the build's environment). Without a C compiler that wheel is
pure Python again, with a note.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup

COMPILE = os.environ.get("MJLOG_COMPILE") == "1"


def _ext_modules() -> list:
    if not COMPILE:
        return []
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import build_compiled

    if not build_compiled.compiler():
        print("MJLOG_COMPILE=1 but no C compiler: a pure-Python wheel", file=sys.stderr)
        return []
    try:
        import mypyc  # noqa: F401
    except ImportError:  # asked for the build's requirements: setup_requires names mypy
        return []
    # The build's own environment has mypy and the typed packages the compiled modules'
    # imports reach (BUILD_NEEDS); any other is read as Any, as no compiled module reads it.
    return build_compiled.extensions("--ignore-missing-imports")


#: What mypy needs to compile (the frontend installs it in the build's environment).
BUILD_NEEDS = ["mypy>=2.4", "numpy>=1.26", "pyarrow>=15", "click>=8.1"]

setup(ext_modules=_ext_modules(), setup_requires=BUILD_NEEDS if COMPILE else [])
