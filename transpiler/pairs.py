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
  (:mod:`transpiler.sidecar`) are read after BASE: an entry pairs with the
  scripted tool of its name that nothing before it paired, and an entry whose
  scripted tool is gone is not converted, with that reason;
- otherwise, the script the emitter writes for it.

Under ``--baseline-git REV`` the pairing is a change's (:mod:`transpiler.gate.review`
reports what it changed): each script is certified against its record as the
change leaves it. The composite baselines are read from the work tree, before
REV's composite tools; a composite tool beside a scripted tool that has an
entry (in the work tree's composite baseline or REV's) is not what the script
is checked against, but set aside (``Pairing.beside``) and reported as a
change of its record; a scripted tool whose entry REV holds but the change
removed is not converted (a record is retired only with its script); and a
composite tool of REV's whose name the change no longer holds anywhere is
retired, not paired.

A configuration vMCP rejects before it reads any of its tools (the late-2025
snake_case layout: P1's unknown fields) is not converted, naming its file,
the phase and vMCP's error (``Pairing.rejected``).

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
from transpiler.inputs.git import read_revision, revision_reader
from transpiler.inputs.scripted import Counterpart, one_of
from transpiler.listing import ListedTool, ScriptedEntry
from transpiler.pipeline import judging_units, rejection, tool_key, tool_location, unit_rejection
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
    if where.revision is None:
        return inputs_from([*files, *sidecars], target=where.target)
    return inputs_from(
        [*files, *sidecars],
        revision_reader(where.revision, where.paths[0]),
        target=where.target,
    )


@dataclass(frozen=True)
class Script:
    """A script someone wrote (or edited), where it is, the modules it may load, and the
    ``tools/list`` entry of its scripted tool (None: a bare script file)."""

    text: str
    where: str
    modules: dict[str, str] = field(default_factory=dict)
    entry: ScriptedEntry | None = None
    #: The file and line the script's first line is on (see ``Counterpart``).
    at: tuple[str, int] | None = None


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
        (when ``sidecars``) the composite baselines beside the configuration's files, as the
        work tree holds them (under a git baseline, the change's records)."""
        if not self.sidecars or self.script_file is not None:
            return self.baseline
        found = find_sidecars(self.config.paths)
        if not found:
            return self.baseline
        return replace(self.baseline or Where((), target=self.config.target), sidecars=found)

    def before(self) -> Where | None:
        """What a change is compared with: the configuration and its composite baselines as the
        git baseline's revision holds them; None when the request is not a change's (no
        ``--baseline-git``, or one ``--script``)."""
        if self.baseline is None or self.baseline.revision is None or not self.sidecars:
            return None
        if self.script_file is not None:
            return None
        return replace(self.baseline, sidecars=(), revision_sidecars=True)

    def after(self) -> Where:
        """What the change leaves: the configuration and its composite baselines in the work
        tree."""
        return Where(
            self.config.paths,
            sidecars=find_sidecars(self.config.paths),
            target=self.config.target,
        )


@dataclass(frozen=True)
class Pair:
    """One composite tool (the ``index``-th of its side's inputs) and its script.

    ``script`` None: the emitter writes it. ``refusal``: why there is nothing to
    check (vMCP rejects the tool or its configuration, or the script cannot be
    read); a pair with a refusal may name no composite tool (``index`` -1).
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
    """Every pair, the scripted tools with nothing to check against, unreadable inputs; the
    configurations vMCP rejects before reading a tool (refused pairs naming no composite tool)
    and, in a change, the composite tools set aside beside a recorded script (each paired
    with that script)."""

    pairs: tuple[Pair, ...]
    unpaired: tuple[str, ...]
    unreadable: tuple[Diagnostic, ...]
    rejected: tuple[Pair, ...] = ()
    beside: tuple[Pair, ...] = ()


def pair(request: Request) -> Pairing:
    """Pair every composite tool of the request (see the module's docstring), from the inputs
    as they are now (what an earlier pairing read in this process is read again)."""
    _read.cache_clear()
    config = request.config.read()
    if request.script_file is not None:
        return _one_script(request, config)
    composites = request.composites()
    baseline = composites.read() if composites is not None else None
    before = request.before()
    recorded = recorded_names(before.read()) if before is not None else None
    return pair_inputs(config, baseline, request.library_path, recorded=recorded)


def recorded_names(inputs: Inputs) -> frozenset[str]:
    """The names of the tools ``inputs``' composite baselines record."""
    assert inputs.load is not None
    return frozenset(t.config.name for t in inputs.load.tools if t.origin.file.endswith(SUFFIX))


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
        found[counterpart.where] = Script(
            counterpart.script, counterpart.where, modules, entry, counterpart.script_at
        )
    return found


def pair_inputs(
    config: Inputs,
    baseline: Inputs | None = None,
    library_path: Sequence[str] = (),
    scripts: Mapping[str, Loaded] | None = None,
    recorded: frozenset[str] | None = None,
) -> Pairing:
    """Pair the composite tools of ``config`` (or of ``baseline``, for the scripted tools of
    ``config`` that have no composite tool beside them), with the scripted tools' ``scripts``
    (:func:`scripts_of`, read now when not given). ``recorded``: a change's pairing (see the
    module's docstring), with the names the revision's composite baselines record."""
    assert config.load is not None
    if scripts is None:
        scripts = scripts_of(config, library_path)
    change = recorded is not None
    entries = recorded_names(baseline) if baseline is not None else frozenset()
    kept = entries | (recorded or frozenset())
    pairs: list[Pair] = []
    beside: list[Pair] = []
    used: set[str] = set()
    modules: list[Diagnostic] = []
    found, rejected = _pairs_of(config, baseline=False)
    for item, counterpart in found:
        if counterpart is not None:
            paired = _with(item, counterpart, scripts, modules)
            if change and item.tool in kept:
                beside.append(paired)  # the script goes on to its record
                continue
            used.add(counterpart.where)
            item = paired
        pairs.append(item)
    left = _by_name(config, used)
    unreadable = config.load.input_errors
    if baseline is not None:
        assert baseline.load is not None
        still_composite = {item.tool for item in pairs}
        held = still_composite | entries | {c.tool for c in config.scripted.counterparts()}
        based: dict[str, str] = {}
        for name in sorted((recorded or frozenset()) - entries):
            counterpart = left.pop(name, None)
            if counterpart is not None:
                pairs.append(_unrecorded(name, counterpart))
                based[name] = SUFFIX
        items, _ = _pairs_of(baseline, baseline=True)
        if change:  # the change's records first: a script is certified against them
            items.sort(key=lambda found: not found[0].file.endswith(SUFFIX))
        for item, _ in items:
            if item.tool in still_composite:
                continue  # checked in the configuration, where it is still a composite tool
            if change and item.tool not in held:
                continue  # retired: the change holds the name nowhere
            first = based.get(item.tool)
            if first is not None and (change or item.file.endswith(SUFFIX)):
                continue  # a composite baseline yields to what was read before it
            based[item.tool] = item.file
            counterpart = left.pop(item.tool, None)
            if counterpart is not None:
                item = _with(item, counterpart, scripts, modules)
            elif item.refusal is None:
                item = replace(item, refusal=_gone(item, baseline))
            pairs.append(item)
        unreadable = (*unreadable, *baseline.load.input_errors)
    return Pairing(
        tuple(pairs),
        tuple(sorted(left)),
        (*unreadable, *dict.fromkeys(modules)),
        tuple(rejected),
        tuple(beside),
    )


def _gone(item: Pair, baseline: Inputs) -> str:
    """Why a baseline's composite tool has nothing to be checked against."""
    why = f"no scripted or composite tool named {item.tool} in the configuration"
    if not item.file.endswith(SUFFIX):
        return why
    assert baseline.load is not None
    line = tool_location(baseline.load.tools[item.index]).line
    return (
        f"{item.file}:{line}: the composite baseline records {item.tool}, but {why}: to retire "
        "the tool, delete that entry in the same change; if it was renamed, rename the entry "
        "(its name) as its scripted tool was"
    )


def _unrecorded(name: str, counterpart: Counterpart) -> Pair:
    """A scripted tool whose composite-baseline entry the change removed: not checked."""
    why = (
        f"the revision's composite baseline records {name}, but the change removed that entry "
        f"while its scripted tool stays at {counterpart.where}: restore the entry (to rename "
        "the tool, rename the entry and its scripted tool together), or retire the tool by "
        "removing its scripted tool in the same change"
    )
    file = counterpart.where.split(" (")[0].rpartition(":")[0]
    return Pair(True, -1, name, file, None, why)


def _one_script(request: Request, config: Inputs) -> Pairing:
    assert config.load is not None and request.script_file is not None
    path = Path(request.script_file)
    text = read_text(path)
    found = [item for item, _ in _pairs_of(config, baseline=False)[0] if item.tool == request.tool]
    if not found:
        names = ", ".join(sorted({t.config.name for t in config.load.tools})) or "none"
        raise InputError(f"no composite tool named {request.tool} (the configuration has {names})")
    modules = library_modules(text, _library(request.library_path, path.parent))
    script = Script(text, str(path), modules, at=(str(path), 1))
    return Pairing((replace(found[0], script=script),), (), config.load.input_errors)


def _pairs_of(
    inputs: Inputs, baseline: bool
) -> tuple[list[tuple[Pair, Counterpart | None]], list[Pair]]:
    """Each composite tool (with vMCP's refusal, if any) and the scripted tool beside it; and a
    refused pair for each configuration vMCP rejects before reading any tool of it."""
    assert inputs.load is not None
    report = validate(inputs.load)
    units = judging_units(report)
    found: list[tuple[Pair, Counterpart | None]] = []
    for index, tool in enumerate(inputs.load.tools):
        unit = units.get(tool_key(tool))
        refused = rejection(tool, unit)
        reason = refused.reason if refused is not None else None
        item = Pair(baseline, index, tool.config.name, tool.origin.file, None, reason)
        found.append((item, inputs.counterpart(tool, unit.unit.namespace if unit else "default")))
    rejected = [
        Pair(baseline, -1, unit.unit.label, unit.unit.file, None, unit_rejection(unit, file))
        for unit in report.units
        if not unit.valid and not unit.unit.tools
        for file in (unit.unit.file,)
    ]
    return found, rejected


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
