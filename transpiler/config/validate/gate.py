"""Warnings for composite tools vMCP would not advertise (P5, S36).

With the backends' annotations (a ``--tools`` file) the floor is derived from
them; without, every step tool counts as unknown, vMCP's conservative floor.
Only the annotation contradiction is judged: which tools a session can route
to is not known from a config.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from transpiler.composite.advertise import BackendCatalog, Hidden, annotation_verdict
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
