"""Kubernetes admission of composite tools: the CRD's structural schema (S0).

The API server checks types, enums, duration patterns and required fields,
rejects unknown fields under kubectl's default strict field validation
(``--validate=false`` prunes them instead) and fills defaults: a top-level
step's ``type`` becomes ``tool`` and an ``onError``/``onDecline``/``onCancel``
block without ``action`` gets ``abort``. The forEach inner ``step``,
``parameters``, ``arguments``, ``schema``, ``defaultResults`` and nested output
``properties`` are schemaless there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from transpiler.config.godecode import GoDecoder
from transpiler.config.model import (
    STEP_FIELDS,
    CompositeToolConfig,
    ElicitationResponseConfig,
    FieldType,
    StepKind,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.config.scripted import ValueKind, scripted_fields
from transpiler.config.target import Target
from transpiler.config.yamlv3 import Kind, Node
from transpiler.golang.duration import matches_crd_pattern

DURATION_PATTERN: Final = r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"


@dataclass(frozen=True)
class Field:
    """One node of the CRD's structural schema (only what admission checks here)."""

    type: str | None = None
    properties: Mapping[str, Field] = field(default_factory=dict)
    additional: Field | None = None
    items: Field | None = None
    required: tuple[str, ...] = ()
    enum: tuple[str, ...] = ()
    duration: bool = False
    schemaless: bool = False


_STRING: Final = Field("string")
_INTEGER: Final = Field("integer")
_BOOLEAN: Final = Field("boolean")
_DURATION: Final = Field("string", duration=True)
_FREE_OBJECT: Final = Field("object", schemaless=True)
_FREE: Final = Field(schemaless=True)
_ACTION: Final = Field("string", enum=("skip_remaining", "abort", "continue"))
_RESPONSE: Final = Field("object", {"action": _ACTION})
_ON_ERROR: Final = Field(
    "object",
    {
        "action": Field("string", enum=("abort", "continue", "retry")),
        "retryCount": _INTEGER,
        "retryDelay": _DURATION,
    },
)
#: The schema of each type of step key.
_STEP_FIELD_SCHEMAS: Final = exhaustive(
    FieldType,
    {
        FieldType.STRING: _STRING,
        FieldType.STEP_TYPE: Field("string", enum=tuple(kind.value for kind in StepKind)),
        FieldType.INT: _INTEGER,
        FieldType.DURATION: _DURATION,
        FieldType.MAP: _FREE_OBJECT,
        FieldType.UNTYPED_MAP: _FREE,
        FieldType.STRINGS: Field("array", items=_STRING),
        FieldType.ON_ERROR: _ON_ERROR,
        FieldType.RESPONSE: _RESPONSE,
        FieldType.STEP: _FREE_OBJECT,
    },
)
_STEP: Final = Field(
    "object",
    {key: _STEP_FIELD_SCHEMAS[declared.type] for key, declared in STEP_FIELDS.items()},
    required=tuple(key for key, declared in STEP_FIELDS.items() if declared.required),
)
_OUTPUT_PROPERTY: Final = Field(
    "object",
    {
        "type": Field("string", enum=("string", "integer", "number", "boolean", "object", "array")),
        "description": _STRING,
        "value": _STRING,
        "properties": _FREE_OBJECT,
        "default": _FREE,
    },
    required=("type",),
)
_ANNOTATIONS: Final = Field(
    "object",
    {
        "title": _STRING,
        **dict.fromkeys(
            ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"), _BOOLEAN
        ),
    },
)
#: A composite tool: a definition's ``spec`` or a ``spec.config.compositeTools`` item.
COMPOSITE_TOOL: Final = Field(
    "object",
    {
        "name": _STRING,
        "description": _STRING,
        "parameters": _FREE_OBJECT,
        "timeout": _DURATION,
        "steps": Field("array", items=_STEP),
        "output": Field(
            "object",
            {
                "properties": Field("object", additional=_OUTPUT_PROPERTY),
                "required": Field("array", items=_STRING),
            },
            required=("properties",),
        ),
        "annotations": _ANNOTATIONS,
    },
    required=("name", "steps"),
)
#: A ``spec.config.compositeToolRefs`` (or ``scriptedToolRefs``) item.
COMPOSITE_TOOL_REF: Final = Field("object", {"name": _STRING}, required=("name",))
#: The schema of each kind of scripted-tool value.
_SCRIPTED_VALUE_SCHEMAS: Final = exhaustive(
    ValueKind,
    {
        ValueKind.TEXT: _STRING,
        ValueKind.DURATION: _DURATION,
        ValueKind.SCHEMA: _FREE_OBJECT,
        ValueKind.ANNOTATIONS: _ANNOTATIONS,
    },
)


def scripted_tool_schema(target: Target) -> Field:
    """A scripted tool under ``target``: a ``VirtualMCPScriptedToolDefinition``'s ``spec`` or a
    ``spec.config.scriptedTools`` item (the CRD generated from ``ScriptedToolConfig``, its
    ``name`` required as a composite tool's is; one of ``script`` and ``scriptFile`` is the
    validator's rule)."""
    fields = scripted_fields(target)
    return Field(
        "object",
        {f.key: _SCRIPTED_VALUE_SCHEMAS[f.kind] for f in fields},
        required=("name",),
    )


@dataclass(frozen=True)
class AdmissionIssue:
    """One admission rejection, worded as the API server words it."""

    rule: str
    message: str
    line: int
    column: int


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "object" if isinstance(value, dict) else "array"


class Admission:
    """Checks nodes against a :class:`Field` schema; issues accumulate in order."""

    def __init__(self) -> None:
        self.issues: list[AdmissionIssue] = []
        self._decoder = GoDecoder(kubernetes=True)

    def check(self, node: Node, schema: Field, path: str) -> None:
        """Check ``node`` (at ``path``, e.g. ``spec.steps[0]``) against ``schema``.

        Every node visited counts against the decoder's alias budget, so an
        alias bomb raises :class:`~transpiler.config.godecode.DecodeAborted`.
        """
        self._decoder.visit(node, lambda target: self._check(target, schema, path))

    def _check(self, target: Node, schema: Field, path: str) -> None:
        if schema.schemaless and schema.type is None:
            return
        kind = self._kind(target)
        if kind == "null":
            return
        if (
            schema.type is not None
            and kind != schema.type
            and not (schema.type == "number" and kind == "integer")
        ):
            self._issue(
                "K8S.admission.type",
                target,
                f'{path}: Invalid value: "{kind}": '
                f'{path} in body must be of type {schema.type}: "{kind}"',
            )
            return
        if schema.schemaless:
            return
        if target.kind is Kind.MAPPING:
            self._mapping(target, schema, path)
        elif target.kind is Kind.SEQUENCE and schema.items is not None:
            for index, item in enumerate(target.content):
                self.check(item, schema.items, f"{path}[{index}]")
        elif target.kind is Kind.SCALAR:
            self._scalar(target, schema, path)

    def _kind(self, node: Node) -> str:
        if node.kind is Kind.MAPPING:
            return "object"
        if node.kind is Kind.SEQUENCE:
            return "array"
        return _json_type(self._decoder.scalar_value(node))

    def _mapping(self, node: Node, schema: Field, path: str) -> None:
        present: set[str] = set()
        for key_node, value_node in self._decoder.pairs(node):
            key = key_node.resolved().value
            child = f"{path}.{key}"
            value_kind = self._kind(value_node.resolved())
            if value_kind != "null":
                present.add(key)
            if key in schema.properties:
                self.check(value_node, schema.properties[key], child)
            elif schema.additional is not None:
                self.check(value_node, schema.additional, child)
            else:
                self.issues.append(
                    AdmissionIssue(
                        "K8S.admission.unknownField",
                        f'unknown field "{child}"',
                        key_node.line,
                        key_node.column,
                    )
                )
        for key in schema.required:
            if key not in present:
                self._issue("K8S.admission.required", node, f"{path}.{key}: Required value")

    def _scalar(self, node: Node, schema: Field, path: str) -> None:
        value = self._decoder.scalar_value(node)
        if not isinstance(value, str):
            return
        if schema.enum and value not in schema.enum:
            allowed = ", ".join(f'"{item}"' for item in schema.enum)
            message = f'{path}: Unsupported value: "{value}": supported values: {allowed}'
            self._issue("K8S.admission.enum", node, message)
        if schema.duration and not matches_crd_pattern(value):
            self._issue(
                "K8S.admission.pattern",
                node,
                f'{path}: Invalid value: "{value}": '
                f"{path} in body should match '{DURATION_PATTERN}'",
            )

    def _issue(self, rule: str, node: Node, message: str) -> None:
        self.issues.append(AdmissionIssue(rule, message, node.line, node.column))


def apply_crd_defaults(tool: CompositeToolConfig) -> CompositeToolConfig:
    """The API server's defaults: step ``type: tool``, handler ``action: abort``."""
    return replace(tool, steps=tuple(_default_step(step) for step in tool.steps))


def _default_step(step: WorkflowStepConfig) -> WorkflowStepConfig:
    on_error = step.on_error
    if on_error is not None and not on_error.action:
        on_error = replace(on_error, action="abort")
    return replace(
        step,
        type=step.type or StepKind.TOOL.value,
        on_error=on_error,
        on_decline=_default_response(step.on_decline),
        on_cancel=_default_response(step.on_cancel),
    )


def _default_response(
    handler: ElicitationResponseConfig | None,
) -> ElicitationResponseConfig | None:
    if handler is None or handler.action:
        return handler
    return replace(handler, action="abort")
