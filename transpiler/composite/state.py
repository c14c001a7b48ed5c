"""The workflow context: step records and the data every template sees (S60-S63, S70, S73).

Records follow vMCP's ``WorkflowContext``: a step is recorded ``running`` when
it starts, then updated to ``completed`` or ``failed``, or replaced by a
``skipped`` record. Templates read a snapshot built afresh for each string
(S62): ``.steps.<id>`` holds ``status``, ``output`` (a typed nil map when
there is none), ``content`` (the content array as a map) and ``error`` only
when the step has one. ``.workflow`` reports ``pending`` with zero counters
during steps and the final values for output construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from transpiler.composite.errors import GoError
from transpiler.golang.values import NIL_MAP, GoValue, Int64
from transpiler.sim.mcp import content_array_to_map

RUNNING = "running"
COMPLETED = "completed"
FAILED = "failed"
SKIPPED = "skipped"
PENDING = "pending"
NANOS_PER_MILLI = 1_000_000


@dataclass
class StepResult:
    """One step's record (``StepResult``)."""

    status: str
    level: int
    output: GoValue = NIL_MAP
    content: Sequence[Mapping[str, Any]] = ()
    error: GoError | None = None
    end_ns: int | None = None
    retry_count: int = 0


@dataclass
class WorkflowMetadata:
    """``.workflow``: id, start time, and the counters set for output construction."""

    workflow_id: str
    start_time: str
    status: str = PENDING
    step_count: int = 0
    duration_ms: int = 0


@dataclass
class WorkflowState:
    """Parameters, step records and metadata of one execution."""

    params: dict[str, GoValue]
    metadata: WorkflowMetadata
    steps: dict[str, StepResult] = field(default_factory=dict)
    #: Elicitation steps whose decline, cancel or timeout a ``continue`` handler passed: their
    #: output has no ``content``, on the path the workflow declared.
    continued_answers: set[str] = field(default_factory=set)
    _version: int = 0
    _snapshot: tuple[int, dict[str, Any]] | None = None

    def record_start(self, step_id: str, level: int) -> None:
        """``RecordStepStart``: a fresh ``running`` record."""
        self.steps[step_id] = StepResult(RUNNING, level)
        self._version += 1

    def record_success(
        self, step_id: str, output: GoValue, now_ns: int, content: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        """``RecordStepSuccess``: completed with an output (only if the step was started)."""
        record = self.steps.get(step_id)
        if record is not None:
            record.status, record.output, record.content = COMPLETED, output, content
            record.end_ns = now_ns
            self._version += 1

    def record_failure(self, step_id: str, error: GoError, now_ns: int) -> None:
        """``RecordStepFailure``: failed with an error; the output stays as it was."""
        record = self.steps.get(step_id)
        if record is not None:
            record.status, record.error, record.end_ns = FAILED, error, now_ns
            self._version += 1

    def record_skipped(
        self, step_id: str, level: int, default_results: GoValue, now_ns: int
    ) -> None:
        """``RecordStepSkipped``: a new ``skipped`` record whose output is defaultResults (S103)."""
        output = NIL_MAP if default_results is None else default_results
        self.steps[step_id] = StepResult(SKIPPED, level, output=output, end_ns=now_ns)
        self._version += 1

    def set_output(self, step_id: str, output: GoValue) -> None:
        """Replace a recorded output (defaultResults after a continued failure, an aggregate)."""
        self.steps[step_id].output = output
        self._version += 1

    def set_retry_count(self, step_id: str, retry_count: int) -> None:
        """Set the recorded retry count (S63)."""
        self.steps[step_id].retry_count = retry_count

    def template_data(self, for_each: dict[str, GoValue] | None = None) -> dict[str, Any]:
        """The root data of one template execution (S70)."""
        data: dict[str, Any] = {
            "params": self.params,
            "steps": self._steps_snapshot(),
            "vars": {},
            "workflow": {
                "id": self.metadata.workflow_id,
                "duration_ms": Int64(self.metadata.duration_ms),
                "step_count": self.metadata.step_count,
                "status": self.metadata.status,
                "start_time": self.metadata.start_time,
            },
        }
        if for_each is not None:
            data["forEach"] = for_each
        return data

    def _steps_snapshot(self) -> dict[str, Any]:
        if self._snapshot is not None and self._snapshot[0] == self._version:
            return self._snapshot[1]
        steps: dict[str, Any] = {}
        for step_id, record in self.steps.items():
            view: dict[str, Any] = {
                "status": record.status,
                "output": record.output,
                "content": content_array_to_map(record.content),
            }
            if record.error is not None:
                view["error"] = record.error.text
            steps[step_id] = view
        self._snapshot = (self._version, steps)
        return steps

    def finish_metadata(self, now_ns: int) -> None:
        """``updateWorkflowMetadata`` before output construction (S73)."""
        self.metadata.status = COMPLETED
        self.metadata.step_count = sum(1 for r in self.steps.values() if r.status == COMPLETED)
        self.metadata.duration_ms = now_ns // NANOS_PER_MILLI
