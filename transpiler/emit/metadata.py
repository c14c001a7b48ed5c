"""What the tool's templates read of ``.params`` and ``.workflow``.

``.workflow`` (S73) is partly out of a script's reach: vMCP gives each run a
random id and a start time, and measures the duration; a script has no clock
and no run id, so it uses fixed placeholders and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import RUN_ID_PLACEHOLDER, START_TIME_PLACEHOLDER
from transpiler.emit.layout import Code
from transpiler.emit.literals import string_literal
from transpiler.gotemplate import TemplateSyntaxError, parse
from transpiler.gotemplate.reads import ContextRead, reads
from transpiler.plan.dataflow import template_sites

if TYPE_CHECKING:
    from transpiler.emit.scope import EmitState



SiteReads = tuple[tuple[str, ContextRead], ...]


def site_reads(tool: CompositeToolConfig) -> SiteReads:
    """Every context read of every template site, with the site's reader (a step id or output)."""
    found: list[tuple[str, ContextRead]] = []
    for site in template_sites(tool):
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


def workflow_map(state: EmitState, status: str, step_count: str) -> Code:
    """``.workflow`` as the script can know it, noting what it cannot."""
    read = workflow_reads(state.site_reads, output_only=status == "completed")
    if read & {"id", "*"}:
        state.note(
            "deviation",
            "workflow-metadata",
            ".workflow.id: vMCP gives every run a random UUID; the script uses "
            + RUN_ID_PLACEHOLDER,
        )
    if read & {"start_time", "*"}:
        state.note(
            "deviation",
            "workflow-metadata",
            f".workflow.start_time: the script has no clock and uses {START_TIME_PLACEHOLDER}",
        )
    if status == "completed" and read & {"duration_ms", "*"}:
        state.note(
            "deviation",
            "workflow-metadata",
            ".workflow.duration_ms in the output: the script has no clock and reports 0",
        )
    return Code(
        "{"
        f'"id": {string_literal(RUN_ID_PLACEHOLDER)}, "duration_ms": 0, '
        f'"step_count": {step_count}, "status": {string_literal(status)}, '
        f'"start_time": {string_literal(START_TIME_PLACEHOLDER)}'
        "}"
    )
