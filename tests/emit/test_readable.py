"""The readable style: goldens, the hand-written specification, the upstream corpus.

The hand-written scripts in ``corpus/goldens/handwritten`` were written before
the readable emitter and are its specification: what it emits for those tools
stays within 1.3x their code lines. Readable goldens (``corpus/goldens/readable``)
are reviewed by reading them; ``UPDATE_GOLDENS=1`` rewrites them.
"""

from __future__ import annotations

import os
import re
import statistics
from pathlib import Path

import pytest

from tests.composite.helpers import tool
from tests.conftest import CORPUS, REPO_ROOT, UPSTREAM_CORPUS, outputs_across_hash_seeds
from transpiler.cli import main
from transpiler.config.loader import load_paths
from transpiler.config.units import LoadedTool
from transpiler.deviations import README_BEGIN, README_END, Deviation, markdown, readme_list
from transpiler.emit import emit_tool
from transpiler.gate.batch import select
from transpiler.pairs import Request, Where

HANDWRITTEN = CORPUS / "goldens" / "handwritten"
READABLE = CORPUS / "goldens" / "readable"
EXAMPLE = "corpus/example/vmcp-config.yaml"
OURS = "corpus/goldens/workflows.yaml"
UPSTREAM = "../shared/upstream-corpus/"
#: Each hand-written script and the composite tool it replaces.
SPECIFIED = {
    "deploy_with_approval": (EXAMPLE, "deploy_with_approval"),
    "investigate_incident": (EXAMPLE, "investigate_incident"),
    "scan_image_packages": (EXAMPLE, "scan_image_packages"),
    "sync_inventory": (EXAMPLE, "sync_inventory"),
    "research_topic": (
        UPSTREAM + "docs-website/history-research-topic-arxiv.yaml",
        "research_topic",
    ),
    "comprehensive_tool": (
        UPSTREAM + "toolhive-unit-tests/operator-comprehensive-tool-definition.yaml",
        "comprehensive-tool",
    ),
    "interactive_workflow": (
        UPSTREAM + "toolhive-unit-tests/operator-interactive-workflow.yaml",
        "interactive_workflow",
    ),
    "incident_analysis": (
        UPSTREAM + "toolhive-operator-docs/advanced-parallel-data-fetching.yaml",
        "investigate_incident",
    ),
    "rotate_credentials": (OURS, "rotate_credentials"),
}
MAX_RATIO = 1.3
MAX_MEDIAN_LINES = 30
_GO_HELPER = re.compile(r"\b(go|vmcp)_[a-z_]+\(")


def code_lines(script: str) -> int:
    """Non-blank, non-comment lines."""
    return sum(
        1 for line in script.splitlines() if line.strip() and not line.strip().startswith("#")
    )


def _tool(path: str, name: str) -> LoadedTool:
    return next(t for t in load_paths([REPO_ROOT / path]).tools if t.effective.name == name)


def _readable(tool: LoadedTool) -> str:
    where = Path(os.path.relpath(tool.origin.file, REPO_ROOT)).as_posix()
    source = f"{where}:{tool.config.where.at.line}"
    emitted = emit_tool(tool.effective, source)
    assert emitted.style == "readable", emitted.warnings
    return emitted.script


@pytest.mark.parametrize("name", sorted(SPECIFIED))
def test_the_emitted_script_stays_close_to_the_hand_written_one(name: str) -> None:
    path, tool = SPECIFIED[name]
    emitted = code_lines(_readable(_tool(path, tool)))
    written = code_lines((HANDWRITTEN / f"{name}.star").read_text())
    assert emitted <= MAX_RATIO * written, f"{name}: {emitted} lines against {written} by hand"


def _golden_tools() -> list[tuple[str, str]]:
    return [(path, t.effective.name) for path in (EXAMPLE, OURS) for t in load_paths([path]).tools]


@pytest.mark.parametrize(("path", "name"), _golden_tools())
def test_readable_script_matches_its_golden(path: str, name: str) -> None:
    script = _readable(_tool(path, name))
    golden = READABLE / f"{name}.star"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        golden.write_text(script)
    assert golden.exists(), f"no readable golden for {name}: run with UPDATE_GOLDENS=1, review it"
    assert script == golden.read_text(), f"{name}: the readable script differs from {golden}"


def test_every_runnable_upstream_tool_has_a_short_readable_script() -> None:
    sizes = []
    selected, _ = select(Request(Where((str(UPSTREAM_CORPUS),))))
    for chosen in selected:
        if chosen.refusal is not None:
            continue
        tool = next(t for t in load_paths([chosen.file]).tools if t.effective.name == chosen.tool)
        emitted = emit_tool(tool.effective, chosen.file)
        assert emitted.style == "readable", (chosen.tool, emitted.warnings)
        assert not _GO_HELPER.search(emitted.script), chosen.tool
        assert emitted.declared <= set(Deviation)
        for deviation in emitted.declared:
            assert f"  - {deviation}: " in emitted.script, (chosen.tool, deviation)
        sizes.append(code_lines(emitted.script))
    assert len(sizes) == 32
    assert statistics.median(sizes) <= MAX_MEDIAN_LINES, sorted(sizes)


def test_readable_scripts_do_not_depend_on_hash_seeds() -> None:
    program = (
        "from transpiler.config.loader import load_paths\n"
        "from transpiler.emit import emit_tool\n"
        f"for t in load_paths(['{EXAMPLE}', '{OURS}']).tools:\n"
        "    print(emit_tool(t.effective, t.origin.file).script)\n"
    )
    assert len(outputs_across_hash_seeds(program, ["0", "1", "4242"])) == 1


def test_the_deviations_page_is_generated_from_the_catalogue() -> None:
    page = REPO_ROOT / "docs" / "deviations.md"
    assert page.read_text() == markdown(), "run: python -m transpiler deviations --format markdown"


def test_the_references_list_of_classes_is_generated_from_the_catalogue() -> None:
    reference = (REPO_ROOT / "docs" / "reference.md").read_text()
    assert readme_list() in reference, (
        "run: python -m transpiler deviations --format readme --write docs/reference.md"
    )


def test_the_readme_list_is_written_between_its_markers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "README.md"
    target.write_text(f"# t\n\n{README_BEGIN}\n- `gone`: stale\n{README_END}\n\nmore\n")
    assert main(["deviations", "--format", "readme", "--write", str(target)]) == 0
    assert target.read_text() == f"# t\n\n{readme_list()}\nmore\n"
    target.write_text("no markers\n")
    assert main(["deviations", "--format", "readme", "--write", str(target)]) == 2
    assert "no block" in capsys.readouterr().err and target.read_text() == "no markers\n"


GUARDED_FALLIBLE = """
compositeTools:
- name: guarded
  description: A conditional step that may fail quietly, whose status a later step sends
  parameters:
    type: object
    properties: {flag: {type: boolean}}
    required: [flag]
  steps:
  - id: lookup
    tool: svc.lookup
    condition: "{{not .params.flag}}"
    onError: {action: continue}
  %s
  - id: report
    tool: svc.report
    dependsOn: [lookup]
    arguments: {status: "{{.steps.lookup.status}}"}
"""


@pytest.mark.parametrize("beside", ["", "- {id: other, tool: svc.other}"])
def test_a_guarded_step_that_may_fail_is_completed_failed_or_skipped(
    beside: str, tmp_path: Path
) -> None:
    """vMCP records ``failed`` for a step under a condition whose call fails under
    ``onError: continue``; the script says so too (in parallel, where its branch cannot hand
    the status back, the tool is emitted in the exact style)."""
    from transpiler.harness.running.check import CheckOptions, check_tool

    path = tmp_path / "guarded.yaml"
    path.write_text(GUARDED_FALLIBLE % beside)
    (tool,) = load_paths([path]).tools
    emitted = emit_tool(tool.effective, str(path))
    if beside:
        assert emitted.style == "exact"
    else:
        assert emitted.style == "readable"
        assert (
            '("completed" if lookup_call.ok else "failed") if not params["flag"] else "skipped"'
            in emitted.script
        )
    assert check_tool(tool, CheckOptions(examples=40)).passes(None)


SWALLOWED_ANSWER = """
compositeTools:
- name: swallowed
  description: A declined elicitation fails the step, which onError continue swallows
  steps:
  - id: ask
    type: elicitation
    message: Go on?
    schema: {type: object}
    onError: {action: continue}
    %s
  - id: report
    tool: svc.report
    dependsOn: [ask]
    arguments: {status: "{{.steps.ask.status}}"}
"""


@pytest.mark.parametrize(
    ("handlers", "expected"),
    [
        ("", '"completed" if ask.action == "accept" else "failed"'),
        ("onCancel: {action: continue}", '"completed" if ask.action != "decline" else "failed"'),
    ],
)
def test_an_answer_that_fails_a_step_under_continue_leaves_it_failed(
    handlers: str, expected: str, tmp_path: Path
) -> None:
    """vMCP records ``failed`` for an elicitation whose answer aborts the step when
    ``onError: continue`` swallows that failure."""
    from transpiler.harness.running.check import CheckOptions, check_tool

    path = tmp_path / "swallowed.yaml"
    path.write_text(SWALLOWED_ANSWER % handlers)
    (tool,) = load_paths([path]).tools
    emitted = emit_tool(tool.effective, str(path))
    assert emitted.style == "readable" and expected in emitted.script
    assert check_tool(tool, CheckOptions(examples=40)).passes(None)


DECLARED = """\
name: summarise
description: Summarise one ticket
parameters:
  type: object
  properties:
    ticket: {type: string}
    channel: {type: string}
    tags: {type: array, items: {type: string}}
  required: [ticket, channel, tags]
steps:
  - id: fetch
    tool: tickets.get
    arguments: {id: "{{.params.ticket}}"}
  - id: post
    tool: chat.post
    dependsOn: [fetch]
    arguments:
      channel: '{{printf "%%s-%%v" .params.channel .params.ticket}}'
      tags: "{{len .params.tags}} tags"
      %s
"""


def _declared(extra: str = "") -> set[Deviation]:
    declared = emit_tool(tool(DECLARED % extra), "t.yaml").declared
    return {c for c in Deviation if c in declared}


def test_a_script_declares_what_its_constructs_can_show_at_their_sites() -> None:
    """A count prints as its digits on every side and text printed with %s is itself: neither
    declares a class (a call may still fail: error-text); a field of a step's output (a map)
    is never a Go type error (it may be missing, and hold anything, printed its own way)."""
    assert _declared() == {Deviation.ERROR_TEXT}
    printed = {Deviation.NUMBER_TEXT, Deviation.VALUE_TEXT, Deviation.RUST_ENGINE}
    title = _declared('text: "{{.steps.fetch.output.title}}"')
    assert title == {Deviation.ERROR_TEXT, Deviation.MISSING_VALUE, *printed}
    # a field of a field (of anything) may be one of a string: a Go type error
    assert Deviation.TEMPLATE_ERROR in _declared('owner: "{{.steps.fetch.output.owner.name}}"')
    # the length of text (the engines count it otherwise), not of anything
    assert Deviation.TEMPLATE_ERROR not in _declared('size: "{{len .params.ticket}}"')
    assert Deviation.TEMPLATE_ERROR in _declared('size: "{{len .steps.fetch.output.body}}"')
