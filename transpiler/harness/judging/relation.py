"""The equivalence relation between a composite trace and a script trace.

Two traces are equal when, in this order (the first field that differs is
reported):

1. ``outcome`` — success, error, or timeout (either side's timeout texts);
2. on error, the client text with each host's wrapper removed
   (``Workflow execution failed: `` on vMCP's side, ``Script execution
   failed: `` on the script's), compared exactly; timeouts compare as a class;
3. on success, ``structuredContent`` after JSON canonicalisation (numbers by
   their exact value) and the text item exactly (Go JSON on both sides);
4. the backend calls as a multiset of (tool, arguments, attempt);
5. when each call starts, in virtual time: the window a script's call could start in must
   lie within the window of the same call of the model's run (its start, moved as far as
   vMCP's random retry waits could move it, :mod:`transpiler.sim.kernel`); a run on real
   backends (``serve --shadow``) only may not start a call before that window;
6. the elicitation requests, message and schema, in order.

The composite trace is the model's run under a reading (:mod:`readings`): the
deviation variants a script takes make that run, so it is compared exactly
(:func:`matches`), except that a run whose failure may carry any text
(``any_error_text``) matches a script's failure whatever its text, and a text
the run wrote as starlark-rust's ``json.encode`` matches the script's with its
objects' keys in another order (:mod:`key_order`). Nothing else is excused.
:func:`distance` measures how far apart two traces are, for the search of a
reading.

Logs, the ends of calls, step records and call order inside a concurrency group
are not compared. A script trace may match the model's run under any of its
schedules, because vMCP itself may behave in any of those ways.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from transpiler.golang.duration import format_duration
from transpiler.harness.judging.key_order import in_model_key_order
from transpiler.inert import one_line
from transpiler.profile import FAILURE_PREFIX, TIMEOUT_TEXT
from transpiler.sim.trace import Trace, plain_json

COMPOSITE_PREFIX = "Workflow execution failed: "
COMPOSITE_TIMEOUTS = (
    "Workflow execution timeout exceeded",
    COMPOSITE_PREFIX + "workflow timed out",
)


@dataclass(frozen=True)
class Difference:
    """One field where two traces differ, with both sides' values, and ``why`` they differ
    where that can be said (what vMCP does there, and what to do)."""

    field: str
    composite: str
    script: str
    why: str = ""

    def render(self) -> str:
        """A short side-by-side description: each side's text clipped and on one line."""
        composite, script = one_line(self.composite), one_line(self.script)
        text = f"{self.field}:\n  composite: {composite}\n  script:    {script}"
        return f"{text}\n  why:       {one_line(self.why)}" if self.why else text


def canonical(value: Any) -> str:
    """A JSON value as comparable text: sorted keys, every number by its exact value (a whole
    float is the integer it equals, so Go's float64 3 and int64 3 agree, and two integers that
    differ anywhere, above 2^53 too, differ)."""
    return json.dumps(_exact(plain_json(value)), sort_keys=True, ensure_ascii=False)


def _exact(value: Any) -> Any:
    """Plain JSON with every whole finite float the integer it equals (JSON numbers are
    values: ``3`` and ``3.0`` are one number, ``2**53 + 1`` and ``2.0**53`` are two) and every
    tuple a list."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else value
    if isinstance(value, dict):
        return {key: _exact(item) for key, item in value.items()}
    return [_exact(item) for item in value]


def outcome_class(trace: Trace) -> str:
    """``success``, ``error`` or ``timeout``."""
    if trace.outcome == "success":
        return "success"
    text = _text(trace)
    return "timeout" if text == TIMEOUT_TEXT or text in COMPOSITE_TIMEOUTS else "error"


def _text(trace: Trace) -> str:
    content = trace.client_result.get("content") or [{}]
    return str(content[0].get("text", ""))


def unwrapped_error(trace: Trace) -> str:
    """The client's error text without the host's wrapper."""
    text = _text(trace)
    for prefix in (COMPOSITE_PREFIX, FAILURE_PREFIX):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _keys(trace: Trace) -> list[str]:
    """Each backend call's key (tool, arguments, attempt), as comparable text."""
    return [
        json.dumps([call.tool, _exact(plain_json(call.args)), call.attempt], sort_keys=True)
        for call in trace.calls
    ]


@dataclass(frozen=True)
class _Compared:
    """What the relation compares of one trace, worked out once per trace."""

    outcome: str
    text: str
    error: str
    structured: str | None
    calls: Counter[str]
    elicitations: list[tuple[str, str]]
    #: Each call's start window (earliest, latest), by the call's key in ``calls``, in order.
    starts: dict[str, list[tuple[int, int]]]
    #: The starts are wall-clock (:attr:`Trace.real_time`).
    real_time: bool


_COMPARED: dict[int, tuple[Trace, _Compared]] = {}
_COMPARED_KEPT = 256


def _compared(trace: Trace) -> _Compared:
    """The trace's compared fields: a trace is compared with many (every schedule, engine)."""
    held = _COMPARED.get(id(trace))
    if held is not None and held[0] is trace:
        return held[1]
    outcome = outcome_class(trace)
    keys = _keys(trace)
    view = _Compared(
        outcome,
        _text(trace),
        unwrapped_error(trace),
        canonical(trace.client_result.get("structuredContent")) if outcome == "success" else None,
        Counter(keys),  # the backend calls as a multiset
        [(e.message, canonical(e.schema)) for e in trace.elicitations],
        _starts(trace, keys),
        trace.real_time,
    )
    if len(_COMPARED) >= _COMPARED_KEPT:
        _COMPARED.pop(next(iter(_COMPARED)), None)
    _COMPARED[id(trace)] = (trace, view)  # the trace held, so its id is not reused meanwhile
    return view


def differences(composite: Trace, script: Trace) -> tuple[Difference, ...]:
    """Every field that differs, in the relation's order (empty when equivalent)."""
    found: list[Difference] = []
    ours, theirs = _compared(composite), _compared(in_model_key_order(composite, script))
    left, right = ours.outcome, theirs.outcome
    if left != right:
        found.append(Difference("outcome", f"{left}: {ours.text}", f"{right}: {theirs.text}"))
    elif left == "error" and ours.error != theirs.error:
        found.append(Difference("error text", ours.error, theirs.error))
    elif left == "success":
        assert ours.structured is not None and theirs.structured is not None
        if ours.structured != theirs.structured:
            found.append(Difference("structuredContent", ours.structured, theirs.structured))
        elif ours.text != theirs.text:
            found.append(Difference("result text", ours.text, theirs.text))
    if ours.calls != theirs.calls:
        found.append(
            Difference(
                "calls",
                _describe(ours.calls - theirs.calls),
                _describe(theirs.calls - ours.calls),
            )
        )
    mistimed = _mistimed(ours, theirs)
    if mistimed:
        found.append(
            Difference(
                "call times",
                "; ".join(f"{late.call()}: {window_text(late.model)}" for late in mistimed),
                "; ".join(f"{late.call()}: {window_text(late.script)}" for late in mistimed),
            )
        )
    if ours.elicitations != theirs.elicitations:
        found.append(Difference("elicitations", repr(ours.elicitations), repr(theirs.elicitations)))
    return tuple(found)


def _starts(trace: Trace, keys: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Each call's start window, by the call's key (``keys``, :func:`_keys`), earliest first."""
    found: dict[str, list[tuple[int, int]]] = {}
    for call, key in zip(trace.calls, keys, strict=True):
        found.setdefault(key, []).append(call.start_window)
    return {key: sorted(windows) for key, windows in found.items()}


@dataclass(frozen=True)
class Mistimed:
    """A call both sides made whose script start is outside the model's window."""

    tool: str
    args: Any
    attempt: int
    #: The model's window and the script's, in virtual (or wall-clock) nanoseconds.
    model: tuple[int, int]
    script: tuple[int, int]

    def call(self) -> str:
        """The call, in words."""
        return f"{self.tool} attempt {self.attempt} {json.dumps(self.args, sort_keys=True)}"


def mistimed(composite: Trace, script: Trace) -> list[Mistimed]:
    """The calls of two runs that start out of the model's window (see :func:`_mistimed`)."""
    return _mistimed(_compared(composite), _compared(in_model_key_order(composite, script)))


def _mistimed(ours: _Compared, theirs: _Compared) -> list[Mistimed]:
    """The calls both sides made whose script start window is not within the model's (each
    key's calls paired earliest with earliest). A wall-clock run (real backends answer late,
    the model's at once) is held to the window's start only: no call may start before vMCP
    could have started it."""
    found = []
    for key, windows in theirs.starts.items():
        for our, their in zip(ours.starts.get(key, ()), windows, strict=False):
            late_enough = our[0] <= their[0]
            if not (late_enough if theirs.real_time else late_enough and their[1] <= our[1]):
                tool, args, attempt = json.loads(key)
                found.append(Mistimed(tool, args, attempt, our, their))
    return found


def window_text(window: tuple[int, int]) -> str:
    """When a call starts, in words: an instant, or the range random waits allow."""
    earliest, latest = window
    if earliest == latest:
        return f"starts at {_instant(earliest)}"
    return f"starts between {_instant(earliest)} and {_instant(latest)} (random retry waits)"


def _instant(ns: int) -> str:
    return "0s" if ns == 0 else format_duration(ns)


def distance(composite: Trace, script: Trace) -> int:
    """How far apart two traces are: a different outcome counts most, then each backend call
    or elicitation only one side has, each output value that differs, each call started out of
    its window, the error text (unless the composite run lets it be any text)."""
    script = in_model_key_order(composite, script)
    ours, theirs = _compared(composite), _compared(script)
    far = 1000 * (ours.outcome != theirs.outcome)
    if ours.outcome == theirs.outcome == "error" and not composite.any_error_text:
        far += ours.error != theirs.error
    if ours.outcome == theirs.outcome == "success":
        far += leaves_apart(
            plain_json(composite.client_result.get("structuredContent")),
            plain_json(script.client_result.get("structuredContent")),
        )
    far += _calls_apart(ours.calls - theirs.calls, theirs.calls - ours.calls)
    far += len(_mistimed(ours, theirs))
    far += sum(a != b for a, b in zip(ours.elicitations, theirs.elicitations, strict=False))
    return far + abs(len(ours.elicitations) - len(theirs.elicitations))


def _calls_apart(only_ours: Counter[str], only_theirs: Counter[str]) -> int:
    """The calls only one side made, paired by tool and attempt: a pair counts the argument
    leaves in which it differs, a call left over counts 100."""
    theirs = [json.loads(call) for call in only_theirs.elements()]
    far = 0
    for call in (json.loads(entry) for entry in only_ours.elements()):
        partner = next((c for c in theirs if c[0] == call[0] and c[2] == call[2]), None)
        if partner is None:
            far += 100
        else:
            theirs.remove(partner)
            far += leaves_apart(call[1], partner[1])
    return far + 100 * len(theirs)


def leaves_apart(left: Any, right: Any) -> int:
    """The JSON leaves in which two values differ (numbers by their exact value)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return sum(leaves_apart(left.get(k), right.get(k)) for k in left.keys() | right.keys())
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return sum(map(leaves_apart, left, right))
    return int(canonical(left) != canonical(right))


def difference(composite: Trace, script: Trace) -> Difference | None:
    """The first differing field, or None when the traces are equivalent."""
    found = differences(composite, script)
    return found[0] if found else None


def _describe(extra: Counter[str]) -> str:
    if not extra:
        return "(nothing more)"
    return "only here: " + "; ".join(sorted(extra.elements()))


def matches(composite: Trace, script: Trace) -> bool:
    """Whether the script's trace is the model's run: nothing differs, but the text of a
    failure where the run lets it be any text (``any_error_text``)."""
    found = differences(composite, script)
    if composite.any_error_text:
        found = tuple(d for d in found if d.field != "error text")
    return not found
