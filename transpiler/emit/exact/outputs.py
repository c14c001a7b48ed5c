"""The workflow's result: the ``output`` block, or vMCP's last-completed-step rule.

With an ``output`` block, each property is built in source order with
``vmcp_output_value`` (defaults are converted to the property type here, at
emit time: :mod:`transpiler.emit.exact.defaults`, S153). Without one, vMCP
returns the output of the completed step that ended last (S150): the script
walks back from the last level and returns the first completed step; inside
one level it prefers the step declared first, which is one of vMCP's answers
when the level's steps end at the same time (the tie goes by Go map order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from transpiler.config.model import OutputConfig, OutputProperty
from transpiler.deviations import Deviation
from transpiler.emit import ir
from transpiler.emit.exact.defaults import coerce_default
from transpiler.emit.exact.json_values import json_value
from transpiler.emit.exact.nodes import Body, constant, if_, introduce, return_, string
from transpiler.emit.exact.scope import COMPLETED, EmitState


def has_default(default: object) -> bool:
    """vMCP's ``IsEmpty`` negated: null, ``{}`` and ``[]`` are no default."""
    return not (default is None or (isinstance(default, dict | list) and not default))


def output_block(state: EmitState, config: OutputConfig) -> Body:
    """``return`` the output block's value."""
    value = _properties(state, config.properties, "", "")
    result = return_(ir.call("vmcp_result", value))
    return introduce([result], "The result, built from the output block as vMCP builds it.", True)


def _properties(
    state: EmitState, properties: Mapping[str, OutputProperty], prefix: str, top: str
) -> ir.Dict:
    items: list[tuple[ir.Expr, ir.Expr]] = []
    for name, definition in properties.items():
        full = prefix + name
        items.append((string(name), _property(state, full, top or name, definition)))
    return ir.Dict(tuple(items))


def _property(state: EmitState, name: str, top: str, definition: OutputProperty) -> ir.Expr:
    if not definition.value:
        return _properties(state, definition.properties, name + ".", top)
    fallback = _fallback(definition)
    env = state.env()
    if definition.type in ("object", "array"):
        value = json_value(definition.value, env)
        if value is not None:
            return ir.call(
                "vmcp_output_json",
                string(name),
                string(definition.type),
                value,
                fallback,
                **_top(name, top),
            )
    compiled = state.template(definition.value, env)
    if (
        definition.type == "string"
        and not has_default(definition.default)
        and not compiled.can_fail
    ):
        return compiled.expr
    return ir.call(
        "vmcp_output_value",
        string(name),
        string(definition.type),
        compiled.expr,
        fallback,
        **_top(name, top),
    )


def _top(name: str, top: str) -> dict[str, ir.Expr]:
    """``top=`` for a nested property (the top-level property vMCP names in errors)."""
    return {} if name == top else {"top": string(top)}


def _fallback(definition: OutputProperty) -> ir.Expr:
    """``[value, error]`` of the converted default (None without a default)."""
    if not has_default(definition.default):
        return ir.Literal(None)
    coerced = coerce_default(definition.default, definition.type)
    if coerced.error is not None:
        return constant([None, coerced.error])
    return constant([coerced.value, None])


def last_completed(state: EmitState, levels: Sequence[Sequence[str]]) -> Body:
    """``return`` the output of the step that completed last (S150)."""
    body: Body = []
    comment = "No output block: vMCP returns the output of the step that completed last."
    for level in reversed(levels):
        for step_id in reversed(level):
            products = state.products[step_id]
            result = return_(ir.call("vmcp_result", ir.Name(products.output)))
            if products.status is None:
                body += introduce([result], comment, blank=True)
                if len(level) > 1:
                    _race_note(state, level)
                return body
            test = ir.Binary(ir.Name(products.status), "==", COMPLETED)
            guarded = [if_(test, [result])]
            body += guarded if body else introduce(guarded, comment, blank=True)
        if len(level) > 1:
            _race_note(state, level)
    body.append(return_(ir.Literal(None)))
    return body


def _race_note(state: EmitState, level: Sequence[str]) -> None:
    state.note(
        "deviation",
        Deviation.LAST_STEP_RACE,
        "steps " + ", ".join(level) + " may each complete last: vMCP returns the output of "
        "the one that finished last in time, the script the last one declared that completed "
        "(vMCP's answer when they end at the same time, not when one takes longer)",
    )
