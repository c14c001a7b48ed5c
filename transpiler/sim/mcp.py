"""How vMCP's backend client turns one call's answer into an output map or an error.

Both forms of a tool call backends through the same vMCP router and backend
client, so both see a tool's answer the same way:

- a transport error fails the attempt with the client's error text, which a
  scenario gives verbatim (``transportError``);
- ``isError: true`` fails it with ``tool execution failed: <msg>`` (S86);
- a success becomes ``structuredContent`` when that is a JSON object, else the
  content array converted to a map (S87, S88).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from transpiler.sim.backends import BackendAnswer
from transpiler.sim.scenario import ToolResult

TOOL_EXECUTION_FAILED = "tool execution failed"


def output_map(result: ToolResult) -> dict[str, Any]:
    """The output map of a successful result (S87)."""
    if result.has_structured_content and isinstance(result.structured_content, dict):
        return dict(result.structured_content)
    return content_array_to_map(result.content)


def content_array_to_map(content: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """vMCP's ``ContentArrayToMap`` (S88): text, text_1.., image_0.., resource, resource_1.."""
    converted: dict[str, Any] = {}
    texts = images = resources = 0
    for item in content:
        kind = item.get("type")
        if kind == "text":
            converted["text" if texts == 0 else f"text_{texts}"] = _string(item.get("text"))
            texts += 1
        elif kind == "image":
            converted[f"image_{images}"] = _string(item.get("data"))
            images += 1
        elif kind == "resource":
            resource = item.get("resource")
            body = resource if isinstance(resource, dict) else {}
            text = _string(body.get("text"))
            value = text if text else _string(body.get("blob"))
            converted["resource" if resources == 0 else f"resource_{resources}"] = value
            resources += 1
    return converted


def is_error_message(result: ToolResult) -> str:
    """The message of an ``isError`` result (S86 c)."""
    for item in result.content:
        if item.get("type") == "text":
            text = item.get("text")
            if isinstance(text, str) and text:
                return text
    structured = result.structured_content
    if isinstance(structured, dict):
        for key in ("error", "message", "text"):
            value = structured.get(key)
            if isinstance(value, str) and value:
                return value
    return "tool execution error"


def attempt_failure(answer: BackendAnswer) -> str | None:
    """The error text of a failed attempt, or None when the call succeeded."""
    if answer.transport_error is not None:
        return answer.transport_error
    if answer.result is None:
        return None
    if answer.result.is_error:
        return f"{TOOL_EXECUTION_FAILED}: {is_error_message(answer.result)}"
    return None


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""
