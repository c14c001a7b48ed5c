"""Backend tool schemas from a ``tools/list`` dump, for argument conversion.

Accepted shapes (JSON or YAML): a ``tools/list`` result ``{"tools": [...]}``,
a JSON-RPC response whose ``result`` is that, a plain list of tools, or a map
from tool name to ``inputSchema``. Each tool is ``{name, inputSchema}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transpiler.config.datafile import load_yaml
from transpiler.diagnostics import InputError, SourceLocation

MAX_BYTES = 8 * 1024 * 1024


def load_tool_schemas(path: str) -> dict[str, Any]:
    """Tool name → ``inputSchema`` from a tools/list dump."""
    document = load_yaml(Path(path), MAX_BYTES, "tools file")
    return tool_schemas_from(document, SourceLocation(path))


def tool_schemas_from(document: Any, where: SourceLocation) -> dict[str, Any]:
    """The same, from an already parsed document."""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document = document["result"]
    if isinstance(document, dict) and "tools" in document:
        document = document["tools"]
    if isinstance(document, dict):
        return {str(name): schema for name, schema in document.items()}
    if not isinstance(document, list):
        raise InputError("tools file: expected a tools/list result or a list of tools", where)
    schemas: dict[str, Any] = {}
    for index, tool in enumerate(document):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise InputError(f"tools file: tool {index} has no name", where)
        schemas[tool["name"]] = tool.get("inputSchema")
    return schemas
