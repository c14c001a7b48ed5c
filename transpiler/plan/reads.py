"""What a tool's templates read: of ``.params``, ``.workflow`` and each step's record.

The analyses both styles of emitter and the harness's scenario shapes use, from the
template sites (:mod:`transpiler.plan.dataflow`) and the reads of each template
(:mod:`transpiler.gotemplate.reads`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from transpiler.config.model import CompositeToolConfig
from transpiler.gotemplate import TemplateSyntaxError, parse
from transpiler.gotemplate.reads import ContextRead, reads
from transpiler.plan.dataflow import DataflowEdge, TemplateSite, template_sites

PARTS = ("output", "status", "error", "content")

SiteReads = tuple[tuple[str, ContextRead], ...]


def site_reads(tool: CompositeToolConfig, sites: Iterable[TemplateSite] | None = None) -> SiteReads:
    """Every context read of every template site, with the site's reader (a step id or output);
    ``sites`` are the tool's, when already found."""
    found: list[tuple[str, ContextRead]] = []
    for site in template_sites(tool) if sites is None else sites:
        try:
            template = parse(site.text)
        except TemplateSyntaxError:
            continue
        found.extend((site.reader, read) for read in sorted(reads(template)))
    return tuple(found)


def params_read(reads: SiteReads) -> frozenset[str] | None:
    """Parameter names templates read; None when they read ``.params`` as a whole."""
    names: set[str] = set()
    for _, read in reads:
        if read.path[:1] != ("params",):
            continue
        if len(read.path) == 1:
            return None
        names.add(read.path[1])
    return frozenset(names)


def reads_params(reads: SiteReads) -> bool:
    """Whether any template reads ``.params``."""
    return any(read.path[:1] in (("params",), ()) for _, read in reads)


def workflow_reads(reads: SiteReads, output_only: bool = False) -> frozenset[str]:
    """``.workflow`` keys templates read (``*`` for the whole map)."""
    keys: set[str] = set()
    for reader, read in reads:
        if output_only and reader != "output":
            continue
        if read.path[:1] == ("workflow",):
            keys.add(read.path[1] if len(read.path) > 1 else "*")
        elif not read.path:
            keys.add("*")
    return frozenset(keys)


@dataclass
class Needs:
    """Which parts of which steps something reads."""

    parts: dict[str, set[str]] = field(default_factory=dict)
    every_step: bool = False

    def of(self, step: str) -> set[str]:
        """The parts of ``step`` that are read."""
        if self.every_step:
            return set(PARTS)
        return self.parts.get(step, set())

    def add(self, step: str, part: str) -> None:
        """Record that ``part`` of ``step`` is read."""
        self.parts.setdefault(step, set()).add(part)


def reads_of(tool: CompositeToolConfig, reads: SiteReads, edges: tuple[DataflowEdge, ...]) -> Needs:
    """What the tool's templates read of each step (a dynamic read means everything)."""
    needs = Needs(every_step=any(read.path in ((), ("steps",)) for _, read in reads))
    step_ids = {step.id for step in tool.steps}
    for edge in edges:
        if edge.step not in step_ids:
            needs.every_step = True
            continue
        part = edge.path[2] if len(edge.path) > 2 else "*"
        for name in PARTS if part not in PARTS else (part,):
            needs.add(edge.step, name)
    return needs
