"""Who played: each seat's agent as a label that tells apart every agent read together.

An agent is its full spec, as a run's manifest records it (:func:`simulate.agents.
agent_entry`): its name; a built-in agent's ``settings`` (every parameter, the
defaults filled in), else the parameters as given; a plugin's ``version``. Two
seats are one agent only when all of that agrees: ``strategic`` and
``strategic:aggression=0.6`` (its default) are one agent, ``expert`` and
``expert:rollouts=0`` two. The hands table logs each seat's agent by name only,
so a label comes from the manifest.

A label is the shortest that still distinguishes:

- the **plain name** when no other agent of that name is among the runs read
  together (``strategic:aggression=0.9`` alone reads ``strategic``), or for the
  one agent of that name that was given without parameters;
- otherwise ``name:key=value;…`` with the keys whose values differ between the
  agents of that name (``strategic:aggression=0.1``), a spec ``--agents`` takes
  back; ``@version`` is added when plugin versions differ;
- if that still leaves two alike (manifests of older mjlogs, without settings),
  every key, then ``#1``, ``#2``… in the order the runs were given.

>>> labels([[{"name": "strategic", "params": {}, "settings": {"aggression": 0.6}},
...          {"name": "strategic", "params": {"aggression": "0.1"},
...           "settings": {"aggression": 0.1}}, {"name": "greedy", "params": {}}]])
[('strategic', 'strategic:aggression=0.1', 'greedy')]
>>> labels([[{"name": "strategic", "params": {"aggression": "0.9"},
...           "settings": {"aggression": 0.9}}], None])
[('strategic',), None]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["labels"]


@dataclass(frozen=True)
class _Agent:
    name: str
    fields: dict[str, Any]  # what sets it apart: settings, else the given params
    version: str | None
    plain: bool  # given without parameters
    key: str  # its identity, canonical


def _agent(entry: Any) -> _Agent:
    fields: dict[str, Any]
    if not isinstance(entry, dict):  # the oldest manifests: the spec as given
        name, fields, version, plain, kind = str(entry), {}, None, True, "spec"
    else:
        name = str(entry.get("name"))
        params: dict[str, Any] = entry["params"] if isinstance(entry.get("params"), dict) else {}
        settings = entry.get("settings")
        kind = "settings" if isinstance(settings, dict) else "params"
        fields = dict(settings) if isinstance(settings, dict) else dict(params)
        version = None if entry.get("version") is None else str(entry.get("version"))
        plain = not params
    key = json.dumps([name, kind, fields, version], sort_keys=True, default=str)
    return _Agent(name, fields, version, plain, key)


def _show(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)


def _named(name: str, group: list[_Agent]) -> dict[str, str]:
    """Labels of the distinct agents of one name (two or more)."""
    keys = sorted({k for a in group for k in a.fields})
    differ = [
        k for k in keys if len({_show(a.fields[k]) if k in a.fields else None for a in group}) > 1
    ]
    versions = len({a.version for a in group}) > 1

    def label(a: _Agent, ks: list[str]) -> str:
        parts = ";".join(f"{k}={_show(a.fields[k])}" for k in ks if k in a.fields)
        text = f"{name}:{parts}" if parts else name
        return f"{text}@{a.version}" if versions and a.version is not None else text

    out = {a.key: label(a, differ) for a in group}
    plain = [a for a in group if a.plain]
    if len(plain) == 1:
        out[plain[0].key] = name
    if len(set(out.values())) < len(out):
        out = {a.key: label(a, keys) for a in group}
    if len(set(out.values())) < len(out):
        out = {a.key: f"{out[a.key]}#{i}" for i, a in enumerate(group, 1)}
    return out


def labels(lineups: Sequence[Sequence[Any] | None]) -> list[tuple[str, ...] | None]:
    """Each line-up (a run's manifest ``agents``, seat by seat at rotation 0; None for
    a run whose seats are named by its hands) as labels, told apart over them all."""
    seen: dict[str, _Agent] = {}  # by identity, in the order first met
    for lineup in lineups:
        for entry in lineup or ():
            a = _agent(entry)
            if a.key not in seen or (a.plain and not seen[a.key].plain):
                seen[a.key] = a  # given without parameters in any run: plain
    by_name: dict[str, list[_Agent]] = {}
    for a in seen.values():
        by_name.setdefault(a.name, []).append(a)
    label = {}
    for name, group in by_name.items():
        label.update({group[0].key: name} if len(group) == 1 else _named(name, group))
    return [
        None if lineup is None else tuple(label[_agent(e).key] for e in lineup)
        for lineup in lineups
    ]
