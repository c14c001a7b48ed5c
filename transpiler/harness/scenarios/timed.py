"""Answers that take time, so that when each backend call starts shows.

The relation compares each call's start in virtual time (:mod:`relation`), but
an answer given at once hides a schedule: calls a script makes one after the
other start at the same instant as calls vMCP makes at once. So the expected
scenario also runs with every backend tool answering after a delay of its own
(each of its answers to one call a little after the one before),
growing in the order the tools are named, then shrinking, then growing again
with each forEach collection holding several items, and the client answering
each elicitation after them all: a call made after another
instead of beside it starts later, a step that waits for its whole level starts
after the slowest step of it (whichever that is), and a forEach's later items
start as earlier ones end. The delays are a few tens of milliseconds, far
inside any deadline a step sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from transpiler.harness.scenarios.paths import _longest_list
from transpiler.harness.scenarios.shapes import ToolShapes

#: The delay between two tools' answers, in milliseconds.
STEP_MS: Final = 10
#: The delay between two answers of one tool (each to its own call), in microseconds.
CALL_US: Final = 100
#: The most items a collection holds in the timed scenario with several: enough to fill
#: any ``maxParallel`` below ``parallel()``'s cap of 10 and one more.
TIMED_ITEMS: Final = 11


def timed_scenarios(
    document: dict[str, Any],
    shapes: ToolShapes,
    answers: Mapping[str, Sequence[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """``document`` (a scenario in its file form) with each backend tool's answers given
    after a delay of its own (an answer's own delay kept): growing in the order of the tools'
    names, then shrinking (once when there is one tool); then growing again, each tool whose
    expected ``answers`` hold a longer list answering with the longest (up to
    :data:`TIMED_ITEMS` items)."""
    backends: dict[str, Any] = document.get("backends") or {}
    names = sorted(backends)
    orders = [names, names[::-1]] if len(names) > 1 else [names]
    timed = [_timed(document, backends, order) for order in orders if order]
    longer = {
        tool: {"results": [shapes.success(tool, body)]}
        for tool, bodies in answers.items()
        for body in [_longest(bodies)]
        if tool in backends and body is not None
    }
    if longer and names:
        timed.append(_timed(document, {**backends, **longer}, names))
    return timed


def _longest(bodies: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The answer whose longest list is longest, up to :data:`TIMED_ITEMS`, if one is longer
    than the first answer's."""
    fitting = [body for body in bodies if _longest_list(body) <= TIMED_ITEMS]
    if not bodies or not fitting:
        return None
    body = max(fitting, key=_longest_list)
    return body if _longest_list(body) > _longest_list(bodies[0]) else None


def _timed(document: dict[str, Any], backends: dict[str, Any], order: list[str]) -> dict[str, Any]:
    """``document`` with ``backends``, each tool answering after its rank in ``order`` times
    :data:`STEP_MS`, and each elicitation answered after one step more than the slowest tool
    (an answer's own delay kept)."""
    answered = f"{(len(order) + 1) * STEP_MS}ms"
    return {
        **document,
        "elicitations": [
            {"delay": answered, **answer} for answer in document.get("elicitations") or []
        ],
        "backends": {
            name: {
                **backends[name],
                "results": [
                    {"delay": _delay(rank, index), **result}
                    for index, result in enumerate(backends[name].get("results", []))
                ],
            }
            for rank, name in enumerate(order, 1)
        },
    }


def _delay(rank: int, index: int) -> str:
    """The delay of a tool's ``index``-th answer when the tool answers ``rank``-th: each answer
    of one tool (one per call it is keyed to) a little after the one before, so calls of one
    tool made at once end one after the other (which ended last decides a result)."""
    return f"{rank * STEP_MS}ms" + (f"{index * CALL_US}us" if index else "")
