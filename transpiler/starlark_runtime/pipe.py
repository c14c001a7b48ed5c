"""Messages between the starlark-rust sandbox and its parent: length-prefixed pickles.

Each side writes whole messages (:func:`encode`) and reads them through an
:class:`Inbox`, which reads its descriptor directly (never through a buffered
file, so that ``select`` on the descriptor says whether a message may be
waiting) and keeps what arrived beyond the message it hands out.
"""

from __future__ import annotations

import os
import pickle
import select
import time
from typing import Any

_HEADER = 8
_CHUNK = 1 << 16


def encode(value: Any) -> bytes:
    """``value`` as one message."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_HEADER, "big") + data


class Inbox:
    """The messages arriving on one descriptor (the other side never sends None)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()

    def take(self) -> Any:
        """The next message already read whole, else None."""
        if len(self._buffer) < _HEADER:
            return None
        size = _HEADER + int.from_bytes(self._buffer[:_HEADER], "big")
        if len(self._buffer) < size:
            return None
        message = pickle.loads(self._buffer[_HEADER:size])
        del self._buffer[:size]
        return message

    def fill(self) -> None:
        """Read what is there (one read; call it when ``select`` says the descriptor is
        readable). Raises :class:`EOFError` when the other side has closed its end."""
        chunk = os.read(self.fd, _CHUNK)
        if not chunk:
            raise EOFError("the other side closed the pipe")
        self._buffer += chunk

    def receive(self, seconds: float | None) -> Any:
        """The next message, waiting at most ``seconds`` (None: as long as it takes); None
        when they pass first. Raises :class:`EOFError` when the other side has closed."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while (message := self.take()) is None:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            readable, _, _ = select.select([self.fd], [], [], remaining)
            if not readable:
                return None
            self.fill()
        return message
