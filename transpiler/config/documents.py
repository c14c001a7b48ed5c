"""Read one YAML document of a known kind into a :class:`~transpiler.config.units.ConfigUnit`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from transpiler.config.admission import (
    COMPOSITE_TOOL,
    COMPOSITE_TOOL_REF,
    Admission,
    AdmissionIssue,
    Field,
    apply_crd_defaults,
)
from transpiler.config.build import ModelBuilder
from transpiler.config.godecode import GoDecoder
from transpiler.config.model import DocumentKind, ToolOrigin
from transpiler.config.units import ConfigUnit, LoadedTool, apply_loader_defaults
from transpiler.config.yamlv3 import Document, Kind, Node, YamlLimitError
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation

#: Top-level keys of vMCP's ``config.Config`` (yaml tags).
CONFIG_KEYS: Final = frozenset(
    (
        "name", "groupRef", "backends", "incomingAuth", "outgoingAuth", "aggregation",
        "compositeTools", "compositeToolRefs", "operational", "metadata", "telemetry", "audit",
        "optimizer", "codeMode", "sessionStorage", "rateLimiting", "passthroughHeaders",
    )
)  # fmt: skip
#: Most composite tools read from one file (each costs a few kilobytes to judge).
MAX_TOOLS_PER_FILE: Final = 10_000
_TOOL_LIST: Final = Field("array", items=COMPOSITE_TOOL)
_REF_LIST: Final = Field("array", items=COMPOSITE_TOOL_REF)


def keyed(node: Node | None) -> dict[str, tuple[Node, Node]]:
    """A mapping's entries by key text (no decoding); empty for anything but a mapping."""
    if node is None or node.resolved().kind is not Kind.MAPPING:
        return {}
    content = node.resolved().content
    pairs = (content[i : i + 2] for i in range(0, len(content) - 1, 2))
    return {key.resolved().value: (key, value) for key, value in pairs}


def scalar_text(node: Node | None) -> str | None:
    """A scalar's text, or ``None``."""
    if node is None or node.resolved().kind is not Kind.SCALAR:
        return None
    return node.resolved().value


def metadata(keys: dict[str, tuple[Node, Node]]) -> tuple[str | None, str]:
    """``metadata.name`` and ``metadata.namespace`` (``default`` when absent)."""
    fields = keyed(keys["metadata"][1]) if "metadata" in keys else {}
    name = scalar_text(fields["name"][1]) if "name" in fields else None
    namespace = scalar_text(fields["namespace"][1]) if "namespace" in fields else None
    return name, namespace or "default"


def too_many_tools(line: int, column: int) -> YamlLimitError:
    """The error for a file past :data:`MAX_TOOLS_PER_FILE`."""
    message = f"more than {MAX_TOOLS_PER_FILE} composite tools in one file (a transpiler limit)"
    return YamlLimitError(message, line, column, "LIMIT.tools")


def _within(items: list[Node], room: int, node: Node) -> list[Node]:
    """``items``, unless they are more tools than the file has room for."""
    if len(items) > room:
        raise too_many_tools(node.line, node.column)
    return items


def read_vmcp_config(
    file: str, document: Document, root: Node, room: int = MAX_TOOLS_PER_FILE
) -> ConfigUnit:
    """A vMCP config file's document, decoded strictly as ``config.Config`` (P1).

    ``room``: how many more tools the file may hold (:data:`MAX_TOOLS_PER_FILE`).
    """
    decoder = GoDecoder()
    builder = ModelBuilder(decoder, file, strict_yaml=True)
    tools: list[LoadedTool] = []
    diagnostics: list[Diagnostic] = []
    for key_node, value in decoder.pairs(root):
        key = decoder.string(key_node)
        if key == "compositeTools":
            items = decoder.sequence(value, "[]config.CompositeToolConfig") or []
            for index, item in enumerate(_within(items, room, value)):
                path = f"compositeTools[{index}]"
                tool = builder.composite_tool(item, path)
                if tool is not None:
                    origin = ToolOrigin(file, document.index, DocumentKind.VMCP_CONFIG, path)
                    tools.append(LoadedTool(origin, tool, apply_loader_defaults(tool)))
        elif key == "compositeToolRefs":
            if decoder.sequence(value, "[]config.CompositeToolRef"):
                message = (
                    "compositeToolRefs name VirtualMCPCompositeToolDefinition resources; only the "
                    "Kubernetes operator resolves them, so those tools are not checked here"
                )
                where = builder.location(key_node)
                diagnostics.append(
                    Diagnostic(
                        "LOAD.refsUnresolvable", message, where, Severity.WARNING, phase="P1"
                    )
                )
        elif key in ("name", "groupRef"):
            decoder.string(value)
        elif key not in CONFIG_KEYS:
            decoder.type_error(key_node, f"field {key} not found in type config.Config")
            camel = _camel_case(key)
            if camel != key and camel in CONFIG_KEYS:
                message = (
                    f"vMCP's config keys are camelCase: {camel}, not {key} (the legacy "
                    "snake_case layout is not read)"
                )
                where = builder.location(key_node)
                diagnostics.append(
                    Diagnostic("LOAD.snakeCase", message, where, Severity.NOTE, phase="P1")
                )
    return ConfigUnit(
        DocumentKind.VMCP_CONFIG,
        file,
        document.index,
        None,
        SourceLocation(file, document.line, 1),
        tuple(tools),
        decode_issues=tuple(decoder.issues),
        diagnostics=tuple(diagnostics),
    )


def read_definition(
    file: str, document: Document, keys: dict[str, tuple[Node, Node]]
) -> ConfigUnit:
    """A ``VirtualMCPCompositeToolDefinition``: admission, then its ``spec`` with CRD defaults."""
    name, namespace = metadata(keys)
    admission = Admission()
    decoder = GoDecoder(kubernetes=True)
    tools: list[LoadedTool] = []
    if "spec" not in keys:
        admission.issues.append(
            AdmissionIssue("K8S.admission.required", "spec: Required value", document.line, 1)
        )
    else:
        spec = keys["spec"][1]
        admission.check(spec, COMPOSITE_TOOL, "spec")
        tool = ModelBuilder(decoder, file, strict_yaml=False).composite_tool(spec, "spec")
        if tool is not None:
            kind = DocumentKind.COMPOSITE_TOOL_DEFINITION
            origin = ToolOrigin(file, document.index, kind, "spec", name)
            tools.append(LoadedTool(origin, tool, apply_loader_defaults(apply_crd_defaults(tool))))
    return ConfigUnit(
        DocumentKind.COMPOSITE_TOOL_DEFINITION,
        file,
        document.index,
        name,
        SourceLocation(file, document.line, 1),
        tuple(tools),
        decode_issues=tuple(decoder.issues),
        admission_issues=tuple(admission.issues),
        namespace=namespace,
    )


@dataclass(frozen=True)
class ServerDocument:
    """A ``VirtualMCPServer`` before its ``compositeToolRefs`` are linked."""

    unit: ConfigUnit
    refs: tuple[tuple[str, SourceLocation], ...]


def read_server(
    file: str,
    document: Document,
    keys: dict[str, tuple[Node, Node]],
    room: int = MAX_TOOLS_PER_FILE,
) -> ServerDocument:
    """A ``VirtualMCPServer``: its inline tools (``spec.config.compositeTools``) and ref names."""
    name, namespace = metadata(keys)
    admission = Admission()
    decoder = GoDecoder(kubernetes=True)
    builder = ModelBuilder(decoder, file, strict_yaml=False)
    spec = keyed(keys["spec"][1]) if "spec" in keys else {}
    config = keyed(spec["config"][1]) if "config" in spec else {}
    sources = (
        [("spec.config.compositeTools", config["compositeTools"][1])]
        if "compositeTools" in config
        else []
    )
    if "compositeTools" in spec:
        legacy_key, legacy_value = spec["compositeTools"]
        message = (
            'unknown field "spec.compositeTools" (composite tools live in '
            "spec.config.compositeTools since the 2026-01 CRD layout; "
            "these are checked here as if moved there)"
        )
        admission.issues.append(
            AdmissionIssue(
                "K8S.admission.unknownField", message, legacy_key.line, legacy_key.column
            )
        )
        sources.append(("spec.compositeTools", legacy_value))
    tools: list[LoadedTool] = []
    for path, node in sources:
        admission.check(node, _TOOL_LIST, path)
        items = decoder.sequence(node, "[]config.CompositeToolConfig") or []
        for index, item in enumerate(_within(items, room - len(tools), node)):
            origin = ToolOrigin(
                file, document.index, DocumentKind.VIRTUAL_MCP_SERVER, f"{path}[{index}]", name
            )
            tool = builder.composite_tool(item, origin.path)
            if tool is not None:
                tools.append(
                    LoadedTool(origin, tool, apply_loader_defaults(apply_crd_defaults(tool)))
                )
    refs: list[tuple[str, SourceLocation]] = []
    if "compositeToolRefs" in config:
        node = config["compositeToolRefs"][1]
        admission.check(node, _REF_LIST, "spec.config.compositeToolRefs")
        for item in decoder.sequence(node, "[]config.CompositeToolRef") or []:
            ref = keyed(item)
            if "name" in ref:
                refs.append((decoder.string(ref["name"][1]), builder.location(ref["name"][1])))
    unit = ConfigUnit(
        DocumentKind.VIRTUAL_MCP_SERVER,
        file,
        document.index,
        name,
        SourceLocation(file, document.line, 1),
        tuple(tools),
        decode_issues=tuple(decoder.issues),
        admission_issues=tuple(admission.issues),
        namespace=namespace,
    )
    return ServerDocument(unit, tuple(refs))


def _camel_case(key: str) -> str:
    """``composite_tools`` as vMCP's keys are written: ``compositeTools``."""
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
