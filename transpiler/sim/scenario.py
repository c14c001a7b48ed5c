"""Scenario files: one ``tools/call`` against simulated backends (spec/scenario.md).

A scenario is read from YAML or JSON into frozen dataclasses. Everything a
client or backend sends is JSON, so every number in ``params``, results,
``when`` filters and elicitation content becomes a float, as vMCP decodes it;
only ``inputSchema`` keeps its literal typing (it is a schema, not data).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from transpiler.config.datafile import load_yaml, locate
from transpiler.config.model import ToolAnnotations
from transpiler.config.tool_annotations import (
    AnnotationsError,
    annotations_from_mcp,
    annotations_to_mcp,
)
from transpiler.diagnostics import InputError, SourceLocation
from transpiler.golang.duration import parse_duration
from transpiler.golang.values import json_numbers_as_floats

DEFAULT_CLOCK_START = datetime(2026, 1, 1, tzinfo=UTC)
MAX_SCENARIO_BYTES = 8 * 1024 * 1024

ELICITATION_ACTIONS = ("accept", "decline", "cancel")


@dataclass(frozen=True)
class ToolResult:
    """An MCP ``CallToolResult`` as a backend returns it."""

    content: tuple[Mapping[str, Any], ...] = ()
    structured_content: Any = None
    has_structured_content: bool = False
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``content``, ``structuredContent`` when present, ``isError``."""
        wire: dict[str, Any] = {"content": [dict(item) for item in self.content]}
        if self.has_structured_content:
            wire["structuredContent"] = self.structured_content
        wire["isError"] = self.is_error
        return wire


@dataclass(frozen=True)
class ResultEntry:
    """One scripted answer: a result or a transport error, plus matching controls."""

    result: ToolResult | None
    transport_error: str | None = None
    when: Mapping[str, Any] | None = None
    times: int | None = None
    delay_ns: int = 0


@dataclass(frozen=True)
class BackendTool:
    """A backend tool as the scenario defines it."""

    name: str
    input_schema: Any = None
    results: tuple[ResultEntry, ...] = ()
    #: The MCP ``ToolAnnotations`` its ``tools/list`` entry declares (None: none).
    annotations: ToolAnnotations | None = None


@dataclass(frozen=True)
class ElicitationAnswer:
    """What the client answers to one elicitation request."""

    action: str | None
    content: Any = None
    timeout: bool = False
    delay_ns: int = 0

    def describe(self) -> str:
        """The answer's name as traces record it: accept/decline/cancel/timeout."""
        return "timeout" if self.timeout else str(self.action)


@dataclass(frozen=True)
class Scenario:
    """One ``tools/call`` of one tool against simulated backends."""

    tool: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    backends: Mapping[str, BackendTool] = field(default_factory=dict)
    elicitations: tuple[ElicitationAnswer, ...] = ()
    clock_start: datetime = DEFAULT_CLOCK_START
    source: str = "<scenario>"

    def to_json(self) -> dict[str, Any]:
        """The scenario in its file format (so a generated one can be saved and replayed)."""
        backends: dict[str, Any] = {}
        for name in sorted(self.backends):
            tool = self.backends[name]
            entry: dict[str, Any] = {"results": [_entry_to_json(r) for r in tool.results]}
            if tool.input_schema is not None:
                entry["inputSchema"] = tool.input_schema
            if tool.annotations is not None:
                entry["annotations"] = annotations_to_mcp(tool.annotations)
            backends[name] = entry
        document: dict[str, Any] = {}
        if self.tool is not None:
            document["tool"] = self.tool
        document["params"] = dict(self.params)
        document["backends"] = backends
        if self.elicitations:
            document["elicitations"] = [_answer_to_json(a) for a in self.elicitations]
        if self.clock_start != DEFAULT_CLOCK_START:
            document["clock"] = {"start": self.clock_start.strftime("%Y-%m-%dT%H:%M:%SZ")}
        return document


def _format_duration(ns: int) -> str:
    if ns % 1_000_000_000 == 0:
        return f"{ns // 1_000_000_000}s"
    if ns % 1_000_000 == 0:
        return f"{ns // 1_000_000}ms"
    return f"{ns}ns"


def _entry_to_json(entry: ResultEntry) -> dict[str, Any]:
    wire: dict[str, Any] = {}
    if entry.when is not None:
        wire["when"] = dict(entry.when)
    if entry.transport_error is not None:
        wire["transportError"] = entry.transport_error
    elif entry.result is not None:
        result = entry.result.to_json()
        if not result["content"]:
            del result["content"]
        if not result["isError"]:
            del result["isError"]
        wire.update(result)
    if entry.times is not None:
        wire["times"] = entry.times
    if entry.delay_ns:
        wire["delay"] = _format_duration(entry.delay_ns)
    return wire


def _answer_to_json(answer: ElicitationAnswer) -> dict[str, Any]:
    wire: dict[str, Any] = {"timeout": True} if answer.timeout else {"action": answer.action}
    if answer.content is not None:
        wire["content"] = answer.content
    if answer.delay_ns:
        wire["delay"] = _format_duration(answer.delay_ns)
    return wire


class ScenarioError(InputError):
    """A scenario file that does not follow spec/scenario.md."""


def load_scenario(path: Path) -> Scenario:
    """Read a scenario file (YAML or JSON)."""
    return scenario_from_document(load_yaml(path, MAX_SCENARIO_BYTES, "scenario"), str(path))


def scenario_from_document(document: Any, source: str = "<scenario>") -> Scenario:
    """Build a scenario from an already parsed document."""
    where = SourceLocation(source)
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise ScenarioError("a scenario must be a mapping", where)
    _reject_unknown(document, {"tool", "params", "backends", "elicitations", "clock"}, "", where)
    tool = document.get("tool")
    if tool is not None and not isinstance(tool, str):
        raise ScenarioError("'tool' must be a string", where)
    params = document.get("params") or {}
    if not isinstance(params, dict):
        raise ScenarioError("'params' must be a mapping", where)
    backends_doc = document.get("backends") or {}
    if not isinstance(backends_doc, dict):
        raise ScenarioError("'backends' must be a mapping", where)
    backends = {str(name): _backend(str(name), spec, where) for name, spec in backends_doc.items()}
    answers_doc = document.get("elicitations") or []
    if not isinstance(answers_doc, list):
        raise ScenarioError("'elicitations' must be a list", where)
    answers = tuple(_elicitation(a, i, where) for i, a in enumerate(answers_doc))
    return Scenario(
        tool=tool,
        params=_as_json(params, "params", where),
        backends=backends,
        elicitations=answers,
        clock_start=_clock_start(document.get("clock"), where),
        source=source,
    )


def _reject_unknown(
    doc: Mapping[str, Any], known: set[str], context: str, where: SourceLocation
) -> None:
    unknown = sorted(str(k) for k in doc if k not in known)
    if unknown:
        prefix = f"{context}: " if context else ""
        raise ScenarioError(f"{prefix}unknown field(s) {', '.join(unknown)}", where)


def _as_json(value: Any, context: str, where: SourceLocation) -> Any:
    """JSON-typed copy of a YAML value: numbers become floats; only JSON kinds allowed."""
    try:
        text = json.dumps(value, allow_nan=False, default=_reject_non_json)
    except (TypeError, ValueError) as error:
        raise ScenarioError(f"{context}: not a JSON value ({error})", where) from None
    return json_numbers_as_floats(json.loads(text))


def _reject_non_json(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _duration(value: Any, context: str, where: SourceLocation) -> int:
    if value is None:
        return 0
    try:
        ns = parse_duration(str(value))
    except ValueError as error:
        raise ScenarioError(f"{context}: {error}", where) from None
    if ns < 0:
        raise ScenarioError(f"{context}: a delay cannot be negative", where)
    return ns


def _backend(name: str, spec: Any, where: SourceLocation) -> BackendTool:
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        raise ScenarioError(f"backend {name}: must be a mapping", where)
    _reject_unknown(spec, {"inputSchema", "results", "annotations"}, f"backend {name}", where)
    results_doc = spec.get("results") or []
    if not isinstance(results_doc, list):
        raise ScenarioError(f"backend {name}: 'results' must be a list", where)
    results = tuple(
        _result_entry(entry, f"backend {name} result {i}", where)
        for i, entry in enumerate(results_doc)
    )
    return BackendTool(
        name=name,
        input_schema=spec.get("inputSchema"),
        results=results,
        annotations=_annotations(spec.get("annotations"), name, where),
    )


def _annotations(doc: Any, name: str, where: SourceLocation) -> ToolAnnotations | None:
    """A backend tool's ``annotations`` (None when it declares none)."""
    if doc is None:
        return None
    try:
        return annotations_from_mcp(doc)
    except AnnotationsError as error:
        path = ("backends", name, "annotations", *([error.key] if error.key else []))
        raise ScenarioError(f"backend {name}: {error}", _at(where, path)) from None


def _at(where: SourceLocation, path: tuple[str, ...]) -> SourceLocation:
    """The line of ``path`` in the scenario file (the bare file when it has none)."""
    return locate(where.file, path, MAX_SCENARIO_BYTES)


_RESULT_KEYS = {
    "content",
    "structuredContent",
    "isError",
    "transportError",
    "when",
    "times",
    "delay",
}


def _result_entry(entry: Any, context: str, where: SourceLocation) -> ResultEntry:
    if not isinstance(entry, dict):
        raise ScenarioError(f"{context}: must be a mapping", where)
    _reject_unknown(entry, _RESULT_KEYS, context, where)
    when = entry.get("when")
    if when is not None and not isinstance(when, dict):
        raise ScenarioError(f"{context}: 'when' must be a mapping", where)
    times = entry.get("times")
    if times is not None and (isinstance(times, bool) or not isinstance(times, int) or times < 1):
        raise ScenarioError(f"{context}: 'times' must be a positive integer", where)
    delay_ns = _duration(entry.get("delay"), context, where)
    when_json = _as_json(when, context, where) if when is not None else None
    transport = entry.get("transportError")
    if transport is not None:
        if set(entry) & {"content", "structuredContent", "isError"}:
            raise ScenarioError(f"{context}: a transportError entry has no result fields", where)
        return ResultEntry(None, str(transport), when_json, times, delay_ns)
    content = entry.get("content") or []
    if not isinstance(content, list) or not all(isinstance(c, dict) for c in content):
        raise ScenarioError(f"{context}: 'content' must be a list of mappings", where)
    is_error = entry.get("isError", False)
    if not isinstance(is_error, bool):
        raise ScenarioError(f"{context}: 'isError' must be a boolean", where)
    result = ToolResult(
        content=tuple(_as_json(c, context, where) for c in content),
        structured_content=_as_json(entry.get("structuredContent"), context, where),
        has_structured_content="structuredContent" in entry,
        is_error=is_error,
    )
    return ResultEntry(result, None, when_json, times, delay_ns)


def _elicitation(answer: Any, index: int, where: SourceLocation) -> ElicitationAnswer:
    context = f"elicitation answer {index}"
    if not isinstance(answer, dict):
        raise ScenarioError(f"{context}: must be a mapping", where)
    _reject_unknown(answer, {"action", "content", "timeout", "delay"}, context, where)
    delay_ns = _duration(answer.get("delay"), context, where)
    if answer.get("timeout") is True:
        return ElicitationAnswer(None, None, True, delay_ns)
    action = answer.get("action")
    if not isinstance(action, str):
        raise ScenarioError(f"{context}: needs 'action' (or 'timeout: true')", where)
    content = answer.get("content")
    return ElicitationAnswer(action, _as_json(content, context, where), False, delay_ns)


def _clock_start(clock: Any, where: SourceLocation) -> datetime:
    if clock is None:
        return DEFAULT_CLOCK_START
    if not isinstance(clock, dict):
        raise ScenarioError("'clock' must be a mapping", where)
    _reject_unknown(clock, {"start"}, "clock", where)
    start = clock.get("start")
    if isinstance(start, datetime):
        return start if start.tzinfo else start.replace(tzinfo=UTC)
    if not isinstance(start, str):
        raise ScenarioError("clock.start must be an RFC 3339 timestamp", where)
    try:
        parsed = datetime.fromisoformat(start.replace("Z", "+00:00"))
    except ValueError:
        raise ScenarioError(f"clock.start {start!r} is not an RFC 3339 timestamp", where) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
