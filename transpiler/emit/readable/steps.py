"""Each kind of step as the plain code THV-0051 describes.

- tool: ``call_tool``; ``onError: retry`` wraps it in ``retry(lambda: ...)``
  with vMCP's attempts and delay; ``continue`` uses ``try_call_tool`` and the
  step's ``defaultResults`` (a small ``call_or`` helper when several steps do);
- elicitation: ``elicit(message, schema)``, then the handlers: ``fail()`` for
  abort, nothing for continue, an early ``return`` for ``skip_remaining``;
- forEach: the collection, vMCP's checks that it is a list (where it may not be)
  of at most ``maxIterations`` items (``fail()``, or under ``continue`` the
  calls only when they hold), then the calls through ``parallel`` (or a plain
  loop for ``maxParallel: 1``);
- a condition guards the step with ``if``; a skipped step holds its
  ``defaultResults``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transpiler.config.model import WorkflowStepConfig
from transpiler.deviations import Deviation
from transpiler.emit.ir import (
    Attribute,
    Binary,
    Comment,
    Comprehension,
    Cond,
    Dict,
    Expr,
    ExprStmt,
    For,
    ForClause,
    If,
    IfClause,
    Index,
    Lambda,
    List,
    Literal,
    Name,
    Parameter,
    Statement,
    Str,
    Unbroken,
    assign,
    call,
    dict_of,
    flat,
    json_literal,
)
from transpiler.emit.limits import MAX_DEPTH, TooDeep, too_deep
from transpiler.emit.readable.state import State, StepView, map_key
from transpiler.emit.readable.templates import NotReadable
from transpiler.emit.readable.values import (
    MISSING,
    Kind,
    Val,
    constant,
    count,
    go_text,
    plain,
    runtime,
    status,
    status_under,
)
from transpiler.emit.retries import retry_policy
from transpiler.golang.strconv import NumError, parse_bool, parse_float, parse_int
from transpiler.gotemplate import TemplateSyntaxError, parse
from transpiler.gotemplate.reads import reads
from transpiler.profile import PARALLEL_CAP

MIN_SHARED_MAP = 40  # shorter argument maps read better written out at each call
ELICITATION_FIELDS = frozenset({"action", "content", "skipped"})
FOR_EACH_FIELDS = frozenset({"iterations", "count", "completed", "failed"})

Body = list[Statement]
Finish = Callable[[Body, dict[str, StepView]], None]


# --- arguments ---------------------------------------------------------------


def arguments(state: State, step: WorkflowStepConfig) -> Expr:
    """The step's arguments as a dict literal (``{}`` when it has none)."""
    schema = state.tool_schemas.get(step.tool) if state.tool_schemas is not None else None
    if state.tool_schemas is None:
        state.note(
            "domain",
            "no-input-schemas",
            "the backend tools declare no inputSchema that would make vMCP convert string "
            "arguments (give the backends' tools/list with --tools to reproduce it)",
        )
    if step.arguments and map_key(step.arguments) in state.named:
        return state.named[map_key(step.arguments)]
    return _argument_map(state, step, schema)


def _argument_map(state: State, step: WorkflowStepConfig, schema: Any) -> Expr:
    try:  # The map itself is not counted: vMCP expands its values at depth 0.
        return _value(state, step.arguments or {}, schema, -1)
    except TooDeep as error:
        where = step.where.at
        raise TooDeep(f"step {step.id} ({where.file}:{where.line}): {error}") from None


def hoist_shared(state: State, step: WorkflowStepConfig, body: Body, values: bool = True) -> None:
    """Name what several steps send (the same argument map, or with ``values`` the same
    template), computed once before its first use.

    vMCP expands the templates at each step; nothing they read changes between
    them, so one computation is the same value (and fails at the same point).
    """
    if step.arguments and map_key(step.arguments) in state.named:
        return  # the step sends a map already named: nothing in it is computed here
    if state.tool_schemas is None and step.arguments:
        key = map_key(step.arguments)
        worth = len(flat(_argument_map(state, step, None))) > MIN_SHARED_MAP
        if worth and key in state.shared and key not in state.named:
            local = state.variable(key, "arguments")
            body.append(assign(local, arguments(state, step)))
            state.named[key] = Name(local)
            return
    if not values:
        return
    for key, template in (step.arguments or {}).items():
        if not isinstance(template, str) or template not in state.shared or template in state.named:
            continue
        schema = state.tool_schemas.get(step.tool) if state.tool_schemas is not None else None
        if isinstance(schema, dict) and schema.get("type") == "object":
            continue
        text = state.compiler().text(template)
        code = flat(text.code()) if not text.constant else ""
        if "(" not in code and code.count("[") < 2:
            continue
        local = state.variable(f"\x00shared:{template}", str(key))
        body.append(assign(local, text.code()))
        state.named[template] = Name(local)


def _value(state: State, value: Any, schema: Any, depth: int) -> Expr:
    if depth > MAX_DEPTH:
        raise too_deep()
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(value, str):
        if kind not in ("integer", "number", "boolean") and value in state.named:
            return state.named[value]
        return _string_argument(state, value, kind)
    if isinstance(value, dict):
        properties = schema.get("properties") if kind == "object" else None
        properties = properties if isinstance(properties, dict) else {}
        return Dict(
            tuple(
                (Str(str(k)), _value(state, v, properties.get(k), depth + 1))
                for k, v in value.items()
            )
        )
    if isinstance(value, list):
        items = schema.get("items") if kind == "array" else None
        return List(tuple(_value(state, v, items, depth + 1) for v in value))
    return json_literal(plain(value))


def _string_argument(state: State, template: str, kind: Any) -> Expr:
    compiler = state.compiler()
    if kind in ("integer", "number", "boolean"):
        value = compiler.value(template)
        if value.constant:
            return json_literal(plain(_coerced(go_text(value.const), kind)))
        if value.kind is not Kind.STR:
            state.declare(Deviation.ARGUMENT_COERCION)
            if value.encodes is not None:
                state.declare(Deviation.JSON_TEXT, Deviation.RUST_ENGINE)
            return value.code()
        state.declare(Deviation.ARGUMENT_COERCION)
    text = compiler.text(template)
    return text.code() if not text.constant else json_literal(text.const)


def _coerced(text: str, kind: str) -> Any:
    """vMCP's coercion of a string argument (S82): parsed, or the text when it does not parse."""
    try:
        if kind == "integer":
            return parse_int(text, 10, 64)
        if kind == "number":
            return parse_float(text)
        return parse_bool(text)
    except NumError:
        return text


# --- calls -------------------------------------------------------------------


def call_expression(state: State, step: WorkflowStepConfig, args: Expr) -> Expr:
    """``call_tool(...)``, retried as the step says."""
    state.declare(Deviation.ERROR_TEXT)
    expr: Expr = call("call_tool", Str(step.tool), args)
    policy = retry_policy(step)
    if policy is None:
        return expr
    attempts, delay = policy
    options: dict[str, Expr] = {}
    if attempts != 3:
        options["max_attempts"] = Literal(attempts)
    if delay != "1s":
        options["delay"] = Str(delay)
    return call("retry", Lambda((), expr), **options)


def defaults(step: WorkflowStepConfig) -> Val:
    """What a skipped (or, under continue, failed) step leaves as output."""
    return constant(step.default_results if step.default_results is not None else MISSING)


def defaults_expr(step: WorkflowStepConfig) -> Expr:
    """The defaults as a literal (``None`` when the step has none)."""
    return json_literal(plain(step.default_results))


# --- tool steps --------------------------------------------------------------


def tool_step(state: State, step: WorkflowStepConfig, target: str | None) -> tuple[Expr, StepView]:
    """The step as one expression (its value is the output) and the view of it afterwards."""
    args = arguments(state, step)
    if step.continues_on_error:
        state.helpers.add("call_or")
        expr: Expr = call("call_or", Str(step.tool), args, defaults_expr(step))
    else:
        expr = call_expression(state, step, args)
    output = runtime(Name(target), Kind.MAP) if target else constant(MISSING)
    return expr, StepView("tool", output)


# --- conditions --------------------------------------------------------------


def guarded(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str | None,
    run: Callable[[Body], StepView],
) -> StepView:
    """The step's code (``run``) under its condition; a skipped step holds its defaults."""
    if not step.condition:
        return run(body)
    test = state.compiler().condition(step.condition, step.id, step.continues_on_error)
    if test.constant:
        if test.const is True:
            return run(body)
        if test.const is False:
            body.append(Comment(f"vMCP always skips step {step.id}: its condition is false."))
            state.note("finding", Deviation.CONDITION_TEXT, f"step {step.id} is always skipped")
            return _skipped_view(step, body, target)
        return _condition_fails(state, step, body, target)
    with state.nested() as inner:
        view = run(inner)
    otherwise = (assign(target, defaults_expr(step)),) if target is not None else ()
    body.append(If(test.code(), tuple(inner), otherwise))
    view.fields, view.known_fields = {}, None
    view.output = runtime(Name(target), Kind.MAP) if target is not None else constant(MISSING)
    view.status = status_under(test.code(), view.status)
    return view


def _skipped_view(step: WorkflowStepConfig, body: Body, target: str | None) -> StepView:
    if target is not None:
        body.append(assign(target, defaults_expr(step)))
    return StepView("tool", defaults(step), status=constant("skipped"))


def fail(message: Expr) -> Statement:
    """``fail(message)`` (on one line, however long)."""
    return ExprStmt(Unbroken(call("fail", message)))


def _condition_fails(
    state: State, step: WorkflowStepConfig, body: Body, target: str | None
) -> StepView:
    """A condition that never renders true or false: vMCP fails the step every time."""
    state.note(
        "finding",
        Deviation.CONDITION_TEXT,
        f"the condition of step {step.id} never renders true or false: vMCP fails the step",
    )
    if not step.continues_on_error:
        state.declare(Deviation.ERROR_TEXT)
        body.append(fail(Str(f"the condition of step {step.id} never prints true or false")))
        return StepView("tool", constant(MISSING), status=constant("failed"))
    body.append(
        Comment(
            f"vMCP never runs step {step.id}: its condition never renders true or false, and\n"
            "onError: continue hides the failure."
        )
    )
    if target is not None:
        body.append(assign(target, Literal(None)))
    return StepView("tool", constant(MISSING), status=constant("failed"))


# --- elicitation -------------------------------------------------------------


def elicitation_step(
    state: State, step: WorkflowStepConfig, body: Body, target: str, skip: Finish
) -> StepView:
    """``elicit``, then the decline and cancel handlers.

    Under a condition the step's output must also exist as its defaults, so the
    answer is kept apart and the output is the dict vMCP records.
    """
    message = state.compiler().text(step.message)
    schema = json_literal(plain(step.schema or {}))
    answer = (
        state.variable(f"\x00answer:{step.id}", f"{step.id}_answer") if step.condition else target
    )
    body.append(assign(answer, call("elicit", message.code(), schema)))
    view = _handled(state, step, body, answer, skip)
    if not step.condition:
        return view
    body.append(assign(target, recorded_answer(Name(answer))))
    return StepView("elicitation", runtime(Name(target), Kind.MAP), status=view.status)


def recorded_answer(answer: Expr) -> Expr:
    """The output vMCP records for an elicitation ``answer``: its action, and its content
    when accepted."""
    action = Attribute(answer, "action")
    accepted = dict_of([("action", action), ("content", Attribute(answer, "content"))])
    return Cond(accepted, Binary(action, "==", Str("accept")), dict_of([("action", action)]))


def _handled(
    state: State, step: WorkflowStepConfig, body: Body, target: str, skip: Finish
) -> StepView:
    """The decline and cancel handlers of an answer held in ``target``."""
    handlers = {"decline": _action(step.on_decline), "cancel": _action(step.on_cancel)}
    possible = {"accept"} | {a for a, h in handlers.items() if h == "continue"}
    failing = [a for a, h in handlers.items() if h == "abort"]
    swallowed: list[str] = []
    if failing and step.continues_on_error:
        # onError: continue swallows the failure: the run goes on, and vMCP's record of the
        # step has no output (its fields read as missing) and the status failed.
        state.declare(Deviation.MISSING_VALUE)
        possible |= set(failing)
        swallowed, failing = failing, []
    answer = Name(target)
    answered = Attribute(answer, "action")
    skipping = [a for a, h in handlers.items() if h == "skip_remaining"]
    if skipping:
        state.declare(Deviation.SKIP_REMAINING)
        action = constant(skipping[0]) if len(skipping) == 1 else runtime(answered)
        skipped_view = StepView(
            "elicitation",
            runtime(answer, Kind.ANY),
            fields={"action": action, "skipped": constant(True)},
            known_fields=ELICITATION_FIELDS,
        )
        with state.nested() as inner:
            skip(inner, {step.id: skipped_view})
        body.append(If(_action_test(answered, skipping), tuple(inner)))
    if failing:
        state.declare(Deviation.ERROR_TEXT)
        message = Binary(Str(f"{step.id}: the user answered "), "+", answered)
        body.append(If(_action_test(answered, failing), (fail(message),)))
    action = constant("accept") if possible == {"accept"} else runtime(answered, Kind.STR)
    content = Attribute(answer, "content")
    # A decline or cancel that continues has no content: reading it is the declared path, so
    # its fields read as None (`missing-value: none`) rather than stopping the script.
    continued = bool(possible - {"accept"} - set(swallowed))
    return StepView(
        "elicitation",
        runtime(Unbroken(dict_of([("action", answered), ("content", content)])), Kind.MAP),
        status=status(_action_test(answered, swallowed, negated=True), "failed")
        if swallowed
        else constant("completed"),
        fields={
            "action": action,
            "content": runtime(content, Kind.MAP, may_be_absent=continued),
            "skipped": constant(MISSING),
        },
        known_fields=ELICITATION_FIELDS,
    )


def _action(handler: Any) -> str:
    return handler.action if handler is not None and handler.action else "abort"


def _action_test(action: Expr, actions: list[str], negated: bool = False) -> Expr:
    """The answer's ``action`` is one of ``actions`` (``negated``: none of them)."""
    if len(actions) == 2:
        return Binary(action, "==" if negated else "!=", Str("accept"))
    return Binary(action, "!=" if negated else "==", Str(actions[0]))


# --- forEach -----------------------------------------------------------------


def for_each_step(
    state: State, step: WorkflowStepConfig, body: Body, target: str, reads: frozenset[str]
) -> StepView:
    """The collection, its checks, the calls; the parts of the output later steps read.

    A collection that is not a list (checked where it may not be one), or holds more items
    than ``maxIterations``, fails the step (S130): the run stops, or under ``onError:
    continue`` goes on with the step failed and no output (S131, S102).
    """
    inner = step.inner_step
    if inner is None:
        raise NotReadable(f"forEach step {step.id} has no inner step")
    keep_going = step.continues_on_error
    if keep_going and retry_policy(inner) is not None:
        raise NotReadable(
            f"forEach step {step.id} continues after failures but retries each item: retry() "
            "halts the script when the attempts run out"
        )
    items, source = _collection(state, step, body)
    if keep_going:
        return _continued_when_valid(state, step, body, target, items, source, reads)
    state.declare(Deviation.ERROR_TEXT)
    limit = step.iteration_limit
    size = call("len", Name(items))
    escaped = step.id.replace("%", "%%")
    if source.kind is not Kind.LIST:
        kind = call("type", Name(items))
        not_list = Str(f"{escaped}: expected a list of items, got %s")
        body.append(If(Binary(kind, "!=", Str("list")), (fail(Binary(not_list, "%", kind)),)))
    too_many = Str(f"{escaped}: %d items, more than the {limit} it may iterate")
    body.append(If(Binary(size, ">", Literal(limit)), (fail(Binary(too_many, "%", size)),)))
    return _iterations(state, step, body, target, items, source.item_kind, reads)


def _continued_when_valid(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str,
    items: str,
    source: Val,
    reads: frozenset[str],
) -> StepView:
    """The calls only for a list (where the items may not be one) within ``maxIterations``:
    else the step fails and the run goes on, the output (when later steps read it) ``None``
    and the status ``failed``."""
    limit = step.iteration_limit
    output_read = bool(reads - {"status"})  # then kept whole: it is a dict or None
    kept = reads | {"*"} if output_read else reads
    with state.nested() as run:
        view = _iterations(state, step, run, target, items, source.item_kind, kept)
    valid: Expr = Binary(call("len", Name(items)), "<=", Literal(limit))
    goes_on = "goes on without its output" if output_read else "goes on"
    if source.kind is Kind.LIST:
        body.append(
            Comment(
                f"Over {limit} items vMCP fails step {step.id}, and onError: continue {goes_on}."
            )
        )
    else:
        valid = Binary(Binary(call("type", Name(items)), "==", Str("list")), "and", valid)
        body.append(
            Comment(
                f"vMCP takes null for no items, and fails step {step.id} when {items} is not a "
                f"list\nor holds over {limit} items; onError: continue {goes_on}."
            )
        )
        body.append(If(Binary(Name(items), "==", Literal(None)), (assign(items, List(())),)))
    body.append(If(valid, tuple(run), (assign(target, Literal(None)),) if output_read else ()))
    # A kept output tells (the items may be local to the function of a parallel level).
    ran = Binary(Name(target), "!=", Literal(None)) if output_read else valid
    view.status = status(ran, "failed")
    return view


def _iterations(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str,
    items: str,
    item_kind: Kind,
    reads: frozenset[str],
) -> StepView:
    """The calls over ``items`` and the step's view afterwards."""
    inner = step.inner_step
    assert inner is not None
    keep_going = step.continues_on_error
    item_var = step.item_name
    item = state.variable(f"\x00item:{step.id}", item_var)
    index = state.variable(f"\x00index:{step.id}", "index")
    state.for_each = (item_var, runtime(Name(item), item_kind), count(Name(index)))
    args = arguments(state, inner)
    uses_index = index in flat(args)
    state.for_each = None
    parallel = step.parallel_limit
    results = state.variable(f"\x00results:{step.id}", f"{target}_results")
    collect = bool(reads & {"iterations", "completed", "failed", "*"})
    if keep_going:
        call_one: Expr = call("try_call_tool", Str(inner.tool), args)
    else:
        call_one = call_expression(state, inner, args)
    loop = (
        ForClause((index, item), call("enumerate", Name(items)))
        if uses_index
        else ForClause((item,), Name(items))
    )
    if parallel == 1 and not keep_going:
        each = call_one if not collect else call(Attribute(Name(results), "append"), call_one)
        if collect:
            body.append(assign(results, List(())))
        body.append(For(loop.targets, loop.iterable, (ExprStmt(each),)))
    else:
        if parallel != PARALLEL_CAP:
            state.declare(Deviation.PARALLEL_CAP)
        bound = tuple(Parameter(n, Name(n)) for n in loop.targets)
        calls = call("parallel", Comprehension(Lambda(bound, call_one), (loop,)))
        body.append(assign(results, calls) if collect else ExprStmt(calls))
    return _for_each_view(state, body, target, items, results, keep_going, reads)


def _collection(state: State, step: WorkflowStepConfig, body: Body) -> tuple[str, Val]:
    """A variable holding the items (named after the field they come from), and their value
    (a list only where its kind says so)."""
    value = state.compiler().value(step.collection)
    source = value.encodes if value.encodes is not None else None
    if source is None:
        if value.constant:
            raise NotReadable(f"forEach step {step.id} iterates over a constant")
        state.declare(Deviation.TEMPLATE_ERROR)
        if value.kind in (Kind.ANY, Kind.LIST):
            return _printed_collection(state, step, body, value)
        source = runtime(call("json.decode", value.code()))
    else:
        state.declare(Deviation.MISSING_VALUE)
        if _sorts_keys(state, step, source):
            body.append(Comment(READ_BACK))
            source = runtime(
                _read_back(source.code()), source.kind, key=source.key, item_kind=source.item_kind
            )
    code = source.code()
    # A loop that goes on past a bad collection may set its own variable to no items.
    if isinstance(code, Name) and (source.kind is Kind.LIST or not step.continues_on_error):
        return code.id, source
    hint = source.key if source.key is not None else f"{step.id}_items"
    items = state.variable(f"\x00items:{step.id}", hint)
    body.append(assign(items, code))
    return items, source


#: Why a script takes a list of maps through JSON before a loop prints its items.
READ_BACK = "vMCP reads the items back from JSON text: each map's keys sorted"


def _sorts_keys(state: State, step: WorkflowStepConfig, source: Val) -> bool:
    """Whether the loop prints whole items that may be maps vMCP read back from JSON text
    (each map's keys sorted, where the script's keep their order): declared if so."""
    if source.item_kind in (Kind.ANY, Kind.MAP) and _prints_item(step):
        state.declare(Deviation.JSON_TEXT, Deviation.RUST_ENGINE)
        return True
    return False


def _read_back(items: Expr) -> Expr:
    return call("json.decode", call("json.encode", items))


def _printed_collection(
    state: State, step: WorkflowStepConfig, body: Body, value: Val
) -> tuple[str, Val]:
    """The items of a collection that prints one value, in a variable: vMCP parses the text it
    prints, so a text is decoded (its maps' keys in the text's order) and a list taken as it
    is (vMCP prints a list in Go's syntax, which parses only when empty or of one number:
    value-text), through JSON where vMCP's reading back sorts keys a loop prints."""
    items = state.variable(f"\x00items:{step.id}", f"{step.id}_items")
    body.append(assign(items, value.code()))
    state.declare(Deviation.VALUE_TEXT)
    source = runtime(Name(items), value.kind, item_kind=value.item_kind)
    read_back = (Comment(READ_BACK), assign(items, _read_back(Name(items))))
    sorts = _sorts_keys(state, step, source)
    if value.kind is Kind.LIST:
        body.extend(read_back if sorts else ())
    else:
        decoded = assign(items, call("json.decode", Name(items)))
        is_text = Binary(call("type", Name(items)), "==", Str("string"))
        body.append(If(is_text, (decoded,), read_back if sorts else ()))
    return items, source


def _prints_item(step: WorkflowStepConfig) -> bool:
    """Whether the inner step's arguments read a whole item of the loop (not one of its
    fields), where the order of a map's keys shows."""
    inner = step.inner_step
    item = ("forEach", step.item_name)
    strings: list[Any] = [inner.arguments if inner is not None else None]
    while strings:
        value = strings.pop()
        if isinstance(value, str):
            try:
                if any(read.path == item for read in reads(parse(value))):
                    return True
            except TemplateSyntaxError:
                continue  # validation refused it already
        elif isinstance(value, dict):
            strings += value.values()
        elif isinstance(value, list):
            strings += value
    return False


def _for_each_view(
    state: State,
    body: Body,
    target: str,
    items: str,
    results: str,
    keep_going: bool,
    reads: frozenset[str],
) -> StepView:
    size = call("len", Name(items))
    counted_items = count(Unbroken(size))
    fields: dict[str, Val] = {"count": counted_items}
    each = ForClause(("i", "r"), call("enumerate", Name(results)))
    item = Index(Name(items), Name("i"))
    if keep_going:
        if reads & {"iterations", "*"}:
            state.helpers.add("iteration")
        record: Expr = Unbroken(call("iteration", Name("i"), item, Name("r")))
        oks = Comprehension(
            Name("r"), (ForClause(("r",), Name(results)), IfClause(Attribute(Name("r"), "ok")))
        )
        completed = count(Unbroken(call("len", oks)))
    else:
        record = dict_of(
            [
                ("index", Name("i")),
                ("item", item),
                ("status", Str("completed")),
                ("output", Name("r")),
            ]
        )
        completed = counted_items
    iterations = Comprehension(record, (each,))
    if "*" in reads:
        failed: Expr = Literal(0)
        if keep_going:
            counted = f"{target}_completed"
            body.append(assign(counted, completed.code()))
            completed = count(Name(counted))
            failed = Binary(size, "-", Name(counted))
        body.append(
            assign(
                target,
                dict_of(
                    [
                        ("iterations", iterations),
                        ("count", counted_items.code()),
                        ("completed", completed.code()),
                        ("failed", failed),
                    ]
                ),
            )
        )
        return StepView("forEach", runtime(Name(target), Kind.MAP))
    fields["completed"] = completed
    fields["failed"] = (
        count(Binary(size, "-", completed.code())) if keep_going else constant(0)
    )
    fields["iterations"] = runtime(iterations, Kind.LIST)
    return StepView(
        "forEach", runtime(Name(target), Kind.MAP), fields=fields, known_fields=FOR_EACH_FIELDS
    )
