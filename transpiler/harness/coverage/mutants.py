"""Mutants of a script: its own code with one deliberate slip each, for the gate to catch.

The operators read the script's own top-level definitions (``run()`` and the
defs beside it; never the helpers of ``vmcp_compat.star``, loaded or pasted
in) through Python's ``ast`` (the Starlark we check is Python syntax) and
enumerate their sites in source order. Each mutant is the script with text
replaced at exact offsets, so everything else, its header comments included,
stays byte for byte as it was. A mutant that does not parse, equals the
script or equals an earlier mutant is left out.

A *tool call* is a call of ``call_tool`` or ``try_call_tool``, or of a
function (of the script or of a module it loads) that hands its own
parameters on to one as the tool and its arguments (``call_or(tool,
arguments, default)``, ``vmcp_call(step, tool, args)``). Its *argument dict*
is the dict literal it is given, directly, inside a call that wraps it, or
through a name the same definition binds to one.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeGuard

from transpiler.emit.library import helper_library
from transpiler.emit.subset import parse_script

#: (start, end, replacement): character offsets into the script.
Edit = tuple[int, int, str]

_DIRECT_CALLERS = {"call_tool": (0, 1), "try_call_tool": (0, 1)}
_COMPARISON_FLIPS: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Lt: ("<", ">="),
    ast.GtE: (">=", "<"),
    ast.Gt: (">", "<="),
    ast.LtE: ("<=", ">"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
}
_BREAK = re.compile(r"\r\n|\r|\n")
#: The delay a ``retry-delay`` mutant gives ``retry``.
_SHORT_DELAY = '"1ms"'
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Dict)


@dataclass(frozen=True)
class Mutant:
    """One mutant: the operator, the first line it changes, that stretch of the script before
    and after, and the whole mutated text."""

    operator: str
    line: int
    original: str
    mutated: str
    text: str


def mutants(script: str, modules: Mapping[str, str] | None = None) -> list[Mutant]:
    """Every mutant of ``script``, operator by operator (:data:`OPERATORS`), each in source
    order. ``modules`` are those it may load (their defs can make tool calls). Raises
    SyntaxError or ValueError when the script itself does not parse."""
    parsed = _Script(script, modules or {})
    seen = {script}
    found: list[Mutant] = []
    for operator, sites in OPERATORS.items():
        for edits in sites(parsed):
            mutant = parsed.mutant(operator, edits)
            if mutant is not None and mutant.text not in seen:
                seen.add(mutant.text)
                found.append(mutant)
    return found


class _Script:
    """The script's text, its own definitions and what the operators look for in them."""

    def __init__(self, text: str, modules: Mapping[str, str]) -> None:
        self.text = text
        self.starts = [0, *(match.end() for match in _BREAK.finditer(text))]
        tree = parse_script(text)
        definitions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
        helpers = helper_library().definitions
        self.own = [node for node in definitions if node.name not in helpers]
        self.parents = {
            child: parent
            for definition in self.own
            for parent in ast.walk(definition)
            for child in ast.iter_child_nodes(parent)
        }
        walked = [node for definition in self.own for node in ast.walk(definition)]
        placed = [node for node in walked if hasattr(node, "end_col_offset")]
        self.nodes = sorted(placed, key=lambda node: (self.start(node), -self.end(node)))
        self.callers = _tool_callers([*definitions, *_module_definitions(modules)])
        self.tool_calls = [
            node
            for node in self.nodes
            if isinstance(node, ast.Call) and self._positions(node) is not None
        ]
        self.argument_dicts = _unique(
            found for call in self.tool_calls for found in self._argument_dicts(call)
        )
        self.tool_names = [name for call in self.tool_calls if (name := self.tool_name(call))]
        values = [v for d in self.argument_dicts for v in d.values]
        self.argument_literals = [c for value in values for c in _literal_parts(value)]
        self.get_defaults = [node.args[1] for node in self.nodes if _is_get(node)]
        claimed: list[ast.AST | None] = [*self.argument_literals, *self.tool_names]
        claimed += self.get_defaults
        claimed += [key for d in self.argument_dicts for key in d.keys if key is not None]
        claimed += [_docstring(node) for node in self.nodes]
        self.claimed = {id(node) for node in claimed if node is not None}

    def start(self, node: ast.AST) -> int:
        """The offset where ``node`` starts."""
        return self._offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        """The offset just past ``node``."""
        return self._offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        """``node``'s source text."""
        return self.text[self.start(node) : self.end(node)]

    def _offset(self, line: int, column: int) -> int:
        """The character offset of ``column`` (UTF-8 bytes, as ``ast`` counts) on ``line``."""
        begin = self.starts[line - 1]
        text = self.text[begin : begin + column]
        if not text.isascii():
            end = self.starts[line] if line < len(self.starts) else len(self.text)
            text = self.text[begin:end].encode()[:column].decode()
        return begin + len(text)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def mutant(self, operator: str, edits: list[Edit]) -> Mutant | None:
        """The script with ``edits`` made, None if that does not parse or changes nothing."""
        text = self.text
        for begin, end, replacement in sorted(edits, reverse=True):
            text = text[:begin] + replacement + text[end:]
        if text == self.text:
            return None
        try:
            parse_script(text)
        except (SyntaxError, ValueError):
            return None
        first = self.line_of(min(begin for begin, _, _ in edits))
        last = self.line_of(max(max(begin, end - 1) for begin, end, _ in edits))
        before = _BREAK.split(self.text)
        after = _BREAK.split(text)
        shift = len(after) - len(before)
        original = "\n".join(before[first - 1 : last])
        return Mutant(operator, first, original, "\n".join(after[first - 1 : last + shift]), text)

    def tool_name(self, call: ast.Call) -> ast.Constant | None:
        """The tool a tool call names, when it is a string literal."""
        positions = self._positions(call)
        assert positions is not None
        named = call.args[positions[0]]
        return named if _is_text(named) else None

    def _positions(self, node: ast.AST) -> tuple[int, int] | None:
        """Where a tool call's tool and arguments are; None if ``node`` is not a tool call."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        positions = self.callers.get(node.func.id)
        if positions is None or len(node.args) <= max(positions):
            return None
        return positions

    def _argument_dicts(self, call: ast.Call) -> Iterator[ast.Dict]:
        """The dict literals a tool call is given as its arguments (see the module's
        docstring)."""
        positions = self._positions(call)
        assert positions is not None
        given = call.args[positions[1]]
        if isinstance(given, ast.Dict):
            yield given
        elif isinstance(given, ast.Call):
            yield from (a for a in given.args if isinstance(a, ast.Dict))
        elif isinstance(given, ast.Name):
            for node in ast.walk(self._definition_of(call)):
                if (
                    isinstance(node, ast.Assign)
                    and [_name(t) for t in node.targets] == [given.id]
                    and isinstance(node.value, ast.Dict)
                ):
                    yield node.value

    def _definition_of(self, node: ast.AST) -> ast.AST:
        """The top-level definition holding ``node``."""
        while (parent := self.parents.get(node)) is not None:
            node = parent
        return node

    def indentation(self, statement: ast.stmt) -> str | None:
        """The whitespace before ``statement`` on its line; None if code comes first."""
        begin = self.start(statement)
        before = self.text[self.starts[self.line_of(begin) - 1] : begin]
        return before if not before.strip() else None

    def contains_tool_call(self, node: ast.AST) -> bool:
        """Whether ``node`` is or holds a tool call."""
        return any(self._positions(inner) is not None for inner in ast.walk(node))


def _tool_callers(definitions: Iterable[ast.FunctionDef]) -> dict[str, tuple[int, int]]:
    """``call_tool``, ``try_call_tool`` and every definition that hands its parameters on to
    a tool call: the position of the tool and of the arguments in each."""
    callers = dict(_DIRECT_CALLERS)
    pending = list(definitions)
    while found := [(d.name, p) for d in pending if (p := _forwarded(d, callers)) is not None]:
        callers.update(found)
        pending = [d for d in pending if d.name not in callers]
    return callers


def _forwarded(
    definition: ast.FunctionDef, callers: Mapping[str, tuple[int, int]]
) -> tuple[int, int] | None:
    """The positions of the parameters ``definition`` passes to a tool call as its tool and
    arguments, if it does."""
    parameters = [a.arg for a in (*definition.args.posonlyargs, *definition.args.args)]
    for node in ast.walk(definition):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        positions = callers.get(node.func.id)
        if positions is None or len(node.args) <= max(positions):
            continue
        tool, arguments = (_name(node.args[at]) for at in positions)
        if tool in parameters and arguments in parameters:
            return parameters.index(tool), parameters.index(arguments)
    return None


def _module_definitions(modules: Mapping[str, str]) -> list[ast.FunctionDef]:
    """The top-level defs of every module that parses."""
    found: list[ast.FunctionDef] = []
    for name in sorted(modules):
        try:
            tree = parse_script(modules[name])
        except (SyntaxError, ValueError):
            continue
        found += [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    return found


def _name(node: ast.AST) -> str | None:
    """The identifier, if ``node`` is a plain name."""
    return node.id if isinstance(node, ast.Name) else None


def _unique(nodes: Iterable[ast.Dict]) -> list[ast.Dict]:
    """``nodes`` without repeats, in their first order."""
    return list({id(node): node for node in nodes}.values())


def _literal_parts(node: ast.expr) -> Iterator[ast.Constant]:
    """The literals that make up a value: through lists, tuples, dict values, operators and
    conditional expressions, not into calls, subscripts or attributes."""
    if isinstance(node, ast.Constant):
        yield node
    elif isinstance(node, ast.List | ast.Tuple):
        for element in node.elts:
            yield from _literal_parts(element)
    elif isinstance(node, ast.Dict):
        for value in node.values:
            yield from _literal_parts(value)
    elif isinstance(node, ast.BinOp):
        yield from _literal_parts(node.left)
        yield from _literal_parts(node.right)
    elif isinstance(node, ast.IfExp):
        yield from _literal_parts(node.body)
        yield from _literal_parts(node.orelse)


def _is_text(node: ast.AST) -> TypeGuard[ast.Constant]:
    """A string literal."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_get(node: ast.AST) -> TypeGuard[ast.Call]:
    """``x.get(key, default)``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and len(node.args) == 2
    )


def _calls_of(script: _Script, name: str) -> Iterator[ast.Call]:
    """The calls of ``name`` in the script's own code, in source order."""
    for node in script.nodes:
        if isinstance(node, ast.Call) and _name(node.func) == name:
            yield node


def _docstring(node: ast.AST) -> ast.AST | None:
    """A definition's docstring (a literal no mutant changes)."""
    if isinstance(node, ast.FunctionDef) and node.body:
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            return first.value
    return None


def _appended(script: _Script, literal: ast.Constant, suffix: str) -> Edit:
    """``suffix`` written at the end of a string literal, inside its closing quote."""
    end = script.end(literal)
    quote = 3 if script.text[end - 3 : end] in ('"""', "'''") else 1
    return end - quote, end - quote, suffix


def _changed_constant(script: _Script, literal: ast.Constant) -> Edit:
    """A string with "x" added, a boolean negated, a number plus one, None as ``""``."""
    value = literal.value
    if isinstance(value, str):
        return _appended(script, literal, "x")
    begin, end = script.start(literal), script.end(literal)
    if isinstance(value, bool):
        return begin, end, str(not value)
    if isinstance(value, int | float):
        return begin, end, str(value + 1)
    return begin, end, '""'


def _off_by(script: _Script, node: ast.expr, step: int) -> Edit:
    """``node`` plus ``step`` (an integer literal is given its new value)."""
    begin, end = script.start(node), script.end(node)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return begin, end, str(node.value + step)
    text = script.segment(node)
    text = text if isinstance(node, _ATOMS) else f"({text})"
    return begin, end, f"{text} {'+' if step > 0 else '-'} {abs(step)}"


def _swapped(script: _Script, first: ast.AST, second: ast.AST) -> list[Edit]:
    """The texts of two nodes exchanged."""
    return [
        (script.start(first), script.end(first), script.segment(second)),
        (script.start(second), script.end(second), script.segment(first)),
    ]


def _argument_values(script: _Script) -> Iterator[list[Edit]]:
    """A literal in a tool call's argument dict: a string emptied or given an "x", a boolean
    negated, an integer plus one."""
    for literal in script.argument_literals:
        if isinstance(literal.value, str) and literal.value:
            yield [(script.start(literal), script.end(literal), '""')]
        if isinstance(literal.value, str | bool | int):
            yield [_changed_constant(script, literal)]


def _argument_keys(script: _Script) -> Iterator[list[Edit]]:
    """A key of a tool call's argument dict renamed (``_x`` added), or its entry dropped."""
    for arguments in script.argument_dicts:
        entries = [(k, v) for k, v in zip(arguments.keys, arguments.values, strict=True) if k]
        for index, (key, value) in enumerate(entries):
            if _is_text(key):
                yield [_appended(script, key, "_x")]
            if len(entries) == 1:
                yield [(script.start(arguments) + 1, script.end(arguments) - 1, "")]
            elif index + 1 < len(entries):
                yield [(script.start(key), script.start(entries[index + 1][0]), "")]
            else:
                yield [(script.end(entries[index - 1][1]), script.end(value), "")]


def _literal_texts(script: _Script) -> Iterator[list[Edit]]:
    """Any other string literal (a result's key or value, a message, a field read) given an
    "x"."""
    for node in script.nodes:
        if _is_text(node) and id(node) not in script.claimed:
            yield [_appended(script, node, "x")]


def _conditions_negated(script: _Script) -> Iterator[list[Edit]]:
    """``if c:`` as ``if not (c):``, and the same for ``a if c else b``."""
    for node in script.nodes:
        if isinstance(node, ast.If | ast.IfExp):
            test = node.test
            yield [(script.start(test), script.end(test), f"not ({script.segment(test)})")]


def _comparisons_flipped(script: _Script) -> Iterator[list[Edit]]:
    """A comparison's operator turned into its opposite (``==``/``!=``, ``<``/``>=``,
    ``in``/``not in``, ...)."""
    for node in script.nodes:
        if not isinstance(node, ast.Compare):
            continue
        for left, operator, right in zip(
            [node.left, *node.comparators], node.ops, node.comparators, strict=False
        ):
            flip = _COMPARISON_FLIPS.get(type(operator))
            if flip is None:
                continue
            begin, end = script.end(left), script.start(right)
            gap = script.text[begin:end]
            found = re.search(r"\s*".join(flip[0].split()), gap)
            if found is None:
                continue
            rest = gap[: found.start()] + gap[found.end() :]
            if not rest.strip(" \t\r\n()"):
                yield [(begin + found.start(), begin + found.end(), flip[1])]


def _tool_calls_dropped(script: _Script) -> Iterator[list[Edit]]:
    """A tool call replaced by ``None``."""
    for call in script.tool_calls:
        yield [(script.start(call), script.end(call), "None")]


def _tool_calls_duplicated(script: _Script) -> Iterator[list[Edit]]:
    """A statement that makes a tool call written twice (a ``return``'s value made once more
    as a statement before it)."""
    for node in script.nodes:
        if not isinstance(node, ast.Expr | ast.Assign | ast.AugAssign | ast.Return):
            continue
        if node.value is None or not script.contains_tool_call(node.value):
            continue
        indentation = script.indentation(node)
        if indentation is not None:
            repeated = script.segment(node.value if isinstance(node, ast.Return) else node)
            begin = script.start(node)
            yield [(begin, begin, f"{repeated}\n{indentation}")]


def _tool_calls_retargeted(script: _Script) -> Iterator[list[Edit]]:
    """A tool call sent to the next other tool the script calls, or, when it calls only one,
    to that name with ``_x`` added."""
    literals: dict[str, str] = {}
    for named in script.tool_names:
        literals.setdefault(str(named.value), script.segment(named))
    names = list(literals)
    for named in script.tool_names:
        at = names.index(str(named.value))
        others = names[at + 1 :] + names[:at]
        if others:
            yield [(script.start(named), script.end(named), literals[others[0]])]
        else:
            yield [_appended(script, named, "_x")]


def _call_kinds_swapped(script: _Script) -> Iterator[list[Edit]]:
    """``call_tool`` as ``try_call_tool`` and the other way round."""
    swap = {"call_tool": "try_call_tool", "try_call_tool": "call_tool"}
    for call in script.tool_calls:
        name = _name(call.func)
        if name in swap:
            yield [(script.start(call.func), script.end(call.func), swap[name])]


def _retry_counts(script: _Script) -> Iterator[list[Edit]]:
    """An integer argument of ``retry(...)`` plus one, and minus one."""
    for call in _calls_of(script, "retry"):
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(argument, ast.Constant) and type(argument.value) is int:
                yield [_off_by(script, argument, 1)]
                yield [_off_by(script, argument, -1)]


def _retry_delays(script: _Script) -> Iterator[list[Edit]]:
    """``retry(...)``'s ``delay`` as a millisecond (given one where it had none, 1s): the
    backoff all but dropped."""
    for call in _calls_of(script, "retry"):
        given = [k.value for k in call.keywords if k.arg == "delay"] + call.args[2:3]
        if not given:
            last = [*call.args, *(k.value for k in call.keywords)]
            if last:
                end = script.end(last[-1])
                yield [(end, end, f", delay={_SHORT_DELAY}")]
        elif isinstance(given[0], ast.Constant) and given[0].value != _SHORT_DELAY[1:-1]:
            yield [(script.start(given[0]), script.end(given[0]), _SHORT_DELAY)]


def _parallel_sequential(script: _Script) -> Iterator[list[Edit]]:
    """``parallel(fns)`` as ``[fn() for fn in fns]``: the functions run one after the other."""
    for call in _calls_of(script, "parallel"):
        if len(call.args) == 1 and not call.keywords:
            functions = script.segment(call.args[0])
            yield [(script.start(call), script.end(call), f"[f() for f in {functions}]")]


def _get_defaults(script: _Script) -> Iterator[list[Edit]]:
    """The default of ``x.get(key, default)`` changed: a literal as :func:`_changed_constant`,
    anything else as ``None``."""
    for default in script.get_defaults:
        if isinstance(default, ast.Constant):
            yield [_changed_constant(script, default)]
        else:
            yield [(script.start(default), script.end(default), "None")]


def _parallel_orders(script: _Script) -> Iterator[list[Edit]]:
    """Two neighbouring functions given to ``parallel([...])`` swapped, or two neighbouring
    names its result is unpacked into."""
    for node in script.nodes:
        neighbours: list[ast.expr] = []
        if isinstance(node, ast.Assign) and _name_of_call(node.value) == "parallel":
            if isinstance(node.targets[0], ast.Tuple | ast.List) and len(node.targets) == 1:
                neighbours = node.targets[0].elts
        elif (
            isinstance(node, ast.Call)
            and _name(node.func) == "parallel"
            and node.args
            and isinstance(node.args[0], ast.List)
        ):
            neighbours = node.args[0].elts
        for first, second in itertools.pairwise(neighbours):
            yield _swapped(script, first, second)


def _name_of_call(node: ast.AST) -> str | None:
    """The name a call calls, if it calls a plain name."""
    return _name(node.func) if isinstance(node, ast.Call) else None


def _output_swaps(script: _Script) -> Iterator[list[Edit]]:
    """The values of two neighbouring keys swapped in a dict a ``return`` returns."""
    arguments = {id(d) for d in script.argument_dicts}
    for node in script.nodes:
        if not (isinstance(node, ast.Return) and node.value is not None):
            continue
        returned = sorted(
            (d for d in ast.walk(node.value) if isinstance(d, ast.Dict)), key=script.start
        )
        for result in returned:
            if id(result) not in arguments:
                for first, second in itertools.pairwise(result.values):
                    yield _swapped(script, first, second)


def _loop_bounds(script: _Script) -> Iterator[list[Edit]]:
    """``range(n)`` as ``range(n + 1)`` and ``range(n - 1)``, a slice bound plus and minus one,
    ``for x in xs`` (a loop or a comprehension) as ``for x in xs[1:]``."""
    for node in script.nodes:
        bounds: list[ast.expr] = []
        if isinstance(node, ast.Call) and _name(node.func) == "range" and node.args:
            bounds = [node.args[0] if len(node.args) == 1 else node.args[1]]
        elif isinstance(node, ast.Slice):
            bounds = [bound for bound in (node.lower, node.upper) if bound is not None]
        for bound in bounds:
            yield [_off_by(script, bound, 1)]
            yield [_off_by(script, bound, -1)]
        loop = script.parents.get(node)
        if isinstance(loop, ast.For | ast.comprehension) and loop.iter is node:
            text = script.segment(node)
            text = text if isinstance(node, _ATOMS) else f"({text})"
            yield [(script.start(node), script.end(node), f"{text}[1:]")]


#: Each operator's name and its sites, in the order mutants are made (and reported).
OPERATORS: dict[str, Callable[[_Script], Iterator[list[Edit]]]] = {
    "argument-value": _argument_values,
    "argument-key": _argument_keys,
    "literal-text": _literal_texts,
    "condition-negated": _conditions_negated,
    "comparison-flipped": _comparisons_flipped,
    "call-dropped": _tool_calls_dropped,
    "call-duplicated": _tool_calls_duplicated,
    "call-retargeted": _tool_calls_retargeted,
    "call-kind-swapped": _call_kinds_swapped,
    "retry-count": _retry_counts,
    "retry-delay": _retry_delays,
    "default-value": _get_defaults,
    "parallel-order": _parallel_orders,
    "parallel-sequential": _parallel_sequential,
    "output-swap": _output_swaps,
    "loop-bound": _loop_bounds,
}
