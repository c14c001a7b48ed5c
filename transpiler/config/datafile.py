"""Small data files a user names: the policy, a ``tools/list`` dump, a scenario, an earlier report.

Each is read whole by :mod:`transpiler.reading` (a regular file, within its
size limit, counted while reading); YAML
is parsed within the loader's limits (nesting, aliases) and refused where a
mapping repeats a key, as yaml.v3 refuses it; JSON is refused where it nests
deeper than Python's parser goes. Every refusal is an :class:`~transpiler.diagnostics.InputError`
naming the file (and the line, where there is one), never a bare "too deep"
or "too large".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from transpiler.config.yamlv3 import Kind, Node, YamlSyntaxError, already_defined, parse_documents
from transpiler.diagnostics import InputError, SourceLocation
from transpiler.reading import UnreadableFile, read_bytes


def _read(path: Path, limit: int, what: str) -> bytes:
    """The content of the regular file ``path`` (``what`` it is, for errors), at most ``limit``
    bytes (:func:`~transpiler.reading.read_bytes`)."""
    try:
        return read_bytes(path, limit)
    except UnreadableFile as error:
        raise InputError(f"cannot read {what}: {error.reason}", error.location) from None


def load_yaml(path: Path, limit: int, what: str, content: bytes | None = None) -> Any:
    """The one YAML (or JSON) document of ``path`` (or of ``content``, read elsewhere and
    named ``path``), as plain Python data."""
    data = _read(path, limit, what) if content is None else content
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None
    try:
        documents = list(parse_documents(data))
    except YamlSyntaxError as error:
        raise InputError(f"{path}:{error.line}:{error.column}: {error.message}") from None
    if len(documents) > 1:
        raise InputError(f"{path}:{documents[1].line}: a second YAML document; give one")
    repeated = _repeated_key(documents[0].root) if documents else None
    if repeated is not None:
        raise InputError(f"{path}: {repeated}")
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"{path}{line}: {error.problem or error.context}") from None
    except yaml.YAMLError as error:
        raise InputError(f"{path}: {error}") from None


def load_json(path: Path, limit: int, what: str) -> Any:
    """The JSON value of ``path``."""
    data = _read(path, limit, what)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be read") from None
    except ValueError as error:
        raise InputError(f"{path}: not JSON: {error}") from None


def locate(source: str, keys: Sequence[str | int], limit: int) -> SourceLocation:
    """Where the value at ``keys`` (mapping keys, list indexes) is written in the file
    ``source``, down to the deepest key found; the bare file when it cannot be read again."""
    try:
        documents = list(parse_documents(read_bytes(Path(source), limit)))
    except (UnreadableFile, YamlSyntaxError, OSError):
        return SourceLocation(source)
    node = documents[0].root if documents else None
    found = SourceLocation(source)
    for key in keys:
        node = _child(node.resolved(), key) if node is not None else None
        if node is None:
            break
        found = SourceLocation(source, node.line, node.column)
    return found


def _child(node: Node, key: str | int) -> Node | None:
    """The value under ``key`` of a mapping node, or item ``key`` of a sequence node."""
    if node.kind is Kind.MAPPING and isinstance(key, str):
        pairs = node.content
        for index in range(0, len(pairs) - 1, 2):
            if pairs[index].resolved().value == key:
                return pairs[index + 1]
    if node.kind is Kind.SEQUENCE and isinstance(key, int) and 0 <= key < len(node.content):
        return node.content[key]
    return None


def _repeated_key(root: Node | None) -> str | None:
    """Where a mapping gives a key twice, in yaml.v3's words; None when none does."""
    pending = [root] if root is not None else []
    while pending:
        node = pending.pop()
        pending.extend(node.content)
        if node.kind is not Kind.MAPPING:
            continue
        seen: dict[str, Node] = {}
        for key in node.content[0::2]:
            if key.kind is not Kind.SCALAR or key.value == "<<":
                continue
            earlier = seen.setdefault(key.value, key)
            if earlier is not key:
                return already_defined(key.value, key.line, earlier.line)
    return None
