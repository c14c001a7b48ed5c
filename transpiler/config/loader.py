"""Find, read and classify composite tools in YAML/JSON files and Kubernetes manifests.

Inputs are files or directories (searched recursively for ``*.yaml``,
``*.yml`` and ``*.json``, in sorted order). Each YAML document is one of:

* a vMCP config (top-level ``compositeTools``/``compositeToolRefs`` or other
  ``Config`` keys), decoded with yaml.v3's strict rules (P1);
* a ``VirtualMCPServer``: inline ``spec.config.compositeTools`` first, then
  ``spec.config.compositeToolRefs`` resolved against definitions in the same
  input, as the operator orders them;
* a ``VirtualMCPCompositeToolDefinition``: its ``spec`` with admission defaults;
* a ``VirtualMCPScriptedToolDefinition``: THV-0051's scripted tool;
* a manifest snippet without ``apiVersion``/``kind``, read by its shape;
* anything else (step-list fragments included), skipped with a note.

Each file is read for one :class:`~transpiler.config.target.Target`: the one
given, else ``thv-0051`` for a file that holds scripted tools (a
``scriptedTools``/``scriptedToolRefs`` key, a scripted definition) and ``vmcp``
for any other (:func:`target_of`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from transpiler.config.documents import (
    CONFIG_KEYS,
    MAX_TOOLS_PER_FILE,
    ServerDocument,
    keyed,
    read_definition,
    read_scripted_definition,
    read_server,
    read_vmcp_config,
    scalar_text,
    too_many_tools,
)
from transpiler.config.godecode import DecodeAborted
from transpiler.config.model import DocumentKind
from transpiler.config.scripted import SCRIPTED_KEYS, SCRIPTED_KIND
from transpiler.config.target import THV_0051, VMCP, Target
from transpiler.config.units import ConfigUnit, LoadedTool, LoadResult
from transpiler.config.yamlv3 import (
    Document,
    Kind,
    Node,
    YamlLimitError,
    YamlSyntaxError,
    parse_documents,
)
from transpiler.diagnostics import Diagnostic, InputError, Severity, SourceLocation
from transpiler.reading import MAX_FILE_BYTES, UnreadableFile, read_bytes

__all__ = [
    "MAX_FILE_BYTES",
    "ConfigUnit",
    "Found",
    "LoadResult",
    "LoadedTool",
    "discover",
    "load_bytes",
    "load_paths",
    "read_source",
]

#: Most YAML documents read from one file.
MAX_DOCUMENTS_PER_FILE: Final = 10_000
SUFFIXES: Final = (".yaml", ".yml", ".json")

Source = tuple[str, bytes | None, str | None]


@dataclass(frozen=True)
class Found:
    """A file to read, or a directory that cannot be listed (``problem`` says why)."""

    path: Path
    problem: str | None = None


def discover(paths: Sequence[str | Path]) -> list[Found]:
    """Files named by ``paths``; directories give their ``*.yaml *.yml *.json`` files, sorted.

    A directory (or subdirectory) that cannot be listed is found too, with the
    reason, so that nothing under it passes unseen; symbolic links to
    directories are not followed. An empty path is refused, not read as the
    current directory.
    """
    found: list[Found] = []
    for raw in paths:
        if raw == "":
            raise InputError("an empty path names no file or directory (an unset variable?)")
        path = Path(raw)
        if path.is_dir():
            found.extend(_walk(path))
        elif path.exists():
            found.append(Found(path))  # if it is no regular file, read_source says so
        else:
            raise InputError(f"no such file or directory: {raw}")
    return found


def _walk(top: Path) -> list[Found]:
    files: list[Path] = []
    unlisted: list[Found] = []

    def unlistable(error: OSError) -> None:
        why = error.strerror or str(error)
        unlisted.append(Found(Path(error.filename or top), f"cannot list directory: {why}"))

    for directory, _, names in os.walk(top, onerror=unlistable):
        for name in names:
            path = Path(directory, name)
            if path.suffix in SUFFIXES and path.is_file():
                files.append(path)
    return [*unlisted, *(Found(path) for path in sorted(files))]


def read_source(found: Found) -> Source:
    """A found file's ``(name, content, None)``, or ``(name, None, why it cannot be read)``."""
    path = found.path
    if found.problem is not None:
        return str(path), None, found.problem
    try:
        return str(path), read_bytes(path), None
    except UnreadableFile as error:
        return str(path), None, error.reason


def load_paths(paths: Sequence[str | Path], target: Target | None = None) -> LoadResult:
    """Load every document of every file under ``paths`` (for ``target``; None: each file's
    own, :func:`target_of`)."""
    return load_sources((read_source(found) for found in discover(paths)), target)


def load_bytes(data: bytes, file: str = "<input>", target: Target | None = None) -> LoadResult:
    """Load one file's content (for callers that already hold the bytes)."""
    if len(data) > MAX_FILE_BYTES:
        return load_sources(
            [(file, None, f"file is {len(data)} bytes; the limit is {MAX_FILE_BYTES}")], target
        )
    return load_sources([(file, data, None)], target)


def target_of(documents: Sequence[Document]) -> Target:
    """The target a file is judged against when none is given: ``thv-0051`` when it holds
    scripted tools, else ``vmcp``."""
    for document in documents:
        root = document.root.resolved() if document.root is not None else None
        keys = keyed(root)
        if "kind" in keys and scalar_text(keys["kind"][1]) == SCRIPTED_KIND:
            return THV_0051
        spec = keyed(keys["spec"][1]) if "spec" in keys else {}
        config = keyed(spec["config"][1]) if "config" in spec else {}
        if any(key in mapping for mapping in (keys, config) for key in SCRIPTED_KEYS):
            return THV_0051
    return VMCP


def load_sources(sources: Iterable[Source], target: Target | None = None) -> LoadResult:
    """Load ``(file, content, unreadable reason)`` triples and link references across them;
    each file for ``target`` (None: its own, :func:`target_of`)."""
    state = _Loader(target)
    for file, data, problem in sources:
        if data is None:
            where = SourceLocation(file)
            state.unreadable.append(Diagnostic("INPUT.unreadable", problem or "unreadable", where))
        else:
            state.read_file(file, data)
    return state.finish()


class _Loader:
    """Accumulates units across files, then links ``compositeToolRefs``."""

    def __init__(self, target: Target | None) -> None:
        self.given = target
        self.target: Target = target or VMCP
        self.entries: list[ConfigUnit | ServerDocument] = []
        self.notes: list[Diagnostic] = []
        self.errors: list[Diagnostic] = []
        self.unreadable: list[Diagnostic] = []
        self.tools_left = MAX_TOOLS_PER_FILE

    def _note(
        self, rule: str, message: str, where: SourceLocation, severity: Severity = Severity.NOTE
    ) -> None:
        self.notes.append(Diagnostic(rule, message, where, severity))

    def read_file(self, file: str, data: bytes) -> None:
        configs = 0
        self.tools_left = MAX_TOOLS_PER_FILE
        documents: list[Document] = []
        failure: YamlSyntaxError | None = None
        try:
            for document in parse_documents(data):
                if document.index >= MAX_DOCUMENTS_PER_FILE:
                    raise YamlLimitError(
                        f"more than {MAX_DOCUMENTS_PER_FILE} YAML documents in one file "
                        "(a transpiler limit; vMCP reads only the first)",
                        document.line,
                        1,
                        "LIMIT.documents",
                    )
                documents.append(document)
        except YamlSyntaxError as error:
            failure = error  # the documents before it are read first, as vMCP's decoder would
        self.target = self.given or target_of(documents)
        try:
            for document in documents:
                where = SourceLocation(file, document.line, 1)
                before = len(self.entries)
                kind = self._read_document(file, document, where)
                for entry in self.entries[before:]:
                    unit = entry.unit if isinstance(entry, ServerDocument) else entry
                    self.tools_left -= len(unit.tools) + len(unit.scripted)
                if self.tools_left < 0:
                    raise too_many_tools(document.line, 1)
                if kind is DocumentKind.VMCP_CONFIG:
                    configs += 1
                    if configs == 2:
                        message = (
                            "vMCP reads only the first YAML document of a config file; "
                            "later documents are checked here but ignored by vMCP"
                        )
                        self.notes.append(
                            Diagnostic(
                                "P1.extraDocument", message, where, Severity.WARNING, phase="P1"
                            )
                        )
            if failure is not None:
                raise failure
        except YamlSyntaxError as error:
            # A transpiler limit is the transpiler's (phase "load"), not a finding of vMCP's P1.
            limit = isinstance(error, YamlLimitError)
            rule = error.rule if isinstance(error, YamlLimitError) else "P1.yaml.syntax"
            where = SourceLocation(file, error.line, error.column)
            phase = "load" if limit else "P1"
            self.errors.append(Diagnostic(rule, error.message, where, phase=phase))
        except DecodeAborted as aborted:
            where = SourceLocation(file, aborted.issue.line, aborted.issue.column)
            self.errors.append(
                Diagnostic("LIMIT.aliases", aborted.issue.message, where, phase="P1")
            )

    def _read_document(
        self, file: str, document: Document, where: SourceLocation
    ) -> DocumentKind | None:
        root = document.root.resolved() if document.root is not None else None
        if root is None or (root.kind is Kind.SCALAR and root.short_tag() == "!!null"):
            self._note("LOAD.emptyDocument", "empty document: skipped", where)
            return None
        if root.kind is Kind.SEQUENCE:
            self._note("LOAD.fragment", "a list of steps, not a composite tool: skipped", where)
            return None
        keys = keyed(root)
        kind = scalar_text(keys["kind"][1]) if "kind" in keys else None
        if kind == "VirtualMCPServer":
            self.entries.append(read_server(file, document, keys, self.tools_left, self.target))
            return DocumentKind.VIRTUAL_MCP_SERVER
        if kind == "VirtualMCPCompositeToolDefinition":
            self.entries.append(read_definition(file, document, keys, self.target))
            return DocumentKind.COMPOSITE_TOOL_DEFINITION
        if kind == SCRIPTED_KIND:
            self.entries.append(read_scripted_definition(file, document, keys, self.target))
            return DocumentKind.SCRIPTED_TOOL_DEFINITION
        if kind is not None or root.kind is not Kind.MAPPING:
            self._note("LOAD.skipped", f"{kind or 'scalar'} document: skipped", where)
            return None
        if keys.keys() & {*CONFIG_KEYS, *SCRIPTED_KEYS} or "composite_tools" in keys:
            unit = read_vmcp_config(file, document, root, self.tools_left, self.target)
            self.entries.append(unit)
            return DocumentKind.VMCP_CONFIG
        return self._snippet(file, document, keys, where)

    def _snippet(
        self,
        file: str,
        document: Document,
        keys: dict[str, tuple[Node, Node]],
        where: SourceLocation,
    ) -> DocumentKind | None:
        spec = keyed(keys["spec"][1]) if "spec" in keys else {}
        if "name" in spec:
            message = (
                "no apiVersion/kind: read as a VirtualMCPCompositeToolDefinition (spec has a name)"
            )
            self._note("LOAD.snippet", message, where)
            self.entries.append(read_definition(file, document, keys, self.target))
            return DocumentKind.COMPOSITE_TOOL_DEFINITION
        if spec.keys() & {"config", "compositeTools"}:
            self._note(
                "LOAD.snippet",
                "no apiVersion/kind: read as a VirtualMCPServer (spec has config)",
                where,
            )
            self.entries.append(read_server(file, document, keys, self.tools_left, self.target))
            return DocumentKind.VIRTUAL_MCP_SERVER
        if "steps" in keys or "steps" in spec:
            self._note("LOAD.fragment", "a list of steps, not a composite tool: skipped", where)
        else:
            self._note("LOAD.skipped", "no composite tools in this document: skipped", where)
        return None

    def finish(self) -> LoadResult:
        """Link each server's refs to definitions (same namespace, by name), in document order."""
        definitions: dict[tuple[DocumentKind, str, str], ConfigUnit] = {}
        for entry in self.entries:
            if isinstance(entry, ConfigUnit) and entry.kind in _DEFINITIONS:
                key = (entry.kind, entry.namespace, entry.resource or "")
                definitions.setdefault(key, entry)
        referenced: set[int] = set()
        linked = [
            entry if isinstance(entry, ConfigUnit) else _link(entry, definitions, referenced)
            for entry in self.entries
        ]
        units = tuple(replace(u, referenced=True) if id(u) in referenced else u for u in linked)
        return LoadResult(units, tuple(self.notes), tuple(self.errors), tuple(self.unreadable))


#: The kinds a ``VirtualMCPServer`` references by name.
_DEFINITIONS = (DocumentKind.COMPOSITE_TOOL_DEFINITION, DocumentKind.SCRIPTED_TOOL_DEFINITION)


def _link(
    server: ServerDocument,
    definitions: dict[tuple[DocumentKind, str, str], ConfigUnit],
    referenced: set[int],
) -> ConfigUnit:
    """A server's unit with the tools of the definitions its refs name; a name that is not
    among the inputs is the operator's error."""
    unit = server.unit
    tools = list(unit.tools)
    scripted = list(unit.scripted)
    problems: list[Diagnostic] = []
    by = f"VirtualMCPServer/{unit.resource}"
    for kind, refs in (
        (DocumentKind.COMPOSITE_TOOL_DEFINITION, server.refs),
        (DocumentKind.SCRIPTED_TOOL_DEFINITION, server.scripted_refs),
    ):
        for name, where in refs:
            definition = definitions.get((kind, unit.namespace, name))
            if definition is None:
                message = (
                    f"referenced {kind.value} {name!r} not found in namespace "
                    f"{unit.namespace!r} (not among the inputs)"
                )
                problems.append(Diagnostic("K8S.refNotFound", message, where, phase="operator"))
                continue
            referenced.add(id(definition))
            tools.extend(
                replace(t, origin=replace(t.origin, referenced_by=by)) for t in definition.tools
            )
            scripted.extend(
                replace(t, origin=replace(t.origin, referenced_by=by)) for t in definition.scripted
            )
    return replace(unit, tools=tuple(tools), scripted=tuple(scripted), diagnostics=tuple(problems))
