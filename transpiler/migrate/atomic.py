"""Write files so that a failure at any point leaves every original byte-identical.

A write is staged first: the new bytes go to a temporary file in the target's
own directory and are fsynced; a backup, when asked for, is staged the same
way and never replaces an existing file (one that already holds exactly the
current content, left by an interrupted run, is kept as it is). Only when
every file of a run is staged are the temporary files renamed over their
targets (``os.replace``, atomic on POSIX), and the directories fsynced. Any
failure removes every temporary file and puts back what was already renamed.

Nothing is overwritten that migrate did not read: each target must still hold
the bytes it had when it was read (``expected``; ``None``: it must not exist),
checked before staging and again just before its rename, so an edit made
meanwhile is never lost. A target that is a symbolic link is written through
(the file it names is rewritten, the link stays).

SIGINT, SIGTERM and SIGHUP wait while the files are written, so such an
interruption lands the run whole. A SIGKILL cannot wait: it can leave
temporary files, and some files migrated while others are not; the next
``migrate --write`` removes those temporary files (:func:`remove_stale`) and
finishes the job.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from transpiler.diagnostics import TranspilerError

TEMP_SUFFIX = ".migrate.tmp"
_STALE = re.compile(r"\..+\.(\d+)\.[A-Za-z0-9_]+" + re.escape(TEMP_SUFFIX))
_DEFERRED = frozenset((signal.SIGINT, signal.SIGTERM, signal.SIGHUP))


class WriteError(TranspilerError):
    """A file could not be written; nothing was changed."""


@dataclass(frozen=True)
class PlannedWrite:
    """New content for ``path``: ``expected`` is what is there now (``None``: nothing).

    ``backup`` is where the current content is kept, if anywhere.
    """

    path: Path
    content: bytes
    backup: Path | None = None
    expected: bytes | None = None


@dataclass
class _Staged:
    temp: Path
    target: Path
    exclusive: bool
    expected: bytes | None = None
    named: Path | None = None


def write_all(writes: Sequence[PlannedWrite]) -> None:
    """Stage every write, then commit them all; raise :class:`WriteError` on failure."""
    for write in writes:
        _still(write.path, _target(write.path), write.expected)
    with _signals_deferred():
        _write(writes)


def _write(writes: Sequence[PlannedWrite]) -> None:
    staged: list[_Staged] = []
    committed: list[_Staged] = []
    originals: dict[Path, bytes | None] = {}
    try:
        for write in writes:
            target = _target(write.path)
            originals[target] = write.expected
            backup, expected = write.backup, write.expected
            if backup is not None and expected is not None and _read(backup) != expected:
                staged.append(_stage(backup, expected, target, True))
            temp, _ = _temp(target, write.content)
            new = write.expected is None
            staged.append(_Staged(temp, target, new, write.expected, write.path))
        for item in sorted(staged, key=lambda item: not item.exclusive or item.named is not None):
            _commit(item)
            committed.append(item)
    except BaseException as error:
        _roll_back(committed, originals)
        if isinstance(error, OSError):
            raise WriteError(
                f"cannot write {error.filename or ''}: {error.strerror or error}; "
                "nothing was changed"
            ) from None
        raise
    finally:
        for item in staged:
            with contextlib.suppress(FileNotFoundError):
                item.temp.unlink()
    for directory in sorted({item.target.parent for item in staged}):
        _fsync_directory(directory)


def _target(path: Path) -> Path:
    """Where ``path``'s bytes live: the file a symbolic link names, followed to the end."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _still(named: Path, target: Path, expected: bytes | None) -> None:
    """Refuse when ``target`` no longer holds what was read from it."""
    current = _read(target)
    if current == expected:
        return
    if expected is None:
        raise WriteError(f"{named} appeared since migrate started; it is not overwritten")
    raise WriteError(
        f"{named} changed since migrate read it; nothing was changed (run migrate again)"
    )


def _temp(target: Path, content: bytes) -> tuple[Path, Path]:
    """A fsynced temporary file with ``content`` beside ``target`` (mode copied from it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=TEMP_SUFFIX
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        if target.exists():
            os.chmod(name, stat.S_IMODE(target.stat().st_mode))
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name), target


def _stage(target: Path, content: bytes, mode_from: Path, exclusive: bool) -> _Staged:
    if exclusive and (target.exists() or target.is_symlink()):
        raise WriteError(f"{target} already exists; it is not overwritten")
    temp, _ = _temp(target, content)
    if mode_from.exists():
        os.chmod(temp, stat.S_IMODE(mode_from.stat().st_mode))
    return _Staged(temp, target, exclusive)


def _commit(item: _Staged) -> None:
    if item.named is not None:
        _still(item.named, item.target, item.expected)
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
    """Undo the renames already done: new files and backups go, targets get their bytes back."""
    for item in reversed(committed):
        with contextlib.suppress(OSError):
            original = originals.get(item.target) if item.named is not None else None
            if original is None:
                item.target.unlink()
                continue
            restore, _ = _temp(item.target, original)
            try:
                os.replace(restore, item.target)
            finally:
                restore.unlink(missing_ok=True)


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends (then they act as usual)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def remove_stale(directories: Iterable[Path]) -> list[Path]:
    """Remove the temporary files an interrupted run left in ``directories``; return them.

    A temporary file names the process that made it; it is stale when that
    process is gone (or is this one, which has made none yet).
    """
    removed: list[Path] = []
    for directory in sorted(set(directories)):
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            match = _STALE.fullmatch(entry.name)
            if match is None or _alive(int(match.group(1))) or not entry.is_file():
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return sorted(removed)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
