"""What vMCP and a script give at one site: the values a witness shows side by side.

A deviation class applies at a *site*: a step and the place in it where the
model recorded it (``arguments.body``, ``step.arguments.id``, ``message``,
``condition``, ``collection``, ``forEach``, ``onDecline``, ``output.summary``,
``result``; :mod:`transpiler.composite.quirks`). The value at a site is read
off a run, never off the first difference of the whole trace:

- an argument: its value in the calls the step made (attempt 1; a list for a
  forEach's calls). The model's calls name their step; a script's are paired
  with the calls of the model's run it matched (same tool and attempt, the
  nearest arguments);
- an elicitation message: the message the step sent (a script's is the one
  at the same position, since elicitations are compared in order);
- an output field: that field of the result;
- the result (``last-step-race``): the result;
- a condition, a forEach collection or a step's deadline (``step-timeout``):
  the step's status (from the model's runs: a script's trace has no steps);
- a forEach's concurrency (``parallel-cap``): when each of the step's calls
  started (seconds from the run's start; as many as it made);
- an elicitation answer that skips the rest (``skip-remaining``): the status of
  each step whose status it changed.

Where a variant stopped the script (``stop``, or ``decoded`` of what is not
JSON), where the class is the wording of a failure (``error-text``), or where
either side never reached the site, the value is the run's outcome: success,
or the failure's text and the step it failed at.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from transpiler.composite.quirks import NULL_PLACE_SUFFIX
from transpiler.composite.variants import SiteKey
from transpiler.deviations import Deviation
from transpiler.harness.judging.relation import (
    canonical,
    leaves_apart,
    outcome_class,
    unwrapped_error,
)
from transpiler.sim.trace import NANOS_PER_SECOND, CallRecord, Trace, plain_json

#: What the values are when they are the run's outcome.
OUTCOME: Final = "the run's outcome"
_STEP_STATUS_PLACES: Final = frozenset({"condition", "collection", "timeout"})
_ANSWER_PLACES: Final = frozenset({"onDecline", "onCancel", "onTimeout"})


class _Absent:
    """No value at the site on one side (the step made no call, the field is not there)."""


_ABSENT: Final = _Absent()


@dataclass(frozen=True)
class SiteValues:
    """A site and what each side gives there (plain JSON values); ``shows`` says what they
    are (``argument body of the call to github.create_issue``, ``output field summary``,
    :data:`OUTCOME`)."""

    step: str | None
    place: str
    shows: str
    vmcp: Any
    script: Any

    @property
    def where(self) -> str:
        """The site in words: ``step open_issue, arguments.body``, or the place alone."""
        return f"step {self.step}, {self.place}" if self.step else self.place


def value_text(value: Any, shows: str) -> str:
    """A value at a site as a person reads it: JSON text, or (:data:`OUTCOME`) the run's
    outcome in words (``error at step open_issue: <text>``)."""
    if shows == OUTCOME and isinstance(value, dict):
        step = f" at step {value['step']}" if "step" in value else ""
        error = f": {value['error']}" if "error" in value else ""
        return f"{value['outcome']}{step}{error}"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def site_values(
    key: SiteKey, vmcp: Trace, script: Trace, variant: Trace, stopped: bool
) -> SiteValues | None:
    """The values at ``key``'s site: vMCP's read off ``vmcp`` (the model's run with vMCP's
    behaviour there), the script's off ``script``. Whether they differ is decided against
    ``variant``, the model's run the script matched, with the script's choice there; with
    ``stopped``, that choice stopped the script at the site. None when the site shows no
    difference."""
    class_id, step, place = key
    if class_id.about.wording_only:  # its values are the run's outcome, text and all
        worded = vmcp.stopped_at is None and outcome_class(vmcp) == outcome_class(script) == "error"
        if not worded or unwrapped_error(vmcp) == unwrapped_error(script):
            return None
        return SiteValues(step, place, OUTCOME, outcome(vmcp, vmcp), outcome(script, variant))
    if not stopped:
        path = place.removesuffix(NULL_PLACE_SUFFIX)
        found = _values(class_id, step, path, vmcp, variant, script)
        if found is not None:
            shows, ours, theirs, shown = found
            if canonical(ours) != canonical(theirs):
                return SiteValues(step, place, shows, ours, shown)
    apart = canonical(outcome(vmcp, vmcp)) != canonical(outcome(variant, variant))
    if not (stopped or apart):
        return None
    return SiteValues(step, place, OUTCOME, outcome(vmcp, vmcp), outcome(script, variant))


def outcome(trace: Trace, steps: Trace | None) -> dict[str, Any]:
    """A run's outcome: ``success``; or ``error`` (with its text) or ``timeout``, and the
    step it failed at as ``steps`` (a model's run; a script's trace has no steps) records."""
    kind = outcome_class(trace)
    found: dict[str, Any] = {"outcome": kind}
    if kind == "success":
        return found
    failed = None if steps is None else failed_step(steps)
    if failed is not None:
        found["step"] = failed
    if kind == "error":
        found["error"] = unwrapped_error(trace)
    return found


def failed_step(trace: Trace) -> str | None:
    """The step whose failure (or whose variant) stopped a workflow run, if one did."""
    if trace.stopped_at is not None and trace.stopped_at[1] is not None:
        return trace.stopped_at[1]
    records = trace.steps or {}
    return next((step for step, record in records.items() if record.status == "failed"), None)


def _values(
    class_id: Deviation,
    step: str | None,
    place: str,
    vmcp: Trace,
    model: Trace,
    script: Trace,
) -> tuple[str, Any, Any, Any] | None:
    """What the values at a place are, vMCP's (off ``vmcp``), the one to compare it with (off
    ``model``, the model's run the script's is paired with) and the script's (off
    ``script``, else as ``model``); None where a side has none there (the outcome is shown
    instead)."""
    parts = place.split(".")
    found: tuple[str, Any, Any, Any] | None = None
    if step is not None and parts[0] in ("arguments", "step"):
        path = parts[2:] if parts[0] == "step" else parts[1:]
        ours, shown = _step_calls(vmcp, step), _paired_calls(script, _step_calls(model, step))
        theirs = _step_calls(model, step)
        found = (
            _argument_shows(path, ours, theirs),
            _argument(ours, path),
            _argument(theirs, path),
            _argument(shown, path),
        )
    elif step is not None and place == "message":
        found = (
            "the elicitation message",
            _message(vmcp, step),
            _message(model, step),
            _paired_message(script, model, step),
        )
    elif step is None and parts[0] == "output" and len(parts) > 1:
        name = parts[1:]
        found = (
            f"output field {'.'.join(name)}",
            _field(vmcp, name),
            _field(model, name),
            _field(script, name),
        )
    elif step is None and place == "result" and class_id == Deviation.LAST_STEP_RACE:
        found = ("the result", _structured(vmcp), _structured(model), _structured(script))
    elif step is not None:
        found = _step_values(step, place, vmcp, model)
    if found is None or _ABSENT in found[1:3]:
        return None
    shows, ours, theirs, shown = found
    return shows, ours, theirs, theirs if shown is _ABSENT else shown


def _argument_shows(
    path: list[str], ours: Sequence[CallRecord], theirs: Sequence[CallRecord]
) -> str:
    tools = list(dict.fromkeys(call.tool for call in (*ours, *theirs)))
    name = ".".join(path) or "(all)"
    which = "each call" if max(len(ours), len(theirs)) > 1 else "the call"
    return f"argument {name} of {which} to {', '.join(tools)}"


def _step_calls(trace: Trace, step: str) -> list[CallRecord]:
    """The first attempts of the calls the step made, in the model's run ``trace``."""
    return [call for call in trace.calls if call.step == step and call.attempt == 1]


def _paired_calls(script: Trace, wanted: Sequence[CallRecord]) -> list[CallRecord]:
    """The script's calls that pair with ``wanted`` (a model run's): same tool and attempt,
    the nearest arguments."""
    pool = list(script.calls)
    paired: list[CallRecord] = []
    for call in wanted:
        same = [c for c in pool if c.tool == call.tool and c.attempt == call.attempt]
        if same:
            wanted = plain_json(call.args)
            nearest = min(same, key=lambda c: leaves_apart(plain_json(c.args), wanted))
            pool.remove(nearest)
            paired.append(nearest)
    return paired


def _argument(calls: Sequence[CallRecord], path: list[str]) -> Any:
    values = [_at(plain_json(call.args), path) for call in calls]
    if not values or _ABSENT in values:
        return _ABSENT
    return values[0] if len(values) == 1 else values


def _at(value: Any, path: Sequence[str]) -> Any:
    """The value at ``path`` (map keys, list indexes), or :data:`_ABSENT`."""
    for part in path:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _ABSENT
    return value


def _message(trace: Trace, step: str) -> Any:
    return next((e.message for e in trace.elicitations if e.step == step), _ABSENT)


def _paired_message(script: Trace, guide: Trace, step: str) -> Any:
    """The script's message at the position of the step's elicitation in ``guide``."""
    position = next((i for i, e in enumerate(guide.elicitations) if e.step == step), None)
    if position is None or position >= len(script.elicitations):
        return _ABSENT
    return script.elicitations[position].message


def _structured(trace: Trace) -> Any:
    if outcome_class(trace) != "success":
        return _ABSENT
    result = trace.client_result
    if "structuredContent" in result:
        return plain_json(result["structuredContent"])
    return json.dumps(plain_json(result.get("content")))


def _field(trace: Trace, path: list[str]) -> Any:
    structured = _structured(trace)
    return _ABSENT if structured is _ABSENT else _at(structured, path)


def _step_values(
    step: str, place: str, vmcp: Trace, variant: Trace
) -> tuple[str, Any, Any, Any] | None:
    """Values only the model's runs record: a step's status, its calls, the steps an answer
    changed (the script's are those of the run it matched)."""
    ours: Any
    theirs: Any
    if place in _STEP_STATUS_PLACES:
        shows, ours, theirs = (
            f"the status of step {step}",
            _status(vmcp, step),
            _status(variant, step),
        )
    elif place == "forEach":
        shows = f"when the calls of step {step} started (seconds)"
        ours, theirs = _starts(vmcp, step), _starts(variant, step)
    elif place in _ANSWER_PLACES:
        every = {**(vmcp.steps or {}), **(variant.steps or {})}
        changed = [s for s in every if _status(vmcp, s) != _status(variant, s)]
        shows = "the status of the steps after the answer"
        ours = {s: _status(vmcp, s) for s in changed}
        theirs = {s: _status(variant, s) for s in changed}
    else:
        return None
    return shows, ours, theirs, theirs


def _starts(trace: Trace, step: str) -> list[float]:
    """When each call the step made (first attempts) started, in seconds, earliest first."""
    return sorted(call.start_ns / NANOS_PER_SECOND for call in _step_calls(trace, step))


def _status(trace: Trace, step: str) -> str:
    record = (trace.steps or {}).get(step)
    if record is None:
        return "not started"
    if record.status == "failed" and record.error:
        return f"failed: {record.error}"
    return record.status
