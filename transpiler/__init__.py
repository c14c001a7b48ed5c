"""vMCP composite tools to Starlark scripted tools, with proof of equivalence."""

__version__ = "0.1.0"
