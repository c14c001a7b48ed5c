"""``marshal``'s fast path (Python's encoder, for plain values) writes what Go's encoder, step
by step, writes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from transpiler.golang.jsonenc import _walked, marshal

_ASCII = st.text(alphabet=st.characters(max_codepoint=0x7F))
_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), _ASCII
)
_PLAIN = st.recursive(
    _LEAVES,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(_ASCII, children, max_size=4),
    max_leaves=24,
)


@settings(max_examples=1000)
@given(_PLAIN)
def test_plain_values_encode_as_the_walk_does(value: Any) -> None:
    assert marshal(value) == _walked(value)


def test_html_characters_and_controls_are_escaped_as_go_does() -> None:
    value = {"b": ["<a href='x'>&</a>", "\x00\x1f\x7f\b\f\n\r\t\"\\"], "a": None}
    assert marshal(value) == (
        '{"a":null,"b":["\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e",'
        '"\\u0000\\u001f\x7f\\b\\f\\n\\r\\t\\"\\\\"]}'
    )


def test_deep_values_take_the_walk() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    assert marshal(deep) == "[" * 5000 + '"x"' + "]" * 5000
