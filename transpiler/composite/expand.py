"""Template expansion as vMCP's ``defaultTemplateExpander`` does it (S64-S66, S71-S72, S80).

- A string is parsed (name ``expand``) and executed over a fresh snapshot of
  the workflow context; parse and execution errors are wrapped as
  ``failed to parse template: …`` / ``failed to execute template: …``, and an
  output over 10 MiB fails (S72).
- Argument maps expand recursively: strings become strings, maps and lists are
  rebuilt, other values pass through; depth > 100 fails (S80). Map keys are
  visited in Go map order, so when several keys fail, which error surfaces is
  a choice (chooser label ``map-order:<what>``, options in declaration order).
- A done context fails the expansion before each value and each string.
- A condition must render exactly ``true``/``True``/``TRUE`` or
  ``false``/``False``/``FALSE`` (S64).

Expansion takes no virtual time, so one step's strings all see the same
snapshot (Go may interleave a sibling's update between two strings, R2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from transpiler.composite.errors import GoError
from transpiler.composite.gocontext import GoContext
from transpiler.composite.state import WorkflowState
from transpiler.diagnostics import TranspilerError
from transpiler.golang.strconv import quote
from transpiler.golang.values import GoValue
from transpiler.gotemplate import Template, parse, render
from transpiler.gotemplate.errors import (
    TemplateExecError,
    TemplateLimitError,
    TemplateSyntaxError,
    TemplateUnsupportedError,
)
from transpiler.sim.schedule import Chooser

MAX_DEPTH = 100
TEMPLATE_NAME = "expand"
_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")
ARGUMENTS_ORDER = "map-order:arguments"
_K = TypeVar("_K")


class SimulationLimitError(TranspilerError):
    """A template the renderer cannot follow vMCP on (a guard of ours, or a time method)."""


def _parsed(text: str) -> Template | GoError:
    """Parse (vMCP re-parses every time; the template library caches, which is equivalent)."""
    try:
        return parse(text, name=TEMPLATE_NAME)
    except TemplateSyntaxError as error:
        return GoError(error.go_message).wrap("failed to parse template")


def first_error_in_map_order(
    chooser: Chooser, label: str, failures: Sequence[tuple[_K, GoError]]
) -> tuple[_K, GoError]:
    """The failure a Go map loop hits first: any of them (R8); canonical = declaration order."""
    if len(failures) == 1:
        return failures[0]
    return chooser.choose(label, list(failures))


class Expander:
    """Expands strings, argument maps and conditions against one workflow's state."""

    def __init__(self, state: WorkflowState, chooser: Chooser) -> None:
        self.state = state
        self.chooser = chooser

    def string(
        self, context: GoContext, text: str, for_each: dict[str, GoValue] | None = None
    ) -> str | GoError:
        """``expandStringInternal``: one template string."""
        error = context.err()
        if error is not None:
            return error.wrap("context cancelled before template expansion")
        template = _parsed(text)
        if isinstance(template, GoError):
            return template
        try:
            return render(template, self.state.template_data(for_each))
        except (TemplateLimitError, TemplateUnsupportedError) as beyond:
            raise SimulationLimitError(
                f"cannot simulate this template: {beyond.go_message}"
            ) from None
        except TemplateExecError as failure:
            return _exec_error(failure.go_message)

    def arguments(
        self,
        context: GoContext,
        data: dict[str, GoValue] | None,
        for_each: dict[str, GoValue] | None = None,
    ) -> dict[str, GoValue] | GoError | None:
        """``Expand``/``ExpandWithForEach``: a map expanded value by value (S80)."""
        if data is None:
            return None
        return self._map(
            data,
            lambda value: self._value(context, value, for_each, 0),
            "failed to expand value for key",
        )

    def keyed_string(self, context: GoContext, key: str, text: str) -> str | GoError:
        """``Expand({key: text})``: one string in a map (elicitation message, output value)."""
        error = context.err()
        if error is None:
            expanded = self.string(context, text)
            if isinstance(expanded, str):
                return expanded
            error = expanded
        else:
            error = error.wrap("context cancelled during template expansion")
        return error.wrap(f"failed to expand value for key {quote(key)}")

    def condition(self, context: GoContext, condition: str) -> bool | GoError:
        """``EvaluateCondition`` (S64-S65); an empty condition is never passed here."""
        result = self.string(context, condition)
        if isinstance(result, GoError):
            return result.wrap("failed to evaluate condition")
        if result in _TRUE:
            return True
        if result in _FALSE:
            return False
        return GoError(
            f"failed to evaluate condition: condition must evaluate to 'true' or 'false', "
            f"got: {quote(result)}"
        )

    def _value(
        self, context: GoContext, value: GoValue, for_each: dict[str, GoValue] | None, depth: int
    ) -> GoValue | GoError:
        error = context.err()
        if error is not None:
            return error.wrap("context cancelled during template expansion")
        if depth > MAX_DEPTH:
            return GoError(f"template expansion depth limit exceeded: {MAX_DEPTH}")
        if isinstance(value, str):
            return self.string(context, value, for_each)
        if isinstance(value, dict):
            return self._map(
                value,
                lambda item: self._value(context, item, for_each, depth + 1),
                "failed to expand nested key",
            )
        if isinstance(value, list):
            return self._list(value, lambda item: self._value(context, item, for_each, depth + 1))
        return value

    def _map(
        self, data: dict[str, GoValue], expand: Callable[[GoValue], GoValue | GoError], wrapper: str
    ) -> dict[str, GoValue] | GoError:
        result: dict[str, GoValue] = {}
        failures: list[tuple[str, GoError]] = []
        for key, value in data.items():
            expanded = expand(value)
            if isinstance(expanded, GoError):
                failures.append((key, expanded.wrap(f"{wrapper} {quote(key)}")))
            else:
                result[key] = expanded
        if failures:
            return first_error_in_map_order(self.chooser, ARGUMENTS_ORDER, failures)[1]
        return result

    def _list(
        self, items: list[GoValue], expand: Callable[[GoValue], GoValue | GoError]
    ) -> list[GoValue] | GoError:
        result: list[GoValue] = []
        for index, item in enumerate(items):
            expanded = expand(item)
            if isinstance(expanded, GoError):
                return expanded.wrap(f"failed to expand array element {index}")
            result.append(expanded)
        return result


def _exec_error(go_message: str) -> GoError:
    """``failed to execute template: …``, except vMCP's own size check, which is not wrapped."""
    if go_message.startswith("template output too large:"):
        return GoError(go_message)
    return GoError(go_message).wrap("failed to execute template")
