"""The emitter shares no code with the composite model or the simulator (issue 14, item 4).

Both are implementations of vMCP's rules that the harness compares; if the
emitter called the model's code, a bug in it would show up on both sides and
never be seen. Every import statement of every module under
``transpiler/emit`` is checked, lazy ones inside functions included, and so is
everything those imports reach (docs/equivalence.md, "What the two sides
share").
"""

from __future__ import annotations

from pathlib import Path

from tests.architecture.imports import PACKAGE, file_of, imported, imports_of, module_name
from tests.conftest import REPO_ROOT

FORBIDDEN = ("transpiler.composite", "transpiler.sim")
SHARED = ("transpiler.config", "transpiler.golang", "transpiler.gotemplate", "transpiler.plan")


def _reached(start: list[Path]) -> dict[str, str]:
    """Every transpiler module the files import, directly or not, with one importer each.

    A module's parent packages run when it is imported, so they count too,
    except the root package, whose only import (the library API) happens on
    attribute access.
    """
    importer: dict[str, str] = {}
    pending = [(module_name(path), path) for path in start]
    while pending:
        name, path = pending.pop()
        for module in imports_of(path):
            parts = module.split(".")
            for end in range(2, len(parts) + 1):
                target = ".".join(parts[:end])
                where = file_of(target)
                if where is not None and target not in importer:
                    importer[target] = name
                    pending.append((target, where))
    return importer


def _emit_files() -> list[Path]:
    return sorted((PACKAGE / "emit").rglob("*.py"))


def _forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN)


def test_no_emit_module_imports_the_model_or_the_simulator() -> None:
    files = _emit_files()
    assert len(files) > 30
    offending = {
        f"{path.relative_to(REPO_ROOT)}: {module}"
        for path in files
        for module in imports_of(path)
        if _forbidden(module)
    }
    assert not offending, sorted(offending)


def test_nothing_the_emitter_reaches_imports_them_either() -> None:
    reached = _reached(_emit_files())
    offending = {f"{module} (from {by})" for module, by in reached.items() if _forbidden(module)}
    assert not offending, sorted(offending)
    outside = {m for m in reached if not m.startswith(("transpiler.emit", *SHARED))}
    neutral = {  # docs/equivalence.md, "What the two sides share": none decides a rule
        "transpiler.diagnostics",
        "transpiler.deviations",
        "transpiler.declaration",
        "transpiler.inert",
        "transpiler.reading",
        "transpiler.profile",
    }
    assert outside <= neutral, sorted(outside)


def test_the_check_sees_lazy_relative_and_guarded_imports() -> None:
    source = (
        "def later():\n    from transpiler.sim import kernel\n\n"
        "if False:\n    import transpiler.composite.output\n\n"
        "from ..composite import errors\nfrom . import scope\n"
    )
    assert imported(source, "transpiler.emit") == {
        "transpiler.sim",
        "transpiler.sim.kernel",
        "transpiler.composite.output",
        "transpiler.composite",
        "transpiler.composite.errors",
        "transpiler.emit",
        "transpiler.emit.scope",
    }

