"""What a command loads before it answers: ``--help`` and the hook with nothing to check import
no command's code and no heavy dependency; a command imports its own module alone. (How long
they take is measured by ``benchmarks/bench_startup.py``, not here.)"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import transpiler.cli
from tests.conftest import REPO_ROOT
from transpiler.cli import COMMANDS

#: What every command's start loads of this package.
CORE = {"transpiler", "transpiler.cli", "transpiler.cli.common", "transpiler.diagnostics"}
#: The hook's first look at the staged files' names and its policy lookup.
HOOK = {"transpiler.cli.hook", "transpiler.filenames", "transpiler.policy", "transpiler.reading"}
#: The project's dependencies (as imported), none of which these paths need.
HEAVY = {"yaml", "jinja2", "libcst", "networkx", "starlark", "hypothesis", "unicodedata2"}


def _loaded(arguments: list[str], cwd: Path) -> set[str]:
    """The modules loaded by ``main(arguments)`` in a new interpreter."""
    program = (
        "import sys\n"
        "from transpiler.cli import main\n"
        "try:\n"
        f"    main({arguments!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, check=True
    )
    return set(finished.stderr.rpartition("\nMODULES ")[2].split())


def _ours(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] == "transpiler"}


def test_help_imports_no_command() -> None:
    loaded = _loaded(["--help"], REPO_ROOT)
    assert _ours(loaded) == CORE
    assert not loaded & HEAVY


def test_the_hook_with_nothing_to_check_imports_neither_check_nor_yaml(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "ci.yaml").write_text("on: push\n")
    (tmp_path / "lib.json").write_text('{"name": "not a configuration"}\n')
    loaded = _loaded(["hook", "ci.yaml", "lib.json", "--strict"], tmp_path)
    assert _ours(loaded) == CORE | HOOK
    assert not loaded & HEAVY


def test_a_command_imports_its_own_module_alone() -> None:
    loaded = _loaded(["deviations", "--format", "json"], REPO_ROOT)
    commands = {f"transpiler.cli.{name}" for name in COMMANDS}
    assert loaded & commands == {"transpiler.cli.deviations"}


def test_every_command_module_is_in_the_registry() -> None:
    modules = {
        info.name
        for info in pkgutil.iter_modules(transpiler.cli.__path__)
        if hasattr(importlib.import_module(f"transpiler.cli.{info.name}"), "register")
    }
    assert modules == set(COMMANDS)
