"""What a script reads of the values it is given, and the literals it compares them with.

A script may branch on data its workflow never reads (a field of an answer no
template names, a value of a field no template compares with). Scenarios
built from the workflow alone never hold such data, so :mod:`.probes` adds it,
from this reading of the script's text. Python's parser (``ast``) reads our
Starlark; the text is only read, never run. A script that does not parse
gives nothing.

A *read* is a path of string keys (``x["k"]``, ``x.get("k", ...)``) from a
*root*: the backend tool a ``call_tool``/``try_call_tool`` names, an
``elicit`` answer, or unknown (a value that came from anywhere else). Names
bound once (assignments, ``for`` targets, parameters of a function called
with a read) carry their value's root and path; methods (``x.lower()``),
``str``/``int``/``float``/``bool`` and ``json.decode`` pass the path through;
``[i]`` on a list reads every item (:data:`ITEMS`).
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from typing import Any

#: The root of an ``elicit`` answer.
ELICITATION = "elicit"
#: The root of the run's parameters (the first parameter of ``run``).
PARAMS = "params"
#: A path step into every item of a list.
ITEMS = "*"

_CALLS = frozenset({"call_tool", "try_call_tool"})
_PASSING = frozenset({"str", "int", "float", "bool"})
_EQUALITY = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)

Root = tuple[str | None, tuple[str, ...]]


@dataclass(frozen=True)
class Read:
    """One path a script reads from a root (a tool's name, :data:`ELICITATION`, or None)."""

    root: str | None
    path: tuple[str, ...]


@dataclass
class ScriptReads:
    """Every read of a script in the order it first appears, and the literals each is
    compared with (``==``, ``!=``, ``in``, ``not in``)."""

    reads: list[Read] = field(default_factory=list)
    compared: dict[Read, list[Any]] = field(default_factory=dict)

    def add(self, read: Read, literals: list[Any]) -> None:
        if read not in self.reads:
            self.reads.append(read)
        held = self.compared.setdefault(read, [])
        held.extend(v for v in literals if not any(_same(v, h) for h in held))


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
    names = _bindings(tree)
    found = ScriptReads()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            _compare(node, names, found)
        elif _key(node) is not None:
            resolved = _resolve(node, names)
            if resolved is not None and resolved[1]:
                found.add(Read(*resolved), [])
    return found


def _compare(node: ast.Compare, names: dict[str, Root | None], found: ScriptReads) -> None:
    operands = [node.left, *node.comparators]
    for index, op in enumerate(node.ops):
        if not isinstance(op, _EQUALITY):
            continue
        pair = operands[index : index + 2]
        for side, other in (pair, pair[::-1]):
            resolved = _resolve(side, names)
            literals = _literals(other)
            if resolved is not None and resolved[1] and literals:
                found.add(Read(*resolved), literals)


def _literals(node: ast.AST) -> list[Any]:
    """The constants a node is, or holds (a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bool | int | float):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [v for item in node.elts for v in _literals(item)]
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


def _resolve(node: ast.AST, names: dict[str, Root | None], depth: int = 0) -> Root | None:
    """The root and path ``node``'s value comes from, or None if it is not a read."""
    if depth > 50:
        return None
    key = _key(node)
    if key is not None:
        inner = node.value if isinstance(node, ast.Subscript) else node.func.value  # type: ignore[attr-defined]
        base = _resolve(inner, names, depth + 1)
        return None if base is None else (base[0], (*base[1], key))
    if isinstance(node, ast.Name):
        return names.get(node.id, (None, ()))
    if isinstance(node, ast.Subscript):
        base = _resolve(node.value, names, depth + 1)
        return None if base is None else (base[0], (*base[1], ITEMS))
    if isinstance(node, ast.Attribute):
        return _resolve(node.value, names, depth + 1)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            if func.id in _CALLS and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    return (first.value, ())
                return None
            if func.id == "elicit":
                return (ELICITATION, ())
            if func.id in _PASSING and len(node.args) == 1:
                return _resolve(node.args[0], names, depth + 1)
            return None
        if isinstance(func, ast.Attribute):
            if func.attr == "decode" and len(node.args) == 1:
                return _resolve(node.args[0], names, depth + 1)
            return _resolve(func.value, names, depth + 1)
    return None


def _bindings(tree: ast.AST) -> dict[str, Root | None]:
    """What each name bound once holds (None: bound to several things, or to no read)."""
    bound: dict[str, list[ast.AST]] = {}
    items: set[int] = set()
    params: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.For | ast.comprehension):
            if isinstance(node.target, ast.Name):
                bound.setdefault(node.target.id, []).append(node.iter)
                items.add(id(node.iter))
        elif isinstance(node, ast.FunctionDef):
            params[node.name] = [a.arg for a in node.args.args]
    names: dict[str, Root | None] = {}
    if params.get("run"):
        names[params["run"][0]] = (PARAMS, ())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for name, arg in zip(params.get(node.func.id, []), node.args, strict=False):
                bound.setdefault(name, []).append(arg)
    for _ in range(4):  # names bound to names: a few rounds settle them
        for name, values in bound.items():
            if names.get(name) == (PARAMS, ()):
                continue
            resolved = {_bound(value, names, id(value) in items) for value in values}
            names[name] = resolved.pop() if len(resolved) == 1 else None
    return names


def _bound(node: ast.AST, names: dict[str, Root | None], item: bool) -> Root | None:
    resolved = _resolve(node, names)
    if resolved is None or not item:
        return resolved
    return (resolved[0], (*resolved[1], ITEMS))
