"""P4: the engine's ``ValidateWorkflow`` and ``ValidateOutputConfig`` at start-up (S34, S35).

Runs on converted definitions (P3 already guarantees a name, steps, step ids,
known types, tools and elicitation messages, so those engine checks cannot
fire and are not repeated here).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from transpiler.config.model import OutputConfig, OutputProperty, StepKind
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation
from transpiler.golang.strconv import quote
from transpiler.golang.values import AnyKeyMap, GoTime, GoValue

PHASE = "P4"
MAX_STEPS = 100
MAX_PROPERTY_DEPTH = 10
OUTPUT_TYPES = ("string", "integer", "number", "boolean", "object", "array")
_ACCEPTED_DEFAULTS: Mapping[str, tuple[tuple[str, ...], str]] = {
    "integer": (("int", "float64", "string"), "integer-compatible type"),
    "number": (("int", "float64", "string"), "number-compatible type"),
    "boolean": (("bool", "int", "string"), "boolean-compatible type"),
    "object": (("map[string]interface {}", "string"), "object or JSON string"),
    "array": (("[]interface {}", "string"), "array ([]any) or JSON string"),
}


@dataclass(frozen=True)
class P4Result:
    """Engine validation findings; vMCP stops at the first error of one (map-ordered) workflow."""

    diagnostics: tuple[Diagnostic, ...]
    reported: Diagnostic | None
    message: str | None


def validate_workflows(tools: Sequence[LoadedTool]) -> P4Result:
    """``ValidateWorkflow`` on every converted tool."""
    everything: list[Diagnostic] = []
    reported: Diagnostic | None = None
    message: str | None = None
    for tool in tools:
        findings = list(_workflow(tool))
        everything.extend(findings)
        if findings and reported is None:
            reported = findings[0]
            name = quote(tool.effective.name)
            message = (
                f"workflow validation failed: invalid workflow definition {name}: "
                f"{reported.message}"
            )
    return P4Result(tuple(everything), reported, message)


def _error(
    tool: LoadedTool,
    rule: str,
    field: str,
    message: str,
    where: SourceLocation,
    step: str | None = None,
    cause: str | None = None,
) -> Diagnostic:
    text = f"validation error for {field}: {message}" + (f": {cause}" if cause else "")
    return Diagnostic(rule, text, where, Severity.ERROR, tool.effective.name or None, step, PHASE)


def _workflow(tool: LoadedTool) -> Iterator[Diagnostic]:
    config = tool.effective
    steps = config.steps
    if len(steps) > MAX_STEPS:
        message = f"too many steps: {len(steps)} (max {MAX_STEPS})"
        yield _error(tool, "P4.S34.tooManySteps", "steps", message, config.where.of("steps"))
    seen: set[str] = set()
    for step in steps:
        if step.id in seen:
            yield _error(
                tool,
                "P4.S34.duplicateStepId",
                "step.id",
                f"duplicate step ID: {step.id}",
                step.where.of("id"),
                step.id,
            )
        seen.add(step.id)
    cycle_root = _first_cycle_root(
        {step.id: step.depends_on for step in steps}, [s.id for s in steps]
    )
    if cycle_root is not None:
        step = next(s for s in steps if s.id == cycle_root)
        yield _error(
            tool,
            "P4.S34.cycle",
            "dependencies",
            f"circular dependency detected involving step {cycle_root}",
            step.where.of("dependsOn"),
            cycle_root,
            "circular dependency detected",
        )
    for step in steps:
        if step.kind is StepKind.FOR_EACH:
            if not step.collection:
                yield _error(
                    tool,
                    "P4.S34.collection",
                    "step.collection",
                    f"collection is required for forEach step {step.id}",
                    step.where.at,
                    step.id,
                )
            elif step.inner_step is None:
                yield _error(
                    tool,
                    "P4.S34.innerStep",
                    "step.innerStep",
                    f"inner step is required for forEach step {step.id}",
                    step.where.at,
                    step.id,
                )
        for dependency in step.depends_on:
            if dependency not in seen:
                yield _error(
                    tool,
                    "P4.S34.dependsOn",
                    "step.depends_on",
                    f"step {step.id} depends on non-existent step {dependency}",
                    step.where.of("dependsOn"),
                    step.id,
                )
                break
    if config.output is not None:
        yield from _output(tool, config.output)


def _first_cycle_root(graph: Mapping[str, Sequence[str]], order: Sequence[str]) -> str | None:
    """The engine's DFS in step order: the root whose search meets a back edge first."""
    visited: set[str] = set()
    for root in order:
        if root in visited:
            continue
        on_path: set[str] = {root}
        visited.add(root)
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, edge = stack.pop()
            targets = graph.get(node, ())
            if edge >= len(targets):
                on_path.discard(node)
                continue
            stack.append((node, edge + 1))
            target = targets[edge]
            if target not in visited:
                visited.add(target)
                on_path.add(target)
                stack.append((target, 0))
            elif target in on_path:
                return root
    return None


def _output(tool: LoadedTool, output: OutputConfig) -> Iterator[Diagnostic]:
    where = output.where
    if not output.properties:
        yield _error(
            tool,
            "P4.S35.noProperties",
            "output.properties",
            "output properties cannot be empty",
            where.of("properties"),
        )
        return
    for name in output.required:
        if name not in output.properties:
            yield _error(
                tool,
                "P4.S35.required",
                "output.required",
                f"required field {quote(name)} does not exist in properties",
                where.of("required"),
            )
            break
    for name, prop in output.properties.items():
        yield from _property(tool, name, prop, 0)


def _property(
    tool: LoadedTool, name: str, prop: OutputProperty, depth: int
) -> Iterator[Diagnostic]:
    """``validateOutputProperty``: its first error, then nested properties when it has none."""
    first = _property_error(tool, name, prop, depth)
    if first is not None:
        yield first
        return
    if prop.type == "object" and not prop.value:
        for child, nested in prop.properties.items():
            yield from _property(tool, f"{name}.{child}", nested, depth + 1)


def _property_error(
    tool: LoadedTool, name: str, prop: OutputProperty, depth: int
) -> Diagnostic | None:
    where, q = prop.where, quote(name)
    if depth > MAX_PROPERTY_DEPTH:
        return _error(
            tool,
            "P4.S35.depth",
            "output.properties",
            f"property {q} exceeds maximum nesting depth {MAX_PROPERTY_DEPTH}",
            where.at,
        )
    if not prop.type:
        return _error(
            tool,
            "P4.S35.type",
            "output.properties.type",
            f"property {q} is missing required field 'type'",
            where.at,
        )
    if prop.type not in OUTPUT_TYPES:
        return _error(
            tool,
            "P4.S35.type",
            "output.properties.type",
            f"property {q} has invalid type {quote(prop.type)} (must be one of: "
            "string, integer, number, boolean, object, array)",
            where.of("type"),
        )
    if not prop.description:
        return _error(
            tool,
            "P4.S35.description",
            "output.properties.description",
            f"property {q} is missing required field 'description'",
            where.of("description"),
        )
    has_value, has_properties = bool(prop.value), bool(prop.properties)
    if has_value and has_properties:
        return _error(
            tool,
            "P4.S35.valueAndProperties",
            "output.properties",
            f"property {q} cannot have both 'value' and 'properties' fields",
            where.at,
        )
    if not has_value and not has_properties:
        return _error(
            tool,
            "P4.S35.valueOrProperties",
            "output.properties",
            f"property {q} must have either 'value' or 'properties' field",
            where.at,
        )
    if prop.type != "object" and not has_value:
        return _error(
            tool,
            "P4.S35.value",
            "output.properties.value",
            f"property {q} with type {quote(prop.type)} must have 'value' field",
            where.at,
        )
    if has_value:
        problem = brace_problem(prop.value)
        if problem is not None:
            return _error(
                tool,
                "P4.S35.template",
                "output.properties.value",
                f"property {q} has invalid template syntax: {problem}",
                where.of("value"),
                None,
                problem,
            )
    if not _empty(prop.default):
        kind = go_type_name(prop.default)
        accepted = _ACCEPTED_DEFAULTS.get(prop.type)
        if accepted is not None and kind not in accepted[0]:
            return _error(
                tool,
                "P4.S35.default",
                "output.properties.default",
                f"property {q} has default value of type {kind}, expected {accepted[1]}",
                where.of("default"),
            )
    return None


def brace_problem(template: str) -> str | None:
    """The engine's ``{{``/``}}`` balance scan of an output ``value`` (not a template parse)."""
    depth = 0
    inside = False
    previous = ""
    for char in template:
        if char == "{" and previous == "{":
            if inside:
                return "nested template delimiters not allowed"
            inside = True
            depth += 1
        elif char == "}" and previous == "}":
            if not inside:
                return "unmatched closing template delimiter"
            inside = False
            depth -= 1
        previous = char
    return "unbalanced template delimiters" if depth != 0 else None


def _empty(value: GoValue) -> bool:
    """``thvjson.Any.IsEmpty``: nil, ``{}`` or ``[]``."""
    return value is None or (isinstance(value, (dict, list)) and not value)


def go_type_name(value: GoValue) -> str:
    """Go's ``%T`` of a YAML-decoded value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "uint64" if value > (1 << 63) - 1 else "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, GoTime):
        return "time.Time"
    if isinstance(value, AnyKeyMap):
        return "map[interface {}]interface {}"
    return "<nil>"
