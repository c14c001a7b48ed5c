"""The import statements of the package's modules, lazy, relative and guarded ones included."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "transpiler"


def module_name(path: Path) -> str:
    """The dotted name of a module file (a package's ``__init__`` is the package)."""
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def file_of(module: str) -> Path | None:
    """The file a dotted transpiler module name is, if it is one."""
    base = REPO_ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported(source: str, package: str) -> set[str]:
    """Every transpiler module an import statement names, wherever the statement is.

    ``package`` is the package the source belongs to (for relative imports);
    ``from m import n`` names both ``m`` and ``m.n`` (which may be a module).
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = parts if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "transpiler" or name.startswith("transpiler.")}


def imports_of(path: Path) -> set[str]:
    """The transpiler modules the file at ``path`` imports."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imported(path.read_text(encoding="utf-8"), package)


def module_files() -> list[Path]:
    """Every module of the package."""
    return sorted(PACKAGE.rglob("*.py"))
