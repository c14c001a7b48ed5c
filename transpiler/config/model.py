"""Typed, frozen model of vMCP composite tools (``pkg/vmcp/config`` types).

Field names follow the Go structs in snake case; YAML keys are listed in
:data:`YAML_KEYS`. Strings, ints and bools hold Go zero values when a key is
absent (``""``, ``0``, ``False``); pointer-typed blocks (``onError``,
``output``...) are ``None`` when absent or ``null``. Free maps
(``parameters``, ``arguments``, ``schema``, ``defaultResults``) hold Go values
(:mod:`transpiler.golang.values`) or ``None``. Durations are int nanoseconds.

Every object carries a :class:`Where`: the location of the object and of each
key written in the source, so a diagnostic can point at the exact key.

Steps are described once, here: :class:`StepKind` names the step types and
:data:`STEP_KINDS` holds what vMCP makes of each; each key of a step is
declared on :class:`WorkflowStepConfig` with its YAML spelling, its
:class:`FieldType` and the kinds that act on it (:data:`STEP_FIELDS`). The
loader, the admission schema and the advice read these; every layer that does
something per kind keeps a table over all kinds (:func:`exhaustive`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Final, TypeVar

from transpiler.diagnostics import UNKNOWN_LOCATION, SourceLocation
from transpiler.golang.values import GoValue

_T = TypeVar("_T")
_E = TypeVar("_E", bound=Enum)

#: A step's deadline when it sets no ``timeout``: vMCP's default, 5 minutes (S60).
DEFAULT_STEP_TIMEOUT_NS: Final = 5 * 60 * 1_000_000_000
#: vMCP's cap on ``onError.maxRetries`` (``getRetryConfig``).
MAX_RETRIES: Final = 10
#: The backoff's first wait when ``retryDelay`` is unset or not positive.
DEFAULT_RETRY_DELAY_NS: Final = 1_000_000_000
#: vMCP's ``itemVar`` when a forEach names none.
DEFAULT_ITEM_VAR: Final = "item"
#: forEach ``maxIterations``: 0 or less means 100; the run caps it at 1000, the most P2
#: accepts (S17, S130).
DEFAULT_MAX_ITERATIONS: Final = 100
MAX_ITERATIONS: Final = 1000
#: forEach ``maxParallel``: 0 or less means 10 iterations at once; the run caps it at 50, the
#: most P2 accepts (S17, S132). Not the script's ``parallel()`` cap, which is the host's.
DEFAULT_MAX_PARALLEL: Final = 10
MAX_PARALLEL: Final = 50


class StepKind(StrEnum):
    """A step's type: ``type``, or ``tool`` when empty (S2, S16)."""

    TOOL = "tool"
    ELICITATION = "elicitation"
    FOR_EACH = "forEach"


_EVERY_KIND: Final = frozenset(StepKind)
_KINDS_BY_NAME: Final[Mapping[str, StepKind]] = MappingProxyType({k.value: k for k in StepKind})


def exhaustive(keys: type[_E], table: Mapping[_E, _T]) -> Mapping[_E, _T]:
    """``table``, read-only, once it has an entry for every member of ``keys``.

    Each layer keeps what it does per :class:`StepKind` (or per :class:`FieldType`) in such a
    table, so a kind or type added here fails at import until every layer handles it.
    """
    missing = [str(key.value) for key in keys if key not in table]
    if missing:
        raise TypeError(f"no entry for {keys.__name__} {', '.join(missing)}")
    return MappingProxyType(dict(table))


class FieldType(StrEnum):
    """The type of a step key: how the loader decodes it (by its Go type) and what the CRD
    schema checks (:mod:`.build` and :mod:`.admission` each map every member)."""

    STRING = "string"
    #: A string the CRD limits to the :class:`StepKind` names.
    STEP_TYPE = "step type"
    INT = "int"
    DURATION = "duration"
    #: ``map[string]any``; the CRD takes any object.
    MAP = "map"
    #: ``map[string]any``; the CRD takes any value.
    UNTYPED_MAP = "untyped map"
    STRINGS = "strings"
    ON_ERROR = "onError"
    RESPONSE = "response"
    #: The forEach inner step; the CRD takes any object.
    STEP = "step"


@dataclass(frozen=True)
class StepField:
    """One key of a step: its YAML spelling, the model attribute, its type, the kinds that act
    on it (the others ignore it, S2) and whether the CRD requires it."""

    key: str
    type: FieldType
    kinds: frozenset[StepKind]
    required: bool = False
    attribute: str = ""


def _key(
    key: str,
    type_: FieldType,
    kinds: Iterable[StepKind] = _EVERY_KIND,
    *,
    required: bool = False,
) -> Mapping[str, StepField]:
    """The metadata that declares a :class:`WorkflowStepConfig` field as the step key ``key``."""
    return {"step": StepField(key, type_, frozenset(kinds), required)}


_TOOL: Final = (StepKind.TOOL,)
_ELICITATION: Final = (StepKind.ELICITATION,)
_FOR_EACH: Final = (StepKind.FOR_EACH,)


@dataclass(frozen=True)
class Where:
    """Where an object and each of its keys were written."""

    at: SourceLocation = UNKNOWN_LOCATION
    keys: Mapping[str, SourceLocation] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.keys, MappingProxyType):
            object.__setattr__(self, "keys", MappingProxyType(dict(self.keys)))

    def __reduce__(self) -> tuple[type[Where], tuple[SourceLocation, dict[str, SourceLocation]]]:
        """Pickled with its keys as a plain dict (a read-only view does not pickle), so a tool
        holding it reaches the worker processes of ``check --jobs``."""
        return Where, (self.at, dict(self.keys))

    def of(self, key: str) -> SourceLocation:
        """The location of ``key`` (YAML spelling), or of the object when the key is absent."""
        return self.keys.get(key, self.at)


NOWHERE: Final = Where()


@dataclass(frozen=True)
class ToolAnnotations:
    """``annotations``: MCP tool hints (advertising only, never execution)."""

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None
    where: Where = NOWHERE


@dataclass(frozen=True)
class StepErrorHandling:
    """``onError``: ``action`` is ``""`` (abort), ``abort``, ``continue`` or ``retry``."""

    action: str = ""
    retry_count: int = 0
    retry_delay: int = 0
    where: Where = NOWHERE

    @property
    def retries(self) -> int:
        """How many times vMCP retries a failed call (``getRetryConfig``: capped at
        :data:`MAX_RETRIES`); 0 unless the action is ``retry``."""
        return min(self.retry_count, MAX_RETRIES) if self.action == "retry" else 0

    @property
    def first_delay_ns(self) -> int:
        """The first backoff wait: ``retryDelay``, or :data:`DEFAULT_RETRY_DELAY_NS` when it is
        unset or not positive."""
        return self.retry_delay if self.retry_delay > 0 else DEFAULT_RETRY_DELAY_NS


@dataclass(frozen=True)
class ElicitationResponseConfig:
    """``onDecline`` / ``onCancel``: ``abort``, ``continue`` or ``skip_remaining``."""

    action: str = ""
    where: Where = NOWHERE


@dataclass(frozen=True)
class OutputProperty:
    """One ``output.properties`` entry; ``properties`` nests, in source order."""

    type: str = ""
    description: str = ""
    value: str = ""
    properties: Mapping[str, OutputProperty] = field(default_factory=dict)
    default: GoValue = None
    where: Where = NOWHERE


@dataclass(frozen=True)
class OutputConfig:
    """``output``: the workflow's structured result."""

    properties: Mapping[str, OutputProperty] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    where: Where = NOWHERE


@dataclass(frozen=True)
class WorkflowStepConfig:
    """A step, and also the forEach inner ``step`` (the same Go type).

    Each field is declared as a step key (:func:`_key`): its YAML spelling, its type, the
    kinds that act on it. Nothing else lists the keys: the loader, the admission schema and
    the advice read these declarations (:data:`STEP_FIELDS`).
    """

    id: str = field(default="", metadata=_key("id", FieldType.STRING, required=True))
    type: str = field(default="", metadata=_key("type", FieldType.STEP_TYPE))
    tool: str = field(default="", metadata=_key("tool", FieldType.STRING, _TOOL))
    arguments: dict[str, GoValue] | None = field(
        default=None, metadata=_key("arguments", FieldType.MAP, _TOOL)
    )
    condition: str = field(default="", metadata=_key("condition", FieldType.STRING))
    depends_on: tuple[str, ...] = field(default=(), metadata=_key("dependsOn", FieldType.STRINGS))
    on_error: StepErrorHandling | None = field(
        default=None, metadata=_key("onError", FieldType.ON_ERROR)
    )
    message: str = field(default="", metadata=_key("message", FieldType.STRING, _ELICITATION))
    schema: dict[str, GoValue] | None = field(
        default=None, metadata=_key("schema", FieldType.MAP, _ELICITATION)
    )
    timeout: int = field(default=0, metadata=_key("timeout", FieldType.DURATION))
    on_decline: ElicitationResponseConfig | None = field(
        default=None, metadata=_key("onDecline", FieldType.RESPONSE, _ELICITATION)
    )
    on_cancel: ElicitationResponseConfig | None = field(
        default=None, metadata=_key("onCancel", FieldType.RESPONSE, _ELICITATION)
    )
    default_results: dict[str, GoValue] | None = field(
        default=None, metadata=_key("defaultResults", FieldType.UNTYPED_MAP)
    )
    collection: str = field(default="", metadata=_key("collection", FieldType.STRING, _FOR_EACH))
    item_var: str = field(default="", metadata=_key("itemVar", FieldType.STRING, _FOR_EACH))
    max_parallel: int = field(default=0, metadata=_key("maxParallel", FieldType.INT, _FOR_EACH))
    max_iterations: int = field(default=0, metadata=_key("maxIterations", FieldType.INT, _FOR_EACH))
    inner_step: WorkflowStepConfig | None = field(
        default=None, metadata=_key("step", FieldType.STEP, _FOR_EACH)
    )
    where: Where = NOWHERE

    @property
    def effective_type(self) -> str:
        """``type``, or ``tool`` when empty (how every vMCP check reads it)."""
        return self.type or StepKind.TOOL.value

    @property
    def kind(self) -> StepKind | None:
        """The effective type as a :class:`StepKind`; None for a type vMCP does not know
        (validation rejects it)."""
        return _KINDS_BY_NAME.get(self.effective_type)

    @property
    def kind_row(self) -> StepKindRow | None:
        """What vMCP makes of this step's kind (:data:`STEP_KINDS`); None for an unknown type."""
        kind = self.kind
        return None if kind is None else STEP_KINDS[kind]

    @property
    def continues_on_error(self) -> bool:
        """``ContinueOnError``: ``onError.action`` is ``continue`` (failures are recorded and
        the run goes on)."""
        return self.on_error is not None and self.on_error.action == "continue"

    @property
    def item_name(self) -> str:
        """The name a forEach's item has under ``.forEach``: ``itemVar``, else
        :data:`DEFAULT_ITEM_VAR`."""
        return self.item_var or DEFAULT_ITEM_VAR

    @property
    def iteration_limit(self) -> int:
        """The most items a forEach's collection may hold: ``maxIterations``, else
        :data:`DEFAULT_MAX_ITERATIONS`, at most :data:`MAX_ITERATIONS`."""
        limit = self.max_iterations if self.max_iterations > 0 else DEFAULT_MAX_ITERATIONS
        return min(limit, MAX_ITERATIONS)

    @property
    def parallel_limit(self) -> int:
        """How many iterations of a forEach vMCP runs at once: ``maxParallel``, else
        :data:`DEFAULT_MAX_PARALLEL`, at most :data:`MAX_PARALLEL`."""
        parallel = self.max_parallel if self.max_parallel > 0 else DEFAULT_MAX_PARALLEL
        return min(parallel, MAX_PARALLEL)


#: Every step key, by YAML spelling, in declaration order.
STEP_FIELDS: Final[Mapping[str, StepField]] = MappingProxyType(
    {
        declared.key: replace(declared, attribute=item.name)
        for item in fields(WorkflowStepConfig)
        if isinstance(declared := item.metadata.get("step"), StepField)
    }
)


@dataclass(frozen=True)
class StepKindRow:
    """What vMCP makes of one kind of step.

    ``rejects``: keys P2 refuses on this kind instead of ignoring them (S17);
    ``calls_tools``: it calls backends within the step's deadline (S110);
    ``loops``: its calls share that deadline however many there are (S110, S130);
    ``retries``: ``onError: retry`` acts on it (S105).
    """

    kind: StepKind
    rejects: frozenset[str] = frozenset()
    calls_tools: bool = False
    loops: bool = False
    retries: bool = False

    def uses(self, key: str) -> bool:
        """Whether this kind acts on the step key ``key``."""
        return self.kind in STEP_FIELDS[key].kinds

    @property
    def ignores(self) -> tuple[str, ...]:
        """The keys this kind neither acts on nor rejects, in declaration order (S2)."""
        return tuple(key for key in STEP_FIELDS if not self.uses(key) and key not in self.rejects)


#: Each kind of step (S2, S16, S17, S105, S110).
STEP_KINDS: Final = exhaustive(
    StepKind,
    {
        StepKind.TOOL: StepKindRow(StepKind.TOOL, calls_tools=True, retries=True),
        StepKind.ELICITATION: StepKindRow(StepKind.ELICITATION),
        StepKind.FOR_EACH: StepKindRow(
            StepKind.FOR_EACH, frozenset({"tool", "message"}), calls_tools=True, loops=True
        ),
    },
)


@dataclass(frozen=True)
class CompositeToolConfig:
    """One composite tool (``compositeTools[]`` entry or a definition's ``spec``)."""

    name: str = ""
    description: str = ""
    parameters: dict[str, GoValue] | None = None
    timeout: int = 0
    steps: tuple[WorkflowStepConfig, ...] = ()
    output: OutputConfig | None = None
    annotations: ToolAnnotations | None = None
    where: Where = NOWHERE


class DocumentKind(StrEnum):
    """What kind of document a tool came from."""

    VMCP_CONFIG = "vmcp-config"
    VIRTUAL_MCP_SERVER = "VirtualMCPServer"
    COMPOSITE_TOOL_DEFINITION = "VirtualMCPCompositeToolDefinition"
    SCRIPTED_TOOL_DEFINITION = "VirtualMCPScriptedToolDefinition"


@dataclass(frozen=True)
class ToolOrigin:
    """Where a tool was found: file, document, document kind and path inside the document.

    ``path`` is how vMCP names the tool in messages (``compositeTools[0]``,
    ``spec``, ``spec.config.compositeTools[1]``). ``referenced_by`` names the
    ``VirtualMCPServer`` that pulls a definition in through ``compositeToolRefs``.
    """

    file: str
    document: int
    kind: DocumentKind
    path: str
    resource: str | None = None
    referenced_by: str | None = None

    @property
    def kubernetes(self) -> bool:
        """Whether the tool reaches vMCP through the operator (CRD admission applies)."""
        return self.kind is not DocumentKind.VMCP_CONFIG


#: YAML spelling of each model field, per model class.
YAML_KEYS: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "CompositeToolConfig": MappingProxyType(
            {
                "name": "name",
                "description": "description",
                "parameters": "parameters",
                "timeout": "timeout",
                "steps": "steps",
                "output": "output",
                "annotations": "annotations",
            }
        ),
        "WorkflowStepConfig": MappingProxyType(
            {declared.key: declared.attribute for declared in STEP_FIELDS.values()}
        ),
        "StepErrorHandling": MappingProxyType(
            {"action": "action", "retryCount": "retry_count", "retryDelay": "retry_delay"}
        ),
        "ElicitationResponseConfig": MappingProxyType({"action": "action"}),
        "OutputConfig": MappingProxyType({"properties": "properties", "required": "required"}),
        "OutputProperty": MappingProxyType(
            {
                "type": "type",
                "description": "description",
                "value": "value",
                "properties": "properties",
                "default": "default",
            }
        ),
        "ToolAnnotationsOverride": MappingProxyType(
            {
                "title": "title",
                "readOnlyHint": "read_only_hint",
                "destructiveHint": "destructive_hint",
                "idempotentHint": "idempotent_hint",
                "openWorldHint": "open_world_hint",
            }
        ),
    }
)
