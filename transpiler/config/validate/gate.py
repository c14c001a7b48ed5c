"""Warnings for composite tools vMCP would not advertise (P5, S36).

With the backends' annotations (a ``--tools`` file) the floor is derived from
them; without, every step tool counts as unknown, vMCP's conservative floor.
The annotation contradiction is judged per tool, and the name collision per
unit (a composite tool named like a backend tool some composite tool of the
unit calls, or the ``--tools`` file lists, hides every composite tool there);
which tools a session can route to is not known from a config.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from transpiler.composite.advertise import (
    BackendCatalog,
    Hidden,
    annotation_verdict,
    step_tool_references,
)
from transpiler.composite.routing import RoutingTable
from transpiler.config.model import ToolAnnotations
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity


def catalog_of(annotations: Mapping[str, ToolAnnotations | None] | None) -> BackendCatalog:
    """The backends as a ``--tools`` file describes them (none known without one)."""
    known = annotations or {}
    return BackendCatalog(RoutingTable.of_names(known), known)


def gate_warnings(tool: LoadedTool, catalog: BackendCatalog) -> Iterator[Diagnostic]:
    """A warning when the tool's explicit annotations contradict its derived floor."""
    config = tool.effective
    verdict = annotation_verdict(config, catalog)
    if not isinstance(verdict, Hidden) or verdict.hint is None:
        return
    annotations = config.annotations
    where = annotations.where.of(verdict.hint) if annotations is not None else config.where.at
    yield Diagnostic(
        "S36",
        f"vMCP will not list or run this tool ({verdict.hint}): {verdict.detail}",
        where,
        Severity.WARNING,
        config.name or None,
        None,
        "P5",
    )


def collision_warnings(
    tools: Sequence[LoadedTool], catalog: BackendCatalog
) -> Iterator[Diagnostic]:
    """A warning on each composite tool of a unit named like a backend tool: vMCP then lists
    none of the unit's composite tools (pkg/vmcp/core/core_vmcp.go ``accessibleComposites``)."""
    backends = {reference for tool in tools for reference in step_tool_references(tool.effective)}
    backends |= set(catalog.routing.names)
    for tool in tools:
        config = tool.effective
        if config.name in backends:
            yield Diagnostic(
                "S36",
                f"vMCP will list or run none of the composite tools beside this one: its name "
                f"{config.name} is also a backend tool's",
                config.where.at,
                Severity.WARNING,
                config.name or None,
                None,
                "P5",
            )
