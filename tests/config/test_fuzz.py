"""Fuzzing: any bytes give a model or clean diagnostics, in bounded time, never an exception."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import CORPUS, UPSTREAM_CORPUS
from transpiler.config.loader import load_bytes
from transpiler.plan import plan_tool
from transpiler.validate import validate

SEEDS = sorted([*CORPUS.rglob("*.yaml"), *UPSTREAM_CORPUS.rglob("*.yaml")])
SEED_BYTES = [path.read_bytes() for path in SEEDS]
TOKENS = [
    *(b": ", b"- ", b"\n", b"  ", b"{", b"}", b"[", b"]", b"&a ", b"*a", b"<<: ", b"!!int "),
    *(b"'", b'"', b"{{", b"}}", b"{{.steps.", b"dependsOn: [", b"type: forEach\n", b"~", b"\t"),
    *(b"\xff", b"---\n"),
]
SECONDS_PER_INPUT = 10.0


def check(data: bytes) -> None:
    """Load, validate and plan; every problem must be a diagnostic naming the file."""
    start = time.monotonic()
    load = load_bytes(data, "fuzz.yaml")
    report = validate(load)
    for tool in load.tools:
        plan_tool(tool)
    for diagnostic in report.diagnostics:
        assert diagnostic.location.file == "fuzz.yaml"
        assert diagnostic.rule and diagnostic.message
    assert time.monotonic() - start < SECONDS_PER_INPUT


@given(st.binary(max_size=2048))
def test_random_bytes(data: bytes) -> None:
    check(data)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEED_BYTES)))
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        position = draw(st.integers(min_value=0, max_value=len(data)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        if action == "insert":
            data[position:position] = draw(
                st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=8)
            )
        elif action == "delete":
            del data[position : position + draw(st.integers(min_value=1, max_value=40))]
        elif action == "replace" and position < len(data):
            data[position] = draw(st.integers(min_value=0, max_value=255))
        else:
            end = data.find(b"\n", position)
            line = data[position : end + 1 if end >= 0 else len(data)]
            data[position:position] = line
    return bytes(data)


@given(mutated())
def test_mutated_corpus_files(data: bytes) -> None:
    check(data)
