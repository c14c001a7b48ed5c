"""Wrong scripts that only distinguishing data, a compared result and the script's own
boundaries refuse.

Each case is a small workflow, a script that does what it does, and a wrong edit of that
script a person might make, which ``check`` once passed:

- the ordinary run's values were placeholders (every free text ``ok``, one answer per tool),
  so reading another step's answer of the same shape, or another field, went unseen: now
  every value differs from every other and each call of a tool has its own answer
  (:mod:`transpiler.harness.scenarios.happy`);
- no scenario built the workflow's whole result (the fields its output reads through
  ``fromJson`` of two steps' answers of one tool were never there together), so a result of
  another shape was never compared: the answers are now per call, and a part of the result
  no scenario compared keeps a tool from passing (:mod:`transpiler.harness.coverage.coverage`);
- the boundaries the script writes itself (a slice, a case-insensitive comparison, items
  filtered out, a missing iteration cap on a list parameter, a parameter compared with a
  literal, a value reached through a dict, the text of a number cut, a value's type tested)
  were never tried: the probes now come from the
  script's own literals and comparisons, parameters included
(:mod:`transpiler.harness.scenarios.probes`);
- generated texts were tidy and fields the workflow never reads absent, so a script that
  strips, cuts a prefix from or replaces in a text it sends, filters items on a field no
  answer holds (through a comprehension or a loop), or takes a falsy value of another kind,
  or a missing key, for the one it expects passed: the texts a script's own text methods
  name, a truthy value where nothing is, and each kind's falsy value are now tried.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.config.loader import load_paths
from transpiler.declaration import TITLE, header_item
from transpiler.deviations import Deviation
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool

#: ``mutate``'s defaults (and the gate figures'): what a wrong edit must not get past.
SMALL = CheckOptions(examples=30, paths=16)
#: ``check``'s defaults.
DEFAULT = CheckOptions()
#: No random draws: what the generated scenarios find alone (a random text may happen to
#: hold what a probe puts there on purpose).
GENERATED = CheckOptions(examples=0)


#: What the readable emitter declares for such scripts (the classes these scripts may show).
CLASSES = (
    Deviation.ERROR_TEXT,
    Deviation.LISTING,
    Deviation.MISSING_VALUE,
    Deviation.NUMBER_TEXT,
    Deviation.OUTPUT_RENDERING,
    Deviation.RUST_ENGINE,
    Deviation.VALUE_TEXT,
)


def _header(*classes: Deviation) -> str:
    lines = [f"# {TITLE}", *(header_item(c) for c in sorted({*CLASSES, *classes}))]
    return "".join(f"{line}\n" for line in lines)


def _checked(
    tmp_path: Path, config: str, script: str, options: CheckOptions, edit: tuple[str, str] | None
) -> ToolReport:
    path = tmp_path / "tools.yaml"
    path.write_text(config)
    (tool,) = load_paths([path]).tools
    if edit is not None:
        old, new = edit
        assert old in script, old
        script = script.replace(old, new, 1)
    return check_tool(tool, options, script=script)


# --- 1. distinguishing data --------------------------------------------------------------

TWO_USERS = """\
compositeTools:
  - name: two_users
    description: Look up a pull request's author and reviewer
    parameters:
      type: object
      properties:
        author: {type: string}
        reviewer: {type: string}
      required: [author, reviewer]
    steps:
      - id: author
        tool: users.get
        arguments: {login: "{{.params.author}}"}
      - id: reviewer
        tool: users.get
        arguments: {login: "{{.params.reviewer}}"}
    output:
      properties:
        author: {type: string, description: Author, value: "{{.steps.author.output.name}}"}
        reviewer: {type: string, description: Reviewer, value: "{{.steps.reviewer.output.name}}"}
"""
TWO_USERS_SCRIPT = _header() + """
def run(params):
    author, reviewer = parallel([
        lambda: call_tool("users.get", {"login": params["author"]}),
        lambda: call_tool("users.get", {"login": params["reviewer"]}),
    ])
    return {"author": author["name"], "reviewer": reviewer["name"]}
"""

TICKET = """\
compositeTools:
  - name: ticket
    description: Comment on a ticket of a project
    parameters:
      type: object
      properties:
        key: {type: string}
      required: [key]
    steps:
      - id: project
        tool: tracker.get_project
        arguments: {key: "{{.params.key}}"}
      - id: ticket
        tool: tracker.get_ticket
        dependsOn: [project]
        arguments: {project: "{{.steps.project.output.project.id}}"}
      - id: comment
        tool: tracker.comment
        dependsOn: [ticket]
        arguments:
          ticket: "{{.steps.ticket.output.ticket.id}}"
          text: >-
            {{.steps.ticket.output.ticket.title}} in {{.steps.project.output.project.name}}
            ({{.steps.project.output.project.lead}})
    output:
      properties:
        id: {type: string, description: Ticket, value: "{{.steps.ticket.output.ticket.id}}"}
        assignee:
          {type: string, description: Who, value: "{{.steps.ticket.output.ticket.assignee}}"}
"""
TICKET_SCRIPT = _header() + """
def run(params):
    project = call_tool("tracker.get_project", {"key": params["key"]})["project"]
    ticket = call_tool("tracker.get_ticket", {"project": str(project["id"])})["ticket"]
    call_tool("tracker.comment", {
        "ticket": str(ticket["id"]),
        "text": "%s in %s (%s)" % (ticket["title"], project["name"], project["lead"]),
    })
    return {"id": ticket["id"], "assignee": ticket["assignee"]}
"""

VERSIONS = """\
compositeTools:
  - name: versions
    description: Read the versions a key-value store holds for a service's config and image
    parameters:
      type: object
      properties:
        service: {type: string}
      required: [service]
    steps:
      - id: config
        tool: kv.get
        arguments: {key: "config/{{.params.service}}"}
      - id: image
        tool: kv.get
        arguments: {key: "image/{{.params.service}}"}
    output:
      properties:
        config:
          type: string
          description: The config's version
          value: "{{(fromJson .steps.config.output.text).version}}"
        image:
          type: string
          description: The image's version
          value: "{{(fromJson .steps.image.output.text).version}}"
"""
VERSIONS_SCRIPT = _header(Deviation.TEMPLATE_ERROR) + """
def run(params):
    service = params["service"]
    config, image = parallel([
        lambda: call_tool("kv.get", {"key": "config/" + service}),
        lambda: call_tool("kv.get", {"key": "image/" + service}),
    ])
    return {
        "config": json.decode(config["text"])["version"],
        "image": json.decode(image["text"])["version"],
    }
"""

# --- 2. the successful result, compared -----------------------------------------------------

DESCRIBE = """\
compositeTools:
  - name: describe
    description: Read a service's config and metadata from the key-value store
    parameters:
      type: object
      properties:
        service: {type: string}
      required: [service]
    steps:
      - id: config
        tool: kv.get
        arguments: {key: "config/{{.params.service}}"}
      - id: meta
        tool: kv.get
        arguments: {key: "meta/{{.params.service}}"}
    output:
      properties:
        service:
          type: object
          description: What the store holds
          properties:
            replicas:
              type: integer
              description: Replicas
              value: "{{(fromJson .steps.config.output.text).replicas}}"
            region:
              type: string
              description: Region
              value: "{{(fromJson .steps.meta.output.text).region}}"
"""
DESCRIBE_SCRIPT = _header() + """
def run(params):
    service = params["service"]
    config, meta = parallel([
        lambda: call_tool("kv.get", {"key": "config/" + service}),
        lambda: call_tool("kv.get", {"key": "meta/" + service}),
    ])
    return {
        "service": {
            "replicas": decoded(config, "replicas"),
            "region": decoded(meta, "region"),
        },
    }


def decoded(answer, name):
    \"\"\"A field of the JSON text a key-value answer holds.\"\"\"
    return json.decode(answer["text"])[name]
"""
FLATTENED = (
    """        "service": {
            "replicas": decoded(config, "replicas"),
            "region": decoded(meta, "region"),
        },""",
    """        "replicas": decoded(config, "replicas"),
        "region": decoded(meta, "region"),""",
)
#: The same output read under ``with``, where the walk of the templates does not follow, so
#: no generated answer holds what it reads.
UNSOLVED = DESCRIBE.replace(
    '"{{(fromJson .steps.config.output.text).replicas}}"',
    '"{{with fromJson .steps.config.output.text}}{{.replicas}}{{end}}"',
)

# --- 3. the script's own boundaries ----------------------------------------------------------

NOTIFY = """\
compositeTools:
  - name: notify
    description: Check a service, then page each host when it is ready
    parameters:
      type: object
      properties:
        service: {type: string}
        mode: {type: string}
        hosts: {type: array, items: {type: string}}
      required: [service, mode, hosts]
    steps:
      - id: check
        tool: health.check
        arguments: {service: "{{.params.service}}", mode: "{{.params.mode}}"}
      - id: page
        type: forEach
        dependsOn: [check]
        condition: '{{eq .steps.check.output.state "ready"}}'
        collection: "{{json .params.hosts}}"
        maxIterations: 5
        step:
          id: page_one
          tool: pager.page
          arguments: {host: "{{.forEach.item}}"}
    output:
      properties:
        state: {type: string, description: s, value: "{{.steps.check.output.state}}"}
"""
NOTIFY_SCRIPT = _header(
    Deviation.CONDITION_TEXT, Deviation.PARALLEL_CAP, Deviation.TEMPLATE_ERROR
) + """
def run(params):
    check = call_tool("health.check", {"service": params["service"], "mode": params["mode"]})
    if check["state"] == "ready":
        hosts = params["hosts"]
        if len(hosts) > 5:
            fail("page: %d hosts, more than the 5 it may page" % len(hosts))
        parallel([lambda host=host: call_tool("pager.page", {"host": host}) for host in hosts])
    return {"state": check["state"]}
"""

TAGS = """\
compositeTools:
  - name: tags
    description: Post a message with its tags
    parameters:
      type: object
      properties:
        text: {type: string}
        tags: {type: array, items: {type: string}}
      required: [text, tags]
    steps:
      - id: post
        tool: chat.post
        arguments:
          text: "{{.params.text}} {{range .params.tags}}#{{.}} {{end}}"
"""
TAGS_SCRIPT = _header() + """
def run(params):
    tags = "".join(["#%s " % tag for tag in params["tags"]])
    return call_tool("chat.post", {"text": "%s %s" % (params["text"], tags)})
"""

#: Only a number gets past ``gt``, and the ordinary numbers print short.
LOAD = """\
compositeTools:
  - name: load
    description: Post how busy a service is
    parameters:
      type: object
      properties:
        service: {type: string}
      required: [service]
    steps:
      - id: stats
        tool: metrics.requests
        arguments: {service: "{{.params.service}}"}
      - id: post
        tool: chat.post
        dependsOn: [stats]
        arguments:
          text: >-
            {{.params.service}} served {{.steps.stats.output.total}} requests
            ({{if gt .steps.stats.output.total 1000.0}}busy{{else}}quiet{{end}})
"""
LOAD_SCRIPT = _header() + """
def run(params):
    stats = call_tool("metrics.requests", {"service": params["service"]})
    total = stats["total"]
    level = "busy" if total > 1000 else "quiet"
    text = "%s served %s requests (%s)" % (params["service"], total, level)
    return call_tool("chat.post", {"text": text})
"""
#: The same, its answer taken through a helper that calls whichever tool it is given.
LOAD_HELPED = LOAD_SCRIPT.replace(
    'call_tool("metrics.requests",', 'answer("metrics.requests",'
) + """

def answer(tool, arguments):
    result = try_call_tool(tool, arguments)
    return result.output if result.ok else fail(result.error)
"""

#: The team is a map inside JSON text, which only the ordinary run builds (always a map).
OWNER = """\
compositeTools:
  - name: owner
    description: Page the owner a key-value record names for a service's team
    parameters:
      type: object
      properties:
        service: {type: string}
      required: [service]
    steps:
      - id: record
        tool: kv.get
        arguments: {key: "teams/{{.params.service}}"}
      - id: page
        tool: pager.page
        dependsOn: [record]
        arguments:
          who: "{{(fromJson .steps.record.output.text).team.owner}}"
"""
OWNER_SCRIPT = _header() + """
def run(params):
    record = call_tool("kv.get", {"key": "teams/" + params["service"]})
    team = json.decode(record["text"]).get("team", {})
    return call_tool("pager.page", {"who": str(team.get("owner"))})
"""

#: Texts and maps that answers and parameters pass along, which a script may tidy or default.
PRUNE = """\
compositeTools:
  - name: prune
    description: Prune each branch merged into a tag, then drain each host and announce it
    parameters:
      type: object
      properties:
        tag: {type: string}
        hosts: {type: array, items: {type: string}}
      required: [tag, hosts]
    steps:
      - id: merged
        tool: git.merged
        arguments: {tag: "{{.params.tag}}"}
      - id: prune
        type: forEach
        dependsOn: [merged]
        collection: "{{json .steps.merged.output.branches}}"
        maxIterations: 10
        step:
          id: prune_one
          tool: git.delete_branch
          arguments: {branch: "{{.forEach.item.name}}"}
      - id: drain
        type: forEach
        dependsOn: [prune]
        collection: "{{json .params.hosts}}"
        maxIterations: 10
        step:
          id: drain_one
          tool: lb.drain
          arguments: {host: "{{.forEach.item}}"}
      - id: publish
        tool: chat.post
        dependsOn: [drain]
        arguments:
          text: "released {{.params.tag}} ({{.steps.merged.output.summary}})"
    output:
      properties:
        tag: {type: string, description: t, value: "{{.params.tag}}"}
        stats:
          type: object
          description: s
          value: "{{json (fromJson .steps.merged.output.text).stats}}"
        url: {type: string, description: u, value: "{{.steps.merged.output.html_url}}"}
"""
PRUNE_SCRIPT = _header(Deviation.TEMPLATE_ERROR) + """
def run(params):
    tag = params["tag"]
    hosts = params["hosts"]
    merged = call_tool("git.merged", {"tag": tag})
    branches = merged["branches"]
    if branches == None:
        branches = []
    if type(branches) != "list" or len(branches) > 10:
        fail("prune: not a list of at most 10 items: %s" % type(branches))
    parallel([lambda b=b: call_tool("git.delete_branch", {"branch": str(b["name"])})
              for b in branches])
    if len(hosts) > 10:
        fail("drain: %d hosts, more than the 10 it may drain" % len(hosts))
    parallel([lambda host=host: call_tool("lb.drain", {"host": host}) for host in hosts])
    call_tool("chat.post", {"text": "released %s (%s)" % (tag, merged["summary"])})
    stats = json.decode(merged["text"])["stats"]
    return {"tag": tag, "stats": stats, "url": merged["html_url"]}
"""
#: The branches pruned gathered by a loop first (a name its comprehension binds again).
PRUNE_GATHERED = PRUNE_SCRIPT.replace(
    "    parallel([lambda b=b:",
    "    gathered = []\n"
    "    for b in branches:\n"
    "        gathered.append(b)\n"
    "    branches = gathered\n"
    "    parallel([lambda b=b:",
)

#: (workflow, script, options, the wrong edit, or None for the script itself).
CASES: dict[str, tuple[str, str, CheckOptions, tuple[str, str] | None]] = {
    "another step's answer of the same shape": (
        TWO_USERS,
        TWO_USERS_SCRIPT,
        SMALL,
        ('"author": author["name"]', '"author": reviewer["name"]'),
    ),
    "another field of the same answer": (
        TICKET,
        TICKET_SCRIPT,
        SMALL,
        ('"id": ticket["id"]', '"id": ticket["title"]'),
    ),
    "a field inside the fromJson text of another step": (
        VERSIONS,
        VERSIONS_SCRIPT,
        DEFAULT,
        ('"config": json.decode(config["text"])', '"config": json.decode(image["text"])'),
    ),
    "a nested output flattened": (DESCRIBE, DESCRIBE_SCRIPT, DEFAULT, FLATTENED),
    "a slice keeping 9 of 10 items": (
        TAGS,
        TAGS_SCRIPT,
        DEFAULT,
        ('for tag in params["tags"]', 'for tag in params["tags"][:9]'),
    ),
    "a case-insensitive comparison": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        ('if check["state"] == "ready"', 'if check["state"].lower() == "ready"'),
    ),
    "empty items filtered out": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        ('hosts = params["hosts"]', 'hosts = [host for host in params["hosts"] if host]'),
    ),
    "no iteration cap on a list parameter": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        (
            "        if len(hosts) > 5:\n"
            '            fail("page: %d hosts, more than the 5 it may page" % len(hosts))\n',
            "",
        ),
    ),
    "a parameter compared with a literal": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        (
            '    if check["state"] == "ready":\n',
            '    if params["mode"] == "dry-run":\n'
            '        return {"state": check["state"]}\n'
            '    if check["state"] == "ready":\n',
        ),
    ),
    "a parameter bound to a name bound again, compared with a literal": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        (
            '    if check["state"] == "ready":\n',
            '    mode = params["mode"]\n'
            '    if mode == "dry-run":\n'
            '        mode = "live"\n'
            '        return {"state": check["state"]}\n'
            '    if check["state"] == "ready":\n',
        ),
    ),
    "a text cut at a length": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        ('{"service": params["service"], "mode"', '{"service": params["service"][:40], "mode"'),
    ),
    "a value compared with the literals a name holds": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        (
            '    if check["state"] == "ready":\n',
            '    stale = ["stale", "Stale"]\n'
            '    if check["state"] in stale:\n'
            '        return {"state": "stale, not paged"}\n'
            '    if check["state"] == "ready":\n',
        ),
    ),
    "a value reached through a dict": (
        NOTIFY,
        NOTIFY_SCRIPT,
        DEFAULT,
        (
            '    if check["state"] == "ready":\n',
            '    answers = {"check": check}\n'
            '    if answers["check"]["state"] == "stale":\n'
            '        return {"state": "stale, not paged"}\n'
            '    if check["state"] == "ready":\n',
        ),
    ),
    "the text of a number cut at a length": (
        LOAD,
        LOAD_SCRIPT,
        DEFAULT,
        ('(params["service"], total, level)', '(params["service"], str(total)[:8], level)'),
    ),
    "a text made with % cut at a length": (
        LOAD,
        LOAD_SCRIPT,
        DEFAULT,
        ('"text": text}', '"text": text[:40]}'),
    ),
    "the text of a helper's answer cut at a length": (
        LOAD,
        LOAD_HELPED,
        DEFAULT,
        ('(params["service"], total, level)', '(params["service"], str(total)[:9], level)'),
    ),
    "a value's type tested through a name": (
        OWNER,
        OWNER_SCRIPT,
        DEFAULT,
        (
            '    return call_tool("pager.page", {"who": str(team.get("owner"))})',
            "    kind = type(team)\n"
            '    who = team.get("owner") if kind in ("dict",) else "on-call"\n'
            '    return call_tool("pager.page", {"who": str(who)})',
        ),
    ),
    "a parameter stripped of spaces before it is sent": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ('tag = params["tag"]', 'tag = params["tag"].strip()'),
    ),
    "a prefix replaced out of a parameter": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ('tag = params["tag"]', 'tag = params["tag"].replace("refs/tags/", "")'),
    ),
    "a prefix cut from a parameter that starts with it": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        (
            'tag = params["tag"]',
            'tag = params["tag"]\n'
            '    if tag.startswith("refs/tags/"):\n'
            '        tag = tag[len("refs/tags/"):]',
        ),
    ),
    "a prefix removed from an item's field": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ('str(b["name"])', 'str(b["name"]).removeprefix("refs/heads/")'),
    ),
    "a list parameter's items stripped of spaces": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ('hosts = params["hosts"]', 'hosts = [host.strip() for host in params["hosts"]]'),
    ),
    "items filtered on a field no answer holds": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ("for b in branches])", 'for b in branches if not b.get("protected")])'),
    ),
    "items a loop gathers filtered on a field no answer holds": (
        PRUNE,
        PRUNE_GATHERED,
        GENERATED,
        (
            "        gathered.append(b)",
            '        if not b.get("protected"):\n            gathered.append(b)',
        ),
    ),
    "a test for null widened to a test for truth": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ("if branches == None:", "if not branches:"),
    ),
    "a default for a field of decoded JSON": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ('json.decode(merged["text"])["stats"]', 'json.decode(merged["text"]).get("stats", {})'),
    ),
    "a fallback to another field where the first is empty": (
        PRUNE,
        PRUNE_SCRIPT,
        GENERATED,
        ('merged["html_url"]', 'merged.get("html_url") or merged.get("url", "")'),
    ),
}
#: Each workflow with its script, unedited: it passes.
RIGHT: dict[str, tuple[str, str, CheckOptions]] = {
    "two_users": (TWO_USERS, TWO_USERS_SCRIPT, SMALL),
    "ticket": (TICKET, TICKET_SCRIPT, SMALL),
    "versions": (VERSIONS, VERSIONS_SCRIPT, DEFAULT),
    "describe": (DESCRIBE, DESCRIBE_SCRIPT, DEFAULT),
    "notify": (NOTIFY, NOTIFY_SCRIPT, DEFAULT),
    "tags": (TAGS, TAGS_SCRIPT, DEFAULT),
    "load": (LOAD, LOAD_SCRIPT, DEFAULT),
    "load, through a helper": (LOAD, LOAD_HELPED, DEFAULT),
    "owner": (OWNER, OWNER_SCRIPT, DEFAULT),
    "prune": (PRUNE, PRUNE_SCRIPT, DEFAULT),
    "prune, its branches gathered by a loop": (PRUNE, PRUNE_GATHERED, DEFAULT),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_wrong_edit_is_refused(case: str, tmp_path: Path) -> None:
    config, script, options, edit = CASES[case]
    report = _checked(tmp_path, config, script, options, edit)
    assert report.verdict is Verdict.DIFFERS, (case, report.verdict, report.reason)


@pytest.mark.parametrize("case", sorted(RIGHT))
def test_the_script_itself_passes(case: str, tmp_path: Path) -> None:
    config, script, options = RIGHT[case]
    report = _checked(tmp_path, config, script, options, None)
    assert report.passes(None), (case, report.verdict, report.reason)


def test_a_result_no_scenario_built_keeps_the_tool_from_passing(tmp_path: Path) -> None:
    """Where no generated answer holds what the output reads (under ``with``), the workflow's
    result never succeeds, and a script returning it in another shape is never compared: the
    verdict is incomplete, naming the part of the result, until that gap is accepted."""
    report = _checked(tmp_path, UNSOLVED, DESCRIBE_SCRIPT, DEFAULT, FLATTENED)
    assert report.verdict is Verdict.INCOMPLETE and not report.passes(None), report.reason
    assert "no scenario compared the successful result's output.service.replicas" in (
        report.reason
    )
    assert "--accept-gap describe/output.service.replicas" in report.reason
    coverage = report.certificate["coverage"]
    assert "output.service.replicas" in coverage["results_never_compared"]
