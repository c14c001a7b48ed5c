"""The ``tools/list`` entry clients see for a composite tool and for its scripted tool.

vMCP lists a composite tool with its ``description``, its ``parameters`` as
``inputSchema``, its ``output`` as the JSON Schema ``buildOutputSchema`` makes
of it, and its annotations; a scripted tool is listed with its entry as
written (:class:`ListedTool`; docs/listing.md gives what THV-0051 leaves
open and what we assume).

vMCP advertises a composite tool with the hints it derives from the step tools'
annotations, merged under the tool's own ``annotations``
(:mod:`transpiler.composite.advertise`, the one home of those rules). THV-0051's
``ScriptedToolConfig`` has no ``annotations``: under the ``thv-0051`` target a
scripted tool is listed with none, and what clients no longer see is the entry's
``listing`` difference, which the migrated script declares (:func:`entry_classes`).
For a vMCP build that takes them (``thv-0051+annotations``) we assume it
advertises the ``annotations`` an entry holds, as written, and derives no floor
for a script (it cannot see which tools a script calls): ``migrate`` then writes
vMCP's advertised hints, so clients see what they saw (:func:`entry_annotations`).

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
    HiddenBecause,
    annotation_verdict,
    gate,
    implied_catalog,
    step_tool_references,
)
from transpiler.composite.output_schema import output_schema
from transpiler.config.model import CompositeToolConfig, ToolAnnotations
from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.config.tool_annotations import (
    FIELDS,
    TITLE,
    annotations_from_mcp,
    annotations_to_mcp,
)
from transpiler.deviations import Deviation

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


def migrated(
    tool: CompositeToolConfig,
    backends: BackendAnnotations | None = None,
    target: Target = DEFAULT_TARGET,
) -> ListedTool:
    """The entry of the scripted tool ``migrate`` writes for ``tool`` (``tool`` as written)
    under ``target``: its description and parameters, its output's schema,
    :func:`entry_annotations`."""
    output = output_schema(tool.output) if tool.output is not None else None
    hints = entry_annotations(tool, backends, target)
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


def entry_annotations(
    tool: CompositeToolConfig,
    backends: BackendAnnotations | None = None,
    target: Target = DEFAULT_TARGET,
) -> dict[str, Any] | None:
    """The ``annotations`` the scripted tool ``migrate`` writes for ``tool`` holds under
    ``target``: :func:`scripted_annotations` where the target takes annotations, else none."""
    return scripted_annotations(tool, backends) if target.annotations else None


def lost_annotations(
    tool: CompositeToolConfig,
    backends: BackendAnnotations | None = None,
    target: Target = DEFAULT_TARGET,
) -> dict[str, Any]:
    """What vMCP lists of ``tool``'s annotations (wire form) that the migrated entry does not:
    all of them under a target without annotations, nothing otherwise (or when vMCP hides the
    tool)."""
    verdict = advertised(tool, backends)
    if target.annotations or not isinstance(verdict, Advertised):
        return {}
    return annotations_to_mcp(verdict.annotations) or {}


def entry_classes(
    tool: CompositeToolConfig,
    backends: BackendAnnotations | None = None,
    target: Target = DEFAULT_TARGET,
) -> dict[Deviation, str]:
    """The classes the migrated entry's ``tools/list`` difference shows under ``target``, each
    with the sentence a script's header declares it with: ``listing`` when clients no longer see
    vMCP's annotations. (A missing hint reads as MCP's default, never as the safer value, so
    dropping annotations never shows ``listing-safety``.)"""
    lost = lost_annotations(tool, backends, target)
    if not lost:
        return {}
    shown = hints_text(tool, lost)
    text = (
        f"clients see no annotations: {target} gives a scripted tool none, where vMCP lists "
        f"{shown} (docs/target.md)"
    )
    return {Deviation.LISTING: text}


def hints_text(
    tool: CompositeToolConfig, wire: Mapping[str, Any], backends: BackendAnnotations | None = None
) -> str:
    """``title "Deploy", readOnlyHint false``: each value; with ``backends``, the step tools each
    hint vMCP derives (``tool`` does not write it) comes from, once when they are the same."""
    explicit = annotations_to_mcp(tool.annotations) or {}
    derived: dict[str, tuple[str, ...]] = {}
    if backends is not None:
        for key, value in wire.items():
            if key in FIELDS and key != TITLE and key not in explicit:
                derived[key] = floor_sources(tool, key, value, backends)
    shared = set(derived.values())
    parts = []
    for key, value in wire.items():
        sources = derived.get(key, ())
        each = f" (derived from {', '.join(sources)})" if sources and len(shared) > 1 else ""
        parts.append(f"{key} {_wire(value)}{each}")
    text = ", ".join(parts)
    if len(shared) == 1 and (sources := next(iter(shared))):
        text += f" ({', '.join(derived)} derived from {', '.join(sources)})"
    return text


def _wire(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value).lower()


def hidden_advice(tool: CompositeToolConfig, hidden: Hidden) -> str:
    """What vMCP does with a tool it hides, and the two ways out: fix what hides it, or retire
    it. Nothing can be checked against such a tool, so declaring a class is no way out."""
    if hidden.because is HiddenBecause.ANNOTATION_CONTRADICTION and hidden.hint is not None:
        explicit = annotations_to_mcp(tool.annotations) or {}
        where = tool.annotations.where.of(hidden.hint) if tool.annotations else tool.where.at
        fix = (
            f"fix its annotations: remove `{hidden.hint}: {_wire(explicit.get(hidden.hint))}` "
            f"(line {where.line}), or, if every step tool really is that safe, give --tools FILE "
            "with the backends' tools/list so the floor is derived from their annotations"
        )
    elif hidden.because is HiddenBecause.NAME_COLLISION:
        fix = "rename it (or the backend tool it collides with)"
    else:
        fix = "make every step tool routable"
    return (
        f"vMCP hides {tool.name} ({hidden.detail}): clients do not see it and every call of it "
        f"is answered not found, so no workflow runs and there is nothing to migrate or check. "
        f"Two ways out: {fix}; or retire it (delete it from the configuration: nobody can call "
        "it today)"
    )
