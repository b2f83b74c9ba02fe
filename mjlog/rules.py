"""Rulesets as data: every rule key of RULES.md with its default, per variant.

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
mjlog.rules.RuleError: unknown rule key 'capp' for yuxi; valid keys: base, bugang_payer, cap, ...
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mjlog.errors import InputError, quote

INT32_MAX = 2**31 - 1
"""The largest value of an int32 log column (money, fan, multiplier, points:
mjlog/schema.py); every integer rule value that flows into one is at most this."""

_INTEGER = re.compile(r"[+-]?[0-9]{1,19}")


def _strict_int(raw: Any) -> int | None:
    """An int given as an int (not a bool, not a float) or as decimal ASCII digits;
    None for anything else. ``3.0``, ``True``, ``"1e3"`` and ``"٣"`` are not integers."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and _INTEGER.fullmatch(raw.strip()):
        return int(raw.strip())
    return None


class RuleError(InputError):
    """An unknown variant, an unknown rule key or a bad value."""


@dataclass(frozen=True, slots=True)
class RuleKey:
    """One switchable rule: its name, default, type and allowed values."""

    name: str
    default: Any
    kind: str  # "int" | "bool" | "choice" | "list" | "pair" | "pow2"
    choices: tuple[str, ...] = ()
    doc: str = ""
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, raw: Any, variant: str) -> Any:
        """Turn a TOML value or a command-line string into this key's value."""
        bad = f"bad value {quote(raw)} for {variant} rule key {self.name!r}"
        if self.kind in ("int", "pow2"):
            v = _strict_int(raw)
            if v is None:
                raise RuleError(f"{bad}; expected an integer")
            if self.minimum is not None and v < self.minimum:
                raise RuleError(f"{bad}; expected an integer >= {self.minimum}")
            top = self.maximum if self.maximum is not None else (
                2**30 if self.kind == "pow2" else INT32_MAX)
            if v > top:
                raise RuleError(f"{bad}; expected an integer <= {top} (the log's int32 columns)")
            if self.kind == "pow2" and (v < 1 or v & (v - 1)):
                raise RuleError(f"{bad}; expected a power of two (1, 2, 4, 8, ...)")
            return v
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if not isinstance(raw, str):
                raise RuleError(f"{bad}; valid values: true, false")
            s = raw.strip().lower()
            if s in ("true", "1", "yes", "on"):
                return True
            if s in ("false", "0", "no", "off"):
                return False
            raise RuleError(f"{bad}; valid values: true, false")
        if self.kind == "choice":
            s = raw.strip() if isinstance(raw, str) else None
            if s not in self.choices:
                raise RuleError(f"{bad}; valid values: {', '.join(self.choices)}")
            return s
        if self.kind == "list":
            items = raw if isinstance(raw, list) else (
                raw.split(",") if isinstance(raw, str) else None)
            if items is None or not all(isinstance(x, str) for x in items):
                raise RuleError(f"{bad}; expected a list of names, e.g. menqing,dihu")
            items = [x.strip() for x in items if x.strip()]
            for x in items:
                if x not in self.choices:
                    raise RuleError(
                        f"{bad}; unknown item {quote(x)}, valid items: {', '.join(self.choices)}"
                    )
            # canonical order: the order of the rulebook's list, each once
            return tuple(c for c in self.choices if c in items)
        if self.kind == "pair":
            parts = list(raw) if isinstance(raw, list | tuple) else (
                raw.split("/") if isinstance(raw, str) else [])
            if len(parts) != 2:
                raise RuleError(f"{bad}; expected S/D, e.g. 3/4 or -/4")
            out = []
            for p in parts:
                if p is None or (isinstance(p, str) and p.strip() in ("-", "", "None")):
                    out.append(None)
                    continue
                v = _strict_int(p)
                if v is None:
                    raise RuleError(f"{bad}; expected S/D, e.g. 3/4 or -/4")
                if v < 0:
                    raise RuleError(f"{bad}; points must be >= 0")
                if v > INT32_MAX:
                    raise RuleError(f"{bad}; points must be <= {INT32_MAX} (an int32 column)")
                out.append(v)
            return tuple(out)
        raise AssertionError(self.kind)

    def show(self, value: Any) -> str:
        """The value as written on the command line."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "list":
            return ",".join(value)
        if self.kind == "pair":
            return "/".join("-" if v is None else str(v) for v in value)
        return str(value)

    def to_json(self, value: Any) -> Any:
        if self.kind == "pair":
            return list(value)
        if self.kind == "list":
            return list(value)
        return value


def _int(name, default, doc, minimum=0, maximum=None):
    return RuleKey(name, default, "int", doc=doc, minimum=minimum, maximum=maximum)


def _choice(name, default, choices, doc):
    return RuleKey(name, default, "choice", tuple(choices), doc)


def _bool(name, default, doc):
    return RuleKey(name, default, "bool", doc=doc)


def _common(rob_default: bool) -> list[RuleKey]:
    return [
        _int("players", 4, "number of players (2, 3 or 4)", 2, 4),
        _int("base", 1, "底分: money per unit", 1),
        _choice("late_added_kong", "pays", ("pays", "no_pay", "forbidden"),
                "an added kong whose fourth tile is not the tile just drawn"),
        _bool("rob_exposed_kong", rob_default,
              "an exposed kong claimed from a discard may be robbed"),
    ]


YUXI_POINTS = {
    # pattern: (self-draw, discard) per payer, RULES.md §2
    "pinghu": (1, None),
    "pengpenghu": (3, 4),
    "qingyise": (3, 4),
    "qidui": (3, 4),
    "shilaotou": (3, None),
    "gangshanghua": (3, 4),
    "gangshangpao": (None, 4),
    "qiangganghu": (None, 4),
    "longqidui": (6, 7),
}

XUEZHAN_MULT = {
    "pinghu": 1, "pengpenghu": 2, "qingyise": 4, "qidui": 4, "jingougou": 4,
    "qingpeng": 8, "longqidui": 8, "qingqidui": 16, "qingjingougou": 16,
    "shuanglongqidui": 16, "qinglongqidui": 32, "sanlongqidui": 32,
    "shibaluohan": 64, "qingshuanglongqidui": 64, "qingsanlongqidui": 128,
    "qingshibaluohan": 256,
    # bonuses and roots
    "gen": 2, "qiangganghu": 2, "gangshanghua": 2, "gangshangpao": 2,
    # optional patterns (extras), in the rulebook's order
    "daiyaojiu": 4, "duanyaojiu": 2, "qingyaojiu": 16, "jiangdui": 8,
    "jiangjingougou": 16, "menqing": 2, "tianhu": 32, "dihu": 32, "haidilaoyue": 2,
}
XUEZHAN_EXTRAS = ("daiyaojiu", "duanyaojiu", "qingyaojiu", "jiangdui", "jiangjingougou",
                  "menqing", "tianhu", "dihu", "haidilaoyue")

HUANGMEI_FAN = {
    "pinghu": 1, "zimo": 1, "menqing": 1, "facai": 1, "facai_all": 8, "kadang": 1,
    "bianzhang": 1, "dandiao": 1, "peng_zhongbai": 1, "minggang_shu": 1,
    "anke_zhongbai": 2, "angang_shu": 2, "caishangkaihua": 2, "minggang_zhongbai": 3,
    "angang_zhongbai": 4, "gangshanghua": 5, "qiangganghu": 5, "haidilaoyue": 5,
    "qidui": 15, "pengpenghu": 15, "qingyise": 15, "hunyise": 15, "quanqiuren": 30,
}

_SPECS: dict[str, list[RuleKey]] = {
    "yuxi": _common(True) + [
        _bool("honors", True, "136 tiles with honors; false = 108 (disables 十老头)"),
        _choice("dealer_on_draw", "stay", ("stay", "next"), "dealer after a drawn hand"),
        _choice("pass_hu_lock", "until_next_draw", ("until_next_draw", "none"),
                "弃胡: passing a win locks discard wins until the next draw"),
        _bool("last4_plain_on_discard", False,
              "in the last four tiles a plain hand may win on a discard"),
        _int("cap", 64, "maximum points per payer", 1),
        _choice("dian_gang_hua", "discarder_pays", ("discarder_pays", "self_draw"),
                "点杠花: who pays a win on an exposed kong's replacement"),
        _choice("bugang_payer", "pon_feeder", ("pon_feeder", "each_other"),
                "转弯杠 money: the pon's feeder pays 2, or each other player pays 1"),
        _int("horses", 0, "买马: horses turned after a win (0 = off)", 0, 20),
    ] + [RuleKey(f"points.{k}", v, "pair", doc=f"points per payer for {k}: self-draw/discard")
         for k, v in YUXI_POINTS.items()],
    "xuezhan": _common(False) + [
        _choice("first_dealer", "seat0", ("seat0", "random"), "first dealer of a match"),
        _int("cap", 16, "封顶: maximum multiplier per payer", 1),
        RuleKey("extras", (), "list", XUEZHAN_EXTRAS, "enabled optional patterns"),
        _choice("extras_stack", "separate", ("separate", "multiply"),
                "enabled extras are candidate main patterns, or multiply in"),
        _choice("zimo_bonus", "none", ("none", "add_base", "double"), "self-draw bonus"),
        _choice("dian_gang_hua", "discarder_pays", ("discarder_pays", "self_draw"),
                "点杠花: the feeder pays alone, or every active player pays"),
        _bool("call_transfer", False, "呼叫转移: on 杠上炮 the kong money goes to the winner"),
    ] + [RuleKey(f"mult.{k}", v, "pow2", doc=f"multiplier of {k}")
         for k, v in XUEZHAN_MULT.items()],
    "huangmei": _common(True) + [
        _bool("winds", True, "东南西北 in play; false = 120 tiles"),
        _int("min_fan", 2, "minimum fan to win", 0),
        _choice("payment", "linear", ("linear", "doubling"),
                "fan × base, or base × 2^(fan − min_fan)"),
    ] + [_int(f"fan.{k}", v, f"fan of {k}") for k, v in HUANGMEI_FAN.items()],
}

VARIANTS: tuple[str, ...] = tuple(_SPECS)


def keys(variant: str) -> dict[str, RuleKey]:
    """The rule keys of a variant, by name."""
    check_variant(variant)
    return {k.name: k for k in _SPECS[variant]}


def check_variant(variant: str) -> str:
    if variant not in _SPECS:
        raise RuleError(f"unknown variant {quote(variant)}; valid variants: {', '.join(VARIANTS)}")
    return variant


class Rules(Mapping[str, Any]):
    """The resolved rules of one variant: every key, defaults filled in. Immutable.

    >>> r = Rules("huangmei")
    >>> r.variant, r["min_fan"], r["fan.quanqiuren"]
    ('huangmei', 2, 30)
    >>> r.replace(min_fan=3)["min_fan"]
    3
    """

    __slots__ = ("variant", "_values", "_hash")

    def __init__(self, variant: str, values: Mapping[str, Any] | None = None):
        spec = keys(variant)
        vals = {k.name: k.default for k in spec.values()}
        for name, raw in (values or {}).items():
            if name not in spec:
                raise RuleError(f"unknown rule key {quote(name)} for {variant}; valid keys: "
                                f"{_key_list(spec)}")
            vals[name] = spec[name].parse(raw, variant)
        self.variant = variant
        self._values = vals
        self._hash = None

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.variant, tuple(self.to_json().items().__repr__())))
        return self._hash

    def __eq__(self, other):
        return isinstance(other, Rules) and (self.variant, self._values) == (
            other.variant, other._values)

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
        """Every key with its value, JSON-ready, in a stable (sorted) order."""
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
        return self._values["players"]


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


def resolve(variant: str, file: str | Path | None = None,
            sets: Iterable[str] = (), values: Mapping[str, Any] | None = None) -> Rules:
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
