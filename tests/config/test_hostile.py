"""Hostile input: a clear error naming file and line, in bounded time, never a traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from transpiler.cli import main
from transpiler.config import yamlv3
from transpiler.config.loader import MAX_FILE_BYTES, load_bytes, load_paths
from transpiler.config.yamlv3 import MAX_DEPTH
from transpiler.validate import validate

TOOL = (
    "compositeTools:\n  - name: t\n    description: d\n    steps:\n      - id: a\n        tool: x\n"
)


def laughs(levels: int) -> str:
    """A billion-laughs document whose bomb sits inside a step's arguments."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    anchors = "\n".join("          " + line for line in lines)
    return TOOL + f"        arguments:\n{anchors}\n"


def timed(action: object) -> float:
    start = time.monotonic()
    assert callable(action)
    action()
    return time.monotonic() - start


def test_alias_bomb() -> None:
    load = load_bytes(laughs(9).encode(), "bomb.yaml")
    assert [d.rule for d in load.errors] == ["LIMIT.aliases"]
    assert load.errors[0].message == "yaml: document contains excessive aliasing"
    assert load.errors[0].location.line > 0
    assert timed(lambda: load_bytes(laughs(9).encode(), "bomb.yaml")) < 10


def test_alias_bomb_in_a_manifest() -> None:
    names = ", ".join(f"d{i}" for i in range(5000))
    aliases = ", ".join(["*s"] * 5000)
    text = (
        f"s: &s {{id: a, tool: x, dependsOn: [{names}]}}\n"
        f"kind: VirtualMCPCompositeToolDefinition\nspec:\n  name: t\n  steps: [{aliases}]\n"
    )
    load = load_bytes(text.encode(), "bomb.yaml")
    assert [d.rule for d in load.errors] == ["LIMIT.aliases"]
    assert timed(lambda: load_bytes(text.encode(), "bomb.yaml")) < 10


def test_self_containing_alias() -> None:
    load = load_bytes(b"a: &x [1, *x]\n", "loop.yaml")
    assert [(d.rule, d.message) for d in load.errors] == [
        ("P1.yaml.syntax", "yaml: anchor 'x' value contains itself")
    ]


@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_deep_nesting(opener: str) -> None:
    depth = 100_000
    closer = {"[": "]", "{a: ": "}", "- ": ""}[opener]
    text = opener * depth + "1" + closer * depth
    load = load_bytes(text.encode(), "deep.yaml")
    assert [d.rule for d in load.errors] == ["LIMIT.depth"]
    assert f"nesting deeper than {MAX_DEPTH} levels" in load.errors[0].message
    assert timed(lambda: load_bytes(text.encode(), "deep.yaml")) < 5


PARSERS = {
    # yaml.CSafeLoader's parser: libyaml, bundled in PyYAML's wheels; from PyYAML 6.0.3 it has
    # a nesting limit of its own, met while scanning ahead of the events.
    "CSafeLoader": "libyaml",
    # yaml.SafeLoader's parser: PyYAML's pure-Python one, which has no limit of its own.
    "SafeLoader": "pure-python",
}


@pytest.mark.parametrize("loader", sorted(PARSERS))
@pytest.mark.parametrize("opener", ["[", "{a: ", "- ", "[{a: "])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 999, 1_001, 20_000])
def test_depth_limit_is_ours_on_every_parser(
    loader: str, opener: str, depth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LIMIT.depth: the same rule, message, line and column whichever parser reads the file."""
    assert yamlv3._LIBYAML_PARSER is not None, "the locked PyYAML ships libyaml"
    closer = {"[": "]", "{a: ": "}", "- ": "", "[{a: ": "}]"}[opener]
    text = ("ok: [1]\n---\n" + opener * depth + "1" + closer * depth + "\n").encode()
    expected = load_bytes(text, "deep.yaml")
    if PARSERS[loader] == "pure-python":
        monkeypatch.setattr(yamlv3, "_LIBYAML_PARSER", None)
    load = load_bytes(text, "deep.yaml")
    assert [(d.rule, d.message, d.location.line) for d in load.errors] == [
        ("LIMIT.depth", yamlv3.DEPTH_DEVIATION, 3)
    ]
    assert [(d.location.line, d.location.column) for d in load.errors] == [
        (d.location.line, d.location.column) for d in expected.errors
    ]
    assert [d.root is not None for d in yamlv3.parse_documents(b"a: 1\n---\nb: 2\n")] == [
        True,
        True,
    ]


def test_oversized_file(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# padding\n" * (MAX_FILE_BYTES // 10 + 1))
    load = load_paths([big])
    assert [d.rule for d in load.unreadable] == ["INPUT.unreadable"]
    assert str(MAX_FILE_BYTES) in load.unreadable[0].message
    assert main(["validate", str(big)]) == 2


def test_largest_accepted_file_is_fast() -> None:
    steps = "".join(
        f"      - id: s{i}\n        tool: svc.t{i}\n        arguments: {{x: '{{{{.params.v}}}}'}}\n"
        for i in range(12_000)
    )
    text = ("compositeTools:\n  - name: t\n    description: d\n    steps:\n" + steps).encode()
    assert len(text) < MAX_FILE_BYTES
    assert timed(lambda: validate(load_bytes(text, "big.yaml"))) < 60


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe\x00garbage\x80",
        b"a: \x80\x81\n",
        b"\x00\x01\x02",
        b'key: "unterminated\n',
        b"- a\nb: c\n",
    ],
)
def test_binary_and_broken_yaml(data: bytes) -> None:
    load = load_bytes(data, "junk.yaml")
    assert len(load.errors) == 1
    error = load.errors[0]
    assert error.rule == "P1.yaml.syntax" and error.message.startswith("yaml: ")
    assert error.location.file == "junk.yaml" and error.location.line >= 1


def test_cli_reports_instead_of_crashing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(laughs(9).encode())
    assert main(["validate", str(junk)]) == 2
    out = capsys.readouterr().out
    assert f"{junk}:" in out and "LIMIT.aliases" in out
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2
