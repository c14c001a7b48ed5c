"""A process's memory bound: its address space as it stands once warmed up, plus the run's limit.

``RLIMIT_AS`` caps virtual memory, which interpreters reserve generously
(the Go runtime maps gigabytes it never touches), so the cap is measured from
the warmed-up process rather than fixed: each engine's host runs one trivial
script, then this module caps the address space at that size plus
:attr:`~transpiler.starlark_runtime.profile.ScriptLimits.memory_bytes`.
An allocation past it fails: starlark-rust aborts its process, the Go
runtime exits with "fatal error: out of memory"; either way the run ends
with ``ScriptLimitExceeded("memory")``.
"""

from __future__ import annotations

import resource


def virtual_memory(pid: int) -> int:
    """The address space size of process ``pid`` (bytes)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError(f"no VmSize for process {pid}")


def cap_address_space(pid: int, memory_bytes: int) -> None:
    """Let process ``pid`` map at most ``memory_bytes`` more than it has mapped now (and never
    write a core file when it dies of that: nothing lands in the working directory)."""
    cap = virtual_memory(pid) + memory_bytes
    resource.prlimit(pid, resource.RLIMIT_AS, (cap, cap))
    resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
