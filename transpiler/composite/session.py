"""What every part of one workflow execution shares: kernel, state, tools, recordings.

:class:`ToolView` is the session's view of the backends as vMCP's router and
advertised tool list see them: a scenario backend whose ``x-mcp-header``
annotations are invalid is dropped by vMCP's client, so it is neither
routable nor has a schema (S81, S84, S85).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from transpiler.composite.expand import Expander
from transpiler.composite.paramheaders import AnnotationError, ParamHeader, param_headers
from transpiler.composite.quirks import QuirkLog
from transpiler.composite.routing import RoutingTable
from transpiler.composite.state import WorkflowState
from transpiler.sim.backends import BackendAnswer, SimulatedBackends
from transpiler.sim.backoff import Jitter
from transpiler.sim.kernel import Kernel
from transpiler.sim.trace import CallRecord, ElicitationRecord


class ToolView:
    """The tools one session can route to, with their schemas and header annotations."""

    def __init__(self, backends: SimulatedBackends, names: list[str]) -> None:
        self.backends = backends
        self._headers: dict[str, list[ParamHeader]] = {}
        for name in names:
            try:
                self._headers[name] = param_headers(backends.input_schema(name))
            except AnnotationError:
                continue
        self.routing = RoutingTable.of_names(self._headers)

    def routable(self, name: str) -> bool:
        """Whether ``RouteTool`` finds the tool."""
        return self.routing.resolve(name) is not None

    def input_schema(self, name: str) -> Any:
        """The advertised ``inputSchema`` (None for an unknown tool)."""
        return self.backends.input_schema(name) if name in self._headers else None

    def headers(self, name: str) -> list[ParamHeader]:
        """The tool's ``x-mcp-header`` annotations."""
        return self._headers.get(name, [])

    def call(self, name: str, arguments: Any) -> BackendAnswer:
        """Send one call to the simulated backend."""
        return self.backends.call(name, arguments)


@dataclass
class Recorder:
    """Backend calls and elicitation requests in the order the client side saw them."""

    calls: list[CallRecord] = field(default_factory=list)
    elicitations: list[ElicitationRecord] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    quirks: QuirkLog = field(default_factory=QuirkLog)

    def call_started(self, record: CallRecord) -> int:
        """Record a call at the instant the backend receives it; returns its index."""
        self.calls.append(record)
        return len(self.calls) - 1

    def call_finished(self, index: int, end_ns: int, result: str) -> None:
        """Complete a recorded call with its end instant and outcome."""
        self.calls[index] = replace(self.calls[index], end_ns=end_ns, result=result)


@dataclass
class Session:
    """One ``tools/call`` of a composite tool in progress."""

    kernel: Kernel
    state: WorkflowState
    expander: Expander
    tools: ToolView
    recorder: Recorder
    jitter: Jitter
    #: ``skip-remaining: return`` was taken: every step not yet started is skipped.
    returning: bool = False
    #: Steps under ``step-timeout: per-call``: no deadline of their own, each call attempt cut
    #: at the script's fixed call limit.
    call_limited: set[str] = field(default_factory=set)

    @property
    def now(self) -> int:
        """The virtual clock, in nanoseconds since the call started."""
        return self.kernel.now
