"""The input files: bytes, text, span trees, the scripted tools, what the loader makes of them.

The loader reads each file's composite-only view (scripted entries blanked,
and references to definitions that are already scripted dropped), so that
files half-migrated by an earlier run load exactly as vMCP's composite
machinery will see them after this one. The scripted tools are read from each
file as it is, as the target loads it (:mod:`.scripted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from transpiler.config.loader import Found, discover, load_sources
from transpiler.config.model import DocumentKind
from transpiler.config.scripted import ScriptReader
from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.config.units import LoadedTool, LoadResult
from transpiler.config.yamlv3 import YamlSyntaxError
from transpiler.inputs.scripted import Counterpart, ScriptedIndex
from transpiler.inputs.textspan import Text
from transpiler.inputs.view import composite_view, stale_ref_regions
from transpiler.inputs.yamlspan import SpanDocument, SpanKind, parse_spans
from transpiler.reading import UnreadableFile, read_bytes, read_text
from transpiler.validate import validate

#: A UTF-8 byte order mark: kept on the file, left out of the text that is edited.
BOM = b"\xef\xbb\xbf"


@dataclass
class SourceFile:
    """One input file; ``problem`` says why it cannot be read or parsed (then it is left alone)."""

    path: Path
    text: Text | None = None
    documents: list[SpanDocument] | None = None
    problem: str | None = None
    data: bytes | None = None
    view: str | None = None
    bom: bool = False

    @property
    def name(self) -> str:
        """The file name as the user wrote it (diagnostics use it)."""
        return str(self.path)


@dataclass
class Inputs:
    """Every input file, the scripted tools among them (as ``target`` takes them), and the
    composite view's load result."""

    files: list[SourceFile]
    scripted: ScriptedIndex
    composite_resources: set[tuple[str, str]] = field(default_factory=set)
    load: LoadResult | None = None
    target: Target = DEFAULT_TARGET

    def counterpart(self, tool: LoadedTool, namespace: str) -> Counterpart | None:
        """The scripted tool of ``tool``'s name beside it: in the same config mapping, or (for a
        definition) the scripted definition of the same namespace and name."""
        origin = tool.origin
        if origin.kind is DocumentKind.COMPOSITE_TOOL_DEFINITION:
            return self.scripted.by_resource.get((namespace, origin.resource or ""))
        container = origin.path.rpartition("compositeTools[")[0].rstrip(".")
        found = self.scripted.by_container.get((origin.file, origin.document, container), {})
        return found.get(tool.config.name)


#: Text that any scripted entry contains; a file without it needs no span tree to be loaded.
_SCRIPTED_MARK = b"cripted"


def load_contents(
    contents: Sequence[tuple[str, bytes]],
    read: ScriptReader = read_text,
    target: Target = DEFAULT_TARGET,
) -> Inputs:
    """Inputs from ``(name, content)`` pairs (the library's), script files read with ``read``.
    Files that mention nothing scripted are loaded as they are, without the span trees
    ``migrate`` needs."""
    if any(_SCRIPTED_MARK in data for _, data in contents):
        files = [source_from_bytes(Path(name), data) for name, data in contents]
        return inputs_from(files, read, target)
    files = [SourceFile(Path(name), data=data) for name, data in contents]
    load = load_sources(((source.name, source.data, None) for source in files), target)
    return Inputs(files, ScriptedIndex(), load=load, target=target)


def read_inputs(paths: Sequence[str | Path], target: Target = DEFAULT_TARGET) -> Inputs:
    """Read, parse, index and load every file under ``paths``."""
    return inputs_from(read_files(paths), target=target)


def read_files(paths: Sequence[str | Path]) -> list[SourceFile]:
    """Read and parse every file under ``paths``."""
    return [_read(found) for found in discover(paths)]


def inputs_from(
    files: list[SourceFile], read: ScriptReader = read_text, target: Target = DEFAULT_TARGET
) -> Inputs:
    """Index and load files already read (from disk, or from a git revision) for ``target``;
    script files are read with ``read``, and one that cannot be read is an unreadable input of
    the load result."""
    inputs = Inputs(files, ScriptedIndex(), target=target)
    written = [(s.name, s.text.text.encode("utf-8")) for s in files if s.text is not None]
    scripted = [(name, data, None) for name, data in written if _SCRIPTED_MARK in data]
    if scripted:
        inputs.scripted.add_report(validate(load_sources(scripted, target), read=read))
    for source in files:
        if source.documents is not None:
            inputs.composite_resources |= _composite_resources(source.documents)
    scripted_only = set(inputs.scripted.by_resource) - inputs.composite_resources
    for source in files:
        if source.text is not None and source.documents is not None:
            stale = stale_ref_regions(source.text, source.documents, scripted_only)
            source.view = composite_view(source.text, source.documents, stale)
    load = load_sources(
        (
            (
                source.name,
                None if source.text is None else (source.view or source.text.text).encode("utf-8"),
                source.problem,
            )
            for source in files
        ),
        target,
    )
    inputs.load = replace(load, unreadable=(*load.unreadable, *inputs.scripted.unreadable))
    by_name = {source.name: source for source in files}
    for error in inputs.load.errors:
        source = by_name[error.location.file]
        where = error.location
        source.problem = source.problem or f"{where.file}:{where.line}: {error.message}"
    return inputs


def _read(found: Found) -> SourceFile:
    source = SourceFile(found.path, problem=found.problem)
    if found.problem is not None:
        return source
    try:
        data = read_bytes(found.path)
    except UnreadableFile as error:
        source.problem = error.reason
        return source
    return source_from_bytes(found.path, data)


def source_from_bytes(path: Path, data: bytes) -> SourceFile:
    """A file's content decoded and parsed (``problem`` says why it cannot be)."""
    source = SourceFile(path, data=data, bom=data.startswith(BOM))
    try:
        source.text = Text(data.removeprefix(BOM).decode("utf-8"))
    except UnicodeDecodeError as error:
        source.problem = f"not UTF-8 text (byte {error.start})"
        return source
    try:
        source.documents = parse_spans(source.text.text)
    except YamlSyntaxError:
        source.documents = None  # the loader reports where and why
    return source


def _composite_resources(documents: Sequence[SpanDocument]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for document in documents:
        root = document.root
        if root is None or root.kind is not SpanKind.MAPPING:
            continue
        kind = root.get("kind")
        metadata = root.get("metadata")
        composite = kind is not None and kind.text() == DocumentKind.COMPOSITE_TOOL_DEFINITION
        if not composite or metadata is None:
            continue
        name = metadata.get("name")
        namespace = metadata.get("namespace")
        if name is not None and name.text() is not None:
            found.add(((namespace.text() if namespace else None) or "default", name.value))
    return found
