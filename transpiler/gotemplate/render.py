"""Execution of a parsed template over vMCP's context (``text/template/exec.go``, Go 1.26).

Every step mirrors Go's executor, including which node an error is reported
at, so error texts match: ``template: expand:1:2: executing "expand" at
<.x.y>: nil pointer evaluating interface {}.y``. Recursion runs on the
:mod:`trampoline`, so nesting never meets Python's recursion limit.

vMCP's guards are applied as vMCP applies them: after execution, output over
10,485,760 bytes is an error. Two guards of ours stop pathological templates
that would make vMCP spin or exhaust memory (:class:`ExecutionLimits`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from transpiler.golang.fmt import format_value, map_items, sprintf
from transpiler.golang.runes import byte_length
from transpiler.golang.types import INTERFACE_TYPE, type_name
from transpiler.golang.values import AnyKeyMap, GoTime, NilList, NilMap
from transpiler.gotemplate import ast
from transpiler.gotemplate.errors import (
    TemplateExecError,
    TemplateLimitError,
    TemplateOutputTooLarge,
    TemplateUnsupportedError,
)
from transpiler.gotemplate.functions import (
    FUNCTIONS,
    NO_VALUE,
    Flow,
    FuncError,
    Function,
    Param,
    absent_key,
    call_target_error,
    value_string,
)
from transpiler.gotemplate.parser import Template
from transpiler.gotemplate.printer import node_text
from transpiler.gotemplate.runtime import MISSING, truth
from transpiler.gotemplate.trampoline import Call, run

MAX_OUTPUT_BYTES = 10 * 1024 * 1024
MAX_EXEC_DEPTH = 100000
_NO_FINAL = object()
_TIME_METHODS = frozenset(
    {
        "Add", "AddDate", "After", "AppendBinary", "AppendFormat", "AppendText", "Before", "Clock",
        "Compare", "Date", "Day", "Equal", "Format", "GoString", "GobEncode", "Hour", "ISOWeek",
        "In", "IsDST", "IsZero", "Local", "Location", "MarshalBinary", "MarshalJSON",
        "MarshalText", "Minute", "Month", "Nanosecond", "Round", "Second", "String", "Sub",
        "Truncate", "UTC", "Unix", "UnixMicro", "UnixMilli", "UnixNano", "Weekday", "Year",
        "YearDay", "Zone", "ZoneBounds",
    }
)  # fmt: skip


@dataclass(frozen=True)
class ExecutionLimits:
    """Our guards against runaway templates (vMCP has none; it would hang or run
    out of memory): evaluation steps, and the length of any intermediate string."""

    max_steps: int = 50_000_000
    max_string: int = 64 * 1024 * 1024


class Observation:
    """What one execution read and printed, for callers that judge it (the composite model).

    ``missing``: field names whose lookup found no key or a null (``nulls``: a null); ``printed``:
    the values actions wrote (before formatting); ``calls``: each function
    called, its arguments and its result.
    """

    __slots__ = ("calls", "missing", "nulls", "printed")

    def __init__(self) -> None:
        self.missing: list[str] = []
        self.nulls: list[str] = []
        self.printed: list[Any] = []
        self.calls: list[tuple[str, tuple[Any, ...], Any]] = []

    def reset(self) -> None:
        """Forget what was seen, for an execution that starts over."""
        self.missing.clear()
        self.nulls.clear()
        self.printed.clear()
        self.calls.clear()


class _Break(Exception):
    """``{{break}}`` unwinding to its range."""


class _Continue(Exception):
    """``{{continue}}`` unwinding to its range iteration."""


class _Variable:
    """One entry of the variable stack: name, value, and whether Go holds it in
    an ``interface {}`` (which names its type in error texts)."""

    __slots__ = ("boxed", "name", "value")

    def __init__(self, name: str, value: Any, boxed: bool) -> None:
        self.name = name
        self.value = value
        self.boxed = boxed


class _Output:
    """The output buffer: stops storing past the size limit, keeps counting."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.size += len(text) if text.isascii() else byte_length(text)
        if self.size <= MAX_OUTPUT_BYTES:
            self.parts.append(text)


class _Budget:
    """What one execution may still spend, shared by nested template calls."""

    def __init__(self, limits: ExecutionLimits) -> None:
        self.limits = limits
        self.steps = 0

    def spend(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise TemplateLimitError(
                f"template execution exceeded {self.limits.max_steps} steps "
                "(a guard of the Python renderer; vMCP would keep running)"
            )

    def checked(self, value: Any) -> Any:
        if isinstance(value, str) and len(value) > self.limits.max_string:
            raise TemplateLimitError(
                f"a template value grew beyond {self.limits.max_string} characters "
                "(a guard of the Python renderer; vMCP would exhaust memory)"
            )
        return value


class _Executor:
    """Go's ``state``: the template being run, the variable stack, the current node."""

    def __init__(
        self,
        template: Template,
        tree_name: str,
        out: _Output,
        budget: _Budget,
        depth: int = 0,
        observation: Observation | None = None,
        printer: Callable[[Any], str] | None = None,
        bodies: Mapping[str, Callable[..., Any]] | None = None,
    ) -> None:
        self.observation = observation
        self.printer = printer
        self.bodies = bodies
        self.template = template
        self.tree_name = tree_name
        self.out = out
        self.budget = budget
        self.depth = depth
        self.node: ast.Node = template.trees[tree_name]
        self.vars: list[_Variable] = []

    # --- errors ------------------------------------------------------------------

    def errorf(self, message_format: str, *args: Any) -> TemplateExecError:
        """Go's ``errorf``: location, template, node, then the message (formatted twice)."""
        pos = self.node.pos
        location = f"{self.template.name}:{pos.line}:{pos.column}"
        name = self.tree_name.replace("%", "%%")
        context = node_text(self.node).replace("%", "%%")
        full = sprintf(
            "template: %s: executing %q at <%s>: %s", [location, name, context, message_format]
        )
        return TemplateExecError(sprintf(full, list(args)))

    def at(self, node: ast.Node) -> None:
        self.node = node

    def step(self) -> None:
        self.budget.spend()

    # --- variables ---------------------------------------------------------------

    def set_var(self, name: str, value: Any, boxed: bool) -> None:
        for variable in reversed(self.vars):
            if variable.name == name:
                variable.value, variable.boxed = value, boxed
                return
        raise self.errorf("undefined variable: %s", name)

    def var_value(self, name: str) -> _Variable:
        for variable in reversed(self.vars):
            if variable.name == name:
                return variable
        raise self.errorf("undefined variable: %s", name)

    # --- walking -----------------------------------------------------------------

    def show(self, value: Any) -> str:
        """The text an action prints for ``value``."""
        if self.printer is not None:
            return self.printer(value)
        return NO_VALUE if value is MISSING else format_value(value)

    def walk(self, dot: Any, boxed: bool, node: ast.Node) -> Call[None]:
        self.at(node)
        self.step()
        if isinstance(node, ast.TextNode):
            self.out.write(node.text)
        elif isinstance(node, ast.ActionNode):
            value = yield self.eval_pipeline(dot, boxed, node.pipe)
            if not node.pipe.decl:
                self.at(node)
                if self.observation is not None:
                    self.observation.printed.append(value)
                self.out.write(self.show(value))
        elif isinstance(node, ast.ListNode):
            for child in node.nodes:
                if isinstance(child, ast.TextNode):
                    self.at(child)
                    self.step()
                    self.out.write(child.text)
                else:
                    yield self.walk(dot, boxed, child)
        elif isinstance(node, ast.IfNode | ast.WithNode):
            yield self.walk_if_or_with(dot, boxed, node)
        elif isinstance(node, ast.RangeNode):
            yield self.walk_range(dot, boxed, node)
        elif isinstance(node, ast.TemplateNode):
            yield self.walk_template(dot, boxed, node)
        elif isinstance(node, ast.BreakNode):
            raise _Break
        elif isinstance(node, ast.ContinueNode):
            raise _Continue

    def walk_flat(self, dot: Any, node: ast.ListNode) -> None:
        """:meth:`walk` of a :func:`_flat` list, step for step, without the trampoline."""
        self.at(node)
        self.step()
        for child in node.nodes:
            self.at(child)
            self.step()
            if isinstance(child, ast.TextNode):
                self.out.write(child.text)
            elif isinstance(child, ast.ActionNode):
                command = child.pipe.cmds[0]
                self.at(child.pipe)
                self.step()
                first = command.args[0]
                assert isinstance(first, ast.FieldNode)
                self.at(first)
                value = self.eval_field_chain(
                    dot, dot, False, first, first.ident, command.args, _NO_FINAL
                )
                if value is None:
                    value = MISSING
                self.at(child)
                if self.observation is not None:
                    self.observation.printed.append(value)
                self.out.write(self.show(value))

    def walk_if_or_with(self, dot: Any, boxed: bool, node: ast.BranchNode) -> Call[None]:
        mark = len(self.vars)
        try:
            value = yield self.eval_pipeline(dot, boxed, node.pipe)
            if truth(value):
                if isinstance(node, ast.WithNode):
                    yield self.walk(value, False, node.list)
                else:
                    yield self.walk(dot, boxed, node.list)
            elif node.else_list is not None:
                yield self.walk(dot, boxed, node.else_list)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot: Any, boxed: bool, node: ast.RangeNode) -> Call[None]:
        self.at(node)
        outer_mark = len(self.vars)
        try:
            collection = yield self.eval_pipeline(dot, boxed, node.pipe)
            mark = len(self.vars)
            ran = False
            for index, index_boxed, element, element_boxed in self.range_entries(node, collection):
                ran = True
                self.bind_range_variables(node.pipe, index, index_boxed, element, element_boxed)
                try:
                    yield self.walk(element, element_boxed, node.list)
                except _Continue:
                    pass
                finally:
                    del self.vars[mark:]
            if not ran and node.else_list is not None:
                yield self.walk(dot, boxed, node.else_list)
        except _Break:
            pass
        finally:
            del self.vars[outer_mark:]

    def range_entries(
        self, node: ast.RangeNode, collection: Any
    ) -> Iterable[tuple[Any, bool, Any, bool]]:
        """(index, boxed, element, boxed) per iteration, as Go's ``walkRange`` visits them."""
        if collection is MISSING:
            return ()
        if isinstance(collection, int) and not isinstance(collection, bool):
            if len(node.pipe.decl) > 1:
                raise self.errorf("can't use %v to iterate over more than one variable", collection)
            number_type = type(collection)
            return ((MISSING, False, number_type(n), False) for n in range(int(collection)))
        if isinstance(collection, list | NilList):
            elements = collection if isinstance(collection, list) else []
            return ((i, False, element, True) for i, element in enumerate(elements))
        if isinstance(collection, dict | NilMap | AnyKeyMap):
            key_boxed = isinstance(collection, AnyKeyMap)
            return ((k, key_boxed, v, True) for k, v in map_items(collection))
        raise self.errorf("range can't iterate over %v", collection)

    def bind_range_variables(
        self, pipe: ast.PipeNode, index: Any, index_boxed: bool, element: Any, element_boxed: bool
    ) -> None:
        """Set ``$i, $e`` (declared or assigned) for one iteration."""
        decl = pipe.decl
        if decl:
            if pipe.is_assign:
                first, first_boxed = (
                    (index, index_boxed) if len(decl) > 1 else (element, element_boxed)
                )
                self.set_var(decl[0].ident[0], first, first_boxed)
            else:
                top = self.vars[-1]
                top.value, top.boxed = element, element_boxed
        if len(decl) > 1:
            if pipe.is_assign:
                self.set_var(decl[1].ident[0], element, element_boxed)
            else:
                second = self.vars[-2]
                second.value, second.boxed = index, index_boxed

    def walk_template(self, dot: Any, boxed: bool, node: ast.TemplateNode) -> Call[None]:
        self.at(node)
        tree = self.template.trees.get(node.name)
        if tree is None:
            raise self.errorf("template %q not defined", node.name)
        if self.depth == MAX_EXEC_DEPTH:
            raise self.errorf("exceeded maximum template depth (%v)", MAX_EXEC_DEPTH)
        new_dot = MISSING
        if node.pipe is not None:
            new_dot = yield self.eval_pipeline(dot, boxed, node.pipe)
        callee = _Executor(
            self.template,
            node.name,
            self.out,
            self.budget,
            self.depth + 1,
            self.observation,
            self.printer,
            self.bodies,
        )
        callee.vars = [_Variable("$", new_dot, False)]
        yield callee.walk(new_dot, False, tree)

    # --- pipelines and commands --------------------------------------------------

    def eval_pipeline(self, dot: Any, boxed: bool, pipe: ast.PipeNode) -> Call[Any]:
        self.at(pipe)
        value: Any = _NO_FINAL
        for command in pipe.cmds:
            value = yield self.eval_command(dot, boxed, command, value)
            if value is None:
                value = MISSING
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.ident[0], value, False)
            else:
                self.vars.append(_Variable(variable.ident[0], value, False))
        return value

    def not_a_function(self, args: tuple[ast.Node, ...], final: Any) -> None:
        if len(args) > 1 or final is not _NO_FINAL:
            raise self.errorf("can't give argument to non-function %s", node_text(args[0]))

    def eval_command(
        self, dot: Any, boxed: bool, command: ast.CommandNode, final: Any
    ) -> Call[Any]:
        self.step()
        first = command.args[0]
        if isinstance(first, ast.FieldNode):
            self.at(first)
            return self.eval_field_chain(dot, dot, boxed, first, first.ident, command.args, final)
        if isinstance(first, ast.ChainNode):
            return (yield self.eval_chain_node(dot, boxed, first, command.args, final))
        if isinstance(first, ast.IdentifierNode):
            return (yield self.eval_function(dot, boxed, first, command, command.args, final))
        if isinstance(first, ast.PipeNode):
            self.not_a_function(command.args, final)
            return (yield self.eval_pipeline(dot, boxed, first))
        if isinstance(first, ast.VariableNode):
            return self.eval_variable_node(dot, first, command.args, final)
        self.at(first)
        self.not_a_function(command.args, final)
        if isinstance(first, ast.BoolNode):
            return first.value
        if isinstance(first, ast.DotNode):
            return dot
        if isinstance(first, ast.NilNode):
            raise self.errorf("nil is not a command")
        if isinstance(first, ast.NumberNode):
            return self.ideal_constant(first)
        if isinstance(first, ast.StringNode):
            return first.text
        raise self.errorf("can't evaluate command %q", node_text(first))

    def ideal_constant(self, constant: ast.NumberNode) -> Any:
        self.at(constant)
        text = constant.text
        if constant.is_complex:
            return constant.complex_value
        hex_int = (
            len(text) > 2
            and text[0] == "0"
            and text[1] in "xX"
            and not any(c in "pP" for c in text)
        )
        if (
            constant.is_float
            and not hex_int
            and not text.startswith("'")
            and any(c in ".eEpP" for c in text)
        ):
            return constant.float_value
        if constant.is_int:
            return constant.int_value
        if constant.is_uint:
            raise self.errorf("%s overflows int", text)
        return MISSING

    def eval_chain_node(
        self, dot: Any, boxed: bool, chain: ast.ChainNode, args: tuple[ast.Node, ...], final: Any
    ) -> Call[Any]:
        self.at(chain)
        if isinstance(chain.node, ast.NilNode):
            raise self.errorf("indirection through explicit nil in %s", node_text(chain))
        receiver = yield self.eval_arg(dot, boxed, None, chain.node)
        return self.eval_field_chain(dot, receiver, False, chain, chain.field, args, final)

    def eval_variable_node(
        self, dot: Any, node: ast.VariableNode, args: tuple[ast.Node, ...], final: Any
    ) -> Any:
        self.at(node)
        variable = self.var_value(node.ident[0])
        if len(node.ident) == 1:
            self.not_a_function(args, final)
            return variable.value
        return self.eval_field_chain(
            dot, variable.value, variable.boxed, node, node.ident[1:], args, final
        )

    def eval_field_chain(
        self,
        dot: Any,
        receiver: Any,
        boxed: bool,
        node: ast.Node,
        idents: tuple[str, ...],
        args: tuple[ast.Node, ...],
        final: Any,
    ) -> Any:
        for name in idents[:-1]:
            receiver = self.eval_field(name, (), _NO_FINAL, receiver, boxed)
            boxed = True
        return self.eval_field(idents[-1], args, final, receiver, boxed)

    def eval_field(
        self, name: str, args: tuple[ast.Node, ...], final: Any, receiver: Any, boxed: bool
    ) -> Any:
        if receiver is MISSING:
            return MISSING
        if type(receiver) is dict and len(args) <= 1 and final is _NO_FINAL:
            # the common case, as below without the checks that cannot fail here
            return self.looked_up(name, receiver.get(name, MISSING))
        static_type = INTERFACE_TYPE if boxed or receiver is None else type_name(receiver)
        if receiver is None:
            raise self.errorf("nil pointer evaluating %s.%s", static_type, name)
        has_args = len(args) > 1 or final is not _NO_FINAL
        if isinstance(receiver, dict | NilMap | AnyKeyMap):
            if has_args:
                raise self.errorf("%s is not a method but has arguments", name)
            found: Any = MISSING
            if isinstance(receiver, dict):
                found = receiver.get(name, MISSING)
            elif isinstance(receiver, AnyKeyMap):
                for key, value in receiver.items:
                    if isinstance(key, str) and key == name:
                        found = value
                        break
            return self.looked_up(name, found)
        if isinstance(receiver, GoTime):
            if name in _TIME_METHODS:
                message = self.errorf("method %s of time.Time is not supported here", name)
                raise TemplateUnsupportedError(message.go_message)
            if name in ("wall", "ext", "loc"):
                raise self.errorf("%s is an unexported field of struct type %s", name, static_type)
        raise self.errorf("can't evaluate field %s in type %s", name, static_type)

    def looked_up(self, name: str, found: Any) -> Any:
        """The value a map gave for key ``name``, noted when missing or null."""
        if self.observation is not None and (found is MISSING or found is None):
            self.observation.missing.append(name)
            if found is None:
                self.observation.nulls.append(name)
        return found

    # --- function calls ----------------------------------------------------------

    def eval_function(
        self,
        dot: Any,
        boxed: bool,
        node: ast.IdentifierNode,
        command: ast.Node,
        args: tuple[ast.Node, ...],
        final: Any,
    ) -> Call[Any]:
        self.at(node)
        function = FUNCTIONS[node.ident]
        return (yield self.eval_call(dot, boxed, function, node.ident, command, args, final))

    def eval_call(
        self,
        dot: Any,
        boxed: bool,
        function: Function,
        name: str,
        command: ast.Node,
        args: tuple[ast.Node, ...],
        final: Any,
    ) -> Call[Any]:
        operands = args[1:]
        has_final = final is not _NO_FINAL
        count = len(operands) + (1 if has_final else 0)
        fixed = len(function.params)
        if function.variadic is not None:
            if count < fixed:
                raise self.errorf(
                    "wrong number of args for %s: want at least %d got %d",
                    name,
                    fixed,
                    len(operands),
                )
        elif count != fixed:
            raise self.errorf("wrong number of args for %s: want %d got %d", name, fixed, count)
        if name in ("and", "or"):
            return (yield self.short_circuit(dot, boxed, name, operands, final))
        values: list[Any] = []
        for position, operand in enumerate(operands):
            param = function.params[position] if position < fixed else function.variadic
            assert param is not None
            values.append((yield self.eval_arg(dot, boxed, param, operand)))
        if has_final:
            param = function.params[count - 1] if count - 1 < fixed else function.variadic
            assert param is not None
            values.append(self.validate_type(final, param))
        if name == "call":
            callee = node_text(operands[0]) if operands else value_string(final)
            error = call_target_error(callee, values[0])
            self.at(command)
            raise self.errorf("error calling %s: %v", name, str(error))
        body = self.bodies.get(name, function.body) if self.bodies else function.body
        assert body is not None, "and, or and call are handled above"
        try:
            result = body(*values)
        except FuncError as error:
            self.at(command)
            raise self.errorf("error calling %s: %v", name, str(error)) from None
        if self.observation is not None:
            self.observation.calls.append((name, tuple(values), result))
            if function.flow is Flow.KEYED and (result is MISSING or result is None):
                self.observation.missing.append(name)
                if result is None and not absent_key(*values):
                    self.observation.nulls.append(name)
        return self.budget.checked(result)

    def short_circuit(
        self, dot: Any, boxed: bool, name: str, operands: tuple[ast.Node, ...], final: Any
    ) -> Call[Any]:
        value: Any = MISSING
        for operand in operands:
            value = yield self.eval_arg(dot, boxed, Param.VALUE, operand)
            if truth(value) == (name == "or"):
                return value
        if final is not _NO_FINAL:
            value = final
        return value

    def validate_type(self, value: Any, param: Param | None) -> Any:
        """Go's ``validateType``: check an evaluated value against a parameter type."""
        if param is None or param is Param.VALUE:
            return value
        if param is Param.ANY:
            return None if value is MISSING else value
        if value is MISSING:
            raise self.errorf("invalid value; expected %s", "string")
        if isinstance(value, str):
            return value
        got = INTERFACE_TYPE if value is None else type_name(value)
        raise self.errorf("wrong type for value; expected %s; got %s", "string", got)

    def eval_arg(self, dot: Any, boxed: bool, param: Param | None, node: ast.Node) -> Call[Any]:
        self.at(node)
        if isinstance(node, ast.DotNode):
            return self.validate_type(dot, param)
        if isinstance(node, ast.NilNode):
            if param is Param.STRING:
                raise self.errorf("cannot assign nil to %s", "string")
            return None if param is Param.ANY else MISSING
        if isinstance(node, ast.FieldNode):
            value = self.eval_field_chain(dot, dot, boxed, node, node.ident, (node,), _NO_FINAL)
            return self.validate_type(value, param)
        if isinstance(node, ast.VariableNode):
            return self.validate_type(self.eval_variable_node(dot, node, (), _NO_FINAL), param)
        if isinstance(node, ast.PipeNode):
            value = yield self.eval_pipeline(dot, boxed, node)
            return self.validate_type(value, param)
        if isinstance(node, ast.IdentifierNode):
            value = yield self.eval_function(dot, boxed, node, node, (), _NO_FINAL)
            return self.validate_type(value, param)
        if isinstance(node, ast.ChainNode):
            value = yield self.eval_chain_node(dot, boxed, node, (), _NO_FINAL)
            return self.validate_type(value, param)
        if param is Param.STRING:
            if isinstance(node, ast.StringNode):
                return node.text
            raise self.errorf("expected string; found %s", node_text(node))
        return self.literal(node)

    def literal(self, node: ast.Node) -> Any:
        """``evalEmptyInterface`` of a constant."""
        self.at(node)
        if isinstance(node, ast.BoolNode):
            return node.value
        if isinstance(node, ast.NumberNode):
            return self.ideal_constant(node)
        if isinstance(node, ast.StringNode):
            return node.text
        raise self.errorf(
            "can't handle assignment of %s to empty interface argument", node_text(node)
        )


@lru_cache(maxsize=4096)
def _flat(root: ast.ListNode) -> bool:
    """Whether the template is text, comments and actions that print one field chain (most
    of what workflows hold): :meth:`_Executor.walk_flat` runs it."""
    return all(
        isinstance(child, ast.TextNode | ast.CommentNode)
        or (
            isinstance(child, ast.ActionNode)
            and not child.pipe.decl
            and len(child.pipe.cmds) == 1
            and isinstance(child.pipe.cmds[0].args[0], ast.FieldNode)
        )
        for child in root.nodes
    )


def execute(
    template: Template,
    data: Any,
    limits: ExecutionLimits | None = None,
    observation: Observation | None = None,
    printer: Callable[[Any], str] | None = None,
    bodies: Mapping[str, Callable[..., Any]] | None = None,
) -> str:
    """Run ``template`` over ``data`` as ``tmpl.Execute`` does, then vMCP's size check.

    ``observation``, when given, is filled with what the execution read and printed;
    ``printer``, when given, writes what actions print instead of Go's ``%v``, and
    ``bodies`` replaces the named functions' bodies (the model's variants of deviation
    classes); a body raises :class:`FuncError` to fail the call.
    """
    out = _Output()
    budget = _Budget(limits or ExecutionLimits())
    executor = _Executor(template, template.name, out, budget, 0, observation, printer, bodies)
    root = MISSING if data is None else data
    executor.vars = [_Variable("$", root, False)]
    if _flat(template.root):
        executor.walk_flat(root, template.root)
    else:
        run(executor.walk(root, False, template.root))
    if out.size > MAX_OUTPUT_BYTES:
        raise TemplateOutputTooLarge(
            f"template output too large: {out.size} bytes (max {MAX_OUTPUT_BYTES})"
        )
    return "".join(out.parts)
