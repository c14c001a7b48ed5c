"""A process's memory bound: its address space as it stands once warmed up, plus the run's limit.

``RLIMIT_AS`` caps virtual memory, which interpreters reserve generously
(the Go runtime maps gigabytes it never touches), so the cap is measured from
the warmed-up process rather than fixed: each engine's host runs one trivial
script, then this module caps the address space at that size plus
:attr:`~transpiler.profile.ScriptLimits.memory_bytes`.
An allocation past it fails: starlark-rust aborts its process, the Go
runtime exits with "fatal error: out of memory"; either way the run ends
with ``ScriptLimitExceeded("memory")``.

The Go runtime reserves its heap in :data:`GO_ARENA_BYTES` arenas, ahead of
use: under a cap of exactly the limit, a heap well within it could be refused
its next reservation (a small limit failed that way about one run in six).
Its cap leaves one arena of room; ``GOMEMLIMIT`` (the limit) keeps the heap
itself near the limit.
"""

from __future__ import annotations

import resource
from typing import Final

GO_ARENA_BYTES: Final = 64 * 2**20


def virtual_memory(pid: int) -> int:
    """The address space size of process ``pid`` (bytes)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError(f"no VmSize for process {pid}")


def cap_address_space(pid: int, memory_bytes: int, reserve_bytes: int = 0) -> None:
    """Let process ``pid`` map at most ``memory_bytes`` (plus ``reserve_bytes`` of address space
    reserved ahead of use) more than it has mapped now, and never write a core file when it dies
    of that: nothing lands in the working directory."""
    cap = virtual_memory(pid) + memory_bytes + reserve_bytes
    resource.prlimit(pid, resource.RLIMIT_AS, (cap, cap))
    resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
