"""The equivalence relation between a composite trace and a script trace.

Two traces are equal when, in this order (the first field that differs is
reported):

1. ``outcome`` — success, error, or timeout (either side's timeout texts);
2. on error, the client text with each host's wrapper removed
   (``Workflow execution failed: `` on vMCP's side, ``Script execution
   failed: `` on the script's), compared exactly; timeouts compare as a class;
3. on success, ``structuredContent`` after JSON canonicalisation (numbers by
   value) and the text item exactly (Go JSON on both sides);
4. the backend calls as a multiset of (tool, arguments, attempt);
5. the elicitation requests, message and schema, in order.

Logs, virtual times, step records and call order inside a concurrency group
are not compared. A script trace is equivalent to a workflow when it equals
*some* trace the composite model produces under its schedules (canonical
first, then every schedule up to a limit), because vMCP itself may behave in
any of those ways.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transpiler.sim.trace import Trace, plain_json
from transpiler.starlark_runtime.profile import FAILURE_PREFIX, TIMEOUT_TEXT

COMPOSITE_PREFIX = "Workflow execution failed: "
COMPOSITE_TIMEOUTS = (
    "Workflow execution timeout exceeded",
    COMPOSITE_PREFIX + "workflow timed out",
)


@dataclass(frozen=True)
class Difference:
    """The first field where two traces differ, with both sides' values."""

    field: str
    composite: str
    script: str

    def render(self) -> str:
        """A short side-by-side description."""
        return f"{self.field}:\n  composite: {self.composite}\n  script:    {self.script}"


def canonical(value: Any) -> str:
    """A JSON value as comparable text: sorted keys, every number a float."""
    plain = json.loads(json.dumps(plain_json(value), sort_keys=True), parse_int=float)
    return json.dumps(plain, sort_keys=True, ensure_ascii=False)


def outcome_class(trace: Trace) -> str:
    """``success``, ``error`` or ``timeout``."""
    if trace.outcome == "success":
        return "success"
    text = _text(trace)
    return "timeout" if text == TIMEOUT_TEXT or text in COMPOSITE_TIMEOUTS else "error"


def _text(trace: Trace) -> str:
    content = trace.client_result.get("content") or [{}]
    return str(content[0].get("text", ""))


def unwrapped_error(trace: Trace) -> str:
    """The client's error text without the host's wrapper."""
    text = _text(trace)
    for prefix in (COMPOSITE_PREFIX, FAILURE_PREFIX):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def calls(trace: Trace) -> Counter[str]:
    """The backend calls as a multiset of (tool, arguments, attempt)."""
    return Counter(
        json.dumps([call.tool, json.loads(canonical(call.args)), call.attempt], sort_keys=True)
        for call in trace.calls
    )


def difference(composite: Trace, script: Trace) -> Difference | None:
    """The first differing field, or None when the traces are equivalent."""
    left, right = outcome_class(composite), outcome_class(script)
    if left != right:
        return Difference("outcome", f"{left}: {_text(composite)}", f"{right}: {_text(script)}")
    if left == "error" and unwrapped_error(composite) != unwrapped_error(script):
        return Difference("error text", unwrapped_error(composite), unwrapped_error(script))
    if left == "success":
        ours = canonical(composite.client_result.get("structuredContent"))
        theirs = canonical(script.client_result.get("structuredContent"))
        if ours != theirs:
            return Difference("structuredContent", ours, theirs)
        if _text(composite) != _text(script):
            return Difference("result text", _text(composite), _text(script))
    if calls(composite) != calls(script):
        return Difference(
            "calls",
            _describe(calls(composite) - calls(script)),
            _describe(calls(script) - calls(composite)),
        )
    asked = [(e.message, canonical(e.schema)) for e in composite.elicitations]
    answered = [(e.message, canonical(e.schema)) for e in script.elicitations]
    if asked != answered:
        return Difference("elicitations", repr(asked), repr(answered))
    return None


def _describe(extra: Counter[str]) -> str:
    if not extra:
        return "(nothing more)"
    return "only here: " + "; ".join(sorted(extra.elements()))


def matching(composites: Sequence[Trace], script: Trace) -> Trace | None:
    """A composite trace equivalent to ``script``, or None."""
    for trace in composites:
        if difference(trace, script) is None:
            return trace
    return None
