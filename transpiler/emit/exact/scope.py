"""What an emitted script knows at each point: which steps ran, in which variables.

vMCP's templates read ``.steps.<id>.output/.status/.error/.content``. A
migrated script keeps each step's output in a variable named after the step,
and its status, error and content in companion variables only where some
template (or the output rule) reads them. A step that has not run at a point
of the script is absent, as in vMCP's context.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from transpiler.config.model import CompositeToolConfig
from transpiler.diagnostics import SourceLocation
from transpiler.emit.exact.layout import Code, Expr, render
from transpiler.emit.exact.templates import (
    CompiledTemplate,
    ForEachEnv,
    TemplateEnv,
    compile_template,
)
from transpiler.emit.literals import string_literal
from transpiler.emit.naming import Namer
from transpiler.emit.report import Note
from transpiler.gotemplate import TemplateSyntaxError, parse
from transpiler.plan.dataflow import dataflow
from transpiler.plan.reads import reads_of, site_reads

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
COMPLETED = '"completed"'


@dataclass
class Products:
    """Where a step's record lives in the script."""

    output: str
    status: str = COMPLETED
    error: str | None = None
    content: str | None = None


class EmitState:
    """Shared, growing state while one tool is emitted."""

    def __init__(
        self,
        tool: CompositeToolConfig,
        namer: Namer,
        tool_schemas: Mapping[str, Any] | None = None,
        fixes: frozenset[str] = frozenset(),
    ) -> None:
        self.tool = tool
        self.tool_schemas = tool_schemas
        self.fixes = fixes
        self.required_strings = required_string_parameters(tool.parameters)
        self.namer = namer
        self.definitions: list[str] = []
        self.notes: list[Note] = []
        self.visible: dict[str, Products] = {}
        self.products: dict[str, Products] = {}
        self.site_reads = site_reads(tool)
        self.edges = dataflow(tool)
        self.needs = reads_of(tool, self.site_reads, self.edges)
        self.workflow: Expr = Code('{"duration_ms": 0, "status": "pending", "step_count": 0}')

    def input_schema(self, tool: str, step: str, location: SourceLocation) -> Any:
        """The backend tool's ``inputSchema`` when the caller gave the tool list."""
        if self.tool_schemas is None:
            self.note(
                "domain",
                "no-input-schemas",
                "the backend tools declare no inputSchema that would make vMCP convert string "
                "arguments to numbers or booleans (give the backends' tools/list with --tools "
                "to reproduce that conversion)",
            )
            return None
        schema = self.tool_schemas.get(tool)
        if isinstance(schema, dict) and "x-mcp-header" in str(schema):
            self.note(
                "domain",
                "parameter-headers",
                f"arguments of {tool} are valid Mcp-Param header values (vMCP checks x-mcp-header "
                "parameters before calling; the script does not)",
                step,
                location,
            )
        return schema

    def _simplified(self, code: str) -> str:
        """Print a required string parameter as itself.

        Under the claimed domain (arguments conform to the parameter schema) a
        required ``type: string`` parameter is present and a string, so Go
        prints it unchanged: ``go_text(params.get("x", GO_MISSING))`` is
        ``params["x"]``.
        """
        for name in self.required_strings:
            code = code.replace(f'go_text(params.get("{name}", GO_MISSING))', f'params["{name}"]')
        return code

    def note(
        self,
        kind: str,
        name: str,
        text: str,
        step: str | None = None,
        location: SourceLocation | None = None,
        requested: bool = False,
    ) -> None:
        """Record a domain assumption, reproduced quirk, deviation or warning (once each)."""
        note = Note(kind, name, text, step, location, requested)
        if note not in self.notes:
            self.notes.append(note)

    def variable(self, step_id: str, suffix: str = "") -> str:
        """The script variable for a step (and a companion like ``_status``)."""
        base = self.namer.name(step_id)
        return base if not suffix else self.namer.name(f"{step_id}\x00{suffix}", base + suffix)

    def env(
        self, for_each: ForEachEnv | None = None, visible: Iterable[str] | None = None
    ) -> TemplateEnv:
        """The template root as the script sees it here."""
        shown = self.visible if visible is None else {k: self.products[k] for k in visible}
        return TemplateEnv(
            params="params",
            step=_step_lookup(shown),
            steps_map=lambda: _steps_map(shown),
            workflow=render(self.workflow),
            for_each=for_each,
        )

    def template(self, source: str, env: TemplateEnv) -> CompiledTemplate:
        """Compile one template string; record the definitions it needs."""
        compiled = compile_template(source, env)
        for definition in compiled.definitions:
            if definition not in self.definitions:
                self.definitions.append(definition)
        compiled = replace(compiled, code=self._simplified(compiled.code))
        if compiled.parse_error:
            message = "failed to parse template: " + _parse_message(source)
            return replace(compiled, code=f"go_error({string_literal(message)})")
        return compiled


def required_string_parameters(parameters: Any) -> tuple[str, ...]:
    """Parameters the schema declares required and ``type: string`` (plain names only)."""
    if not isinstance(parameters, dict) or not isinstance(parameters.get("properties"), dict):
        return ()
    required = parameters.get("required")
    names = set(required) if isinstance(required, list) else set()
    return tuple(
        name
        for name, spec in parameters["properties"].items()
        if name in names
        and isinstance(spec, dict)
        and spec.get("type") == "string"
        and _PLAIN_NAME.fullmatch(str(name))
    )


def _parse_message(source: str) -> str:
    """Go's parse error for a template that does not parse (template name ``expand``)."""
    try:
        parse(source)
    except TemplateSyntaxError as error:
        return error.go_message
    raise ValueError("the template parses")


def _step_lookup(shown: dict[str, Products]) -> Callable[[str, str], str | None]:
    def lookup(step_id: str, part: str) -> str | None:
        products = shown.get(step_id)
        if products is None:
            return None
        if part == "output":
            return products.output
        if part == "status":
            return products.status
        if part == "error":
            return products.error
        return products.content or "{}"

    return lookup


def _steps_map(shown: dict[str, Products]) -> str:
    entries = []
    for step_id, products in shown.items():
        record = [
            f'"status": {products.status}',
            f'"output": {products.output}',
            f'"content": {products.content or "{}"}',
        ]
        entry = "{" + ", ".join(record) + "}"
        if products.error is not None:
            entry = f"vmcp_record({entry}, {products.error})"
        entries.append(f"{string_literal(step_id)}: {entry}")
    return "{" + ", ".join(entries) + "}"
