"""What ``migrate`` prints: the unified diff of every change, then an audit-style summary.

The summary says, file by file, what happens to the file and to each tool in
it (converted and equivalent, converted with named deviations, not converted
and why), with every warning at its file:line and step. Output is
deterministic: inputs in sorted order, nothing time- or machine-dependent.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from transpiler.harness.judging.verdict import Verdict
from transpiler.inert import one_line, shown_lines
from transpiler.migrate.library_file import library_line
from transpiler.migrate.rewrite import SCRIPTED_KIND
from transpiler.migrate.runner import FileResult, FileStatus, MigrationReport, state
from transpiler.pipeline import Pairing, ToolOutcome

_PHRASES = {
    Verdict.EQUIVALENT: "converted, equivalent",
    Verdict.EQUIVALENT_EXCEPT: "converted",
    Verdict.DIFFERS: "converted, differs from the workflow",
    Verdict.NOT_CONVERTED: "not converted",
    Verdict.UNCHECKED: "converted, not checked",
    Verdict.INCOMPLETE: "converted, not checked everywhere",
    Pairing.ALREADY: "already migrated",
    Pairing.CONFLICT: "not migrated",
    None: "converted, not checked",
}


def unified_diff(report: MigrationReport) -> str:
    """Every change as one unified diff (``a/`` the input, ``b/`` what is or would be written)."""
    chunks: list[str] = []
    for result in report.files:
        if result.after is not None and result.before is not None:
            chunks += _diff(result.before, result.after, result.path, result.destination)
    for write in report.script_files:
        chunks += _diff(None, write.content.decode("utf-8"), write.path)
    library = report.library
    if library is not None and library.existing is not None and library.existing != library.text:
        chunks += _diff(library.existing, library.text, library.path)
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def _diff(before: str | None, after: str, path: Path, target: Path | None = None) -> list[str]:
    """One file's diff: ``before`` at ``a/path`` (None: a new file) to ``after`` at
    ``b/target`` (``target`` defaults to ``path``)."""
    return list(
        difflib.unified_diff(
            [] if before is None else before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            "/dev/null" if before is None else f"a/{path.as_posix().lstrip('/')}",
            f"b/{(target or path).as_posix().lstrip('/')}",
        )
    )


def summary_text(report: MigrationReport) -> str:
    """The audit report: per file, per tool, then the totals."""
    lines: list[str] = []
    tools = _by_file(report)
    notes = _notes_by_file(report)
    for result in report.files:
        lines.append(f"== {result.path}: {_file_phrase(result, report)}")
        if result.status is not FileStatus.REWRITTEN or not tools.get(str(result.path)):
            lines.append(f"   {result.reason}")
        lines.extend(
            f"   {note}" for note in notes.get(str(result.path), []) if result.reason not in note
        )
        for outcome in tools.get(str(result.path), []):
            lines.extend(_tool_lines(outcome))
        lines.extend(f"   in the cluster: {line}" for line in result.cluster)
    for write in report.script_files:
        verb = "wrote" if report.written else "would write"
        lines.append(f"== {write.path}: {verb} the script file")
    for sidecar in report.sidecars:
        verb = "recorded" if report.written else "would record"
        lines.append(
            f"== {sidecar.write.path}: {verb} {', '.join(sidecar.recorded)}, the composite "
            f"tool(s) {sidecar.config.name} no longer holds, for check (commit this file)"
        )
    if report.library is not None:
        options = report.options
        lines.append(
            library_line(report.library, report.written, options.force, options.backup_suffix)
        )
    lines.append("")
    lines.extend(_totals(report))
    return "\n".join(lines) + "\n"


def _by_file(report: MigrationReport) -> dict[str, list[ToolOutcome]]:
    found: dict[str, list[ToolOutcome]] = {}
    for outcome in report.tools:
        found.setdefault(outcome.tool.origin.file, []).append(outcome)
    return found


def _notes_by_file(report: MigrationReport) -> dict[str, list[str]]:
    """Load notes by file, leaving out the loader's "scripted definition: skipped" notes."""
    found: dict[str, list[str]] = {}
    for note in report.notes:
        if note.message.startswith(SCRIPTED_KIND):
            continue
        where = note.location
        found.setdefault(where.file, []).append(f"{where.file}:{where.line}: {note.message}")
    return found


def _file_phrase(result: FileResult, report: MigrationReport) -> str:
    if result.status is FileStatus.REWRITTEN:
        target = "" if result.destination in (None, result.path) else f" to {result.destination}"
        return ("rewritten" if report.written else "would be rewritten") + target
    if result.status is FileStatus.REFUSED and result.after is not None:
        return "refused (the diff shows what --force would write)"
    return str(result.status)


def _tool_lines(outcome: ToolOutcome) -> Iterator[str]:
    where = f"{outcome.location.file}:{outcome.location.line}"
    key = outcome.pairing if outcome.pairing is not Pairing.NEW else outcome.verdict
    name, reason = one_line(outcome.name), shown_lines(outcome.reason)
    yield f"   {where}: {name}: {_PHRASES[key]}: {reason}"
    report = outcome.report
    for remark in outcome.remarks:
        if report is None or remark.kind != "deviation":
            yield f"      {one_line(remark.render())}"
    if report is None:
        return
    for deviation, witness in report.witnesses.items():
        shown = witness.shown
        yield f"      {deviation.render()}"
        yield (
            f"        witness ({witness.engine}, {witness.size} bytes), {shown.field}: "
            f"composite {_short(shown.composite)} / script {_short(shown.script)}"
        )
    listed = {difference.deviation for difference in report.listing}
    quiet = [c for c in report.declared if c not in report.witnesses and c not in listed]
    if quiet:
        yield f"      declared, not observed in {report.scenarios} scenarios: {', '.join(quiet)}"


def _short(text: str) -> str:
    shown = one_line(text)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _totals(report: MigrationReport) -> Iterator[str]:
    states = Counter(state(outcome) for outcome in report.tools)
    files = Counter(result.status for result in report.files)
    parts = [f"{count} {name}" for name, count in sorted(states.items())]
    yield f"tools: {len(report.tools)} ({', '.join(parts) or 'none'})"
    file_parts = [f"{files[s]} {s}" for s in FileStatus if files[s]]
    mode = "written" if report.written else "dry run, nothing written (--write to apply)"
    if report.options.write and not report.written:
        mode = "nothing written: the helper library is in the way (see above)"
    yield f"files: {len(report.files)} ({', '.join(file_parts) or 'none'}); {mode}"
    if report.cleaned:
        yield (
            f"removed {len(report.cleaned)} temporary file(s) an interrupted run left: "
            + ", ".join(map(str, report.cleaned))
        )


def summary_json(report: MigrationReport) -> dict[str, Any]:
    """The whole report as JSON."""
    return {
        "written": report.written,
        "complete": report.complete,
        "files": [
            {
                "path": str(result.path),
                "status": str(result.status),
                "reason": result.reason,
                "destination": None if result.destination is None else str(result.destination),
                "scripted_refs": list(result.moved_refs),
                "cluster": list(result.cluster),
            }
            for result in report.files
        ],
        "tools": [_tool_json(outcome) for outcome in report.tools],
        "script_files": [str(write.path) for write in report.script_files],
        "removed_temporary_files": [str(path) for path in report.cleaned],
        "library": None
        if report.library is None
        else {"path": str(report.library.path), "status": str(report.library.status)},
        "notes": [note.to_json() for note in report.notes],
    }


def _tool_json(outcome: ToolOutcome) -> dict[str, Any]:
    report = outcome.report
    return {
        "tool": outcome.name,
        "file": outcome.location.file,
        "line": outcome.location.line,
        "status": state(outcome),
        "verdict": None if outcome.verdict is None else str(outcome.verdict),
        "reason": outcome.reason,
        "remarks": [remark.to_json() for remark in outcome.remarks],
        "certificate": None if report is None else report.certificate,
    }
