"""Backend tools from a ``tools/list`` dump: schemas for argument conversion, annotations for
the advertise/call gate.

Accepted shapes (JSON or YAML): a ``tools/list`` result ``{"tools": [...]}``,
a JSON-RPC response whose ``result`` is that, a plain list of tools, or a map
from tool name to ``inputSchema``. Each tool is ``{name, inputSchema}``, and may
carry MCP ``annotations``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transpiler.config.datafile import load_yaml, locate
from transpiler.config.model import ToolAnnotations
from transpiler.config.tool_annotations import AnnotationsError, annotations_from_mcp
from transpiler.diagnostics import InputError, SourceLocation

MAX_BYTES = 8 * 1024 * 1024


def load_tool_schemas(path: str) -> dict[str, Any]:
    """Tool name → ``inputSchema`` from a tools/list dump."""
    document = load_yaml(Path(path), MAX_BYTES, "tools file")
    return tool_schemas_from(document, SourceLocation(path))


def tool_schemas_from(document: Any, where: SourceLocation) -> dict[str, Any]:
    """The same, from an already parsed document."""
    tools, _ = _tools(document, where)
    if isinstance(tools, dict):
        return {str(name): schema for name, schema in tools.items()}
    return {tool["name"]: tool.get("inputSchema") for tool in tools}


def load_tool_annotations(path: str) -> dict[str, ToolAnnotations | None]:
    """Tool name → its ``annotations`` (None when it declares none) from a tools/list dump."""
    where = SourceLocation(path)
    tools, prefix = _tools(load_yaml(Path(path), MAX_BYTES, "tools file"), where)
    if isinstance(tools, dict):
        return dict.fromkeys((str(name) for name in tools), None)
    found: dict[str, ToolAnnotations | None] = {}
    for index, tool in enumerate(tools):
        declared = tool.get("annotations")
        try:
            found[tool["name"]] = None if declared is None else annotations_from_mcp(declared)
        except AnnotationsError as error:
            keys: list[str | int] = [*prefix, index, "annotations"]
            keys.extend([error.key] if error.key else [])
            at = locate(path, keys, MAX_BYTES)
            raise InputError(f"tools file: tool {tool['name']}: {error}", at) from None
    return found


def _tools(
    document: Any, where: SourceLocation
) -> tuple[dict[Any, Any] | list[dict[str, Any]], tuple[str, ...]]:
    """The name → schema map or the list of tools, and the keys leading to the list."""
    prefix: tuple[str, ...] = ()
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document, prefix = document["result"], ("result",)
    if isinstance(document, dict) and "tools" in document:
        document, prefix = document["tools"], (*prefix, "tools")
    if isinstance(document, dict):
        return document, prefix
    if not isinstance(document, list):
        raise InputError("tools file: expected a tools/list result or a list of tools", where)
    for index, tool in enumerate(document):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise InputError(f"tools file: tool {index} has no name", where)
    return document, prefix
