"""A step's ``arguments`` as a Starlark dict: templates compiled, other values literal.

vMCP expands string values as templates at every depth (S80) and passes other
values through with their YAML types; then it converts strings to the types
the backend tool's ``inputSchema`` declares (S81). The arguments' shape is
fixed in the YAML and templates always give strings, so the conversion is
decided here, position by position: a string at an ``integer``, ``number``
or ``boolean`` position is wrapped in ``vmcp_as_integer`` and the like,
which keep the string when it does not parse, as vMCP does. A YAML timestamp
reaches the backend as Go's JSON encoding of a ``time.Time`` (RFC 3339 with
nanoseconds and the written offset), so the script sends that text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transpiler.deviations import Deviation
from transpiler.emit import ir
from transpiler.emit.exact.nodes import constant, string
from transpiler.emit.exact.scope import EmitState
from transpiler.emit.exact.templates import TemplateEnv
from transpiler.emit.fixes import FIXES, MISSING_PARAMETER, lone_parameter, optional_parameters
from transpiler.emit.limits import MAX_DEPTH, too_deep
from transpiler.golang.timefmt import time_rfc3339_nano
from transpiler.golang.values import GoTime


@dataclass(frozen=True)
class Arguments:
    """The arguments expression and whether a template in it can yield an error."""

    expr: ir.Expr
    fallible: bool


_CONVERTERS = {
    "integer": "vmcp_as_integer",
    "number": "vmcp_as_number",
    "boolean": "vmcp_as_boolean",
}


def arguments(
    state: EmitState, values: dict[str, Any] | None, env: TemplateEnv, schema: Any = None
) -> Arguments:
    """The Starlark expression for a step's arguments (``{}`` when it has none)."""
    if not values:
        return Arguments(ir.Dict(()), False)
    fallible: list[bool] = []
    # The map itself is not counted: vMCP expands its values at depth 0 (S80).
    expr = _value(state, values, env, -1, fallible, schema)
    omittable = _omittable(state, values)
    if omittable and isinstance(expr, ir.Dict):
        expr = ir.Dict(
            tuple(
                (key, _unless_omitted(item, omittable[i])) if i in omittable else (key, item)
                for i, (key, item) in enumerate(expr.items)
            )
        )
        return Arguments(ir.call("vmcp_without_omitted", expr), any(fallible))
    return Arguments(expr, any(fallible))


def _unless_omitted(value: ir.Expr, parameter: str) -> ir.Expr:
    """``value``, or ``VMCP_OMITTED`` when the client left ``parameter`` out."""
    given = ir.Binary(string(parameter), "in", ir.Name("params"))
    return ir.Unbroken(ir.Cond(value, given, ir.Name("VMCP_OMITTED")))


def _omittable(state: EmitState, values: dict[str, Any]) -> dict[int, str]:
    """Top-level arguments the missing-parameter fix leaves out: position -> parameter."""
    if MISSING_PARAMETER not in state.fixes:
        return {}
    optional = optional_parameters(state.tool.parameters)
    found = {}
    for index, value in enumerate(values.values()):
        parameter = lone_parameter(value)
        if parameter is not None and parameter in optional:
            found[index] = parameter
    if found:
        state.note("deviation", Deviation.MISSING_VALUE, FIXES[MISSING_PARAMETER], requested=True)
    return found


def _value(
    state: EmitState, value: Any, env: TemplateEnv, depth: int, fallible: list[bool], schema: Any
) -> ir.Expr:
    if depth > MAX_DEPTH:
        raise too_deep()
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(value, str):
        compiled = state.template(value, env)
        fallible.append(compiled.can_fail)
        if kind in _CONVERTERS:
            return ir.Unbroken(ir.call(_CONVERTERS[kind], compiled.expr))
        return compiled.expr
    if isinstance(value, dict):
        return ir.Dict(
            tuple(
                (
                    string(str(key)),
                    _value(state, item, env, depth + 1, fallible, _property(schema, kind, key)),
                )
                for key, item in value.items()
            )
        )
    if isinstance(value, list):
        items = schema.get("items") if kind == "array" else None
        return ir.List(
            tuple(_value(state, item, env, depth + 1, fallible, items) for item in value)
        )
    if isinstance(value, GoTime):
        return string(time_rfc3339_nano(value))
    return constant(value)


def _property(schema: Any, kind: Any, key: Any) -> Any:
    """The schema of one key of an object position (None when it has none)."""
    if kind != "object":
        return None
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None
    sub = properties.get(key)
    return sub if isinstance(sub, dict) else None
