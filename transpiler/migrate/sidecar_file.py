"""The composite baseline a rewrite leaves beside its file (:mod:`transpiler.sidecar`).

Each composite tool a rewrite removes is recorded, as it was written, with
the verdict it was migrated with; the entries already there are kept, and a
tool migrated again replaces its entry. The file is written with the
configuration, atomically, over nothing but what was read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from transpiler.inputs.files import SourceFile
from transpiler.migrate.atomic import PlannedWrite
from transpiler.pipeline import ToolOutcome
from transpiler.sidecar import entry_of, read_entries, render, sidecar_path

if TYPE_CHECKING:
    from transpiler.migrate.runner import MigrateOptions


@dataclass(frozen=True)
class SidecarWrite:
    """The composite baseline of one rewritten file: what it records, and its write."""

    config: Path
    recorded: tuple[str, ...]
    write: PlannedWrite


def sidecar_write(
    source: SourceFile, destination: Path, replaced: Sequence[ToolOutcome], options: MigrateOptions
) -> SidecarWrite | None:
    """The write that records ``replaced`` beside ``destination`` (None when nothing is
    replaced, or the file already says so); raises :class:`~transpiler.sidecar.SidecarError`
    when the file there cannot be read. An existing file is backed up as a rewritten
    configuration is (in place only)."""
    if not replaced:
        return None
    path = sidecar_path(destination)
    entries = read_entries(path)
    entries.extend(entry_of(source, outcome.tool, _note(outcome)) for outcome in replaced)
    content = render(destination.name, entries).encode("utf-8")
    current = path.read_bytes() if path.exists() else None
    if current == content:
        return None
    backup = options.backup_for(path) if options.out_dir is None else None
    kept = path.with_name(path.name + backup) if backup and current is not None else None
    names = tuple(sorted({outcome.name for outcome in replaced}))
    return SidecarWrite(destination, names, PlannedWrite(path, content, kept, current))


def _note(outcome: ToolOutcome) -> str:
    """The entry's verdict line: the verdict, the classes it showed, the script's digest."""
    report = outcome.report
    if report is None:
        return f"{outcome.name}: migrated unchecked"
    shown = f" ({', '.join(report.observed)})" if report.observed else ""
    digest = report.certificate.get("script_sha256")
    script = f"; script sha256:{digest}" if isinstance(digest, str) else ""
    return f"{outcome.name}: migrated as {report.verdict}{shown}{script}"
