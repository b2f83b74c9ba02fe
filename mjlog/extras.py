"""The wheel's optional parts: what each extra installs, and the one-line error that
names the extra a command needs when it is missing.

The required dependencies are what the core and the reading analysis need; a package
only one feature uses is an extra (``pip install 'mjlog[tune]'``), imported where the
feature starts, so ``import mjlog.tiles`` and ``mjlog --help`` never need it.

>>> import math
>>> require("math", "tune", "mjlog tune") is math
True
>>> require("no_such_module_xyz", "tune", "mjlog tune")
Traceback (most recent call last):
...
mjlog.extras.MissingExtra: mjlog tune needs no_such_module_xyz, which is not installed: pip install 'mjlog[tune]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mjlog.errors import MjlogError

EXTRAS: dict[str, str] = {
    "dask": "--scheduler: play the shards on a dask.distributed cluster",
    "tune": "mjlog tune --vary: the search over rule values (Optuna)",
    "env": "mjlog.env: the PettingZoo/Gymnasium environments",
}
"""The extras a user may need, each with what it is for (pyproject.toml lists their
packages; ``test``, ``notebook`` and ``bench`` are the checkout's own)."""


class MissingExtra(MjlogError):
    """A command needs a package of an extra that is not installed (exit 2)."""


def require(module: str, extra: str, what: str) -> ModuleType:
    """``module`` imported, or :class:`MissingExtra` naming ``extra`` as the
    install to run; ``what`` names the command or option that needs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(
            f"{what} needs {module}, which is not installed: pip install 'mjlog[{extra}]'"
        ) from None
