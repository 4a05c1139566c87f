"""Plain JSON into a frozen dataclass, every field's type checked before the dataclass is built.

What a shared store hands back (a row of the SQLite archive, a Redis hash, a queued job's arguments) is data
from outside: a string where a number goes, a NaN, a seed as a list or a missing field must fail here, in one
line naming the field, not deep inside a page as a TypeError or "math domain error". The types are the
dataclass's own annotations, so a new field is checked the moment it is declared. Numbers are finite; an
``int`` field takes no ``bool`` and no float; a ``float`` field takes an int (JSON writes ``0.0`` as ``0`` in
some writers). The dataclass's own ``__post_init__`` then checks the ranges it always checks.
"""

from __future__ import annotations

import math
import types
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

MAX_SHOWN = 60  # characters of an offending value in a message


def from_plain(cls: type, value: object, where: str = "") -> Any:
    """``cls(**value)`` once every field of ``value`` has its declared type (nested dataclasses too);
    ``ValueError`` naming the first field that does not, or a missing or unknown field."""
    where = where or cls.__name__
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object, got {_shown(value)}")
    hints, required = _declared(cls)
    unknown = sorted(set(value) - set(hints))
    if unknown:
        raise ValueError(f"{where} has unknown fields {unknown[:5]}")
    missing = sorted(required - set(value))
    if missing:
        raise ValueError(f"{where} lacks the fields {missing}")
    return cls(**{name: checked(hints[name], v, f"{where}.{name}") for name, v in value.items()})


@cache
def _declared(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """Each field's type, and the fields with no default (resolving the annotations once per class: a run
    holds thousands of records)."""
    hints = get_type_hints(cls)
    init = [f for f in fields(cls) if f.init]
    return ({f.name: hints[f.name] for f in init},
            frozenset(f.name for f in init if f.default is MISSING and f.default_factory is MISSING))


def checked(tp: Any, v: object, where: str) -> Any:
    """``v`` as type ``tp`` (a tuple for a list, a float for an int), or ``ValueError`` naming ``where``."""
    origin = get_origin(tp)
    if tp is Any:
        return v
    if origin in (Union, types.UnionType):
        for option in get_args(tp):
            try:
                return checked(option, v, where)
            except ValueError:
                continue
    elif origin in (tuple, list):
        return _sequence(tp, v, where)
    elif is_dataclass(tp):
        return from_plain(tp, v, where)
    elif _plain_ok(tp, v):
        return float(v) if tp is float else v
    raise ValueError(f"{where} must be {_name(tp)}, got {_shown(v)}")


def _plain_ok(tp: Any, v: object) -> bool:
    """Whether ``v`` is a JSON value of the plain type ``tp`` (no bool for a number, no NaN anywhere)."""
    if get_origin(tp) is Literal:
        return any(v == a and type(v) is type(a) for a in get_args(tp))
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    checks = {type(None): v is None, bool: isinstance(v, bool), str: isinstance(v, str),
              int: number and isinstance(v, int), float: number and _finite(v)}
    if tp not in checks:
        raise TypeError(f"no check for the type {tp!r}")  # a declaration this module does not know
    return checks[tp]


def _finite(v: float | int) -> bool:
    """A finite number a float can hold (JSON's integers have no bound: ``10**309`` is no float)."""
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _sequence(tp: Any, v: object, where: str) -> tuple | list:
    """A list of ``tp``'s items (``tuple[int, ...]``, ``tuple[int, int]``, ``list[X]``), each checked."""
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{where} must be a list, got {_shown(v)}")
    args = get_args(tp)
    if get_origin(tp) is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        if len(v) != len(args):
            raise ValueError(f"{where} must hold {len(args)} values, got {len(v)}")
        items = [checked(a, x, f"{where}[{i}]") for i, (a, x) in enumerate(zip(args, v, strict=True))]
    else:
        items = [checked(args[0], x, f"{where}[{i}]") for i, x in enumerate(v)]
    return tuple(items) if get_origin(tp) is tuple else items


def _name(tp: Any) -> str:
    if get_origin(tp) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if get_origin(tp) in (Union, types.UnionType):
        return " or ".join(_name(a) for a in get_args(tp))
    return {type(None): "null", float: "a finite number", int: "an integer", bool: "true or false",
            str: "a string"}.get(tp, getattr(tp, "__name__", str(tp)))


def _shown(v: object) -> str:
    text = repr(v)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def plain(text: object, limit: int = 200) -> str:
    """Text from a shared store as one printable line of at most ``limit`` characters: newlines and other
    control characters escaped (a value cannot forge log lines), nothing else interpreted."""
    if isinstance(text, bytes):
        text = text[:4 * limit].decode("utf-8", errors="replace")  # cut first: a huge value costs no more
    line = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text)[:2 * limit])
    return line if len(line) <= limit else line[:limit - 1] + "…"
