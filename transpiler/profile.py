"""The ``scripted-tool`` profile (THV-0051): limits and what the client receives.

Decisions where the RFC is silent are ours and are listed in docs/reference.md
("The scripted-tool host profile"); both engines follow them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transpiler.golang.jsonenc import marshal

#: The builtins a scripted tool calls the host with (THV-0051).
HOST_BUILTINS = ("call_tool", "try_call_tool", "elicit", "retry", "parallel", "log")
SECOND_NS = 1_000_000_000
MAX_EXECUTION_STEPS = 1_000_000
DEFAULT_TIMEOUT_NS = 30 * 60 * SECOND_NS
CALL_TIMEOUT_NS = 5 * 60 * SECOND_NS
ELICITATION_TIMEOUT_NS = 10 * 60 * SECOND_NS
MAX_OUTPUT_BYTES = 10 * 1024 * 1024
MAX_SCRIPT_MEMORY_BYTES = 512 * 1024 * 1024
MAX_SCRIPT_SECONDS = 30.0
MAX_PRINT_BYTES = 64 * 1024
MAX_LOG_BYTES = 64 * 1024
LOG_TRUNCATED = "[log output truncated]"
PARALLEL_CAP = 10

FAILURE_PREFIX = "Script execution failed: "
TIMEOUT_TEXT = "Script execution timeout exceeded"
STEP_LIMIT_MESSAGE = "Starlark computation cancelled: too many steps"


@dataclass(frozen=True)
class ScriptLimits:
    """What one run of a script may use on the host: memory beyond the interpreter's own, and
    wall-clock seconds (virtual time is the tool's ``timeout``). ``print`` output is capped at
    :data:`MAX_PRINT_BYTES` a run, ``log()`` lines at :data:`MAX_LOG_BYTES`, a result and a
    halt message at :data:`MAX_OUTPUT_BYTES`."""

    memory_bytes: int = MAX_SCRIPT_MEMORY_BYTES
    seconds: float = MAX_SCRIPT_SECONDS

    def memory_text(self) -> str:
        """The memory limit as people read it."""
        return f"{self.memory_bytes / 2**20:g} MiB"


def halt_message(raw: str) -> str:
    """The message of a halt as the client sees it: ``fail(msg)`` gives ``msg``; one over
    :data:`MAX_OUTPUT_BYTES` is an error saying so, as a result that large is."""
    message = raw[len("fail: ") :] if raw.startswith("fail: ") else raw
    size = len(message.encode("utf-8", "surrogatepass"))
    if size > MAX_OUTPUT_BYTES:
        return f"error message too large: {size} bytes (max {MAX_OUTPUT_BYTES})"
    return message


def success_result(output: Any) -> dict[str, Any]:
    """The client result for a returned value: a JSON text item plus ``structuredContent``."""
    text = marshal(output)
    if len(text.encode()) > MAX_OUTPUT_BYTES:
        return failure_result(
            f"output too large: {len(text.encode())} bytes (max {MAX_OUTPUT_BYTES})"
        )
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    result["structuredContent"] = output if isinstance(output, dict) else None
    result["isError"] = False
    return result


def failure_result(message: str) -> dict[str, Any]:
    """The client result for a script that halted with ``message``."""
    return {"content": [{"type": "text", "text": FAILURE_PREFIX + message}], "isError": True}


def timeout_result() -> dict[str, Any]:
    """The client result when the tool's timeout passes before the script returns."""
    return {"content": [{"type": "text", "text": TIMEOUT_TEXT}], "isError": True}
