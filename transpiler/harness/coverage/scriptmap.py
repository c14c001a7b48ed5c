"""A script's map, read from its parse: where it calls the host, and its statements.

``check`` measures which parts of a script its scenarios reached against this
map (:mod:`.coverage`). Starlark is Python syntax for everything scripts use,
so Python's own parser (``ast``) reads the script and the modules it loads.

- **Call sites**: every call of a host builtin (``call_tool``,
  ``try_call_tool``, ``elicit``, ``retry``, ``parallel``, ``log``) by its own
  name, where no definition of the file or of an enclosing function takes
  that name; with the line where the call starts (starlark-rust reports it)
  and the line and column of its opening parenthesis (go.starlark.net
  reports those), in characters, as both interpreters count them.
- **Reachable code**: the top level of the script and of every module it
  loads, the script's ``run``, and every function a reachable part names
  (through ``load`` too), nested functions and lambdas included. A module
  holds helpers for many scripts: the call sites of its functions no
  reachable part names are listed but no scenario is expected to reach them.
- **Statements** of the script (not of its modules): their lines and
  blocks, so that a statement known to have run tells which others ran
  before it (:meth:`ScriptMap.shown_run`).
- **Lines a report points at** (:class:`ScriptLines`), in the script: where a
  call first passes a text as its first argument (a backend tool's name, to
  ``call_tool`` or to a helper of the script's), and the ``return``
  statements of ``run`` with the lines of their dict's keys.

Every file is read as vMCP reads it (:mod:`transpiler.starlark_runtime.source`:
line breaks as go.starlark.net reads them). A file the parser cannot read (a
syntax only an interpreter accepts, a NUL, which go.starlark.net reads as the
end of the file) gives nothing and is named with the reason
(:attr:`ScriptMap.unread`): its call sites are unknown, so a check of it is
``incomplete`` (:mod:`.coverage`), never a pass with no call sites.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from transpiler.profile import HOST_BUILTINS
from transpiler.starlark_runtime.source import as_vmcp_reads, nul_problem

#: The longest line text a call site keeps for reports.
TEXT_LIMIT = 120


@dataclass(frozen=True)
class CallSite:
    """One call of a host builtin in the script or in a module it loads."""

    file: str
    builtin: str
    line: int
    paren: tuple[int, int]
    text: str
    reachable: bool

    def where(self, script: str) -> str:
        """How a report and ``--accept-gap`` name it: ``line:N`` in the script itself,
        ``MODULE:N`` in a module."""
        return f"line:{self.line}" if self.file == script else f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Statement:
    """One statement of the script: its lines, and where it stands among the others."""

    line: int
    end: int
    depth: int
    parent: int | None
    previous: int | None


@dataclass(frozen=True)
class Unread:
    """A file of the script the parser could not read, and why."""

    file: str
    why: str

    def __str__(self) -> str:
        return f"{self.file}: {self.why}"


@dataclass(frozen=True)
class ScriptLines:
    """Lines of the script a report points at: the first line where a call passes each text
    as its first argument (``named``), and each ``return`` statement of ``run``, with the line
    of each text key of the dict it returns (``returns``)."""

    named: Mapping[str, int] = field(default_factory=dict)
    returns: tuple[tuple[int, Mapping[str, int]], ...] = ()

    def call_line(self, tool: str) -> int | None:
        """The line of the first call naming ``tool``."""
        return self.named.get(tool)

    def output_line(self, path: tuple[str, ...]) -> int | None:
        """The line of ``run``'s return that gives the output property at ``path`` (the key's
        line in a dict it returns), else of its last return."""
        for _, keys in self.returns:
            if path and path[0] in keys:
                return keys[path[0]]
        return self.returns[-1][0] if self.returns else None


@dataclass(frozen=True)
class ScriptMap:
    """The call sites of a script and of its modules, and the script's statements."""

    script: str
    sites: tuple[CallSite, ...] = ()
    statements: tuple[Statement, ...] = ()
    unread: tuple[Unread, ...] = ()
    innermost: Mapping[int, int] = field(default_factory=dict)
    places: ScriptLines = ScriptLines()

    def statement_lines(self) -> list[int]:
        """The lines where a statement starts."""
        return sorted({s.line for s in self.statements})

    def shown_run(self, lines: set[int], evaluated: bool) -> set[int]:
        """The lines of the statements these facts show ran: every statement holding one of
        ``lines`` (a frame's position: that statement was running), every statement before it
        in its block and every statement enclosing it; with ``evaluated`` (the script's top
        level ran to its end), every top-level statement."""
        known: set[int] = set()
        pending = [self.innermost[line] for line in lines if line in self.innermost]
        if evaluated:
            pending += [i for i, s in enumerate(self.statements) if s.depth == 0]
        while pending:
            index = pending.pop()
            if index in known:
                continue
            known.add(index)
            statement = self.statements[index]
            pending += [i for i in (statement.parent, statement.previous) if i is not None]
        return {self.statements[i].line for i in known}


def script_map(script: str, modules: Mapping[str, str], filename: str) -> ScriptMap:
    """The map of ``script`` (run as ``filename``) and of the modules it loads, transitively."""
    files: dict[str, _File] = {}
    unread: list[Unread] = []
    tried: set[str] = set()
    pending = [(filename, script)]
    while pending:
        name, source = pending.pop()
        if name in tried:
            continue
        tried.add(name)
        try:
            read = _File(name, source) if name == filename else _module(name, source)
        except _Unreadable as problem:
            unread.append(Unread(name, str(problem)))
            continue
        files[name] = read
        pending += [(m, modules[m]) for m in read.loaded_modules() if m in modules]
    if filename not in files:
        return ScriptMap(filename, unread=tuple(unread))
    try:
        reached = _reachable(files, filename)
        sites = tuple(site for read in files.values() for site in read.sites(reached))
        statements = _statements(files[filename].tree.body)
        places = files[filename].places()
    except RecursionError:
        return ScriptMap(filename, unread=(Unread(filename, "nested too deeply to be read"),))
    return ScriptMap(filename, sites, statements, tuple(unread), _innermost(statements), places)


class _Unreadable(Exception):
    """A file Python's parser cannot read as vMCP does."""


class _File:
    """One parsed file: its top-level definitions and loads."""

    def __init__(self, name: str, source: str) -> None:
        problem = nul_problem(source)
        if problem is not None:
            raise _Unreadable(problem)
        source = as_vmcp_reads(source)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            raise _Unreadable(f"Python's parser cannot read it ({error})") from None
        self.name = name
        self.lines = source.split("\n")
        self.defs: dict[str, list[ast.FunctionDef]] = {}
        self.loads: dict[str, tuple[str, str]] = {}
        self.bound: set[str] = set()
        for statement in self.tree.body:
            if isinstance(statement, ast.FunctionDef):
                self.defs.setdefault(statement.name, []).append(statement)
                self.bound.add(statement.name)
            elif (load := _load(statement)) is not None:
                module, symbols = load
                self.loads.update({local: (module, name) for local, name in symbols.items()})
                self.bound.update(symbols)
            else:
                self.bound.update(_stored(statement))

    def loaded_modules(self) -> list[str]:
        """The modules this file loads."""
        return sorted({module for module, _ in self.loads.values()})

    def top_level(self) -> Iterator[ast.AST]:
        """What runs when the file is evaluated: its statements, without function bodies
        (but with their default values)."""
        for statement in self.tree.body:
            if isinstance(statement, ast.FunctionDef):
                yield from statement.args.defaults
                yield from (d for d in statement.args.kw_defaults if d is not None)
            else:
                yield statement

    def sites(self, reached: set[int]) -> Iterator[CallSite]:
        """Every call of a host builtin, reachable when at the top level or in a reached
        function (``reached`` holds the ids of the reached ``def`` nodes)."""
        for statement in self.tree.body:
            if isinstance(statement, ast.FunctionDef):
                reachable = id(statement) in reached
                yield from self._calls(statement, frozenset(), reachable)
            else:
                yield from self._calls(statement, frozenset(), True)

    def places(self) -> ScriptLines:
        """The lines a report points at (:class:`ScriptLines`)."""
        named: dict[str, int] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    line = named.get(first.value, first.lineno)
                    named[first.value] = min(line, first.lineno)
        returns = [
            (node.lineno, _keys(node.value))
            for run in self.defs.get("run", [])
            for node in _own_nodes(run.body)
            if isinstance(node, ast.Return)
        ]
        return ScriptLines(named, tuple(sorted(returns, key=lambda found: found[0])))

    def _calls(self, node: ast.AST, local: frozenset[str], reachable: bool) -> Iterator[CallSite]:
        if isinstance(node, ast.FunctionDef | ast.Lambda):
            yield from self._function(node, local, reachable)
            return
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in HOST_BUILTINS
            and node.func.id not in local
            and node.func.id not in self.bound
        ):
            yield self._site(node, node.func, reachable)
        for child in ast.iter_child_nodes(node):
            yield from self._calls(child, local, reachable)

    def _function(
        self, node: ast.FunctionDef | ast.Lambda, local: frozenset[str], reachable: bool
    ) -> Iterator[CallSite]:
        arguments = node.args
        for default in (*arguments.defaults, *(d for d in arguments.kw_defaults if d)):
            yield from self._calls(default, local, reachable)
        parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        parameters += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        body = node.body if isinstance(node, ast.FunctionDef) else [node.body]
        inner = local | {p.arg for p in parameters}
        inner |= {name for statement in body for name in _stored(statement)}
        for statement in body:
            yield from self._calls(statement, inner, reachable)

    def _site(self, call: ast.Call, name: ast.Name, reachable: bool) -> CallSite:
        text = self.lines[name.lineno - 1].strip()
        if len(text) > TEXT_LIMIT:
            text = text[: TEXT_LIMIT - 3] + "..."
        assert name.end_lineno is not None and name.end_col_offset is not None
        paren = self._paren(name.end_lineno, name.end_col_offset)
        return CallSite(self.name, name.id, name.lineno, paren, text, reachable)

    def _paren(self, line: int, byte_offset: int) -> tuple[int, int]:
        """Line and column (1-based, in characters) of the first ``(`` from a position,
        past blanks, comments, line continuations and the parentheses closing around the
        function (``(call_tool)(...)``)."""
        column = len(self.lines[line - 1].encode()[:byte_offset].decode(errors="replace"))
        while line <= len(self.lines):
            text = self.lines[line - 1]
            while column < len(text) and text[column] in " \t\f)":
                column += 1
            if column < len(text) and text[column] == "(":
                return line, column + 1
            if column < len(text) and text[column] not in "#\\":
                break
            line, column = line + 1, 0
        return line, column + 1


@lru_cache(maxsize=8)
def _module(name: str, source: str) -> _File:
    """A module's parse, shared by every map of a script that loads it (a helper library is
    read once, not once per tool)."""
    return _File(name, source)


def _load(statement: ast.stmt) -> tuple[str, dict[str, str]] | None:
    """A ``load("module", "name", alias="name")`` statement: the module and the names it binds
    (local name to the module's name); None for any other statement."""
    if not (
        isinstance(statement, ast.Expr)
        and isinstance(call := statement.value, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "load"
        and call.args
    ):
        return None
    texts = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
    named = {
        k.arg: k.value.value if isinstance(k.value, ast.Constant) else None for k in call.keywords
    }
    if not all(isinstance(t, str) for t in texts) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in named.items()
    ):
        return None
    module, *names = texts
    symbols = {str(n): str(n) for n in names}
    symbols.update({str(k): str(v) for k, v in named.items()})
    return str(module), symbols


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a function's body but those of the functions and lambdas it holds."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        yield node
        pending += [
            child
            for child in ast.iter_child_nodes(node)
            if not isinstance(child, ast.FunctionDef | ast.Lambda)
        ]


def _keys(value: ast.expr | None) -> dict[str, int]:
    """The line of each text key of a dict display (none for anything else)."""
    if not isinstance(value, ast.Dict):
        return {}
    return {
        key.value: key.lineno
        for key in value.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    }


def _stored(node: ast.AST) -> set[str]:
    """The names ``node`` binds in its own scope (not in the functions and lambdas it holds),
    a ``def`` its own name."""
    if isinstance(node, ast.FunctionDef):
        return {node.name}
    found: set[str] = set()
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store):
            found.add(current.id)
        for child in ast.iter_child_nodes(current):
            if isinstance(child, ast.FunctionDef):
                found.add(child.name)
            elif not isinstance(child, ast.Lambda):
                pending.append(child)
    return found


def _reachable(files: Mapping[str, _File], script: str) -> set[int]:
    """The ids of the ``def`` nodes a reachable part of the files names, transitively (from
    the top level of every file, and the script's ``run``)."""
    reached: set[int] = set()
    pending: list[tuple[str, ast.AST]] = [
        (name, node) for name in files for node in files[name].top_level()
    ]
    pending += [(script, d) for d in files[script].defs.get("run", [])]
    while pending:
        name, node = pending.pop()
        if isinstance(node, ast.FunctionDef):
            if id(node) in reached:
                continue
            reached.add(id(node))
        for found in ast.walk(node):
            if isinstance(found, ast.Name) and isinstance(found.ctx, ast.Load):
                pending += _definitions(files, name, found.id)
    return reached


def _definitions(files: Mapping[str, _File], name: str, symbol: str) -> list[tuple[str, ast.AST]]:
    """The top-level ``def`` nodes ``symbol`` names in file ``name``, through its loads."""
    seen: set[tuple[str, str]] = set()
    while (name, symbol) not in seen and name in files:
        seen.add((name, symbol))
        read = files[name]
        if symbol in read.defs:
            return [(name, d) for d in read.defs[symbol]]
        if symbol not in read.loads:
            return []
        name, symbol = read.loads[symbol]
    return []


def _statements(body: list[ast.stmt]) -> tuple[Statement, ...]:
    """Every statement of a block and of the blocks inside it."""
    pending: list[tuple[list[ast.stmt], int, int | None]] = [(body, 0, None)]
    found: list[Statement] = []
    while pending:
        block, depth, parent = pending.pop()
        previous = None
        for statement in block:
            end = statement.end_lineno or statement.lineno
            found.append(Statement(statement.lineno, end, depth, parent, previous))
            previous = len(found) - 1
            pending += [(inner, depth + 1, previous) for inner in _blocks(statement)]
    return tuple(found)


def _innermost(statements: tuple[Statement, ...]) -> dict[int, int]:
    """Each line's innermost statement (deeper statements overwrite shallower ones)."""
    found: dict[int, int] = {}
    for index in sorted(range(len(statements)), key=lambda i: statements[i].depth):
        found.update(dict.fromkeys(range(statements[index].line, statements[index].end + 1), index))
    return found


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks a statement holds (a ``def``'s body, an ``if``'s branches, a loop's body)."""
    for name in ("body", "orelse", "finalbody"):
        inner = getattr(statement, name, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            yield inner
