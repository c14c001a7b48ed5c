"""What loading produces: tools with their origin, grouped in the units vMCP judges together."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Final

from transpiler.config.admission import AdmissionIssue
from transpiler.config.godecode import DecodeIssue
from transpiler.config.model import (
    CompositeToolConfig,
    DocumentKind,
    StepKind,
    ToolOrigin,
    WorkflowStepConfig,
)
from transpiler.config.scripted import LoadedScripted
from transpiler.config.target import VMCP, Target
from transpiler.diagnostics import Diagnostic, SourceLocation
from transpiler.golang.duration import MINUTE

_ELICITATION_DEFAULT_TIMEOUT: Final = 5 * MINUTE


@dataclass(frozen=True)
class LoadedTool:
    """A composite tool as written (``config``) and as vMCP validates and runs it (``effective``).

    ``effective`` has the defaults of the tool's path applied: the API
    server's for manifests (S0), then the YAML loader's (S10, S11).
    """

    origin: ToolOrigin
    config: CompositeToolConfig
    effective: CompositeToolConfig


@dataclass(frozen=True)
class ConfigUnit:
    """What vMCP judges together: a config file's tools, a ``VirtualMCPServer``'s, or a definition.

    ``tools`` are in vMCP's order (for a server: inline first, then referenced
    definitions), and so are ``scripted`` (THV-0051's scripted tools, read under a
    ``target`` that has them). ``decode_issues`` are yaml.v3's errors,
    ``admission_issues`` the API server's (manifests only). ``referenced`` marks a
    definition that a ``VirtualMCPServer`` in the input pulls in (its serve-time checks
    run there). ``target`` is the vMCP the unit is judged against.
    """

    kind: DocumentKind
    file: str
    document: int
    resource: str | None
    location: SourceLocation
    tools: tuple[LoadedTool, ...]
    decode_issues: tuple[DecodeIssue, ...] = ()
    admission_issues: tuple[AdmissionIssue, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    referenced: bool = False
    namespace: str = "default"
    scripted: tuple[LoadedScripted, ...] = ()
    target: Target = VMCP

    @property
    def label(self) -> str:
        """``vmcp-config``, ``VirtualMCPServer/name``..."""
        if self.resource is None:
            return self.kind.value
        return f"{self.kind.value}/{self.resource}"


@dataclass(frozen=True)
class LoadResult:
    """All the inputs gave: units, notes on skipped documents, errors, unreadable files."""

    units: tuple[ConfigUnit, ...]
    notes: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]
    unreadable: tuple[Diagnostic, ...]

    @property
    def input_errors(self) -> tuple[Diagnostic, ...]:
        """Inputs that cannot be read: unreadable or too large, or not YAML the loader can parse.

        Every command exits 2 when there is one (docs/reference.md, "Exit codes").
        """
        return (*self.unreadable, *self.errors)

    @cached_property
    def tools(self) -> tuple[LoadedTool, ...]:
        """Every tool once (a referenced definition under its own document)."""
        return tuple(
            tool for unit in self.units for tool in unit.tools if tool.origin.referenced_by is None
        )

    @cached_property
    def scripted(self) -> tuple[LoadedScripted, ...]:
        """Every scripted tool once (a referenced definition under its own document)."""
        return tuple(
            tool
            for unit in self.units
            for tool in unit.scripted
            if tool.origin.referenced_by is None
        )

    @cached_property
    def tools_by_name(self) -> dict[str, tuple[LoadedTool, ...]]:
        """:attr:`tools` by name (a name defined twice has both, in order)."""
        found: dict[str, tuple[LoadedTool, ...]] = {}
        for tool in self.tools:
            found[tool.config.name] = (*found.get(tool.config.name, ()), tool)
        return found


def apply_loader_defaults(tool: CompositeToolConfig) -> CompositeToolConfig:
    """P1 post-processing (S10, S11): infer ``type: tool``; elicitation timeout 0 becomes 5m."""
    return replace(tool, steps=tuple(_loader_step(step) for step in tool.steps))


def _loader_step(step: WorkflowStepConfig) -> WorkflowStepConfig:
    step_type = StepKind.TOOL.value if not step.type and step.tool else step.type
    timeout = step.timeout
    if step_type == StepKind.ELICITATION and timeout == 0:
        timeout = _ELICITATION_DEFAULT_TIMEOUT
    return replace(step, type=step_type, timeout=timeout)
