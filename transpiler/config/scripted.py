"""THV-0051's scripted tools: the one model of what a ``scriptedTools`` entry and a
``VirtualMCPScriptedToolDefinition`` hold.

The RFC's ``ScriptedToolConfig`` (``pkg/vmcp/config``) has ``name``,
``description``, ``parameters`` and ``output`` (JSON Schemas), ``timeout`` (a
string the engine parses as a Go duration), and the script: ``script`` inline
or ``scriptFile``, one or the other. The Kubernetes resource
``VirtualMCPScriptedToolDefinition`` "mirrors" it: its ``spec`` is that struct,
as a ``VirtualMCPCompositeToolDefinition``'s is ``CompositeToolConfig``. The
field table :data:`SCRIPTED_FIELDS` is what the loader decodes and the admission
schema admits; ``annotations`` is in it only for a target that takes them
(:mod:`transpiler.config.target`). Every rule the RFC leaves open and the choice
made here is in docs/target.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from transpiler.config.model import NOWHERE, DocumentKind, ToolAnnotations, ToolOrigin, Where
from transpiler.config.target import Target
from transpiler.golang.values import GoValue

#: The Go type a strict decoder names in ``field X not found in type ...``.
GO_TYPE: Final = "config.ScriptedToolConfig"
#: The top-level config keys THV-0051 adds (``starlarkConfig``: the engine's options).
SCRIPTED_KEYS: Final = ("scriptedTools", "scriptedToolRefs")
STARLARK_CONFIG: Final = "starlarkConfig"
#: ``starlarkConfig``'s keys and the Go type of each (the RFC's "Configuration Changes").
STARLARK_CONFIG_FIELDS: Final = {
    "maxExecutionSteps": "int",
    "enableRecursion": "bool",
    "enableWhile": "bool",
    "libraryPaths": "[]string",
}
#: Reads a script file: its text, or :class:`~transpiler.reading.UnreadableFile`.
ScriptReader = Callable[[Path], str]
#: The largest script the engine loads ("Script source size: 1 MB, checked at config load").
MAX_SCRIPT_BYTES: Final = 1024 * 1024
SCRIPTED_KIND: Final = DocumentKind.SCRIPTED_TOOL_DEFINITION.value


class ValueKind(StrEnum):
    """How a field's value is read: the loader's decoder and the CRD schema each map every
    member."""

    TEXT = "text"
    #: Text Go's ``time.ParseDuration`` must read (the CRD: its duration pattern).
    DURATION = "duration"
    #: A JSON Schema: any object.
    SCHEMA = "schema"
    ANNOTATIONS = "annotations"


@dataclass(frozen=True)
class ScriptedField:
    """One key of a scripted tool: its YAML spelling, the model attribute, how it is read, and
    whether only a target that takes annotations knows it."""

    key: str
    attribute: str
    kind: ValueKind
    annotations_only: bool = False


#: Every key of ``ScriptedToolConfig``, in the RFC's order.
SCRIPTED_FIELDS: Final = (
    ScriptedField("name", "name", ValueKind.TEXT),
    ScriptedField("description", "description", ValueKind.TEXT),
    ScriptedField("parameters", "parameters", ValueKind.SCHEMA),
    ScriptedField("output", "output", ValueKind.SCHEMA),
    ScriptedField("timeout", "timeout", ValueKind.DURATION),
    ScriptedField("script", "script", ValueKind.TEXT),
    ScriptedField("scriptFile", "script_file", ValueKind.TEXT),
    ScriptedField("annotations", "annotations", ValueKind.ANNOTATIONS, annotations_only=True),
)


def scripted_fields(target: Target) -> tuple[ScriptedField, ...]:
    """The keys a scripted tool may have under ``target`` (none for a target without
    scripted tools)."""
    if not target.scripted:
        return ()
    return tuple(f for f in SCRIPTED_FIELDS if target.annotations or not f.annotations_only)


@dataclass(frozen=True)
class ScriptedToolConfig:
    """One scripted tool as written (Go zero values for absent keys: ``""``, None)."""

    name: str = ""
    description: str = ""
    parameters: dict[str, GoValue] | None = None
    output: dict[str, GoValue] | None = None
    timeout: str = ""
    script: str = ""
    script_file: str = ""
    annotations: ToolAnnotations | None = None
    where: Where = NOWHERE


@dataclass(frozen=True)
class LoadedScripted:
    """A scripted tool and where it was found (``origin.path``: ``scriptedTools[0]``,
    ``spec.config.scriptedTools[1]``, ``spec``)."""

    origin: ToolOrigin
    config: ScriptedToolConfig

    @property
    def container(self) -> str:
        """The config mapping the tool is listed in (``""``, ``spec.config``); ``spec`` for a
        definition."""
        if self.origin.kind is DocumentKind.SCRIPTED_TOOL_DEFINITION:
            return "spec"
        return self.origin.path.rpartition("scriptedTools[")[0].rstrip(".")
