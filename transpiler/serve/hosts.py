"""The interpreters' processes for ``serve``: one per call in flight, reused.

``check`` runs one script at a time on one process per engine; a server runs
calls side by side, each of which may wait minutes on a backend, so each call
takes a process of its own from a pool (started when none is free, kept for
the next call) and gives it back when its run ends: go.starlark.net host
processes for the go engine, starlark-rust sandboxes for the rust one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from transpiler.profile import ScriptLimits


class Host(Protocol):
    """A process that runs one script at a time: the run holding it holds its ``lock``."""

    lock: threading.Lock
    limits: ScriptLimits

    def alive(self) -> bool:
        """Whether it can take another run."""

    def close(self) -> None:
        """Stop it for good."""


H = TypeVar("H", bound=Host)


class HostPool(Generic[H]):
    """Processes made by ``start``, each locked by the run that holds it."""

    def __init__(self, start: Callable[[ScriptLimits], H]) -> None:
        self._start = start
        self._hosts: list[H] = []
        self._lock = threading.Lock()

    def acquire(self, limits: ScriptLimits) -> H:
        """A free live process with these limits, locked for the caller's run (started when
        there is none); the run releases its ``lock``."""
        with self._lock:
            for host in list(self._hosts):
                if host.limits != limits or not host.lock.acquire(blocking=False):
                    continue
                if host.alive():
                    return host
                host.close()
                host.lock.release()
                self._hosts.remove(host)
        host = self._start(limits)
        host.lock.acquire()
        with self._lock:
            self._hosts.append(host)
        return host

    def close(self) -> None:
        """Stop every process (runs still holding one end with an engine error)."""
        with self._lock:
            hosts, self._hosts = self._hosts, []
        for host in hosts:
            host.close()
