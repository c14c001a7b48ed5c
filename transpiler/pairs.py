"""Pairs: each composite tool with the script that replaces it.

A composite tool pairs, by preference, with:

- the script file given for it (``check --script FILE.star --tool NAME``);
- the scripted tool of its name beside it: in the same config mapping
  (``scriptedTools``), or, for a ``VirtualMCPCompositeToolDefinition``, the
  ``VirtualMCPScriptedToolDefinition`` of the same namespace and name (what
  ``migrate --keep-composite`` writes, and what a staged migration holds);
- with a baseline (``check --baseline BASE CONFIG``), the composite tools come
  from BASE, and each pairs with the scripted tool of its name in CONFIG;
- the composite baselines ``migrate --write`` left beside CONFIG's files
  (:mod:`transpiler.sidecar`; with ``--baseline-git REV``, as REV holds them) are
  read after BASE: an entry pairs with the
  scripted tool of its name that nothing before it paired, and an entry whose
  scripted tool is gone is not converted, with that reason;
- otherwise, the script the emitter writes for it.

A script may ``load()`` modules found on the library path (by default the
directory of the file that holds the scripted tool, or of the script file),
by the one rule of :func:`~transpiler.starlark_runtime.library.module_file`.
A scripted tool vMCP would not take (:mod:`transpiler.inputs.scripted`: a key
given twice, ``script`` with ``scriptFile``, two of one name, a
``scriptFile`` outside its configuration's folder) is checked against
nothing: its composite tool is not converted, with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, InputError
from transpiler.inputs.files import Inputs, inputs_from, read_files
from transpiler.inputs.git import read_revision
from transpiler.inputs.scripted import Counterpart, one_of
from transpiler.listing import ListedTool, ScriptedEntry
from transpiler.pipeline import judging_units, rejection, tool_key, tool_location
from transpiler.reading import UnreadableFile, read_text
from transpiler.sidecar import SUFFIX, find_sidecars, sidecar_path
from transpiler.starlark_runtime.library import module_file
from transpiler.validate import validate

#: Most modules one script may load (directly or through other modules).
MAX_MODULES = 64
_LOAD = re.compile(r"""^load\(\s*(?P<quote>["'])(?P<name>[^"'\\\n]+)(?P=quote)""", re.MULTILINE)


@dataclass(frozen=True)
class Where:
    """Where composite and scripted tools are read: files or directories, or as a git revision
    holds them; then the composite baselines: ``sidecars`` (from the work tree), or with
    ``revision_sidecars`` those the revision holds under ``paths``. Scripted tools are read as
    ``target`` loads them."""

    paths: tuple[str, ...]
    revision: str | None = None
    sidecars: tuple[str, ...] = ()
    revision_sidecars: bool = False
    target: Target = DEFAULT_TARGET

    def read(self) -> Inputs:
        """The inputs (read once per process)."""
        return _read(self)


@cache
def _read(where: Where) -> Inputs:
    if where.revision is None:
        files = read_files(list(where.paths))
    else:
        files = read_revision(where.revision, where.paths)
    sidecars = read_files(list(where.sidecars))
    if where.revision is not None and where.revision_sidecars:
        beside = [p if Path(p).is_dir() else str(sidecar_path(Path(p))) for p in where.paths]
        sidecars = read_revision(where.revision, beside, (SUFFIX,), required=False)
    return inputs_from([*files, *sidecars], target=where.target)


@dataclass(frozen=True)
class Script:
    """A script someone wrote (or edited), where it is, the modules it may load, and the
    ``tools/list`` entry of its scripted tool (None: a bare script file)."""

    text: str
    where: str
    modules: dict[str, str] = field(default_factory=dict)
    entry: ScriptedEntry | None = None


@dataclass(frozen=True)
class Request:
    """What ``check`` is asked to pair: CONFIG's tools, a baseline, or one script for one tool."""

    config: Where
    baseline: Where | None = None
    script_file: str | None = None
    tool: str | None = None
    library_path: tuple[str, ...] = ()
    sidecars: bool = False

    def composites(self) -> Where | None:
        """Where the composite tools that scripted tools replaced are: the baseline, then
        (when ``sidecars``) the composite baselines beside the configuration's files; as a git
        baseline's revision holds them, so that a change cannot edit what it is checked
        against (nor remove it)."""
        if not self.sidecars or self.script_file is not None:
            return self.baseline
        if self.baseline is not None and self.baseline.revision is not None:
            return replace(self.baseline, revision_sidecars=True)
        found = find_sidecars(self.config.paths)
        if not found:
            return self.baseline
        return replace(self.baseline or Where((), target=self.config.target), sidecars=found)


@dataclass(frozen=True)
class Pair:
    """One composite tool (the ``index``-th of its side's inputs) and its script.

    ``script`` None: the emitter writes it. ``refusal``: why there is nothing to
    check (vMCP rejects the tool, or the script cannot be read).
    """

    baseline: bool
    index: int
    tool: str
    file: str
    script: Script | None
    refusal: str | None = None

    def composite(self, config: Inputs, baseline: Inputs | None = None) -> LoadedTool:
        """The composite tool, from the inputs it was paired from."""
        inputs = baseline if self.baseline and baseline is not None else config
        assert inputs.load is not None
        return inputs.load.tools[self.index]


@dataclass(frozen=True)
class Pairing:
    """Every pair, the scripted tools with nothing to check against, unreadable inputs."""

    pairs: tuple[Pair, ...]
    unpaired: tuple[str, ...]
    unreadable: tuple[Diagnostic, ...]


def pair(request: Request) -> Pairing:
    """Pair every composite tool of the request (see the module's docstring), from the inputs
    as they are now (what an earlier pairing read in this process is read again)."""
    _read.cache_clear()
    config = request.config.read()
    if request.script_file is not None:
        return _one_script(request, config)
    composites = request.composites()
    baseline = composites.read() if composites is not None else None
    return pair_inputs(config, baseline, request.library_path)


#: A scripted tool's script with the modules it loads, or the module that cannot be read.
Loaded = Script | UnreadableFile


def scripts_of(inputs: Inputs, library_path: Sequence[str] = ()) -> dict[str, Loaded]:
    """Every scripted tool's script that can be checked, with the modules it loads (or why one
    cannot be read), by where the scripted tool is."""
    found: dict[str, Loaded] = {}
    for counterpart in inputs.scripted.counterparts():
        if counterpart.script is None or counterpart.problem is not None:
            continue
        library = _library(library_path, counterpart.folder)
        try:
            modules = library_modules(counterpart.script, library)
        except UnreadableFile as error:
            found[counterpart.where] = error
            continue
        listed = ListedTool(
            counterpart.tool,
            counterpart.description,
            counterpart.parameters,
            counterpart.output,
            counterpart.annotations,
        )
        # No timeout written: THV-0051's default, as vMCP's 0 is.
        entry = ScriptedEntry(listed, counterpart.timeout_ns or 0)
        found[counterpart.where] = Script(counterpart.script, counterpart.where, modules, entry)
    return found


def pair_inputs(
    config: Inputs,
    baseline: Inputs | None = None,
    library_path: Sequence[str] = (),
    scripts: Mapping[str, Loaded] | None = None,
) -> Pairing:
    """Pair the composite tools of ``config`` (or of ``baseline``, for the scripted tools of
    ``config`` that have no composite tool beside them), with the scripted tools' ``scripts``
    (:func:`scripts_of`, read now when not given)."""
    assert config.load is not None
    if scripts is None:
        scripts = scripts_of(config, library_path)
    pairs: list[Pair] = []
    used: set[str] = set()
    modules: list[Diagnostic] = []
    for item, counterpart in _pairs_of(config, baseline=False):
        if counterpart is not None:
            used.add(counterpart.where)
            item = _with(item, counterpart, scripts, modules)
        pairs.append(item)
    left = _by_name(config, used)
    unreadable = config.load.input_errors
    if baseline is not None:
        assert baseline.load is not None
        still_composite = {item.tool for item in pairs}
        based: set[str] = set()
        for item, _ in _pairs_of(baseline, baseline=True):
            if item.tool in still_composite:
                continue  # checked in the configuration, where it is still a composite tool
            if item.tool in based and item.file.endswith(SUFFIX):
                continue  # a composite baseline yields to what was read before it
            based.add(item.tool)
            counterpart = left.pop(item.tool, None)
            if counterpart is not None:
                item = _with(item, counterpart, scripts, modules)
            elif item.refusal is None:
                item = replace(item, refusal=_gone(item, baseline))
            pairs.append(item)
        unreadable = (*unreadable, *baseline.load.input_errors)
    return Pairing(tuple(pairs), tuple(sorted(left)), (*unreadable, *dict.fromkeys(modules)))


def _gone(item: Pair, baseline: Inputs) -> str:
    """Why a baseline's composite tool has nothing to be checked against."""
    why = f"no scripted or composite tool named {item.tool} in the configuration"
    if not item.file.endswith(SUFFIX):
        return why
    assert baseline.load is not None
    line = tool_location(baseline.load.tools[item.index]).line
    return (
        f"{item.file}:{line}: the composite baseline records {item.tool}, but {why}: if the "
        "tool was retired or renamed, delete its entry from that file"
    )


def _one_script(request: Request, config: Inputs) -> Pairing:
    assert config.load is not None and request.script_file is not None
    path = Path(request.script_file)
    text = read_text(path)
    found = [item for item, _ in _pairs_of(config, baseline=False) if item.tool == request.tool]
    if not found:
        names = ", ".join(sorted({t.config.name for t in config.load.tools})) or "none"
        raise InputError(f"no composite tool named {request.tool} (the configuration has {names})")
    modules = library_modules(text, _library(request.library_path, path.parent))
    script = Script(text, str(path), modules)
    return Pairing((replace(found[0], script=script),), (), config.load.input_errors)


def _pairs_of(inputs: Inputs, baseline: bool) -> list[tuple[Pair, Counterpart | None]]:
    """Each composite tool (with vMCP's refusal, if any) and the scripted tool beside it."""
    assert inputs.load is not None
    units = judging_units(validate(inputs.load))
    found: list[tuple[Pair, Counterpart | None]] = []
    for index, tool in enumerate(inputs.load.tools):
        unit = units.get(tool_key(tool))
        refused = rejection(tool, unit)
        reason = refused.reason if refused is not None else None
        item = Pair(baseline, index, tool.config.name, tool.origin.file, None, reason)
        found.append((item, inputs.counterpart(tool, unit.unit.namespace if unit else "default")))
    return found


def _by_name(inputs: Inputs, used: set[str]) -> dict[str, Counterpart]:
    """The scripted tools not paired beside a composite tool, by tool name; a name several
    of them have pairs with none (a baseline's composite tool would not know which)."""
    named: dict[str, list[Counterpart]] = {}
    for counterpart in inputs.scripted.counterparts():
        if counterpart.where not in used:
            named.setdefault(counterpart.tool, []).append(counterpart)
    return {name: one_of(every) for name, every in named.items()}


def _with(
    item: Pair, counterpart: Counterpart, scripts: Mapping[str, Loaded], problems: list[Diagnostic]
) -> Pair:
    """``item`` paired with a scripted tool (refused when vMCP would not take it, or its script
    or a module it loads cannot be read; such a module is added to ``problems``)."""
    if item.refusal is not None:
        return item
    if counterpart.problem is not None:
        return replace(item, refusal=counterpart.problem)
    script = scripts.get(counterpart.where)
    if isinstance(script, UnreadableFile):
        problems.append(Diagnostic("INPUT.unreadable", script.reason, script.location))
        why = f"the scripted tool at {counterpart.where} loads a module that cannot be read: "
        return replace(item, refusal=why + str(script))
    if counterpart.script is None or script is None:
        why = f"the scripted tool at {counterpart.where} has no script that can be read"
        return replace(item, refusal=why)
    return replace(item, script=script)


def _library(library_path: Sequence[str], folder: Path) -> tuple[Path, ...]:
    return tuple(Path(entry) for entry in library_path) or (folder,)


def library_modules(text: str, library_path: Sequence[Path]) -> dict[str, str]:
    """The modules ``text`` loads, and those they load, as found on ``library_path`` (first
    directory first). A name found nowhere, or that leaves its directory, is left out: the run
    then fails to load it, as vMCP's would. A module file found that cannot be read (not a
    regular file, over the size limit, not UTF-8) raises :class:`UnreadableFile`."""
    modules: dict[str, str] = {}
    pending = [text]
    while pending and len(modules) < MAX_MODULES:
        for match in _LOAD.finditer(pending.pop()):
            name = match.group("name")
            if name in modules:
                continue
            source = _module(name, library_path)
            if source is not None:
                modules[name] = source
                pending.append(source)
    return dict(sorted(modules.items()))


def _module(name: str, library_path: Sequence[Path]) -> str | None:
    for folder in library_path:
        path = module_file(folder, name)
        if path is not None:
            return read_text(path)
    return None
