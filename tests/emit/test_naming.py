"""Identifiers for the names a workflow uses: snake_case, unique, never a keyword or builtin."""

from __future__ import annotations

import keyword
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transpiler.emit.naming import BUILTINS, KEYWORDS, Namer, identifier


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pullNumber", "pull_number"),
        ("HTTPServer", "http_server"),
        ("prURL", "pr_url"),
        ("fetch-logs", "fetch_logs"),
        ("already_snake", "already_snake"),
        ("ABC", "abc"),
        ("2fa", "step_2fa"),
        ("", "step"),
    ],
)
def test_camel_case_names_become_snake_case(name: str, expected: str) -> None:
    assert identifier(name) == expected


@given(st.lists(st.text(max_size=12), max_size=12))
def test_a_namer_hands_out_distinct_identifiers_that_shadow_nothing(keys: list[str]) -> None:
    namer = Namer()
    given_names = [namer.name(key) for key in keys]
    distinct = {key: namer.name(key) for key in keys}
    assert given_names == [distinct[key] for key in keys]
    assert len(set(distinct.values())) == len(distinct)
    for name in distinct.values():
        assert re.fullmatch(r"[a-z_][a-z0-9_]*", name), name
        assert name not in KEYWORDS | BUILTINS and not keyword.iskeyword(name)
