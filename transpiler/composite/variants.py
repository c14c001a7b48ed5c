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

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from transpiler.composite.quirks import Site
from transpiler.composite.script_text import held_by_script, json_text, starlark_text
from transpiler.deviations import RUN_ID_PLACEHOLDER, START_TIME_PLACEHOLDER, Deviation
from transpiler.golang.fmt import format_value, sprintf
from transpiler.golang.values import Int64, NilList, NilMap
from transpiler.gotemplate.functions import FUNCTIONS, FuncError, Lowering, length
from transpiler.gotemplate.runtime import MISSING
from transpiler.gotemplate.verbs import format_verbs
from transpiler.sim.kernel import Halt
from transpiler.starlark_runtime.rust_text import rust_json, rust_len, rust_str

#: (class, step, place): where a class applied on a run.
SiteKey = tuple[Deviation, str | None, str]
#: The classes whose variants change how a template prints a value (and ``missing-value``,
#: whose site depends on what was missing: :func:`quirks.missing_site`).
PRINTING: Final = (Deviation.NUMBER_TEXT, Deviation.VALUE_TEXT, Deviation.RUST_ENGINE)
#: ``rust-engine``'s variant: what the script writes at the site is starlark-rust's text.
STARLARK_RUST: Final = "starlark-rust"
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

    def on(self, engine: str) -> Variants:
        """The variants a script takes on ``engine``: a class of another engine's
        (``rust-engine`` on go.starlark.net) takes vMCP's behaviour there."""
        kept = {key: v for key, v in self.chosen.items() if engine in key[0].about.engines}
        return self if len(kept) == len(self.chosen) else Variants(kept)


VMCP: Final = Variants()


class ScriptStopped(Halt):
    """A variant that stops the script where it stands (``missing-value: stop``,
    ``output-rendering: decoded`` of what is not JSON text); ``key``: the class at its site."""

    def __init__(self, class_id: Deviation, site: Site) -> None:
        where = f"step {site.step}, {site.place}" if site.step else site.place
        super().__init__(f"the script stopped ({class_id} at {where})")
        self.key = site_key(class_id, site)


def printer(
    choices: Mapping[Deviation, str], written: set[str] | None = None
) -> Callable[[Any], str]:
    """How a template prints a value under the printing ``choices`` (class -> variant); each
    JSON text it writes as starlark-rust's ``json.encode`` is added to ``written``."""
    missing = choices.get(Deviation.MISSING_VALUE)
    number = choices.get(Deviation.NUMBER_TEXT)
    value_text = choices.get(Deviation.VALUE_TEXT)
    rust = choices.get(Deviation.RUST_ENGINE) == STARLARK_RUST

    def show(value: Any) -> str:
        if value is MISSING or value is None:
            if missing == "empty":
                return ""
            if missing == "none":
                return "None"
            return _NO_VALUE if value is MISSING else format_value(value)
        if value_text is not None and isinstance(value, bool | dict | list | NilMap | NilList):
            if value_text == "starlark":
                return rust_str(held_by_script(value)) if rust else starlark_text(value)
            if not rust:
                return json_text(value)
            text = rust_json(held_by_script(value))
            if written is not None:
                written.add(text)
            return text
        if number == "digits" and _whole_in_range(value):
            return str(int(value))
        if rust and isinstance(held_by_script(value), float):
            return rust_str(held_by_script(value))
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
        return decide(held_by_script(left), held_by_script(right))

    return compare


def _equal_any(first: Any, *others: Any) -> bool:
    return any(_starlark_equal(held_by_script(first), held_by_script(other)) for other in others)


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


#: ``json-text: encode``: the ``json`` function as a script's ``json.encode`` writes it.
STARLARK_JSON: Final[Mapping[str, Callable[..., Any]]] = {
    name: json_text
    for name, function in FUNCTIONS.items()
    if function.readable.lowering is Lowering.ENCODE
}


def rust_json_bodies(written: set[str], encode: bool) -> Mapping[str, Callable[..., Any]]:
    """``rust-engine: starlark-rust``: the ``json`` function as starlark-rust's
    ``json.encode`` writes it, under ``json-text: encode`` (``encode``) or where vMCP's text
    is go.starlark.net's ``json.encode`` text (elsewhere vMCP's text stays: ``json-text``
    applies there). Each text it writes is added to ``written``: a script's own dicts hold
    their keys in the order it added them, which the model cannot know
    (:mod:`transpiler.harness.judging.key_order`)."""

    def encoder(vmcp: Callable[[Any], str]) -> Callable[[Any], str]:
        def encoded(value: Any) -> str:
            if not encode:
                text = vmcp(value)
                if text != json_text(value):
                    return text
            text = rust_json(held_by_script(value))
            written.add(text)
            return text

        return encoded

    bodies = {name: FUNCTIONS[name].body for name in STARLARK_JSON}
    return {name: encoder(body) for name, body in bodies.items() if body is not None}


def _rust_length(value: Any) -> int:
    """``len`` as starlark-rust counts a string (code points); anything else as Go does."""
    return rust_len(value) if isinstance(value, str) else length(value)


def _rust_printf(format_text: str, *args: Any) -> str:
    """``printf`` as a script's ``%`` formatting writes it on starlark-rust: each ``%v``
    operand that the script holds as a float is starlark-rust's ``str`` of it."""

    def operand(verb: str, value: Any) -> Any:
        held = held_by_script(value)
        return rust_str(held) if verb == "%v" and isinstance(held, float) else value

    return _per_operand(format_text, args, operand)


def _per_operand(
    format_text: str, args: Sequence[Any], operand: Callable[[str, Any], Any]
) -> str:
    """``printf`` with each operand as ``operand(verb, value)`` gives it, for a format of
    ``%v``, ``%s``, ``%d`` and ``%%`` alone (another is left to Go's fmt: no readable script
    writes one)."""
    verbs = format_verbs(format_text)
    if not all(verb in ("%v", "%s", "%d") for verb in verbs) or len(verbs) != len(args):
        return sprintf(format_text, list(args))
    return sprintf(format_text, [operand(v, a) for v, a in zip(verbs, args, strict=True)])


def script_printf(choices: Mapping[Deviation, str]) -> Mapping[str, Callable[..., Any]]:
    """``printf`` as a readable script's ``%`` formatting writes it under the printing
    ``choices``: each ``%v`` or ``%s`` operand that a chosen variant prints otherwise (a
    missing or null value under ``missing-value``, a boolean, map or list under ``value-text``,
    a number under ``number-text`` or ``rust-engine``) is the variant's text of it, and under
    ``value-text`` a ``%d`` of a whole number is its digits (:func:`_per_operand`)."""
    show = printer(choices)
    missing = choices.get(Deviation.MISSING_VALUE) in ("empty", "none")
    value_text = Deviation.VALUE_TEXT in choices
    rust = choices.get(Deviation.RUST_ENGINE) == STARLARK_RUST
    numbers = Deviation.NUMBER_TEXT in choices or rust

    def operand(verb: str, value: Any) -> Any:
        if value is MISSING or value is None:
            return show(value) if missing and verb != "%d" else value
        if verb == "%d":
            held = held_by_script(value)
            whole = isinstance(held, int) and not isinstance(held, bool)
            return held if value_text and whole else value
        if isinstance(value, bool | dict | list | NilMap | NilList):
            return show(value) if value_text else value
        if isinstance(value, int | float) and (numbers or (value_text and verb == "%s")):
            return show(value)
        return value

    def formatted(format_text: str, *args: Any) -> str:
        return _per_operand(format_text, args, operand)

    return {
        name: formatted
        for name, function in FUNCTIONS.items()
        if function.readable.lowering is Lowering.FORMAT
    }


#: ``rust-engine: starlark-rust``: the functions a script computes otherwise on starlark-rust.
RUST_FUNCTIONS: Final[Mapping[str, Callable[..., Any]]] = {
    **{
        name: _rust_length
        for name, function in FUNCTIONS.items()
        if function.readable.lowering is Lowering.LENGTH
    },
    **{
        name: _rust_printf
        for name, function in FUNCTIONS.items()
        if function.readable.lowering is Lowering.FORMAT
    },
}
