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
    scripted_tool_schema,
)
from transpiler.config.build import ModelBuilder
from transpiler.config.godecode import GoDecoder
from transpiler.config.model import DocumentKind, ToolOrigin
from transpiler.config.scripted import (
    SCRIPTED_FIELDS,
    SCRIPTED_KEYS,
    SCRIPTED_KIND,
    STARLARK_CONFIG,
    LoadedScripted,
    scripted_fields,
)
from transpiler.config.target import THV_0051, THV_0051_ANNOTATIONS, Target
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
#: The reference lists of a config, and the kind each names.
_REFERENCED: Final = {
    "compositeToolRefs": DocumentKind.COMPOSITE_TOOL_DEFINITION.value,
    "scriptedToolRefs": SCRIPTED_KIND,
}
#: Read but not judged: a scripted tool under a target without them (so that it can be named).
_EVERY_SCRIPTED_FIELD: Final = SCRIPTED_FIELDS


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
    file: str,
    document: Document,
    root: Node,
    room: int = MAX_TOOLS_PER_FILE,
    target: Target = THV_0051,
) -> ConfigUnit:
    """A vMCP config file's document, decoded strictly as ``config.Config`` (P1) of ``target``.

    ``room``: how many more tools the file may hold (:data:`MAX_TOOLS_PER_FILE`).
    """
    decoder = GoDecoder()
    builder = ModelBuilder(decoder, file, strict_yaml=True)
    tools: list[LoadedTool] = []
    scripted: list[LoadedScripted] = []
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
        elif key in _REFERENCED:
            if decoder.sequence(value, _ref_type(key)):
                message = (
                    f"{key} name {_REFERENCED[key]} resources; only the Kubernetes operator "
                    "resolves them, so those tools are not checked here"
                )
                diagnostics.append(_unresolvable(message, builder.location(key_node)))
        elif key in ("name", "groupRef"):
            decoder.string(value)
        elif key in (*SCRIPTED_KEYS, STARLARK_CONFIG) and not target.scripted:
            decoder.type_error(key_node, f"field {key} not found in type config.Config")
            diagnostics.append(_target_note(key, builder.location(key_node), target))
            if key == "scriptedTools":
                scripted += _scripted_items(file, document.index, value, "", target, room)
        elif key == "scriptedTools":
            items = decoder.sequence(value, "[]config.ScriptedToolConfig") or []
            for index, item in enumerate(_within(items, room - len(scripted), value)):
                path = f"scriptedTools[{index}]"
                found = builder.scripted_tool(item, path, scripted_fields(target))
                diagnostics += _annotations_notes(builder, item, target)
                if found is not None:
                    origin = ToolOrigin(file, document.index, DocumentKind.VMCP_CONFIG, path)
                    scripted.append(LoadedScripted(origin, found))
        elif key == STARLARK_CONFIG:
            builder.starlark_config(value, STARLARK_CONFIG)
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
        scripted=tuple(scripted),
        target=target,
    )


def _ref_type(key: str) -> str:
    """A reference list's Go type: ``compositeToolRefs`` is ``[]config.CompositeToolRef``."""
    return f"[]config.{key[0].upper()}{key[1:-1]}"


def _unresolvable(message: str, where: SourceLocation) -> Diagnostic:
    return Diagnostic("LOAD.refsUnresolvable", message, where, Severity.WARNING, phase="P1")


def _scripted_items(
    file: str, document: int, node: Node, container: str, target: Target, room: int
) -> list[LoadedScripted]:
    """Scripted tools ``target`` does not load, read (and not judged) so that what refuses
    them can name them."""
    builder = ModelBuilder(GoDecoder(kubernetes=True), file, strict_yaml=False)
    items = builder.decoder.sequence(node, "[]config.ScriptedToolConfig") or []
    kind = DocumentKind.VIRTUAL_MCP_SERVER if container else DocumentKind.VMCP_CONFIG
    found: list[LoadedScripted] = []
    for index, item in enumerate(_within(items, room, node)):
        path = f"{container}.scriptedTools[{index}]" if container else f"scriptedTools[{index}]"
        tool = builder.scripted_tool(item, path, _EVERY_SCRIPTED_FIELD)
        if tool is not None:
            found.append(LoadedScripted(ToolOrigin(file, document, kind, path), tool))
    return found


def _target_note(key: str, where: SourceLocation, target: Target) -> Diagnostic:
    """Why a THV-0051 key is refused: the target has no scripted tools."""
    message = (
        f"{key} is THV-0051's; the target {target} ({target.description}) does not load it: "
        f"--target {THV_0051} judges it as the RFC defines it"
    )
    return Diagnostic("LOAD.target", message, where, Severity.NOTE, phase="P1")


def _annotations_notes(builder: ModelBuilder, item: Node, target: Target) -> list[Diagnostic]:
    """A note on a scripted tool's ``annotations`` where the target refuses them."""
    if target.annotations:
        return []
    entry = keyed(item).get("annotations")
    if entry is None:
        return []
    message = (
        f"THV-0051's ScriptedToolConfig defines no annotations; --target "
        f"{THV_0051_ANNOTATIONS} judges them for a vMCP build that takes them"
    )
    return [
        Diagnostic("LOAD.target", message, builder.location(entry[0]), Severity.NOTE, phase="P1")
    ]


def read_definition(
    file: str, document: Document, keys: dict[str, tuple[Node, Node]], target: Target = THV_0051
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
        target=target,
    )


def read_scripted_definition(
    file: str, document: Document, keys: dict[str, tuple[Node, Node]], target: Target = THV_0051
) -> ConfigUnit:
    """A ``VirtualMCPScriptedToolDefinition``: admission against ``target``'s CRD, then its
    ``spec``. A target without scripted tools has no such kind: the API server refuses it."""
    name, namespace = metadata(keys)
    admission = Admission()
    decoder = GoDecoder(kubernetes=True)
    scripted: list[LoadedScripted] = []
    kind = DocumentKind.SCRIPTED_TOOL_DEFINITION
    if not target.scripted:
        version = scalar_text(keys["apiVersion"][1]) if "apiVersion" in keys else None
        message = (
            f'no matches for kind "{SCRIPTED_KIND}" in version "{version or ""}": the target '
            f"{target} ({target.description}) has no such resource (--target {THV_0051})"
        )
        line, column = keys["kind"][1].line, keys["kind"][1].column
        admission.issues.append(AdmissionIssue("K8S.kindUnknown", message, line, column))
    if "spec" not in keys:
        admission.issues.append(
            AdmissionIssue("K8S.admission.required", "spec: Required value", document.line, 1)
        )
    else:
        spec = keys["spec"][1]
        fields = scripted_fields(target) or _EVERY_SCRIPTED_FIELD
        if target.scripted:
            admission.check(spec, scripted_tool_schema(target), "spec")
        builder = ModelBuilder(decoder, file, strict_yaml=False)
        tool = builder.scripted_tool(spec, "spec", fields)
        if tool is not None:
            scripted.append(
                LoadedScripted(ToolOrigin(file, document.index, kind, "spec", name), tool)
            )
    return ConfigUnit(
        kind,
        file,
        document.index,
        name,
        SourceLocation(file, document.line, 1),
        (),
        decode_issues=tuple(decoder.issues),
        admission_issues=tuple(admission.issues),
        namespace=namespace,
        scripted=tuple(scripted),
        target=target,
    )


@dataclass(frozen=True)
class ServerDocument:
    """A ``VirtualMCPServer`` before its ``compositeToolRefs`` (and ``scriptedToolRefs``) are
    linked."""

    unit: ConfigUnit
    refs: tuple[tuple[str, SourceLocation], ...]
    scripted_refs: tuple[tuple[str, SourceLocation], ...] = ()


def read_server(
    file: str,
    document: Document,
    keys: dict[str, tuple[Node, Node]],
    room: int = MAX_TOOLS_PER_FILE,
    target: Target = THV_0051,
) -> ServerDocument:
    """A ``VirtualMCPServer``: its inline tools (``spec.config.compositeTools``, and under a
    ``target`` with scripted tools ``spec.config.scriptedTools``) and ref names."""
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
    refs = _refs(config, "compositeToolRefs", admission, builder)
    scripted: list[LoadedScripted] = []
    scripted_refs: list[tuple[str, SourceLocation]] = []
    if target.scripted and "scriptedTools" in config:
        node = config["scriptedTools"][1]
        path = "spec.config.scriptedTools"
        admission.check(node, Field("array", items=scripted_tool_schema(target)), path)
        items = decoder.sequence(node, "[]config.ScriptedToolConfig") or []
        for index, item in enumerate(_within(items, room - len(tools), node)):
            origin = ToolOrigin(
                file, document.index, DocumentKind.VIRTUAL_MCP_SERVER, f"{path}[{index}]", name
            )
            found = builder.scripted_tool(item, origin.path, scripted_fields(target))
            if found is not None:
                scripted.append(LoadedScripted(origin, found))
    if target.scripted:
        scripted_refs = _refs(config, "scriptedToolRefs", admission, builder)
    else:
        for key in SCRIPTED_KEYS:
            if key in config:
                key_node = config[key][0]
                admission.issues.append(
                    AdmissionIssue(
                        "K8S.admission.unknownField",
                        f'unknown field "spec.config.{key}"',
                        key_node.line,
                        key_node.column,
                    )
                )
        if "scriptedTools" in config:
            items_node = config["scriptedTools"][1]
            scripted = _scripted_items(
                file, document.index, items_node, "spec.config", target, room - len(tools)
            )
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
        scripted=tuple(scripted),
        target=target,
    )
    return ServerDocument(unit, tuple(refs), tuple(scripted_refs))


def _refs(
    config: dict[str, tuple[Node, Node]], key: str, admission: Admission, builder: ModelBuilder
) -> list[tuple[str, SourceLocation]]:
    """The names ``spec.config.<key>`` (``compositeToolRefs``, ``scriptedToolRefs``) lists."""
    if key not in config:
        return []
    node = config[key][1]
    admission.check(node, _REF_LIST, f"spec.config.{key}")
    found: list[tuple[str, SourceLocation]] = []
    go_type = (
        "[]config.CompositeToolRef" if key == "compositeToolRefs" else "[]config.ScriptedToolRef"
    )
    for item in builder.decoder.sequence(node, go_type) or []:
        ref = keyed(item)
        if "name" in ref:
            value = ref["name"][1]
            found.append((builder.decoder.string(value), builder.location(value)))
    return found


def _camel_case(key: str) -> str:
    """``composite_tools`` as vMCP's keys are written: ``compositeTools``."""
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
