"""Which interpreters run scripts: recorded in ``check``'s certificates and reports."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable

from transpiler import gobuild


def engine_versions(engines: Iterable[str]) -> dict[str, str]:
    """starlark-pyo3's version (rust); go.starlark.net's commit and Go's version (go)."""
    chosen = set(engines)
    versions: dict[str, str] = {}
    if "rust" in chosen:
        versions["starlark-pyo3"] = importlib.metadata.version("starlark-pyo3")
    if "go" in chosen:
        toolchain = gobuild.toolchain()
        versions["go.starlark.net"] = toolchain.starlark
        versions["go"] = toolchain.version
    return versions
