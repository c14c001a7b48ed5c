"""The Go value kinds that vMCP's engine handles, as Python values.

Every layer (config loading, templates, the composite model, the emitter's
type reasoning) speaks this one representation:

=====================  ======================================================
Go value               Python value
=====================  ======================================================
``int`` / ``int64``    ``int`` (never ``bool``)
``float64``            ``float``
``string``             ``str``
``bool``               ``bool``
untyped ``nil``        ``None``
``map[string]any``     ``dict[str, GoValue]``
``[]any``              ``list[GoValue]``
typed nil map          :data:`NIL_MAP` (prints ``map[]``, JSON ``null``)
typed nil slice        :data:`NIL_LIST` (prints ``[]``, JSON ``null``)
``time.Time``          :class:`GoTime` (a YAML timestamp)
``map[any]any``        :class:`AnyKeyMap` (a YAML mapping with a non-string key)
=====================  ======================================================

JSON-sourced numbers are always ``float`` (vMCP decodes JSON into ``any``);
YAML integer literals and engine counters are ``int``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, TypeAlias


class NilMap:
    """Go's typed nil ``map[string]any``: not the same as untyped nil (S70)."""

    _instance: NilMap | None = None

    def __new__(cls) -> NilMap:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NIL_MAP"


class NilList:
    """Go's typed nil ``[]any``."""

    _instance: NilList | None = None

    def __new__(cls) -> NilList:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NIL_LIST"


NIL_MAP: Final = NilMap()
NIL_LIST: Final = NilList()


@dataclass(frozen=True)
class GoTime:
    """A ``time.Time`` decoded from an unquoted YAML timestamp."""

    value: datetime


@dataclass(frozen=True)
class AnyKeyMap:
    """A ``map[any]any``: a YAML mapping with at least one non-string key.

    The template expander passes it through untouched and JSON encoding fails
    on it (S8).
    """

    items: tuple[tuple[Any, Any], ...]


GoValue: TypeAlias = (
    "bool | int | float | str | dict[str, GoValue] | list[GoValue] "
    "| NilMap | NilList | GoTime | AnyKeyMap | None"
)


def from_json_text(text: str) -> Any:
    """Decode JSON the way vMCP does into ``any``: every number is a float64.

    Raises ``ValueError`` for invalid JSON, including ``NaN`` and ``Infinity``
    which Go rejects.
    """

    def reject_constant(name: str) -> Any:
        raise ValueError(f"invalid character {name[0]!r} looking for beginning of value")

    return json.loads(text, parse_int=float, parse_constant=reject_constant)


def json_numbers_as_floats(value: Any) -> Any:
    """Retype a JSON-shaped value so every number is a float (what Go decodes).

    Scenario files are YAML, so a number such as ``42`` arrives as a Python
    int; vMCP would have received it as JSON and decoded a float64.
    """
    stack: list[Any] = []
    root: list[Any] = [value]
    stack.append((root, 0))
    while stack:
        container, key = stack.pop()
        item = container[key]
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int):
            container[key] = float(item)
        elif isinstance(item, dict):
            copy = dict(item)
            container[key] = copy
            stack.extend((copy, k) for k in copy)
        elif isinstance(item, list):
            copy_list = list(item)
            container[key] = copy_list
            stack.extend((copy_list, i) for i in range(len(copy_list)))
    return root[0]


class Int64(int):
    """A Go ``int64`` (``.workflow.duration_ms``, coerced integer arguments).

    It behaves exactly like ``int``; only Go's type name differs, which shows
    in ``printf`` errors such as ``%!s(int64=5)`` and in template error texts.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Int64({int(self)})"
