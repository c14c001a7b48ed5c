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
from functools import lru_cache
from typing import Any, TypeVar

from transpiler.composite.errors import GoError
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import (
    QuirkLog,
    Site,
    judge_condition,
    judge_failure,
    judge_text,
    missing_site,
)
from transpiler.composite.state import WorkflowState
from transpiler.composite.variants import (
    RUST_FUNCTIONS,
    STARLARK_COMPARISONS,
    STARLARK_JSON,
    STARLARK_RUST,
    VMCP,
    ScriptStopped,
    Variants,
    printer,
    rust_json_bodies,
    script_printf,
    with_placeholders,
)
from transpiler.deviations import Deviation
from transpiler.diagnostics import TranspilerError
from transpiler.golang.strconv import quote
from transpiler.golang.values import GoValue
from transpiler.gotemplate import Observation, Template, ast, parse, reads, render
from transpiler.gotemplate.errors import (
    TemplateExecError,
    TemplateLimitError,
    TemplateSyntaxError,
    TemplateUnsupportedError,
)
from transpiler.gotemplate.render import MAX_OUTPUT_BYTES
from transpiler.gotemplate.runtime import MISSING, truth
from transpiler.sim.schedule import Chooser

MAX_DEPTH = 100
TEMPLATE_NAME = "expand"
_PLAIN_TEXT_LIMIT = MAX_OUTPUT_BYTES // 4  # characters that surely fit in the output limit
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
    """Expands strings, argument maps and conditions against one workflow's state.

    Every expansion names its :class:`Site`; what it exercises of vMCP's
    quirks goes to ``quirks`` (:mod:`transpiler.composite.quirks`).
    """

    def __init__(
        self,
        state: WorkflowState,
        chooser: Chooser,
        quirks: QuirkLog,
        variants: Variants = VMCP,
    ) -> None:
        self.state = state
        self.chooser = chooser
        self.quirks = quirks
        self.variants = variants
        #: Output properties a variant made null: a script's result has no ``required`` check.
        self.script_nulls: set[str] = set()
        #: The value each argument's text is exactly the printing of (by place), as last
        #: expanded: what a script sends there with its own type.
        self.alone: dict[str, GoValue] = {}
        #: The JSON texts a variant wrote as starlark-rust's ``json.encode`` does: a script
        #: writes their objects' keys in the order it added them.
        self.rust_json_texts: set[str] = set()

    def string(
        self,
        context: GoContext,
        text: str,
        site: Site,
        for_each: dict[str, GoValue] | None = None,
        seen: Observation | None = None,
    ) -> str | GoError:
        """``expandStringInternal``: one template string (``seen`` receives what it printed)."""
        error = context.err()
        if error is not None:
            return error.wrap("context cancelled before template expansion")
        if "{{" not in text and len(text) <= _PLAIN_TEXT_LIMIT:
            return text  # no action: the template prints its text, reads and judges nothing
        template = _parsed(text)
        if isinstance(template, GoError):
            return template
        seen = Observation() if seen is None else seen
        data = self.state.template_data(for_each)
        bodies = self._bodies(site)
        try:
            rendered = render(template, data, observation=seen, bodies=bodies)
        except (TemplateLimitError, TemplateUnsupportedError) as beyond:
            raise SimulationLimitError(
                f"cannot simulate this template: {beyond.go_message}"
            ) from None
        except TemplateExecError as failure:
            judge_text(self.quirks, site, template, seen)
            self._stop_at_missing(site, seen, template)
            if self.template_failed(site, failure.go_message) is None:
                return _exec_error(failure.go_message)
            bodies = {**(bodies or {}), **STARLARK_COMPARISONS}
            rendered = self._plain(template, data, site, seen, bodies)
        judge_text(self.quirks, site, template, seen)
        self._stop_at_missing(site, seen, template)
        choices = self.variants.printing(site)
        missing = self.missing_variant(site, seen)
        if missing is not None:
            choices[Deviation.MISSING_VALUE] = missing
        placeholders = self.variants.at(Deviation.WORKFLOW_METADATA, site) == "placeholders"
        if not choices and not placeholders:
            return rendered
        if placeholders:
            data = with_placeholders(data)
        if choices:
            bodies = {**(bodies or {}), **script_printf(choices)}
        shown = printer(choices, self.rust_json_texts) if choices else None
        return render(template, data, printer=shown, bodies=bodies)

    def template_failed(self, site: Site, message: str) -> str | None:
        """A template that failed at ``site``: the ``template-error`` variant taken there (None:
        vMCP's failure); ``stop`` stops the script at once."""
        judge_failure(self.quirks, site, message)
        variant = self.variants.at(Deviation.TEMPLATE_ERROR, site)
        if variant == "stop":
            raise ScriptStopped(Deviation.TEMPLATE_ERROR, site)
        return variant

    def _bodies(self, site: Site) -> dict[str, Callable[..., Any]] | None:
        """The template functions a script computes its own way at ``site``: ``json`` as
        ``json.encode`` writes it (on starlark-rust, :func:`rust_json_bodies`), and on
        starlark-rust ``len`` and ``printf`` too."""
        rust = self.variants.at(Deviation.RUST_ENGINE, site) == STARLARK_RUST
        encode = self.variants.at(Deviation.JSON_TEXT, site) == "encode"
        if rust:
            return {**RUST_FUNCTIONS, **rust_json_bodies(self.rust_json_texts, encode)}
        return dict(STARLARK_JSON) if encode else None

    def _plain(
        self,
        template: Template,
        data: dict[str, Any],
        site: Site,
        seen: Observation,
        bodies: dict[str, Callable[..., Any]],
    ) -> str:
        """``template-error: plain``: the template again, comparing as Starlark does; what
        still fails stops the script."""
        seen.reset()
        try:
            return render(template, data, observation=seen, bodies=bodies)
        except TemplateExecError:
            raise ScriptStopped(Deviation.TEMPLATE_ERROR, site) from None

    def missing_variant(self, site: Site, seen: Observation) -> str | None:
        """The ``missing-value`` variant this expansion takes, if it read a missing field."""
        return (
            self.variants.at(Deviation.MISSING_VALUE, missing_site(site, seen))
            if seen.missing
            else None
        )

    def missing_is_null(self, site: Site, source: str, seen: Observation) -> bool:
        """``missing-value: none`` where an output property's template is that one missing
        value (a lone action): the script returns the value itself, ``null``."""
        return (
            self.missing_variant(site, seen) == "none"
            and len(seen.printed) == 1
            and seen.printed[0] in (MISSING, None)
            and _lone(source)
        )

    def _stop_at_missing(self, site: Site, seen: Observation, template: Template) -> None:
        """``missing-value: stop``: a script that indexes a missing field stops there, except
        where the template reads the content of an answer a ``continue`` handler passed: that
        content is missing on the path the workflow declared, so the variant does not apply."""
        if self.missing_variant(site, seen) != "stop":
            return
        if self.state.continued_answers.isdisjoint(_contents_read(template.source)):
            raise ScriptStopped(Deviation.MISSING_VALUE, missing_site(site, seen))

    def arguments(
        self,
        context: GoContext,
        data: dict[str, GoValue] | None,
        site: Site,
        for_each: dict[str, GoValue] | None = None,
    ) -> dict[str, GoValue] | GoError | None:
        """``Expand``/``ExpandWithForEach``: a map expanded value by value (S80)."""
        if data is None:
            return None
        return self._map(
            data,
            lambda key, value: self._value(context, value, site.under(key), for_each, 0),
            "failed to expand value for key",
        )

    def keyed_string(
        self,
        context: GoContext,
        key: str,
        text: str,
        site: Site,
        seen: Observation | None = None,
    ) -> str | GoError:
        """``Expand({key: text})``: one string in a map (elicitation message, output value)."""
        error = context.err()
        if error is None:
            expanded = self.string(context, text, site, seen=seen)
            if isinstance(expanded, str):
                return expanded
            error = expanded
        else:
            error = error.wrap("context cancelled during template expansion")
        return error.wrap(f"failed to expand value for key {quote(key)}")

    def condition(self, context: GoContext, condition: str, site: Site) -> bool | GoError:
        """``EvaluateCondition`` (S64-S65); an empty condition is never passed here."""
        seen = Observation()
        result = self.string(context, condition, site, seen=seen)
        judge_condition(self.quirks, site, seen, result if isinstance(result, str) else None)
        if self.variants.at(Deviation.CONDITION_TEXT, site) == "truth" and len(seen.printed) == 1:
            value = seen.printed[0]
            return value is not MISSING and truth(value)
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
        self,
        context: GoContext,
        value: GoValue,
        site: Site,
        for_each: dict[str, GoValue] | None,
        depth: int,
    ) -> GoValue | GoError:
        error = context.err()
        if error is not None:
            return error.wrap("context cancelled during template expansion")
        if depth > MAX_DEPTH:
            return GoError(f"template expansion depth limit exceeded: {MAX_DEPTH}")
        if isinstance(value, str):
            seen = Observation()
            text = self.string(context, value, site, for_each, seen)
            self._alone(site, value, text, seen)
            return text
        if isinstance(value, dict):
            return self._map(
                value,
                lambda key, item: self._value(context, item, site.under(key), for_each, depth + 1),
                "failed to expand nested key",
            )
        if isinstance(value, list):
            return self._list(
                value,
                lambda index, item: self._value(
                    context, item, site.under(str(index)), for_each, depth + 1
                ),
            )
        return value

    def _alone(self, site: Site, source: str, text: str | GoError, seen: Observation) -> None:
        self.alone.pop(site.place, None)
        if isinstance(text, str) and len(seen.printed) == 1 and _lone(source):
            value = seen.printed[0]
            if value is not MISSING and value is not None:
                self.alone[site.place] = value

    def _map(
        self,
        data: dict[str, GoValue],
        expand: Callable[[str, GoValue], GoValue | GoError],
        wrapper: str,
    ) -> dict[str, GoValue] | GoError:
        result: dict[str, GoValue] = {}
        failures: list[tuple[str, GoError]] = []
        for key, value in data.items():
            expanded = expand(key, value)
            if isinstance(expanded, GoError):
                failures.append((key, expanded.wrap(f"{wrapper} {quote(key)}")))
            else:
                result[key] = expanded
        if failures:
            return first_error_in_map_order(self.chooser, ARGUMENTS_ORDER, failures)[1]
        return result

    def _list(
        self, items: list[GoValue], expand: Callable[[int, GoValue], GoValue | GoError]
    ) -> list[GoValue] | GoError:
        result: list[GoValue] = []
        for index, item in enumerate(items):
            expanded = expand(index, item)
            if isinstance(expanded, GoError):
                return expanded.wrap(f"failed to expand array element {index}")
            result.append(expanded)
        return result


@lru_cache(maxsize=4096)
def _lone(source: str) -> bool:
    """Whether the template is one action (what it prints is its whole text)."""
    template = _parsed(source)
    return not isinstance(template, GoError) and ast.lone_action(template.root) is not None


@lru_cache(maxsize=4096)
def _contents_read(source: str) -> frozenset[str]:
    """The steps whose ``output.content`` (or a field under it) the template may read."""
    template = _parsed(source)
    if isinstance(template, GoError):
        return frozenset()
    return frozenset(
        read.path[1]
        for read in reads(template)
        if read.path[:1] == ("steps",)
        and len(read.path) > 1
        and (
            read.path[2:4] == ("output", "content")
            or (read.dynamic and read.path[2:] in ((), ("output",)))
        )
    )


def _exec_error(go_message: str) -> GoError:
    """``failed to execute template: …``, except vMCP's own size check, which is not wrapped."""
    if go_message.startswith("template output too large:"):
        return GoError(go_message)
    return GoError(go_message).wrap("failed to execute template")
