"""Agents from other packages: the ``mjlog.agents`` entry-point group and
``package.module:factory`` specs.

A plugin is a *factory*: a class or function called with the spec's parameters
(strings, ``--agents mine:depth=2``) that returns an object with the interface of
:class:`mjlog.agent.Agent` (``start_hand(seat, rng)``, ``choose(view, options)``;
``name`` and ``params`` are filled in when missing). Two ways to name it:

- **Entry point** (setuptools/PEP 621), found by name in every command::

      # the plugin's pyproject.toml
      [project.entry-points."mjlog.agents"]
      mine = "mypkg.agents:MyAgent"

  then ``mjlog ladder --agents mine,greedy,greedy,greedy``.
- **Import path**, nothing to declare: ``--agents mypkg.agents:MyAgent`` (and
  ``mypkg.agents:MyAgent:depth=2`` with parameters).

Either way the factory is imported *by name* wherever agents are made: in the
command's process, in each worker of ``--workers N`` (fork, spawn or forkserver
alike) and on every Dask worker, so the plugin must be installed there;
registering a class with :func:`simulate.agents.register` inside one's own
script reaches none of them. The manifest records a plugin seat's ``spec`` and
the ``version`` of the distribution providing it (built-in agents are versioned
by ``mjlog_version``); both enter the run id, so a run says what played it, and a
Dask worker with another version of the plugin fails its task.

Only names given on the command line (or to the Python API) are imported; a run
directory's manifest never causes an import.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

from mjlog.errors import InputError, quote

GROUP = "mjlog.agents"
_PATH = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r":([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
)


@lru_cache(maxsize=1)
def entry_points() -> dict[str, md.EntryPoint]:
    """The installed ``mjlog.agents`` entry points by name."""
    return {ep.name: ep for ep in md.entry_points(group=GROUP)}


def _import(path: str) -> Callable[..., Any]:
    m = _PATH.fullmatch(path)
    assert m is not None  # the caller checked the form
    mod_name, attr = m.groups()
    try:
        obj: Any = importlib.import_module(mod_name)
    except Exception as e:  # noqa: BLE001 - missing, or broken (a SyntaxError): one line
        raise InputError(
            f"agent {quote(path)}: cannot import {mod_name}: {type(e).__name__}: {e}"
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"agent {quote(path)}: {mod_name} has no {attr}")
        obj = getattr(obj, part)
    return obj


@cache
def factory(name: str) -> Callable[..., Any] | None:
    """The factory of a plugin name (entry point or import path), or None."""
    ep = entry_points().get(name)
    if ep is not None:
        try:
            return ep.load()
        except Exception as e:  # noqa: BLE001 - a broken plugin: one line naming it
            raise InputError(
                f"agent {quote(name)}: entry point {ep.value} of "
                f"{GROUP} fails to load: {type(e).__name__}: {e}"
            ) from None
    if _PATH.fullmatch(name):
        return _import(name)
    return None


def make(name: str, params: dict[str, str], builtins: Sequence[str]) -> Any:
    """Build the plugin agent ``name`` with ``params``; InputError naming the valid
    agents when there is none by that name."""
    head = name.split(":", 1)[0]
    if head in builtins and ":" in name:  # greedy:x, not a module
        raise InputError(
            f"bad agent parameter {quote(name.split(':', 1)[1])} in "
            f"{quote(name)}; expected key=value"
        )
    f = factory(name)
    if f is None:
        valid = sorted(set(builtins) | set(entry_points()))
        raise InputError(
            f"unknown agent {quote(name)}; valid agents: {', '.join(valid)}, "
            f"or package.module:factory"
        )
    if not callable(f):
        raise InputError(f"agent {quote(name)}: {type(f).__name__} is not callable")
    try:
        agent = f(**params)
    except InputError:
        raise
    except (TypeError, ValueError) as e:
        raise InputError(f"agent {quote(name)}: bad parameters {quote(params)}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the plugin's own failure: one line naming it
        raise InputError(
            f"agent {quote(name)}: its factory failed: {type(e).__name__}: {e}"
        ) from None
    for method in ("start_hand", "choose"):
        if not callable(getattr(agent, method, None)):
            raise InputError(
                f"agent {quote(name)}: its factory returned "
                f"{type(agent).__name__}, which has no {method}()"
            )
    if not isinstance(getattr(agent, "name", None), str) or not agent.name:
        agent.name = name
    if not isinstance(getattr(agent, "params", None), dict):
        agent.params = dict(params)
    return agent


@cache
def version(name: str) -> str | None:
    """The version of the distribution that provides plugin ``name``, or the
    module's ``__version__``, or None."""
    ep = entry_points().get(name)
    if ep is not None and ep.dist is not None:
        return ep.dist.version
    m = _PATH.fullmatch(name)
    if m is None:
        return None
    top = m.group(1).split(".")[0]
    dists = md.packages_distributions().get(top) or []
    if dists:
        try:
            return md.version(dists[0])
        except md.PackageNotFoundError:
            pass
    mod = importlib.import_module(m.group(1))
    v = getattr(mod, "__version__", None)
    return str(v) if v is not None else None
