"""What the forEach tests do to each tool: emit it in a style, run the script on an engine,
and ask the gate about it with the scenario among its own."""

from __future__ import annotations

from transpiler.config.loader import LoadedTool
from transpiler.emit import emit_tool
from transpiler.emit.report import EmitResult
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import run_starlark


def emitted_run(
    tool: LoadedTool, scenario: Scenario, style: str, engine: str
) -> tuple[EmitResult, Trace]:
    """``tool`` emitted in ``style``, and its script's run of ``scenario`` on ``engine``."""
    emitted = emit_tool(tool.effective, tool.origin.file, style=style)
    assert emitted.style == style
    script = run_starlark(
        emitted.script,
        scenario,
        engine=engine,
        timeout_ns=tool.effective.timeout,
        modules=emitted.modules,
    )
    return emitted, script


def gate_report(tool: LoadedTool, scenario: Scenario, style: str, engine: str) -> ToolReport:
    """The gate's report on ``tool``'s script in ``style`` on ``engine``, ``scenario`` among
    the scenarios it generates (a small budget)."""
    options = CheckOptions(
        examples=5, paths=8, engines=(engine,), style=style, scenarios=(scenario,)
    )
    return check_tool(tool, options)
