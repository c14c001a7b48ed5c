"""Typed, frozen model of vMCP composite tools (``pkg/vmcp/config`` types).

Field names follow the Go structs in snake case; YAML keys are listed in
:data:`YAML_KEYS`. Strings, ints and bools hold Go zero values when a key is
absent (``""``, ``0``, ``False``); pointer-typed blocks (``onError``,
``output``...) are ``None`` when absent or ``null``. Free maps
(``parameters``, ``arguments``, ``schema``, ``defaultResults``) hold Go values
(:mod:`transpiler.golang.values`) or ``None``. Durations are int nanoseconds.

Every object carries a :class:`Where`: the location of the object and of each
key written in the source, so a diagnostic can point at the exact key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from transpiler.diagnostics import UNKNOWN_LOCATION, SourceLocation
from transpiler.golang.values import GoValue

STEP_TOOL: Final = "tool"
STEP_ELICITATION: Final = "elicitation"
STEP_FOR_EACH: Final = "forEach"
#: A step's deadline when it sets no ``timeout``: vMCP's default, 5 minutes (S60).
DEFAULT_STEP_TIMEOUT_NS: Final = 5 * 60 * 1_000_000_000


@dataclass(frozen=True)
class Where:
    """Where an object and each of its keys were written."""

    at: SourceLocation = UNKNOWN_LOCATION
    keys: Mapping[str, SourceLocation] = field(default_factory=lambda: MappingProxyType({}))

    def of(self, key: str) -> SourceLocation:
        """The location of ``key`` (YAML spelling), or of the object when the key is absent."""
        return self.keys.get(key, self.at)


NOWHERE: Final = Where()


@dataclass(frozen=True)
class ToolAnnotations:
    """``annotations``: MCP tool hints (advertising only, never execution)."""

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None
    where: Where = NOWHERE


@dataclass(frozen=True)
class StepErrorHandling:
    """``onError``: ``action`` is ``""`` (abort), ``abort``, ``continue`` or ``retry``."""

    action: str = ""
    retry_count: int = 0
    retry_delay: int = 0
    where: Where = NOWHERE


@dataclass(frozen=True)
class ElicitationResponseConfig:
    """``onDecline`` / ``onCancel``: ``abort``, ``continue`` or ``skip_remaining``."""

    action: str = ""
    where: Where = NOWHERE


@dataclass(frozen=True)
class OutputProperty:
    """One ``output.properties`` entry; ``properties`` nests, in source order."""

    type: str = ""
    description: str = ""
    value: str = ""
    properties: Mapping[str, OutputProperty] = field(default_factory=dict)
    default: GoValue = None
    where: Where = NOWHERE


@dataclass(frozen=True)
class OutputConfig:
    """``output``: the workflow's structured result."""

    properties: Mapping[str, OutputProperty] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    where: Where = NOWHERE


@dataclass(frozen=True)
class WorkflowStepConfig:
    """A step, and also the forEach inner ``step`` (the same Go type)."""

    id: str = ""
    type: str = ""
    tool: str = ""
    arguments: dict[str, GoValue] | None = None
    condition: str = ""
    depends_on: tuple[str, ...] = ()
    on_error: StepErrorHandling | None = None
    message: str = ""
    schema: dict[str, GoValue] | None = None
    timeout: int = 0
    on_decline: ElicitationResponseConfig | None = None
    on_cancel: ElicitationResponseConfig | None = None
    default_results: dict[str, GoValue] | None = None
    collection: str = ""
    item_var: str = ""
    max_parallel: int = 0
    max_iterations: int = 0
    inner_step: WorkflowStepConfig | None = None
    where: Where = NOWHERE

    @property
    def effective_type(self) -> str:
        """``type``, or ``tool`` when empty (how every vMCP check reads it)."""
        return self.type or STEP_TOOL

    @property
    def continues_on_error(self) -> bool:
        """``ContinueOnError``: ``onError.action`` is ``continue`` (failures are recorded and
        the run goes on)."""
        return self.on_error is not None and self.on_error.action == "continue"


@dataclass(frozen=True)
class CompositeToolConfig:
    """One composite tool (``compositeTools[]`` entry or a definition's ``spec``)."""

    name: str = ""
    description: str = ""
    parameters: dict[str, GoValue] | None = None
    timeout: int = 0
    steps: tuple[WorkflowStepConfig, ...] = ()
    output: OutputConfig | None = None
    annotations: ToolAnnotations | None = None
    where: Where = NOWHERE


class DocumentKind(StrEnum):
    """What kind of document a tool came from."""

    VMCP_CONFIG = "vmcp-config"
    VIRTUAL_MCP_SERVER = "VirtualMCPServer"
    COMPOSITE_TOOL_DEFINITION = "VirtualMCPCompositeToolDefinition"
    SCRIPTED_TOOL_DEFINITION = "VirtualMCPScriptedToolDefinition"


@dataclass(frozen=True)
class ToolOrigin:
    """Where a tool was found: file, document, document kind and path inside the document.

    ``path`` is how vMCP names the tool in messages (``compositeTools[0]``,
    ``spec``, ``spec.config.compositeTools[1]``). ``referenced_by`` names the
    ``VirtualMCPServer`` that pulls a definition in through ``compositeToolRefs``.
    """

    file: str
    document: int
    kind: DocumentKind
    path: str
    resource: str | None = None
    referenced_by: str | None = None

    @property
    def kubernetes(self) -> bool:
        """Whether the tool reaches vMCP through the operator (CRD admission applies)."""
        return self.kind is not DocumentKind.VMCP_CONFIG


#: YAML spelling of each model field, per model class.
YAML_KEYS: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "CompositeToolConfig": MappingProxyType(
            {
                "name": "name",
                "description": "description",
                "parameters": "parameters",
                "timeout": "timeout",
                "steps": "steps",
                "output": "output",
                "annotations": "annotations",
            }
        ),
        "WorkflowStepConfig": MappingProxyType(
            {
                "id": "id",
                "type": "type",
                "tool": "tool",
                "arguments": "arguments",
                "condition": "condition",
                "dependsOn": "depends_on",
                "onError": "on_error",
                "message": "message",
                "schema": "schema",
                "timeout": "timeout",
                "onDecline": "on_decline",
                "onCancel": "on_cancel",
                "defaultResults": "default_results",
                "collection": "collection",
                "itemVar": "item_var",
                "maxParallel": "max_parallel",
                "maxIterations": "max_iterations",
                "step": "inner_step",
            }
        ),
        "StepErrorHandling": MappingProxyType(
            {"action": "action", "retryCount": "retry_count", "retryDelay": "retry_delay"}
        ),
        "ElicitationResponseConfig": MappingProxyType({"action": "action"}),
        "OutputConfig": MappingProxyType({"properties": "properties", "required": "required"}),
        "OutputProperty": MappingProxyType(
            {
                "type": "type",
                "description": "description",
                "value": "value",
                "properties": "properties",
                "default": "default",
            }
        ),
        "ToolAnnotationsOverride": MappingProxyType(
            {
                "title": "title",
                "readOnlyHint": "read_only_hint",
                "destructiveHint": "destructive_hint",
                "idempotentHint": "idempotent_hint",
                "openWorldHint": "open_world_hint",
            }
        ),
    }
)
