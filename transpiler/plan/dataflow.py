"""Which step reads which other step's result, from every template vMCP expands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from transpiler.config.model import (
    CompositeToolConfig,
    OutputProperty,
    StepKind,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.golang.values import GoValue
from transpiler.gotemplate import TemplateSyntaxError, parse, reads

OUTPUT = "output"


@dataclass(frozen=True)
class TemplateSite:
    """One template string vMCP expands: who expands it, where it sits, its text."""

    reader: str
    site: str
    text: str


@dataclass(frozen=True)
class DataflowEdge:
    """``reader`` (a step id, or ``output``) reads ``path`` of step ``step`` at ``site``.

    ``dynamic`` marks a read whose step is chosen at run time
    (``index .steps .params.which``): it may read any step.
    """

    reader: str
    step: str
    site: str
    path: tuple[str, ...]
    dynamic: bool = False


def template_sites(tool: CompositeToolConfig) -> Iterator[TemplateSite]:
    """Every template expanded at run time: conditions, tool arguments at any depth,
    elicitation messages, forEach collections and inner arguments, output values."""
    for step in tool.steps:
        yield from _step_sites(step)
    if tool.output is not None:
        yield from _output_sites(tool.output.properties, "")


def _step_sites(step: WorkflowStepConfig) -> Iterator[TemplateSite]:
    if step.condition:
        yield TemplateSite(step.id, "condition", step.condition)
    if step.kind is not None:
        yield from _KIND_SITES[step.kind](step)


def _tool_sites(step: WorkflowStepConfig) -> Iterator[TemplateSite]:
    if step.arguments:
        yield from _value_sites(step.id, "arguments", step.arguments)


def _elicitation_sites(step: WorkflowStepConfig) -> Iterator[TemplateSite]:
    if step.message:
        yield TemplateSite(step.id, "message", step.message)


def _for_each_sites(step: WorkflowStepConfig) -> Iterator[TemplateSite]:
    if step.collection:
        yield TemplateSite(step.id, "collection", step.collection)
    if step.inner_step is not None and step.inner_step.arguments:
        yield from _value_sites(step.id, "step.arguments", step.inner_step.arguments)


#: The templates each kind of step expands, besides its condition.
_KIND_SITES: Final[Mapping[StepKind, Callable[[WorkflowStepConfig], Iterator[TemplateSite]]]] = (
    exhaustive(
        StepKind,
        {
            StepKind.TOOL: _tool_sites,
            StepKind.ELICITATION: _elicitation_sites,
            StepKind.FOR_EACH: _for_each_sites,
        },
    )
)


def _value_sites(reader: str, site: str, value: GoValue) -> Iterator[TemplateSite]:
    if isinstance(value, str):
        yield TemplateSite(reader, site, value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _value_sites(reader, f"{site}.{key}", item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _value_sites(reader, f"{site}[{index}]", item)


def _output_sites(properties: Mapping[str, OutputProperty], site: str) -> Iterator[TemplateSite]:
    for name, prop in properties.items():
        path = f"{site}.{name}" if site else name
        if prop.value:
            yield TemplateSite(OUTPUT, path, prop.value)
        yield from _output_sites(prop.properties, path)


def dataflow(
    tool: CompositeToolConfig, sites: Iterable[TemplateSite] | None = None
) -> tuple[DataflowEdge, ...]:
    """Every read of ``.steps.<id>...`` from every template site (unparsable ones skipped);
    ``sites`` are the tool's, when already found.

    A read of the whole ``.steps`` map with a run-time key gives an edge to
    every other step.
    """
    edges: list[DataflowEdge] = []
    step_ids = [step.id for step in tool.steps]
    for site in template_sites(tool) if sites is None else sites:
        try:
            found = sorted(reads(parse(site.text, "expand")))
        except TemplateSyntaxError:
            continue
        for read in found:
            if read.path[:1] != ("steps",):
                continue
            if len(read.path) >= 2:
                candidates = [
                    DataflowEdge(site.reader, read.path[1], site.site, read.path, read.dynamic)
                ]
            elif read.dynamic:
                candidates = [
                    DataflowEdge(site.reader, step, site.site, read.path, True)
                    for step in step_ids
                    if step != site.reader
                ]
            else:
                candidates = []
            edges.extend(edge for edge in candidates if edge not in edges)
    return tuple(edges)
