"""Rulesets as data: every rule key with its default, per variant (docs/rules/).

A :class:`Rules` is an immutable, resolved mapping of rule keys to values. It is
built from the variant's defaults, then a TOML file, then ``--set key=value``
overrides; an unknown key or a bad value raises :class:`RuleError` naming the
valid keys or values.

>>> r = resolve("yuxi", sets=["cap=32", "horses=2"])
>>> r["cap"], r["horses"], r["players"]
(32, 2, 4)
>>> r["points.longqidui"]
(6, 7)
>>> resolve("yuxi", sets=["capp=3"])
Traceback (most recent call last):
...
mjlog.rulekeys.RuleError: unknown rule key 'capp' for yuxi; valid keys: base, bugang_payer, cap, ...
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mjlog.errors import quote
from mjlog.rulekeys import INT32_MAX, RuleError, RuleKey
from mjlog.variants import VARIANTS as _VARIANTS
from mjlog.variants import Variant, get_variant

__all__ = [
    "INT32_MAX",
    "VARIANTS",
    "RuleError",
    "RuleKey",
    "Rules",
    "keys",
    "check_variant",
    "load_toml",
    "parse_sets",
    "resolve",
    "unrecorded",
]


#: The variant names, in the rulebook's order (:data:`mjlog.variants.VARIANTS`).
VARIANTS: tuple[str, ...] = tuple(_VARIANTS)


def keys(variant: str) -> dict[str, RuleKey]:
    """The rule keys of a variant, by name."""
    return _keys(get_variant(variant))


def _keys(v: Variant) -> dict[str, RuleKey]:
    return {k.name: k for k in v.rule_keys}


def unrecorded(variant: str, values: Mapping[str, Any]) -> list[str]:
    """The keys a manifest must record but does not (keys added later excepted:
    :meth:`Rules.recorded`), sorted.

    >>> unrecorded("yuxi", {k: v for k, v in Rules("yuxi").to_json().items() if k != "cap"})
    ['cap']
    """
    return sorted(
        k.name for k in keys(variant).values() if k.absent is None and k.name not in values
    )


def check_variant(variant: str) -> str:
    get_variant(variant)
    return variant


class Rules(Mapping[str, Any]):
    """The resolved rules of one variant: every key, defaults filled in. Immutable.

    >>> r = Rules("huangmei")
    >>> r.variant, r["min_fan"], r["fan.quanqiuren"]
    ('huangmei', 2, 30)
    >>> r.replace(min_fan=3)["min_fan"]
    3
    """

    __slots__ = ("variant", "spec", "_values", "_hash")

    def __init__(self, variant: str, values: Mapping[str, Any] | None = None):
        self.spec: Variant = get_variant(variant)  # the variant's rules and hooks
        spec = _keys(self.spec)
        vals = {k.name: k.default for k in spec.values()}
        for name, raw in (values or {}).items():
            if name not in spec:
                raise RuleError(
                    f"unknown rule key {quote(name)} for {variant}; valid keys: {_key_list(spec)}"
                )
            vals[name] = spec[name].parse(raw, variant)
        self.variant = variant
        self._values = vals
        self._hash: int | None = None

    @classmethod
    def recorded(cls, variant: str, values: Mapping[str, Any]) -> Rules:
        """The rules a run's manifest records. A key added after the run was written
        is missing from it, and read with the value the run was played under (the
        key's ``absent``), not with today's default.

        >>> old = Rules("huangmei").to_json(); del old["ziyise_hunyise"]
        >>> Rules.recorded("huangmei", old)["ziyise_hunyise"], Rules("huangmei")["ziyise_hunyise"]
        (False, True)
        """
        spec = keys(variant)
        filled = {
            k.name: k.to_json(k.absent)
            for k in spec.values()
            if k.absent is not None and k.name not in values
        }
        return cls(variant, {**values, **filled})

    def __reduce__(self) -> tuple[type[Rules], tuple[str, dict[str, Any]]]:
        return Rules, (self.variant, self.to_json())  # pickles by name: spec is the registry's

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.variant, tuple(self.to_json().items().__repr__())))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and (self.variant, self._values) == (
            other.variant,
            other._values,
        )

    def __repr__(self) -> str:
        changed = {k: v for k, v in self._values.items() if v != keys(self.variant)[k].default}
        return f"Rules({self.variant!r}, {changed!r})"

    def replace(self, **changes: Any) -> Rules:
        """A copy with some keys changed (dotted keys via ``**{"cap": 8}``)."""
        spec = keys(self.variant)
        vals = {k: spec[k].to_json(v) for k, v in self._values.items()}
        vals.update(changes)
        return Rules(self.variant, vals)

    def to_json(self) -> dict[str, Any]:
        """Every key with its value, JSON-ready, in a stable (sorted) order: the rules
        a run logs."""
        spec = keys(self.variant)
        return {k: spec[k].to_json(self._values[k]) for k in sorted(self._values)}

    def lines(self) -> list[str]:
        """``key = value  # doc`` lines, for ``mjlog rules``."""
        spec = keys(self.variant)
        out = []
        for k in sorted(self._values):
            mark = "" if self._values[k] == spec[k].default else "  (changed)"
            shown = spec[k].show(self._values[k])
            choices = f" [{' | '.join(spec[k].choices)}]" if spec[k].kind == "choice" else ""
            out.append(f"{k} = {shown}{mark}    # {spec[k].doc}{choices}")
        return out

    @property
    def n(self) -> int:
        players: int = self._values["players"]
        return players


def _key_list(spec: Mapping[str, RuleKey]) -> str:
    """The valid keys, each family of dotted keys as one entry (``mult.<pattern>``),
    so the line stays short; ``mjlog rules VARIANT`` lists them all."""
    plain = sorted(k for k in spec if "." not in k)
    families = sorted({k.split(".")[0] for k in spec if "." in k})
    return ", ".join(plain + [f"{f}.<pattern>" for f in families])


def _flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read rule values from a TOML file (never executed; tomllib is a safe parser).

    Dotted keys and tables both work: ``cap = 32``, ``points.longqidui = "6/7"``.
    A top-level ``variant`` key is returned too, under the name ``variant``.
    """
    p = Path(path)
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):  # a FIFO would block, a directory fail
            raise RuleError(f"{p}: cannot read rules file: not a regular file")
        with p.open("rb") as f:
            data = tomllib.load(f)
        return _flatten(data)
    except RuleError:
        raise
    except OSError as e:
        raise RuleError(f"{p}: cannot read rules file: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RuleError(f"{p}: not valid TOML: not UTF-8 (byte {e.start})") from None
    except RecursionError:
        raise RuleError(f"{p}: not valid TOML: nested too deeply") from None
    except ValueError as e:  # TOMLDecodeError, or an integer of thousands of digits
        raise RuleError(f"{p}: not valid TOML: {quote(str(e))[1:-1]}") from None


def parse_sets(sets: Iterable[str]) -> dict[str, str]:
    """``["cap=32", "extras="]`` → ``{"cap": "32", "extras": ""}``."""
    out = {}
    for s in sets:
        if "=" not in s:
            raise RuleError(f"bad --set {quote(s)}; expected KEY=VALUE")
        k, v = s.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def resolve(
    variant: str,
    file: str | Path | None = None,
    sets: Iterable[str] = (),
    values: Mapping[str, Any] | None = None,
) -> Rules:
    """Defaults, then a TOML file, then explicit values, then ``--set`` strings."""
    check_variant(variant)
    merged: dict[str, Any] = {}
    if file is not None:
        data = load_toml(file)
        fv = data.pop("variant", variant)
        if fv != variant:
            raise RuleError(f"{file}: rules are for variant {quote(fv)}, not {variant!r}")
        merged.update(data)
    merged.update(values or {})
    merged.update(parse_sets(sets))
    return Rules(variant, merged)
