"""Errors of parsing and executing Go templates, carrying Go's exact text."""

from __future__ import annotations

from transpiler.diagnostics import TranspilerError


class TemplateSyntaxError(TranspilerError):
    """The template does not parse: ``template: <name>:<line>: <msg>``."""

    def __init__(self, go_message: str, line: int) -> None:
        super().__init__(go_message)
        self.go_message = go_message
        self.line = line


class TemplateExecError(TranspilerError):
    """Execution failed; ``go_message`` is what Go's ``Execute`` (or vMCP's size
    check) returns, e.g. ``template: expand:1:2: executing "expand" at <.x>: …``."""

    def __init__(self, go_message: str) -> None:
        super().__init__(go_message)
        self.go_message = go_message


class TemplateOutputTooLarge(TemplateExecError):
    """vMCP's check after execution: ``template output too large: <n> bytes (max 10485760)``."""


class TemplateLimitError(TemplateExecError):
    """Execution exceeded a guard of ours that vMCP does not have (run time or
    memory of a pathological template); vMCP would keep running."""


class TemplateUnsupportedError(TemplateExecError):
    """The template calls a method of a ``time.Time`` value, which this renderer
    does not implement (vMCP would call it)."""
