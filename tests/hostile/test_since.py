"""``check --since REPORT.json`` carries over only what a trusted report vouches for.

docs/reference.md ("check"): ``--since`` re-checks only the pairs whose digest changed;
an entry is carried over only when its certificate is complete and sealed (its
verdict bound to the pair's digest), else the pair is checked again; the
report must come from a trusted run. A file that is not a report of
``check --report-json`` is bad input: exit 2, naming the file and the entry,
never an internal error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.pairing import PAIRING, QUICK, check, copy, verdicts
from transpiler.config.loader import load_paths
from transpiler.harness.reporting.since import CERTIFICATE
from transpiler.harness.running.check import CheckOptions, check_tool

Report = dict[str, Any]


def report_of(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Report]:
    """``check --report-json`` of ``config``: the file and what it holds."""
    path = tmp_path / "report.json"
    check(capsys, config, *QUICK, "--report-json", path, "--counterexamples", tmp_path / "ce")
    return path, json.loads(path.read_text())


def since(
    config: Path, report: Report, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """``check --since`` with ``report`` written as the earlier report."""
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(report))
    return check(capsys, config, *QUICK, "--since", path, "--counterexamples", tmp_path / "ce")


def test_a_flipped_verdict_is_checked_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report of a differing pair with its verdict edited to ``equivalent`` (entry and
    certificate alike): the seal does not match, so the pair differs again (exit 1)."""
    config = copy("beside-wrong.yaml", tmp_path)
    _, report = report_of(config, tmp_path, capsys)
    entry = report["tools"][0]
    assert entry["verdict"] == "differs"
    entry["verdict"] = entry["certificate"]["verdict"] = "equivalent"
    code, out, _ = since(config, report, tmp_path, capsys)
    assert code == 1 and verdicts(out) == {"echo": "differs"}
    assert "not carried over from the earlier report: its certificate's seal" in out


def test_a_certificate_of_another_pair_is_not_carried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A passing certificate (of the right script) given the digest of the wrong pair."""
    good = copy("beside-good.yaml", tmp_path / "good")
    _, passing = report_of(good, tmp_path / "good", capsys)
    config = copy("beside-wrong.yaml", tmp_path)
    _, report = report_of(config, tmp_path, capsys)
    forged = passing["tools"][0]
    forged["file"] = forged["certificate"]["file"] = str(config)
    forged["certificate"]["pair_sha256"] = report["tools"][0]["certificate"]["pair_sha256"]
    code, out, _ = since(config, passing, tmp_path, capsys)
    assert code == 1 and verdicts(out) == {"echo": "differs"}


def test_an_entry_of_four_fields_is_not_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The forgery of the digest and ``"verdict": "equivalent"`` alone: exit 2."""
    config = copy("beside-wrong.yaml", tmp_path)
    _, report = report_of(config, tmp_path, capsys)
    digest = report["tools"][0]["certificate"]["pair_sha256"]
    forged = {"tool": "echo", "file": str(config), "verdict": "equivalent"}
    forged["certificate"] = {"pair_sha256": digest}  # type: ignore[assignment]
    code, _, err = since(config, {"tools": [forged]}, tmp_path, capsys)
    assert code == 2
    assert "earlier.json: entry 1 (echo): not a report of check --report-json" in err


def _set(path: str, value: Any) -> Callable[[Report], None]:
    def edit(report: Report) -> None:
        *parents, last = path.split(".")
        held: Any = report["tools"][0]
        for key in parents:
            held = held[key]
        held[last] = value

    return edit


def _delete(key: str) -> Callable[[Report], None]:
    def edit(report: Report) -> None:
        del report["tools"][0][key]

    return edit


def _replace(value: Any) -> Callable[[Report], None]:
    def edit(report: Report) -> None:
        report.clear()
        report["tools"] = value

    return edit


MALFORMED = {
    "certificate-text": (_set("certificate", "x"), "entry 1 (echo): "),
    "bogus-verdict": (_set("verdict", "fine"), "entry 1 (echo): "),
    "no-verdict": (_delete("verdict"), "entry 1 (echo): "),
    "engines-number": (_set("certificate.engines", 5), "entry 1 (echo): "),
    "scenarios-text": (_set("certificate.scenarios", "many"), "entry 1 (echo): "),
    "entry-number": (_replace([5]), "entry 1: "),
    "tools-mapping": (_replace({}), "no list of tools"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_entry_exits_2_naming_file_and_entry(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry --report-json never writes: exit 2 naming the file and the entry, not exit 3."""
    edit, named = MALFORMED[case]
    config = copy("beside-good.yaml", tmp_path)
    _, report = report_of(config, tmp_path, capsys)
    edit(report)
    code, out, err = since(config, report, tmp_path, capsys)
    assert code == 2, out + err
    assert "internal error" not in err
    assert f"earlier.json: {named}" in err
    assert "not a report of check --report-json" in err


@pytest.mark.parametrize(
    ("text", "said"),
    [("[" * 100_000, "nested too deeply"), ("{not json", "not JSON"), ("", "not JSON")],
)
def test_a_file_that_is_not_json_exits_2_naming_it(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Too deep, broken or empty: exit 2 naming the file."""
    config = copy("beside-good.yaml", tmp_path)
    path = tmp_path / "earlier.json"
    path.write_text(text)
    code, _, err = check(capsys, config, *QUICK, "--since", path)
    assert code == 2 and f"{path}: " in err and said in err


def test_a_genuine_report_is_still_carried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report of a trusted run still spares the unchanged pairs their check."""
    config = copy("beside-good.yaml", tmp_path)
    path, _ = report_of(config, tmp_path, capsys)
    code, out, _ = check(capsys, config, *QUICK, "--since", path)
    assert code == 0, out
    assert f"1 pair(s) unchanged since {path}: not checked again; 0 checked" in out


def test_the_reader_knows_every_field_a_certificate_has() -> None:
    """One list of fields: what ``certificate()`` writes is what ``--since`` holds it to."""
    tool = load_paths([PAIRING / "echo.yaml"]).tools[0]
    script = (PAIRING / "good.star").read_text()
    report = check_tool(tool, CheckOptions(examples=1, paths=1), script=script)
    assert set(report.certificate) == set(CERTIFICATE)
