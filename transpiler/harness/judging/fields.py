"""What differs between vMCP's run and the script's, field by field, for a person to act on.

The relation (:mod:`.relation`) decides whether two runs are alike and names
the part of the trace that differs; this module names the field and both
values there:

- the outcome (success, error, timeout) or, when both failed, the error text;
- an output property: ``output.deployment.status``, a leaf of
  ``structuredContent`` (a list whose length differs is one field), else the
  result's text;
- an argument of a backend call: ``arguments.merge_method`` of the call to
  ``github.merge_pull_request``. The calls only one side made are paired by
  tool and attempt, nearest arguments first; a call left unpaired is one
  field, made on one side and not on the other;
- an elicitation's message or a leaf of its schema, by position; one only one
  side asked is one field.

A call's field carries the workflow's step (the model's calls name it) and the
backend tool, so a report can point at the script's line that makes the call.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from transpiler.harness.judging.relation import (
    canonical,
    leaves_apart,
    mistimed,
    outcome_class,
    unwrapped_error,
    window_text,
)
from transpiler.harness.judging.sites import OUTCOME, outcome, value_text
from transpiler.sim.trace import CallRecord, ElicitationRecord, Trace, plain_json

#: A field one side does not have.
ABSENT: Final = "absent"
#: The field of a backend call only one side made.
CALL: Final = "call"
#: A value's text longer than this is cut where a person reads it (the JSON report has all).
SHOWN_CHARACTERS: Final = 160


def cut(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text``, or its start and how long it is."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}… ({len(text)} characters)"


class _Absent:
    """No value at a path on one side."""


_NOTHING: Final = _Absent()


@dataclass(frozen=True)
class FieldDifference:
    """One field where vMCP's run and the script's differ: ``field`` names it (``outcome``,
    ``output.a.b``, ``arguments.a``, ``call``, ``elicitation 1.message``); ``vmcp`` and
    ``script`` are each side's value as text (JSON, or words: ``absent``, ``not made``);
    ``tool``, ``step`` and ``attempt`` say which backend call it is in, if one."""

    field: str
    vmcp: str
    script: str
    tool: str | None = None
    step: str | None = None
    attempt: int = 1

    @property
    def output(self) -> tuple[str, ...] | None:
        """The output property's path (``("deployment", "status")``), if it is one."""
        if self.field == "output":
            return ()
        return tuple(self.field.split(".")[1:]) if self.field.startswith("output.") else None

    def head(self) -> str:
        """What the field is, in words: ``arguments.a of the call to t (step s)``."""
        where = [f"step {self.step}"] if self.step else []
        where += [f"attempt {self.attempt}"] if self.attempt != 1 else []
        said = f" ({', '.join(where)})" if where else ""
        if self.field == CALL:
            return f"the call to {self.tool}{said}"
        call = f" of the call to {self.tool}" if self.tool is not None else ""
        return f"{self.field}{call}{said}"

    def lines(self) -> list[str]:
        """The field, then vMCP's value and the script's (each cut to a readable length)."""
        return [f"{self.head()}:", f"  vMCP:   {cut(self.vmcp)}", f"  script: {cut(self.script)}"]


def field_differences(composite: Trace, script: Trace) -> tuple[FieldDifference, ...]:
    """Every field where the two runs differ, in the relation's order (empty when alike)."""
    found: list[FieldDifference] = []
    ours, theirs = outcome_class(composite), outcome_class(script)
    if ours != theirs:
        found.append(
            FieldDifference(
                "outcome",
                value_text(outcome(composite, composite), OUTCOME),
                value_text(outcome(script, None), OUTCOME),
            )
        )
    elif ours == "error" and unwrapped_error(composite) != unwrapped_error(script):
        found.append(
            FieldDifference("error text", unwrapped_error(composite), unwrapped_error(script))
        )
    elif ours == "success":
        found += _output(composite, script)
    found += _calls(composite.calls, script.calls)
    found += [
        FieldDifference(
            f"start ({_text(late.args)})",
            window_text(late.model),
            window_text(late.script),
            late.tool,
            None,
            late.attempt,
        )
        for late in mistimed(composite, script)
    ]
    found += _elicitations(composite.elicitations, script.elicitations)
    return tuple(found)


def _text(value: Any) -> str:
    return ABSENT if value is _NOTHING else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _leaves(path: str, ours: Any, theirs: Any) -> Iterator[tuple[str, str, str]]:
    """Each leaf under ``path`` where two plain JSON values differ (numbers by value): its
    path (``.``-joined keys and list indexes) and both values as text."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in [*ours, *(k for k in theirs if k not in ours)]:
            yield from _leaves(f"{path}.{key}", ours.get(key, _NOTHING), theirs.get(key, _NOTHING))
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (left, right) in enumerate(zip(ours, theirs, strict=True)):
            yield from _leaves(f"{path}.{index}", left, right)
    elif _NOTHING in (ours, theirs) or canonical(ours) != canonical(theirs):
        yield path, _text(ours), _text(theirs)


def _output(composite: Trace, script: Trace) -> list[FieldDifference]:
    """The output properties that differ, else the result's text."""
    ours = plain_json(composite.client_result.get("structuredContent"))
    theirs = plain_json(script.client_result.get("structuredContent"))
    found = [FieldDifference(*leaf) for leaf in _leaves("output", ours, theirs)]
    if found:
        return found
    ours, theirs = _content_text(composite), _content_text(script)
    return [] if ours == theirs else [FieldDifference("result text", _text(ours), _text(theirs))]


def _content_text(trace: Trace) -> Any:
    content = trace.client_result.get("content") or [{}]
    return content[0].get("text", "")


def _call_key(call: CallRecord) -> str:
    return json.dumps([call.tool, canonical(call.args), call.attempt])


def _only(mine: Sequence[CallRecord], other: Sequence[CallRecord]) -> list[CallRecord]:
    """The calls of ``mine`` the other side did not make (as a multiset, in order)."""
    left = Counter(_call_key(call) for call in other)
    kept = []
    for call in mine:
        key = _call_key(call)
        if left[key] > 0:
            left[key] -= 1
        else:
            kept.append(call)
    return kept


def _calls(composite: Sequence[CallRecord], script: Sequence[CallRecord]) -> list[FieldDifference]:
    """The arguments in which paired calls differ, then each call only one side made."""
    ours, theirs = _only(composite, script), _only(script, composite)
    found: list[FieldDifference] = []
    for call in list(ours):
        same = [c for c in theirs if c.tool == call.tool and c.attempt == call.attempt]
        if not same:
            continue
        wanted = plain_json(call.args)
        partner = min(same, key=lambda c: leaves_apart(plain_json(c.args), wanted))
        ours.remove(call)
        theirs.remove(partner)
        found += [
            FieldDifference(path, left, right, call.tool, call.step, call.attempt)
            for path, left, right in _leaves("arguments", wanted, plain_json(partner.args))
        ]
    for call in ours:
        made = f"made with {_text(plain_json(call.args))}"
        found.append(FieldDifference(CALL, made, "not made", call.tool, call.step, call.attempt))
    for call in theirs:
        made = f"made with {_text(plain_json(call.args))}"
        step = next((c.step for c in composite if c.tool == call.tool), None)
        found.append(FieldDifference(CALL, "not made", made, call.tool, step, call.attempt))
    return found


def _elicitations(
    composite: Sequence[ElicitationRecord], script: Sequence[ElicitationRecord]
) -> list[FieldDifference]:
    """The message or schema leaves in which the n-th elicitations differ; each only one side
    asked."""
    found: list[FieldDifference] = []
    for number in range(1, max(len(composite), len(script)) + 1):
        ours = composite[number - 1] if number <= len(composite) else None
        theirs = script[number - 1] if number <= len(script) else None
        name = f"elicitation {number}"
        if ours is None or theirs is None:
            asked = ours or theirs
            assert asked is not None
            said = f"asked {_text(asked.message)}"
            sides = (said, "not asked") if ours is not None else ("not asked", said)
            found.append(FieldDifference(name, *sides, step=asked.step))
            continue
        if ours.message != theirs.message:
            texts = _text(ours.message), _text(theirs.message)
            found.append(FieldDifference(f"{name}.message", *texts, step=ours.step))
        schemas = plain_json(ours.schema), plain_json(theirs.schema)
        found += [
            FieldDifference(*leaf, step=ours.step) for leaf in _leaves(f"{name}.schema", *schemas)
        ]
    return found
