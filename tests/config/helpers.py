"""Shared helpers: read a YAML file's mapping node and build tools from it."""

from __future__ import annotations

from pathlib import Path

import yaml

from transpiler.config.build import ModelBuilder
from transpiler.config.documents import keyed
from transpiler.config.godecode import GoDecoder
from transpiler.config.model import CompositeToolConfig, DocumentKind, ToolOrigin
from transpiler.config.units import LoadedTool
from transpiler.config.yamlv3 import Node, parse_documents


def read_yaml(path: Path) -> object:
    """A test-data file as plain Python data (its own format, not vMCP config)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def config_node(path: Path, key: str = "config") -> Node:
    """The node under a top-level key of a YAML file."""
    document = next(parse_documents(path.read_bytes()))
    assert document.root is not None
    return keyed(document.root)[key][1]


def written_tool(node: Node, file: str = "<case>") -> LoadedTool:
    """A tool decoded as written, without loader post-processing (``effective`` is ``config``)."""
    decoder = GoDecoder()
    tool = ModelBuilder(decoder, file, strict_yaml=True).composite_tool(node, "compositeTools[0]")
    assert tool is not None and not decoder.issues, decoder.issues
    origin = ToolOrigin(file, 0, DocumentKind.VMCP_CONFIG, "compositeTools[0]")
    return LoadedTool(origin, tool, tool)


def as_tool(config: CompositeToolConfig) -> LoadedTool:
    """Wrap a model object as a loaded tool."""
    origin = ToolOrigin("<model>", 0, DocumentKind.VMCP_CONFIG, "compositeTools[0]")
    return LoadedTool(origin, config, config)
