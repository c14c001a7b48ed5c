"""vMCP composite tools to Starlark scripted tools, with proof of equivalence.

The library API (:mod:`transpiler.api`) is re-exported here and imported on
first use, so ``import transpiler`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from transpiler.api import (
        CheckOptions,
        Config,
        ToolOutcome,
        Transpiled,
        Verdict,
        clear_cache,
        deprecation_message,
        load,
        loads,
    )

_API = frozenset(
    (
        "CheckOptions", "Config", "ToolOutcome", "Transpiled", "Verdict",
        "clear_cache", "deprecation_message", "load", "loads",
    )
)  # fmt: skip

__all__ = [
    "CheckOptions",
    "Config",
    "ToolOutcome",
    "Transpiled",
    "Verdict",
    "__version__",
    "clear_cache",
    "deprecation_message",
    "load",
    "loads",
]


def __getattr__(name: str) -> Any:
    """The library API's names, imported from :mod:`transpiler.api` on first use."""
    if name in _API:
        from transpiler import api

        return getattr(api, name)
    raise AttributeError(f"module 'transpiler' has no attribute {name!r}")
