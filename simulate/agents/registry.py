"""The registry the command line uses: agents by name, with their parameters.

It knows no agent itself: :mod:`simulate.agents` registers the built-in ones,
and names it does not hold are plugins (:mod:`simulate.agents.plugins`).

>>> [a.name for a in make_agents(["greedy", "random"])]
['greedy', 'random']
>>> make_agents(["nobody"])
Traceback (most recent call last):
...
mjlog.errors.InputError: unknown agent 'nobody'; valid agents: efficient, expert, greedy, \
random, strategic, or package.module:factory
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence

from mjlog.agent import Agent
from mjlog.errors import InputError, quote
from simulate.agents import plugins

_REGISTRY: dict[str, Callable[..., Agent]] = {}
_FACTORY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def register(name: str):
    """Class decorator: make an agent available by name (``--agents name:k=v``)."""

    def deco(cls):
        _REGISTRY[name] = cls
        # A class whose ``name`` is a data descriptor (a compiled agent's native attribute,
        # a property) names its own instances: rebinding it on the class would hide each
        # instance's own (``strategic:rules=default`` read back as ``strategic``, a deep
        # copy refused as "read-only").
        if not hasattr(inspect.getattr_static(cls, "name", None), "__set__"):
            cls.name = name
        return cls

    return deco


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"strategic:aggression=0.7"`` → ``("strategic", {"aggression": "0.7"})``.

    A plugin named by its factory keeps ``module:factory`` as its name, its
    parameters after a second colon:

    >>> parse_spec("mypkg.agents:make:depth=2")
    ('mypkg.agents:make', {'depth': '2'})
    """
    name, _, rest = spec.partition(":")
    head, colon, tail = rest.partition(":")
    if _FACTORY.fullmatch(head) and (colon or "=" not in head):
        name, rest = f"{name}:{head}", tail
    params = {}
    for part in filter(None, rest.split(";")):
        k, eq, v = part.partition("=")
        if not eq:
            raise InputError(
                f"bad agent parameter {quote(part)} in {quote(spec)}; expected key=value"
            )
        params[k.strip()] = v.strip()
    return name.strip(), params


def make_agent(spec: str) -> Agent:
    """The agent of ``spec``: a registered name, an entry point of the
    ``mjlog.agents`` group, or a ``package.module:factory`` to import (see
    :mod:`simulate.agents.plugins`); ``:key=value;…`` parameters go to its factory."""
    name, params = parse_spec(spec)
    if name in _REGISTRY:
        return _REGISTRY[name](**params)
    return plugins.make(name, params, sorted(_REGISTRY))


def make_agents(specs: Sequence[str]) -> list[Agent]:
    return [make_agent(s) for s in specs]


def agent_names() -> list[str]:
    """Built-in and registered agents, then those of installed ``mjlog.agents`` plugins."""
    return sorted(_REGISTRY) + sorted(set(plugins.entry_points()) - set(_REGISTRY))


def agent_entry(spec: str) -> dict:
    """The manifest's record of one seat's agent: name and parameters as given; a
    registered agent's also its ``settings``, every parameter with the defaults
    filled in (a later change of a default is then another run, not one resumed
    into the old); a plugin's its ``spec`` and the ``version`` of the distribution
    that provides it.

    >>> agent_entry("strategic:fold=2")
    {'name': 'strategic', 'params': {'fold': '2'}, 'settings': {'aggression': 0.6, \
'defense': 0.5, 'fold': 2, 'rules': 'in_force'}}
    """
    name, params = parse_spec(spec)
    if name in _REGISTRY:
        settings = getattr(make_agent(spec), "params", None) or {}
        # plain values only: a registered agent's object parameter has no stable text
        return {
            "name": name,
            "params": params,
            "settings": {
                k: v for k, v in settings.items() if isinstance(v, str | int | float | bool | None)
            },
        }
    return {"name": name, "params": params, "spec": spec, "version": plugins.version(name)}
