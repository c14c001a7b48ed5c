"""Warnings where a config passes vMCP's checks but does not do what it appears to (section S)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from transpiler.config.model import StepKindRow, WorkflowStepConfig
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation
from transpiler.gotemplate import TemplateSyntaxError, extract_references, parse


def _chains(text: str) -> list[tuple[str, ...]]:
    if not text:
        return []
    try:
        return extract_references(parse(text, "advice"))
    except TemplateSyntaxError:
        return []


def advise(tool: LoadedTool) -> Iterator[Diagnostic]:
    """Warnings for one tool: D13, D25, D29, D30 and fields its step types ignore (S2)."""
    config = tool.effective
    name = config.name or None

    def warn(
        rule: str, message: str, where: SourceLocation, step: str | None, phase: str = "P6"
    ) -> Diagnostic:
        return Diagnostic(rule, message, where, Severity.WARNING, name, step, phase)

    params = config.parameters or {}
    properties = params.get("properties")
    declared = properties if isinstance(properties, dict) else {}
    retrying = {
        s.id for s in config.steps if s.on_error is not None and s.on_error.action == "retry"
    }
    for written, step in zip(tool.config.steps, config.steps, strict=True):
        sid = step.id or None
        if not written.type and written.tool and written.message:
            yield warn(
                "W.D29.messageIgnored",
                "both tool and message without a type: the loader makes this a "
                "tool step and the message is ignored (D29)",
                step.where.of("message"),
                sid,
                "P1",
            )
        if step.kind_row is not None:
            yield from _kind_advice(warn, step.kind_row, step, written, sid)
        for chain in _chains(step.condition):
            if (
                chain[:1] == ("params",)
                and len(chain) >= 2
                and not _has_default(declared.get(chain[1]))
            ):
                yield warn(
                    "W.D30.conditionParam",
                    f"condition reads .params.{chain[1]}, which has no default: "
                    'when a caller omits it the condition renders "<no value>", which is an error, '
                    "not false (D30; vMCP does not enforce 'required')",
                    step.where.of("condition"),
                    sid,
                )
            if (
                len(chain) >= 3
                and chain[0] == "steps"
                and chain[1] in retrying
                and chain[2] in ("status", "error")
            ):
                yield warn(
                    "W.D25.retryFallback",
                    f"the condition checks whether {chain[1]} failed, but {chain[1]} "
                    "retries, and a step whose retries run out aborts the workflow, so this "
                    "never sees "
                    "it failed; add onError action continue instead (D25)",
                    step.where.of("condition"),
                    sid,
                )


def _kind_advice(
    warn: Callable[[str, str, SourceLocation, str | None], Diagnostic],
    row: StepKindRow,
    step: WorkflowStepConfig,
    written: WorkflowStepConfig,
    sid: str | None,
) -> Iterator[Diagnostic]:
    """Keys the step's kind ignores (S2); handlers whose ``skip_remaining`` skips nothing (D13)."""
    for key in row.ignores:
        if key in step.where.keys and not (key == "message" and not written.type):
            yield warn(
                "W.S2.ignoredField",
                f"{key} does nothing on {_article(row.kind)} {row.kind} step (S2)",
                step.where.of(key),
                sid,
            )
    for key, handler in (("onDecline", step.on_decline), ("onCancel", step.on_cancel)):
        if row.uses(key) and handler is not None and handler.action == "skip_remaining":
            yield warn(
                "W.D13.skipRemaining",
                f"{key}: skip_remaining skips nothing: the step completes "
                "with {action, skipped: true} and every later step still runs (D13)",
                handler.where.of("action"),
                sid,
            )


def _has_default(schema: object) -> bool:
    return isinstance(schema, dict) and "default" in schema


def _article(word: str) -> str:
    """``a`` or ``an`` before ``word`` (by its first letter)."""
    return "an" if word[:1].lower() in "aeiou" else "a"
