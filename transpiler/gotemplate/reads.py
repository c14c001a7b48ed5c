"""Which context paths a template may read (for dataflow), found statically.

Unlike :func:`~transpiler.gotemplate.refs.extract_references` (vMCP's own,
narrower check), this follows the value flow:

- field chains from dot, from ``$`` and from variables bound to context paths
  (``{{$s := .steps.fetch}}{{$s.output.x}}``), through ``with`` and ``range``
  (inside ``range P`` dot is some element of ``P``) and into
  ``{{template}}`` calls;
- through functions as their row's :class:`~transpiler.gotemplate.functions.Flow`
  says: a keyed one (``index``) with constant string keys (``index .steps
  "my-step" "output"`` reads ``steps.my-step.output``), where a key known only
  at run time (``index .steps .params.x``) reads the whole subtree: ``steps``,
  marked ``dynamic``; one whose result lies within its first operand
  (``slice``) or is one of its operands (``and``, ``or``).

A read of a path means the value there, and anything under it, may be
observed (printed, compared, tested, passed to a function, iterated). Paths
are as deep as the template spells them; traversing through a value without
observing it (``.a`` in ``.a.b``) is not a read of ``a``.
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.gotemplate import ast
from transpiler.gotemplate.functions import FUNCTIONS, Flow
from transpiler.gotemplate.parser import Template
from transpiler.gotemplate.trampoline import Call, run

_MAX_LOOP_PASSES = 8


@dataclass(frozen=True, order=True)
class ContextRead:
    """A context path the template may read, e.g. ``("steps", "fetch", "output")``.

    ``dynamic`` is set when the key after ``path`` is only known at run time,
    so any part of the subtree at ``path`` may be read.
    """

    path: tuple[str, ...]
    dynamic: bool = False


@dataclass(frozen=True)
class _Origin:
    """Where a value may come from: a context path, exact or "somewhere under"."""

    path: tuple[str, ...]
    exact: bool = True


_Origins = frozenset[_Origin]
_NONE: _Origins = frozenset()
_ROOT: _Origins = frozenset({_Origin(())})


def _extend(origins: _Origins, fields: tuple[str, ...]) -> _Origins:
    return frozenset(_Origin(o.path + fields) if o.exact else o for o in origins)


def _under(origins: _Origins) -> _Origins:
    return frozenset(_Origin(o.path, exact=False) for o in origins)


class _Variables:
    """The variables in scope: name and where its value may come from."""

    def __init__(self, entries: list[list[object]]) -> None:
        self.entries = entries

    def mark(self) -> int:
        return len(self.entries)

    def pop(self, mark: int) -> None:
        del self.entries[mark:]

    def declare(self, name: str, origins: _Origins) -> None:
        self.entries.append([name, origins])

    def assign(self, name: str, origins: _Origins) -> None:
        for entry in reversed(self.entries):
            if entry[0] == name:
                entry[1] = origins | self._origins(entry)
                return

    def lookup(self, name: str) -> _Origins:
        for entry in reversed(self.entries):
            if entry[0] == name:
                return self._origins(entry)
        return _NONE

    def snapshot(self) -> list[_Origins]:
        return [self._origins(entry) for entry in self.entries]

    @staticmethod
    def _origins(entry: list[object]) -> _Origins:
        value = entry[1]
        assert isinstance(value, frozenset)
        return value


class _Analyzer:
    """Walks a template's trees, tracking where dot and each variable come from."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.found: set[ContextRead] = set()
        self.called: set[tuple[str, _Origins]] = set()

    def observe(self, origins: _Origins) -> None:
        for origin in origins:
            self.found.add(ContextRead(origin.path, dynamic=not origin.exact))

    def walk(self, node: ast.Node, dot: _Origins, env: _Variables) -> Call[None]:
        if isinstance(node, ast.ListNode):
            for child in node.nodes:
                yield self.walk(child, dot, env)
        elif isinstance(node, ast.ActionNode):
            origins = yield self.pipeline(node.pipe, dot, env)
            if not node.pipe.decl:
                self.observe(origins)
        elif isinstance(node, ast.IfNode | ast.WithNode):
            mark = env.mark()
            origins = yield self.pipeline(node.pipe, dot, env)
            self.observe(origins)
            body_dot = origins if isinstance(node, ast.WithNode) else dot
            yield self.walk(node.list, body_dot, env)
            if node.else_list is not None:
                yield self.walk(node.else_list, dot, env)
            env.pop(mark)
        elif isinstance(node, ast.RangeNode):
            yield self.walk_range(node, dot, env)
        elif isinstance(node, ast.TemplateNode):
            yield self.walk_template(node, dot, env)

    def walk_range(self, node: ast.RangeNode, dot: _Origins, env: _Variables) -> Call[None]:
        mark = env.mark()
        origins = yield self.pipeline(node.pipe, dot, env)
        self.observe(origins)
        elements = _under(origins)
        decl = node.pipe.decl
        if decl and not node.pipe.is_assign:
            env.entries[-1][1] = elements
            if len(decl) > 1:
                env.entries[-2][1] = _NONE
        elif decl:
            env.assign(decl[-1].ident[0], elements)
        for _ in range(_MAX_LOOP_PASSES):
            before = env.snapshot()
            body_mark = env.mark()
            yield self.walk(node.list, elements, env)
            env.pop(body_mark)
            if env.snapshot() == before:
                break
        if node.else_list is not None:
            yield self.walk(node.else_list, dot, env)
        env.pop(mark)

    def walk_template(self, node: ast.TemplateNode, dot: _Origins, env: _Variables) -> Call[None]:
        origins = _NONE
        if node.pipe is not None:
            origins = yield self.pipeline(node.pipe, dot, env)
        tree = self.template.trees.get(node.name)
        if tree is None or (node.name, origins) in self.called:
            return
        self.called.add((node.name, origins))
        yield self.walk(tree, origins, _Variables([["$", origins]]))

    def pipeline(self, pipe: ast.PipeNode, dot: _Origins, env: _Variables) -> Call[_Origins]:
        origins: _Origins | None = None
        for command in pipe.cmds:
            origins = yield self.command(command, dot, env, origins)
        result = origins or _NONE
        for variable in pipe.decl:
            if pipe.is_assign:
                env.assign(variable.ident[0], result)
            else:
                env.declare(variable.ident[0], result)
        return result

    def command(
        self, command: ast.CommandNode, dot: _Origins, env: _Variables, final: _Origins | None
    ) -> Call[_Origins]:
        first = command.args[0]
        if not isinstance(first, ast.IdentifierNode):
            value: _Origins = yield self.operand(first, dot, env)
            return value
        operands = command.args[1:]
        flow = FUNCTIONS[first.ident].flow
        if flow is Flow.KEYED and operands:
            indexed: _Origins = yield self.index(operands, final, dot, env)
            return indexed
        values: list[_Origins] = []
        for operand in operands:
            values.append((yield self.operand(operand, dot, env)))
        if final is not None:
            values.append(final)
        if flow is Flow.WITHIN and values:
            for value in values[1:]:
                self.observe(value)
            return _under(values[0])
        for value in values:
            self.observe(value)
        if flow is Flow.CHOSEN:
            return frozenset().union(*values)
        return _NONE

    def index(
        self,
        operands: tuple[ast.Node, ...],
        final: _Origins | None,
        dot: _Origins,
        env: _Variables,
    ) -> Call[_Origins]:
        collection = yield self.operand(operands[0], dot, env)
        keys: list[str | None] = []
        for operand in operands[1:]:
            self.observe((yield self.operand(operand, dot, env)))
            keys.append(operand.text if isinstance(operand, ast.StringNode) else None)
        if final is not None:
            self.observe(final)
            keys.append(None)
        constant: list[str] = []
        for key in keys:
            if key is None:
                return _under(_extend(collection, tuple(constant)))
            constant.append(key)
        return _extend(collection, tuple(constant))

    def operand(self, node: ast.Node, dot: _Origins, env: _Variables) -> Call[_Origins]:
        if isinstance(node, ast.FieldNode):
            return _extend(dot, node.ident)
        if isinstance(node, ast.DotNode):
            return dot
        if isinstance(node, ast.VariableNode):
            return _extend(env.lookup(node.ident[0]), node.ident[1:])
        if isinstance(node, ast.ChainNode):
            inner = yield self.operand(node.node, dot, env)
            return _extend(inner, node.field)
        if isinstance(node, ast.PipeNode):
            piped: _Origins = yield self.pipeline(node, dot, env)
            return piped
        if isinstance(node, ast.IdentifierNode):
            called: _Origins = yield self.command(
                ast.CommandNode(node.pos, (node,)), dot, env, None
            )
            return called
        return _NONE


def reads(template: Template) -> frozenset[ContextRead]:
    """Every context path ``template`` may read (see the module docstring)."""
    analyzer = _Analyzer(template)
    run(analyzer.walk(template.root, _ROOT, _Variables([["$", _ROOT]])))
    return frozenset(analyzer.found)
