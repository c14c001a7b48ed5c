"""What a readable script knows at each point: parameters, steps that have run, names.

The state answers the template compiler's questions (:class:`Env`): what
``.params.x`` is (a local read once, or ``params["x"]``), what a step's
``.output``/``.status`` is at this point of the script (a variable, or a
constant when vMCP's answer is fixed), and records the deviation classes
the script declares and the notes its header carries.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import RUN_ID_PLACEHOLDER, START_TIME_PLACEHOLDER, Deviation
from transpiler.emit.ir import Expr, Index, Name, Statement, Str, assign, call, flat, json_literal
from transpiler.emit.naming import Namer
from transpiler.emit.readable.helpers import helpers
from transpiler.emit.readable.templates import NotReadable, TemplateCompiler
from transpiler.emit.readable.values import MISSING, Kind, Val, constant, plain, runtime
from transpiler.emit.report import Note
from transpiler.gotemplate import TemplateSyntaxError, parse, reads
from transpiler.plan.dataflow import template_sites

STEP_PARTS = ("status", "output", "content", "error")
_KINDS = {
    "string": Kind.STR,
    "integer": Kind.NUM,
    "number": Kind.NUM,
    "boolean": Kind.BOOL,
    "array": Kind.LIST,
    "object": Kind.MAP,
}


@dataclass
class StepView:
    """A step as later templates see it: its output and status, and what its parts hold.

    ``fields``: constant or computed values of named output fields (an
    elicitation's ``action``, a forEach step's ``count``); other output
    fields are read from ``output`` at run time.
    """

    kind: str
    output: Val
    status: Val = field(default_factory=lambda: constant("completed"))
    fields: dict[str, Val] = field(default_factory=dict)
    known_fields: frozenset[str] | None = None


@dataclass
class Param:
    """A parameter as the script reads it: ``read`` inline, or a ``local`` bound to it.

    ``may_be_missing``: the read may stand for a missing parameter (vMCP's
    ``<no value>``): optional, without a default the workflow gives.
    """

    read: Expr
    kind: Kind
    local: str | None = None
    item_kind: Kind = Kind.ANY
    may_be_missing: bool = False

    @property
    def expr(self) -> Expr:
        """What a template's read of the parameter becomes."""
        return self.read if self.local is None else Name(self.local)


class State:
    """The growing state while one tool's readable script is written."""

    def __init__(
        self,
        tool: CompositeToolConfig,
        tool_schemas: Mapping[str, Any] | None,
        decode_once: frozenset[str] = frozenset(),
    ) -> None:
        self.tool = tool
        self.tool_schemas = tool_schemas
        self.namer = Namer(frozenset(helpers()))
        self.declared: set[Deviation] = set()
        self.notes: list[Note] = []
        self.helpers: set[str] = set()
        self.visible: dict[str, StepView] = {}
        self.for_each: tuple[str, Val, Val] | None = None
        self.in_output = False
        self._loops = 0
        self.params = self._params()
        self.shared = _shared_templates(tool)
        self.named: dict[str, Expr] = {}
        self.decode_once = decode_once
        self.decodes: Counter[str] = Counter()
        self.binding: list[Statement] | None = None

    # --- the template compiler's environment ---------------------------------

    def resolve(self, path: Sequence[str]) -> tuple[Val, int]:
        """The value at the start of a context path and how many names it used."""
        head = path[0]
        if head == "params":
            return (self._param(path[1]) if len(path) > 1 else _whole("params")), 2
        if head == "steps":
            return self._step(path)
        if head == "forEach":
            return self._for_each(path)
        if head == "workflow":
            return self._workflow(path[1] if len(path) > 1 else ""), 2
        if head == "vars":
            return constant({}), 1
        return constant(MISSING), 1

    def decoded(self, text: Expr) -> Expr | None:
        """The variable holding ``json.decode(text)`` when the script decodes that text once and
        reuses it, else None (decode it in place).

        A text decoded at several sites (``decode_once``, counted by a first writing) is
        decoded into a variable at its first site that is a statement of ``run`` itself
        (``binding``, at the top level of a single step or of the result, and not inside
        one of its :meth:`nested` bodies): nothing runs between that statement and the
        site, so it fails where the site would, and every later site sees the variable.
        """
        code = flat(text)
        self.decodes[code] += 1
        key = f"\x00decoded:{code}"
        if key in self.named:
            return self.named[key]
        body = self.binding
        if code not in self.decode_once or body is None:
            return None
        base = _LEADING_NAME.match(code)
        local = self.variable(key, f"{base.group() if base else 'text'}_data")
        body.append(assign(local, call("json.decode", text)))
        self.named[key] = Name(local)
        return self.named[key]

    @contextmanager
    def nested(self) -> Iterator[list[Statement]]:
        """The statements of a body inside the current one (an ``if``'s, a loop's), which
        decode in place: a variable bound there would not be seen after it."""
        saved, self.binding = self.binding, None
        try:
            yield []
        finally:
            self.binding = saved

    def use_helper(self, name: str) -> None:
        """The script calls this helper (its ``def`` follows ``run``)."""
        self.helpers.add(name)

    def declare(self, *classes: Deviation) -> None:
        """Deviation classes the script may show."""
        self.declared.update(classes)

    def loop_name(self, hint: str) -> str:
        """A fresh comprehension variable."""
        self._loops += 1
        return self.namer.name(f"\x00loop{self._loops}", hint)

    # --- notes ---------------------------------------------------------------

    def note(self, kind: str, note_name: str, text: str, step: str | None = None) -> None:
        """A header note (domain, kept behaviour, warning), once."""
        entry = Note(kind, note_name, text, step)
        if entry not in self.notes:
            self.notes.append(entry)

    def compiler(self) -> TemplateCompiler:
        """A template compiler over this state."""
        return TemplateCompiler(self)

    def variable(self, key: str, hint: str | None = None) -> str:
        """The script variable for a step id (or a derived name)."""
        return self.namer.name(key, hint)

    # --- parameters ----------------------------------------------------------

    def _params(self) -> dict[str, Param]:
        schema = self.tool.parameters if isinstance(self.tool.parameters, dict) else {}
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        required_names = set(required) if isinstance(required, list) else set()
        counts = _param_reads(self.tool)
        params: dict[str, Param] = {}
        for param_name in sorted(
            counts,
            key=lambda n: (list(properties).index(n) if n in properties else len(properties), n),
        ):
            spec = properties.get(param_name)
            spec = spec if isinstance(spec, dict) else {}
            kind = _KINDS.get(str(spec.get("type")), Kind.ANY)
            items = spec.get("items") if kind is Kind.LIST else None
            item_kind = (
                _KINDS.get(str(items.get("type")), Kind.ANY)
                if isinstance(items, dict)
                else Kind.ANY
            )
            key = Str(param_name)
            may_be_missing = False
            if param_name in required_names:
                read: Expr = Index(Name("params"), key)
            elif "default" in spec:
                read = call("params.get", key, json_literal(plain(spec["default"])))
            elif kind is Kind.STR:
                read = call("params.get", key, Str(""))
                may_be_missing = True
            else:
                read = call("params.get", key)
                kind = Kind.ANY
                may_be_missing = True
            local = None
            if counts[param_name] > 1:
                local = self.namer.name(f"\x00param:{param_name}", param_name)
            params[param_name] = Param(read, kind, local, item_kind, may_be_missing)
        return params

    def _param(self, param_name: str) -> Val:
        param = self.params.get(param_name)
        if param is None:
            self.declare(Deviation.MISSING_VALUE)
            return runtime(call("params.get", Str(param_name)))
        if param.may_be_missing:
            self.declare(Deviation.MISSING_VALUE)
        # an optional string parameter reads as "" (printed, vMCP's `<no value>` becomes empty
        # text); a function is given the parameter as the script has it, None when missing
        read_as_empty = param.may_be_missing and param.kind is Kind.STR
        unset = call("params.get", Str(param_name)) if read_as_empty else None
        return runtime(param.expr, param.kind, item_kind=param.item_kind, unset=unset)

    def param_declarations(self) -> list[tuple[str, Expr]]:
        """``name = params[...]`` for parameters read more than once."""
        return [(p.local, p.read) for p in self.params.values() if p.local is not None]

    # --- steps, forEach, workflow --------------------------------------------

    def _step(self, path: Sequence[str]) -> tuple[Val, int]:
        if len(path) < 2:
            raise NotReadable("a template reads every step at once")
        view = self.visible.get(path[1])
        if view is None:
            return constant(MISSING), 2
        if len(path) < 3:
            raise NotReadable(f"a template reads the whole record of step {path[1]}")
        part = path[2]
        if part == "status":
            return view.status, 3
        if part == "error":
            raise NotReadable(f"a template reads the error text of step {path[1]}")
        if part not in ("output", "content"):
            why = f"a step has no field `{part}`, only status, output, content, error"
            self._kept(path, why)
            return constant(MISSING), 3
        if part == "content":
            self.note(
                "domain",
                "content-without-structured-content",
                "tool steps whose .content is read return no structuredContent",
                path[1],
            )
        if len(path) > 3 and (path[3] in view.fields or view.known_fields is not None):
            if path[3] in view.fields:
                return view.fields[path[3]], 4
            if view.known_fields is not None and path[3] not in view.known_fields:
                known = ", ".join(sorted(view.known_fields))
                why = f"the output of a {view.kind} step has no `{path[3]}`, only {known}"
                self._kept(path, why)
                return constant(MISSING), 4
        return view.output, 3

    def _kept(self, path: Sequence[str], why: str) -> None:
        self.note(
            "finding",
            Deviation.MISSING_VALUE,
            f"`.{'.'.join(path)}` is always `<no value>` ({why})",
        )

    def _for_each(self, path: Sequence[str]) -> tuple[Val, int]:
        if self.for_each is None or len(path) < 2:
            return constant(MISSING), 1
        item_var, item, index = self.for_each
        if path[1] == item_var:
            return item, 2
        if path[1] == "index":
            return index, 2
        return constant(MISSING), 2

    def _workflow(self, key: str) -> Val:
        status = "completed" if self.in_output else "pending"
        if key == "status":
            return constant(status)
        if key == "step_count":
            if not self.in_output:
                return constant(0)
            statuses = [view.status for view in self.visible.values()]
            if all(s.constant and s.const == "completed" for s in statuses):
                return constant(len(statuses))
            raise NotReadable(
                "the output reads .workflow.step_count of steps that may not complete"
            )
        if key in ("id", "start_time", "duration_ms"):
            self.declare(Deviation.WORKFLOW_METADATA)
            placeholder: Any = {"id": RUN_ID_PLACEHOLDER, "start_time": START_TIME_PLACEHOLDER}
            return constant(placeholder.get(key, 0))
        if not key:
            raise NotReadable("a template reads the whole .workflow")
        return constant(MISSING)


def _whole(what: str) -> Val:
    raise NotReadable(f"a template reads the whole .{what}")


_LEADING_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def _shared_templates(tool: CompositeToolConfig) -> frozenset[str]:
    """Argument templates (with an action), and whole argument maps, that several tool steps
    send (a map by its JSON text)."""
    users: dict[str, set[str]] = {}
    for step in tool.steps:
        if step.arguments and "{{" in json.dumps(step.arguments, default=str):
            users.setdefault(map_key(step.arguments), set()).add(step.id)
        for value in (step.arguments or {}).values():
            if isinstance(value, str) and "{{" in value:
                users.setdefault(value, set()).add(step.id)
    return frozenset(text for text, steps in users.items() if len(steps) > 1)


def map_key(arguments: Mapping[str, Any]) -> str:
    """How an argument map is recognised as shared."""
    return "\x00map:" + json.dumps(arguments, sort_keys=True, default=str)


def _param_reads(tool: CompositeToolConfig) -> dict[str, int]:
    """How many template sites read each parameter."""
    counts: dict[str, int] = {}
    for site in template_sites(tool):
        try:
            found = reads(parse(site.text))
        except TemplateSyntaxError:
            continue
        for param_name in {
            r.path[1] for r in found if r.path[:1] == ("params",) and len(r.path) > 1
        }:
            counts[param_name] = counts.get(param_name, 0) + 1
    return counts
