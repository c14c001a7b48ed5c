"""The workflow's output (``GetLastStepOutput`` and ``constructOutputFromConfig``, S150-S155).

Without an ``output`` config the result is the output of the completed step
that ended last (S150). Steps of one level that end at the same virtual
instant are a real race in Go (whichever records last wins), so the winner is
a choice (label ``last-completed-step``, options in declaration order).

With a config, each property is built from its ``value`` template (expanded
under the key ``_value``), parsed by type, or from nested ``properties``;
the ``default`` stands in for a failed expansion, an exact ``<no value>`` and
failed parsing, converted by the property type (S153). Properties are built
in Go map order, so which failure surfaces is a choice (label
``map-order:output``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from transpiler.composite.errors import GoError
from transpiler.composite.expand import Expander, first_error_in_map_order
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import Site, judge_output, natural_value
from transpiler.composite.state import COMPLETED, WorkflowState
from transpiler.composite.variants import ScriptStopped
from transpiler.config.model import OutputConfig, OutputProperty
from transpiler.deviations import Deviation
from transpiler.golang.fmt import format_value
from transpiler.golang.jsondec import JSONDecodeError, unmarshal
from transpiler.golang.strconv import NumError, parse_bool, parse_float, parse_int, quote
from transpiler.golang.types import type_name
from transpiler.golang.values import NIL_LIST, NIL_MAP, GoValue, Int64
from transpiler.gotemplate import Observation
from transpiler.gotemplate.runtime import MISSING
from transpiler.sim.schedule import Chooser

NO_VALUE = "<no value>"
MAP_TYPE = "map[string]interface {}"
LIST_TYPE = "[]interface {}"
_INT64_MIN = -(1 << 63)
_PARSED_KINDS = ("integer", "number", "boolean")


def last_completed_step(state: WorkflowState, order: list[str], chooser: Chooser) -> str | None:
    """S150: the completed step with the latest end, whose output is the result (None: none)."""
    finished = [
        (record.end_ns or 0, record.level, step_id)
        for step_id in order
        if (record := state.steps.get(step_id)) is not None and record.status == COMPLETED
    ]
    if not finished:
        return None
    latest = max((end, level) for end, level, _ in finished)
    tied = [step_id for end, level, step_id in finished if (end, level) == latest]
    return tied[0] if len(tied) == 1 else chooser.choose("last-completed-step", tied)


def construct_output(
    config: OutputConfig, expander: Expander, context: GoContext
) -> dict[str, GoValue] | GoError:
    """``constructOutputFromConfig`` (S151, S154)."""
    built = _build_properties(config.properties, "", expander, context)
    if isinstance(built, GoError):
        return built
    for name in config.required:
        if name not in built:
            return GoError(f"required output field {quote(name)} is missing")
        if built[name] is None and name not in expander.script_nulls:
            return GoError(f"required output field {quote(name)} is nil")
    return built


def _build_properties(
    properties: Mapping[str, OutputProperty], prefix: str, expander: Expander, context: GoContext
) -> dict[str, GoValue] | GoError:
    result: dict[str, GoValue] = {}
    failures: list[tuple[str, GoError]] = []
    for name, definition in properties.items():
        value = _build_property(prefix + name, definition, expander, context)
        if isinstance(value, GoError):
            wrapped = (
                value
                if prefix
                else value.wrap(f"failed to construct output property {quote(name)}")
            )
            failures.append((name, wrapped))
        else:
            result[name] = value
    if failures:
        return first_error_in_map_order(expander.chooser, "map-order:output", failures)[1]
    return result


def _build_property(
    name: str, definition: OutputProperty, expander: Expander, context: GoContext
) -> GoValue | GoError:
    if definition.value:
        return _from_value(name, definition, expander, context)
    if definition.properties:
        return _build_properties(definition.properties, name + ".", expander, context)
    return GoError(f"property {quote(name)} has neither value nor properties")


def _has_default(default: GoValue) -> bool:
    """``json.Any.IsEmpty`` negated: nil, ``{}`` and ``[]`` are no default."""
    return not (default is None or (isinstance(default, dict | list) and not default))


def _from_value(
    name: str, definition: OutputProperty, expander: Expander, context: GoContext
) -> GoValue | GoError:
    """``constructOutputPropertyFromValue`` (S152)."""
    has_default = _has_default(definition.default)
    site = Site(None, f"output.{name}", definition.type)
    seen = Observation()
    expanded = expander.keyed_string(context, "_value", definition.value, site, seen)
    if isinstance(expanded, GoError):
        if has_default:
            judge_output(expander.quirks, site, definition.type, None, None, failed=True)
            return coerce_default(definition.default, definition.type)
        return expanded.wrap(f"failed to expand template for property {quote(name)}")
    if expanded == NO_VALUE and has_default:
        return coerce_default(definition.default, definition.type)
    missing = expander.missing_variant(site, seen)
    if missing == "default" and has_default:
        return coerce_default(definition.default, definition.type)
    if expander.missing_is_null(site, definition.value, seen):
        expander.script_nulls.add(name)  # a script's result has no `required` check
        return None  # the script returns the missing value itself

    parsed = _parse_typed(name, expanded, definition.type)
    failed = isinstance(parsed, GoError)
    judge_output(expander.quirks, site, definition.type, seen, parsed, failed)
    rendering = expander.variants.at(Deviation.OUTPUT_RENDERING, site)
    if rendering is not None and len(seen.printed) == 1 and seen.printed[0] not in (MISSING, None):
        return _rendered_by_script(rendering, definition.type, seen, site)
    if failed and has_default:
        return coerce_default(definition.default, definition.type)
    return parsed


def _rendered_by_script(rendering: str, kind: str, seen: Observation, site: Site) -> GoValue:
    """An output property as ``output-rendering``'s variant builds it: ``as-is`` the value the
    template prints (or encodes); ``decoded`` that value decoded as JSON text, where anything
    else stops the script."""
    if rendering == "as-is":
        natural: GoValue = natural_value(kind, seen)
        return natural
    printed = seen.printed[0]
    if not isinstance(printed, str):
        raise ScriptStopped(Deviation.OUTPUT_RENDERING, site)
    try:
        decoded: GoValue = unmarshal(printed)
    except JSONDecodeError:
        raise ScriptStopped(Deviation.OUTPUT_RENDERING, site) from None
    return decoded


def _parse_typed(name: str, text: str, kind: str) -> GoValue | GoError:
    if kind == "object":
        decoded = decode_json_as(text, MAP_TYPE)
        if isinstance(decoded, GoError):
            return decoded.wrap(f"failed to deserialize JSON for object property {quote(name)}")
        return decoded
    if kind == "array":
        decoded = decode_json_as(text, LIST_TYPE)
        if isinstance(decoded, GoError):
            return decoded.wrap(f"failed to deserialize JSON array for property {quote(name)}")
        return decoded
    coerced = _coerce_string(text, kind)
    if isinstance(coerced, GoError):
        return coerced.wrap(f"failed to coerce value for property {quote(name)}")
    return coerced


def _coerce_string(text: str, kind: str) -> GoValue | GoError:
    """``coerceStringToType``."""
    if kind == "string":
        return text
    if kind not in _PARSED_KINDS:
        return GoError(f"unsupported type for string coercion: {kind}")
    try:
        if kind == "integer":
            return Int64(parse_int(text, 10, 64))
        if kind == "number":
            return parse_float(text)
        return parse_bool(text)
    except NumError as error:
        return GoError(f"cannot coerce {quote(text)} to {kind}: {error}")


def decode_json_as(text: str, go_type: str) -> GoValue | GoError:
    """``json.Unmarshal`` into ``map[string]any`` or ``[]any``; ``null`` gives a typed nil.

    A number too large for a float64 inside a value of the right kind fails the
    whole decoding (Go decodes on and returns that error at the end).
    """
    want_map = go_type == MAP_TYPE
    try:
        value = unmarshal(text)
    except JSONDecodeError as error:
        message = str(error)
        if not message.startswith("json: cannot unmarshal number"):
            return GoError(message)
        value = _top_level_kind(text)
        if isinstance(value, dict if want_map else list):
            return GoError(message)
    if value is None:
        return NIL_MAP if want_map else NIL_LIST
    if want_map and isinstance(value, dict):
        return value
    if not want_map and isinstance(value, list):
        return value
    return GoError(f"json: cannot unmarshal {_json_kind(value)} into Go value of type {go_type}")


def _top_level_kind(text: str) -> Any:
    """A stand-in value of the top-level JSON kind (Go reports a kind mismatch before overflow)."""
    first = text.lstrip(" \t\r\n")[:1]
    return {"{": {}, "[": []}.get(first, 0.0)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, float):
        return "number"
    return "object" if isinstance(value, dict) else "array"


def coerce_default(default: GoValue, kind: str) -> GoValue | GoError:
    """``coerceDefaultValue`` (S153); errors are not wrapped by the caller."""
    if default is None:
        return None
    if kind == "string":
        return default if isinstance(default, str) else format_value(default)
    if kind == "integer":
        return _default_integer(default)
    if kind == "number":
        return _default_number(default)
    if kind == "boolean":
        return _default_boolean(default)
    if kind == "object":
        return _default_container(default, dict, MAP_TYPE, "object")
    if kind == "array":
        return _default_container(default, list, LIST_TYPE, "array")
    return GoError(f"unsupported target type: {kind}")


def _cannot(default: GoValue, kind: str) -> GoError:
    return GoError(
        f"cannot coerce default value {format_value(default)} (type {type_name(default)}) to {kind}"
    )


def _default_integer(default: GoValue) -> GoValue | GoError:
    if isinstance(default, bool):
        return _cannot(default, "integer")
    if isinstance(default, int):
        return Int64(default)
    if isinstance(default, float):
        if math.isnan(default) or not _INT64_MIN <= default < 2.0**63:
            return Int64(_INT64_MIN)
        return Int64(int(default))
    if isinstance(default, str):
        try:
            return Int64(parse_int(default, 10, 64))
        except NumError as error:
            return GoError(str(error))
    return _cannot(default, "integer")


def _default_number(default: GoValue) -> GoValue | GoError:
    if isinstance(default, bool):
        return _cannot(default, "number")
    if isinstance(default, int | float):
        return float(default)
    if isinstance(default, str):
        try:
            return parse_float(default)
        except NumError as error:
            return GoError(str(error))
    return _cannot(default, "number")


def _default_boolean(default: GoValue) -> GoValue | GoError:
    if isinstance(default, bool):
        return default
    if isinstance(default, str):
        if default in ("true", "True", "TRUE", "1"):
            return True
        if default in ("false", "False", "FALSE", "0"):
            return False
        return GoError(f"cannot coerce string {quote(default)} to boolean")
    if isinstance(default, int):
        return default == 1
    return _cannot(default, "boolean")


def _default_container(
    default: GoValue, python_type: type, go_type: str, kind: str
) -> GoValue | GoError:
    if isinstance(default, python_type):
        return default
    if isinstance(default, str):
        decoded = decode_json_as(default, go_type)
        if isinstance(decoded, GoError):
            return decoded.wrap(f"cannot parse default value as JSON {kind}")
        return decoded
    return _cannot(default, kind)
