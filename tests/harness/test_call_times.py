"""When a backend call starts is behaviour: a script must make each call when vMCP could.

Both forms run on one discrete-event kernel, so each call's start is a virtual instant; vMCP's
own nondeterminism (its retry backoff's jitter, growing by half each time) is the tolerance: a
script's call must start within the window the model's call could start in
(:mod:`transpiler.sim.kernel`). A retry whose delay changed, calls made one after the other
where vMCP makes them at once (or at once where vMCP waits), a level not waited for, or a
forEach run one item at a time, are each refused with the call and both times; where THV-0051
cannot keep vMCP's schedule (a forEach's ``maxParallel``), ``parallel-cap`` lets a script run
up to ten at once, and nothing else.
"""

from __future__ import annotations

import pytest

from transpiler.composite import run_composite
from transpiler.composite.variants import Variants
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.deviations import Deviation
from transpiler.gobuild import go_available
from transpiler.harness.judging.fields import field_differences
from transpiler.harness.judging.relation import differences, distance
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool
from transpiler.sim.scenario import scenario_from_document
from transpiler.sim.trace import CallRecord, Trace
from transpiler.starlark_runtime import run_starlark

WORKFLOW = """
compositeTools:
  - name: ship_release
    description: Tag a release while its notes are written, publish it, scan its images, audit
    parameters:
      type: object
      properties:
        release: {type: string, description: Release name}
      required: [release]
    steps:
      - id: tag
        tool: git.tag
        arguments: {release: "{{.params.release}}"}
        onError: {action: retry, retryCount: 2, retryDelay: 2s}
      - id: notes
        tool: docs.write_notes
        arguments: {release: "{{.params.release}}"}
      - id: publish
        tool: registry.publish
        dependsOn: [tag, notes]
        arguments:
          release: "{{.params.release}}"
          notes: "{{.steps.notes.output.url}}"
      - id: scan
        type: forEach
        dependsOn: [publish]
        collection: "{{json .steps.publish.output.images}}"
        itemVar: image
        maxParallel: 2
        onError: {action: continue}
        step:
          id: scan_one
          tool: scanner.scan
          arguments: {image: "{{.forEach.image}}"}
      - id: audit
        tool: audit.record
        dependsOn: [scan]
        arguments: {release: "{{.params.release}}"}
"""

HEADER = """\
# ship_release, ported by hand.
#
# Where it differs from vMCP (see docs/deviations.md):
#   - error-text: failures carry the script's own wording, not vMCP's
#   - missing-value: a missing field stops the script
#   - number-text: whole numbers of a million or more print as digits
#   - value-text: booleans, maps and lists print as Starlark text
#   - template-error: plain Starlark works where a Go template type error stops vMCP
#   - step-timeout: no step deadline, each call has 5 minutes
#   - rust-engine: on starlark-rust only, some numbers differ
#   - listing: clients see no annotations
"""
CAP = "#   - parallel-cap: the scan runs up to 10 images at once, not 2\n"

BODY = """
def tag(release):
    return retry(lambda: call_tool("git.tag", {"release": release}), max_attempts=3, delay="2s")

def write_notes(release):
    return call_tool("docs.write_notes", {"release": release})

def publish(release, notes):
    return call_tool("registry.publish", {"release": release, "notes": str(notes["url"])})

def scan(image):
    return try_call_tool("scanner.scan", {"image": str(image)})

def run(params):
    release = params["release"]
    _, notes = parallel([lambda: tag(release), lambda: write_notes(release)])
    published = publish(release, notes)
    images = published["images"]
    if len(images) > 100:
        images = []  # past maxIterations vMCP fails the scan, and the run goes on
    parallel([lambda image=image: scan(image) for image in images])
    return call_tool("audit.record", {"release": release})
"""

RIGHT = HEADER + CAP + BODY
LEVEL = "    _, notes = parallel([lambda: tag(release), lambda: write_notes(release)])\n"
LOOP = "    parallel([lambda image=image: scan(image) for image in images])\n"
AUDIT = '    return call_tool("audit.record", {"release": release})\n'

#: Wrong ports: one edit of the right one each, and the call whose start shows it.
WRONG = {
    "a retry delay of 1ms": ('delay="2s"', 'delay="1ms"', "git.tag attempt 2"),
    "a retry delay outside the jitter": ('delay="2s"', 'delay="5s"', "git.tag attempt 2"),
    "the backoff dropped": ('delay="2s"', 'delay="1ns"', "git.tag attempt 2"),
    "a level made sequential": (
        LEVEL,
        "    tag(release)\n    notes = write_notes(release)\n",
        "docs.write_notes attempt 1",
    ),
    "a level not waited for": (
        LEVEL + "    published = publish(release, notes)\n",
        "    notes = write_notes(release)\n"
        "    _, published = parallel([lambda: tag(release), lambda: publish(release, notes)])\n",
        "registry.publish attempt 1",
    ),
    "a dependent step made parallel": (
        LOOP + AUDIT,
        '    audit = lambda: call_tool("audit.record", {"release": release})\n'
        "    scans = [lambda image=image: scan(image) for image in images]\n"
        "    return parallel([audit] + scans)[0]\n",
        "audit.record attempt 1",
    ),
    "the loop run one item at a time": (
        LOOP,
        "    [scan(image) for image in images]\n",
        "scanner.scan attempt 1",
    ),
    "parallel-cap not declared": (CAP, "", "scanner.scan attempt 1"),
}

ENGINES = ["rust", pytest.param("go", marks=pytest.mark.go)]


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW.encode(), "ship_release.yaml").tools[0]


def _checked(engine: str, script: str | None = None, style: str = "readable") -> ToolReport:
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    options = CheckOptions(examples=12, paths=16, engines=(engine,), style=style)
    return check_tool(_tool(), options, script=script)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_call_made_at_another_time_is_refused(name: str, engine: str) -> None:
    """The gate refuses each wrong port; where the first scenario that shows it differs in
    time alone, the difference names the call and both times."""
    old, new, call = WRONG[name]
    assert old in RIGHT, name
    report = _checked(engine, RIGHT.replace(old, new, 1))
    assert not report.passes(None), name
    example = report.counterexample
    assert example is not None, (name, report.verdict, report.reason)
    assert report.verdict is (Verdict.INCOMPLETE if example.bound else Verdict.DIFFERS)
    timed = [d for d in example.differences if d.field == "call times"]
    if [d.field for d in example.differences] == ["call times"]:
        assert call in timed[0].composite and call in timed[0].script, timed[0].render()


#: Every call answered after a delay of its own (one image more than the loop runs at once).
TIMED = {
    "tool": "ship_release",
    "params": {"release": "r1"},
    "backends": {
        "git.tag": {"results": [{"structuredContent": {}, "delay": "30ms"}]},
        "docs.write_notes": {"results": [{"structuredContent": {"url": "u"}, "delay": "20ms"}]},
        "registry.publish": {
            "results": [{"structuredContent": {"images": ["a", "b", "c"]}, "delay": "10ms"}]
        },
        "scanner.scan": {"results": [{"structuredContent": {}, "delay": "40ms"}]},
        "audit.record": {"results": [{"structuredContent": {}}]},
    },
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(WRONG))
def test_the_difference_names_the_call_and_both_times(name: str, engine: str) -> None:
    """On a run where every call succeeds (after a retry, for the retry's delay), the wrong
    port differs in when one call starts, and nothing else: the relation names that call,
    vMCP's time (or window) and the script's."""
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    old, new, call = WRONG[name]
    document = RETRIED if "git.tag" in call else TIMED
    scenario = scenario_from_document(document)
    variants = Variants({(Deviation.PARALLEL_CAP, "scan", "forEach"): "cap"})
    composite = run_composite(_tool().effective, scenario, variants=variants)
    right = run_starlark(RIGHT, scenario, engine=engine)
    assert differences(composite, right) == ()
    wrong = run_starlark(RIGHT.replace(old, new, 1), scenario, engine=engine)
    if name == "parallel-cap not declared":  # the same calls: it is the declaration that lacks
        composite = run_composite(_tool().effective, scenario)
    (found,) = differences(composite, wrong)
    assert found.field == "call times"
    assert call in found.composite and call in found.script, found.render()
    assert "starts" in found.composite and "starts" in found.script
    assert distance(composite, wrong) > 0
    # what a person reads (the report's and `run --form both`'s lines) names it too
    shown = [d for d in field_differences(composite, wrong) if d.field.startswith("start ")]
    assert any(d.tool is not None and d.tool in call for d in shown), shown
    assert all("starts" in d.vmcp and "starts" in d.script for d in shown), shown


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("style", ["readable", "exact", "hand"])
def test_scripts_that_keep_vmcps_schedule_pass(style: str, engine: str) -> None:
    """The hand port above, and what each style emits, keep every call's time; the loop's
    ten-at-once is parallel-cap's, with a witness showing when the scans started."""
    script = RIGHT if style == "hand" else None
    report = _checked(engine, script, "readable" if style == "hand" else style)
    assert report.passes(None), report.reason
    witness = report.witnesses.get(Deviation.PARALLEL_CAP)
    assert witness is not None and witness.site is not None
    assert witness.site.place == "forEach" and witness.site.vmcp != witness.site.script


RETRIED = {
    "tool": "ship_release",
    "params": {"release": "r1"},
    "backends": {
        "git.tag": {"results": [{"isError": True, "times": 2}, {"structuredContent": {}}]},
        "docs.write_notes": {"results": [{"structuredContent": {"url": "u"}, "delay": "100ms"}]},
        "registry.publish": {"results": [{"structuredContent": {"images": ["a"]}}]},
        "scanner.scan": {"results": [{"structuredContent": {}}]},
        "audit.record": {"results": [{"structuredContent": {}}]},
    },
}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_window_is_vmcps_jitter_and_grows_with_each_wait(engine: str) -> None:
    """Retry waits of 2s then 3s drawn from [1s, 3s] and [1.5s, 4.5s]: attempt 2 may start
    between 1s and 3s, attempt 3 between 2.5s and 7.5s, and a step after them as late as the
    last; a script with vMCP's delay makes each call in the same window."""
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    scenario = scenario_from_document(RETRIED)
    composite = run_composite(_tool().effective, scenario)
    windows = {(c.tool, c.attempt): c.start_window for c in composite.calls}
    second = 1_000_000_000
    assert windows[("git.tag", 2)] == (second, 3 * second)
    assert windows[("git.tag", 3)] == (5 * second // 2, 15 * second // 2)
    assert windows[("registry.publish", 1)] == (5 * second // 2, 15 * second // 2)
    script = run_starlark(RIGHT, scenario, engine=engine)
    assert {(c.tool, c.attempt): c.start_window for c in script.calls} == windows
    assert not [d for d in differences(composite, script) if d.field == "call times"]
    assert composite.dumps() == run_composite(_tool().effective, scenario).dumps()


ASKING = """
compositeTools:
  - name: ask_and_fetch
    description: Ask for approval while fetching the diff, then deploy it
    steps:
      - id: approve
        type: elicitation
        message: Deploy?
        schema: {type: object, properties: {ok: {type: boolean}}}
      - id: diff
        tool: git.diff
      - id: deploy
        tool: ci.deploy
        dependsOn: [approve, diff]
        arguments: {sha: "{{.steps.diff.output.sha}}"}
"""
ASKED = """    approve, diff = parallel([approve_step, lambda: call_tool("git.diff", {})])
"""
ASKED_FIRST = """    approve = approve_step()
    diff = call_tool("git.diff", {})
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_call_vmcp_makes_while_the_user_answers_waits_for_no_answer(engine: str) -> None:
    """vMCP asks the user and fetches the diff at once; a script that asks first fetches it
    only once the user has answered (the answer takes time in some scenario), and is refused
    naming the fetch; the emitted script, which asks beside the fetch, passes."""
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    tool = load_bytes(ASKING.encode(), "ask.yaml").tools[0]
    options = CheckOptions(examples=12, paths=16, engines=(engine,))
    right = check_tool(tool, options)
    assert right.passes(None), right.reason
    script = right.emitted.script if right.emitted is not None else ""
    assert ASKED in script
    report = check_tool(tool, options, script=script.replace(ASKED, ASKED_FIRST))
    assert not report.passes(None) and report.counterexample is not None, report.reason
    times = [d for d in report.counterexample.differences if d.field == "call times"]
    assert times and "git.diff attempt 1" in times[0].script, report.reason


def _one_call(start_ns: int, window: tuple[int, int] | None, real_time: bool) -> Trace:
    call = CallRecord("t.a", {}, 2, start_ns, start_ns, "root", "ok", window=window)
    return Trace("starlark", "success", {"content": []}, None, None, [call], real_time=real_time)


def test_a_call_on_real_backends_may_start_late_but_never_early() -> None:
    """serve --shadow: real backends answer after their latency, the model's at once."""
    vmcp = _one_call(10_000_000, (10_000_000, 30_000_000), False)
    assert not differences(vmcp, _one_call(35_000_000, None, True))
    assert differences(vmcp, _one_call(35_000_000, None, False))[0].field == "call times"
    assert differences(vmcp, _one_call(9_000_000, None, True))[0].field == "call times"
