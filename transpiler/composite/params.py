"""Parameters as the engine sees them (``applyParameterDefaults``, S40-S42).

The client's arguments (an absent map is ``{}``) get each top-level
``parameters.properties.<name>.default`` that the client did not send, as
written in YAML (a ``default: null`` sets nil). Nothing else happens: no
``required`` check, no type check or coercion, extra keys pass through.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transpiler.golang.values import GoValue


def apply_parameter_defaults(
    schema: Mapping[str, Any] | None, arguments: Mapping[str, GoValue] | None
) -> dict[str, GoValue]:
    """The ``.params`` map of one call."""
    params: dict[str, GoValue] = dict(arguments or {})
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return params
    for name, property_schema in properties.items():
        if (
            name not in params
            and isinstance(property_schema, dict)
            and "default" in property_schema
        ):
            params[name] = property_schema["default"]
    return params
