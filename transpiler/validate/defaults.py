"""S23: a skippable step's output fields that others read need ``defaultResults``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from transpiler.config.model import OutputProperty, WorkflowStepConfig
from transpiler.diagnostics import Diagnostic
from transpiler.golang.strconv import quote
from transpiler.gotemplate import TemplateSyntaxError
from transpiler.validate.checker import Checker
from transpiler.validate.templates import OutputFieldRef, output_field_refs


def may_be_skipped(step: WorkflowStepConfig) -> bool:
    """vMCP's ``stepMayBeSkipped``: a condition, or ``onError.action: continue``."""
    return bool(step.condition) or step.continues_on_error


def default_results_findings(check: Checker) -> Iterator[Diagnostic]:
    steps, sp = check.tool.steps, check.steps_prefix
    defaults: dict[str, set[str]] = {}
    for step in steps:
        if may_be_skipped(step):
            defaults[step.id] = set(step.default_results or {})
    if not defaults:
        return
    by_id = {step.id: step for step in steps}
    for step in steps:
        texts = (
            [step.condition]
            + [v for v in (step.arguments or {}).values() if isinstance(v, str)]
            + [step.message]
        )
        refs: list[OutputFieldRef] = []
        for text in texts:
            if not text:
                continue
            try:
                refs.extend(ref for ref in output_field_refs(text) if ref not in refs)
            except TemplateSyntaxError as error:
                yield check.error(
                    "P2.S23.referenceParse",
                    f"failed to extract step references from step {step.id}: {error.go_message}",
                    step.where.at,
                    step.id or None,
                )
                break
        for ref in refs:
            if ref.step in defaults and ref.field not in defaults[ref.step]:
                yield _missing_default(check, sp, by_id[ref.step], ref, f"step {step.id}")
    if check.tool.output is not None:
        refs = []
        for prop in _output_properties(check.tool.output.properties):
            if prop.value:
                try:
                    refs.extend(ref for ref in output_field_refs(prop.value) if ref not in refs)
                except TemplateSyntaxError as error:
                    yield check.error(
                        "P2.S23.referenceParse",
                        f"failed to extract step references from output: {error.go_message}",
                        prop.where.of("value"),
                    )
                    return
        for ref in refs:
            if ref.step in defaults and ref.field not in defaults[ref.step]:
                yield _missing_default(check, sp, by_id[ref.step], ref, "output")


def _output_properties(properties: Mapping[str, OutputProperty]) -> Iterator[OutputProperty]:
    for prop in properties.values():
        yield prop
        yield from _output_properties(prop.properties)


def _missing_default(
    check: Checker, sp: str, skipped: WorkflowStepConfig, ref: OutputFieldRef, reader: str
) -> Diagnostic:
    message = (
        f"{sp}[{ref.step}].defaultResults[{ref.field}] is required: "
        f"step {quote(ref.step)} may be skipped "
        f"and field {quote(ref.field)} is referenced by {reader}"
    )
    where = (
        skipped.where.of("defaultResults")
        if skipped.default_results is not None
        else skipped.where.at
    )
    return check.error("P2.S23.defaultResults", message, where, ref.step or None)
