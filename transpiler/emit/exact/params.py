"""The start of ``run``: the client's arguments as vMCP's templates see them.

vMCP decodes the arguments from JSON (every number a float64) and fills in
each top-level parameter ``default`` the client left out, with its YAML
typing (S40-S42). Nothing is validated against the schema, so a missing
optional parameter reads as ``<no value>``.
"""

from __future__ import annotations

from typing import Any

from transpiler.emit import ir
from transpiler.emit.exact.nodes import Body, assign, constant, expression, introduce, string
from transpiler.emit.exact.scope import EmitState
from transpiler.plan.reads import params_read, reads_params


def parameter_defaults(parameters: dict[str, Any] | None) -> list[tuple[str, Any]]:
    """``(name, default)`` for each top-level property with a ``default``, in order."""
    if not isinstance(parameters, dict):
        return []
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return []
    return [
        (str(name), spec["default"])
        for name, spec in properties.items()
        if isinstance(spec, dict) and "default" in spec
    ]


def params_prelude(state: EmitState) -> Body:
    """``params = go_floats(params)`` and one ``setdefault`` per parameter default."""
    tool = state.tool
    defaults = parameter_defaults(tool.parameters)
    if not reads_params(state.site_reads):
        return []
    decoded = assign("params", ir.call("go_floats", ir.Name("params")))
    comment = "vMCP decodes the arguments from JSON: every number is a float."
    body = introduce([decoded], comment, blank=False)
    for name, value in defaults:
        body.append(expression(ir.call("params.setdefault", string(name), constant(value))))
    _note_missing(state, {name for name, _ in defaults})
    return body


def _note_missing(state: EmitState, defaulted: set[str]) -> None:
    parameters = state.tool.parameters or {}
    required = parameters.get("required") if isinstance(parameters, dict) else None
    required_names = set(required) if isinstance(required, list) else set()
    read = params_read(state.site_reads)
    optional = (read or frozenset()) - required_names - defaulted
    if optional:
        state.note(
            "quirk",
            "missing-parameter-no-value",
            "an optional parameter the client leaves out ("
            + ", ".join(sorted(optional))
            + ') reads as <no value>, so it is sent as the string "<no value>" '
            "(or fails a condition), as vMCP does",
        )
    state.note(
        "domain",
        "params-conform",
        "the client's arguments conform to the parameter schema (the scripted-tool host "
        "validates them; vMCP's composite engine does not)",
    )
