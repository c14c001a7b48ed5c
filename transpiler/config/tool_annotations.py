"""MCP ``ToolAnnotations`` as plain data: a backend's ``tools/list`` entry, a wire answer.

The keys are the ones :data:`~transpiler.config.model.YAML_KEYS` gives the
composite tool's own ``annotations`` block (one vocabulary for both).
"""

from __future__ import annotations

from typing import Any, Final

from transpiler.config.model import NOWHERE, YAML_KEYS, ToolAnnotations

#: Wire key -> :class:`ToolAnnotations` field.
FIELDS: Final = YAML_KEYS["ToolAnnotationsOverride"]
TITLE: Final = "title"


class AnnotationsError(ValueError):
    """Annotations that are not MCP ``ToolAnnotations``; ``key`` is the offending key."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def annotations_from_mcp(document: Any) -> ToolAnnotations:
    """Annotations from their wire form: a mapping of a string ``title`` and boolean hints."""
    if not isinstance(document, dict):
        raise AnnotationsError("'annotations' must be a mapping")
    unknown = sorted(str(key) for key in document if key not in FIELDS)
    if unknown:
        raise AnnotationsError(f"annotations: unknown field(s) {', '.join(unknown)}", unknown[0])
    values: dict[str, Any] = {}
    for key, value in document.items():
        expected, kind = (str, "a string") if key == TITLE else (bool, "true or false")
        if value is not None and not isinstance(value, expected):
            raise AnnotationsError(f"annotations: '{key}' must be {kind}", key)
        values[FIELDS[key]] = value
    return ToolAnnotations(**values, where=NOWHERE)


def annotations_to_mcp(annotations: ToolAnnotations | None) -> dict[str, Any] | None:
    """The wire form (absent hints and an empty title left out); None for no annotations."""
    if annotations is None:
        return None
    wire: dict[str, Any] = {}
    for key, field_name in FIELDS.items():
        value = getattr(annotations, field_name)
        if value is not None and value != "":
            wire[key] = value
    return wire
