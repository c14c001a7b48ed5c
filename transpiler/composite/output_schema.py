"""A composite tool's ``output`` block as the JSON Schema a scripted tool declares.

vMCP advertises a composite tool's output schema with ``buildOutputSchema``
(pkg/vmcp/internal/compositetools/workflow_converter.go): ``type: object``,
each property's ``type`` and ``description`` (always present, even empty),
nested ``properties`` only for ``type: object`` with nested properties, and
``required`` when non-empty. ``value`` and ``default`` are runtime template
details, not schema. Producing the same schema keeps ``tools/list`` unchanged.
"""

from __future__ import annotations

from typing import Any

from transpiler.config.model import OutputConfig, OutputProperty


def output_schema(output: OutputConfig) -> dict[str, Any]:
    """The JSON Schema vMCP advertises for ``output`` (properties in source order)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: _property(prop) for name, prop in output.properties.items()},
    }
    if output.required:
        schema["required"] = list(output.required)
    return schema


def _property(prop: OutputProperty) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": prop.type, "description": prop.description}
    if prop.type == "object" and prop.properties:
        schema["properties"] = {name: _property(inner) for name, inner in prop.properties.items()}
    return schema
