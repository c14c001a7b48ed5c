"""Traces: what one run of a scenario did, in the public format of spec/scenario.md."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from transpiler.deviations import Deviation
from transpiler.golang.timefmt import time_rfc3339_nano
from transpiler.golang.values import AnyKeyMap, GoTime, NilList, NilMap

NANOS_PER_SECOND = 1_000_000_000


@dataclass(frozen=True)
class CallRecord:
    """One backend call as the backend received it."""

    tool: str
    args: Any
    attempt: int
    start_ns: int
    end_ns: int
    group: str
    result: str
    #: The workflow step that made the call (the model's runs only; a script's calls name none).
    step: str | None = None
    #: When the call could have started had every random wait before it (vMCP's retry jitter)
    #: drawn otherwise: earliest and latest (None: exactly at ``start_ns``).
    window: tuple[int, int] | None = None

    @property
    def start_window(self) -> tuple[int, int]:
        """The earliest and latest start the call could have had (virtual nanoseconds)."""
        return (self.start_ns, self.start_ns) if self.window is None else self.window

    def to_json(self) -> dict[str, Any]:
        """The call in trace form (times in seconds)."""
        earliest, latest = self.start_window
        return {
            "tool": self.tool,
            "args": plain_json(self.args),
            "attempt": self.attempt,
            "start": self.start_ns / NANOS_PER_SECOND,
            "earliest": earliest / NANOS_PER_SECOND,
            "latest": latest / NANOS_PER_SECOND,
            "end": self.end_ns / NANOS_PER_SECOND,
            "group": self.group,
            "result": self.result,
        }


@dataclass(frozen=True)
class ElicitationRecord:
    """One elicitation request the client saw, and how it answered."""

    message: str
    schema: Any
    answer: str
    #: The elicitation step that asked (the model's runs only).
    step: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The request in trace form."""
        return {"message": self.message, "schema": plain_json(self.schema), "answer": self.answer}


@dataclass(frozen=True)
class ScriptReach:
    """Where one run of a script went, for coverage (never compared; not in the trace format).

    ``calls``: each host builtin's caller, as (builtin, file, line, column);
    the column is 0 where the engine gives none (starlark-rust). ``lines``:
    (file, line) of every Starlark frame on the stack at a builtin call or
    where an error arose. ``evaluated``: the files (the script, its modules)
    whose top level ran to its end.
    """

    calls: frozenset[tuple[str, str, int, int]] = frozenset()
    lines: frozenset[tuple[str, int]] = frozenset()
    evaluated: frozenset[str] = frozenset()


@dataclass(frozen=True)
class QuirkEvent:
    """A deviation class the composite model exercised (see ``transpiler.deviations``)."""

    deviation: Deviation
    step: str | None
    site: str
    detail: str
    notable: bool = True

    def to_json(self) -> dict[str, Any]:
        """The event in trace form."""
        return {
            "class": self.deviation,
            "step": self.step,
            "site": self.site,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class StepRecord:
    """A composite step's final record as templates would see it."""

    status: str
    output: Any
    error: str | None
    retries: int

    def to_json(self) -> dict[str, Any]:
        """The step in trace form."""
        return {
            "status": self.status,
            "output": plain_json(self.output),
            "error": self.error,
            "retries": self.retries,
        }


@dataclass
class Trace:
    """One run of one scenario by one form of a tool."""

    form: str
    outcome: str
    client_result: dict[str, Any]
    output: Any
    error: str | None
    calls: list[CallRecord] = field(default_factory=list)
    elicitations: list[ElicitationRecord] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    steps: dict[str, StepRecord] | None = None
    levels: list[list[str]] | None = None
    incomplete: bool = False
    virtual_duration_ns: int = 0
    schedule: str = "canonical"
    quirks: list[QuirkEvent] = field(default_factory=list)
    #: A model run under a reading whose failure may carry any text (``error-text``'s
    #: ``own-text``, ``missing-value``'s ``stop``): a script's failure text matches it.
    any_error_text: bool = False
    #: The site (class, step, place) whose variant stopped the run, if one did.
    stopped_at: tuple[Deviation, str | None, str] | None = None
    #: JSON texts the model's run wrote as starlark-rust's ``json.encode`` (``rust-engine``'s
    #: variant): a script's text may hold their objects' keys in another order.
    rust_json_texts: frozenset[str] = frozenset()
    #: Where a script's run went (script form only), for coverage.
    reach: ScriptReach | None = field(default=None, compare=False)
    #: Call times are wall-clock (``serve``: real backends, real latency), not virtual.
    real_time: bool = False

    def fired(self) -> frozenset[Deviation]:
        """The deviation classes this run exercised (composite form only)."""
        return frozenset(event.deviation for event in self.quirks)

    def to_json(self) -> dict[str, Any]:
        """The trace as the CLI prints it."""
        return {
            "form": self.form,
            "outcome": self.outcome,
            "client_result": plain_json(self.client_result),
            "output": plain_json(self.output),
            "error": self.error,
            "calls": [c.to_json() for c in self.calls],
            "elicitations": [e.to_json() for e in self.elicitations],
            "logs": list(self.logs),
            "steps": (
                None
                if self.steps is None
                else {step: record.to_json() for step, record in sorted(self.steps.items())}
            ),
            "levels": self.levels,
            "incomplete": self.incomplete,
            "virtual_duration": self.virtual_duration_ns / NANOS_PER_SECOND,
            "schedule": self.schedule,
            "quirks": [event.to_json() for event in self.quirks],
        }

    def dumps(self) -> str:
        """Deterministic JSON text of the trace."""
        return json.dumps(self.to_json(), sort_keys=True, indent=2, ensure_ascii=False)


def plain_json(value: Any) -> Any:
    """A Go value as plain JSON data: typed nils become null, times their Go JSON text.

    Non-finite floats (which JSON cannot hold) become ``{"$float": "NaN"}`` and
    the like, so a trace is always valid JSON.
    """
    if isinstance(value, NilMap | NilList) or value is None:
        return None
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")}
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    if isinstance(value, GoTime):
        return time_rfc3339_nano(value)
    if isinstance(value, AnyKeyMap):
        return {"$map[any]any": [[plain_json(k), plain_json(v)] for k, v in value.items]}
    raise TypeError(f"not a Go value: {type(value).__name__}")
