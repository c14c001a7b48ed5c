"""Scripted tools present in the inputs (a previous migration, or written by hand).

``check`` pairs each with the composite tool it replaces. They also make
migration idempotent: a composite tool whose scripted counterpart exists with
the same code is already migrated; one whose counterpart differs is left alone
(never overwritten).

A scripted tool vMCP would not take is kept with the reason (``problem``), so
that nothing is checked against it: a mapping that gives a key twice (as
yaml.v3 refuses it, ``script:`` twice included), both ``script`` and
``scriptFile`` (THV-0051 makes them exclusive), two scripted tools of one name
in one configuration (or two scripted definitions of one namespace and
name), or a ``scriptFile`` outside the configuration's folder. THV-0051 gives
``scriptFile`` as a relative path (``workflows/weather-alert.star``) and
states no rule beyond; ours is the one ``load()`` follows for modules
(:func:`~transpiler.filenames.inside`): the configuration's folder and below,
no absolute path, no ``..``, no symbolic link out; or ``annotations`` that are
not MCP ``ToolAnnotations``.

Each keeps what its entry says clients see in ``tools/list``, as written: its
``description``, ``parameters``, ``output`` and ``annotations``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from transpiler.config.model import DocumentKind, ToolAnnotations
from transpiler.config.tool_annotations import AnnotationsError, annotations_from_mcp
from transpiler.config.yamlresolve import ResolveError, resolve
from transpiler.config.yamlv3 import already_defined
from transpiler.diagnostics import Diagnostic, SourceLocation
from transpiler.filenames import inside
from transpiler.golang.duration import DurationError, parse_duration
from transpiler.inputs.yamlspan import SpanDocument, SpanKind, SpanNode, repeated_key
from transpiler.reading import UnreadableFile, read_text

#: Reads a script file: its text, or :class:`~transpiler.reading.UnreadableFile`.
ScriptReader = Callable[[Path], str]


@dataclass(frozen=True)
class Counterpart:
    """A scripted tool: its name, its script (inline, or read from its ``scriptFile``), where it
    is (``file:line``, and the script file), the folder its script is in, why vMCP would not
    take it (``problem``: then nothing is checked against it), its ``timeout`` and what its
    ``tools/list`` entry holds (plain values; None: absent), as written; ``script_at``: the
    file and line the script's first line is on (its ``scriptFile``'s line 1, or the
    configuration's line inside a literal block ``|``, whose lines are the script's; None for
    an inline script written otherwise)."""

    tool: str
    script: str | None
    where: str
    folder: Path
    problem: str | None = None
    timeout_ns: int | None = None
    description: str | None = None
    parameters: Any = None
    output: Any = None
    annotations: ToolAnnotations | None = None
    script_at: tuple[str, int] | None = None


@dataclass
class ScriptedIndex:
    """Scripted tools by config mapping (file, document, container) and by resource; script
    files are read with ``read``; those that cannot be read are ``unreadable`` (each an input
    error, as an unreadable config is)."""

    by_container: dict[tuple[str, int, str], dict[str, Counterpart]] = field(default_factory=dict)
    by_resource: dict[tuple[str, str], Counterpart] = field(default_factory=dict)
    read: ScriptReader = read_text
    unreadable: list[Diagnostic] = field(default_factory=list)
    _resources: dict[tuple[str, str], list[Counterpart]] = field(default_factory=dict)

    def counterparts(self) -> Iterator[Counterpart]:
        """Every scripted tool, configuration mappings first."""
        for tools in self.by_container.values():
            yield from tools.values()
        yield from self.by_resource.values()

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
                if mapping is not None:
                    found = self._container(file, mapping)
                    if found:
                        self.by_container[(file, document.index, container)] = found

    def _container(self, file: str, mapping: SpanNode) -> dict[str, Counterpart]:
        """The scripted tools of one configuration mapping, by name."""
        entries = [(key, value) for key, value in mapping.pairs() if key.value == "scriptedTools"]
        twice = None
        if len(entries) > 1:
            first, second = entries[0][0].line + 1, entries[1][0].line + 1
            twice = already_defined("scriptedTools", second, first)
        named: dict[str, list[Counterpart]] = {}
        for _, tools in entries:
            if tools.kind is not SpanKind.SEQUENCE:
                continue
            for item in tools.children:
                name = _text(item, "name")
                if name is not None:
                    counterpart = self._counterpart(file, name, item)
                    if twice is not None:
                        counterpart = _refused(counterpart, twice)
                    named.setdefault(name, []).append(counterpart)
        return {name: one_of(found) for name, found in named.items()}

    def _definition(self, file: str, root: SpanNode) -> None:
        metadata = root.get("metadata")
        name = _text(metadata, "name") if metadata is not None else None
        namespace = (_text(metadata, "namespace") if metadata is not None else None) or "default"
        spec = root.get("spec")
        if name is None or spec is None:
            return
        counterpart = self._counterpart(file, _text(spec, "name") or name, spec)
        repeated = repeated_key(root)
        if repeated is not None:
            counterpart = _refused(counterpart, repeated)
        found = self._resources.setdefault((namespace, name), [])
        found.append(counterpart)
        self.by_resource[(namespace, name)] = one_of(found)

    def _counterpart(self, file: str, tool: str, entry: SpanNode) -> Counterpart:
        folder = Path(file).parent
        place = f"{file}:{entry.line + 1}"
        found = Counterpart(
            tool,
            None,
            place,
            folder,
            description=_text(entry, "description") or None,
            parameters=_data(entry.get("parameters")),
            output=_data(entry.get("output")),
        )
        repeated = repeated_key(entry)
        if repeated is not None:
            return _refused(found, repeated)
        timeout = _text(entry, "timeout")
        if timeout is not None:
            try:
                found = replace(found, timeout_ns=parse_duration(timeout))
            except DurationError as error:
                return _refused(found, f"its timeout is not a duration: {error}")
        written = _data(entry.get("annotations"))
        if written is not None:
            try:
                found = replace(found, annotations=annotations_from_mcp(written))
            except AnnotationsError as error:
                line = entry.get("annotations")
                at = f" (line {line.line + 1})" if line is not None else ""
                return _refused(found, f"its annotations{at} are not MCP ToolAnnotations: {error}")
        inline = _text(entry, "script")
        script_file = _text(entry, "scriptFile")
        if inline is not None and script_file is not None:
            why = "it gives both script and scriptFile (THV-0051: one or the other)"
            return _refused(found, why)
        if inline is not None:
            block = entry.get("script")
            literal = block is not None and block.style == "|"
            first = (file, block.line + 2) if block is not None and literal else None
            return replace(found, script=inline, script_at=first)
        if script_file is None:
            return found
        path = inside(folder, script_file)
        if path is None:
            why = (
                f"its scriptFile {script_file!r} is outside the folder of its configuration "
                f"({folder}): a scriptFile is read from that folder and below"
            )
            return _refused(found, why)
        try:
            text = self.read(path)
        except UnreadableFile as error:
            where = SourceLocation(str(path))
            self.unreadable.append(Diagnostic("INPUT.unreadable", error.reason, where))
            return replace(
                found, where=f"{found.where} ({path}: {error.reason})", folder=path.parent
            )
        found = replace(found, script=text, folder=path.parent, script_at=(str(path), 1))
        return replace(found, where=f"{found.where} ({path})")


def _refused(counterpart: Counterpart, why: str) -> Counterpart:
    """``counterpart`` as vMCP would refuse it (the first reason found stays)."""
    if counterpart.problem is not None:
        return counterpart
    problem = f"the scripted tool {counterpart.tool} at {counterpart.where} is not taken: {why}"
    return replace(counterpart, script=None, problem=problem)


def one_of(found: Sequence[Counterpart]) -> Counterpart:
    """The scripted tool of a name; refused when there are several where one is allowed."""
    if len(found) == 1:
        return found[0]
    places = ", ".join(counterpart.where for counterpart in found)
    problem = f"scripted tool {found[0].tool} is defined {len(found)} times ({places})"
    return replace(found[0], script=None, problem=problem)


def _at(root: SpanNode, path: str) -> SpanNode | None:
    node: SpanNode | None = root
    for part in filter(None, path.split(".")):
        node = node.get(part) if node is not None else None
    return node if node is not None and node.kind is SpanKind.MAPPING else None


def _data(node: SpanNode | None) -> Any:
    """A node's plain value as yaml.v3 resolves it (an alias, which a scripted entry's listing
    never needs, reads as None)."""
    if node is None or node.kind is SpanKind.ALIAS:
        return None
    if node.kind is SpanKind.MAPPING:
        return {key.value: _data(value) for key, value in node.pairs()}
    if node.kind is SpanKind.SEQUENCE:
        return [_data(child) for child in node.children]
    if node.style:
        return node.value
    try:
        return resolve(node.tag or "", node.value)[1]
    except ResolveError:
        return node.value


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
