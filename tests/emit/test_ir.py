"""The Starlark IR and its printer: output parses and means what the nodes say, text stays data.

Expressions are generated over a few integer variables and evaluated twice: by
Python reading the printed source, and by walking the nodes here. The two must
agree, flat or broken over lines, which checks the operator table and the
parentheses the printer adds.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transpiler.emit import ir

VARIABLES = {"a": 3, "b": -2, "c": 0, "a_longer_name_that_makes_lines_wrap": 7}
NAMES = st.sampled_from(sorted(VARIABLES)).map(ir.Name)
INTS = st.integers(-5, 5).map(ir.Literal)
BOOLS = st.booleans().map(ir.Literal)
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}


def _calls(children: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
    args = st.lists(children, max_size=3).map(tuple)
    kwargs = st.lists(
        st.tuples(st.sampled_from(["x", "y"]), children), max_size=2, unique_by=lambda kv: kv[0]
    )
    return st.builds(lambda a, k: ir.Call(ir.Name("f"), a, tuple(k)), args, kwargs)


def _extend(children: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
    binary = st.builds(ir.Binary, children, st.sampled_from([*_BINARY, "and", "or"]), children)
    unary = st.builds(ir.Unary, st.sampled_from(["not", "-"]), children)
    items = st.lists(children, max_size=4).map(tuple)
    return st.one_of(
        binary,
        unary,
        st.builds(ir.Cond, children, children, children),
        st.builds(ir.Binary, children, st.sampled_from(["in", "not in"]), items.map(ir.Tuple)),
        items.map(ir.List),
        items.map(ir.Tuple),
        st.lists(st.tuples(st.text(max_size=3).map(ir.Str), children), max_size=3)
        .map(tuple)
        .map(ir.Dict),
        st.builds(lambda body: ir.Call(ir.Lambda((), body)), children),
        st.builds(
            lambda element, items, test: ir.Comprehension(
                element,
                (ir.ForClause(("c",), ir.List(items)), ir.IfClause(test)),
            ),
            children,
            items,
            children,
        ),
        _calls(children),
        children.map(ir.Paren),
        children.map(ir.Unbroken),
    )


EXPRESSIONS = st.recursive(st.one_of(NAMES, INTS, BOOLS), _extend, max_leaves=12)
SMALL_EXPRESSIONS = st.recursive(st.one_of(NAMES, INTS, BOOLS), _extend, max_leaves=4)


def _f(*args: Any, **kwargs: Any) -> Any:
    return (args, sorted(kwargs.items()))


def evaluate(expr: ir.Expr, scope: dict[str, Any]) -> Any:
    """What the nodes mean, evaluated without reading any source."""
    if isinstance(expr, ir.Name):
        return _f if expr.id == "f" else scope[expr.id]
    if isinstance(expr, ir.Literal):
        return expr.value
    if isinstance(expr, ir.Str):
        return expr.text
    if isinstance(expr, ir.Binary):
        left = evaluate(expr.left, scope)
        if expr.op == "and":
            return left and evaluate(expr.right, scope)
        if expr.op == "or":
            return left or evaluate(expr.right, scope)
        right = evaluate(expr.right, scope)
        if expr.op == "in":
            return left in right
        if expr.op == "not in":
            return left not in right
        return _BINARY[expr.op](left, right)
    if isinstance(expr, ir.Unary):
        value = evaluate(expr.operand, scope)
        return not value if expr.op == "not" else -value
    if isinstance(expr, ir.Cond):
        test = evaluate(expr.test, scope)
        return evaluate(expr.body, scope) if test else evaluate(expr.orelse, scope)
    if isinstance(expr, ir.List):
        return [evaluate(i, scope) for i in expr.items]
    if isinstance(expr, ir.Tuple):
        return tuple(evaluate(i, scope) for i in expr.items)
    if isinstance(expr, ir.Dict):
        return {evaluate(k, scope): evaluate(v, scope) for k, v in expr.items}
    if isinstance(expr, ir.Paren | ir.Unbroken):
        return evaluate(expr.inner, scope)
    if isinstance(expr, ir.Lambda):
        return lambda: evaluate(expr.body, scope)
    if isinstance(expr, ir.Call):
        func = evaluate(expr.func, scope)
        args = [evaluate(a, scope) for a in expr.args]
        return func(*args, **{k: evaluate(v, scope) for k, v in expr.kwargs})
    if isinstance(expr, ir.Comprehension):
        loop, test = expr.clauses
        assert isinstance(loop, ir.ForClause) and isinstance(test, ir.IfClause)
        found = []
        for item in evaluate(loop.iterable, scope):
            inner = {**scope, loop.targets[0]: item}
            if evaluate(test.test, inner):
                found.append(evaluate(expr.element, inner))
        return found
    raise TypeError(type(expr).__name__)


def _outcome(compute: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", compute()
    except TypeError:
        return "error", None


@settings(max_examples=400, deadline=None)
@given(EXPRESSIONS, st.integers(-3, 60))
def test_printed_expression_means_what_the_nodes_say(expr: ir.Expr, overflow: int) -> None:
    column = max(0, ir.WIDTH - len(ir.flat(expr)) + overflow)
    source = ir.render(expr, column, column)
    tree = ast.parse(source, mode="eval")
    assert ast.dump(tree) == ast.dump(ast.parse(ir.flat(expr), mode="eval"))
    scope = {**VARIABLES, "f": _f}
    expected = _outcome(lambda: evaluate(expr, dict(VARIABLES)))
    assert _outcome(lambda: eval(compile(tree, "<ir>", "eval"), scope)) == expected


@settings(max_examples=300, deadline=None)
@given(EXPRESSIONS, st.integers(-3, 60))
def test_flat_when_it_fits(expr: ir.Expr, overflow: int) -> None:
    text = ir.flat(expr)
    column = max(0, ir.WIDTH - len(text) + overflow)
    rendered = ir.render(expr, column, column)
    if column + len(text) <= ir.WIDTH:
        assert rendered == text
    else:
        assert rendered == text or "\n" in rendered


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"])))
def test_any_text_is_a_string_literal_of_itself(text: str) -> None:
    source = ir.flat(ir.Str(text))
    assert "\n" not in source and source.splitlines() == [source]
    assert eval(source, {"__builtins__": {}, "chr": chr}) == text


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_comment_text_stays_a_comment(text: str) -> None:
    printed = ir.print_statements([ir.Comment(text), ir.Pass()]).text
    lines = printed.split("\n")[:-1]
    assert printed.splitlines() == lines
    assert all(line.startswith("#") for line in lines[:-1]) and lines[-1] == "pass"
    assert [type(s) for s in ast.parse(printed).body] == [ast.Pass]


def _bodies(children: st.SearchStrategy[list[ir.Statement]]) -> st.SearchStrategy[ir.Statement]:
    nonempty = children.filter(
        lambda body: any(not isinstance(s, ir.Blank | ir.Comment) for s in body)
    )
    body = nonempty.map(tuple)
    return st.one_of(
        st.builds(ir.If, SMALL_EXPRESSIONS, body, st.one_of(st.just(()), body)),
        st.builds(lambda b: ir.For(("c",), ir.List((ir.Literal(1),)), b), body),
        st.builds(lambda b: ir.Def("g", (ir.Parameter("a"),), b), body),
    )


TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)
SIMPLE = st.one_of(
    st.builds(lambda value: ir.assign("c", value), SMALL_EXPRESSIONS),
    st.builds(ir.ExprStmt, SMALL_EXPRESSIONS),
    st.builds(ir.Return, st.one_of(st.none(), SMALL_EXPRESSIONS)),
    st.text(max_size=20).map(ir.Comment),
    st.just(ir.Blank()),
    st.just(ir.Pass()),
    st.builds(ir.Load, TEXT, st.lists(TEXT, max_size=5).map(tuple)),
)
STATEMENTS = st.recursive(
    st.lists(SIMPLE, min_size=1, max_size=4),
    lambda children: st.lists(st.one_of(SIMPLE, _bodies(children)), min_size=1, max_size=4),
    max_leaves=10,
)


def _expected_lines(
    statements: tuple[ir.Statement, ...] | list[ir.Statement],
    nodes: list[ast.stmt],
    path: ir.Path,
    found: dict[ir.Path, int],
    numbered_from: int = 0,
) -> None:
    """The line Python's parser puts each statement on, by IR path (comments and blanks
    have no node)."""
    remaining = list(nodes)
    for position, statement in enumerate(statements, numbered_from):
        if isinstance(statement, ir.Blank | ir.Comment):
            continue
        node = remaining.pop(0)
        where = (*path, position)
        found[where] = node.lineno
        if isinstance(statement, ir.If):
            assert isinstance(node, ast.If)
            _expected_lines(statement.body, node.body, where, found)
            after = len(statement.body)
            _expected_lines(statement.orelse, node.orelse, where, found, after)
        elif isinstance(statement, ir.For | ir.Def):
            assert isinstance(node, ast.For | ast.FunctionDef)
            _expected_lines(statement.body, node.body, where, found)


@settings(max_examples=300, deadline=None)
@given(STATEMENTS, st.booleans())
def test_printed_statements_parse_and_report_their_lines(
    statements: list[ir.Statement], hug: bool
) -> None:
    printed = ir.print_statements(statements, ir.Layout(hug=hug))
    module = ast.parse(printed.text)
    expected: dict[ir.Path, int] = {}
    _expected_lines(statements, module.body, (), expected)
    for path, line in expected.items():
        assert printed.spans[path][0] == line
    if not expected and not any(isinstance(s, ir.Comment) for s in statements):
        assert printed.text == ""
        return
    lines = printed.text.split("\n")
    assert lines[-1] == "" and "" not in (lines[0], lines[-2])
    assert "\n\n\n" not in printed.text


def test_blank_lines_never_first_last_or_doubled() -> None:
    body = (ir.Blank(), ir.Pass(), ir.Blank(), ir.Blank(), ir.Pass(), ir.Blank())
    printed = ir.print_statements([ir.Blank(), ir.Def("g", (), body), ir.Blank()])
    assert printed.text == "def g():\n    pass\n\n    pass\n"
    assert printed.spans == {(1, 1): (2, 2), (1, 4): (4, 4), (1,): (1, 4)}


def test_a_call_hugs_its_last_bracket_only_when_the_layout_says_so() -> None:
    items = tuple((ir.Str(f"key{i}"), ir.Name("value")) for i in range(8))
    expr = ir.call("call_tool", ir.Str("tool"), ir.Dict(items))
    hugged = ir.render(expr)
    assert hugged.startswith('call_tool("tool", {\n') and hugged.endswith("\n})")
    apart = ir.render(expr, layout=ir.Layout(hug=False))
    assert apart.startswith('call_tool(\n    "tool",\n    {\n') and apart.endswith("\n    },\n)")


def test_else_of_one_if_is_elif() -> None:
    inner = ir.If(ir.Name("b"), (ir.Pass(),), (ir.Break(),))
    printed = ir.print_statements([ir.If(ir.Name("a"), (ir.Continue(),), (inner,))])
    assert printed.text == "if a:\n    continue\nelif b:\n    pass\nelse:\n    break\n"


def test_spaced_keywords_and_parameters() -> None:
    call = ir.Call(ir.Name("go_field"), (ir.Name("x"),), (("at", ir.Str("p")),), True)
    assert ir.flat(call) == 'go_field(x, at = "p")'
    default = ir.Lambda((ir.Parameter("item", ir.Name("item")),), ir.Name("item"))
    assert ir.flat(default) == "lambda item=item: item"


def test_comparisons_do_not_chain() -> None:
    chained = ir.Binary(ir.Binary(ir.Name("a"), "==", ir.Name("b")), "==", ir.Name("c"))
    assert ir.flat(chained) == "(a == b) == c"


def test_a_body_runs_something() -> None:
    with pytest.raises(ValueError):
        ir.If(ir.Name("a"), (ir.Comment("only a comment"), ir.Blank()))


@pytest.mark.parametrize("text", ["", "a b", "1x", "for", "a.b", "None"])
def test_names_are_identifiers(text: str) -> None:
    with pytest.raises(ValueError):
        ir.Name(text)


def test_walk_visits_every_expression_inside() -> None:
    expr = ir.call("f", ir.Binary(ir.Name("a"), "+", ir.Index(ir.Name("b"), ir.Str("k"))))
    kinds = [type(e).__name__ for e in ir.walk(expr)]
    assert kinds == ["Call", "Name", "Binary", "Name", "Index", "Name", "Str"]


def test_a_broken_expression_breaks_everything_around_it() -> None:
    loop = ir.Comprehension(ir.Name("x"), (ir.ForClause(("x",), ir.Name("xs")),))
    expr = ir.call("f", ir.Broken(loop))
    assert ir.flat(expr) == "f([x for x in xs])"
    broken = ir.render(expr, layout=ir.Layout(hug=False))
    assert broken == "f(\n    [\n        x\n        for x in xs\n    ],\n)"


def test_a_hugging_call_hugs_whatever_the_layout() -> None:
    loop = ir.Comprehension(ir.Name("x"), (ir.ForClause(("x",), ir.Name("xs")),))
    expr = ir.Hugging(ir.call("parallel", ir.Broken(loop)))
    assert ir.render(expr, layout=ir.Layout(hug=False)) == "parallel([\n    x\n    for x in xs\n])"


def test_elif_chains_are_a_layout_option() -> None:
    inner = ir.If(ir.Name("b"), (ir.Pass(),))
    statement = ir.If(ir.Name("a"), (ir.Continue(),), (inner,))
    printed = ir.print_statements([statement], ir.Layout(elif_chains=False))
    assert printed.text == "if a:\n    continue\nelse:\n    if b:\n        pass\n"


def test_a_tuple_returns_without_parentheses() -> None:
    printed = ir.print_statements([ir.ReturnTuple((ir.Name("a"), ir.Name("b")))])
    assert printed.text == "return a, b\n"
