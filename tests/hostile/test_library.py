"""The library's one exception for bad input is InputError (issue 13, item 11).

Reproductions: ``load()`` of a 100,000-deep dict raised RecursionError and
``loads("\\ud800")`` raised UnicodeEncodeError.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import transpiler
from tests.conftest import fuzz_budget
from transpiler.config.loader import MAX_FILE_BYTES
from transpiler.diagnostics import InputError

GOOD = {
    "compositeTools": [
        {"name": "t", "description": "d", "steps": [{"id": "a", "tool": "svc.echo"}]}
    ]
}


def deep(levels: int, inner: Any = None) -> Any:
    value: Any = inner
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "source",
    [deep(100_000), [[[]]] * 2 + [deep(50_000)], {"compositeTools": [deep(200)]}],
    ids=["dict", "list", "tool"],
)
def test_deep_data_is_an_input_error(source: Any) -> None:
    with pytest.raises(InputError, match="nests deeper than"):
        transpiler.load({"x": source})


def test_text_that_is_not_unicode_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not valid Unicode"):
        transpiler.loads("name: \ud800")


def test_content_over_the_size_limit_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="the limit is"):
        transpiler.loads(b"#" * (MAX_FILE_BYTES + 1))
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(InputError, match="the limit is"):
        transpiler.load(big)


def test_a_file_name_that_is_not_utf8_loads(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.yaml")  # a lone surrogate in Python
    (tmp_path / name).write_text("compositeTools: []\n")
    config = transpiler.load(tmp_path)
    assert config.valid and config.tools == ()


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=20,
)


def exercise(config: transpiler.Config) -> None:
    config.validate()
    for name in set(config.tools):
        if config.tools.count(name) == 1:
            config.transpile(name)
            config.plan(name)


@settings(max_examples=fuzz_budget(60), suppress_health_check=list(HealthCheck), deadline=None)
@given(
    value=st.one_of(
        JSONISH,
        st.builds(lambda v: {**GOOD, "extra": v}, JSONISH),
        st.builds(lambda v: {"compositeTools": [{**GOOD["compositeTools"][0], "x": v}]}, JSONISH),
        st.integers(min_value=120, max_value=140).map(deep),
    ),
    text=st.text() | st.binary(),
)
def test_fuzz_nothing_but_input_error_escapes(value: Any, text: str | bytes) -> None:
    attempts: list[Callable[[], transpiler.Config]] = [
        lambda: transpiler.load({"v": value}),
        lambda: transpiler.loads(text),
    ]
    for attempt in attempts:
        try:
            config = attempt()
        except InputError:
            continue
        exercise(config)
