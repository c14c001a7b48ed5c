"""Imports go down the layers docs/architecture.md names, and no two packages import each other;
inside the harness, the same holds of its stages."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import networkx as nx

from tests.architecture.imports import PACKAGE, imports_of, module_files, module_name
from tests.conftest import REPO_ROOT

ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"
STYLES = ("transpiler.emit.exact", "transpiler.emit.readable")
HARNESS = PACKAGE / "harness"


def layers(block_name: str = "layers") -> dict[str, int]:
    """Each unit a block of docs/architecture.md names (by default the package's top-level
    units) and its layer's depth (0 is the top); a line may start with its layer's name."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = re.search(rf"^```{block_name}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert block is not None, f"docs/architecture.md has no ```{block_name} block"
    depth: dict[str, int] = {}
    for number, line in enumerate(block.group(1).splitlines()):
        _, _, names = line.rpartition(":")
        for name in names.split():
            assert name not in depth, f"{name} is in two layers"
            depth[name] = number
    return depth


def unit(module: str) -> str | None:
    """The top-level package or module of a dotted name (None for the root package)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def stage(module: str) -> str | None:
    """The harness stage (its subpackage) a dotted name is in (None outside the stages)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["transpiler", "harness"] else None


def edges() -> set[tuple[str, str]]:
    """Every import between two modules of the package, as (importer, imported)."""
    found = set()
    for path in module_files():
        importer = module_name(path)
        for target in imports_of(path):
            if unit(target) is not None:
                found.add((importer, target))
    return found


def unit_edges(pairs: Iterable[tuple[str, str]], known: Iterable[str]) -> set[tuple[str, str]]:
    """The imports between different top-level units (names that are not modules dropped)."""
    units = set(known)
    result = set()
    for importer, target in pairs:
        a, b = unit(importer), unit(target)
        if a is not None and b is not None and a != b and b in units:
            result.add((a, b))
    return result


def upward(pairs: Iterable[tuple[str, str]], depth: Mapping[str, int]) -> list[str]:
    """The unit imports that go to a higher layer."""
    return sorted(f"{a} -> {b}" for a, b in pairs if depth[b] < depth[a])


def cycles(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The import cycles between units."""
    return [sorted(cycle) for cycle in nx.simple_cycles(nx.DiGraph(list(pairs)))]


def _units() -> set[str]:
    return {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py")
        or (path.is_dir() and (path / "__init__.py").is_file())
    }


def test_every_unit_is_in_one_layer() -> None:
    assert _units() == set(layers())


def test_no_import_goes_up_a_layer() -> None:
    depth = layers()
    assert upward(unit_edges(edges(), depth), depth) == []


def test_no_two_units_import_each_other() -> None:
    assert cycles(unit_edges(edges(), layers())) == []


def stage_edges(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The imports between different harness stages."""
    result = set()
    for importer, target in pairs:
        a, b = stage(importer), stage(target)
        if a is not None and b is not None and a != b:
            result.add((a, b))
    return result


def test_every_harness_module_is_in_one_stage_of_one_layer() -> None:
    stages = {path.name for path in HARNESS.iterdir() if (path / "__init__.py").is_file()}
    assert stages == set(layers("harness-layers"))
    assert [path.name for path in HARNESS.glob("*.py")] == ["__init__.py"]


def test_no_harness_import_goes_up_a_stage() -> None:
    assert upward(stage_edges(edges()), layers("harness-layers")) == []


def test_no_two_harness_stages_import_each_other() -> None:
    assert cycles(stage_edges(edges())) == []


def test_the_two_styles_and_the_shared_emit_modules_stay_apart() -> None:
    crossing = []
    for importer, target in sorted(edges()):
        if not importer.startswith("transpiler.emit") or importer == "transpiler.emit":
            continue
        own = next((style for style in STYLES if importer.startswith(style)), None)
        other = next((style for style in STYLES if target.startswith(style)), None)
        if other is not None and other != own:
            crossing.append(f"{importer} -> {target}")
    assert crossing == []


def test_the_checks_fail_on_an_upward_edge_and_a_cycle() -> None:
    depth = {"cli": 0, "emit": 1, "config": 2}
    pairs = [
        ("transpiler.config.model", "transpiler.emit.ir"),
        ("transpiler.cli", "transpiler.emit"),
    ]
    found = unit_edges(pairs, depth)
    assert upward(found, depth) == ["config -> emit"]
    assert cycles({("emit", "config"), ("config", "emit")}) == [["config", "emit"]]
