"""YAML text written by migrate reads back as exactly the value meant (property tests)."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from transpiler.composite.output_schema import output_schema
from transpiler.config.loader import load_bytes
from transpiler.config.model import OutputConfig, OutputProperty
from transpiler.config.yamltext import block, literal_block, scalar
from transpiler.inputs.textspan import Text
from transpiler.inputs.yamlspan import parse_spans

_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"))
_LINE = st.text(
    st.characters(
        codec="utf-8", exclude_categories=["Cc", "Zl", "Zp"], exclude_characters="\ufeff\x85"
    ),
    max_size=30,
)


@given(_TEXT)
def test_scalars_read_back_as_strings(text: str) -> None:
    assert yaml.safe_load(f"key: {scalar(text)}\n") == {"key": text}


@given(
    st.lists(_LINE, min_size=1, max_size=8).filter(lambda lines: lines[-1].strip() != ""),
    st.booleans(),
    st.integers(0, 6),
)
def test_literal_blocks_keep_the_script_exactly(lines: list[str], final: bool, indent: int) -> None:
    script = "\n".join(lines) + ("\n" if final else "")
    body = literal_block("script", script, indent, 2) + "\n" + " " * indent + "next: 1\n"
    data = yaml.safe_load("outer:\n" + body if indent else body)
    inner = data["outer"] if indent else data
    assert inner == {"script": script, "next": 1}


def test_a_script_ending_in_blank_lines_is_refused() -> None:
    try:
        literal_block("script", "x\n\n", 0, 2)
    except ValueError:
        return
    raise AssertionError("a |+ block would swallow the blank lines after it")


def test_output_schema_is_what_vmcp_advertises() -> None:
    output = OutputConfig(
        properties={
            "status": OutputProperty(type="string", description="State", value="{{.x}}"),
            "detail": OutputProperty(
                type="object",
                description="More",
                properties={"code": OutputProperty(type="integer", default=3)},
            ),
            "list": OutputProperty(
                type="array", properties={"ignored": OutputProperty(type="string")}
            ),
        },
        required=("status",),
    )
    assert output_schema(output) == {
        "type": "object",
        "properties": {
            "status": {"type": "string", "description": "State"},
            "detail": {
                "type": "object",
                "description": "More",
                "properties": {"code": {"type": "integer", "description": ""}},
            },
            "list": {"type": "array", "description": ""},
        },
        "required": ["status"],
    }
    assert "required" not in output_schema(OutputConfig(properties={}))


@given(
    st.recursive(
        st.dictionaries(st.sampled_from(["type", "a b", "on", "1", "x: y"]), _TEXT, max_size=3),
        lambda inner: st.dictionaries(st.sampled_from(["p", "q", "-r"]), inner, min_size=1),
        max_leaves=8,
    ),
    st.integers(0, 4),
)
def test_block_mappings_read_back(value: dict[str, object], indent: int) -> None:
    text = "k:\n" + block(value, indent + 2, 2) if value else "k: {}\n"
    assert yaml.safe_load(text) == {"k": value or {}}


def test_spans_end_where_the_content_ends() -> None:
    source = "a:\n  b: |\n    x\n\n    # not a comment\n\n# a comment\nc: [1, 2]  # t\n"
    text = Text(source)
    (document,) = parse_spans(source)
    assert document.root is not None
    key, value = document.root.pairs()[0]
    end = text.entry_end(key, value)
    assert source[:end].endswith("# not a comment\n")
    c_key, c_value = document.root.pairs()[1]
    assert source[c_value.start : c_value.end] == "[1, 2]"
    assert text.entry_end(c_key, c_value) == len(source)


def test_span_documents_match_the_loader() -> None:
    source = b"# c\n---\nname: a\n---\n---\ncompositeTools: []\n"
    spans = parse_spans(source.decode())
    load = load_bytes(source)
    assert [unit.document for unit in load.units] == [0, 2]
    assert [span.index for span in spans] == [0, 1, 2]
    assert spans[0].root is not None and spans[0].root.get("name") is not None
    assert spans[1].root is not None and spans[1].root.value == ""
    assert spans[2].root is not None and spans[2].root.get("compositeTools") is not None
