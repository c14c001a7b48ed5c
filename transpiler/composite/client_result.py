"""What the MCP client receives for a composite ``tools/call`` (``executeComposite``, S160-S162).

Success: one text item holding the Go JSON of the output (sorted keys,
HTML-escaped) plus ``structuredContent`` (omitted for a nil output, whose
text is ``null``). Failure is always a tool result with ``isError: true``:
``Workflow execution timeout exceeded`` when the error chain holds a deadline
error (a step timeout, not the workflow timeout), else
``Workflow execution failed: <err>``; an output JSON cannot hold (NaN, ±Inf)
gives ``failed to marshal output: <err>``. Step records, retry counts and the
workflow id never reach the client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transpiler.composite.errors import GoError
from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.golang.values import GoValue

TIMEOUT_TEXT = "Workflow execution timeout exceeded"


@dataclass(frozen=True)
class ClientView:
    """The client's result, and whether the client saw a failure (with its cause)."""

    result: dict[str, Any]
    failure: str | None


def error_result(text: str) -> dict[str, Any]:
    """A tool result with ``isError: true`` carrying ``text``."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def client_view(output: GoValue, error: GoError | None) -> ClientView:
    """The tool result vMCP returns for a workflow's output or error."""
    if error is not None:
        text = TIMEOUT_TEXT if error.deadline else f"Workflow execution failed: {error.text}"
        return ClientView(error_result(text), error.text)
    try:
        text = marshal(output)
    except JSONEncodeError as failure:
        message = f"failed to marshal output: {failure}"
        return ClientView(error_result(message), message)
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if output is not None:
        result["structuredContent"] = output
    result["isError"] = False
    return ClientView(result, None)
