"""Simulated backends: answer tool calls and elicitations from a scenario.

The state (how often each answer was used, which elicitation answer is next)
lives here, so both forms of a tool see the same world when their calls
arrive in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from transpiler.sim.scenario import ElicitationAnswer, ResultEntry, Scenario, ToolResult


@dataclass(frozen=True)
class BackendAnswer:
    """What one call receives: a result or a transport error, and how long it takes."""

    result: ToolResult | None
    transport_error: str | None
    delay_ns: int
    unmatched: bool = False


def go_equal(left: Any, right: Any) -> bool:
    """Deep equality of JSON-like values where a bool never equals a number."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return float(left) == float(right)
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(go_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            go_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    return type(left) is type(right) and bool(left == right)


def matches(when: Mapping[str, Any] | None, args: Any) -> bool:
    """True when every key/value of ``when`` is in the call's arguments (deep equality)."""
    if when is None:
        return True
    if not isinstance(args, dict):
        return not when
    return all(key in args and go_equal(args[key], value) for key, value in when.items())


class SimulatedBackends:
    """The scenario's backends, with the use counts that ``times`` limits."""

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._uses: dict[tuple[str, int], int] = {}
        self._elicitations_answered = 0
        self.incomplete = False

    def has_tool(self, name: str) -> bool:
        """Whether the tool exists (routing succeeds)."""
        return name in self._scenario.backends

    def input_schema(self, name: str) -> Any:
        """The tool's advertised ``inputSchema`` (None when it has none)."""
        tool = self._scenario.backends.get(name)
        return None if tool is None else tool.input_schema

    def call(self, name: str, args: Any) -> BackendAnswer:
        """Answer one call: the first matching entry with uses left."""
        tool = self._scenario.backends[name]
        for index, entry in enumerate(tool.results):
            if not matches(entry.when, args):
                continue
            used = self._uses.get((name, index), 0)
            if entry.times is not None and used >= entry.times:
                continue
            self._uses[(name, index)] = used + 1
            return _answer(entry)
        self.incomplete = True
        return BackendAnswer(None, f"no simulated result for {name}", 0, unmatched=True)

    def elicit(self) -> ElicitationAnswer:
        """The next elicitation answer; the last one repeats, none configured means cancel."""
        answers = self._scenario.elicitations
        if not answers:
            self.incomplete = True
            return ElicitationAnswer("cancel")
        index = min(self._elicitations_answered, len(answers) - 1)
        self._elicitations_answered += 1
        return answers[index]


def _answer(entry: ResultEntry) -> BackendAnswer:
    return BackendAnswer(entry.result, entry.transport_error, entry.delay_ns)
