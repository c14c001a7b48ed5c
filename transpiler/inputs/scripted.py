"""Scripted tools present in the inputs (a previous migration, or written by hand).

``check`` pairs each with the composite tool it replaces. They also make
migration idempotent: a composite tool whose scripted counterpart exists with
the same code is already migrated; one whose counterpart differs is left alone
(never overwritten).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from transpiler.config.model import DocumentKind
from transpiler.diagnostics import Diagnostic, SourceLocation
from transpiler.inputs.yamlspan import SpanDocument, SpanKind, SpanNode
from transpiler.reading import UnreadableFile, read_text


@dataclass(frozen=True)
class Counterpart:
    """A scripted tool: its name, its script (inline, or read from its ``scriptFile``), where it
    is (``file:line``, and the script file), and the folder its script is in."""

    tool: str
    script: str | None
    where: str
    folder: Path


@dataclass
class ScriptedIndex:
    """Scripted tools by config mapping (file, document, container) and by resource; the
    script files that cannot be read (each an input error, as an unreadable config is)."""

    by_container: dict[tuple[str, int, str], dict[str, Counterpart]] = field(default_factory=dict)
    by_resource: dict[tuple[str, str], Counterpart] = field(default_factory=dict)
    unreadable: list[Diagnostic] = field(default_factory=list)

    def add_file(self, file: str, documents: Sequence[SpanDocument]) -> None:
        """Record every scripted tool of one file."""
        for document in documents:
            root = document.root
            if root is None or root.kind is not SpanKind.MAPPING:
                continue
            kind = root.get("kind")
            if kind is not None and kind.text() == DocumentKind.SCRIPTED_TOOL_DEFINITION:
                self._definition(file, root)
                continue
            for container in ("", "spec.config"):
                mapping = _at(root, container)
                tools = mapping.get("scriptedTools") if mapping is not None else None
                if tools is None or tools.kind is not SpanKind.SEQUENCE:
                    continue
                found = self.by_container.setdefault((file, document.index, container), {})
                for item in tools.children:
                    name = _text(item, "name")
                    if name is not None:
                        found.setdefault(name, self._counterpart(file, name, item))

    def _definition(self, file: str, root: SpanNode) -> None:
        metadata = root.get("metadata")
        name = _text(metadata, "name") if metadata is not None else None
        namespace = (_text(metadata, "namespace") if metadata is not None else None) or "default"
        spec = root.get("spec")
        if name is not None and spec is not None:
            tool = _text(spec, "name") or name
            self.by_resource.setdefault((namespace, name), self._counterpart(file, tool, spec))

    def _counterpart(self, file: str, tool: str, entry: SpanNode) -> Counterpart:
        where = f"{file}:{entry.line + 1}"
        inline = _text(entry, "script")
        if inline is not None:
            return Counterpart(tool, inline, where, Path(file).parent)
        script_file = _text(entry, "scriptFile")
        if script_file is None:
            return Counterpart(tool, None, where, Path(file).parent)
        path = Path(file).parent / script_file
        try:
            return Counterpart(tool, read_text(path), f"{where} ({path})", path.parent)
        except UnreadableFile as error:
            diagnostic = Diagnostic("INPUT.unreadable", error.reason, SourceLocation(str(path)))
            self.unreadable.append(diagnostic)
            return Counterpart(tool, None, f"{where} ({path}: {error.reason})", path.parent)


def _at(root: SpanNode, path: str) -> SpanNode | None:
    node: SpanNode | None = root
    for part in filter(None, path.split(".")):
        node = node.get(part) if node is not None else None
    return node if node is not None and node.kind is SpanKind.MAPPING else None


def _text(node: SpanNode, key: str) -> str | None:
    value = node.get(key) if node.kind is SpanKind.MAPPING else None
    return value.text() if value is not None else None


def same_code(a: str, b: str) -> bool:
    """Whether two scripts have the same code (their leading comment header aside)."""
    return _code(a) == _code(b)


def _code(script: str) -> str:
    lines = script.split("\n")
    index = 0
    while index < len(lines) and (not lines[index].strip() or lines[index].startswith("#")):
        index += 1
    return "\n".join(lines[index:])
