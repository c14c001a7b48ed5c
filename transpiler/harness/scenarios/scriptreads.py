"""What a script reads of the values it is given, and the literals it compares them with.

A script may branch on data its workflow never reads (a field of an answer no
template names, a value of a field no template compares with, a parameter, a
list's length). Scenarios built from the workflow alone never hold such data,
so :mod:`.probes` adds it, from this reading of the script's text. Python's
parser (``ast``) reads our Starlark; the text is only read, never run. A script
that does not parse gives nothing.

A *read* is a path of string keys (``x["k"]``, ``x.get("k", ...)``) from a
*root*: the backend tool a ``call_tool``/``try_call_tool`` names, an
``elicit`` answer, the run's parameters, or unknown (a value that came from
anywhere else). Names bound to one read (assignments, each name of a tuple assigned
from a tuple or from ``parallel([lambda: ..., ...])``, ``for`` targets,
parameters of a function called with a read) and calls of the script's own
functions that return one read carry their value's root and path; a name
bound once to a dict literal reads through it (``d["k"]`` is what the literal
holds at ``"k"``); methods (``x.lower()``), ``str``/``int``/``float``/``bool``
and ``json.decode`` pass the path through, ``retry(f)`` gives what ``f``
returns; ``[i]`` on a list reads every item
(:data:`ITEMS`), a slice the list itself, and so does a comprehension that keeps
some of its items (``[x for x in xs if x]``), whose ``if`` reads each item.

What a read is compared with: the literals of ``==``, ``!=``, ``in``,
``not in`` (``compared``; a name bound once to such literals stands for them),
the numbers of ``<``, ``<=``, ``>``, ``>=`` (``ordered``; the helper library's
``go_eq``... ``go_ge`` compare as these do), the whole numbers
``len`` of it is compared with and the bounds it is sliced at (``lengths``),
and those the text it prints as is sliced at (``printed``: ``str(x)[:n]``,
``json.encode(x)[:n]``, ``("%s" % x)[:n]``, ``"{}".format(x)``, texts joined
with ``+``, through a name bound once to such a text); the reads whose truth
decides something (``if x``, ``x and y``, a comprehension's ``if``:
``tested``), those whose type is compared with a name (``type(x) == "dict"``,
``!=``, ``in``, through a name bound once to ``type(x)``: ``typed``),
those made whole numbers (``int(x)``, ``"%d" % x``: ``whole``), those that pass
through a method that changes case or strips spaces before
they are compared (``normalized``), those taken with a default
(``x.get("k", d)``: ``defaulted``), and those a text method changes where they
hold what it names (``x.strip()``, ``x.replace("refs/", "")``,
``x.startswith("v")``, ``x.split("/")``...: ``transformed``, with the texts to put
before and after them). Within a comprehension, a ``for`` loop and a
``lambda``, its target stands for each item of what it iterates, and a
parameter for its default, whatever else the script binds to that name.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from transpiler.gotemplate.verbs import format_verbs

#: The root of an ``elicit`` answer.
ELICITATION = "elicit"
#: The root of the run's parameters (the first parameter of ``run``).
PARAMS = "params"
#: A path step into every item of a list.
ITEMS = "*"

_CALLS = frozenset({"call_tool", "try_call_tool"})
_PASSING = frozenset({"str", "int", "float", "bool"})
_EQUALITY = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: Methods after which a text compares otherwise than as it is.
_NORMALIZING = frozenset(
    {"lower", "upper", "casefold", "title", "capitalize", "strip", "lstrip", "rstrip"}
)

Root = tuple[str | None, tuple[str, ...]]
#: Texts put before and after a text, which a method the script applies to it changes.
Affix = tuple[str, str]
#: Surrounding spaces, which ``strip()`` and the like take off.
_SPACES: dict[str, Affix] = {"strip": (" ", " "), "lstrip": (" ", ""), "rstrip": ("", " ")}
#: The methods that change a text holding what they name (their first argument) where each
#: puts it: before, after, or on both sides.
_NAMING: dict[str, tuple[bool, bool]] = {
    "strip": (True, True),
    "lstrip": (True, False),
    "rstrip": (False, True),
    "removeprefix": (True, False),
    "startswith": (True, False),
    "removesuffix": (False, True),
    "endswith": (False, True),
    "replace": (True, False),
    "split": (True, True),
    "rsplit": (True, True),
    "partition": (True, True),
    "rpartition": (True, True),
}


@dataclass(frozen=True)
class Read:
    """One path a script reads from a root (a tool's name, :data:`ELICITATION`,
    :data:`PARAMS`, or None)."""

    root: str | None
    path: tuple[str, ...]


@dataclass
class ScriptReads:
    """Every read of a script in the order it first appears, and what each is compared with
    (the module's docstring)."""

    reads: list[Read] = field(default_factory=list)
    compared: dict[Read, list[Any]] = field(default_factory=dict)
    ordered: dict[Read, list[int | float]] = field(default_factory=dict)
    lengths: dict[Read, list[int]] = field(default_factory=dict)
    printed: dict[Read, list[int]] = field(default_factory=dict)
    whole: list[Read] = field(default_factory=list)
    tested: list[Read] = field(default_factory=list)
    typed: list[Read] = field(default_factory=list)
    normalized: set[Read] = field(default_factory=set)
    defaulted: set[Read] = field(default_factory=set)
    transformed: dict[Read, list[Affix]] = field(default_factory=dict)

    def add(self, read: Read, literals: list[Any]) -> None:
        if read not in self.reads:
            self.reads.append(read)
        held = self.compared.setdefault(read, [])
        held.extend(v for v in literals if not any(_same(v, h) for h in held))

    def add_number(self, held: dict[Read, list[Any]], read: Read, number: Any) -> None:
        """``number`` in ``held`` (:attr:`ordered`, :attr:`lengths` or :attr:`printed`) for
        ``read``."""
        self.add(read, [])
        numbers = held.setdefault(read, [])
        if number not in numbers:
            numbers.append(number)

    def test(self, read: Read) -> None:
        """``read``'s truth decides something."""
        self.add(read, [])
        if read not in self.tested:
            self.tested.append(read)

    def truncate(self, read: Read) -> None:
        """``read`` is made a whole number (``int(x)``, ``"%d" % x``)."""
        self.add(read, [])
        if read not in self.whole:
            self.whole.append(read)

    def type_test(self, read: Read) -> None:
        """``read``'s type decides something."""
        self.add(read, [])
        if read not in self.typed:
            self.typed.append(read)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def script_reads(source: str) -> ScriptReads:
    """The reads of ``source`` (nothing when it does not parse)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ScriptReads()
    found = ScriptReads()
    try:
        _visit(tree, _bindings(tree), found)
    except RecursionError:
        return ScriptReads()
    return found


def _visit(node: ast.AST, scope: _Scope, found: ScriptReads) -> None:
    """Notes what ``node`` reads, then visits what it holds, each in the names it sees."""
    _note(node, scope, found)
    for child, within in _children(node, scope):
        _visit(child, within, found)


#: The helper library's comparisons (``vmcp_compat.star``, which exact scripts load), each
#: read as the operator it applies to its first operand and each other one.
_GO_COMPARISONS: dict[str, type[ast.cmpop]] = {
    "go_eq": ast.Eq,
    "go_ne": ast.NotEq,
    "go_lt": ast.Lt,
    "go_le": ast.LtE,
    "go_gt": ast.Gt,
    "go_ge": ast.GtE,
}


def _note(node: ast.AST, scope: _Scope, found: ScriptReads) -> None:
    if isinstance(node, ast.Compare):
        _compare(node, scope, found)
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _GO_COMPARISONS
        and len(node.args) >= 2
    ):
        op = _GO_COMPARISONS[node.func.id]
        for other in node.args[1:]:
            _compare(ast.Compare(node.args[0], [op()], [other]), scope, found)
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        _sliced(node, scope, found)
    elif _key(node) is not None:
        resolved = _resolve(node, scope)
        if resolved is not None and resolved[1]:
            found.add(Read(*resolved), [])
            if _defaulted(node):
                found.defaulted.add(Read(*resolved))
    for test in _tests(node):
        resolved = _resolve(test, scope)
        if resolved is not None and resolved[1]:
            found.test(Read(*resolved))
    for value in _truncated(node):
        resolved = _resolve(value, scope)
        if resolved is not None and resolved[1]:
            found.truncate(Read(*resolved))
    _transformed(node, scope, found)


def _children(node: ast.AST, scope: _Scope) -> Iterator[tuple[ast.AST, _Scope]]:
    """What ``node`` holds, each with the names it sees: a comprehension's and a ``for``'s
    target is each item of what it iterates, a ``lambda``'s parameter its default (a name
    a script binds elsewhere too means that there)."""
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        within = scope
        for generator in node.generators:
            yield generator.iter, within
            within = _looped(generator.target, generator.iter, within)
            yield generator, within
        yield from ((part, within) for part in _comprehension_parts(node))
    elif isinstance(node, ast.comprehension):
        yield from ((test, scope) for test in node.ifs)
    elif isinstance(node, ast.For):
        yield node.iter, scope
        within = _looped(node.target, node.iter, scope)
        yield from ((statement, within) for statement in [*node.body, *node.orelse])
    elif isinstance(node, ast.Lambda):
        yield from ((default, scope) for default in node.args.defaults)
        parameters = node.args.args[len(node.args.args) - len(node.args.defaults) :]
        defaults = zip(parameters, node.args.defaults, strict=True)
        names = {**scope.names, **{p.arg: _resolve(d, scope) for p, d in defaults}}
        yield node.body, replace(scope, names=names, returned={})
    else:
        yield from ((child, scope) for child in ast.iter_child_nodes(node))


def _comprehension_parts(node: ast.AST) -> list[ast.AST]:
    """What a comprehension makes of each item (its value, or a dict's key and value)."""
    if isinstance(node, ast.DictComp):
        return [node.key, node.value]
    assert isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp)
    return [node.elt]


def _looped(target: ast.AST, iterated: ast.AST, scope: _Scope) -> _Scope:
    """``scope`` with a loop's target bound to each item of what it iterates (the second
    name of ``for i, x in enumerate(xs)``)."""
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(iterated, ast.Call)
        and _is_name(iterated.func, "enumerate")
        and len(iterated.args) == 1
    ):
        target, iterated = target.elts[1], iterated.args[0]
    if not isinstance(target, ast.Name):
        return scope
    return replace(
        scope, names={**scope.names, target.id: _bound(iterated, scope, True)}, returned={}
    )


def _defaulted(node: ast.AST) -> bool:
    """Whether ``node`` is ``x.get("k", default)``."""
    return isinstance(node, ast.Call) and len(node.args) == 2


def _transformed(node: ast.AST, scope: _Scope, found: ScriptReads) -> None:
    """A text method applied to a read (``x.strip()``, ``x.replace("a", "b")``...): the
    affixes that make it change the text."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return
    method = node.func.attr
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value:
        if method not in _NAMING:
            return
        before, after = _NAMING[method]
        affix = (first.value if before else "", first.value if after else "")
    elif method in _SPACES and first is None:
        affix = _SPACES[method]
    elif method in ("split", "rsplit") and first is None:
        affix = ("", " -")  # one word more
    else:
        return
    resolved = _resolve(node.func.value, scope)
    if resolved is not None and resolved[1]:
        read = Read(*resolved)
        found.add(read, [])
        affixes = found.transformed.setdefault(read, [])
        if affix not in affixes:
            affixes.append(affix)


def _tests(node: ast.AST) -> list[ast.AST]:
    """The expressions whose truth ``node`` decides on."""
    if isinstance(node, ast.If | ast.IfExp | ast.While):
        return [node.test]
    if isinstance(node, ast.comprehension):
        return list(node.ifs)
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [node.operand]
    return []


def _compare(node: ast.Compare, scope: _Scope, found: ScriptReads) -> None:
    operands = [node.left, *node.comparators]
    for index, op in enumerate(node.ops):
        pair = operands[index : index + 2]
        for side, other in (pair, pair[::-1]):
            literals = _literals(other, scope)
            typed = _typed(side, scope)
            if typed is not None:
                resolved = _resolve(typed, scope)
                if resolved is not None and resolved[1] and literals:
                    found.type_test(Read(*resolved))
                continue
            measured = _measured(side)
            if measured is not None:
                resolved = _resolve(measured, scope)
                for number in literals:
                    if resolved is not None and _whole(number):
                        found.add_number(found.lengths, Read(*resolved), number)
                continue
            resolved = _resolve(side, scope)
            if resolved is None or not resolved[1] or not literals:
                continue
            read = Read(*resolved)
            if isinstance(op, _EQUALITY):
                found.add(read, literals)
                if _normalizing(side):
                    found.normalized.add(read)
            elif isinstance(op, _ORDER):
                for number in literals:
                    if isinstance(number, int | float) and not isinstance(number, bool):
                        found.add_number(found.ordered, read, number)


def _sliced(node: ast.Subscript, scope: _Scope, found: ScriptReads) -> None:
    """``x[a:b]``: the whole-number bounds are lengths ``x`` is measured against, and the text
    of each read ``x`` prints is."""
    bounds = node.slice
    assert isinstance(bounds, ast.Slice)
    numbers = [
        abs(bound.value)
        for bound in (bounds.lower, bounds.upper)
        if isinstance(bound, ast.Constant) and isinstance(bound.value, int) and _whole(bound.value)
    ]
    whole = _resolve(node.value, scope)
    measured = [] if whole is None else [(found.lengths, whole)]
    for text in _printed(node.value, scope):
        resolved = _resolve(text, scope)
        if resolved is not None and resolved[1]:
            measured.append((found.printed, resolved))
    for held, read in measured:
        for number in numbers:
            found.add_number(held, Read(*read), number)


def _printed(node: ast.AST, scope: _Scope, depth: int = 0) -> list[ast.AST]:
    """The values whose printed text the text ``node`` makes holds (``str(x)``,
    ``json.encode(x)``, ``"..." % (x, y)``, ``"...".format(x)``, each text joined with
    ``+``), through a name bound once to such a text."""
    node = scope.unaliased(node)
    if depth > 20:
        return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        sides = (node.left, node.right)
        return [value for side in sides for value in _printed(side, scope, depth + 1) or [side]]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _text(node.left):
        return list(node.right.elts) if isinstance(node.right, ast.Tuple) else [node.right]
    if not isinstance(node, ast.Call):
        return []
    func = node.func
    if _is_name(func, "str") and len(node.args) == 1:
        return list(node.args)
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "encode"
        and _is_name(func.value, "json")
        and len(node.args) == 1
    ):
        return list(node.args)
    if isinstance(func, ast.Attribute) and func.attr == "format" and _text(func.value):
        return [*node.args, *(keyword.value for keyword in node.keywords)]
    return []


def _truncated(node: ast.AST) -> list[ast.AST]:
    """The values ``node`` makes whole numbers: ``int(x)``, and the operands of ``%d`` and
    ``%i`` in ``"..." % (x, y)``."""
    if isinstance(node, ast.Call) and _is_name(node.func, "int") and len(node.args) == 1:
        return list(node.args)
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
        return []
    text = node.left.value if isinstance(node.left, ast.Constant) else None
    if not isinstance(text, str):
        return []
    verbs = format_verbs(text)
    operands = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    return [value for verb, value in zip(verbs, operands, strict=False) if verb[-1] in "di"]


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _typed(node: ast.AST, scope: _Scope) -> ast.AST | None:
    """What ``type(x)`` (or a name bound once to it) takes the type of, if ``node`` is one."""
    node = scope.unaliased(node)
    if isinstance(node, ast.Call) and _is_name(node.func, "type") and len(node.args) == 1:
        return node.args[0]
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _measured(node: ast.AST) -> ast.AST | None:
    """What ``len(x)`` measures, if ``node`` is such a call."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    ):
        return node.args[0]
    return None


def _normalizing(node: ast.AST) -> bool:
    """Whether ``node``'s value passed through a method that changes case or strips spaces."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _NORMALIZING:
            return True
        node = node.func.value
    return False


def _literals(node: ast.AST, scope: _Scope) -> list[Any]:
    """The constants a node is, or holds (a tuple, list or set of them), a name bound once
    to such a literal included."""
    node = scope.unaliased(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bool | int | float):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [v for item in node.elts for v in _literals(item, scope)]
    return []


def _key(node: ast.AST) -> str | None:
    """The string key ``node`` reads (``x["k"]``, ``x.get("k", ...)``), or None."""
    if isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            return index.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


@dataclass
class _Scope:
    """What each name holds: a read's root and path (None: bound to several things, or to
    no read), and for a name bound once, what it is bound to (a dict literal it reads
    through, literals it stands for, a ``type``/text of a read it names); and what each
    function of the script returns."""

    names: dict[str, Root | None] = field(default_factory=dict)
    #: What each name bound once (by an assignment or a ``for``) is bound to.
    once: dict[str, ast.AST] = field(default_factory=dict)
    returns: dict[str, list[ast.AST]] = field(default_factory=dict)
    #: What each function's call was found to read, while the names stay as they are.
    returned: dict[str, Root | None] = field(default_factory=dict)

    def unaliased(self, node: ast.AST) -> ast.AST:
        """What ``node`` is bound to if it is a name bound once, else ``node``."""
        return self.once.get(node.id, node) if isinstance(node, ast.Name) else node

    def call_of(self, function: str, depth: int) -> Root | None:
        """What a call of the script's ``function`` reads: the one read all its ``return``
        values are, if they are one (a call made while finding that out reads nothing)."""
        if function not in self.returned:
            self.returned[function] = None
            found = {_resolve(value, self, depth + 1) for value in self.returns[function]}
            self.returned[function] = found.pop() if len(found) == 1 else None
        return self.returned[function]


def _resolve(node: ast.AST, scope: _Scope, depth: int = 0) -> Root | None:
    """The root and path ``node``'s value comes from, or None if it is not a read."""
    if depth > 50:
        return None
    key = _key(node)
    if key is not None:
        inner = node.value if isinstance(node, ast.Subscript) else node.func.value  # type: ignore[attr-defined]
        held = _held_in_literal(inner, key, scope)
        if held is not None:
            return _resolve(held, scope, depth + 1)
        base = _resolve(inner, scope, depth + 1)
        return None if base is None else (base[0], (*base[1], key))
    if isinstance(node, ast.Name):
        return scope.names.get(node.id, (None, ()))
    if isinstance(node, ast.Subscript):
        base = _resolve(node.value, scope, depth + 1)
        if base is None or isinstance(node.slice, ast.Slice):
            return base
        return (base[0], (*base[1], ITEMS))
    if isinstance(node, ast.Attribute):
        return _resolve(node.value, scope, depth + 1)
    if isinstance(node, ast.Lambda):
        return _resolve(node.body, scope, depth + 1)
    if isinstance(node, ast.ListComp) and _keeps_items(node):
        return _resolve(node.generators[0].iter, scope, depth + 1)
    if isinstance(node, ast.IfExp | ast.BoolOp):
        # Like a name bound to a read and to what reads nothing: the one read either gives
        # (``answer.content or {}``).
        sides = node.values if isinstance(node, ast.BoolOp) else [node.body, node.orelse]
        found = {_resolve(side, scope, depth + 1) for side in sides} - {None}
        return found.pop() if len(found) == 1 else None
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            if func.id in _CALLS and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    return (first.value, ())
                return (None, ())  # a tool named by a value: any of them
            if func.id == "elicit":
                return (ELICITATION, ())
            if func.id in _PASSING and len(node.args) == 1:
                return _resolve(node.args[0], scope, depth + 1)
            if func.id == "retry" and node.args:  # what the function it retries returns
                return _resolve(node.args[0], scope, depth + 1)
            return scope.call_of(func.id, depth) if func.id in scope.returns else None
        if isinstance(func, ast.Attribute):
            if func.attr == "decode" and len(node.args) == 1:
                return _resolve(node.args[0], scope, depth + 1)
            return _resolve(func.value, scope, depth + 1)
    return None


def _keeps_items(node: ast.ListComp) -> bool:
    """Whether a comprehension gives some of the items it iterates (``[x for x in xs if x]``)."""
    (first, *others) = node.generators
    target = first.target
    return (
        not others
        and isinstance(target, ast.Name)
        and isinstance(node.elt, ast.Name)
        and (node.elt.id == target.id)
    )


def _held_in_literal(node: ast.AST, key: str, scope: _Scope) -> ast.AST | None:
    """What a dict literal (or a name bound once to one) holds at ``key``, if ``node`` is one."""
    literal = scope.unaliased(node)
    if not isinstance(literal, ast.Dict):
        return None
    for name, value in zip(literal.keys, literal.values, strict=True):
        if isinstance(name, ast.Constant) and name.value == key:
            return value
    return None


def _bindings(tree: ast.AST) -> _Scope:
    """What each name bound once holds."""
    bound: dict[str, list[ast.AST]] = {}
    items: set[int] = set()
    params: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name, value in _unpacked(target, node.value):
                    bound.setdefault(name, []).append(value)
        elif isinstance(node, ast.For | ast.comprehension):
            if isinstance(node.target, ast.Name):
                bound.setdefault(node.target.id, []).append(node.iter)
                items.add(id(node.iter))
        elif isinstance(node, ast.FunctionDef):
            params[node.name] = [a.arg for a in node.args.args]
    scope = _Scope(returns=_returns(tree))
    scope.once.update((name, values[0]) for name, values in bound.items() if len(values) == 1)
    if params.get("run"):
        scope.names[params["run"][0]] = (PARAMS, ())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for name, arg in zip(params.get(node.func.id, []), node.args, strict=False):
                bound.setdefault(name, []).append(arg)
    for _ in range(4):  # names bound to names: a few rounds settle them
        scope.returned.clear()
        for name, values in bound.items():
            if scope.names.get(name) == (PARAMS, ()) or isinstance(scope.once.get(name), ast.Dict):
                continue
            # A name bound again to what reads nothing (``x = 0`` after ``x = params["x"]``)
            # may still hold the read: its comparisons are probed as the read's.
            resolved = {_bound(value, scope, id(value) in items) for value in values} - {None}
            scope.names[name] = resolved.pop() if len(resolved) == 1 else None
    scope.returned.clear()
    return scope


def _returns(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """What each function of the script returns (its ``return`` values), but ``run``."""
    found: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name != "run":
            found[node.name] = [
                inner.value
                for inner in ast.walk(node)
                if isinstance(inner, ast.Return) and inner.value is not None
            ]
    return found


def _unpacked(target: ast.AST, value: ast.AST) -> list[tuple[str, ast.AST]]:
    """The names an assignment binds and the value each takes: a name the whole value; each
    name of a tuple the matching item of a tuple or list, or of ``parallel([...])``'s list
    of functions (the value each returns)."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if not isinstance(target, ast.Tuple | ast.List):
        return []
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "parallel"
        and len(value.args) == 1
    ):
        value = value.args[0]
    if not isinstance(value, ast.Tuple | ast.List) or len(value.elts) != len(target.elts):
        return []
    return [
        pair
        for sub, item in zip(target.elts, value.elts, strict=True)
        for pair in _unpacked(sub, item)
    ]


def _bound(node: ast.AST, scope: _Scope, item: bool) -> Root | None:
    resolved = _resolve(node, scope)
    if resolved is None or not item:
        return resolved
    return (resolved[0], (*resolved[1], ITEMS))
