"""The composite-only view of a file: its scripted entries blanked out, positions unchanged.

vMCP's config decoder (and so the loader) does not know the THV-0051 keys
yet: ``scriptedTools`` and ``scriptedToolRefs`` would be unknown-field errors
that fail every composite tool beside them. The view replaces those entries
(block style only) with spaces, keeping every line break, so every other
position in the file stays the same for diagnostics. ``compositeToolRefs``
items naming definitions that exist only in scripted form (migrated by an
earlier run) are blanked too: they are references a migration moves, not
missing definitions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from transpiler.inputs.relocate import item_regions
from transpiler.inputs.textspan import Text, Unrewritable
from transpiler.inputs.yamlspan import SpanDocument, SpanKind, SpanNode

SCRIPTED_KEYS = ("scriptedTools", "scriptedToolRefs")


def composite_view(
    text: Text, documents: Sequence[SpanDocument], extra: Iterable[tuple[int, int]] = ()
) -> str:
    """``text`` with the scripted entries of every config mapping (and ``extra``) blanked."""
    regions: list[tuple[int, int]] = list(extra)
    for document in documents:
        for mapping in _config_mappings(document.root):
            for key, value in mapping.pairs():
                if key.value in SCRIPTED_KEYS and not mapping.flow:
                    regions.append((text.line_start(key.start), text.entry_end(key, value)))
    if not regions:
        return text.text
    chars = list(text.text)
    for start, end in regions:
        for index in range(start, end):
            if chars[index] not in "\r\n":
                chars[index] = " "
    return "".join(chars)


def _config_mappings(root: SpanNode | None) -> list[SpanNode]:
    if root is None or root.kind is not SpanKind.MAPPING:
        return []
    found = [root]
    spec = root.get("spec")
    config = spec.get("config") if spec is not None else None
    if config is not None and config.kind is SpanKind.MAPPING:
        found.append(config)
    return found


def stale_ref_regions(
    text: Text, documents: Sequence[SpanDocument], scripted_only: set[tuple[str, str]]
) -> list[tuple[int, int]]:
    """Regions of ``compositeToolRefs`` items that name definitions existing only as scripts."""
    regions: list[tuple[int, int]] = []
    for document in documents:
        root = document.root
        mappings = _config_mappings(root)
        if root is None or len(mappings) < 2:
            continue
        metadata = root.get("metadata")
        namespace_node = metadata.get("namespace") if metadata is not None else None
        namespace = (namespace_node.text() if namespace_node is not None else None) or "default"
        entry = mappings[1].entry("compositeToolRefs")
        if entry is None or entry[1].kind is not SpanKind.SEQUENCE or entry[1].flow:
            continue
        try:
            spans = item_regions(text, *entry)
        except Unrewritable:
            continue
        for item, region in zip(entry[1].children, spans, strict=True):
            name = item.get("name") if item.kind is SpanKind.MAPPING else None
            if name is not None and (namespace, name.value) in scripted_only:
                regions.append(region)
    return regions
