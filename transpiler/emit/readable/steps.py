"""Each kind of step as the plain code THV-0051 describes.

- tool: ``call_tool``; ``onError: retry`` wraps it in ``retry(lambda: ...)``
  with vMCP's attempts and delay; ``continue`` uses ``try_call_tool`` and the
  step's ``defaultResults`` (a small ``call_or`` helper when several steps do);
- elicitation: ``elicit(message, schema)``, then the handlers: ``fail()`` for
  abort, nothing for continue, an early ``return`` for ``skip_remaining``;
- forEach: the collection, vMCP's ``maxIterations`` check, then the calls
  through ``parallel`` (or a plain loop for ``maxParallel: 1``);
- a condition guards the step with ``if``; a skipped step holds its
  ``defaultResults``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transpiler.config.model import STEP_ELICITATION, STEP_FOR_EACH, WorkflowStepConfig
from transpiler.deviations import Deviation
from transpiler.emit.limits import MAX_DEPTH, TooDeep, too_deep
from transpiler.emit.readable.code import (
    TERNARY,
    Block,
    Comprehension,
    Dict,
    Expr,
    Lambda,
    List,
    Raw,
    call,
    dict_of,
    flat,
    literal,
    name,
    string,
)
from transpiler.emit.readable.state import State, StepView, map_key
from transpiler.emit.readable.templates import NotReadable
from transpiler.emit.readable.values import (
    MISSING,
    Kind,
    Val,
    constant,
    go_text,
    plain,
    runtime,
    status,
    status_under,
)
from transpiler.golang.duration import format_duration
from transpiler.golang.strconv import NumError, parse_bool, parse_float, parse_int

MAX_RETRIES = 10
DEFAULT_RETRY_DELAY_NS = 1_000_000_000
DEFAULT_MAX_ITERATIONS = 100
MAX_ITERATIONS = 1000
DEFAULT_MAX_PARALLEL = 10
SCRIPT_PARALLEL_CAP = 10
MIN_SHARED_MAP = 40  # shorter argument maps read better written out at each call
ELICITATION_FIELDS = frozenset({"action", "content", "skipped"})
FOR_EACH_FIELDS = frozenset({"iterations", "count", "completed", "failed"})

Finish = Callable[[Block, dict[str, StepView]], None]


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


def hoist_shared(state: State, step: WorkflowStepConfig, block: Block, values: bool = True) -> None:
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
            block.statement(f"{local} = ", arguments(state, step))
            state.named[key] = name(local)
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
        block.statement(f"{local} = ", text.code())
        state.named[template] = name(local)


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
                (string(str(k)), _value(state, v, properties.get(k), depth + 1))
                for k, v in value.items()
            )
        )
    if isinstance(value, list):
        items = schema.get("items") if kind == "array" else None
        return List(tuple(_value(state, v, items, depth + 1) for v in value))
    return literal(plain(value))


def _string_argument(state: State, template: str, kind: Any) -> Expr:
    compiler = state.compiler()
    if kind in ("integer", "number", "boolean"):
        value = compiler.value(template)
        if value.constant:
            return literal(plain(_coerced(go_text(value.const), kind)))
        if value.kind is not Kind.STR:
            state.declare(Deviation.ARGUMENT_COERCION)
            if value.encodes is not None:
                state.declare(Deviation.JSON_TEXT, Deviation.RUST_ENGINE)
            return value.code()
        state.declare(Deviation.ARGUMENT_COERCION)
    text = compiler.text(template)
    return text.code() if not text.constant else literal(text.const)


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


def retry_policy(step: WorkflowStepConfig) -> tuple[int, str] | None:
    """``max_attempts`` and ``delay`` for an ``onError: retry`` step."""
    if step.on_error is None or step.on_error.action != "retry":
        return None
    delay = step.on_error.retry_delay
    attempts = min(step.on_error.retry_count, MAX_RETRIES) + 1
    return attempts, format_duration(delay if delay > 0 else DEFAULT_RETRY_DELAY_NS)


def call_expression(state: State, step: WorkflowStepConfig, args: Expr) -> Expr:
    """``call_tool(...)``, retried as the step says."""
    state.declare(Deviation.ERROR_TEXT)
    expr: Expr = call("call_tool", string(step.tool), args)
    policy = retry_policy(step)
    if policy is None:
        return expr
    attempts, delay = policy
    options: dict[str, Expr] = {}
    if attempts != 3:
        options["max_attempts"] = literal(attempts)
    if delay != "1s":
        options["delay"] = string(delay)
    return call("retry", Lambda((), expr), **options)


def defaults(step: WorkflowStepConfig) -> Val:
    """What a skipped (or, under continue, failed) step leaves as output."""
    return constant(step.default_results if step.default_results is not None else MISSING)


def defaults_expr(step: WorkflowStepConfig) -> Expr:
    """The defaults as a literal (``None`` when the step has none)."""
    return literal(plain(step.default_results))


# --- tool steps --------------------------------------------------------------


def tool_step(state: State, step: WorkflowStepConfig, target: str | None) -> tuple[Expr, StepView]:
    """The step as one expression (its value is the output) and the view of it afterwards."""
    args = arguments(state, step)
    if step.continues_on_error:
        state.helpers.add("call_or")
        expr: Expr = call("call_or", string(step.tool), args, defaults_expr(step))
    else:
        expr = call_expression(state, step, args)
    output = runtime(name(target), Kind.MAP) if target else constant(MISSING)
    return expr, StepView("tool", output)


# --- conditions --------------------------------------------------------------


def guarded(
    state: State,
    step: WorkflowStepConfig,
    block: Block,
    target: str | None,
    body: Callable[[Block], StepView],
) -> StepView:
    """Run ``body`` under the step's condition; a skipped step holds its defaults."""
    if not step.condition:
        return body(block)
    test = state.compiler().condition(step.condition)
    if test.constant:
        if test.const is True:
            return body(block)
        if test.const is False:
            block.comment(f"vMCP always skips step {step.id}: its condition is false.")
            state.note("finding", Deviation.CONDITION_TEXT, f"step {step.id} is always skipped")
            return _skipped_view(step, block, target)
        return _condition_fails(state, step, block, target)
    opened(block, "if ", test.code())
    view = body(block)
    block.depth -= 1
    view.fields, view.known_fields = {}, None
    if target is not None:
        block.add("else:")
        block.depth += 1
        block.statement(f"{target} = ", defaults_expr(step))
        block.depth -= 1
    view.output = runtime(name(target), Kind.MAP) if target is not None else constant(MISSING)
    view.status = status_under(test.code(), view.status)
    return view


def opened(block: Block, head: str, test: Expr) -> None:
    """``head test:`` and one level deeper."""
    block.statement(head, test)
    block.lines[-1] += ":"
    block.depth += 1


def _skipped_view(step: WorkflowStepConfig, block: Block, target: str | None) -> StepView:
    if target is not None:
        block.statement(f"{target} = ", defaults_expr(step))
    return StepView("tool", defaults(step), status=constant("skipped"))


def _condition_fails(
    state: State, step: WorkflowStepConfig, block: Block, target: str | None
) -> StepView:
    """A condition that never renders true or false: vMCP fails the step every time."""
    state.note(
        "finding",
        Deviation.CONDITION_TEXT,
        f"the condition of step {step.id} never renders true or false: vMCP fails the step",
    )
    if not step.continues_on_error:
        state.declare(Deviation.ERROR_TEXT)
        block.statement(
            "fail(", Raw(flat(string(f"the condition of step {step.id} never evaluates")) + ")")
        )
        return StepView("tool", constant(MISSING), status=constant("failed"))
    block.comment(
        f"vMCP never runs step {step.id}: its condition never renders true or false, and\n"
        "onError: continue hides the failure."
    )
    if target is not None:
        block.add(f"{target} = None")
    return StepView("tool", constant(MISSING), status=constant("failed"))


# --- elicitation -------------------------------------------------------------


def elicitation_step(
    state: State, step: WorkflowStepConfig, block: Block, target: str, skip: Finish
) -> StepView:
    """``elicit``, then the decline and cancel handlers.

    Under a condition the step's output must also exist as its defaults, so the
    answer is kept apart and the output is the dict vMCP records.
    """
    message = state.compiler().text(step.message)
    schema = literal(plain(step.schema or {}))
    answer = (
        state.variable(f"\x00answer:{step.id}", f"{step.id}_answer") if step.condition else target
    )
    block.statement(f"{answer} = ", call("elicit", message.code(), schema))
    view = _handled(state, step, block, answer, skip)
    if not step.condition:
        return view
    recorded = (
        f'{{"action": {answer}.action, "content": {answer}.content}} '
        f'if {answer}.action == "accept" else {{"action": {answer}.action}}'
    )
    block.statement(f"{target} = ", Raw(recorded, TERNARY))
    return StepView("elicitation", runtime(name(target), Kind.MAP), status=view.status)


def _handled(
    state: State, step: WorkflowStepConfig, block: Block, target: str, skip: Finish
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
    skipping = [a for a, h in handlers.items() if h == "skip_remaining"]
    if skipping:
        state.declare(Deviation.SKIP_REMAINING)
        opened(block, "if ", _action_test(target, skipping))
        action = constant(skipping[0]) if len(skipping) == 1 else runtime(name(f"{target}.action"))
        skipped_view = StepView(
            "elicitation",
            runtime(name(target), Kind.ANY),
            fields={"action": action, "skipped": constant(True)},
            known_fields=ELICITATION_FIELDS,
        )
        skip(block, {step.id: skipped_view})
        block.depth -= 1
    if failing:
        state.declare(Deviation.ERROR_TEXT)
        opened(block, "if ", _action_test(target, failing))
        block.statement(
            "fail(",
            Raw(flat(string(f"{step.id}: the user answered ")) + f" + {target}.action)"),
        )
        block.depth -= 1
    action = (
        constant("accept")
        if possible == {"accept"}
        else runtime(name(f"{target}.action"), Kind.STR)
    )
    return StepView(
        "elicitation",
        runtime(Raw(f'{{"action": {target}.action, "content": {target}.content}}'), Kind.MAP),
        status=status(_not_action_test(target, swallowed), "failed")
        if swallowed
        else constant("completed"),
        fields={
            "action": action,
            "content": runtime(name(f"{target}.content"), Kind.MAP),
            "skipped": constant(MISSING),
        },
        known_fields=ELICITATION_FIELDS,
    )


def _action(handler: Any) -> str:
    return handler.action if handler is not None and handler.action else "abort"


def _action_test(target: str, actions: list[str]) -> Expr:
    if len(actions) == 2:
        return Raw(f'{target}.action != "accept"')
    return Raw(f"{target}.action == {string(actions[0]).text}")


def _not_action_test(target: str, actions: list[str]) -> Expr:
    """The answer is none of ``actions`` (the negation of :func:`_action_test`)."""
    if len(actions) == 2:
        return Raw(f'{target}.action == "accept"')
    return Raw(f"{target}.action != {string(actions[0]).text}")


# --- forEach -----------------------------------------------------------------


def for_each_step(
    state: State, step: WorkflowStepConfig, block: Block, target: str, reads: frozenset[str]
) -> StepView:
    """The collection, the size check, the calls; the parts of the output later steps read."""
    inner = step.inner_step
    if inner is None:
        raise NotReadable(f"forEach step {step.id} has no inner step")
    keep_going = step.continues_on_error
    if keep_going and retry_policy(inner) is not None:
        raise NotReadable(
            f"forEach step {step.id} continues after failures but retries each item: retry() "
            "halts the script when the attempts run out"
        )
    items, item_kind = _collection(state, step, block)
    limit = step.max_iterations if step.max_iterations > 0 else DEFAULT_MAX_ITERATIONS
    limit = min(limit, MAX_ITERATIONS)
    block.add(f"if len({items}) > {limit}:")
    block.depth += 1
    state.declare(Deviation.ERROR_TEXT)
    block.add(
        f'fail("{_inert_id(step.id)}: %d items, more than the {limit} it may iterate" % '
        f"len({items}))"
    )
    block.depth -= 1
    item_var = step.item_var or "item"
    item = state.variable(f"\x00item:{step.id}", item_var)
    index = state.variable(f"\x00index:{step.id}", "index")
    state.for_each = (item_var, runtime(name(item), item_kind), runtime(name(index), Kind.NUM))
    args = arguments(state, inner)
    uses_index = index in flat(args)
    state.for_each = None
    parallel = step.max_parallel if step.max_parallel > 0 else DEFAULT_MAX_PARALLEL
    results = state.variable(f"\x00results:{step.id}", f"{target}_results")
    collect = bool(reads & {"iterations", "completed", "failed", "*"})
    if keep_going:
        call_one: Expr = call("try_call_tool", string(inner.tool), args)
    else:
        call_one = call_expression(state, inner, args)
    if parallel == 1 and not keep_going:
        _sequential(block, items, item, index, uses_index, call_one, results if collect else None)
    else:
        if not keep_going and parallel != SCRIPT_PARALLEL_CAP:
            state.declare(Deviation.PARALLEL_CAP)
        params = (f"{index}={index}", f"{item}={item}") if uses_index else (f"{item}={item}",)
        source = f"enumerate({items})" if uses_index else items
        clause = f"for {index}, {item} in {source}" if uses_index else f"for {item} in {source}"
        calls = call("parallel", Comprehension(Lambda(params, call_one), clause))
        block.statement(f"{results} = " if collect else "", calls)
    return _for_each_view(state, block, target, items, results, keep_going, reads)


def _sequential(
    block: Block,
    items: str,
    item: str,
    index: str,
    uses_index: bool,
    call_one: Expr,
    results: str | None,
) -> None:
    if results is not None:
        block.add(f"{results} = []")
    head = (
        f"for {index}, {item} in enumerate({items}):" if uses_index else f"for {item} in {items}:"
    )
    block.add(head)
    block.depth += 1
    block.statement("", call_one if results is None else call(f"{results}.append", call_one))
    block.depth -= 1


def _collection(state: State, step: WorkflowStepConfig, block: Block) -> tuple[str, Kind]:
    """A variable holding the items (named after the field they come from), and their kind."""
    value = state.compiler().value(step.collection)
    source = value.encodes if value.encodes is not None else None
    if source is None:
        if value.constant:
            raise NotReadable(f"forEach step {step.id} iterates over a constant")
        state.declare(Deviation.TEMPLATE_ERROR)
        source = runtime(call("json.decode", value.code()), Kind.LIST)
    else:
        state.declare(Deviation.MISSING_VALUE)
    code = flat(source.code())
    if code.isidentifier():
        return code, source.item_kind
    hint = source.key if source.key is not None else f"{step.id}_items"
    items = state.variable(f"\x00items:{step.id}", hint)
    block.statement(f"{items} = ", source.code())
    return items, source.item_kind


def _for_each_view(
    state: State,
    block: Block,
    target: str,
    items: str,
    results: str,
    keep_going: bool,
    reads: frozenset[str],
) -> StepView:
    count = runtime(Raw(f"len({items})"), Kind.NUM)
    fields: dict[str, Val] = {"count": count}
    each = f"for i, r in enumerate({results})"
    if keep_going:
        state.helpers.add("iteration")
        iterations: Expr = Comprehension(Raw(f"iteration(i, {items}[i], r)"), each)
        completed = runtime(Raw(f"len([r for r in {results} if r.ok])"), Kind.NUM)
    else:
        record = dict_of(
            [
                ("index", name("i")),
                ("item", Raw(f"{items}[i]")),
                ("status", string("completed")),
                ("output", name("r")),
            ]
        )
        iterations = Comprehension(record, each)
        completed = count
    if "*" in reads:
        failed = Raw(f"len({items}) - {target}_completed") if keep_going else Raw("0")
        if keep_going:
            block.statement(f"{target}_completed = ", completed.code())
            completed = runtime(name(f"{target}_completed"), Kind.NUM)
        block.statement(
            f"{target} = ",
            dict_of(
                [
                    ("iterations", iterations),
                    ("count", count.code()),
                    ("completed", completed.code()),
                    ("failed", failed),
                ]
            ),
        )
        return StepView("forEach", runtime(name(target), Kind.MAP))
    fields["completed"] = completed
    fields["failed"] = (
        runtime(Raw(f"len({items}) - {flat(completed.code())}"), Kind.NUM)
        if keep_going
        else constant(0)
    )
    fields["iterations"] = runtime(iterations, Kind.LIST)
    return StepView(
        "forEach", runtime(name(target), Kind.MAP), fields=fields, known_fields=FOR_EACH_FIELDS
    )


def _inert_id(step_id: str) -> str:
    """A step id inside a string literal's text (quotes and escapes made plain)."""
    return string(step_id).text[1:-1].replace("%", "%%")


def is_special(step: WorkflowStepConfig) -> bool:
    """Elicitation and forEach steps need statements (not one expression)."""
    return step.effective_type in (STEP_ELICITATION, STEP_FOR_EACH)
