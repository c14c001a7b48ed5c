"""The ``tools/list`` entry clients see for a composite tool and for its scripted tool.

vMCP lists a composite tool with its ``description``, its ``parameters`` as
``inputSchema``, its ``output`` as the JSON Schema ``buildOutputSchema`` makes
of it, and its annotations; a scripted tool is listed with its entry as
written (:class:`ListedTool`; docs/listing.md gives what THV-0051 leaves
open and what we assume).

vMCP advertises a composite tool with the hints it derives from the step tools'
annotations, merged under the tool's own ``annotations``
(:mod:`transpiler.composite.advertise`, the one home of those rules). THV-0051
says nothing of annotations on a scripted tool; we assume vMCP advertises
the ``annotations`` its entry holds, as written, and derives no floor for a
script (it cannot see which tools a script calls). So a migration keeps the
hints clients see only when the scripted entry holds vMCP's advertised hints
explicitly, which ``migrate`` writes (:func:`advertised`).

A backend whose annotations are unknown (no ``--tools`` file naming it)
counts as vMCP counts it: destructive and open-world, not read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transpiler.composite.advertise import (
    DESTRUCTIVE,
    OPEN_WORLD,
    READ_ONLY,
    Advertised,
    Hidden,
    annotation_verdict,
    gate,
    implied_catalog,
    step_tool_references,
)
from transpiler.composite.output_schema import output_schema
from transpiler.config.model import CompositeToolConfig, ToolAnnotations
from transpiler.config.tool_annotations import (
    FIELDS,
    TITLE,
    annotations_from_mcp,
    annotations_to_mcp,
)

#: A backend tool's annotations by its name (None: it declares none).
BackendAnnotations = Mapping[str, ToolAnnotations | None]
#: For each hint, the value that makes a tool look safer: a script showing it where vMCP
#: does not drops a safety hint.
_SAFER = {READ_ONLY: True, DESTRUCTIVE: False, OPEN_WORLD: False}


@dataclass(frozen=True)
class ListedTool:
    """One ``tools/list`` entry as a client sees it (plain JSON values; None: absent)."""

    name: str
    description: str | None
    input_schema: Any
    output_schema: Any
    annotations: ToolAnnotations | None


@dataclass(frozen=True)
class ScriptedEntry:
    """A scripted tool as its entry in the configuration declares it: what clients see of it
    (``listed``) and the ``timeout`` that bounds each run (not listed)."""

    listed: ListedTool
    timeout_ns: int


@dataclass(frozen=True)
class HintDifference:
    """One hint vMCP and the scripted tool advertise differently, and why vMCP has its value."""

    hint: str
    vmcp: bool | None
    script: bool | None
    derived_from: tuple[str, ...]

    @property
    def drops_safety(self) -> bool:
        """Whether the script looks safer than vMCP advertised the composite tool."""
        safer = _SAFER.get(self.hint)
        if safer is None:  # idempotentHint: no safer value
            return False
        # An absent hint reads as MCP's default, never the safer value.
        return self.script is safer and self.vmcp is not safer

    def render(self) -> str:
        """``destructiveHint: vMCP true (derived from github.merge_pull_request), script:
        absent``."""
        source = f" (derived from {', '.join(self.derived_from)})" if self.derived_from else ""
        return f"{self.hint}: vMCP {_shown(self.vmcp)}{source}, script: {_shown(self.script)}"

    def brief(self) -> str:
        """``destructiveHint: vMCP true, script: absent`` (:meth:`render` without where vMCP's
        value comes from)."""
        return f"{self.hint}: vMCP {_shown(self.vmcp)}, script: {_shown(self.script)}"


def advertised(
    tool: CompositeToolConfig, backends: BackendAnnotations | None = None
) -> Advertised | Hidden:
    """What vMCP lists for ``tool`` given its backends' annotations (unknown ones taint)."""
    return annotation_verdict(tool, implied_catalog([tool], backends))


def listed(
    tool: CompositeToolConfig,
    backends: BackendAnnotations | None = None,
    served: Sequence[CompositeToolConfig] = (),
) -> ListedTool | Hidden:
    """The entry vMCP lists for ``tool``, or why it hides it: its annotations contradict the
    floor, or its name or that of a composite tool ``served`` beside it is that of a backend
    tool (one the composite tools call, or of ``backends``, the backends' ``tools/list``)."""
    served = [tool, *(other for other in served if other.name != tool.name)]
    verdict = gate(served, implied_catalog(served, backends))[tool.name]
    if isinstance(verdict, Hidden):
        return verdict
    output = output_schema(tool.output) if tool.output is not None else None
    return ListedTool(
        tool.name, tool.description or None, tool.parameters, output, verdict.annotations
    )


def migrated(tool: CompositeToolConfig, backends: BackendAnnotations | None = None) -> ListedTool:
    """The entry of the scripted tool ``migrate`` writes for ``tool`` (``tool`` as written):
    its description and parameters, its output's schema, :func:`scripted_annotations`."""
    output = output_schema(tool.output) if tool.output is not None else None
    hints = scripted_annotations(tool, backends)
    return ListedTool(
        tool.name,
        tool.description or None,
        tool.parameters,
        output,
        None if hints is None else annotations_from_mcp(hints),
    )


def hint_differences(
    tool: CompositeToolConfig,
    scripted: ToolAnnotations | None,
    backends: BackendAnnotations | None = None,
) -> tuple[HintDifference, ...]:
    """Each hint the scripted tool (annotations ``scripted``) is listed with that differs from
    what vMCP lists the composite tool with; a hidden composite tool counts as listing none."""
    verdict = advertised(tool, backends)
    vmcp = annotations_to_mcp(verdict.annotations if isinstance(verdict, Advertised) else None)
    script = annotations_to_mcp(scripted)
    explicit = annotations_to_mcp(tool.annotations) or {}
    found = []
    for hint in (key for key in FIELDS if key != TITLE):
        ours, theirs = (vmcp or {}).get(hint), (script or {}).get(hint)
        if ours == theirs:
            continue
        derived = () if hint in explicit else floor_sources(tool, hint, ours, backends or {})
        found.append(HintDifference(hint, ours, theirs, derived))
    return tuple(found)


def floor_sources(
    tool: CompositeToolConfig, hint: str, value: bool | None, backends: BackendAnnotations
) -> tuple[str, ...]:
    """The step tools that gave the floor its value of ``hint`` (those that declare it so, or
    declare nothing)."""
    if value is None:
        return ()
    field_name = FIELDS[hint]
    wanted = value if hint != READ_ONLY else False
    found = []
    for reference in step_tool_references(tool):
        declared = backends.get(reference)
        own = None if declared is None else getattr(declared, field_name)
        if (own is None and hint != READ_ONLY) or own is wanted or (hint == READ_ONLY and not own):
            found.append(reference if declared is not None else f"{reference} (no annotations)")
    return tuple(dict.fromkeys(found))


def _shown(value: bool | None) -> str:
    return "absent" if value is None else str(value).lower()


def scripted_annotations(
    tool: CompositeToolConfig, backends: BackendAnnotations | None = None
) -> dict[str, Any] | None:
    """The ``annotations`` a scripted tool replacing ``tool`` holds so clients see what vMCP
    lists (wire form): vMCP's advertised hints, or, for a tool vMCP hides, those written."""
    verdict = advertised(tool, backends)
    chosen = verdict.annotations if isinstance(verdict, Advertised) else tool.annotations
    return annotations_to_mcp(chosen)
