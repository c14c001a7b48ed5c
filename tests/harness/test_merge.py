"""``check --merge``: the reports of a run's shards give the verdicts, counts and exit code of
the same run unsharded; reports of another run, a shard twice or a missing shard are refused."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.cli.common import EXIT_FAILED, EXIT_INPUT

RUN = ["--examples", "3", "--paths", "8", "--jobs", "1", "--engine", "rust"]


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example migrated beside its composite tools, one script broken: 3 of 4 tools pass."""
    work = tmp_path_factory.mktemp("gateway")
    config = work / "vmcp-config.yaml"
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", config)
    assert main(["migrate", str(config), "--write", "--keep-composite", "--examples", "2"]) == 0
    text = config.read_text()
    scripted = text.index("scriptedTools:")
    config.write_text(text[:scripted] + text[scripted:].replace('"json"', '"csv"'))
    return work


def _check(gateway: Path, out: Path, *more: str) -> int:
    reports = ["--report-json", f"{out}.json", "--junit", f"{out}.xml", "--report-md", f"{out}.md"]
    return main(["check", str(gateway), *RUN, *more, *reports])


def _verdicts(report: Path) -> list[tuple[str, str, str, bool]]:
    tools = json.loads(report.read_text())["tools"]
    return [(t["file"], t["tool"], t["verdict"], t["passes"]) for t in tools]


def _cases(junit: Path) -> list[tuple[str, bool]]:
    suite = ElementTree.parse(junit).getroot()
    return [(case.get("name", ""), case.find("failure") is not None) for case in suite]


def test_merged_shards_give_the_verdicts_and_counts_of_one_run(
    gateway: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole"
    assert _check(gateway, whole) == EXIT_FAILED
    shards = [tmp_path / f"shard{n}" for n in (1, 2, 3)]
    for number, shard in enumerate(shards, 1):
        _check(gateway, shard, "--shard", f"{number}/3")
    capsys.readouterr()
    merged = tmp_path / "merged"
    arguments = ["--report-json", f"{merged}.json", "--junit", f"{merged}.xml"]
    arguments += ["--report-md", f"{merged}.md"]
    shuffled = [f"{shards[2]}.json", f"{shards[0]}.json", f"{shards[1]}.json"]
    assert main(["check", "--merge", *shuffled, *arguments]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "3 of 4 tool(s) pass" in out and "merged from 3 shard(s)" in out
    assert "FAIL            differs  sync_inventory" in out
    assert _verdicts(Path(f"{merged}.json")) == _verdicts(Path(f"{whole}.json"))
    counts = [json.loads(Path(f"{r}.json").read_text()) for r in (merged, whole)]
    assert [(c["passed"], c["total"]) for c in counts] == [(3, 4), (3, 4)]
    assert _cases(Path(f"{merged}.xml")) == _cases(Path(f"{whole}.xml"))
    summary = re.compile(r"^\*\*\d+ of \d+ tool\(s\) pass\*\*", re.MULTILINE)
    texts = [Path(f"{r}.md").read_text() for r in (merged, whole)]
    assert [summary.findall(text) for text in texts] == [["**3 of 4 tool(s) pass**"]] * 2


def test_reports_of_another_run_or_an_incomplete_run_are_refused(
    gateway: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two, other = tmp_path / "one", tmp_path / "two", tmp_path / "other"
    _check(gateway, one, "--shard", "1/2")
    _check(gateway, two, "--shard", "2/2")
    _check(gateway, other, "--shard", "2/2", "--seed", "9")
    capsys.readouterr()
    refusals = {
        "a report of another run than": [f"{one}.json", f"{other}.json"],
        "shard(s) 2/2 missing": [f"{one}.json"],
        "shard 1/2 again": [f"{one}.json", f"{one}.json", f"{two}.json"],
    }
    for says, reports in refusals.items():
        assert main(["check", "--merge", *reports]) == EXIT_INPUT
        assert says in capsys.readouterr().err
    headless = json.loads(Path(f"{one}.json").read_text())
    del headless["run"]
    Path(f"{one}.json").write_text(json.dumps(headless))
    assert main(["check", "--merge", f"{one}.json", f"{two}.json"]) == EXIT_INPUT
    assert "no run header: not a report of check --report-json" in capsys.readouterr().err
    assert main(["check", str(gateway), "--merge", f"{two}.json", "--paths", "3"]) == EXIT_INPUT
    error = capsys.readouterr().err
    assert "from its shards' reports: give no --paths, PATH" in error
