"""The parse tree of a Go text/template, node for node as ``text/template/parse``.

Nodes are frozen and compare by identity (a deep tree never gets compared or
hashed recursively). Every node has a :class:`Position`. Use
:func:`transpiler.gotemplate.printer.node_text` for Go's ``String()`` form.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Position:
    """Where a node starts: byte offset, 1-based line, 0-based byte column.

    The column is what Go prints in execution errors (``expand:1:2``).
    """

    offset: int
    line: int
    column: int


@dataclass(frozen=True, eq=False, repr=False)
class Node:
    """Base of every node."""

    pos: Position

    def __repr__(self) -> str:
        return f"{type(self).__name__}@{self.pos.line}:{self.pos.column}"


@dataclass(frozen=True, eq=False, repr=False)
class ListNode(Node):
    """A sequence of nodes."""

    nodes: tuple[Node, ...]


@dataclass(frozen=True, eq=False, repr=False)
class TextNode(Node):
    """Plain text, copied to the output."""

    text: str


@dataclass(frozen=True, eq=False, repr=False)
class CommentNode(Node):
    """A ``{{/* comment */}}``, kept only when asked for."""

    text: str


@dataclass(frozen=True, eq=False, repr=False)
class IdentifierNode(Node):
    """A function name."""

    ident: str


@dataclass(frozen=True, eq=False, repr=False)
class VariableNode(Node):
    """``$``, ``$x`` or ``$x.a.b``: the variable name then fields."""

    ident: tuple[str, ...]


@dataclass(frozen=True, eq=False, repr=False)
class DotNode(Node):
    """The cursor ``.``."""


@dataclass(frozen=True, eq=False, repr=False)
class NilNode(Node):
    """The untyped ``nil``."""


@dataclass(frozen=True, eq=False, repr=False)
class FieldNode(Node):
    """``.a.b``: field names without dots."""

    ident: tuple[str, ...]


@dataclass(frozen=True, eq=False, repr=False)
class BoolNode(Node):
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True, eq=False, repr=False)
class NumberNode(Node):
    """A number or character constant, held under every type it fits."""

    text: str
    is_int: bool
    is_uint: bool
    is_float: bool
    is_complex: bool
    int_value: int
    uint_value: int
    float_value: float
    complex_value: complex


@dataclass(frozen=True, eq=False, repr=False)
class StringNode(Node):
    """A string constant: as written, and unquoted."""

    quoted: str
    text: str


@dataclass(frozen=True, eq=False, repr=False)
class CommandNode(Node):
    """One command of a pipeline: its operands in order."""

    args: tuple[Node, ...]


@dataclass(frozen=True, eq=False, repr=False)
class PipeNode(Node):
    """``$x := cmd | cmd``: declared (or assigned) variables and commands."""

    is_assign: bool
    decl: tuple[VariableNode, ...]
    cmds: tuple[CommandNode, ...]


@dataclass(frozen=True, eq=False, repr=False)
class ChainNode(Node):
    """``(pipeline).a.b`` or another term followed by fields."""

    node: Node
    field: tuple[str, ...]


@dataclass(frozen=True, eq=False, repr=False)
class ActionNode(Node):
    """``{{pipeline}}``: evaluate and print (unless it declares variables)."""

    pipe: PipeNode


@dataclass(frozen=True, eq=False, repr=False)
class BranchNode(Node):
    """Common shape of ``if``, ``range`` and ``with``."""

    pipe: PipeNode
    list: ListNode
    else_list: ListNode | None


@dataclass(frozen=True, eq=False, repr=False)
class IfNode(BranchNode):
    """``{{if}}``."""


@dataclass(frozen=True, eq=False, repr=False)
class RangeNode(BranchNode):
    """``{{range}}``."""


@dataclass(frozen=True, eq=False, repr=False)
class WithNode(BranchNode):
    """``{{with}}``."""


@dataclass(frozen=True, eq=False, repr=False)
class BreakNode(Node):
    """``{{break}}``."""


@dataclass(frozen=True, eq=False, repr=False)
class ContinueNode(Node):
    """``{{continue}}``."""


@dataclass(frozen=True, eq=False, repr=False)
class TemplateNode(Node):
    """``{{template "name" pipeline}}`` (also what ``{{block}}`` leaves in place)."""

    name: str
    pipe: PipeNode | None


def lone_action(root: ListNode) -> ActionNode | None:
    """The one action a template is, comments aside (what it prints is its whole text), or
    None."""
    nodes = [n for n in root.nodes if not isinstance(n, CommentNode)]
    if len(nodes) == 1 and isinstance(nodes[0], ActionNode) and not nodes[0].pipe.decl:
        return nodes[0]
    return None
