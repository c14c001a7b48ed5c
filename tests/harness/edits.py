"""One wrong edit of the script ``check`` emits for a tool, checked as the gate checks it."""

from __future__ import annotations

from dataclasses import replace

from transpiler.config.units import LoadedTool
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool


def edited_report(tool: LoadedTool, options: CheckOptions, before: str, after: str) -> ToolReport:
    """The report of ``check`` on the script emitted under ``options`` with its first
    ``before`` made ``after`` (which it must hold)."""
    emitted = check_tool(tool, replace(options, paths=1)).emitted
    assert emitted is not None
    assert before in emitted.script, f"{before!r} is not in the emitted script"
    wrong = replace(emitted, script=emitted.script.replace(before, after, 1))
    return check_tool(tool, options, emitted=wrong)
