"""Build the model from yaml.v3 nodes the way vMCP's strict decoder fills its structs.

Unknown keys of struct-typed objects are yaml.v3 type errors in a vMCP config
file (``field X not found in type config.T``, S7); in Kubernetes manifests the
admission check judges them instead, so they are skipped here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeVar

from transpiler.config.godecode import GoDecoder
from transpiler.config.model import (
    STEP_FIELDS,
    YAML_KEYS,
    CompositeToolConfig,
    ElicitationResponseConfig,
    FieldType,
    OutputConfig,
    OutputProperty,
    StepErrorHandling,
    ToolAnnotations,
    Where,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.config.scripted import (
    GO_TYPE,
    STARLARK_CONFIG_FIELDS,
    ScriptedField,
    ScriptedToolConfig,
    ValueKind,
)
from transpiler.config.yamlv3 import Kind, Node
from transpiler.diagnostics import SourceLocation
from transpiler.golang.duration import DurationError, parse_duration
from transpiler.golang.values import GoValue

_T = TypeVar("_T")
_Decode = Callable[[Node, str], object]


class ModelBuilder:
    """Decodes composite-tool nodes into :mod:`transpiler.config.model` objects."""

    def __init__(self, decoder: GoDecoder, file: str, *, strict_yaml: bool) -> None:
        self.decoder = decoder
        self.file = file
        self.strict_yaml = strict_yaml
        by_type = exhaustive(
            FieldType,
            {
                FieldType.STRING: self._string,
                FieldType.STEP_TYPE: self._string,
                FieldType.INT: self._int,
                FieldType.DURATION: self._duration,
                FieldType.MAP: self._map,
                FieldType.UNTYPED_MAP: self._map,
                FieldType.STRINGS: self._strings,
                FieldType.ON_ERROR: self.on_error,
                FieldType.RESPONSE: self.response,
                FieldType.STEP: self.step,
            },
        )
        #: Each step key's decoder (:data:`~transpiler.config.model.STEP_FIELDS`).
        self.step_decoders: Mapping[str, _Decode] = MappingProxyType(
            {key: by_type[declared.type] for key, declared in STEP_FIELDS.items()}
        )
        #: How each kind of scripted-tool value is decoded (:mod:`transpiler.config.scripted`).
        self.scripted_decoders: Mapping[ValueKind, _Decode] = exhaustive(
            ValueKind,
            {
                ValueKind.TEXT: self._string,
                ValueKind.DURATION: self._string,
                ValueKind.SCHEMA: self._map,
                ValueKind.ANNOTATIONS: self.annotations,
            },
        )

    def location(self, node: Node) -> SourceLocation:
        """File position of a node."""
        return SourceLocation(self.file, node.line, node.column)

    def decode_struct(
        self, node: Node, go_type: str, path: str, decoders: Mapping[str, _Decode]
    ) -> tuple[dict[str, object], Where] | None:
        """Decode a struct-typed mapping key by key, in source order, as yaml.v3 does.

        Returns the decoded values by YAML key and the object's :class:`Where`;
        ``None`` when the node is null or not a mapping (a type error then).
        """
        pairs = self.decoder.mapping(node, go_type)
        if pairs is None:
            return None
        values: dict[str, object] = {}
        keys: dict[str, SourceLocation] = {}
        for key_node, value_node in pairs:
            target = key_node.resolved()
            key = self.decoder.string(key_node)
            if target.kind is not Kind.SCALAR or target.short_tag() == "!!null" or key in values:
                continue
            decode = decoders.get(key)
            if decode is None:
                if self.strict_yaml:
                    self.decoder.type_error(key_node, f"field {key} not found in type {go_type}")
                continue
            keys[key] = self.location(key_node)
            values[key] = decode(value_node, _join(path, key))
        return values, Where(self.location(node.resolved()), MappingProxyType(keys))

    def _string(self, node: Node, _path: str) -> str:
        return self.decoder.string(node)

    def _optional_string(self, node: Node, _path: str) -> str | None:
        value = self.decoder.string(node)
        return None if node.resolved().short_tag() == "!!null" else value

    def _int(self, node: Node, _path: str) -> int:
        return self.decoder.integer(node)

    def _bool(self, node: Node, _path: str) -> bool | None:
        return self.decoder.boolean(node)

    def _map(self, node: Node, _path: str) -> dict[str, GoValue] | None:
        return self.decoder.string_map(node)

    def _any(self, node: Node, _path: str) -> GoValue:
        return self.decoder.any_value(node)

    def _duration(self, node: Node, _path: str) -> int:
        text = self.decoder.string(node)
        target = node.resolved()
        if target.kind is not Kind.SCALAR or target.short_tag() == "!!null":
            return 0
        try:
            return parse_duration(text)
        except DurationError as error:
            self.decoder.fatal(target, f"invalid duration: {error}")
            return 0

    def _strings(self, node: Node, _path: str) -> tuple[str, ...]:
        items = self.decoder.sequence(node, "[]string")
        return tuple(
            self.decoder.string(item)
            for item in items or ()
            if not (item.resolved().kind is Kind.SCALAR and item.resolved().short_tag() == "!!null")
        )

    def _steps(self, node: Node, path: str) -> tuple[WorkflowStepConfig, ...]:
        items = self.decoder.sequence(node, "[]config.WorkflowStepConfig")
        built = (self.step(item, f"{path}[{index}]") for index, item in enumerate(items or ()))
        return tuple(step for step in built if step is not None)

    def _build(
        self,
        cls: Callable[..., _T],
        go_type: str,
        node: Node,
        path: str,
        decoders: Mapping[str, _Decode],
    ) -> _T | None:
        found = self.decode_struct(node, go_type, path, decoders)
        if found is None:
            return None
        values, where = found
        names = YAML_KEYS[go_type.removeprefix("config.")]
        return cls(**{names[key]: value for key, value in values.items()}, where=where)

    def composite_tool(self, node: Node, path: str) -> CompositeToolConfig | None:
        """A ``CompositeToolConfig``."""
        decoders: dict[str, _Decode] = {
            "name": self._string,
            "description": self._string,
            "parameters": self._map,
            "timeout": self._duration,
            "steps": self._steps,
            "output": self.output,
            "annotations": self.annotations,
        }
        return self._build(CompositeToolConfig, "config.CompositeToolConfig", node, path, decoders)

    def scripted_tool(
        self, node: Node, path: str, fields: tuple[ScriptedField, ...]
    ) -> ScriptedToolConfig | None:
        """A ``ScriptedToolConfig`` with the keys ``fields`` (the target's); any other key is
        an unknown field (a type error in a config file; the admission schema's in a manifest)."""
        decoders = {f.key: self.scripted_decoders[f.kind] for f in fields}
        found = self.decode_struct(node, GO_TYPE, path, decoders)
        if found is None:
            return None
        values, where = found
        names = {f.key: f.attribute for f in fields}
        build: Callable[..., ScriptedToolConfig] = ScriptedToolConfig
        return build(**{names[key]: value for key, value in values.items()}, where=where)

    def starlark_config(self, node: Node, path: str) -> None:
        """``starlarkConfig``, decoded strictly for its keys and their types (nothing of it is
        modelled: the engine's options change no composite tool and no script)."""
        by_type: dict[str, _Decode] = {
            "int": self._int,
            "bool": self._bool,
            "[]string": self._strings,
        }
        decoders = {key: by_type[go_type] for key, go_type in STARLARK_CONFIG_FIELDS.items()}
        self.decode_struct(node, "config.StarlarkConfig", path, decoders)

    def step(self, node: Node, path: str) -> WorkflowStepConfig | None:
        """A ``WorkflowStepConfig`` (also the forEach inner ``step``)."""
        return self._build(
            WorkflowStepConfig, "config.WorkflowStepConfig", node, path, self.step_decoders
        )

    def on_error(self, node: Node, path: str) -> StepErrorHandling | None:
        """A ``StepErrorHandling``."""
        decoders: dict[str, _Decode] = {
            "action": self._string,
            "retryCount": self._int,
            "retryDelay": self._duration,
        }
        return self._build(StepErrorHandling, "config.StepErrorHandling", node, path, decoders)

    def response(self, node: Node, path: str) -> ElicitationResponseConfig | None:
        """An ``ElicitationResponseConfig``."""
        decoders: dict[str, _Decode] = {"action": self._string}
        return self._build(
            ElicitationResponseConfig, "config.ElicitationResponseConfig", node, path, decoders
        )

    def output(self, node: Node, path: str) -> OutputConfig | None:
        """An ``OutputConfig``."""
        decoders: dict[str, _Decode] = {"properties": self.properties, "required": self._strings}
        return self._build(OutputConfig, "config.OutputConfig", node, path, decoders)

    def properties(self, node: Node, path: str) -> dict[str, OutputProperty]:
        """A ``map[string]OutputProperty`` in source order."""
        pairs = self.decoder.mapping(node, "map[string]config.OutputProperty")
        result: dict[str, OutputProperty] = {}
        for key_node, value_node in pairs or ():
            target = key_node.resolved()
            name = self.decoder.string(key_node)
            if target.kind is not Kind.SCALAR or target.short_tag() == "!!null":
                continue
            prop = self.output_property(value_node, _join(path, name))
            if prop is not None:
                result[name] = prop
        return result

    def output_property(self, node: Node, path: str) -> OutputProperty | None:
        """An ``OutputProperty``."""
        decoders: dict[str, _Decode] = {
            "type": self._string,
            "description": self._string,
            "value": self._string,
            "properties": self.properties,
            "default": self._any,
        }
        return self._build(OutputProperty, "config.OutputProperty", node, path, decoders)

    def annotations(self, node: Node, path: str) -> ToolAnnotations | None:
        """A ``ToolAnnotationsOverride``."""
        decoders: dict[str, _Decode] = {
            "title": self._optional_string,
            **dict.fromkeys(
                ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"), self._bool
            ),
        }
        return self._build(ToolAnnotations, "config.ToolAnnotationsOverride", node, path, decoders)


def _join(path: str, key: str) -> str:
    """``spec`` + ``steps`` -> ``spec.steps``; an empty path gives the key alone."""
    return f"{path}.{key}" if path else key
