"""The library API, for gateways and tools that embed the transpiler.

>>> import transpiler
>>> config = transpiler.load("corpus/example/vmcp-config.yaml")
>>> config.validate().valid
True
>>> result = config.transpile("sync_inventory")
>>> result.converted, result.script.startswith("# sync_inventory: ")
(True, True)

Everything here is deterministic (same input, same output), safe to call
from several threads, and cached by content hash: loading an unchanged
configuration again costs a read and a SHA-256 (of its files and of the
script files its ``scriptFile`` entries cite), and its transpile and check
results are reused (a check's, while the modules its scripts ``load()`` are
unchanged too). Returned objects are shared between callers: treat them as
read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, overload

from transpiler.cache import SingleFlightCache
from transpiler.config.loader import MAX_FILE_BYTES, discover, load_sources, read_source
from transpiler.config.units import LoadedTool, LoadResult
from transpiler.config.yamlv3 import MAX_DEPTH
from transpiler.diagnostics import InputError
from transpiler.emit.report import Note, SourceMapEntry
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions
from transpiler.inputs.files import Inputs, load_contents
from transpiler.pairs import Loaded, Script, pair_inputs, scripts_of
from transpiler.pipeline import (
    ToolOutcome,
    decide,
    decide_script,
    emit,
    hidden,
    judging_units,
    rejected_files,
    rejection,
    source_label,
    tool_key,
)
from transpiler.plan import ToolPlan, plan_tool
from transpiler.reading import read_text
from transpiler.validate import UnitReport, ValidationReport, validate

__all__ = [
    "CheckOptions",
    "Config",
    "ToolOutcome",
    "Transpiled",
    "Verdict",
    "clear_cache",
    "deprecation_message",
    "load",
    "loads",
]

Source = str | os.PathLike[str] | bytes | Mapping[str, Any]
CACHE_SIZE: Final = 256


_CACHE = SingleFlightCache(CACHE_SIZE)


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

    ``modules`` are the Starlark modules the script loads (name -> source: an
    exact script's ``vmcp_compat.star``; none when self-contained); ``domain``
    lists the assumptions under which the script behaves like the composite
    tool, ``quirks`` the vMCP behaviours it reproduces on purpose,
    ``deviations`` the named deviation classes it may exhibit (a readable
    script's, or fixes asked for), ``warnings`` what a reviewer should look at.
    """

    tool: str
    location: str
    script: str | None
    style: str = "readable"
    modules: Mapping[str, str] = field(default_factory=dict, hash=False)
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

    __slots__ = ("_inputs", "_load", "_script_files", "digest", "name")

    def __init__(
        self,
        name: str,
        digest: str,
        inputs: Inputs,
        script_files: Mapping[Path, str] | None = None,
    ) -> None:
        self.name = name
        self.digest = digest
        self._inputs = inputs
        assert inputs.load is not None
        self._load: LoadResult = inputs.load
        self._script_files: Mapping[Path, str] = dict(script_files or {})

    @property
    def load_result(self) -> LoadResult:
        """What the loader read: units, notes, errors."""
        return self._load

    @property
    def tools(self) -> tuple[str, ...]:
        """The composite tools' names, in file order."""
        return tuple(tool.config.name for tool in self._load.tools)

    @property
    def scripted_tools(self) -> tuple[str, ...]:
        """The scripted tools' names (``scriptedTools`` entries and scripted definitions)."""
        names = [counterpart.tool for counterpart in self._inputs.scripted.counterparts()]
        return tuple(dict.fromkeys(names))

    def validate(self) -> ValidationReport:
        """Every finding vMCP (and Kubernetes) would report, phase by phase, about the files as
        written, their scripted tools included (each file judged against its own target:
        ``thv-0051`` when it holds scripted tools, docs/target.md)."""
        return _CACHE.get(_digest(self.digest, "validate"), self._validate_as_written)

    def _validate_as_written(self) -> ValidationReport:
        files = self._inputs.files
        written = ((f.name, f.data, f.problem) for f in files)
        return validate(load_sources(written), read=read_text)

    def _judged(self) -> ValidationReport:
        """vMCP's verdict on the composite tools, as ``migrate`` and ``check`` judge them (each
        file's composite view: its scripted entries aside)."""
        return _CACHE.get(_digest(self.digest, "judged"), lambda: validate(self._load))

    @property
    def valid(self) -> bool:
        """No error anywhere."""
        return self.validate().valid

    def plan(self, tool: str) -> ToolPlan:
        """The execution levels, dataflow and race warnings of one tool."""
        return plan_tool(self._tool(tool))

    @overload
    def transpile(
        self,
        tool: str,
        *,
        style: str = ...,
        inline_helpers: bool = ...,
        tool_schemas: Mapping[str, Any] | None = ...,
        fixes: Iterable[str] = ...,
    ) -> Transpiled: ...

    @overload
    def transpile(
        self,
        tool: None = ...,
        *,
        style: str = ...,
        inline_helpers: bool = ...,
        tool_schemas: Mapping[str, Any] | None = ...,
        fixes: Iterable[str] = ...,
    ) -> dict[str, Transpiled]: ...

    def transpile(
        self,
        tool: str | None = None,
        *,
        style: str = "readable",
        inline_helpers: bool = False,
        tool_schemas: Mapping[str, Any] | None = None,
        fixes: Iterable[str] = (),
    ) -> Transpiled | dict[str, Transpiled]:
        """The script of ``tool``, or of every tool by name.

        ``style`` is ``readable`` (default) or ``exact``; an exact script loads
        its helpers (``Transpiled.modules``) unless ``inline_helpers``;
        ``tool_schemas`` maps backend tool names to their ``inputSchema`` (a
        ``tools/list``), for vMCP's argument conversion; ``fixes`` names vMCP
        quirks to fix.
        """
        options = CheckOptions(
            style=style,
            inline_helpers=inline_helpers,
            tool_schemas=dict(tool_schemas) if tool_schemas is not None else None,
            fixes=tuple(sorted(set(fixes))),
        )
        key = _options_key(options)
        if tool is not None:
            return self._transpiled(self._tool(tool), options, key)
        return {name: self._transpiled(self._tool(name), options, key) for name in self._unique()}

    @overload
    def check(
        self,
        tool: str,
        *,
        options: CheckOptions | None = ...,
        script: str | None = ...,
        modules: Mapping[str, str] | None = ...,
        baseline: Config | None = ...,
        library_path: Sequence[str] = ...,
    ) -> ToolOutcome: ...

    @overload
    def check(
        self,
        tool: None = ...,
        *,
        options: CheckOptions | None = ...,
        script: None = ...,
        modules: None = ...,
        baseline: Config | None = ...,
        library_path: Sequence[str] = ...,
    ) -> dict[str, ToolOutcome]: ...

    def check(
        self,
        tool: str | None = None,
        *,
        options: CheckOptions | None = None,
        script: str | None = None,
        modules: Mapping[str, str] | None = None,
        baseline: Config | None = None,
        library_path: Sequence[str] = (),
    ) -> ToolOutcome | dict[str, ToolOutcome]:
        """``tool``'s outcome (or every composite tool's) as ``check`` decides it.

        Each composite tool is checked against ``script`` (with the ``modules``
        it loads) when given; else against the scripted tool of its name beside
        it, if there is one (its ``load()`` modules from ``library_path``); else
        against the script the emitter writes. With ``baseline``, the composite
        tools come from that configuration and are checked against this one's
        scripted tools of the same name. ``options`` are ``check``'s (style,
        scenarios, engines, accepted classes...); the outcome carries the
        verdict, the reason, the harness's report (``report``) and every remark.
        """
        options = options or CheckOptions()
        if script is not None:
            if tool is None:
                raise InputError("a script is checked against one composite tool: name it")
            owner = baseline or self
            loaded = owner._tool(tool)
            given = dict(sorted((modules or {}).items()))
            key = _digest(self.digest, "script", tool, script, repr(given))
            key = _digest(key, baseline.digest if baseline else "-", _options_key(options))
            return _CACHE.get(key, lambda: owner._check_script(loaded, script, given, options))
        scripts = scripts_of(self._inputs, library_path)
        modules_loaded = json.dumps({where: _modules_of(found) for where, found in scripts.items()})
        key = _digest(self.digest, baseline.digest if baseline else "-", "check", *library_path)
        key = _digest(key, _options_key(options), modules_loaded)
        outcomes = _CACHE.get(
            key, lambda: self._check_pairs(options, baseline, library_path, scripts)
        )
        if tool is None:
            return dict(outcomes)
        if tool not in outcomes:
            (baseline or self)._tool(tool)  # raises: no such tool, or defined twice
            raise InputError(f"no composite tool named {tool!r} to check in {self.name}")
        return outcomes[tool]

    def deprecation_messages(self) -> dict[str, str]:
        """The line a gateway logs about migrating each composite tool, as ``migrate`` decides
        it: converted, left as it is because vMCP hides it, or not converted because vMCP
        rejects its configuration (or the emitter cannot express it); and, keyed by the file,
        one for each file vMCP rejects before any composite tool of it is read."""
        messages: dict[str, str] = {}
        units = judging_units(self._judged())
        for name in self._unique():
            tool = self._tool(name)
            unit = units.get(tool_key(tool))
            refused = rejection(tool, unit) or hidden(tool, unit, CheckOptions())
            reason = refused.reason if refused is not None else self.transpile(name).reason
            messages[name] = deprecation_message(name, self.name, reason)
        for file, why in rejected_files(self._judged()).items():
            messages[file] = (
                f'configuration "{file}" cannot be migrated: {why}; no composite tool of it is '
                "read, so migrate converts nothing in it"
            )
        return messages

    def _unique(self) -> tuple[str, ...]:
        names = self.tools
        for name in names:
            self._tool(name)
        return names

    def _tool(self, name: str) -> LoadedTool:
        found = self._load.tools_by_name.get(name, ())
        if not found:
            known = ", ".join(self.tools) or "none"
            raise InputError(f"no composite tool named {name!r} in {self.name} (found: {known})")
        if len(found) > 1:
            places = ", ".join(source_label(tool) for tool in found)
            raise InputError(f"composite tool {name!r} is defined {len(found)} times ({places})")
        return found[0]

    def _unit(self, tool: LoadedTool) -> UnitReport | None:
        key = (tool.origin.file, tool.origin.document, tool.origin.path)
        return judging_units(self._judged()).get(key)

    def _transpiled(self, tool: LoadedTool, options: CheckOptions, options_key: str) -> Transpiled:
        key = _digest(self.digest, "transpile", tool.config.name, options_key)
        return _CACHE.get(key, lambda: _transpile(_outcome(tool, self._unit(tool), options, False)))

    def _check_script(
        self, tool: LoadedTool, script: str, modules: dict[str, str], options: CheckOptions
    ) -> ToolOutcome:
        rejected = rejection(tool, self._unit(tool))
        if rejected is not None:
            return rejected
        return decide_script(tool, script, "<script>", modules, options)

    def _check_pairs(
        self,
        options: CheckOptions,
        baseline: Config | None,
        library_path: Sequence[str],
        scripts: Mapping[str, Loaded],
    ) -> dict[str, ToolOutcome]:
        base = baseline._inputs if baseline is not None else None
        pairing = pair_inputs(self._inputs, base, library_path, scripts)
        outcomes: dict[str, ToolOutcome] = {}
        for item in pairing.pairs:
            owner = baseline if item.baseline and baseline is not None else self
            tool = item.composite(self._inputs, base)
            if item.script is not None:
                outcome = decide_script(
                    tool, item.script.text, item.script.where, item.script.modules, options
                )
            elif item.refusal is not None:  # vMCP's refusal (with its remarks), or the pairing's
                rejected = rejection(tool, owner._unit(tool))
                outcome = rejected or ToolOutcome(tool, Verdict.NOT_CONVERTED, item.refusal)
            else:
                outcome = _outcome(tool, owner._unit(tool), options, True)
            outcomes.setdefault(item.tool, outcome)
        return outcomes


def _outcome(
    tool: LoadedTool, unit: UnitReport | None, options: CheckOptions, check: bool
) -> ToolOutcome:
    """The pipeline's outcome for one tool (checked by the harness when ``check``)."""
    rejected = rejection(tool, unit)
    if rejected is not None:
        return rejected
    return decide(tool, unit, emit(tool, options), options, check=check)


def _transpile(outcome: ToolOutcome) -> Transpiled:
    tool = outcome.tool
    label = source_label(tool)
    emitted = outcome.emitted
    if emitted is None:
        return Transpiled(tool.config.name, label, None, reason=outcome.reason)
    return Transpiled(
        tool.config.name,
        label,
        emitted.script,
        emitted.style,
        emitted.modules,
        emitted.source_map,
        emitted.domain,
        emitted.quirks,
        emitted.deviations,
        emitted.warnings,
    )


def _modules_of(loaded: Loaded) -> dict[str, str] | str:
    """The modules a scripted tool's script loads, or why one cannot be read (for a key)."""
    return loaded.modules if isinstance(loaded, Script) else str(loaded)


def _options_key(options: CheckOptions) -> str:
    plain = replace(options, tool_schemas=None)
    schemas = options.tool_schemas
    encoded = json.dumps(schemas, sort_keys=True, default=repr) if schemas is not None else "-"
    return _digest(encoded, repr(plain))


def load(source: Source, *, name: str | None = None) -> Config:
    """Load a configuration: a path (file or directory), file content (bytes), or a parsed dict.

    A dict is read as the JSON it would be written as. Raises
    :class:`~transpiler.diagnostics.InputError` when a path cannot be read (a
    configuration file, or a ``scriptFile`` one cites: not a regular file, over
    the size limit, not UTF-8),
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
    """The configuration of ``contents``: cached by their digest, and by the content of the
    script files they cite (read again at every load, so an edited script file is seen)."""
    for file, data in contents:
        if len(data) > MAX_FILE_BYTES:
            raise InputError(f"{file}: {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
    base = _digest(name, *(part for file, data in contents for part in (file, data)))
    config = _CACHE.get(base, lambda: _build(name, base, contents, {}))
    now = {path: read_text(path) for path in config._script_files}
    if now == config._script_files:
        return config
    return _CACHE.get(_with_scripts(base, now), lambda: _build(name, base, contents, now))


def _build(
    name: str, base: str, contents: list[tuple[str, bytes]], given: Mapping[Path, str]
) -> Config:
    """A configuration whose script files hold ``given`` (those not given are read now); a
    script file that cannot be read is an InputError naming it."""
    read: dict[Path, str] = {}

    def reader(path: Path) -> str:
        read[path] = given[path] if path in given else read_text(path)
        return read[path]

    inputs = load_contents(contents, reader)
    for problem in inputs.scripted.unreadable:  # a script file the configuration cites
        raise InputError(problem.message, problem.location)
    return Config(name, _with_scripts(base, read), inputs, read)


def _with_scripts(base: str, scripts: Mapping[Path, str]) -> str:
    """The digest of a configuration (``base``) together with its script files' content."""
    if not scripts:
        return base
    return _digest(base, *(part for path in sorted(scripts) for part in (str(path), scripts[path])))


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
