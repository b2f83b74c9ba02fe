"""Built-in agents and the registry the command line uses.

``random``: uniform over its legal choices (pass included in claim windows).
``greedy``: takes every win; discards to minimise shanten (xuezhan: void tiles
first, shanten counted without them; the void is the suit it holds fewest of,
ties to m, then p, then s); pons or kongs when that does not raise shanten.

>>> [a.name for a in make_agents(["greedy", "random"])]
['greedy', 'random']
>>> make_agents(["nobody"])
Traceback (most recent call last):
...
mjlog.errors.InputError: unknown agent 'nobody'; valid agents: efficient, expert, greedy, \
random, strategic, or package.module:factory
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mjlog.agent import Agent, SeatView
from mjlog.errors import InputError, quote
from mjlog.events import DISCARD, KONG, PON, VOID, WIN, Event
from mjlog.hand import shanten
from mjlog.rng import Stream
from mjlog.ukeire import after_discards

_REGISTRY: dict[str, Callable[..., Agent]] = {}
_FACTORY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def register(name: str):
    """Class decorator: make an agent available by name (``--agents name:k=v``)."""

    def deco(cls):
        _REGISTRY[name] = cls
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
            raise InputError(f"bad agent parameter {quote(part)} in {quote(spec)}; "
                             f"expected key=value")
        params[k.strip()] = v.strip()
    return name.strip(), params


def make_agent(spec: str) -> Agent:
    """The agent of ``spec``: a registered name, an entry point of the
    ``mjlog.agents`` group, or a ``package.module:factory`` to import (see
    :mod:`simulate.plugins`); ``:key=value;…`` parameters go to its factory."""
    from simulate import plugins

    name, params = parse_spec(spec)
    if name in _REGISTRY:
        return _REGISTRY[name](**params)
    return plugins.make(name, params, sorted(_REGISTRY))


def make_agents(specs: Sequence[str]) -> list[Agent]:
    return [make_agent(s) for s in specs]


def agent_names() -> list[str]:
    """Built-in and registered agents, then those of installed ``mjlog.agents`` plugins."""
    from simulate import plugins

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
    from simulate import plugins

    name, params = parse_spec(spec)
    if name in _REGISTRY:
        settings = getattr(make_agent(spec), "params", None) or {}
        # plain values only: a registered agent's object parameter has no stable text
        return {"name": name, "params": params,
                "settings": {k: v for k, v in settings.items()
                             if isinstance(v, str | int | float | bool | None)}}
    return {"name": name, "params": params, "spec": spec, "version": plugins.version(name)}


class _Base:
    name = "base"

    def __init__(self, **params):
        if params:
            raise InputError(f"agent {self.name!r} takes no parameters, got {sorted(params)}")
        self.params: dict = {}
        self.seat = 0
        self.rng: Stream | None = None

    def start_hand(self, seat: int, rng: Stream) -> None:
        self.seat, self.rng = seat, rng


@register("random")
class RandomAgent(_Base):
    """Uniform over the legal choices, from its own stream."""

    def choose(self, view: SeatView, options: list[Event | None]) -> Event | None:
        return options[self.rng.below(len(options))]


@register("greedy")
class GreedyAgent(_Base):
    """Wins when it can; otherwise keeps shanten as low as it can."""

    def choose(self, view: SeatView, options: list[Event | None]) -> Event | None:
        first = options[0]
        if first is not None and first.type == WIN:
            return first
        if first is not None and first.type == VOID:
            h = view.hand
            counts = [sum(h[9 * s: 9 * s + 9]) for s in range(3)]
            return options[counts.index(min(counts))]
        hand = view.hand
        nm = len(view.melds[self.seat])
        void = view.void[self.seat]
        if options[-1] is None:  # a claim window: pon / kong / pass
            base = _shanten(hand, nm, void)
            t = view.window_tile
            for o in options:
                if o is None:
                    continue
                k = 2 if o.type == PON else 3
                hand[t] -= k
                after = _shanten(hand, nm + 1, void)
                hand[t] += k
                if after <= base:
                    return o
            return None
        # own turn: kongs that do not raise shanten, else the best discard
        base = None
        discards = []
        for o in options:
            if o.type == KONG:
                if base is None:
                    base = _shanten(hand, nm, void)
                k = 4 if o.kind == "concealed" else 1
                hand[o.tile] -= k
                after = _shanten(hand, nm + (k == 4), void)
                hand[o.tile] += k
                if after <= base:
                    return o
            elif o.type == DISCARD:
                discards.append(o)
        if void is not None:
            vd = [o for o in discards if o.tile // 9 == void]
            if vd:
                return vd[self.rng.below(len(vd))]
        # no void tile left: the shanten after each discard, all at once
        after = after_discards(hand, nm)
        best_s = min(after[o.tile] for o in discards)
        best = [o for o in discards if after[o.tile] == best_s]
        return best[self.rng.below(len(best))]


def _shanten(hand: list[int], melds: int, void: int | None) -> int:
    if void is None:
        return shanten(hand, melds)
    h = hand[:]
    h[9 * void: 9 * void + 9] = [0] * 9
    # without its void tiles the hand is shorter; count them as tiles still to replace
    return shanten(h, melds) + sum(hand[9 * void: 9 * void + 9])


__all__ = ["register", "make_agent", "make_agents", "agent_names", "agent_entry", "RandomAgent",
           "GreedyAgent", "DISCARD", "KONG", "PON"]


def _register_more() -> None:
    # Agents in their own modules register here so `make_agent` knows every name.
    from simulate.efficient import EfficientAgent
    from simulate.expert import ExpertAgent
    from simulate.strategic import StrategicAgent

    register("efficient")(EfficientAgent)
    register("expert")(ExpertAgent)
    register("strategic")(StrategicAgent)


_register_more()
