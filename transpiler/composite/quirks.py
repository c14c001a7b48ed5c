"""Which deviation classes a run of the composite model exercises, and where.

vMCP's engine has behaviours a plain script does not share (the classes of
:mod:`transpiler.deviations`). The model records each one it exercises on a
run, with the step and the site (an argument key, the condition, an output
property), so the harness lets a script take a declared class's variant only at
a site where the class applied on that run. The predicates below are the
model-side definition of each class.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from transpiler.composite.script_text import DEL, rust_writes_otherwise
from transpiler.deviations import Deviation
from transpiler.golang.fmt import format_value
from transpiler.golang.jsondec import JSONDecodeError, unmarshal
from transpiler.golang.values import AnyKeyMap, NilList, NilMap
from transpiler.gotemplate import Observation, Template, parse, reads
from transpiler.gotemplate.functions import FUNCTIONS, Codec, Printing
from transpiler.gotemplate.runtime import MISSING
from transpiler.sim.trace import QuirkEvent

_WHOLE_TEXT_LIMIT = 2.0**53
_HTML_SENSITIVE = frozenset("<>&\u2028\u2029")
_CONTAINERS = (dict, list, NilMap, NilList, AnyKeyMap)
_METADATA = frozenset({"id", "start_time", "duration_ms"})
_TEXT_USES = frozenset({"text", "collection", "string"})
_ENCODED_USES = frozenset({"text", "string"})
_CONDITION_TEXTS = frozenset({"true", "True", "TRUE", "false", "False", "FALSE"})
#: How a place is named where the field a template read was null rather than absent.
NULL_PLACE_SUFFIX = " (null)"


@dataclass(frozen=True)
class Site:
    """Where a template is expanded: the step (None for the output), the place in it, and
    what its text becomes: ``text`` (an argument, a message), ``condition``, ``collection``,
    or the type of an output property."""

    step: str | None
    place: str
    use: str = "text"

    def under(self, key: str) -> Site:
        """The site of one key inside this one (``arguments`` -> ``arguments.body``)."""
        return Site(self.step, f"{self.place}.{key}", self.use)


@dataclass
class QuirkLog:
    """The classes one run exercised, each (class, step, site) once, in the order seen."""

    events: list[QuirkEvent] = field(default_factory=list)
    _seen: set[tuple[Deviation, str | None, str]] = field(default_factory=set)

    def add(self, class_id: Deviation, site: Site, detail: str = "", notable: bool = True) -> None:
        """Record that ``class_id`` fired at ``site``; ``notable``: worth a finding when it
        fires on an ordinary run (printing a boolean is a difference, not a bug)."""
        key = (class_id, site.step, site.place)
        if key not in self._seen:
            self._seen.add(key)
            self.events.append(QuirkEvent(class_id, site.step, site.place, detail, notable))


def judge_text(log: QuirkLog, site: Site, template: Template, seen: Observation) -> None:
    """The classes one expanded template exercised through what it read and printed."""
    if seen.missing:
        log.add(
            Deviation.MISSING_VALUE,
            missing_site(site, seen),
            ", ".join(dict.fromkeys(seen.missing)),
        )
    if site.use in _TEXT_USES:
        for value in seen.printed:
            _judge_printed(log, site, value)
    for name, args, result in seen.calls:
        function = FUNCTIONS[name]
        if function.codec is Codec.ENCODES and args and site.use in _ENCODED_USES:
            _judge_json(log, site, args[0])
        elif function.printing is not Printing.NONE:
            for value in args[1:] if function.printing is Printing.FORMATTED else args:
                _judge_printed(log, site, value)
            if isinstance(result, str) and "%!" in result:
                log.add(Deviation.VALUE_TEXT, site, "printf verb of the wrong kind")
        elif function.measures and args and isinstance(args[0], str) and not args[0].isascii():
            # starlark-rust counts code points, go.starlark.net (and Go) bytes
            log.add(Deviation.RUST_ENGINE, site, f"{name} of a non-ASCII string", notable=False)
    if _reads_metadata(template):
        log.add(Deviation.WORKFLOW_METADATA, site)


def missing_site(site: Site, seen: Observation) -> Site:
    """Where ``missing-value`` applies: an absent field and a null one are two sites, since a
    script tells them apart (``x.get("f", d)`` gives ``d`` for one and ``None`` for the other)."""
    if seen.nulls and len(seen.nulls) == len(seen.missing):
        return Site(site.step, site.place + NULL_PLACE_SUFFIX, site.use)
    return site


def judge_failure(log: QuirkLog, site: Site, message: str) -> None:
    """A template that failed to execute."""
    log.add(Deviation.TEMPLATE_ERROR, site, message)


def judge_condition(log: QuirkLog, site: Site, seen: Observation, text: str | None) -> None:
    """A condition that did not come from a plain boolean, or did not render true/false."""
    plain = all(isinstance(value, bool) for value in seen.printed)
    if text is None or not plain or text not in _CONDITION_TEXTS:
        log.add(
            Deviation.CONDITION_TEXT, site, "rendered " + repr(text) if text is not None else ""
        )


#: How an ``output-rendering`` event says the property's template gave no value of its type
#: (its default stood in, or the run failed).
UNPARSED = "the text does not parse as"


def judge_output(
    log: QuirkLog, site: Site, kind: str, seen: Observation | None, parsed: Any, failed: bool
) -> None:
    """An output property whose value is not what its single action printed, or fell back."""
    if failed:
        log.add(Deviation.OUTPUT_RENDERING, site, f"{UNPARSED} {kind}")
        return
    if seen is None or len(seen.printed) != 1:
        return
    printed = seen.printed[0]
    if printed is None or printed is MISSING:
        return
    if kind in ("object", "array") and not isinstance(printed, str):
        log.add(
            Deviation.OUTPUT_RENDERING, site, f"{kind} property parsed from Go's text of a value"
        )
        return
    natural = natural_value(kind, seen)
    if not _same_value(natural, parsed):
        log.add(
            Deviation.OUTPUT_RENDERING, site, f"{kind} property built from {_kind_of(printed)} text"
        )


def natural_value(kind: str, seen: Observation) -> Any:
    """What an output property's template holds before vMCP prints it (its one printed value,
    or for an object or array what ``json`` encoded into it): the value a script returns."""
    printed = seen.printed[0]
    return _encoded_argument(seen, printed) if kind in ("object", "array") else printed


def _encoded_argument(seen: Observation, printed: Any) -> Any:
    """What a ``json`` call encoded into ``printed``, or what JSON text ``printed`` holds."""
    for name, args, result in seen.calls:
        if FUNCTIONS[name].codec is Codec.ENCODES and result == printed and args:
            return args[0]
    if isinstance(printed, str):
        try:
            return unmarshal(printed)
        except JSONDecodeError:
            return printed
    return printed


def _same_value(left: Any, right: Any) -> bool:
    """JSON equality, numbers by their exact value, typed nils as null."""
    if isinstance(left, NilMap | NilList):
        left = None
    if isinstance(right, NilMap | NilList):
        right = None
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right  # Python compares an int with a float exactly
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same_value(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same_value, left, right))
    return type(left) is type(right) and bool(left == right)


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "container" if isinstance(value, _CONTAINERS) else "null"


def _judge_printed(log: QuirkLog, site: Site, value: Any) -> None:
    if isinstance(value, bool):
        log.add(Deviation.VALUE_TEXT, site, f"printed {format_value(value)}", notable=False)
    elif isinstance(value, _CONTAINERS):
        log.add(Deviation.VALUE_TEXT, site, f"printed {format_value(value)[:60]}")
        if rust_writes_otherwise(value):
            log.add(Deviation.RUST_ENGINE, site, "text starlark-rust writes its own way", False)
    elif isinstance(value, float) and math.isfinite(value):
        if value.is_integer() and 1e6 <= abs(value) < _WHOLE_TEXT_LIMIT:
            log.add(Deviation.NUMBER_TEXT, site, f"printed {format_value(value)}")
        elif rust_writes_otherwise(value):
            log.add(Deviation.RUST_ENGINE, site, f"printed {format_value(value)}", notable=False)


def _judge_json(log: QuirkLog, site: Site, value: Any) -> None:
    if rust_writes_otherwise(value):
        log.add(Deviation.RUST_ENGINE, site, "JSON starlark-rust writes its own way", False)
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not _HTML_SENSITIVE.isdisjoint(item):
                log.add(Deviation.JSON_TEXT, site, "HTML-escaped characters")
            if DEL in item:
                log.add(Deviation.JSON_TEXT, site, "a DEL character")
        elif isinstance(item, float) and math.isfinite(item):
            if item.is_integer():
                if abs(item) >= _WHOLE_TEXT_LIMIT:  # a script holds it as a float, not an int
                    log.add(Deviation.JSON_TEXT, site, "a whole number beyond 2^53")
            elif abs(item) >= 1e6 or abs(item) < 1e-4:
                log.add(Deviation.JSON_TEXT, site, "a fractional number in exponent range")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _reads_metadata(template: Template) -> bool:
    return _metadata_read(template.source, template.name)


@lru_cache(maxsize=4096)
def _metadata_read(source: str, name: str) -> bool:
    template = parse(source, name)
    return any(
        read.path[:1] == ("workflow",) and (len(read.path) < 2 or read.path[1] in _METADATA)
        for read in reads(template)
    )


#: A position in arguments: its keys and list indexes from the top.
ArgumentPath = tuple[str | int, ...]


def judge_coercion(
    log: QuirkLog, site: Site, schema: Any, sent: Any, alone: Mapping[str, Any]
) -> list[tuple[Site, ArgumentPath, Any]]:
    """Arguments at positions the backend's inputSchema types ``integer``, ``number`` or
    ``boolean`` that vMCP sends other than a script would: text that did not parse (a latent
    bug), or a value whose text vMCP parsed or kept where a script sends the value itself
    (``alone``: the value each argument's text is exactly the printing of, by place). Returns
    the second kind, each with the value a script sends."""
    own: list[tuple[Site, ArgumentPath, Any]] = []
    stack: list[tuple[Any, Any, Site, ArgumentPath]] = [(schema, sent, site, ())]
    while stack:
        part, value, at, path = stack.pop()
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("integer", "number", "boolean"):
            natural = alone.get(at.place)
            if natural is not None and not _same_value(natural, value):
                detail = f"vMCP sends {format_value(value)!r}, a script {format_value(natural)!r}"
                log.add(Deviation.ARGUMENT_COERCION, at, detail, notable=isinstance(value, str))
                own.append((at, path, natural))
            elif isinstance(value, str):
                log.add(Deviation.ARGUMENT_COERCION, at, f"{value!r} is not {kind}")
        elif kind == "object" and isinstance(value, dict):
            properties = part.get("properties")
            if isinstance(properties, dict):
                for key, item in value.items():
                    stack.append((properties.get(key), item, at.under(key), (*path, key)))
        elif kind == "array" and isinstance(value, list):
            items = part.get("items")
            stack.extend(
                (items, item, at.under(str(i)), (*path, i)) for i, item in enumerate(value)
            )
    return own


def judge_for_each_concurrency(
    log: QuirkLog, site: Site, max_parallel: int, script_cap: int, items: int
) -> None:
    """A forEach with more items than the smaller of its concurrency cap and a script's: the
    calls start at other times (and a failure stops the loop with other calls started)."""
    if max_parallel != script_cap and items > min(max_parallel, script_cap):
        log.add(
            Deviation.PARALLEL_CAP,
            site,
            f"maxParallel {max_parallel}, {items} items: a script starts up to {script_cap}",
            notable=False,
        )
