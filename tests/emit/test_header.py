"""The header comment both styles write: text stays comment, bullets wrap at the style's width."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from transpiler.emit.header import header_comment


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=4), st.integers(20, 96))
def test_every_header_line_is_a_comment(items: list[str], width: int) -> None:
    text = header_comment(["tool: a summary", "", "Migrated from x."], [("Notes:", items)], width)
    lines = text.split("\n")
    assert lines[-1] == "" and text.splitlines() == lines[:-1]
    assert all(line.startswith("#") for line in lines[:-1])
    assert ast.parse(text).body == []


def test_sections_without_items_are_left_out_and_bullets_wrap() -> None:
    item = "word " * 30
    text = header_comment(["intro"], [("Empty:", []), ("Full:", [item])], 40)
    assert "Empty:" not in text
    lines = text.splitlines()
    assert lines[:4] == ["# intro", "#", "# Full:", "#   - word word word word word word word"]
    assert all(len(line) <= 42 for line in lines) and lines[4].startswith("#     word")
