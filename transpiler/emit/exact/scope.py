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
from transpiler.emit import ir
from transpiler.emit.exact.nodes import rewrite, string
from transpiler.emit.exact.templates import (
    CompiledTemplate,
    ForEachEnv,
    TemplateEnv,
    compile_template,
)
from transpiler.emit.naming import Namer
from transpiler.emit.report import Note
from transpiler.gotemplate import TemplateSyntaxError, parse
from transpiler.plan.dataflow import dataflow
from transpiler.plan.reads import reads_of, site_reads

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
COMPLETED = ir.Str("completed")
_PARAMS = ir.Name("params")
_PARAMS_GET = ir.Attribute(_PARAMS, "get")


@dataclass
class Products:
    """Where a step's record lives in the script: variable names (``status`` None when the
    step always completes, ``error`` and ``content`` None when nothing reads them)."""

    output: str
    status: str | None = None
    error: str | None = None
    content: str | None = None

    def status_value(self) -> ir.Expr:
        """The step's status as the script knows it."""
        return COMPLETED if self.status is None else ir.Name(self.status)


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
        self.definitions: list[ir.Def] = []
        self.notes: list[Note] = []
        self.visible: dict[str, Products] = {}
        self.products: dict[str, Products] = {}
        self.site_reads = site_reads(tool)
        self.edges = dataflow(tool)
        self.needs = reads_of(tool, self.site_reads, self.edges)
        self.workflow: ir.Expr = ir.json_literal(
            {"duration_ms": 0, "status": "pending", "step_count": 0}
        )

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

    def _simplified(self, expr: ir.Expr) -> ir.Expr:
        """Print a required string parameter as itself.

        Under the claimed domain (arguments conform to the parameter schema) a
        required ``type: string`` parameter is present and a string, so Go
        prints it unchanged: ``go_text(params.get("x", GO_MISSING))`` is
        ``params["x"]``.
        """
        if not self.required_strings:
            return expr

        def simpler(node: ir.Expr) -> ir.Expr:
            if not (isinstance(node, ir.Call) and node.func == ir.Name("go_text")):
                return node
            read = node.args[0] if len(node.args) == 1 and not node.kwargs else None
            if (
                isinstance(read, ir.Call)
                and read.func == _PARAMS_GET
                and not read.kwargs
                and len(read.args) == 2
                and isinstance(read.args[0], ir.Str)
                and read.args[0].text in self.required_strings
                and read.args[1] == ir.Name("GO_MISSING")
            ):
                return ir.Index(_PARAMS, read.args[0])
            return node

        return rewrite(expr, simpler)

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
            params=_PARAMS,
            step=_step_lookup(shown),
            steps_map=lambda: _steps_map(shown),
            workflow=self.workflow,
            for_each=for_each,
        )

    def template(self, source: str, env: TemplateEnv) -> CompiledTemplate:
        """Compile one template string; record the definitions it needs."""
        compiled = compile_template(source, env)
        for definition in compiled.definitions:
            if definition not in self.definitions:
                self.definitions.append(definition)
        compiled = replace(compiled, expr=self._simplified(compiled.expr))
        if compiled.parse_error:
            message = "failed to parse template: " + _parse_message(source)
            return replace(compiled, expr=ir.Unbroken(ir.call("go_error", string(message))))
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


def _content(products: Products) -> ir.Expr:
    return ir.Dict(()) if products.content is None else ir.Name(products.content)


def _step_lookup(shown: dict[str, Products]) -> Callable[[str, str], ir.Expr | None]:
    def lookup(step_id: str, part: str) -> ir.Expr | None:
        products = shown.get(step_id)
        if products is None:
            return None
        if part == "output":
            return ir.Name(products.output)
        if part == "status":
            return products.status_value()
        if part == "error":
            return None if products.error is None else ir.Name(products.error)
        return _content(products)

    return lookup


def _steps_map(shown: dict[str, Products]) -> ir.Expr:
    entries: list[tuple[ir.Expr, ir.Expr]] = []
    for step_id, products in shown.items():
        entry: ir.Expr = ir.Dict(
            (
                (ir.Str("status"), products.status_value()),
                (ir.Str("output"), ir.Name(products.output)),
                (ir.Str("content"), _content(products)),
            )
        )
        if products.error is not None:
            entry = ir.call("vmcp_record", entry, ir.Name(products.error))
        entries.append((string(step_id), entry))
    return ir.Dict(tuple(entries))
