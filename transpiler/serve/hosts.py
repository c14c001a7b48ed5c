"""go.starlark.net host processes for ``serve``: one per call in flight, reused.

``check`` runs one script at a time on one host process; a server runs calls
side by side, each of which may wait minutes on a backend, so each call takes
a process of its own from this pool (started when none is free, kept for the
next call) and gives it back when its run ends.
"""

from __future__ import annotations

import threading

from transpiler.profile import ScriptLimits
from transpiler.starlark_runtime.go_engine import GoHostProcess


class HostPool:
    """Host processes, each locked by the run that holds it."""

    def __init__(self) -> None:
        self._hosts: list[GoHostProcess] = []
        self._lock = threading.Lock()

    def acquire(self, limits: ScriptLimits) -> GoHostProcess:
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
        host = GoHostProcess(limits)
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
