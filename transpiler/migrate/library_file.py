"""``vmcp_compat.star`` on disk, and which scripts need it.

Exact scripts load their helpers from the library (:mod:`transpiler.emit.library`).
``migrate`` writes it once, into ``--library-dir`` or beside the first script
that loads it (in ``--script-dir``, else beside its rewritten file: where
``check`` looks for modules by default); ``library --out DIR`` writes it on
request. An identical file already there is left as it is; a different one is
replaced only when forced. Kubernetes manifests inline their scripts and vMCP
reads no library path for them, so their exact scripts carry the helpers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from transpiler.config.units import LoadedTool
from transpiler.emit.library import LIBRARY_NAME, library_text
from transpiler.harness.running.check import CheckOptions
from transpiler.migrate.atomic import PlannedWrite
from transpiler.pipeline import Remark, ToolOutcome, tool_location
from transpiler.reading import UnreadableFile, read_bytes

INLINED = (
    "the script carries its helpers: a Kubernetes manifest inlines the script and has no "
    f"library path to load {LIBRARY_NAME} from"
)


class LibraryStatus(StrEnum):
    """How the library file in the chosen directory compares with ours."""

    NEW = "new"
    SAME = "up to date"
    DIFFERENT = "different"


@dataclass(frozen=True)
class LibraryFile:
    """Our library at ``path``; ``found`` is the content there (None: no file), ``existing``
    its text (None: no file, or not text)."""

    path: Path
    status: LibraryStatus
    found: bytes | None
    existing: str | None

    @property
    def text(self) -> str:
        """What the file must hold."""
        return library_text()

    def writes(self, force: bool, backup_suffix: str | None) -> list[PlannedWrite]:
        """The write that puts our library in place (none when it is already there).

        A different file is replaced only when ``force``, then kept as
        ``<file><backup_suffix>`` when a suffix is given.
        """
        if self.status is LibraryStatus.SAME:
            return []
        if self.status is LibraryStatus.DIFFERENT and not force:
            return []
        backup = None
        if self.status is LibraryStatus.DIFFERENT and backup_suffix:
            backup = self.path.with_name(self.path.name + backup_suffix)
        return [PlannedWrite(self.path, self.text.encode("utf-8"), backup, self.found)]

    def blocks(self, force: bool) -> bool:
        """Whether a different file is in the way (``force`` replaces it)."""
        return self.status is LibraryStatus.DIFFERENT and not force


def library_file(directory: Path) -> LibraryFile:
    """How ``directory/vmcp_compat.star`` compares with our library."""
    path = directory / LIBRARY_NAME
    if not path.exists():
        return LibraryFile(path, LibraryStatus.NEW, None, None)
    try:
        found = read_bytes(path)
    except UnreadableFile:
        return LibraryFile(path, LibraryStatus.DIFFERENT, None, None)
    try:
        existing: str | None = found.decode("utf-8")
    except UnicodeDecodeError:
        existing = None
    status = LibraryStatus.SAME if existing == library_text() else LibraryStatus.DIFFERENT
    return LibraryFile(path, status, found, existing)


def emit_options(tool: LoadedTool, options: CheckOptions) -> CheckOptions:
    """The emit options for ``tool``: a Kubernetes manifest's script inlines its helpers."""
    if tool.origin.kubernetes and not options.inline_helpers:
        return replace(options, inline_helpers=True)
    return options


def noted(outcome: ToolOutcome, options: CheckOptions) -> ToolOutcome:
    """The outcome, saying so when its exact script inlines helpers because of its manifest."""
    emitted = outcome.emitted
    if (
        emitted is None
        or emitted.style != "exact"
        or options.inline_helpers
        or not outcome.tool.origin.kubernetes
    ):
        return outcome
    remark = Remark("note", INLINED, tool_location(outcome.tool))
    return replace(outcome, remarks=(*outcome.remarks, remark))


def library_line(library: LibraryFile, written: bool, force: bool, suffix: str | None) -> str:
    """The summary line for the library file."""
    what = "the helper library the exact scripts load"
    if library.status is LibraryStatus.SAME:
        return f"== {library.path}: {what} is already there"
    if library.status is LibraryStatus.NEW:
        return f"== {library.path}: {'wrote' if written else 'would write'} {what}"
    if not force:
        return (
            f"== {library.path}: exists and differs from {what}: left alone, and nothing is "
            "written (--force replaces it; --library-dir DIR or --inline-helpers avoid it)"
        )
    kept = f", keeping the old one as {library.path.name}{suffix}" if suffix else ""
    return f"== {library.path}: {'replaced' if written else 'would be replaced'} with {what}{kept}"
