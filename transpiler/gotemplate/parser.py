"""The parser of Go text/template (``text/template/parse/parse.go``, Go 1.26).

It follows Go's recursive descent step for step, including its three-token
lookahead, so errors come out with Go's wording and line numbers. Recursive
rules are generators run by :mod:`trampoline`: nesting depth is limited by
memory and by Go's own limits (10000 nested parentheses), never by Python's
stack.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from transpiler.golang.fmt import sprintf
from transpiler.golang.runes import go_bytes
from transpiler.golang.strconv import UnquoteError, unquote
from transpiler.gotemplate import ast
from transpiler.gotemplate.errors import TemplateSyntaxError
from transpiler.gotemplate.functions import FUNCTIONS as TEMPLATE_FUNCTIONS
from transpiler.gotemplate.lexer import Item, ItemType, Lexer
from transpiler.gotemplate.numbers import (
    NumberSyntaxError,
    NumberValue,
    character_constant,
    complex_constant,
    number_constant,
)
from transpiler.gotemplate.trampoline import Call, run

MAX_PAREN_DEPTH = 10000
MAX_PIPELINE_COMMANDS = 100000

FUNCTIONS = frozenset(TEMPLATE_FUNCTIONS)  # Go's builtins and vMCP's functions

_OPERAND_STARTS = frozenset(
    {
        ItemType.BOOL, ItemType.CHAR_CONSTANT, ItemType.COMPLEX, ItemType.DOT,
        ItemType.FIELD, ItemType.IDENTIFIER, ItemType.NUMBER, ItemType.NIL,
        ItemType.RAW_STRING, ItemType.STRING, ItemType.VARIABLE, ItemType.LEFT_PAREN,
    }
)  # fmt: skip
_GO_SPACES = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)


@dataclass(frozen=True, eq=False)
class Template:
    """A parsed template: the tree ``Execute`` runs and every named tree."""

    name: str
    source: str
    root: ast.ListNode
    trees: Mapping[str, ast.ListNode]


@dataclass(frozen=True, eq=False, repr=False)
class _End(ast.Node):
    """``{{end}}`` (never in a finished tree)."""


@dataclass(frozen=True, eq=False, repr=False)
class _Else(ast.Node):
    """``{{else}}`` (never in a finished tree)."""


_LITERALS = (ast.BoolNode, ast.StringNode, ast.NumberNode, ast.NilNode, ast.DotNode)


def _marker(node: ast.Node) -> str:
    return "{{end}}" if isinstance(node, _End) else "{{else}}"


def _literal_text(node: ast.Node) -> str:
    """``String()`` of a literal term."""
    if isinstance(node, ast.BoolNode):
        return "true" if node.value else "false"
    if isinstance(node, ast.StringNode):
        return node.quoted
    if isinstance(node, ast.NumberNode):
        return node.text
    return "nil" if isinstance(node, ast.NilNode) else "."


def is_empty_tree(node: ast.Node | None) -> bool:
    """Go's ``IsEmptyTree``: only space and comments."""
    pending: list[ast.Node | None] = [node]
    while pending:
        item = pending.pop()
        if item is None or isinstance(item, ast.CommentNode):
            continue
        if isinstance(item, ast.ListNode):
            pending.extend(item.nodes)
        elif isinstance(item, ast.TextNode):
            if item.text.strip("".join(_GO_SPACES)):
                return False
        else:
            return False
    return True


class _Shared:
    """What all trees of one parse share: source, lexer, named trees."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.parse_name = name
        self.lexer = Lexer(
            text,
            break_ok="break" not in FUNCTIONS,
            continue_ok="continue" not in FUNCTIONS,
        )
        self.trees: dict[str, ast.ListNode] = {}
        data = go_bytes(text)
        self.line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]

    def position(self, offset: int) -> ast.Position:
        line = bisect_right(self.line_starts, offset)
        return ast.Position(offset, line, offset - self.line_starts[line - 1])


class _Tree:
    """The state of parsing one (named) tree, as Go's ``parse.Tree``."""

    def __init__(self, name: str, shared: _Shared) -> None:
        self.name = name
        self.shared = shared
        self.lex = shared.lexer
        self.token: list[Item] = [Item(ItemType.EOF, 0, "", 0)] * 3
        self.peek_count = 0
        self.vars = ["$"]
        self.action_line = 0
        self.range_depth = 0
        self.paren_depth = 0

    # --- tokens ------------------------------------------------------------------

    def next(self) -> Item:
        if self.peek_count > 0:
            self.peek_count -= 1
        else:
            self.token[0] = self.lex.next_item()
        return self.token[self.peek_count]

    def backup(self) -> None:
        self.peek_count += 1

    def backup2(self, first: Item) -> None:
        self.token[1] = first
        self.peek_count = 2

    def backup3(self, second: Item, first: Item) -> None:
        self.token[1] = first
        self.token[2] = second
        self.peek_count = 3

    def peek(self) -> Item:
        if self.peek_count > 0:
            return self.token[self.peek_count - 1]
        self.peek_count = 1
        self.token[0] = self.lex.next_item()
        return self.token[0]

    def next_non_space(self) -> Item:
        while True:
            token = self.next()
            if token.type != ItemType.SPACE:
                return token

    def peek_non_space(self) -> Item:
        token = self.next_non_space()
        self.backup()
        return token

    # --- errors ------------------------------------------------------------------

    def error(self, message_format: str, *args: Any) -> TemplateSyntaxError:
        """Go's ``errorf``: the format goes through ``Sprintf`` twice, as in Go."""
        line = self.token[0].line
        full = sprintf("template: %s:%d: %s", [self.shared.parse_name, line, message_format])
        return TemplateSyntaxError(sprintf(full, list(args)), line)

    def expect(self, expected: ItemType, context: str) -> Item:
        token = self.next_non_space()
        if token.type != expected:
            raise self.unexpected(token, context)
        return token

    def unexpected(self, token: Item, context: str) -> TemplateSyntaxError:
        if token.type == ItemType.ERROR:
            extra = ""
            if self.action_line not in (0, token.line):
                extra = f" in action started at {self.shared.parse_name}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action") :]
            return self.error("%s%s", token.describe(), extra)
        return self.error("unexpected %s in %s", token.describe(), context)

    def at(self, offset: int) -> ast.Position:
        return self.shared.position(offset)

    # --- trees -------------------------------------------------------------------

    def add(self, root: ast.ListNode) -> None:
        existing = self.shared.trees.get(self.name)
        if existing is None or is_empty_tree(existing):
            self.shared.trees[self.name] = root
            return
        if not is_empty_tree(root):
            raise self.error("template: multiple definition of template %q", self.name)

    def parse(self) -> Call[None]:
        nodes: list[ast.Node] = []
        start = self.peek().pos
        while self.peek().type != ItemType.EOF:
            if self.peek().type == ItemType.LEFT_DELIM:
                delim = self.next()
                if self.next_non_space().type == ItemType.DEFINE:
                    yield _Tree("definition", self.shared).parse_definition()
                    continue
                self.backup2(delim)
            node = yield self.text_or_action()
            if isinstance(node, _End | _Else):
                raise self.error("unexpected %s", _marker(node))
            nodes.append(node)
        self.add(ast.ListNode(self.at(start), tuple(nodes)))

    def parse_definition(self) -> Call[None]:
        context = "define clause"
        token = self.next_non_space()
        if token.type not in (ItemType.STRING, ItemType.RAW_STRING):
            raise self.unexpected(token, context)
        self.name = self.unquote(token.val)
        self.expect(ItemType.RIGHT_DELIM, context)
        root, end = yield self.item_list()
        if not isinstance(end, _End):
            raise self.error("unexpected %s in %s", _marker(end), context)
        self.add(root)

    def item_list(self) -> Call[tuple[ast.ListNode, ast.Node]]:
        start = self.peek_non_space().pos
        nodes: list[ast.Node] = []
        while self.peek_non_space().type != ItemType.EOF:
            node = yield self.text_or_action()
            if isinstance(node, _End | _Else):
                return ast.ListNode(self.at(start), tuple(nodes)), node
            nodes.append(node)
        raise self.error("unexpected EOF")

    def text_or_action(self) -> Call[ast.Node]:
        token = self.next_non_space()
        if token.type == ItemType.TEXT:
            return ast.TextNode(self.at(token.pos), token.val)
        if token.type == ItemType.LEFT_DELIM:
            self.action_line = token.line
            try:
                node: ast.Node = yield self.action()
            finally:
                self.action_line = 0
            return node
        if token.type == ItemType.COMMENT:
            return ast.CommentNode(self.at(token.pos), token.val)
        raise self.unexpected(token, "input")

    # --- actions -----------------------------------------------------------------

    def action(self) -> Call[ast.Node]:
        token = self.next_non_space()
        kind = token.type
        if kind == ItemType.BLOCK:
            block: ast.Node = yield self.block_control()
            return block
        if kind in (ItemType.BREAK, ItemType.CONTINUE):
            return self.loop_control(token)
        if kind == ItemType.ELSE:
            return self.else_control()
        if kind == ItemType.END:
            return _End(self.at(self.expect(ItemType.RIGHT_DELIM, "end").pos))
        if kind in (ItemType.IF, ItemType.RANGE, ItemType.WITH):
            branch: ast.Node = yield self.branch_control(token.val)
            return branch
        if kind == ItemType.TEMPLATE:
            call: ast.Node = yield self.template_control()
            return call
        self.backup()
        first = self.peek()
        pipe = yield self.pipeline("command", ItemType.RIGHT_DELIM)
        return ast.ActionNode(self.at(first.pos), pipe)

    def loop_control(self, keyword: Item) -> ast.Node:
        token = self.next_non_space()
        if token.type != ItemType.RIGHT_DELIM:
            raise self.unexpected(token, "{{" + keyword.val + "}}")
        if self.range_depth == 0:
            raise self.error("{{" + keyword.val + "}} outside {{range}}")
        node_type = ast.BreakNode if keyword.type == ItemType.BREAK else ast.ContinueNode
        return node_type(self.at(keyword.pos))

    def else_control(self) -> ast.Node:
        peeked = self.peek_non_space()
        if peeked.type in (ItemType.IF, ItemType.WITH):
            return _Else(self.at(peeked.pos))
        return _Else(self.at(self.expect(ItemType.RIGHT_DELIM, "else").pos))

    def branch_control(self, context: str) -> Call[ast.Node]:
        saved_vars = len(self.vars)
        try:
            pipe: ast.PipeNode = yield self.pipeline(context, ItemType.RIGHT_DELIM)
            if context == "range":
                self.range_depth += 1
            body, follower = yield self.item_list()
            if context == "range":
                self.range_depth -= 1
            else_list = None
            if isinstance(follower, _Else):
                else_list = yield self.else_branch(context, follower)
        finally:
            del self.vars[saved_vars:]
        node_type = {"if": ast.IfNode, "range": ast.RangeNode, "with": ast.WithNode}[context]
        return node_type(pipe.pos, pipe, body, else_list)

    def else_branch(self, context: str, else_node: ast.Node) -> Call[ast.ListNode]:
        keyword = {"if": ItemType.IF, "with": ItemType.WITH}.get(context)
        if keyword is not None and self.peek().type == keyword:
            self.next()
            nested = yield self.branch_control(context)
            return ast.ListNode(else_node.pos, (nested,))
        else_list, follower = yield self.item_list()
        if not isinstance(follower, _End):
            raise self.error("expected end; found %s", _marker(follower))
        return else_list  # type: ignore[no-any-return]

    def block_control(self) -> Call[ast.Node]:
        context = "block clause"
        token = self.next_non_space()
        name = self.template_name(token, context)
        pipe = yield self.pipeline(context, ItemType.RIGHT_DELIM)
        block = _Tree(name, self.shared)
        root, end = yield block.item_list()
        if not isinstance(end, _End):
            raise self.error("unexpected %s in %s", _marker(end), context)
        block.add(root)
        return ast.TemplateNode(self.at(token.pos), name, pipe)

    def template_control(self) -> Call[ast.Node]:
        context = "template clause"
        token = self.next_non_space()
        name = self.template_name(token, context)
        pipe = None
        if self.next_non_space().type != ItemType.RIGHT_DELIM:
            self.backup()
            pipe = yield self.pipeline(context, ItemType.RIGHT_DELIM)
        return ast.TemplateNode(self.at(token.pos), name, pipe)

    def template_name(self, token: Item, context: str) -> str:
        if token.type not in (ItemType.STRING, ItemType.RAW_STRING):
            raise self.unexpected(token, context)
        return self.unquote(token.val)

    def unquote(self, text: str) -> str:
        try:
            return unquote(text)
        except UnquoteError as error:
            raise self.error("%s", str(error)) from None

    # --- pipelines ---------------------------------------------------------------

    def pipeline(self, context: str, end: ItemType) -> Call[ast.PipeNode]:
        first = self.peek_non_space()
        is_assign, decl = self.declarations(context)
        cmds: list[ast.CommandNode] = []
        while True:
            token = self.next_non_space()
            if token.type == end:
                pipe = ast.PipeNode(self.at(first.pos), is_assign, tuple(decl), tuple(cmds))
                self.check_pipeline(pipe, context)
                return pipe
            if token.type not in _OPERAND_STARTS:
                raise self.unexpected(token, context)
            self.backup()
            cmds.append((yield self.command()))
            if len(cmds) > MAX_PIPELINE_COMMANDS:
                raise self.error("pipeline too long")

    def declarations(self, context: str) -> tuple[bool, list[ast.VariableNode]]:
        is_assign = False
        decl: list[ast.VariableNode] = []
        while True:
            variable = self.peek_non_space()
            if variable.type != ItemType.VARIABLE:
                return is_assign, decl
            self.next()
            after_variable = self.peek()
            following = self.peek_non_space()
            if following.type in (ItemType.ASSIGN, ItemType.DECLARE):
                is_assign = following.type == ItemType.ASSIGN
                self.next_non_space()
                decl.append(self.variable(variable.pos, variable.val))
                self.vars.append(variable.val)
                return is_assign, decl
            if following.type == ItemType.CHAR and following.val == ",":
                self.next_non_space()
                decl.append(self.variable(variable.pos, variable.val))
                self.vars.append(variable.val)
                if context == "range" and len(decl) < 2:
                    if self.peek_non_space().type in (
                        ItemType.VARIABLE,
                        ItemType.RIGHT_DELIM,
                        ItemType.RIGHT_PAREN,
                    ):
                        continue
                    raise self.error("range can only initialize variables")
                raise self.error("too many declarations in %s", context)
            if after_variable.type == ItemType.SPACE:
                self.backup3(variable, after_variable)
            else:
                self.backup2(variable)
            return is_assign, decl

    def check_pipeline(self, pipe: ast.PipeNode, context: str) -> None:
        if not pipe.cmds:
            raise self.error("missing value for %s", context)
        literal = (ast.BoolNode, ast.DotNode, ast.NilNode, ast.NumberNode, ast.StringNode)
        for stage, command in enumerate(pipe.cmds[1:], start=2):
            if isinstance(command.args[0], literal):
                raise self.error("non executable command in pipeline stage %d", stage)

    def command(self) -> Call[ast.CommandNode]:
        start = self.peek_non_space().pos
        args: list[ast.Node] = []
        while True:
            self.peek_non_space()
            operand = yield self.operand()
            if operand is not None:
                args.append(operand)
            token = self.next()
            if token.type == ItemType.SPACE:
                continue
            if token.type in (ItemType.RIGHT_DELIM, ItemType.RIGHT_PAREN):
                self.backup()
            elif token.type != ItemType.PIPE:
                raise self.unexpected(token, "operand")
            break
        if not args:
            raise self.error("empty command")
        return ast.CommandNode(self.at(start), tuple(args))

    def operand(self) -> Call[ast.Node | None]:
        node = yield self.term()
        if node is None or self.peek().type != ItemType.FIELD:
            return node  # type: ignore[no-any-return]
        chain_pos = self.at(self.peek().pos)
        fields: list[str] = []
        while self.peek().type == ItemType.FIELD:
            fields.append(self.next().val[1:])
        if isinstance(node, ast.FieldNode):
            return ast.FieldNode(chain_pos, (*node.ident, *fields))
        if isinstance(node, ast.VariableNode):
            return ast.VariableNode(chain_pos, (*node.ident, *fields))
        if isinstance(node, _LITERALS):
            raise self.error("unexpected . after term %q", _literal_text(node))
        return ast.ChainNode(chain_pos, node, tuple(fields))

    def term(self) -> Call[ast.Node | None]:
        token = self.next_non_space()
        if token.type != ItemType.LEFT_PAREN:
            return self.simple_term(token)
        if self.paren_depth >= MAX_PAREN_DEPTH:
            raise self.error("max expression depth exceeded")
        self.paren_depth += 1
        try:
            pipe: ast.PipeNode = yield self.pipeline("parenthesized pipeline", ItemType.RIGHT_PAREN)
            return pipe
        finally:
            self.paren_depth -= 1

    def simple_term(self, token: Item) -> ast.Node | None:
        kind, pos = token.type, self.at(token.pos)
        if kind == ItemType.IDENTIFIER:
            if token.val not in FUNCTIONS:
                raise self.error("function %q not defined", token.val)
            return ast.IdentifierNode(pos, token.val)
        if kind == ItemType.DOT:
            return ast.DotNode(pos)
        if kind == ItemType.NIL:
            return ast.NilNode(pos)
        if kind == ItemType.VARIABLE:
            return self.use_variable(pos, token.val)
        if kind == ItemType.FIELD:
            return ast.FieldNode(pos, tuple(token.val[1:].split(".")))
        if kind == ItemType.BOOL:
            return ast.BoolNode(pos, token.val == "true")
        if kind in (ItemType.CHAR_CONSTANT, ItemType.COMPLEX, ItemType.NUMBER):
            return self.number(pos, token)
        if kind in (ItemType.STRING, ItemType.RAW_STRING):
            return ast.StringNode(pos, token.val, self.unquote(token.val))
        self.backup()
        return None

    def number(self, pos: ast.Position, token: Item) -> ast.NumberNode:
        try:
            if token.type == ItemType.CHAR_CONSTANT:
                value: NumberValue = character_constant(token.val)
            elif token.type == ItemType.COMPLEX:
                value = complex_constant(token.val)
            else:
                value = number_constant(token.val)
        except NumberSyntaxError as error:
            raise self.error("%s", str(error)) from None
        return ast.NumberNode(
            pos,
            token.val,
            value.is_int,
            value.is_uint,
            value.is_float,
            value.is_complex,
            value.int_value,
            value.uint_value,
            value.float_value,
            value.complex_value,
        )

    def variable(self, pos: int, name: str) -> ast.VariableNode:
        return ast.VariableNode(self.at(pos), tuple(name.split(".")))

    def use_variable(self, pos: ast.Position, name: str) -> ast.VariableNode:
        node = ast.VariableNode(pos, tuple(name.split(".")))
        if node.ident[0] not in self.vars:
            raise self.error("undefined variable %q", node.ident[0])
        return node


def parse_template(text: str, name: str) -> Template:
    """Parse ``text`` as ``template.New(name).Funcs(vMCP funcs).Parse(text)`` does."""
    shared = _Shared(text, name)
    run(_Tree(name, shared).parse())
    return Template(name=name, source=text, root=shared.trees[name], trees=dict(shared.trees))
