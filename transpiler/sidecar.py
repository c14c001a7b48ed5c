"""The composite baseline beside a migrated file: ``FILE.composite-baseline``.

``migrate --write`` removes composite tools from FILE; it records each one it
removes, as it was written, in this file beside FILE, so that ``check`` keeps
certifying each scripted tool against the workflow it replaced after the
migration is merged. The file is YAML the loader reads like a configuration
(its diagnostics cite its own lines): a header comment, then one document per
kind of place the tools came from, each entry preceded by one comment line
with the verdict it had when it was migrated:

* a vMCP config's ``compositeTools`` items, under ``compositeTools:``;
* a ``VirtualMCPServer``'s inline tools, under a ``VirtualMCPServer`` holding
  only its ``apiVersion``, name, namespace and those tools;
* ``VirtualMCPCompositeToolDefinition`` documents, whole.

Its suffix is none of ``.yaml .yml .json``, so neither a directory walk of
``check``/``migrate`` nor ``kubectl apply -f DIR`` takes it for a
configuration. Entries are sorted, so the same tools give the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from transpiler.config.model import DocumentKind
from transpiler.config.units import LoadedTool
from transpiler.config.yamltext import scalar
from transpiler.diagnostics import InputError
from transpiler.filenames import SIDECAR_SUFFIX
from transpiler.inert import one_line
from transpiler.inputs.files import SourceFile, inputs_from, source_from_bytes
from transpiler.inputs.textspan import Text, dash_offset, reindent
from transpiler.inputs.yamlspan import SpanNode
from transpiler.reading import UnreadableFile, read_bytes

SUFFIX = SIDECAR_SUFFIX
_ITEM_COLUMN = {"config": 2, "server": 6}


class SidecarError(InputError):
    """A composite baseline that cannot be read (the message names the file and line)."""


def sidecar_path(config: Path) -> Path:
    """Where the composite baseline of the config file ``config`` is."""
    return config.with_name(config.name + SUFFIX)


def find_sidecars(paths: Sequence[str | Path]) -> tuple[str, ...]:
    """The composite baselines of ``paths``: beside each file given, anywhere under each
    directory given (a directory walk that finds none finds nothing)."""
    found: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for directory, folders, names in os.walk(path):
                folders.sort()
                found.extend(str(Path(directory) / n) for n in sorted(names) if n.endswith(SUFFIX))
        elif path.name.endswith(SUFFIX):
            continue  # given as PATH itself: it is read as a configuration
        elif sidecar_path(path).is_file():
            found.append(str(sidecar_path(path)))
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class Entry:
    """One replaced composite tool: the document it goes in, its verdict line, its text."""

    group: tuple[str, ...]
    name: str
    note: str
    body: str

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        """What a later migration of the same tool replaces."""
        return self.group, self.name


def entry_of(source: SourceFile, tool: LoadedTool, note: str) -> Entry:
    """``tool`` as written in ``source``, with the verdict line ``note`` (no ``#``)."""
    assert source.text is not None and source.documents is not None
    text = source.text
    root = source.documents[tool.origin.document].root
    assert root is not None
    origin = tool.origin
    if origin.kind is DocumentKind.COMPOSITE_TOOL_DEFINITION:
        metadata = root.get("metadata")
        namespace = _text(metadata.get("namespace") if metadata else None) or "default"
        group: tuple[str, ...] = ("definition", namespace, origin.resource or "")
        return Entry(group, tool.config.name, note, _lines(text, root.start, root))
    container, _, index = origin.path.rpartition("compositeTools[")
    mapping = _at(root, container.rstrip("."))
    items = mapping.get("compositeTools")
    assert items is not None
    item = items.children[int(index.rstrip("]"))]
    dash = dash_offset(text, item)
    if origin.kind is DocumentKind.VIRTUAL_MCP_SERVER:
        metadata = root.get("metadata")
        group = (
            "server",
            _text(root.get("apiVersion")) or "",
            _text(metadata.get("name") if metadata else None) or "",
            _text(metadata.get("namespace") if metadata else None) or "",
        )
    else:
        group = ("config",)
    body = reindent(_lines(text, dash, item), _ITEM_COLUMN[group[0]] - _column(text, dash))
    return Entry(group, tool.config.name, note, body)


def render(config_name: str, entries: Iterable[Entry]) -> str:
    """The file's text: the header, then the entries (the last of each key wins), sorted."""
    chosen = {entry.key: entry for entry in entries}
    lines = [
        f"# Composite baseline of {one_line(config_name)}: the composite tools that",
        "# `vmcp-transpile migrate --write` replaced with scripted tools, as they were written.",
        "# `vmcp-transpile check` certifies each scripted tool against its entry here, so",
        "# commit this file with the migration. Edit an entry only with its script (the gate",
        "# reports the change for review); to retire or rename a tool, remove or rename its",
        "# entry and its scripted tool in the same change. A later migration of a tool",
        "# replaces its entry.",
    ]
    groups = sorted({entry.group for entry in chosen.values()})
    for number, group in enumerate(groups):
        members = sorted((e for e in chosen.values() if e.group == group), key=lambda e: e.name)
        if number or group[0] == "definition":
            lines.append("---")
        lines.extend(_head(group))
        for entry in members:
            column = _ITEM_COLUMN.get(group[0], 0)
            lines.append(" " * column + "# " + one_line(entry.note))
            lines.append(entry.body.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _head(group: tuple[str, ...]) -> list[str]:
    if group[0] == "config":
        return ["compositeTools:"]
    if group[0] == "server":
        _, api_version, name, namespace = group
        head = [f"apiVersion: {scalar(api_version)}", "kind: VirtualMCPServer", "metadata:"]
        head.append(f"  name: {scalar(name)}")
        if namespace:
            head.append(f"  namespace: {scalar(namespace)}")
        return [*head, "spec:", "  config:", "    compositeTools:"]
    return []


def read_entries(path: Path) -> list[Entry]:
    """The entries of the composite baseline at ``path`` (none when there is no file); one that
    cannot be read or loaded raises :class:`SidecarError` naming the file and line."""
    if not path.exists():
        return []
    try:
        data = read_bytes(path)
    except UnreadableFile as error:
        raise SidecarError(f"{path}: {error.reason}") from None
    source = source_from_bytes(path, data)
    inputs = inputs_from([source])
    assert inputs.load is not None
    problems = [*inputs.load.input_errors, *inputs.load.errors]
    if source.problem is not None or problems:
        where = problems[0].render() if problems else f"{path}: {source.problem}"
        raise SidecarError(f"the composite baseline cannot be read: {one_line(where)}")
    assert source.text is not None
    entries = []
    for tool in inputs.load.tools:
        entry = entry_of(source, tool, "")
        entries.append(Entry(entry.group, entry.name, _note_above(source, tool), entry.body))
    return entries


def _note_above(source: SourceFile, tool: LoadedTool) -> str:
    """The verdict line written above an entry (empty when there is none)."""
    assert source.text is not None and source.documents is not None
    root = source.documents[tool.origin.document].root
    assert root is not None
    node = root
    if tool.origin.kind is not DocumentKind.COMPOSITE_TOOL_DEFINITION:
        container, _, index = tool.origin.path.rpartition("compositeTools[")
        items = _at(root, container.rstrip(".")).get("compositeTools")
        assert items is not None
        node = items.children[int(index.rstrip("]"))]
        start = source.text.line_start(dash_offset(source.text, node))
    else:
        start = source.text.line_start(node.start)
    above = source.text.previous_line(start)
    line = source.text.line_text(above).strip() if above is not None else ""
    return line.removeprefix("#").strip() if line.startswith("#") else ""


def _at(root: SpanNode, dotted: str) -> SpanNode:
    node = root
    for part in filter(None, dotted.split(".")):
        found = node.get(part)
        assert found is not None
        node = found
    return node


def _text(node: SpanNode | None) -> str | None:
    return node.text() if node is not None else None


def _column(text: Text, offset: int) -> int:
    return offset - text.line_start(offset)


def _lines(text: Text, start: int, node: SpanNode) -> str:
    """The whole lines from the one holding ``start`` to the end of ``node``, with ``\\n``."""
    end = text.line_end(max(text.content_end(node) - 1, node.start))
    return text.text[text.line_start(start) : end].replace("\r\n", "\n")
