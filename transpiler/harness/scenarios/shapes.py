"""What a tool's templates read, as the shapes scenarios must fill.

From the workflow's dataflow: which backend tools are called, which fields of
each step's output (and of each elicitation's content) templates read, which
fields feed a forEach collection, and the string literals templates compare
against (so generated data can make conditions go either way).

A script sees a tool's ``structuredContent`` or, without it, its content
items, never both; so a tool whose step's ``.content`` some template reads
answers with content items only (the domain every script claims there).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from transpiler.config.model import (
    StepKind,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.golang.duration import format_duration
from transpiler.harness.scenarios.analysis import ToolAnalysis
from transpiler.profile import CALL_TIMEOUT_NS, SECOND_NS

_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')

Trie = dict[str, "Trie"]


@dataclass(frozen=True)
class Calls:
    """How a kind of step calls backends: ``caller`` gives the step whose ``tool`` it calls and
    whose ``onError`` governs the calls (None: it calls none); ``answers`` says whether the
    step's output is that call's answer."""

    caller: Callable[[WorkflowStepConfig], WorkflowStepConfig | None]
    answers: bool


#: How each kind of step calls backends.
CALLS: Final[Mapping[StepKind, Calls]] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: Calls(lambda step: step, answers=True),
        StepKind.ELICITATION: Calls(lambda step: None, answers=False),
        StepKind.FOR_EACH: Calls(lambda step: step.inner_step, answers=False),
    },
)


def caller(step: WorkflowStepConfig) -> WorkflowStepConfig | None:
    """The step whose tool ``step`` calls (itself, or a forEach's inner step), if any."""
    return None if step.kind is None else CALLS[step.kind].caller(step)


@dataclass
class ToolShapes:
    """The data a tool's templates look at."""

    tools: list[str] = field(default_factory=list)
    output_fields: dict[str, Trie] = field(default_factory=dict)
    collection_fields: dict[str, set[str]] = field(default_factory=dict)
    elicitation_fields: Trie = field(default_factory=dict)
    elicitation_steps: list[str] = field(default_factory=list)
    #: Each elicitation's schema choices: property -> every enum value (a boolean: both).
    elicitation_choices: list[dict[str, list[Any]]] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    retried_tools: set[str] = field(default_factory=set)
    content_tools: set[str] = field(default_factory=set)
    #: (the tool whose answer a forEach's collection reads, the loop's inner tool).
    loops: list[tuple[str, str]] = field(default_factory=list)
    #: Each tool's delays (Go duration text) that cross a deadline of a step calling it
    #: (:func:`~transpiler.emit.timeouts.step_deadlines`): a second past the step's deadline,
    #: and past a script's call limit.
    slow: dict[str, list[str]] = field(default_factory=dict)

    def success(self, tool: str, body: dict[str, Any]) -> dict[str, Any]:
        """A successful answer of ``tool`` carrying ``body``: as ``structuredContent``, or
        as JSON text where the tool's ``.content`` is read."""
        if tool in self.content_tools:
            return {"content": [{"type": "text", "text": json.dumps(body)}]}
        return {"structuredContent": body}


def _insert(trie: Trie, path: tuple[str, ...]) -> None:
    for part in path:
        trie = trie.setdefault(part, {})


def tool_shapes(analysis: ToolAnalysis) -> ToolShapes:
    """The shapes of the tool's backends, elicitation answers and template literals."""
    tool, edges = analysis.tool, analysis.edges
    shapes = ToolShapes(content_tools=content_tools(analysis))
    tool_of: dict[str, str] = {}
    deadlines = {deadline.step: deadline.timeout_ns for deadline in analysis.deadlines}
    for step in tool.steps:
        calling = caller(step)
        called = "" if calling is None else calling.tool
        if step.kind is StepKind.ELICITATION:
            shapes.elicitation_steps.append(step.id)
            shapes.elicitation_choices.append(_choices(step.schema))
        elif called:
            tool_of[step.id] = called
            if called not in shapes.tools:
                shapes.tools.append(called)
        if called and step.id in deadlines:
            delays = shapes.slow.setdefault(called, [])
            delays.extend(d for d in _crossing(deadlines[step.id]) if d not in delays)
        if (
            calling is not None
            and calling.on_error is not None
            and calling.on_error.action == "retry"
        ):
            shapes.retried_tools.add(called)
    for edge in edges:
        path = edge.path[3:] if len(edge.path) > 3 and edge.path[2] == "output" else ()
        if edge.step in shapes.elicitation_steps:
            if path[:1] == ("content",) and len(path) > 1:
                _insert(shapes.elicitation_fields, path[1:])
            continue
        reader_tool = tool_of.get(edge.step)
        if reader_tool is None:
            continue
        _insert(shapes.output_fields.setdefault(reader_tool, {}), path)
        if edge.site == "collection" and path:
            shapes.collection_fields.setdefault(reader_tool, set()).add(path[0])
            loop = (reader_tool, tool_of.get(edge.reader, ""))
            if loop[1] and loop not in shapes.loops:
                shapes.loops.append(loop)
    literals: set[str] = set()
    for site in analysis.sites:
        literals.update(match.group(1) for match in _LITERAL.finditer(site.text))
    shapes.literals = sorted(literals)
    return shapes


def _crossing(timeout_ns: int) -> list[str]:
    """Delays a second past a step's ``timeout`` and past the script's call limit: the first
    ends vMCP's step, the second a script's call (what a script does then shows only there)."""
    limits = sorted({timeout_ns, CALL_TIMEOUT_NS})
    return [format_duration(limit + SECOND_NS) for limit in limits]


def _choices(schema: Any) -> dict[str, list[Any]]:
    """Every value an elicitation schema offers of each property with a choice: an enum's
    values, a boolean's both."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    choices: dict[str, list[Any]] = {}
    for name, spec in (properties or {}).items():
        if not isinstance(spec, dict):
            continue
        if isinstance(spec.get("enum"), list) and spec["enum"]:
            choices[str(name)] = list(spec["enum"])
        elif spec.get("type") == "boolean":
            choices[str(name)] = [True, False]
    return choices


def content_tools(analysis: ToolAnalysis) -> set[str]:
    """Backend tools of the steps whose output is their call's answer and whose ``.content``
    a template may read."""
    needs = analysis.needs
    return {
        step.tool
        for step in analysis.tool.steps
        if step.kind is not None
        and CALLS[step.kind].answers
        and step.tool
        and "content" in needs.of(step.id)
    }
