"""The grammar of a tune: what may vary (``--vary``) and what is wanted (``--target``).

>>> [v.values for v in parse_vary(["fan.qidui=5:60:5"], "huangmei")][0][:3]
(5, 10, 15)
>>> parse_target("pattern_rate[qidui]=0.05±0.01")
Target(metric='pattern_rate[qidui]', op='=', value=0.05, tol=0.01, weight=1.0)
>>> parse_target("draw_rate<=0.02")
Target(metric='draw_rate', op='<=', value=0.02, tol=None, weight=1.0)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mjlog.errors import InputError, finite_float, quote
from mjlog.metrics import names
from mjlog.rules import keys


# ------------------------------------------------------------------ what may vary
@dataclass(frozen=True)
class Vary:
    """One rule key the search may move, and the values it may take (in order)."""

    key: str
    values: tuple[Any, ...]
    numeric: bool  # ordered values: the sampler may interpolate between neighbours

    def show(self, value: Any) -> str:
        return _show(self.key, value)


def _show(key: str, value: Any) -> str:
    if isinstance(value, tuple):
        return "/".join("-" if v is None else str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_vary(items: Sequence[str], variant: str) -> list[Vary]:
    """``--vary`` items into :class:`Vary`; each value checked against its rule key."""
    table = keys(variant)
    out: list[Vary] = []
    for item in items:
        key, eq, spec = item.partition("=")
        key, spec = key.strip(), spec.strip()
        if not eq or not key or not spec:
            raise InputError(f"bad --vary {quote(item)}; expected KEY=LO:HI or KEY=a|b|c")
        if key not in table:
            raise InputError(
                f"--vary {quote(item)}: {variant} has no rule key {quote(key)} "
                f"(mjlog rules {variant} lists them)"
            )
        if any(v.key == key for v in out):
            raise InputError(f"--vary names {quote(key)} twice")
        rk = table[key]
        if "|" in spec:
            raw = [s.strip() for s in spec.split("|")]
            vals = tuple(rk.parse(s, variant) for s in raw)
            if len(set(vals)) != len(vals):
                raise InputError(f"--vary {quote(item)} repeats a value")
            out.append(Vary(key, vals, numeric=False))
            continue
        parts = spec.split(":")
        if rk.kind == "pair" and len(parts) == 2:
            a, b = (rk.parse(p, variant) for p in parts)
            if None in a + b:
                raise InputError(
                    f"--vary {quote(item)}: a pair with '-' varies only as "
                    f"a list of values (KEY=a|b)"
                )
            line = [
                tuple(round(x + t / 10 * (y - x)) for x, y in zip(a, b, strict=True))
                for t in range(11)
            ]
            out.append(Vary(key, tuple(dict.fromkeys(line)), numeric=True))
            continue
        if rk.kind not in ("int", "pow2") or len(parts) not in (2, 3):
            raise InputError(
                f"--vary {quote(item)}: {quote(key)} is a {rk.kind} key; give "
                f"its values as KEY=a|b|c"
                if rk.kind not in ("int", "pow2")
                else f"bad --vary {quote(item)}; expected KEY=LO:HI[:STEP]"
            )
        lo, hi = (rk.parse(p, variant) for p in parts[:2])
        step = rk.parse(parts[2], variant) if len(parts) == 3 else 1
        if hi <= lo or step < 1:
            raise InputError(f"--vary {quote(item)}: expected LO < HI and a STEP of 1 or more")
        vals = (
            tuple(2**k for k in range(31) if lo <= 2**k <= hi)
            if rk.kind == "pow2"
            else tuple(range(lo, hi + 1, step))
        )
        if len(vals) < 2:
            raise InputError(f"--vary {quote(item)}: fewer than two values between {lo} and {hi}")
        out.append(Vary(key, vals, numeric=True))
    if not out:
        raise InputError("tune needs at least one --vary KEY=...")
    return out


# ------------------------------------------------------------------ what is wanted
@dataclass(frozen=True)
class Target:
    """``metric op value`` within ``tol`` (``=``), or at most / least ``value``."""

    metric: str
    op: str  # "=", "<=" or ">="
    value: float
    tol: float | None
    weight: float = 1.0

    @property
    def scale(self) -> float:
        if self.tol is not None:
            return self.tol
        return abs(self.value) / 10 if self.value else 0.01

    def miss(self, value: float) -> float:
        """How far ``value`` is from the target, in its scale (0: on target)."""
        if self.op == "=":
            d = value - self.value
        elif self.op == "<=":
            d = max(0.0, value - self.value)
        else:
            d = max(0.0, self.value - value)
        return d / self.scale

    def show(self) -> str:
        tol = f"±{self.tol:g}" if self.tol is not None else ""
        return f"{self.metric}{self.op}{self.value:g}{tol}"


_TARGET = re.compile(
    r"^\s*([a-z_]+(?:\[[a-z0-9_]+\])?)\s*(<=|>=|=)\s*([^±+]+?)\s*"
    r"(?:(?:±|\+-)\s*(\S+))?\s*$"
)


def parse_target(text: str, weights: Mapping[str, float] | None = None) -> Target:
    m = _TARGET.match(text)
    if not m:
        raise InputError(
            f"bad --target {quote(text)}; expected METRIC=VALUE±TOL (or +-), "
            f"METRIC<=VALUE or METRIC>=VALUE, say 'draw_rate<=0.02'"
        )
    metric, op, value, tol = m.groups()
    v = finite_float(value, f"the value of --target {quote(text)}")
    t = None if tol is None else finite_float(tol, f"the tolerance of --target {quote(text)}")
    if op == "=" and t is None:
        raise InputError(
            f"--target {quote(text)}: an equality target needs a tolerance (METRIC=VALUE±TOL)"
        )
    if t is not None and not t > 0:
        raise InputError(f"--target {quote(text)}: the tolerance must be above 0")
    return Target(metric, op, v, t, float((weights or {}).get(metric, 1.0)))


def parse_weights(items: Sequence[str]) -> dict[str, float]:
    out = {}
    for item in items:
        metric, eq, value = item.partition("=")
        if not eq or not metric.strip():
            raise InputError(f"bad --weight {quote(item)}; expected METRIC=W")
        w = finite_float(value.strip(), f"the weight of {quote(metric.strip())}")
        if not w > 0:
            raise InputError(f"the weight of {quote(metric.strip())} must be above 0")
        out[metric.strip()] = w
    return out


RATES = ("draw_rate", "pattern_rate", "capped_share")
"""The metric families that are shares (of hands or of wins): their values lie in [0, 1]."""

MISS_MAX = 1e6
"""A target's loss term must stay finite for a miss this many times its size (or 1):
a tolerance or a weight that would overflow the loss is refused before play."""


def check_targets(targets: Sequence[Target], rules, vary: Sequence[Vary] = ()) -> None:
    """Refuse, before any hand is played, a metric the runs cannot have (under the
    rules, or under a varied ``players``), a rate outside [0, 1], and a target whose
    loss term could overflow (a tolerance like ``1e-320``, a weight like ``1e308``).

    >>> from mjlog.rules import resolve
    >>> check_targets([parse_target("draw_rate=1.5±0.1")], resolve("yuxi"))
    Traceback (most recent call last):
    ...
    mjlog.errors.InputError: --target 'draw_rate=1.5±0.1': draw_rate is a share, in [0, 1]
    """
    known = names(rules.n, rules.spec.patterns(rules))
    for t in targets:
        if t.metric not in known:
            raise InputError(
                f"--target {quote(t.show())}: no metric {quote(t.metric)} for "
                f"{rules.variant}; valid: {', '.join(known[:6])}, …, "
                f"pattern_rate[KEY] for its patterns"
            )
        if t.metric.split("[", 1)[0] in RATES and not 0 <= t.value <= 1:
            raise InputError(
                f"--target {quote(t.show())}: {t.metric.split('[', 1)[0]} is a share, in [0, 1]"
            )
        _check_loss(t)
        _check_seat(t, vary)
    if len({t.metric for t in targets}) != len(targets):
        raise InputError("--target names a metric twice")


def _check_loss(t: Target) -> None:
    import math

    worst = MISS_MAX * max(1.0, abs(t.value))
    ratio = worst / t.scale if t.scale > 0 else math.inf  # floats: inf, not an error
    if not math.isfinite(ratio * ratio) or ratio * ratio >= 1e300:
        raise InputError(
            f"--target {quote(t.show())}: the tolerance {t.scale:g} would overflow the "
            f"search's loss (Σ w·(miss/tol)²); give a tolerance of ordinary size"
        )
    if not math.isfinite(t.weight * ratio * ratio) or t.weight * ratio * ratio >= 1e300:
        raise InputError(
            f"--weight {t.metric}={t.weight:g} would overflow the search's loss "
            f"(Σ w·(miss/tol)²); give a weight of ordinary size"
        )


def _check_seat(t: Target, vary: Sequence[Vary]) -> None:
    m = re.fullmatch(r"mean_points\[(\d+)\]", t.metric)
    players = next((v for v in vary if v.key == "players"), None)
    if m and players is not None and int(m.group(1)) >= min(players.values):
        raise InputError(
            f"--target {quote(t.show())}: --vary players={players.show(min(players.values))} "
            f"leaves no seat {m.group(1)}"
        )
