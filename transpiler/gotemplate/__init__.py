"""Go ``text/template`` in Python, as vMCP's composite tools use it.

- :func:`parse` parses like ``template.New(name).Funcs(vMCP's
  functions).Parse(text)`` (cached per text and name) and raises
  :class:`TemplateSyntaxError` carrying Go's message.
- :func:`render` executes like ``tmpl.Execute`` followed by vMCP's 10 MiB
  output check, raising :class:`TemplateExecError` carrying Go's message.
- :func:`extract_references` is vMCP's ``ExtractReferences`` (S23);
  :func:`reads` is the dataflow view: every context path a template may read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from transpiler.golang.values import GoValue
from transpiler.gotemplate.errors import (
    TemplateExecError,
    TemplateLimitError,
    TemplateOutputTooLarge,
    TemplateSyntaxError,
    TemplateUnsupportedError,
)
from transpiler.gotemplate.parser import Template, parse_template
from transpiler.gotemplate.reads import ContextRead, reads
from transpiler.gotemplate.refs import extract_references
from transpiler.gotemplate.render import ExecutionLimits, Observation, execute

__all__ = [
    "ContextRead",
    "ExecutionLimits",
    "Observation",
    "Template",
    "TemplateExecError",
    "TemplateLimitError",
    "TemplateOutputTooLarge",
    "TemplateSyntaxError",
    "TemplateUnsupportedError",
    "extract_references",
    "parse",
    "reads",
    "render",
]


@lru_cache(maxsize=4096)
def _parse_cached(text: str, name: str) -> Template | tuple[str, int]:
    try:
        return parse_template(text, name)
    except TemplateSyntaxError as error:
        return error.go_message, error.line


def parse(text: str, name: str = "expand") -> Template:
    """Parse a template; raises :class:`TemplateSyntaxError` (cached by text and name)."""
    result = _parse_cached(text, name)
    if isinstance(result, Template):
        return result
    raise TemplateSyntaxError(*result)


def render(
    template: Template,
    data: GoValue,
    *,
    limits: ExecutionLimits | None = None,
    observation: Observation | None = None,
    printer: Callable[[Any], str] | None = None,
    bodies: Mapping[str, Callable[..., Any]] | None = None,
) -> str:
    """Execute ``template`` over ``data``; raises :class:`TemplateExecError`.

    ``observation``, when given, records what was read and printed; ``printer`` writes what
    actions print instead of Go's ``%v``; ``bodies`` replaces named functions' bodies.
    """
    return execute(template, data, limits, observation, printer, bodies)
