"""``migrate``: every composite tool of the inputs to its scripted form, file by file.

1. Read every file and load its composite view (:mod:`.sources`), validate.
2. Per tool (:mod:`.outcome`): rejected by vMCP, or emitted; already migrated
   or in conflict with a scripted tool of the same name; a probe that its
   text can be rewritten; the harness's verdict.
3. Per file: refused unless every tool is certified (or ``force``); otherwise
   splice the edits (:mod:`.rewrite`), re-read and verify the result
   (:mod:`.verify`), and plan the writes (:mod:`.atomic`).
4. The helper library exact scripts load (:mod:`.library_file`): written
   with them; a different file in its place stops every write unless forced.
5. Beside each rewritten file, the composite baseline (:mod:`.sidecar_file`)
   records the composite tools it no longer holds, for ``check``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from transpiler.composite.output_schema import output_schema
from transpiler.config.model import DocumentKind
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic
from transpiler.emit.library import LIBRARY_NAME
from transpiler.emit.report import EmitResult
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions
from transpiler.inputs.files import BOM, Inputs, SourceFile, read_inputs
from transpiler.inputs.git import committed_in_git
from transpiler.inputs.scripted import Counterpart, same_code
from transpiler.inputs.textspan import Splice, Unrewritable, apply_splices
from transpiler.inputs.yamlspan import SpanDocument, SpanKind
from transpiler.listing import entry_annotations
from transpiler.migrate.atomic import PlannedWrite, remove_stale, write_all
from transpiler.migrate.cluster import references_line, resource_of, retired_definition_line
from transpiler.migrate.entry import ScriptedBody
from transpiler.migrate.library_file import LibraryFile, emit_options, library_file, noted
from transpiler.migrate.rewrite import DocumentEdits, ToolEdit, document_ends, document_splices
from transpiler.migrate.scriptfiles import ScriptFiles
from transpiler.migrate.sidecar_file import SidecarWrite, sidecar_write
from transpiler.migrate.verify import (
    OverLimit,
    TargetRefuses,
    VerificationError,
    target_refusal,
    verify,
)
from transpiler.pipeline import (
    Pairing,
    ToolOutcome,
    decide,
    emit,
    hidden,
    judging_units,
    rejected_files,
    rejection,
    tool_key,
)
from transpiler.sidecar import SidecarError
from transpiler.validate import UnitReport, validate


@dataclass(frozen=True)
class MigrateOptions:
    """What ``migrate`` does; the defaults are a dry run."""

    write: bool = False
    force: bool = False
    keep_composite: bool = False
    script_dir: Path | None = None
    library_dir: Path | None = None
    out_dir: Path | None = None
    backup_suffix: str | None = ".orig"
    #: Keep no backup of a file git holds as it is (git is its backup); ``--backup`` overrides.
    git_is_backup: bool = False
    check: CheckOptions = field(default_factory=CheckOptions)

    def backup_for(self, path: Path) -> str | None:
        """The suffix of ``path``'s backup, or None for none."""
        if self.backup_suffix and self.git_is_backup and committed_in_git(path):
            return None
        return self.backup_suffix


class FileStatus(StrEnum):
    """What happens to one file."""

    REWRITTEN = "rewritten"
    UNCHANGED = "unchanged"
    REFUSED = "refused"
    NOT_CONVERTED = "not converted"
    UNREADABLE = "unreadable"
    FAILED = "failed"


@dataclass(frozen=True)
class FileResult:
    """One file's fate; ``after`` is its new text when it changes."""

    path: Path
    status: FileStatus
    reason: str
    before: str | None = None
    after: str | None = None
    destination: Path | None = None
    moved_refs: tuple[str, ...] = ()
    replaced: tuple[ToolOutcome, ...] = ()
    #: What becomes of the file's resources in the cluster (:mod:`.cluster`).
    cluster: tuple[str, ...] = ()


@dataclass(frozen=True)
class MigrationReport:
    """Every tool's outcome and every file's, and whether the files were written."""

    options: MigrateOptions
    tools: tuple[ToolOutcome, ...]
    files: tuple[FileResult, ...]
    script_files: tuple[PlannedWrite, ...]
    notes: tuple[Diagnostic, ...]
    written: bool
    cleaned: tuple[Path, ...] = ()
    library: LibraryFile | None = None
    sidecars: tuple[SidecarWrite, ...] = ()

    @property
    def unreadable(self) -> bool:
        """Whether an input cannot be read: a config file, or a script file one cites."""
        files = any(result.status is FileStatus.UNREADABLE for result in self.files)
        return files or any(note.rule == "INPUT.unreadable" for note in self.notes)

    @property
    def complete(self) -> bool:
        """Every tool migrated and passing the gate, no file refused or failed."""
        tools_ok = all(_settled(o, self.options) for o in self.tools)
        files_ok = all(f.status in (FileStatus.REWRITTEN, FileStatus.UNCHANGED) for f in self.files)
        library_ok = self.library is None or not self.library.blocks(self.options.force)
        return tools_ok and files_ok and library_ok


def migrate(paths: list[str | Path], options: MigrateOptions) -> MigrationReport:
    """Plan the migration of everything under ``paths``; write it when ``options.write``."""
    inputs = read_inputs(paths, options.check.target)
    assert inputs.load is not None
    report = validate(inputs.load)
    units = judging_units(report)
    sources = {source.name: source for source in inputs.files}
    outcomes = tuple(
        noted(_outcome(tool, units.get(tool_key(tool)), inputs, sources, options), options.check)
        for tool in inputs.load.tools
    )
    rejected = rejected_files(report)
    results, writes, scripts, sidecars = _files(inputs, outcomes, rejected, options)
    library = _library(outcomes, results, options)
    write = options.write and (library is None or not library.blocks(options.force))
    cleaned: list[Path] = []
    if write:
        cleaned = remove_stale(_directories(inputs, results, options, library))
        extra = library.writes(options.force, options.backup_for(library.path)) if library else []
        write_all([*scripts.writes(), *writes, *(s.write for s in sidecars), *extra])
    notes = (*inputs.load.unreadable, *inputs.load.errors, *inputs.load.notes)
    return MigrationReport(
        options,
        outcomes,
        results,
        tuple(scripts.writes()),
        notes,
        write,
        tuple(cleaned),
        library,
        tuple(sidecars),
    )


def _directories(
    inputs: Inputs,
    results: tuple[FileResult, ...],
    options: MigrateOptions,
    library: LibraryFile | None,
) -> set[Path]:
    """Every directory a run may write to (where an interrupted one may have left files)."""
    found = {Path(os.path.realpath(source.path)).parent for source in inputs.files}
    found |= {source.path.parent for source in inputs.files}
    found |= {result.destination.parent for result in results if result.destination is not None}
    if options.script_dir is not None:
        found.add(options.script_dir)
    if library is not None:
        found.add(library.path.parent)
    return found


def _settled(outcome: ToolOutcome, options: MigrateOptions) -> bool:
    """Whether the tool is migrated (or, kept composite on purpose, already is) and passes."""
    if outcome.pairing is Pairing.ALREADY:
        return options.keep_composite or outcome.passes(options.check.accept)
    return outcome.pairing is Pairing.NEW and outcome.passes(options.check.accept)


def _blocks(outcome: ToolOutcome, options: MigrateOptions) -> bool:
    """Whether the tool stops its file from being migrated: it is not settled, and it is no
    tool vMCP hides (which is left as it is, the file's other tools migrated)."""
    return not outcome.hidden and not _settled(outcome, options)


def _writable(outcome: ToolOutcome, options: MigrateOptions) -> bool:
    """Whether the tool's scripted form is written (it passes, or it was converted and forced)."""
    if outcome.pairing is not Pairing.NEW or outcome.emitted is None:
        return False
    if outcome.verdict is Verdict.NOT_CONVERTED:
        return False
    return outcome.passes(options.check.accept) or options.force


def _outcome(
    tool: LoadedTool,
    unit: UnitReport | None,
    inputs: Inputs,
    sources: Mapping[str, SourceFile],
    options: MigrateOptions,
) -> ToolOutcome:
    rejected = rejection(tool, unit) or hidden(tool, unit, options.check)
    if rejected is not None:
        return rejected
    emitted = emit(tool, emit_options(tool, options.check))
    if isinstance(emitted, str):
        return decide(tool, unit, emitted, options.check)
    counterpart = inputs.counterpart(tool, unit.unit.namespace if unit is not None else "default")
    if counterpart is not None:
        return _existing(tool, unit, emitted, counterpart, options)
    problem = _probe(tool, emitted.script, sources[tool.origin.file], options.check)
    if problem is not None:
        reason = f"migrate cannot rewrite its YAML: {problem}"
        return ToolOutcome(tool, Verdict.NOT_CONVERTED, reason, emitted)
    return decide(tool, unit, emitted, options.check)


def _library(
    outcomes: tuple[ToolOutcome, ...], results: tuple[FileResult, ...], options: MigrateOptions
) -> LibraryFile | None:
    """The library file when a script this run writes loads it.

    It goes to ``library_dir``, else beside the first such script: in ``script_dir`` when
    the script goes to a script file, else in the folder of its rewritten file (where
    ``check`` looks for a script's modules by default).
    """
    rewritten = {str(r.path): r for r in results if r.status is FileStatus.REWRITTEN}
    for outcome in outcomes:
        result = rewritten.get(outcome.tool.origin.file)
        emitted = outcome.emitted
        if (
            result is not None
            and result.destination is not None
            and emitted is not None
            and LIBRARY_NAME in emitted.modules
            and _writable(outcome, options)
        ):
            in_file = outcome.tool.origin.kind is DocumentKind.VMCP_CONFIG
            script_dir = options.script_dir if in_file else None
            return library_file(options.library_dir or script_dir or result.destination.parent)
    return None


def _existing(
    tool: LoadedTool,
    unit: UnitReport | None,
    emitted: EmitResult,
    counterpart: Counterpart,
    options: MigrateOptions,
) -> ToolOutcome:
    """A tool whose scripted counterpart exists: already migrated, or in conflict with it."""
    if counterpart.script is None or not same_code(counterpart.script, emitted.script):
        why = counterpart.problem or (
            f"a scripted tool of the same name ({counterpart.where}) differs from this migration"
        )
        reason = f"{why}; it is left alone and the composite tool kept"
        return ToolOutcome(tool, None, reason, emitted, pairing=Pairing.CONFLICT)
    if options.keep_composite:
        reason = f"scripted form at {counterpart.where}; the composite tool is kept beside it"
        return ToolOutcome(tool, None, reason, emitted, pairing=Pairing.ALREADY)
    checked = decide(tool, unit, emitted, options.check)
    reason = f"scripted form at {counterpart.where}; {checked.reason}"
    return replace(checked, pairing=Pairing.ALREADY, reason=reason)


def _probe(tool: LoadedTool, script: str, source: SourceFile, options: CheckOptions) -> str | None:
    """Why the tool's text cannot be rewritten, or ``None``."""
    if source.text is None or source.documents is None:
        return "the file does not parse"
    output = output_schema(tool.config.output) if tool.config.output else None
    annotations = entry_annotations(tool.config, options.tool_annotations, options.target)
    body = ScriptedBody(script, None, output, annotations)
    edit = ToolEdit(tool.origin.path, body, remove=True)
    document = source.documents[tool.origin.document]
    try:
        document_splices(source.text, document, len(source.text.text), DocumentEdits((edit,)))
    except Unrewritable as problem:
        return str(problem)
    return None


def _files(
    inputs: Inputs,
    outcomes: tuple[ToolOutcome, ...],
    rejected: Mapping[str, str],
    options: MigrateOptions,
) -> tuple[tuple[FileResult, ...], list[PlannedWrite], ScriptFiles, list[SidecarWrite]]:
    """Each file's result, the writes of the files to rewrite, the script files, and the
    composite baselines beside the rewritten files."""
    by_file: dict[str, list[ToolOutcome]] = {}
    for outcome in outcomes:
        by_file.setdefault(outcome.tool.origin.file, []).append(outcome)
    destinations = _destinations(inputs.files, options.out_dir)
    refused = {
        name
        for name, tools in by_file.items()
        if not options.force and any(_blocks(o, options) for o in tools)
    }
    scripted = _scripted_resources(inputs, outcomes, refused, options)
    proposed = _scripted_resources(inputs, outcomes, set(), replace(options, force=True))
    scripts = ScriptFiles(options.script_dir)
    assert inputs.load is not None
    referenced = {
        (unit.namespace, unit.resource or "")
        for unit in inputs.load.units
        if unit.kind is DocumentKind.COMPOSITE_TOOL_DEFINITION and unit.referenced
    }
    results: list[FileResult] = []
    writes: list[PlannedWrite] = []
    sidecars: list[SidecarWrite] = []
    seen: dict[str, Path] = {}
    for source in inputs.files:
        tools = by_file.get(source.name, [])
        destination = destinations[source.name]
        first = seen.setdefault(os.path.realpath(source.path), source.path)
        if first != source.path and options.out_dir is None:
            reason = f"the same file as {first} (through a symbolic link): rewritten once"
            results.append(FileResult(source.path, FileStatus.UNCHANGED, reason))
            scripts.forget(source.name)
            continue
        if source.problem is not None or source.documents is None:
            reason = source.problem or "not valid YAML"
            results.append(FileResult(source.path, FileStatus.UNREADABLE, reason))
            scripts.forget(source.name)
            continue
        if source.name in rejected and not tools:
            reason = f"{rejected[source.name]}; no composite tool of it is read"
            results.append(FileResult(source.path, FileStatus.NOT_CONVERTED, reason))
            continue
        if source.name in refused:
            forced = replace(options, force=True)
            result = _file(source, tools, proposed, destination, scripts, forced, referenced)
            if result.status is not FileStatus.FAILED:
                result = _refusal(source, tools, result.after, options)
        else:
            result = _file(source, tools, scripted, destination, scripts, options, referenced)
        sidecar = None
        if result.status is FileStatus.REWRITTEN:
            try:
                sidecar = sidecar_write(source, destination, result.replaced, options)
            except SidecarError as problem:
                reason = f"not migrated, nothing changed: {problem}"
                result = FileResult(source.path, FileStatus.UNREADABLE, reason, result.before)
        results.append(result)
        if result.status is FileStatus.REWRITTEN:
            writes.append(_planned(source, result, options))
            if sidecar is not None:
                sidecars.append(sidecar)
        else:
            scripts.forget(source.name)
    return tuple(results), writes, scripts, sidecars


def _refusal(
    source: SourceFile, tools: list[ToolOutcome], proposal: str | None, options: MigrateOptions
) -> FileResult:
    """A file left alone; ``proposal`` is what ``--force`` would write, for the diff."""
    blocking = ", ".join(f"{o.name} ({state(o)})" for o in tools if _blocks(o, options))
    reason = (
        f"not every tool passes ({blocking}): the file is left as it is "
        "(--force migrates the converted tools anyway)"
    )
    before = source.text.text if source.text else None
    return FileResult(source.path, FileStatus.REFUSED, reason, before, proposal)


def _scripted_resources(
    inputs: Inputs, outcomes: tuple[ToolOutcome, ...], refused: set[str], options: MigrateOptions
) -> set[tuple[str, str]]:
    """Definitions that are scripts once this run is done."""
    scripted = set(inputs.scripted.by_resource)
    assert inputs.load is not None
    namespaces = {
        (tool.origin.file, tool.origin.document): unit.namespace
        for unit in inputs.load.units
        for tool in unit.tools
    }
    for outcome in outcomes:
        origin = outcome.tool.origin
        if (
            origin.kind is DocumentKind.COMPOSITE_TOOL_DEFINITION
            and origin.file not in refused
            and _writable(outcome, options)
        ):
            namespace = namespaces.get((origin.file, origin.document), "default")
            scripted.add((namespace, origin.resource or ""))
    return scripted


def _file(
    source: SourceFile,
    tools: list[ToolOutcome],
    scripted: set[tuple[str, str]],
    destination: Path,
    scripts: ScriptFiles,
    options: MigrateOptions,
    referenced: set[tuple[str, str]],
) -> FileResult:
    """The file's new text (verified), or why it stays as it is; ``scripted``: the definitions
    that are scripts once the run is done; ``referenced``: those a ``VirtualMCPServer`` among
    the inputs names."""
    assert source.text is not None and source.documents is not None
    edits: dict[int, list[ToolEdit]] = {}
    replaced: list[ToolOutcome] = []
    for outcome in tools:
        edit = _tool_edit(outcome, destination, scripts, options)
        if edit is not None:
            edits.setdefault(outcome.tool.origin.document, []).append(edit)
            replaced.extend([outcome] if edit.remove else [])
    removed = len(replaced)
    documents: dict[int, DocumentEdits] = {
        index: DocumentEdits(tuple(tool_edits)) for index, tool_edits in edits.items()
    }
    moved_refs: list[str] = []
    cluster: list[str] = []
    for document in source.documents:
        refs = _refs_to_move(document, scripted)
        if refs:
            current = documents.get(document.index, DocumentEdits())
            documents[document.index] = replace(
                current, refs=refs, keep_refs=options.keep_composite
            )
            moved_refs.extend(sorted(refs))
            server = resource_of(document)
            cluster.append(references_line(server, sorted(refs), options.keep_composite))
    for outcome in replaced:
        origin = outcome.tool.origin
        if origin.kind is DocumentKind.COMPOSITE_TOOL_DEFINITION:
            name, namespace = resource_of(source.documents[origin.document])
            known = (namespace, name) in referenced
            cluster.append(retired_definition_line(name, namespace, known))
    if not documents:
        return FileResult(source.path, FileStatus.UNCHANGED, _nothing(tools), source.text.text)
    text = source.text
    ends = document_ends(text, source.documents)
    splices: list[Splice] = []
    try:
        for document in source.documents:
            if document.index in documents:
                splices.extend(
                    document_splices(
                        text, document, ends[document.index], documents[document.index]
                    )
                )
        after = apply_splices(text.text, splices)
        verify(source.name, text.text, after, documents, len(tools) - removed)
        original, rewritten = (source.name, text.text), (str(destination), after)
        target_refusal(original, rewritten, options.check.target, scripts.read)
    except (OverLimit, TargetRefuses) as problem:
        reason = f"not migrated, nothing changed: {problem}"
        return FileResult(source.path, FileStatus.FAILED, reason, text.text)
    except (Unrewritable, VerificationError) as problem:
        reason = f"internal check failed, nothing changed (please report this): {problem}"
        return FileResult(source.path, FileStatus.FAILED, reason, text.text)
    if after == text.text:
        return FileResult(source.path, FileStatus.UNCHANGED, "already migrated", text.text)
    linked = " (through the symbolic link)" if source.path.is_symlink() else ""
    return FileResult(
        source.path,
        FileStatus.REWRITTEN,
        "migrated" + linked,
        text.text,
        after,
        destination,
        tuple(moved_refs),
        tuple(replaced),
        tuple(cluster),
    )


def _nothing(tools: list[ToolOutcome]) -> str:
    if not tools:
        return "no composite tools"
    if all(o.pairing is Pairing.ALREADY for o in tools):
        return "already migrated"
    return "nothing to change"


def _tool_edit(
    outcome: ToolOutcome, destination: Path, scripts: ScriptFiles, options: MigrateOptions
) -> ToolEdit | None:
    keep = options.keep_composite
    tool = outcome.tool
    if _writable(outcome, options) and outcome.emitted is not None:
        output = output_schema(tool.config.output) if tool.config.output is not None else None
        script_file = None
        if options.script_dir is not None and tool.origin.kind is DocumentKind.VMCP_CONFIG:
            script_file = scripts.assign(
                tool.origin.file, tool.config.name, outcome.emitted.script, destination
            )
        check = options.check
        annotations = entry_annotations(tool.config, check.tool_annotations, check.target)
        body = ScriptedBody(outcome.emitted.script, script_file, output, annotations)
        return ToolEdit(tool.origin.path, body, not keep)
    finished = _settled(outcome, options) or options.force
    if outcome.pairing is Pairing.ALREADY and not keep and finished:
        return ToolEdit(tool.origin.path, None, remove=True)
    return None


def state(outcome: ToolOutcome) -> str:
    """A tool's state in words: its pairing when it has one, else the harness's verdict."""
    if outcome.hidden:
        return "hidden by vMCP"
    if outcome.pairing is not Pairing.NEW:
        return str(outcome.pairing)
    return "converted, not checked" if outcome.verdict is None else str(outcome.verdict)


def _refs_to_move(document: SpanDocument, scripted: set[tuple[str, str]]) -> frozenset[str]:
    root = document.root
    kind = root.get("kind") if root is not None else None
    if root is None or kind is None or kind.text() != "VirtualMCPServer":
        return frozenset()
    namespace = resource_of(document)[1]
    spec = root.get("spec")
    config = spec.get("config") if spec is not None else None
    refs = config.get("compositeToolRefs") if config is not None else None
    if refs is None or refs.kind is not SpanKind.SEQUENCE:
        return frozenset()
    names = {name.value for item in refs.children if (name := item.get("name")) is not None}
    return frozenset(name for name in names if (namespace, name) in scripted)


def _destinations(files: list[SourceFile], out_dir: Path | None) -> dict[str, Path]:
    if out_dir is None:
        return {source.name: source.path for source in files}
    if not files:
        return {}
    base = Path(os.path.commonpath([str(source.path.resolve().parent) for source in files]))
    return {source.name: out_dir / source.path.resolve().relative_to(base) for source in files}


def _planned(source: SourceFile, result: FileResult, options: MigrateOptions) -> PlannedWrite:
    """The write of a rewritten file: in place (what was read must still be there), or under
    ``--out`` (over what is there now)."""
    assert result.after is not None and result.destination is not None
    in_place = options.out_dir is None
    backup = None
    suffix = options.backup_for(source.path) if in_place else None
    if suffix:
        backup = source.path.with_name(source.path.name + suffix)
    content = (BOM if source.bom else b"") + result.after.encode("utf-8")
    try:
        expected = source.data if in_place else result.destination.read_bytes()
    except FileNotFoundError:
        expected = None
    return PlannedWrite(result.destination, content, backup, expected)
