"""Reading one input file within the limits every reader applies.

Configurations, scripts (``--script``, ``scriptFile:``), the modules they
``load()``, policies, reports, tools files and scenarios are all read here:
only regular files (a FIFO blocks its reader until something writes to it,
and a device such as ``/dev/zero`` never ends), and at most a limit of bytes
(:data:`MAX_FILE_BYTES` unless the kind of file has its own), counted while
reading, since a file's size as listed can lie (``/proc``, a file that grows).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from transpiler.diagnostics import InputError, SourceLocation

#: Largest input file read (bytes); vMCP configs and scripts are kilobytes.
MAX_FILE_BYTES: Final = 2 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnreadableFile(InputError):
    """A file that cannot be read within the limits; ``reason`` says why, without the name."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(why, SourceLocation(str(path)))


def _irregular(mode: int) -> str | None:
    """What a file that is not a regular file is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The content of the regular file at ``path`` (symbolic links followed), at most ``limit``
    bytes; raises :class:`UnreadableFile` otherwise. Never blocks on a FIFO or a device."""
    try:
        kind = _irregular(os.stat(path).st_mode)
        if kind is not None:
            raise UnreadableFile(path, f"not a regular file ({kind})")
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        with os.fdopen(handle, "rb") as stream:
            status = os.fstat(stream.fileno())
            kind = _irregular(status.st_mode)  # it may have been replaced since
            if kind is not None:
                raise UnreadableFile(path, f"not a regular file ({kind})")
            if status.st_size > limit:
                raise UnreadableFile(path, f"file is {status.st_size} bytes; the limit is {limit}")
            data = stream.read(limit + 1)
    except OSError as error:
        raise UnreadableFile(path, f"cannot read file: {error.strerror or error}") from None
    if len(data) > limit:
        raise UnreadableFile(path, f"file is more than {limit} bytes; the limit is {limit}")
    return data


def read_text(path: str | Path, limit: int = MAX_FILE_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8 (:class:`UnreadableFile` when it is not)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile(path, f"not UTF-8 text (byte {error.start})") from None
