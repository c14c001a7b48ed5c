"""Go templates as plain Starlark expressions (the template part of the readable emitter).

Facade: :class:`TemplateCompiler` with ``text`` (a template as a string
expression: an argument, a message), ``value`` (what a lone action gives: an
output property, a forEach collection) and ``condition`` (a step's
condition as a truth test). Field reads become indexing, a function what
its row of :data:`~transpiler.gotemplate.functions.FUNCTIONS` lowers it to
(``eq`` becomes ``==``, ``json`` becomes ``json.encode``), text with actions
becomes ``%`` formatting. Where vMCP's result is fixed when the script is
written (a field no step ever has prints ``<no value>``), the constant is
written. Each construct names the deviation classes its plain form may show
(``Env.declare``; a function's are in its row); a construct with no plain form raises
:class:`NotReadable`, and the tool is emitted in the exact style instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from transpiler.deviations import Deviation
from transpiler.diagnostics import TranspilerError
from transpiler.emit.ir import (
    Attribute,
    Binary,
    Comprehension,
    Cond,
    Expr,
    ForClause,
    Index,
    Name,
    Precedence,
    Str,
    Tuple,
    Unary,
    call,
    precedence,
)
from transpiler.emit.readable.values import (
    MISSING,
    Kind,
    Val,
    absent_or_get,
    constant,
    count,
    go_text,
    index,
    runtime,
)
from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.golang.runes import byte_length
from transpiler.golang.values import NilList, NilMap
from transpiler.gotemplate import TemplateSyntaxError, ast, parse
from transpiler.gotemplate.functions import FUNCTIONS, Lowering, Result
from transpiler.gotemplate.verbs import VERBS

_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")
_PRINTF_VERB = re.compile(r"%(.)")
_RESULT_KINDS = {Result.BOOL: Kind.BOOL, Result.STRING: Kind.STR, Result.INT: Kind.NUM}


class NotReadable(TranspilerError):
    """A template construct with no plain Starlark form (the exact style handles it)."""


class Env(Protocol):
    """What the workflow emitter tells the template compiler."""

    def resolve(self, path: Sequence[str]) -> tuple[Val, int]:
        """The value at the start of a context path and how many names it used."""

    def declare(self, *classes: Deviation) -> None:
        """Deviation classes the script may show because of a construct."""

    def loop_name(self, hint: str) -> str:
        """A fresh variable name for a comprehension."""

    def decoded(self, text: Expr) -> Expr | None:
        """A variable already holding ``json.decode(text)``, or None to decode in place."""

    def use_helper(self, name: str) -> None:
        """The script calls this helper of ``helpers.star``."""


@dataclass(frozen=True)
class _Dot:
    """What ``.`` is: the context root (None) or an element inside ``range``."""

    value: Val | None


_ROOT = _Dot(None)


class TemplateCompiler:
    """Compiles template sources against one point of the script."""

    def __init__(self, env: Env) -> None:
        self.env = env

    # --- facade ----------------------------------------------------------------

    def text(self, source: str) -> Val:
        """The template as text (what vMCP sends as an argument or message)."""
        parts = self._parts(_tree(source).root, _ROOT)
        if any(part.encodes is not None for part in parts):
            self.env.declare(Deviation.JSON_TEXT, Deviation.RUST_ENGINE)
        return self._join(parts)

    def value(self, source: str) -> Val:
        """A lone action's value (unprinted), else the template's text."""
        lone = ast.lone_action(_tree(source).root)
        if lone is None:
            return self.text(source)
        return self._pipe(lone.pipe, _ROOT)

    def condition(self, source: str, step: str, goes_on: bool) -> Val:
        """A truth test equivalent to vMCP's condition of ``step`` (a constant when it is
        fixed; MISSING when it never prints true or false).

        Text that may print neither true nor false is read by the ``condition`` helper, which
        fails as vMCP fails the step; a step that goes on after a failure (``goes_on``) has no
        plain form for that.
        """
        root = _tree(source).root
        lone = ast.lone_action(root)
        if lone is not None:
            value = self._pipe(lone.pipe, _ROOT)
            if value.constant:
                return _condition_constant(go_text(value.const))
            if value.kind is not Kind.BOOL:
                self.env.declare(Deviation.CONDITION_TEXT)
            return value
        branch = _lone_if(root)
        if branch is not None:
            picked = self._boolean_if(branch)
            if picked is not None:
                return picked
        text = self.text(source)
        if text.constant:
            return _condition_constant(text.const)
        if goes_on:
            raise NotReadable(
                f"the condition of step {step} may print neither true nor false, where vMCP "
                "fails the step, and onError: continue goes on after that"
            )
        self.env.declare(Deviation.ERROR_TEXT)
        self.env.use_helper("condition")
        return runtime(call("condition", Str(step), text.code()), Kind.BOOL)

    # --- text ------------------------------------------------------------------

    def _parts(self, node: ast.ListNode, dot: _Dot) -> list[Val]:
        parts: list[Val] = []
        for child in node.nodes:
            if isinstance(child, ast.TextNode):
                parts.append(constant(child.text))
            elif isinstance(child, ast.CommentNode):
                continue
            elif isinstance(child, ast.ActionNode):
                if child.pipe.decl:
                    raise NotReadable("a template declares a variable")
                parts.append(self._printed(self._pipe(child.pipe, dot)))
            elif isinstance(child, ast.IfNode):
                parts.append(self._if(child, dot))
            elif isinstance(child, ast.RangeNode):
                parts.append(self._range(child, dot))
            else:
                raise NotReadable(f"a template uses {type(child).__name__.removesuffix('Node')}")
        return parts

    def _printed(self, value: Val) -> Val:
        """A value as Go prints it into text."""
        if value.constant:
            return constant(go_text(value.const))
        if value.kind is Kind.STR:
            return value
        if value.kind is Kind.BOOL:
            return runtime(Cond(Str("true"), value.code(), Str("false")), Kind.STR)
        if value.kind in (Kind.MAP, Kind.LIST):
            self.env.declare(Deviation.VALUE_TEXT, Deviation.JSON_TEXT, Deviation.RUST_ENGINE)
            return runtime(call("json.encode", value.code()), Kind.STR, encodes=value)
        if not value.go_int:  # a count or index prints as its digits on every side
            self.env.declare(Deviation.NUMBER_TEXT, Deviation.RUST_ENGINE)
        if value.kind is Kind.ANY:
            self.env.declare(Deviation.VALUE_TEXT)
        return runtime(call("str", value.code()), Kind.STR, shows=value)

    def _join(self, parts: list[Val]) -> Val:
        merged: list[Val] = []
        for part in parts:
            if part.constant and merged and merged[-1].constant:
                merged[-1] = constant(str(merged[-1].const) + str(part.const))
            elif not (part.constant and part.const == ""):
                merged.append(part)
        if not merged:
            return constant("")
        if len(merged) == 1:
            return merged[0]
        pattern = "".join(str(p.const).replace("%", "%%") if p.constant else "%s" for p in merged)
        operands = [_format_operand(p) for p in merged if not p.constant]
        right = operands[0] if len(operands) == 1 else Tuple(tuple(operands))
        if len(operands) == 1 and precedence(operands[0]) < Precedence.ATOM:
            right = Tuple((operands[0],))
        return runtime(Binary(Str(pattern), "%", right), Kind.STR)

    def _if(self, node: ast.IfNode, dot: _Dot) -> Val:
        test = self._pipe(node.pipe, dot)
        then = self._join(self._parts(node.list, dot))
        otherwise = (
            self._join(self._parts(node.else_list, dot))
            if node.else_list is not None
            else constant("")
        )
        if test.constant:
            return then if _go_truth(test.const) else otherwise
        return runtime(Cond(then.code(), test.code(), otherwise.code()), Kind.STR)

    def _boolean_if(self, node: ast.IfNode) -> Val | None:
        """``{{if X}}true{{else}}false{{end}}`` as the truth of X; branches that both print
        neither true nor false as MISSING (the step always fails)."""
        then = self._join(self._parts(node.list, _ROOT))
        otherwise = (
            self._join(self._parts(node.else_list, _ROOT))
            if node.else_list is not None
            else constant("")
        )
        if not (then.constant and otherwise.constant):
            return None
        if then.const in _TRUE and otherwise.const in _FALSE:
            test = self._pipe(node.pipe, _ROOT)
            if test.constant:
                return constant(_go_truth(test.const))
            return runtime(test.code(), Kind.BOOL) if test.kind is Kind.BOOL else test
        if all(_condition_constant(c).const is MISSING for c in (then.const, otherwise.const)):
            return constant(MISSING)  # either branch fails the step (as a failing test does)
        return None

    def _range(self, node: ast.RangeNode, dot: _Dot) -> Val:
        if node.pipe.decl:
            raise NotReadable("a range declares variables")
        items = self._pipe(node.pipe, dot)
        if items.constant:
            raise NotReadable("a range over a constant")
        self.env.declare(Deviation.TEMPLATE_ERROR)
        element = self.env.loop_name("item")
        body = self._join(self._parts(node.list, _Dot(runtime(Name(element)))))
        loop = ForClause((element,), items.code())
        joined = call(Attribute(Str(""), "join"), Comprehension(body.code(), (loop,)))
        if node.else_list is None:
            return runtime(joined, Kind.STR)
        otherwise = self._join(self._parts(node.else_list, dot))
        return runtime(Cond(joined, items.code(), otherwise.code()), Kind.STR)

    # --- pipelines and commands ------------------------------------------------

    def _pipe(self, pipe: ast.PipeNode, dot: _Dot) -> Val:
        if pipe.decl:
            raise NotReadable("a template declares a variable")
        value: Val | None = None
        for command in pipe.cmds:
            value = self._command(command, dot, value)
        assert value is not None
        return value

    def _command(self, command: ast.CommandNode, dot: _Dot, final: Val | None) -> Val:
        first, operands = command.args[0], command.args[1:]
        if isinstance(first, ast.IdentifierNode):
            return self._function(first.ident, operands, dot, final)
        if operands or final is not None:
            raise NotReadable("arguments given to a value that is not a function")
        return self._operand(first, dot)

    def _operand(self, node: ast.Node, dot: _Dot) -> Val:
        if isinstance(node, ast.FieldNode):
            return self._fields(dot, node.ident)
        if isinstance(node, ast.ChainNode):
            return self._chain(self._operand(node.node, dot), node.field)
        if isinstance(node, ast.PipeNode):
            return self._pipe(node, dot)
        if isinstance(node, ast.IdentifierNode):
            return self._function(node.ident, (), dot, None)
        if isinstance(node, ast.VariableNode) and node.ident[0] == "$":
            return self._fields(_ROOT, node.ident[1:]) if len(node.ident) > 1 else _no("$")
        if isinstance(node, ast.StringNode):
            return constant(node.text)
        if isinstance(node, ast.BoolNode):
            return constant(node.value)
        if isinstance(node, ast.NumberNode):
            return constant(_number(node))
        if isinstance(node, ast.DotNode) and dot.value is not None:
            return dot.value
        raise NotReadable(f"a template uses {type(node).__name__.removesuffix('Node')}")

    def _fields(self, dot: _Dot, names: Sequence[str]) -> Val:
        if dot.value is not None:
            return self._chain(dot.value, names)
        if not names:
            raise NotReadable("a template reads the whole context")
        value, used = self.env.resolve(names)
        return self._chain(value, names[used:])

    def _chain(self, value: Val, names: Sequence[str]) -> Val:
        for name in names:
            value = self._field(value, name)
        return value

    def _field(self, value: Val, name: str) -> Val:
        if value.constant:
            held = value.const
            if held is MISSING or isinstance(held, NilMap):
                return constant(MISSING)
            if isinstance(held, dict):
                return constant(held.get(name, MISSING))
            raise NotReadable(f"a template reads field {name} of a constant {type(held).__name__}")
        if value.kind in (Kind.STR, Kind.NUM, Kind.BOOL, Kind.LIST):
            raise NotReadable(f"a template reads field {name} of a {value.kind.value}")
        self.env.declare(Deviation.MISSING_VALUE)
        if value.kind is not Kind.MAP:  # a field of a map is never a Go type error
            self.env.declare(Deviation.TEMPLATE_ERROR)
        return index(value, name)

    # --- functions -------------------------------------------------------------

    def _function(
        self, name: str, operands: Sequence[ast.Node], dot: _Dot, final: Val | None
    ) -> Val:
        readable = FUNCTIONS[name].readable
        if readable.lowering is Lowering.REFUSED:
            raise NotReadable(f"the template function {name}: {readable.refusal}")
        if readable.lowering is Lowering.LOGIC:
            return self._logic(readable.starlark, operands, dot, final)
        args = [self._operand(node, dot) for node in operands]
        if final is not None:
            args.append(final)
        return _LOWERINGS[readable.lowering](self, name, args)

    def _call(self, name: str, args: list[Val]) -> Val:
        """The generic lowering: the row's Starlark function applied to the operands."""
        function = FUNCTIONS[name]
        if function.variadic is None and len(args) != len(function.params):
            raise NotReadable(f"{name} with {len(args)} operands")
        if any(value.constant and value.const is MISSING for value in args):
            raise NotReadable(f"{name} of a missing value")
        self.env.declare(*function.readable.classes)
        expr = call(function.readable.starlark, *(value.code() for value in args))
        return runtime(expr, _RESULT_KINDS.get(function.result, Kind.ANY))

    def _compare(self, name: str, args: list[Val]) -> Val:
        readable = FUNCTIONS[name].readable
        op = readable.starlark
        if len(args) < 2:
            raise NotReadable("a comparison with one operand")
        args = [_unset(value) for value in args]
        left, rights = args[0], args[1:]
        folded_status = _status_test(op, args)
        if folded_status is not None:
            return folded_status
        if left.constant and all(r.constant for r in rights):
            folded = _fold_comparison(op, left.const, [r.const for r in rights])
            if folded is not None:
                return constant(folded)
        if any(v.constant and v.const is MISSING for v in args):
            if op in ("==", "!="):
                return constant(op == "!=")
            raise NotReadable("an ordering comparison with a missing value")
        if any(v.kind in (Kind.ANY, Kind.NUM) for v in args):
            self.env.declare(*readable.classes)
        if len(rights) > 1 and op == "==":
            members = Tuple(tuple(r.code() for r in rights))
            return runtime(Binary(left.code(), "in", members), Kind.BOOL)
        if len(rights) > 1:
            raise NotReadable(f"{op} with more than two operands")
        return runtime(Binary(left.code(), op, rights[0].code()), Kind.BOOL)

    def _logic(self, name: str, operands: Sequence[ast.Node], dot: _Dot, final: Val | None) -> Val:
        values = [self._operand(node, dot) for node in operands]
        if final is not None:
            values.append(final)
        kept: list[Val] = []
        for value in values:
            if value.constant:
                if _go_truth(value.const) == (name == "or"):
                    if not kept:
                        return value
                    kept.append(value)
                    break
                continue
            kept.append(value)
        if not kept:
            return values[-1]
        if len(kept) == 1:
            return kept[0]
        expr = kept[0].code()
        for value in kept[1:]:
            expr = Binary(expr, name, value.code())
        kind = Kind.BOOL if all(v.kind is Kind.BOOL for v in kept) else Kind.ANY
        return runtime(expr, kind)

    def _not(self, name: str, args: list[Val]) -> Val:
        (value,) = _arity(args, 1, name)
        if value.constant:
            return constant(not _go_truth(value.const))
        return runtime(Unary("not", value.code()), Kind.BOOL)

    def _len(self, name: str, args: list[Val]) -> Val:
        (value,) = _arity(args, 1, name)
        value = _unset(value)
        if value.constant and isinstance(value.const, str | dict | list):
            held = value.const
            return constant(byte_length(held) if isinstance(held, str) else len(held))
        if value.constant:
            raise NotReadable(f"{name} of a constant that has no length")
        if value.kind is Kind.ANY:
            self.env.declare(*FUNCTIONS[name].readable.classes)
        elif value.kind is Kind.STR:  # of text, only the engines' counts differ
            self.env.declare(Deviation.RUST_ENGINE)
        return count(call("len", value.code()))

    def _index(self, name: str, args: list[Val]) -> Val:
        if not args:
            raise NotReadable(f"{name} without operands")
        value = args[0]
        for key in args[1:]:
            if key.constant and isinstance(key.const, str):
                value = self._field(value, key.const)
                continue
            if value.constant:
                raise NotReadable(f"{name} into a constant")
            self.env.declare(*FUNCTIONS[name].readable.classes)
            if value.may_be_absent:
                value = absent_or_get(value, key.code())
            else:
                value = runtime(Index(value.code(), key.code()), Kind.ANY)
        return value

    def _json(self, name: str, args: list[Val]) -> Val:
        (value,) = _arity(args, 1, name)
        value = _unset(value)
        if value.constant:
            try:
                return constant(marshal(None if value.const is MISSING else value.const))
            except JSONEncodeError as error:
                raise NotReadable(f"{name} of a value Go cannot encode: {error}") from None
        return runtime(call("json.encode", value.code()), Kind.STR, encodes=value)

    def _from_json(self, name: str, args: list[Val]) -> Val:
        (value,) = _arity(args, 1, name)
        if value.constant:
            raise NotReadable(f"{name} of a constant")
        self.env.declare(*FUNCTIONS[name].readable.classes)
        held = self.env.decoded(value.code())
        return runtime(held if held is not None else call("json.decode", value.code()), Kind.ANY)

    def _printf(self, name: str, args: list[Val]) -> Val:
        if not args or not (args[0].constant and isinstance(args[0].const, str)):
            raise NotReadable(f"{name} with a format that is not a string literal")
        pattern = args[0].const
        for match in _PRINTF_VERB.finditer(pattern):
            if _plain_verb(match.group(1)) is None:
                raise NotReadable(f"{name} verb %{match.group(1)} has no plain form")
        values = args[1:]
        if any(v.constant for v in values):
            raise NotReadable(f"{name} of a constant")
        verbs = [verb for verb in _PRINTF_VERB.findall(pattern) if verb != "%"]
        paired = zip(verbs, values, strict=False)
        if any(verb == "d" and value.kind is not Kind.NUM for verb, value in paired):
            # Go prints `%!d(string=...)`, where Starlark's `%d` stops the script
            raise NotReadable(f"{name} verb %d of a value that may not be a number")
        texts = all(v.kind is Kind.STR for v in values) and set(verbs) <= {"s", "v"}
        if not texts:  # text printed with %s or %v is itself on every side
            self.env.declare(*FUNCTIONS[name].readable.classes)
        starlark = _PRINTF_VERB.sub(lambda m: f"%{_plain_verb(m.group(1))}", pattern)
        right = Tuple(tuple(v.code() for v in values))
        return runtime(Binary(Str(starlark), "%", right), Kind.STR)


#: How the readable emitter writes each lowering a function's row may name.
_LOWERINGS: dict[Lowering, Callable[[TemplateCompiler, str, list[Val]], Val]] = {
    Lowering.CALL: TemplateCompiler._call,
    Lowering.COMPARE: TemplateCompiler._compare,
    Lowering.NOT: TemplateCompiler._not,
    Lowering.LENGTH: TemplateCompiler._len,
    Lowering.INDEX: TemplateCompiler._index,
    Lowering.ENCODE: TemplateCompiler._json,
    Lowering.DECODE: TemplateCompiler._from_json,
    Lowering.FORMAT: TemplateCompiler._printf,
}


def _unset(value: Val) -> Val:
    """A value as a function sees it: a parameter the script reads with a default is read
    without one, so a missing one is None (as vMCP's missing value is to Go's functions)."""
    return value if value.unset is None else runtime(value.unset)


def _plain_verb(verb: str) -> str | None:
    """The Starlark ``%`` verb of a printf verb, or None."""
    row = VERBS.get(verb)
    return None if row is None else row.plain


def _arity(args: list[Val], count: int, name: str) -> list[Val]:
    if len(args) != count:
        raise NotReadable(f"{name} with {len(args)} operands")
    return args


def _no(what: str) -> Val:
    raise NotReadable(f"a template reads {what}")


def _tree(source: str) -> Any:
    try:
        return parse(source)
    except TemplateSyntaxError as error:
        raise NotReadable(f"a template does not parse: {error.go_message}") from None


def _lone_if(root: ast.ListNode) -> ast.IfNode | None:
    nodes = [n for n in root.nodes if not isinstance(n, ast.CommentNode)]
    if len(nodes) == 1 and isinstance(nodes[0], ast.IfNode):
        return nodes[0]
    return None


def _number(node: ast.NumberNode) -> int | float:
    text = node.text
    if node.is_float and any(c in ".eEpP" for c in text) and not text.lower().startswith("0x"):
        return node.float_value
    if node.is_int:
        return node.int_value
    raise NotReadable(f"the number {text} has no plain form")


def _condition_constant(text: Any) -> Val:
    """A condition whose text is fixed: run, skip, or always an error (MISSING)."""
    if text in _TRUE:
        return constant(True)
    if text in _FALSE:
        return constant(False)
    return constant(MISSING)


def _go_truth(value: Any) -> bool:
    if value is MISSING or value is None or isinstance(value, NilMap | NilList):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | str | dict | list):
        return bool(value)
    return True


def _fold_comparison(op: str, left: Any, rights: list[Any]) -> bool | None:
    """Go's comparison of constants, or None where Go would fail (left to run time)."""
    values = [left, *rights]
    if any(v is MISSING or v is None for v in values):
        if op not in ("==", "!="):
            return None
        equal = any(
            (left is MISSING or left is None) == (r is MISSING or r is None)
            and (left is MISSING or left is None)
            for r in rights
        )
        return equal if op == "==" else not equal
    kinds = {type(v) for v in values}
    if len(kinds) != 1 or kinds.pop() not in (str, int, bool):
        return None
    if op == "==":
        return any(left == r for r in rights)
    if len(rights) != 1:
        return None
    right = rights[0]
    if isinstance(left, bool):
        return None if op != "!=" else left != right
    outcomes: dict[str, bool] = {
        "!=": left != right,
        "<": left < right,
        "<=": left <= right,
        ">": left > right,
        ">=": left >= right,
    }
    return outcomes[op]


def _status_test(op: str, args: list[Val]) -> Val | None:
    """``eq .steps.s.status "completed"`` as the condition that makes it so."""
    if op not in ("==", "!=") or len(args) != 2:
        return None
    held = next((v for v in args if v.completed_if is not None), None)
    other = next((v for v in args if v.constant and isinstance(v.const, str)), None)
    if held is None or other is None or held.completed_if is None:
        return None
    if other.const not in ("completed", held.otherwise):
        return constant(op == "!=")
    positive = (other.const == "completed") == (op == "==")
    test = held.completed_if
    return runtime(test if positive else Unary("not", test), Kind.BOOL)


def _format_operand(part: Val) -> Expr:
    """The expression ``%s`` formats for a printed part (``str(x)`` formats as ``x``)."""
    return part.shows.code() if part.shows is not None else part.code()
