"""Deviation classes as switches of the model: at a site, a script's behaviour instead of vMCP's.

A *reading* chooses, for some sites where a class applied on a run, one of the
class's variants (:mod:`transpiler.deviations`); every other site keeps vMCP's
behaviour. Running the model under a reading gives the run a script with those
choices would make, so a script's trace is compared with it exactly: nothing
is excused that a chosen variant did not produce at its own site. Each variant
is implemented here, or in the module that holds the rule of vMCP it replaces
(``output``, ``expand``, ``engine``, ``foreach``, ``step``, ``tool_step``,
``elicitation``); what each variant means is its row in
:class:`~transpiler.deviations.Deviation`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from transpiler.composite.quirks import Site, quoted_as_go_string
from transpiler.deviations import RUN_ID_PLACEHOLDER, START_TIME_PLACEHOLDER, Deviation
from transpiler.golang.fmt import format_value
from transpiler.golang.jsonenc import encode_string
from transpiler.golang.strconv import format_float, quote
from transpiler.golang.values import AnyKeyMap, Int64, NilList, NilMap
from transpiler.gotemplate.functions import FUNCTIONS, FuncError, Lowering
from transpiler.gotemplate.runtime import MISSING
from transpiler.sim.kernel import Halt

#: (class, step, place): where a class applied on a run.
SiteKey = tuple[Deviation, str | None, str]
#: The classes whose variants change how a template prints a value (and ``missing-value``,
#: whose site depends on what was missing: :func:`quirks.missing_site`).
PRINTING: Final = (Deviation.NUMBER_TEXT, Deviation.VALUE_TEXT)
_NO_VALUE: Final = "<no value>"
_WHOLE_TEXT_LIMIT: Final = 2.0**53


def site_key(class_id: Deviation, site: Site) -> SiteKey:
    """The key of ``class_id`` at ``site``."""
    return (class_id, site.step, site.place)


@dataclass(frozen=True)
class Variants:
    """The variant each site takes in one run of the model (absent: vMCP's behaviour)."""

    chosen: Mapping[SiteKey, str] = field(default_factory=dict)

    def at(self, class_id: Deviation, site: Site) -> str | None:
        """The variant ``class_id`` takes at ``site``, or None for vMCP's behaviour."""
        if not self.chosen:
            return None
        return self.chosen.get(site_key(class_id, site))

    def printing(self, site: Site) -> dict[Deviation, str]:
        """The printing classes' variants at ``site``."""
        if not self.chosen:
            return {}
        found = {c: self.chosen.get(site_key(c, site)) for c in PRINTING}
        return {c: v for c, v in found.items() if v is not None}


VMCP: Final = Variants()


class ScriptStopped(Halt):
    """A variant that stops the script where it stands (``missing-value: stop``,
    ``output-rendering: decoded`` of what is not JSON text); ``key``: the class at its site."""

    def __init__(self, class_id: Deviation, site: Site) -> None:
        where = f"step {site.step}, {site.place}" if site.step else site.place
        super().__init__(f"the script stopped ({class_id} at {where})")
        self.key = site_key(class_id, site)


def printer(choices: Mapping[Deviation, str]) -> Callable[[Any], str]:
    """How a template prints a value under the printing ``choices`` (class -> variant)."""
    missing = choices.get(Deviation.MISSING_VALUE)
    number = choices.get(Deviation.NUMBER_TEXT)
    value_text = choices.get(Deviation.VALUE_TEXT)

    def show(value: Any) -> str:
        if value is MISSING or value is None:
            if missing == "empty":
                return ""
            if missing == "none":
                return "None"
            return _NO_VALUE if value is MISSING else format_value(value)
        if value_text is not None and isinstance(value, bool | dict | list | NilMap | NilList):
            return starlark_text(value) if value_text == "starlark" else json_text(value)
        if number == "digits" and _whole_in_range(value):
            return str(int(value))
        return format_value(value)

    return show


def _starlark_equal(left: Any, right: Any) -> bool:
    """``left == right`` in Starlark: numbers by value, booleans only equal booleans, lists and
    dicts item by item, values of different types unequal."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_starlark_equal, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(
            _starlark_equal(value, right[key]) for key, value in left.items()
        )
    return type(left) is type(right) and bool(left == right)


def _starlark_order(left: Any, right: Any) -> int:
    """-1, 0 or 1 as Starlark orders two values; values it cannot order fail the call."""
    if isinstance(left, list) and isinstance(right, list):
        for a, b in zip(left, right, strict=False):
            if not _starlark_equal(a, b):
                return _starlark_order(a, b)
        return (len(left) > len(right)) - (len(left) < len(right))
    numbers = (
        isinstance(left, int | float)
        and isinstance(right, int | float)
        and isinstance(left, bool) == isinstance(right, bool)
    )
    if numbers or (isinstance(left, str) and isinstance(right, str)):
        return int(left > right) - int(left < right)
    raise FuncError(f"unsupported comparison: {_type_name(left)} < {_type_name(right)}")


def _type_name(value: Any) -> str:
    if value is None:
        return "NoneType"
    names = {bool: "bool", int: "int", float: "float", str: "string", list: "list", dict: "dict"}
    return names.get(type(value), type(value).__name__)


def _comparing(decide: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    def compare(left: Any, right: Any) -> bool:
        return decide(_plain(left), _plain(right))

    return compare


def _equal_any(first: Any, *others: Any) -> bool:
    return any(_starlark_equal(_plain(first), _plain(other)) for other in others)


_STARLARK_OPERATORS: Final[Mapping[str, Callable[..., Any]]] = {
    "==": _equal_any,
    "!=": _comparing(lambda a, b: not _starlark_equal(a, b)),
    "<": _comparing(lambda a, b: _starlark_order(a, b) < 0),
    "<=": _comparing(lambda a, b: _starlark_equal(a, b) or _starlark_order(a, b) < 0),
    ">": _comparing(lambda a, b: _starlark_order(a, b) > 0),
    ">=": _comparing(lambda a, b: _starlark_equal(a, b) or _starlark_order(a, b) > 0),
}

#: ``template-error: plain``: the comparison functions as a script's operators compute them.
STARLARK_COMPARISONS: Final[Mapping[str, Callable[..., Any]]] = {
    name: _STARLARK_OPERATORS[function.readable.starlark]
    for name, function in FUNCTIONS.items()
    if function.readable.lowering is Lowering.COMPARE
}


def with_placeholders(data: dict[str, Any]) -> dict[str, Any]:
    """Template data whose ``.workflow`` is what a script knows of it (``workflow-metadata``'s
    ``placeholders``)."""
    workflow = {
        **data["workflow"],
        "id": RUN_ID_PLACEHOLDER,
        "start_time": START_TIME_PLACEHOLDER,
        "duration_ms": Int64(0),
    }
    return {**data, "workflow": workflow}


def _whole_in_range(value: Any) -> bool:
    return (
        isinstance(value, float)
        and math.isfinite(value)
        and value.is_integer()
        and 1e6 <= abs(value) < _WHOLE_TEXT_LIMIT
    )


def _plain(value: Any) -> Any:
    """A Go value as the script holds it: whole JSON numbers are ints, typed nils are None."""
    if isinstance(value, NilMap | NilList) or value is MISSING:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if abs(value) < _WHOLE_TEXT_LIMIT else value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, AnyKeyMap):
        return {str(k): _plain(v) for k, v in value.items}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def starlark_text(value: Any) -> str:
    """``str(value)`` in Starlark, of a value decoded from JSON."""
    held = _plain(value)
    if isinstance(held, str):
        return held
    return _repr(held)


def _repr(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return quote(value)  # go.starlark.net's repr; starlark-rust's is the rust-engine class
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_repr(item) for item in value) + "]"
    return repr(value)


def json_text(value: Any) -> str:
    """go.starlark.net's ``json.encode(value)`` of a value decoded from JSON: keys sorted,
    text of bytes 0x20-0x7f quoted as Go's ``strconv.Quote``, other text as Go's
    ``encoding/json`` (starlark-rust keeps keys in order and escapes its own way: the
    rust-engine class)."""
    held = _plain(value)
    if isinstance(held, dict):
        items = sorted(held.items())
        return "{" + ",".join(f"{_json_string(k)}:{json_text(v)}" for k, v in items) + "}"
    if isinstance(held, list):
        return "[" + ",".join(json_text(item) for item in held) + "]"
    if isinstance(held, str):
        return _json_string(held)
    if isinstance(held, float):
        return format_float(held, "g", -1)
    return json.dumps(held)


#: ``json-text: encode``: the ``json`` function as a script's ``json.encode`` writes it.
STARLARK_JSON: Final[Mapping[str, Callable[..., Any]]] = {
    name: json_text
    for name, function in FUNCTIONS.items()
    if function.readable.lowering is Lowering.ENCODE
}


def _json_string(text: str) -> str:
    """go.starlark.net's ``quote``: Go's ``strconv.Quote`` when every byte is in 0x20-0x7f
    (DEL included, written ``\\x7f``), else Go's ``encoding/json``."""
    if quoted_as_go_string(text):
        return quote(text)
    return encode_string(text)
