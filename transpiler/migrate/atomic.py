"""Write files so that a failure at any point leaves every original byte-identical.

A write is staged first: the new bytes go to a temporary file in the target's
own directory and are fsynced; a backup, when asked for, is staged the same
way and never replaces an existing file. Only when every file of a run is
staged are the temporary files renamed over their targets (``os.replace``,
atomic on POSIX), and the directories fsynced. Any failure before that
removes every temporary file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from transpiler.diagnostics import TranspilerError


class WriteError(TranspilerError):
    """A file could not be written; nothing was changed."""


@dataclass(frozen=True)
class PlannedWrite:
    """New content for ``path``; ``backup`` is where the current content is kept, if anywhere."""

    path: Path
    content: bytes
    backup: Path | None = None


@dataclass
class _Staged:
    temp: Path
    target: Path
    exclusive: bool


def write_all(writes: Sequence[PlannedWrite]) -> None:
    """Stage every write, then commit them all; raise :class:`WriteError` on failure."""
    staged: list[_Staged] = []
    committed: list[_Staged] = []
    originals: dict[Path, bytes | None] = {}
    try:
        for write in writes:
            originals[write.path] = _read(write.path)
            if write.backup is not None and originals[write.path] is not None:
                staged.append(_stage(write.backup, write.path.read_bytes(), write.path, True))
            staged.append(_stage(write.path, write.content, write.path, False))
        for item in sorted(staged, key=lambda item: not item.exclusive):
            _commit(item)
            committed.append(item)
    except OSError as error:
        _roll_back(committed, originals)
        raise WriteError(
            f"cannot write {error.filename or ''}: {error.strerror or error}; nothing was changed"
        ) from None
    finally:
        for item in staged:
            with contextlib.suppress(FileNotFoundError):
                item.temp.unlink()
    for directory in sorted({item.target.parent for item in staged}):
        _fsync_directory(directory)


def _stage(target: Path, content: bytes, mode_from: Path, exclusive: bool) -> _Staged:
    target.parent.mkdir(parents=True, exist_ok=True)
    if exclusive and target.exists():
        raise WriteError(f"{target} already exists; it is not overwritten")
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    staged = _Staged(Path(name), target, exclusive)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        if mode_from.exists():
            os.chmod(name, stat.S_IMODE(mode_from.stat().st_mode))
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return staged


def _commit(item: _Staged) -> None:
    if item.exclusive:
        os.link(item.temp, item.target)
    else:
        os.replace(item.temp, item.target)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _roll_back(committed: list[_Staged], originals: dict[Path, bytes | None]) -> None:
    """Undo the renames already done: backups go, targets get their old bytes back."""
    for item in reversed(committed):
        with contextlib.suppress(OSError):
            original = None if item.exclusive else originals.get(item.target)
            if original is None:
                item.target.unlink()
                continue
            restore = _stage(item.target, original, item.target, False)
            try:
                os.replace(restore.temp, item.target)
            finally:
                restore.temp.unlink(missing_ok=True)


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
