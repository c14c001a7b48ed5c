"""The named ways a Starlark script may differ from the composite tool it replaces.

Each class (a member of :class:`Deviation`) has a stable id, what vMCP does,
what a script does instead, why a script would rather differ, how a report
words it as a finding, which observables of a run the difference can reach,
and the engines it concerns. The enum is the one home of the vocabulary: the
composite model records the classes it exercises on a run
(:mod:`transpiler.composite.quirks`), the readable emitter declares the classes
its scripts may exhibit, the harness lets a script take a declared class's
variants only at the sites where it applied, and ``docs/deviations.md`` and the short list of
``docs/reference.md`` are rendered from it. Code names a class by its member; an id a user wrote (a
header, a policy) is read with :func:`named`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Observable(StrEnum):
    """What the equivalence relation compares between two runs."""

    OUTCOME = "outcome"
    ERROR_TEXT = "error text"
    OUTPUT = "output"
    CALLS = "calls"
    ELICITATIONS = "elicitations"
    #: The tool's ``tools/list`` entry, compared once per tool rather than per run.
    LISTING = "tools/list entry"


#: Everything a run shows (the listing is no run's).
EVERYTHING = frozenset(o for o in Observable if o is not Observable.LISTING)
#: What a script knows of ``.workflow`` (``workflow-metadata``'s ``placeholders``): no run id,
#: no clock.
RUN_ID_PLACEHOLDER = "00000000-0000-4000-8000-000000000000"
START_TIME_PLACEHOLDER = "1970-01-01T00:00:00Z"
ALL_ENGINES = frozenset({"rust", "go"})


@dataclass(frozen=True)
class Variant:
    """One way a script may behave instead of vMCP, at a site where its class applies: a switch
    of the composite model (:mod:`transpiler.composite.variants` implements each by name)."""

    name: str
    text: str


@dataclass(frozen=True)
class About:
    """Everything a deviation class says besides its id.

    ``title``: when it shows; ``summary``: how a script differs, as its header says it;
    ``vmcp``, ``script`` and ``why``: what each does and why a script would rather differ;
    ``finding``: how a report words it where it fires on a tool's ordinary run (a latent bug
    of the workflow). ``variants``: what a script may do instead at each site where the class
    applies, on the ``engines`` it concerns; the gate takes one of them (or vMCP's behaviour)
    per site, the same in every scenario. ``affects``: what the class can change (a class
    without variants, the listing's, is compared once per tool, not per run). ``explicit``: a
    policy accepts the class only by naming it (accepting what a script declares does not).
    """

    title: str
    summary: str
    vmcp: str
    script: str
    why: str
    finding: str
    affects: frozenset[Observable] = EVERYTHING
    engines: frozenset[str] = ALL_ENGINES
    variants: tuple[Variant, ...] = ()
    explicit: bool = False

    @property
    def wording_only(self) -> bool:
        """Whether the class can change nothing but the wording of a failure."""
        return self.affects <= {Observable.ERROR_TEXT}


class Deviation(StrEnum):
    """A named difference between vMCP's engine and a plain script: its id (what headers,
    policies and reports write) and, as ``about``, everything else it says."""

    about: About
    _value_: str

    def __new__(cls, class_id: str, about: About) -> Deviation:
        member = str.__new__(cls, class_id)
        member._value_ = class_id
        member.about = about
        return member

    MISSING_VALUE = (
        "missing-value",
        About(
            "a field a template reads is missing or null",
            "a missing field stops the script, or reads as a default (the workflow's, else empty "
            "text for a string parameter, else `None`), where vMCP sends `<no value>`",
            "prints `<no value>` (`<nil>` as a `printf` operand) and carries on: the text "
            "`<no value>` reaches backend arguments, messages and outputs, and comparisons "
            "with a missing value are false",
            'indexes the field (`x["f"]`), which stops the run with a key error, or reads it '
            'with a default (`params.get("p", default)`): the workflow\'s, else `""` for an '
            "optional string parameter, else `None`; the content of an elicitation answer a "
            "`continue` handler passed (a decline, cancel or timeout has none) it reads as "
            '`(answer.content or {}).get("f")`, so a field missing there is `None`',
            "sending `<no value>` to a backend is never what the author meant; failing loudly "
            "shows the broken assumption",
            finding="reads a field that is never there, so vMCP uses `<no value>`",
            variants=(
                Variant(
                    "stop",
                    "the script stops there: the run fails with the script's text. Not where "
                    "the template reads the content of an elicitation answer a `continue` "
                    "handler passed (a decline, cancel or timeout): that answer has no content "
                    "on the path the workflow declares, and a script that stops there turns a "
                    "handled answer into a failure (`empty`, `none` and `default` still apply)",
                ),
                Variant("empty", "the missing value prints as empty text"),
                Variant(
                    "none",
                    "the missing value is `None`: printed, it is the text `None` (an argument "
                    "whose template is that one value sends `\"None\"`, as `str()` of it "
                    "does); an output property whose template is that one value is `null`",
                ),
                Variant("default", "an output property takes its `default`"),
            ),
        ),
    )
    NUMBER_TEXT = (
        "number-text",
        About(
            "a whole number of a million or more is printed",
            "whole numbers of a million or more print as digits, not as vMCP's `1e+06`",
            "prints JSON numbers with Go's `%v`: 1500000 becomes `1.5e+06` (and an integer "
            "parameter or output built from that text fails to parse)",
            "prints the number as its digits (`1500000`)",
            "exponent notation for whole numbers is an artefact of Go's float64, not data",
            finding="prints a large number in exponent form",
            variants=(Variant("digits", "whole numbers print as their digits"),),
        ),
    )
    VALUE_TEXT = (
        "value-text",
        About(
            "a boolean, map or list is printed as text",
            "booleans, maps and lists print as Starlark text or JSON, not as Go's "
            "`true`/`map[...]`",
            "prints Go syntax: `true`, `map[a:1 b:2]`, `[x y]`, and `%!d(float64=3)` for a "
            "`printf` verb of the wrong kind",
            'prints Starlark\'s text (`True`, `{"a": 1}`, `["x", "y"]`) or JSON where the '
            "value is encoded on purpose",
            "Go's map syntax cannot be parsed by anything downstream",
            finding="prints a map or list, which vMCP writes in Go syntax",
            variants=(
                Variant(
                    "starlark",
                    "booleans, maps and lists print as Starlark's `str()` (`printf` operands "
                    "too, and a whole number under `%d` as its digits)",
                ),
                Variant(
                    "json",
                    "booleans, maps and lists print as JSON (`printf` operands too, and a whole "
                    "number under `%d` as its digits)",
                ),
            ),
        ),
    )
    JSON_TEXT = (
        "json-text",
        About(
            "the `json` function encodes a value",
            "`json.encode` does not HTML-escape `<`, `>`, `&` as vMCP's `json` does",
            "uses Go's encoding/json: `<`, `>` and `&` become `\\u003c`, `\\u003e`, `\\u0026`, "
            "U+2028/U+2029 are escaped, object keys are sorted, and numbers are written as Go "
            "writes them (`123456789012345680`, `1e+21`)",
            "uses `json.encode`: no HTML escaping, keys in the order the value holds them "
            "(sorted on go.starlark.net), and its own text for fractions in exponent range and "
            "whole numbers beyond 2^53 (`1.2345678901234568e17`); go.starlark.net writes DEL "
            "as `\\x7f`, which is not JSON",
            "HTML escaping inside an issue body or a chat message is noise",
            finding="encodes JSON with HTML escaping",
            variants=(
                Variant(
                    "encode",
                    "`json` writes what go.starlark.net's `json.encode` writes: no HTML "
                    "escaping, keys sorted, whole numbers as digits",
                ),
            ),
        ),
    )
    ERROR_TEXT = (
        "error-text",
        About(
            "the run fails with differently worded text",
            "failures carry the script's own wording, not vMCP's",
            "reports `level execution failed: tool call failed: tool <t> in step <s>: <cause>` "
            "and similar engine wording",
            "halts with the host's wording (`call_tool: <t>: <cause>`) or its own `fail()` text",
            "the wording of an error is not part of a tool's contract; the outcome is the same",
            finding="the tool fails on an ordinary run",
            affects=frozenset({Observable.ERROR_TEXT}),
            variants=(
                Variant(
                    "own-text",
                    "the run fails with any text; whether it fails and every call are unchanged",
                ),
            ),
        ),
    )
    OUTPUT_RENDERING = (
        "output-rendering",
        About(
            "an output property is built from text",
            "output values are returned as they are, not rendered to text and parsed back",
            "renders every output value as text and parses it back by the property's type: a "
            "map in a string property becomes `map[...]`, a value that does not parse silently "
            "becomes the property's default (or fails the run without one)",
            "returns the value itself",
            "the round trip through text loses data and hides type mismatches",
            finding="an output that vMCP always builds from mangled text",
            affects=frozenset({Observable.OUTCOME, Observable.ERROR_TEXT, Observable.OUTPUT}),
            variants=(
                Variant(
                    "as-is",
                    "an output property whose template prints one value (or encodes one with "
                    "`json`) is that value, not its text parsed back",
                ),
                Variant(
                    "decoded",
                    "an output property whose template prints one value is that value decoded "
                    "as JSON text; a value that is not JSON text stops the script",
                ),
            ),
        ),
    )
    CONDITION_TEXT = (
        "condition-text",
        About(
            "a condition is not a plain boolean",
            "conditions test a value's truth, not its text being exactly `true`/`false`",
            "renders the condition as text and runs the step only for exactly `true`/`True`/"
            "`TRUE`, skips it for `false`/`False`/`FALSE`, and fails the step for anything else "
            "(`<no value>`, `1`, the string of a non-boolean field)",
            "tests the value's truth with `if`",
            "a condition on a string field is almost always meant as a truth test",
            finding="a condition that never renders true or false",
            variants=(
                Variant(
                    "truth",
                    "a condition that prints one value is that value's truth (a missing value "
                    "is false)",
                ),
            ),
        ),
    )
    TEMPLATE_ERROR = (
        "template-error",
        About(
            "a template hits a Go type error",
            "plain Starlark works where a Go template type error stops vMCP (or fails its own way)",
            "fails the step: comparing a JSON number with an integer literal (`eq .n 3`), a "
            "field of a string, `index` of a null, `len` of a number, a forEach collection "
            "that is not a JSON array",
            "computes the plain Starlark expression, which works (`n == 3`) or fails with "
            "Starlark's own error",
            "Go's template type rules are an accident of float64 JSON numbers",
            finding="a template that always fails",
            variants=(
                Variant(
                    "stop",
                    "the script stops where the template fails, whatever the step's `onError` "
                    "(a failure with the script's own text)",
                ),
                Variant(
                    "plain",
                    "comparisons compute as Starlark's operators do (numbers by value whatever "
                    "their kind, values of different types unequal); anything else that fails "
                    "stops the script",
                ),
            ),
        ),
    )
    SKIP_REMAINING = (
        "skip-remaining",
        About(
            "an elicitation answer triggers `skip_remaining`",
            "`skip_remaining` ends the run, where vMCP runs the remaining steps anyway",
            "skips nothing: the step records `{action, skipped: true}` and every later step "
            "still runs",
            "returns at once, as the workflow's author asked: later steps do not run",
            "running a deployment the user declined is the opposite of the configured intent",
            finding="`skip_remaining` skips nothing",
            variants=(
                Variant(
                    "return",
                    "the run ends there: every step not started is skipped, as vMCP skips a "
                    "step, and the output is built from that",
                ),
            ),
        ),
    )
    LAST_STEP_RACE = (
        "last-step-race",
        About(
            "a workflow without an output block ends",
            "the result is the final step's, not whichever step vMCP saw finish last",
            "returns the output of whichever completed step finished last in time (a race when "
            "final steps run at once; an earlier step's output when the final one was skipped "
            "or failed under `continue`)",
            "returns the result of the workflow's final step",
            "a result that depends on timing is not a contract anyone relies on",
            finding="without an output block the result is not the final step's",
            affects=frozenset({Observable.OUTPUT}),
            variants=(Variant("final", "the result is the output of the workflow's final step"),),
        ),
    )
    PARALLEL_CAP = (
        "parallel-cap",
        About(
            "a forEach step's `maxParallel` is not 10 and it has more items than that",
            "forEach runs up to 10 items at once, not `maxParallel`",
            "runs at most `maxParallel` iterations at once (up to 50): a later item's call "
            "starts when an earlier one ends, and a failure stops the loop before later items "
            "start",
            "runs up to 10 at once (`parallel()`'s cap), so calls start at other times, and "
            "more (or fewer) may have started when one fails",
            "THV-0051's `parallel` has a fixed cap and no way to wait for a free slot; only "
            "when calls start, and which started before a failure, differ",
            finding="forEach concurrency",
            affects=frozenset({Observable.CALLS, Observable.ERROR_TEXT}),
            variants=(
                Variant(
                    "cap",
                    "the loop runs up to 10 iterations at once (`parallel()`'s cap), the first "
                    "failure cancelling the rest",
                ),
            ),
        ),
    )
    ARGUMENT_COERCION = (
        "argument-coercion",
        About(
            "a templated argument does not parse as the backend's declared type",
            "arguments go with their own type, not as text that vMCP may fail to convert",
            "sends the text unchanged when it does not parse as the type the backend's "
            "inputSchema declares (`1.5` for an integer, `<no value>`)",
            "sends the value with its own type (text stays text)",
            "a silent type mismatch is a bug in the workflow",
            finding="an argument that never parses as the backend's type",
            variants=(
                Variant(
                    "as-is",
                    "an argument whose template is one value, at a position the backend types "
                    "`integer`, `number` or `boolean`, is sent as that value, not as its text "
                    "parsed (or kept) by vMCP",
                ),
            ),
        ),
    )
    WORKFLOW_METADATA = (
        "workflow-metadata",
        About(
            "a template reads `.workflow.id`, `.workflow.start_time` or `.workflow.duration_ms`",
            "`.workflow.id`, `start_time` and `duration_ms` are placeholders",
            "fills them from its own execution: a random UUID, the start time, the elapsed time",
            "cannot know them and leaves them out",
            "no scripted-tool builtin exposes them",
            finding="reads run metadata a script cannot know",
            variants=(
                Variant(
                    "placeholders",
                    f"`.workflow.id` is {RUN_ID_PLACEHOLDER}, `start_time` "
                    f"{START_TIME_PLACEHOLDER} and `duration_ms` 0",
                ),
            ),
        ),
    )
    STEP_TIMEOUT = (
        "step-timeout",
        About(
            "a backend call runs past a step's `timeout` or past five minutes",
            "a step's deadline (its `timeout`, else vMCP's 5 minutes) is not enforced: each "
            "call has THV-0051's fixed 5-minute limit instead",
            "gives each step a deadline of its `timeout` (5 minutes when unset) spanning its "
            "attempts, retry waits and forEach iterations: a call still running when it passes "
            "fails the run with `Workflow execution timeout exceeded` (or, under `continue`, "
            "the step)",
            "has no per-step deadline: each call may take THV-0051's fixed 5 minutes, and a "
            "slower one fails that call (an ordinary failure the step's error handling sees); "
            "the tool's `timeout` still bounds the whole run",
            "THV-0051 gives a script no way to set a call's deadline; the tool's `timeout` "
            "(kept by `migrate`) is the one bound it keeps",
            finding=(
                "a step timeout no script can keep: each of its calls may take THV-0051's "
                "fixed 5 minutes instead"
            ),
            variants=(
                Variant(
                    "per-call",
                    "the step has no deadline of its own: each call attempt it makes is cut at 5 "
                    "minutes, an ordinary failure rather than a timeout; the workflow's deadline "
                    "still holds",
                ),
            ),
        ),
    )
    RUST_ENGINE = (
        "rust-engine",
        About(
            "a value that starlark-rust writes otherwise than go.starlark.net",
            "on starlark-rust only, some numbers, JSON key order and string lengths differ",
            "prints `1234567.8` as `1.2345678e+06` and `0.00001` as `1e-05`, sorts the keys "
            "of encoded JSON objects, escapes `<`, `>` and `&` in encoded text beyond ASCII and "
            "counts the bytes of a string (go.starlark.net agrees)",
            "on starlark-rust only: six decimals in exponent form (`1.234568e+06`), plain "
            "decimals (`0.00001`), JSON keys in insertion order, `<`, `>` and `&` never "
            "escaped, text beyond ASCII escaped inside a printed list or map, string length in "
            "code points",
            "vMCP runs scripts on go.starlark.net; this is a difference of the rust engine we "
            "use for speed, never of production",
            finding="prints a value that starlark-rust writes otherwise than go.starlark.net",
            engines=frozenset({"rust"}),
            variants=(
                Variant(
                    "starlark-rust",
                    "on starlark-rust, the script writes at the site what starlark-rust "
                    "writes: a float with six decimals in exponent form from a million and "
                    "below 1e-5 (`1.234568e+06`) and as plain decimals between (`0.00001`); a "
                    "string inside a printed list or map with its characters beyond ASCII "
                    "escaped unless alphanumeric (`\"\\xe9\"`); `json.encode` with keys in the "
                    "order they were added, `<`, `>`, `&` never escaped and numbers in Rust's "
                    "shortest form (`1234567.8`); `len` of a string in code points. On "
                    "go.starlark.net the script takes vMCP's behaviour there",
                ),
            ),
        ),
    )
    LISTING = (
        "listing",
        About(
            "the scripted tool's `tools/list` entry is not the composite tool's",
            "clients see another description, schema or annotations (docs/listing.md)",
            "lists the composite tool with its `description`, its `parameters` as inputSchema, "
            "its `output` as outputSchema and the annotations derived from its step tools "
            "(merged under its own); hides it when they contradict, or when its name is a "
            "backend tool's",
            "is listed with its entry as written (THV-0051 derives nothing for a script)",
            "a scripted entry written by hand may say more, or other, than the composite did",
            finding="the scripted tool's `tools/list` entry is not the composite tool's",
            affects=frozenset({Observable.LISTING}),
        ),
    )
    LISTING_SAFETY = (
        "listing-safety",
        About(
            "the scripted tool is listed as safer than vMCP lists the composite tool",
            "clients see a safety hint dropped: read-only, not destructive or closed-world where "
            "vMCP says otherwise (docs/listing.md)",
            "lists the hints derived from the step tools (a backend without annotations counts "
            "as destructive and open-world), or hides a tool whose own hints claim more safety",
            "is listed with `readOnlyHint: true`, `destructiveHint: false` or `openWorldHint: "
            "false` where vMCP lists another value, or the tool at all",
            "none that a client could rely on: accepted only when the policy names it",
            finding="the scripted tool is listed as safer than vMCP lists the composite tool",
            affects=frozenset({Observable.LISTING}),
            explicit=True,
        ),
    )

    def render(self) -> str:
        """One line for a script header: the id and how the script differs."""
        return f"{self}: {self.about.summary}"


#: The classes by id, for reading what a user wrote (a header, a policy, ``--accept``).
_BY_ID: Final = {deviation.value: deviation for deviation in Deviation}


def named(class_id: str) -> Deviation | None:
    """The class with this id, or None when no class has it."""
    return _BY_ID.get(class_id)


def read_ids(class_ids: Iterable[str]) -> tuple[frozenset[Deviation], list[str]]:
    """The classes a user's ids name (a policy's ``accept``, ``--accept``), and the ids that
    name none, sorted."""
    found = {class_id: named(class_id) for class_id in class_ids}
    unknown = sorted(class_id for class_id, deviation in found.items() if deviation is None)
    return frozenset(d for d in found.values() if d is not None), unknown


def accepts(accept: frozenset[Deviation] | None, deviation: Deviation) -> bool:
    """Whether a policy (``accept``: the classes it names, None: those a script declares)
    lets a tool show ``deviation`` and pass; an ``explicit`` class must be named."""
    if accept is None:
        return not deviation.about.explicit
    return deviation in accept


_INTRO = """\
# Deviation classes

A readable script is the code a person would write; where it behaves
differently from vMCP's composite engine, the difference is one of the named
classes below. A script declares the classes it may show in its header's
`Where it differs from vMCP` block ([reference.md](reference.md) gives the
syntax; `emit --format json` and `Transpiled.deviations` repeat it). A class
with *variants* is a switch of the composite model: at each site where it
applies, `check` lets the script take vMCP's behaviour or one of the
variants, the same in every scenario, and nothing else
([equivalence.md](equivalence.md)). `rust-engine` is
a difference of starlark-rust, the engine the gate runs scripts on for speed,
not of a script: its variant applies on starlark-rust alone, and on
go.starlark.net (what vMCP embeds) a script takes vMCP's behaviour at its
sites, so a verdict does not depend on which engines are installed.
The smallest scenario where a declared class shows is its witness.
Exact-style scripts declare none (except what a script cannot know,
`workflow-metadata`, and fixes asked for with `--fix`).

`check --accept CLASS,...` (or `--strict`, or the policy file) decides which
classes a tool may show and still pass. This page is generated from
`transpiler/deviations.py` (`python -m transpiler deviations --format markdown`).

| class | when | vMCP | the script | why a script would differ | variants (else reach) | engines |
|---|---|---|---|---|---|---|
"""


def markdown() -> str:
    """The catalogue as the Markdown page users read (``docs/deviations.md``)."""
    rows = []
    for deviation in Deviation:
        about = deviation.about
        reach = (
            "; ".join(f"`{v.name}`: {v.text}" for v in about.variants)
            if about.variants
            else ", ".join(o.value for o in Observable if o in about.affects)
        )
        engines = "both" if about.engines == ALL_ENGINES else ", ".join(about.engines)
        cells = (
            f"`{deviation}`",
            about.title,
            about.vmcp,
            about.script,
            about.why,
            reach,
            engines,
        )
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return _INTRO + "\n".join(rows) + "\n"


#: The lines around the short list of the classes (``--format readme``, in ``docs/reference.md``),
#: which :func:`readme_list` fills.
README_BEGIN, README_END = "<!-- deviations:begin -->", "<!-- deviations:end -->"


def readme_list() -> str:
    """The short list of the classes, between its markers: each id and its summary."""
    items = "".join(f"- `{deviation}`: {deviation.about.summary}\n" for deviation in Deviation)
    return f"{README_BEGIN}\n{items}{README_END}\n"
