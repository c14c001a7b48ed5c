"""vMCP's advertise/call gate for composite tools (P5, S36).

Per session, vMCP lists (and lets a client call) a composite tool only when
every tool step resolves in the routing table, no composite name collides with
an advertised backend tool, and the tool's explicit ``annotations`` do not
look safer than the floor derived from its step tools. A hidden tool is
answered as ``not found: tool "<name>"``, an MCP error; no workflow runs.
The gate also yields the annotations vMCP advertises for a listed tool.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from transpiler.composite.routing import RoutingTable
from transpiler.config.model import (
    CompositeToolConfig,
    StepKind,
    ToolAnnotations,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.config.tool_annotations import annotations_to_mcp as annotations_to_mcp
from transpiler.golang.strconv import quote

#: The hints the contradiction check guards, in wire spelling.
READ_ONLY = "readOnlyHint"
DESTRUCTIVE = "destructiveHint"
OPEN_WORLD = "openWorldHint"


class HiddenBecause(StrEnum):
    """Why the gate hides a composite tool."""

    UNROUTABLE = "unroutable"
    NAME_COLLISION = "name-collision"
    ANNOTATION_CONTRADICTION = "annotation-contradiction"


@dataclass(frozen=True)
class Contradiction:
    """An explicit hint that would make the tool look safer than its floor allows."""

    hint: str
    message: str


@dataclass(frozen=True)
class Advertised:
    """The tool is listed and callable, with these annotations (None: no annotations)."""

    annotations: ToolAnnotations | None


@dataclass(frozen=True)
class Hidden:
    """The tool is neither listed nor callable."""

    because: HiddenBecause
    detail: str
    #: The contradicted hint (``readOnlyHint``...), for an annotation contradiction.
    hint: str | None = None


Verdict = Advertised | Hidden


@dataclass(frozen=True)
class BackendCatalog:
    """The backend tools one session sees: its routing table and their annotations.

    ``annotations`` is keyed by routing-table key; a key without an entry (or with
    None) declares no annotations.
    """

    routing: RoutingTable
    annotations: Mapping[str, ToolAnnotations | None]

    def step_annotations(self, reference: str) -> ToolAnnotations | None:
        """The annotations of the backend tool a step reference reaches, None when unknown.

        pkg/vmcp/core/core_vmcp.go ``stepAnnotationResolver``.
        """
        key = self.routing.resolve(reference)
        return None if key is None else self.annotations.get(key)


def not_found_error(name: str) -> str:
    """The MCP error a call of a hidden (or unknown) tool gets.

    pkg/vmcp/core/core_vmcp.go ``CallTool``: ``fmt.Errorf("%w: tool %q", vmcp.ErrNotFound, name)``.
    """
    return f"not found: tool {quote(name)}"


def step_tool_references(tool: CompositeToolConfig) -> tuple[str, ...]:
    """The ``tool:`` of every tool step and of every forEach inner tool step, in order.

    pkg/vmcp/internal/compositetools/workflow_converter.go ``allToolStepsAccessible`` and
    ``resolveStepAnnotations`` walk the steps this way.
    """
    return tuple(
        reference
        for step in tool.steps
        if step.kind is not None
        for reference in _REFERENCES[step.kind](step)
    )


def _inner_reference(step: WorkflowStepConfig) -> tuple[str, ...]:
    inner = step.inner_step
    return (inner.tool,) if inner is not None and inner.kind is StepKind.TOOL else ()


#: The tools each kind of step names, as the gate walks them.
_REFERENCES: Final[Mapping[StepKind, Callable[[WorkflowStepConfig], tuple[str, ...]]]] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: lambda step: (step.tool,),
        StepKind.ELICITATION: lambda step: (),
        StepKind.FOR_EACH: _inner_reference,
    },
)


def derive_floor(step_annotations: Sequence[ToolAnnotations | None]) -> ToolAnnotations | None:
    """The safety floor derived from the step tools' annotations (None: no tool steps).

    pkg/vmcp/internal/compositetools/annotations.go ``DeriveCompositeAnnotations``:
    read-only only if every step tool declares ``readOnlyHint: true``; destructive and
    open-world if any step tool declares so, leaves the hint out or is unknown (None);
    idempotent is never derived.
    """
    if not step_annotations:
        return None
    read_only, destructive, open_world = True, False, False
    for declared in step_annotations:
        if declared is None:
            read_only, destructive, open_world = False, True, True
            continue
        if declared.read_only_hint is not True:
            read_only = False
        if declared.destructive_hint is not False:
            destructive = True
        if declared.open_world_hint is not False:
            open_world = True
    return ToolAnnotations(
        read_only_hint=read_only, destructive_hint=destructive, open_world_hint=open_world
    )


def merge_annotations(
    floor: ToolAnnotations | None, explicit: ToolAnnotations | None
) -> ToolAnnotations | None:
    """The advertised annotations: each explicit non-None hint wins over the floor.

    pkg/vmcp/internal/compositetools/annotations.go ``MergeAnnotations``: a non-empty
    explicit title wins; None when both are None.
    """
    if floor is None and explicit is None:
        return None
    base = floor or ToolAnnotations()
    if explicit is None:
        return _plain(base)

    def pick(ours: bool | None, theirs: bool | None) -> bool | None:
        return ours if ours is not None else theirs

    return ToolAnnotations(
        title=explicit.title or base.title or None,
        read_only_hint=pick(explicit.read_only_hint, base.read_only_hint),
        destructive_hint=pick(explicit.destructive_hint, base.destructive_hint),
        idempotent_hint=pick(explicit.idempotent_hint, base.idempotent_hint),
        open_world_hint=pick(explicit.open_world_hint, base.open_world_hint),
    )


def find_contradiction(
    explicit: ToolAnnotations | None, floor: ToolAnnotations | None
) -> Contradiction | None:
    """The first explicit hint that looks safer than the floor, or None.

    pkg/vmcp/internal/compositetools/annotations.go ``CheckAnnotationContradiction``, in
    its order: ``readOnlyHint: true`` while the floor is not read-only;
    ``destructiveHint: false`` while the floor is destructive; ``openWorldHint: false``
    while the floor is open-world. ``idempotentHint`` never contradicts, and a more
    conservative explicit hint is allowed.
    """
    if explicit is None or floor is None:
        return None
    if explicit.read_only_hint is True and floor.read_only_hint is not True:
        return Contradiction(
            READ_ONLY,
            "annotations declare readOnlyHint=true, but not every step tool is read-only; "
            "the composite tool cannot be advertised as read-only",
        )
    if explicit.destructive_hint is False and floor.destructive_hint is True:
        return Contradiction(
            DESTRUCTIVE,
            "annotations declare destructiveHint=false, but at least one step tool is "
            "destructive or unknown; the composite tool cannot be advertised as non-destructive",
        )
    if explicit.open_world_hint is False and floor.open_world_hint is True:
        return Contradiction(
            OPEN_WORLD,
            "annotations declare openWorldHint=false, but at least one step tool is "
            "open-world or unknown; the composite tool cannot be advertised as closed-world",
        )
    return None


def annotation_verdict(tool: CompositeToolConfig, catalog: BackendCatalog) -> Verdict:
    """The annotation guardrail alone: advertised annotations, or hidden on a contradiction.

    pkg/vmcp/internal/compositetools/workflow_converter.go ``resolveCompositeAnnotations``.
    """
    floor = derive_floor([catalog.step_annotations(r) for r in step_tool_references(tool)])
    contradiction = find_contradiction(tool.annotations, floor)
    if contradiction is not None:
        return Hidden(
            HiddenBecause.ANNOTATION_CONTRADICTION, contradiction.message, contradiction.hint
        )
    return Advertised(merge_annotations(floor, tool.annotations))


def implied_catalog(
    tools: Sequence[CompositeToolConfig],
    annotations: Mapping[str, ToolAnnotations | None] | None = None,
) -> BackendCatalog:
    """The backends a configuration implies where the session's are not known: every tool its
    composite ``tools`` call (each exists, as a script's domain assumes) and every tool a
    ``tools/list`` names (``annotations``: theirs, by name; the others declare none)."""
    known = dict(annotations or {})
    called = (reference for tool in tools for reference in step_tool_references(tool))
    return BackendCatalog(RoutingTable.of_names(tuple(dict.fromkeys((*called, *known)))), known)


def unroutable_step_tool(tool: CompositeToolConfig, routing: RoutingTable) -> str | None:
    """The first step tool reference the routing table does not resolve, or None.

    pkg/vmcp/internal/compositetools/workflow_converter.go ``allToolStepsAccessible``.
    """
    for reference in step_tool_references(tool):
        if routing.resolve(reference) is None:
            return reference
    return None


def gate(tools: Sequence[CompositeToolConfig], catalog: BackendCatalog) -> dict[str, Verdict]:
    """Each composite tool's verdict, by name.

    pkg/vmcp/core/core_vmcp.go ``accessibleComposites``, in its order: the routing filter
    (``FilterWorkflowDefsForSession``); then the name check over the survivors
    (``ValidateNoToolConflicts``: one composite named like an advertised backend tool
    hides every composite); then the annotation guardrail
    (``FilterWorkflowDefsByAnnotations``).
    """
    verdicts: dict[str, Verdict] = {}
    survivors: list[CompositeToolConfig] = []
    for tool in tools:
        missing = unroutable_step_tool(tool, catalog.routing)
        if missing is None:
            survivors.append(tool)
        else:
            verdicts[tool.name] = Hidden(
                HiddenBecause.UNROUTABLE, f"step tool {missing} is not routable in this session"
            )
    backend_names = set(catalog.routing.names)
    conflicts = [tool.name for tool in survivors if tool.name in backend_names]
    for tool in survivors:
        if conflicts:
            verdicts[tool.name] = Hidden(
                HiddenBecause.NAME_COLLISION,
                "composite tool names conflict with backend tools: " + ", ".join(conflicts),
            )
        else:
            verdicts[tool.name] = annotation_verdict(tool, catalog)
    return verdicts


def _plain(annotations: ToolAnnotations) -> ToolAnnotations:
    """The hints and title alone (no source location)."""
    return ToolAnnotations(
        title=annotations.title or None,
        read_only_hint=annotations.read_only_hint,
        destructive_hint=annotations.destructive_hint,
        idempotent_hint=annotations.idempotent_hint,
        open_world_hint=annotations.open_world_hint,
    )
