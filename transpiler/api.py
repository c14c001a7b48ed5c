"""The library API, for gateways and tools that embed the transpiler.

>>> import transpiler
>>> config = transpiler.load("corpus/example/vmcp-config.yaml")
>>> config.validate().valid
True
>>> result = config.transpile("sync_inventory")
>>> result.converted, result.script.startswith("# Scripted tool sync_inventory")
(True, True)

Everything here is deterministic (same input, same output), safe to call
from several threads, and cached by content hash: loading an unchanged
configuration again costs a read and a SHA-256, and its transpile and check
results are reused. Returned objects are shared between callers: treat them
as read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar, overload

from transpiler.config.loader import MAX_FILE_BYTES, discover, load_sources, read_source
from transpiler.config.units import LoadedTool, LoadResult
from transpiler.config.validate import UnitReport, ValidationReport, validate
from transpiler.config.yamlv3 import MAX_DEPTH
from transpiler.diagnostics import InputError
from transpiler.emit.report import Note, SourceMapEntry
from transpiler.migrate.outcome import decide, emit, rejection, source_label
from transpiler.migrate.runner import judging_units
from transpiler.migrate.verdict import CheckOptions, ToolCheck, Verdict
from transpiler.plan import ToolPlan, plan_tool

__all__ = [
    "CheckOptions",
    "Config",
    "ToolCheck",
    "Transpiled",
    "Verdict",
    "clear_cache",
    "deprecation_message",
    "load",
    "loads",
]

Source = str | os.PathLike[str] | bytes | Mapping[str, Any]
_T = TypeVar("_T")
CACHE_SIZE: Final = 256


class _Cache:
    """A thread-safe LRU cache that computes each missing key once, however many threads ask."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[str, Any] = OrderedDict()
        self._pending: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, key: str, compute: Callable[[], _T]) -> _T:
        """The cached value for ``key``, computing it (once) when absent."""
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    value: _T = self._values[key]
                    return value
                waiting = self._pending.get(key)
                if waiting is None:
                    self._pending[key] = threading.Event()
                    break
            waiting.wait()
        try:
            value = compute()
            with self._lock:
                self._values[key] = value
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
            return value
        finally:
            with self._lock:
                self._pending.pop(key).set()

    def clear(self) -> None:
        """Forget every cached value."""
        with self._lock:
            self._values.clear()


_CACHE = _Cache(CACHE_SIZE)


def _digest(*parts: bytes | str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        # surrogatepass: file names that are not UTF-8 reach Python with lone surrogates.
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


@dataclass(frozen=True)
class Transpiled:
    """One tool's script and everything said about it; ``reason`` when it was not converted.

    ``domain`` lists the assumptions under which the script behaves exactly
    like the composite tool, ``quirks`` the vMCP behaviours it reproduces on
    purpose, ``deviations`` where it differs (only when asked for with
    ``fixes``), ``warnings`` what a reviewer should look at.
    """

    tool: str
    location: str
    script: str | None
    source_map: tuple[SourceMapEntry, ...] = ()
    domain: tuple[Note, ...] = ()
    quirks: tuple[Note, ...] = ()
    deviations: tuple[Note, ...] = ()
    warnings: tuple[Note, ...] = ()
    reason: str | None = None

    @property
    def converted(self) -> bool:
        """Whether a script was produced."""
        return self.script is not None


class Config:
    """A loaded configuration (one or more files); build it with :func:`load` or :func:`loads`."""

    __slots__ = ("_load", "digest", "name")

    def __init__(self, name: str, digest: str, load_result: LoadResult) -> None:
        self.name = name
        self.digest = digest
        self._load = load_result

    @property
    def load_result(self) -> LoadResult:
        """What the loader read: units, notes, errors."""
        return self._load

    @property
    def tools(self) -> tuple[str, ...]:
        """The composite tools' names, in file order."""
        return tuple(tool.config.name for tool in self._load.tools)

    def validate(self) -> ValidationReport:
        """Every finding vMCP (and Kubernetes) would report, phase by phase."""
        return _CACHE.get(_digest(self.digest, "validate"), lambda: validate(self._load))

    @property
    def valid(self) -> bool:
        """No error anywhere."""
        return self.validate().valid

    def plan(self, tool: str) -> ToolPlan:
        """The execution levels, dataflow and race warnings of one tool."""
        return plan_tool(self._tool(tool))

    @overload
    def transpile(
        self, tool: str, *, tool_schemas: Mapping[str, Any] | None = ..., fixes: Iterable[str] = ...
    ) -> Transpiled: ...

    @overload
    def transpile(
        self,
        tool: None = ...,
        *,
        tool_schemas: Mapping[str, Any] | None = ...,
        fixes: Iterable[str] = ...,
    ) -> dict[str, Transpiled]: ...

    def transpile(
        self,
        tool: str | None = None,
        *,
        tool_schemas: Mapping[str, Any] | None = None,
        fixes: Iterable[str] = (),
    ) -> Transpiled | dict[str, Transpiled]:
        """The script of ``tool``, or of every tool by name.

        ``tool_schemas`` maps backend tool names to their ``inputSchema`` (a
        ``tools/list``), for vMCP's argument conversion; ``fixes`` names vMCP
        quirks to fix instead of reproducing.
        """
        chosen = tuple(sorted(set(fixes)))
        if tool is not None:
            return self._transpiled(self._tool(tool), tool_schemas, chosen)
        return {
            name: self.transpile(name, tool_schemas=tool_schemas, fixes=chosen)
            for name in self._unique()
        }

    @overload
    def check(
        self,
        tool: str,
        *,
        options: CheckOptions | None = ...,
        tool_schemas: Mapping[str, Any] | None = ...,
        fixes: Iterable[str] = ...,
    ) -> ToolCheck: ...

    @overload
    def check(
        self,
        tool: None = ...,
        *,
        options: CheckOptions | None = ...,
        tool_schemas: Mapping[str, Any] | None = ...,
        fixes: Iterable[str] = ...,
    ) -> dict[str, ToolCheck]: ...

    def check(
        self,
        tool: str | None = None,
        *,
        options: CheckOptions | None = None,
        tool_schemas: Mapping[str, Any] | None = None,
        fixes: Iterable[str] = (),
    ) -> ToolCheck | dict[str, ToolCheck]:
        """The equivalence verdict of ``tool``'s script (or every tool's), as ``check`` gives it.

        ``ToolCheck.report`` is the harness's own report object.
        """
        chosen = tuple(sorted(set(fixes)))
        options = options or CheckOptions()
        if tool is None:
            return {
                name: self.check(name, options=options, tool_schemas=tool_schemas, fixes=chosen)
                for name in self._unique()
            }
        loaded = self._tool(tool)
        key = _digest(self.digest, "check", tool, _options_key(tool_schemas, chosen), repr(options))
        return _CACHE.get(key, lambda: self._check(loaded, tool_schemas, chosen, options))

    def deprecation_messages(self) -> dict[str, str]:
        """For each composite tool, the line a gateway logs about migrating it."""
        messages: dict[str, str] = {}
        for name in self._unique():
            result = self.transpile(name)
            messages[name] = deprecation_message(name, self.name, result.reason)
        return messages

    def _unique(self) -> tuple[str, ...]:
        names = self.tools
        for name in names:
            self._tool(name)
        return names

    def _tool(self, name: str) -> LoadedTool:
        found = [tool for tool in self._load.tools if tool.config.name == name]
        if not found:
            known = ", ".join(self.tools) or "none"
            raise InputError(f"no composite tool named {name!r} in {self.name} (found: {known})")
        if len(found) > 1:
            places = ", ".join(source_label(tool) for tool in found)
            raise InputError(f"composite tool {name!r} is defined {len(found)} times ({places})")
        return found[0]

    def _unit(self, tool: LoadedTool) -> UnitReport | None:
        key = (tool.origin.file, tool.origin.document, tool.origin.path)
        return judging_units(self.validate()).get(key)

    def _transpiled(
        self, tool: LoadedTool, schemas: Mapping[str, Any] | None, fixes: tuple[str, ...]
    ) -> Transpiled:
        key = _digest(self.digest, "transpile", tool.config.name, _options_key(schemas, fixes))
        return _CACHE.get(key, lambda: _transpile(tool, self._unit(tool), schemas, fixes))

    def _check(
        self,
        tool: LoadedTool,
        schemas: Mapping[str, Any] | None,
        fixes: tuple[str, ...],
        options: CheckOptions,
    ) -> ToolCheck:
        unit = self._unit(tool)
        rejected = rejection(tool, unit)
        emitted = emit(tool, schemas, fixes) if rejected is None else rejected.reason
        outcome = decide(tool, unit, emitted, options) if rejected is None else rejected
        if outcome.check is not None:
            return outcome.check
        return ToolCheck(Verdict.NOT_CONVERTED, outcome.reason)


def _transpile(
    tool: LoadedTool,
    unit: UnitReport | None,
    schemas: Mapping[str, Any] | None,
    fixes: tuple[str, ...],
) -> Transpiled:
    label = source_label(tool)
    rejected = rejection(tool, unit)
    if rejected is not None:
        return Transpiled(tool.config.name, label, None, reason=rejected.reason)
    emitted = emit(tool, schemas, fixes)
    if isinstance(emitted, str):
        reason = f"the emitter cannot express it exactly: {emitted}"
        return Transpiled(tool.config.name, label, None, reason=reason)
    return Transpiled(
        tool.config.name,
        label,
        emitted.script,
        emitted.source_map,
        emitted.domain,
        emitted.quirks,
        emitted.deviations,
        emitted.warnings,
    )


def _options_key(schemas: Mapping[str, Any] | None, fixes: tuple[str, ...]) -> str:
    encoded = json.dumps(schemas, sort_keys=True, default=repr) if schemas is not None else "-"
    return _digest(encoded, *fixes)


def load(source: Source, *, name: str | None = None) -> Config:
    """Load a configuration: a path (file or directory), file content (bytes), or a parsed dict.

    A dict is read as the JSON it would be written as. Raises
    :class:`~transpiler.diagnostics.InputError` when a path cannot be read,
    content is over the size limit, or a dict is not plain JSON data (or nests
    deeper than the loader reads); syntax and validity problems are reported
    by :meth:`Config.validate`.
    """
    if isinstance(source, bytes):
        return _from_bytes([(name or "<bytes>", source)], name or "<bytes>")
    if isinstance(source, Mapping):
        _check_nesting(source)
        try:
            text = json.dumps(source, indent=2, ensure_ascii=False, allow_nan=False)
            data = text.encode("utf-8")
        except (TypeError, ValueError) as error:
            raise InputError(f"the configuration is not plain JSON data: {error}") from None
        return _from_bytes([(name or "<dict>", data)], name or "<dict>")
    path = Path(source)
    contents: list[tuple[str, bytes]] = []
    for found in discover([path]):
        file, content, problem = read_source(found)
        if content is None:
            raise InputError(f"{file}: {problem}")
        contents.append((file, content))
    return _from_bytes(contents, name or str(source))


def loads(text: str | bytes, *, name: str = "<text>") -> Config:
    """Load a configuration from YAML or JSON text."""
    try:
        data = text.encode("utf-8") if isinstance(text, str) else text
    except UnicodeEncodeError as error:
        raise InputError(
            f"{name}: the text is not valid Unicode: {error.reason} at position {error.start}"
        ) from None
    return _from_bytes([(name, data)], name)


def _check_nesting(value: Any) -> None:
    """Refuse data nested deeper than the YAML loader reads (without recursing)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"the configuration nests deeper than {MAX_DEPTH} levels")
        if isinstance(item, Mapping):
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            pending.extend((child, depth + 1) for child in item)


def _from_bytes(contents: list[tuple[str, bytes]], name: str) -> Config:
    for file, data in contents:
        if len(data) > MAX_FILE_BYTES:
            raise InputError(f"{file}: {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
    digest = _digest(name, *(part for file, data in contents for part in (file, data)))

    def build() -> Config:
        load_result = load_sources((file, data, None) for file, data in contents)
        return Config(name, digest, load_result)

    return _CACHE.get(digest, build)


def deprecation_message(tool: str, config: str, reason: str | None = None) -> str:
    """The line a gateway logs for a composite tool: how to migrate it, or why it cannot be yet."""
    if reason is not None:
        return (
            f'composite tool "{tool}" is deprecated in favour of Starlark scripted tools '
            f"(THV-0051) but cannot be migrated automatically yet: {reason}"
        )
    return (
        f'composite tool "{tool}" can be migrated to a Starlark scripted tool (THV-0051): '
        f"run `vmcp-transpile migrate {config}` to review the change, then add --write"
    )


def clear_cache() -> None:
    """Forget every cached load, transpile and check result."""
    _CACHE.clear()
