"""Lexer, parser and printer: positions, node texts and the print/parse round trip."""

from __future__ import annotations

from hypothesis import given

from tests.gotemplate.strategies import template_strategy
from transpiler.gotemplate import TemplateSyntaxError, ast, parse
from transpiler.gotemplate.lexer import ItemType, Lexer
from transpiler.gotemplate.parser import parse_template
from transpiler.gotemplate.printer import node_text


def tokens(text: str) -> list[tuple[ItemType, str]]:
    lexer = Lexer(text)
    found = []
    while True:
        item = lexer.next_item()
        found.append((item.type, item.val))
        if item.type in (ItemType.EOF, ItemType.ERROR):
            return found


def test_trim_markers_are_handled_by_the_lexer() -> None:
    assert tokens("a \n{{- .x -}}\n b") == [
        (ItemType.TEXT, "a"),
        (ItemType.LEFT_DELIM, "{{"),
        (ItemType.FIELD, ".x"),
        (ItemType.RIGHT_DELIM, "}}"),
        (ItemType.TEXT, "b"),
        (ItemType.EOF, ""),
    ]
    assert tokens("{{-3}}")[1] == (ItemType.NUMBER, "-3")


def test_lexer_errors() -> None:
    assert tokens("{{.a-}}")[-1] == (ItemType.ERROR, "bad character U+002D '-'")
    assert tokens("{{1)}}")[-1] == (ItemType.ERROR, "unexpected right paren")
    assert tokens("{{/* x }}")[-1] == (ItemType.ERROR, "unclosed comment")


def test_positions_are_bytes_lines_and_columns() -> None:
    root = parse_template("é\n  {{.a.b}}", "expand").root
    action = root.nodes[1]
    assert isinstance(action, ast.ActionNode)
    field = action.pipe.cmds[0].args[0]
    assert field.pos == ast.Position(offset=9, line=2, column=6)


def test_node_text_is_go_string_form() -> None:
    template = parse('{{$x := (index .a 1).b | printf "%d"}}{{if $x}}y{{else}}n{{end}}')
    assert node_text(template.root) == (
        '{{$x := (index .a 1).b | printf "%d"}}{{if $x}}y{{else}}n{{end}}'
    )


@given(template_strategy())
def test_printing_then_parsing_gives_the_same_tree(text: str) -> None:
    try:
        template = parse(text)
    except TemplateSyntaxError:
        return
    printed = node_text(template.root)
    reprinted = node_text(parse(printed).root)
    assert reprinted == printed
