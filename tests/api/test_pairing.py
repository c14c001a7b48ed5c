"""The library pairs scripts with workflows as ``check`` does: beside, a baseline, one script."""

from __future__ import annotations

import shutil
from pathlib import Path

import transpiler
from tests.conftest import CORPUS
from transpiler.cli import main

EXAMPLE = CORPUS / "example" / "vmcp-config.yaml"
OPTIONS = transpiler.CheckOptions(examples=3, paths=8)


def migrated(tmp_path: Path, *options: str) -> Path:
    path = tmp_path / "vmcp-config.yaml"
    shutil.copy(EXAMPLE, path)
    assert main(["migrate", str(path), "--write", "--examples", "2", *options]) == 0
    return path


def test_scripted_tools_beside_their_composite_tools_are_what_is_checked(tmp_path: Path) -> None:
    config = transpiler.load(migrated(tmp_path, "--keep-composite"))
    assert set(config.scripted_tools) == set(config.tools)
    outcome = config.check("sync_inventory", options=OPTIONS)
    assert outcome.passes(None) and outcome.report is not None
    assert outcome.report.script_source.startswith(f"{tmp_path / 'vmcp-config.yaml'}:")
    assert outcome.emitted is None


def test_a_baseline_gives_the_composite_tools(tmp_path: Path) -> None:
    config = transpiler.load(migrated(tmp_path))
    assert config.tools == () and len(config.scripted_tools) == 4
    outcomes = config.check(options=OPTIONS, baseline=transpiler.load(EXAMPLE))
    assert sorted(outcomes) == sorted(transpiler.load(EXAMPLE).tools)
    assert all(outcome.passes(None) for outcome in outcomes.values())


def test_one_script_for_one_tool() -> None:
    script = (CORPUS / "goldens" / "handwritten" / "sync_inventory.star").read_text()
    config = transpiler.load(EXAMPLE)
    outcome = config.check("sync_inventory", script=script, options=OPTIONS)
    assert outcome.verdict is transpiler.Verdict.EQUIVALENT_EXCEPT
    assert outcome.report is not None
    assert outcome.report.observed == ("error-text", "listing", "step-timeout")
    broken = script.replace('"json"', '"csv"')
    assert config.check("sync_inventory", script=broken, options=OPTIONS).verdict is (
        transpiler.Verdict.DIFFERS
    )
