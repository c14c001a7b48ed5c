"""The template functions: Go's builtins and vMCP's ``json``, ``quote``, ``fromJson`` (S74).

:data:`FUNCTIONS` is the one table of what is known about each function, read
by every consumer: its Go parameter types (checked before the call), the
kind of its result, the Python reference (the renderer calls it), the
``vmcp_compat.star`` helper that computes it exactly (the exact emitter), its
plain Starlark form or why there is none, with the deviation classes that
form may show (the readable emitter), and what it does that other modules
reason about: where its result comes from (dataflow), what it does with JSON
text, whether it prints, compares or measures its operands. A new function
is a row here, an entry in the Go oracle's ``FuncMap`` and, for the exact
style, a helper in ``vmcp_compat.star``.

``and``, ``or`` and ``call`` are special forms handled by the executor; every
other function is a plain Python callable over runtime values here. A failing
function raises :class:`FuncError`; the executor wraps it as ``error calling
<f>: …``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from transpiler.deviations import Deviation
from transpiler.golang.escape import html_escape, js_escape, url_query_escape
from transpiler.golang.fmt import sprint, sprintf, sprintln
from transpiler.golang.jsondec import JSONDecodeError, unmarshal
from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.golang.runes import byte_length, from_go_bytes, go_bytes
from transpiler.golang.strconv import quote
from transpiler.golang.types import Uint8, type_name
from transpiler.golang.values import AnyKeyMap, NilList, NilMap
from transpiler.gotemplate import compare
from transpiler.gotemplate.runtime import MISSING, truth

NO_VALUE = "<no value>"


class FuncError(ValueError):
    """A function returned an error; the message is Go's."""


class Param(Enum):
    """The Go type of a function parameter, as named in error texts."""

    VALUE = "reflect.Value"
    ANY = "interface {}"
    STRING = "string"


class Result(Enum):
    """What a function returns: a bool, a string, an int, a value of any kind, or an
    operand passed through as an interface that may be nil (``index``, ``and``, ``or``)."""

    BOOL = "bool"
    STRING = "string"
    INT = "int"
    VALUE = "value"
    INTERFACE = "interface"


class Lowering(Enum):
    """How a readable script writes a call (the readable emitter interprets each)."""

    REFUSED = "refused"  # no plain form: the tool is emitted in the exact style
    CALL = "call"  # the Starlark function ``starlark`` applied to the operands
    LOGIC = "logic"  # the operator ``starlark`` between the operands, stopping where Go stops
    COMPARE = "compare"  # the comparison operator ``starlark`` (``==`` of several: ``in``)
    NOT = "not"  # ``not x``
    LENGTH = "length"  # ``len(x)``
    INDEX = "index"  # ``x[k]`` for each key
    ENCODE = "encode"  # ``json.encode(x)``
    DECODE = "decode"  # ``json.decode(x)``
    FORMAT = "format"  # ``"..." % (x, y)``, the verbs of :data:`~transpiler.gotemplate.verbs.VERBS`


@dataclass(frozen=True)
class Readable:
    """A function in a readable script: its ``lowering``, the Starlark operator or function
    it writes (``starlark``) and the deviation classes the plain form may show, or why there
    is no plain form (``refusal``)."""

    lowering: Lowering
    starlark: str = ""
    classes: tuple[Deviation, ...] = ()
    refusal: str = ""


def plain(lowering: Lowering, starlark: str = "", *classes: Deviation) -> Readable:
    """A plain form that may show ``classes``."""
    return Readable(lowering, starlark, classes)


def refused(reason: str) -> Readable:
    """No plain form, for ``reason``."""
    return Readable(Lowering.REFUSED, refusal=reason)


class Flow(Enum):
    """Where a function's result comes from, as far as reads of the context go."""

    NEW = "new"  # computed from the operands
    KEYED = "keyed"  # the first operand at the others as keys (nil: a missing value read)
    WITHIN = "within"  # somewhere inside the first operand
    CHOSEN = "chosen"  # one of the operands


class Codec(Enum):
    """What a function does with JSON text."""

    NONE = "none"
    ENCODES = "encodes"  # the result is the JSON text of the operand
    DECODES = "decodes"  # the operand is the JSON text of the result


class Printing(Enum):
    """Whether a function prints its operands as Go's ``fmt`` does."""

    NONE = "none"
    OPERANDS = "operands"  # every operand
    FORMATTED = "formatted"  # the operands after the first, a ``printf`` format


@dataclass(frozen=True)
class Function:
    """A template function and everything each consumer needs to know about it.

    ``body``: the Python reference (None for a special form the executor runs
    itself); ``helper``: the exact-style Starlark helper, which takes Go's
    error prefix as ``at`` when ``fails`` (None: the exact style does not
    translate the function); ``readable``: its form in a readable script;
    ``compares``: a comparison (its operands are of one kind); ``measures``:
    the result is the operand's length (a string's in bytes).
    """

    params: tuple[Param, ...]
    variadic: Param | None
    body: Callable[..., Any] | None
    result: Result
    helper: str | None
    readable: Readable
    fails: bool = False
    flow: Flow = Flow.NEW
    codec: Codec = Codec.NONE
    printing: Printing = Printing.NONE
    compares: bool = False
    measures: bool = False

    def param_at(self, position: int) -> Param:
        """The type Go checks the argument at ``position`` against."""
        if position < len(self.params):
            return self.params[position]
        assert self.variadic is not None
        return self.variadic


class CappedList(list[Any]):
    """A list made by ``slice``: remembers the backing array past its length."""

    def __init__(self, items: list[Any], beyond: list[Any]) -> None:
        super().__init__(items)
        self.beyond = beyond


_SIZE_CLASSES = (
    0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
    288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280,
    1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528,
    6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072,
    20480, 21760, 24576, 27264, 28672, 32768,
)  # fmt: skip


def _round_up_size(size: int) -> int:
    for size_class in _SIZE_CLASSES:
        if size <= size_class:
            return size_class
    return -(-size // 8192) * 8192


def appended_capacity(length: int) -> int:
    """``cap`` of a ``[]any`` of ``length`` built by appending from empty, as
    ``encoding/json`` builds arrays (16-byte elements, Go's growth rule)."""
    capacity = 0
    while capacity < length:
        needed = capacity + 1
        new_capacity = capacity * 2
        if capacity >= 256:
            new_capacity = capacity
            while new_capacity < needed:
                new_capacity += (new_capacity + 768) >> 2
        new_capacity = max(new_capacity, needed)
        capacity = _round_up_size(new_capacity * 16) // 16
    return capacity


# --- index, slice, len ---------------------------------------------------------


def _index_arg(index: Any, cap: int) -> int:
    if index is MISSING or index is None:
        raise FuncError("cannot index slice/array with nil")
    if isinstance(index, bool) or not isinstance(index, int):
        raise FuncError(f"cannot index slice/array with type {type_name(index)}")
    if index < 0 or index > cap:
        raise FuncError(f"index out of range: {index}")
    return int(index)


def _map_key(index: Any, any_key: bool) -> Any:
    if any_key:
        return None if index is MISSING else index
    if index is MISSING:
        raise FuncError("value is nil; should be of type string")
    if not isinstance(index, str):
        raise FuncError(f"value has type {type_name(index)}; should be string")
    return index


def _any_key_lookup(mapping: AnyKeyMap, key: Any) -> Any:
    for candidate, value in mapping.items:
        if candidate is None and key is None:
            return value
        if (
            candidate is not None
            and key is not None
            and type_name(candidate) == type_name(key)
            and candidate == key
        ):
            return value
    return None


def index(item: Any, *indexes: Any) -> Any:
    """``index x 1 "k"``: x[1]["k"]; a missing map key gives a nil interface."""
    if item is MISSING or item is None:
        raise FuncError("index of untyped nil")
    for key in indexes:
        key = MISSING if key is None else key
        if item is None:
            raise FuncError("index of nil pointer")
        if isinstance(item, list | NilList | str):
            size = byte_length(item) if isinstance(item, str) else len(item)
            position = _index_arg(key, size)
            if position == size:
                kind = "string" if isinstance(item, str) else "slice"
                raise FuncError(f"reflect: {kind} index out of range")
            if isinstance(item, str):
                item = Uint8(go_bytes(item)[position])
            elif isinstance(item, list):
                item = item[position]
        elif isinstance(item, dict | NilMap):
            name = _map_key(key, any_key=False)
            item = item.get(name) if isinstance(item, dict) else None
        elif isinstance(item, AnyKeyMap):
            item = _any_key_lookup(item, _map_key(key, any_key=True))
        else:
            raise FuncError(f"can't index item of type {type_name(item)}")
    return item


def absent_key(item: Any, *indexes: Any) -> bool:
    """Whether ``index item ...`` gave nil because its last map holds no such key, not a null
    (vMCP prints both alike; a script tells them apart, as for a field read)."""
    if not indexes:
        return False
    try:
        holder = index(item, *indexes[:-1])
    except FuncError:
        return False
    key = indexes[-1]
    if isinstance(holder, dict):
        return key not in holder
    if isinstance(holder, AnyKeyMap):
        return all(candidate != key for candidate, _ in holder.items)
    return isinstance(holder, NilMap)


def _capacity(item: list[Any] | NilList) -> int:
    if isinstance(item, CappedList):
        return len(item) + len(item.beyond)
    return appended_capacity(len(item))


def slice_(item: Any, *indexes: Any) -> Any:
    """``slice x 1 2``: x[1:2] (strings by bytes, lists up to their capacity)."""
    if item is MISSING or item is None:
        raise FuncError("slice of untyped nil")
    if len(indexes) > 3:
        raise FuncError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise FuncError("cannot 3-index slice a string")
        data = go_bytes(item)
        bounds = _slice_bounds(indexes, len(data), len(data))
        return from_go_bytes(data[bounds[0] : bounds[1]])
    if not isinstance(item, list | NilList):
        raise FuncError(f"can't slice item of type {type_name(item)}")
    items = list(item) if isinstance(item, list) else []
    beyond = item.beyond if isinstance(item, CappedList) else []
    capacity = _capacity(item)
    backing = items + beyond + [None] * (capacity - len(items) - len(beyond))
    low, high, top = _slice_bounds(indexes, len(items), capacity)
    return CappedList(backing[low:high], backing[high:top])


def _slice_bounds(indexes: tuple[Any, ...], length: int, cap: int) -> tuple[int, int, int]:
    bounds = [0, length, cap]
    for i, key in enumerate(indexes):
        bounds[i] = _index_arg(MISSING if key is None else key, cap)
    if bounds[0] > bounds[1]:
        raise FuncError(f"invalid slice index: {bounds[0]} > {bounds[1]}")
    if len(indexes) == 3 and bounds[1] > bounds[2]:
        raise FuncError(f"invalid slice index: {bounds[1]} > {bounds[2]}")
    return bounds[0], bounds[1], bounds[2]


def length(item: Any) -> int:
    """``len x``."""
    if item is None:
        raise FuncError("len of nil pointer")
    if item is MISSING:
        raise FuncError("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(item, str):
        return byte_length(item)
    if isinstance(item, dict | list | NilMap | NilList):
        return len(item)
    if isinstance(item, AnyKeyMap):
        return len(item.items)
    raise FuncError(f"len of type {type_name(item)}")


def not_(value: Any) -> bool:
    """``not x``."""
    return not truth(value)


# --- printing ------------------------------------------------------------------


def _printable(value: Any) -> Any:
    return NO_VALUE if value is None else value


def _eval_args(args: tuple[Any, ...]) -> str:
    """Go's ``evalArgs``: the ``fmt.Sprint`` of the arguments, nil as ``<no value>``."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return sprint([_printable(arg) for arg in args])


def _printf(format_text: str, *args: Any) -> str:
    return sprintf(format_text, list(args))


def _json(value: Any) -> str:
    try:
        return marshal(value)
    except JSONEncodeError as error:
        raise FuncError(f"failed to encode JSON: {error}") from None


def _from_json(text: str) -> Any:
    try:
        return unmarshal(text)
    except JSONDecodeError as error:
        raise FuncError(f"failed to unmarshal JSON: {error}") from None


def _comparison(check: Callable[..., bool]) -> Callable[..., bool]:
    def run(*args: Any) -> bool:
        try:
            return check(*args)
        except compare.ComparisonError as error:
            raise FuncError(str(error)) from None

    return run


_V, _A, _S = Param.VALUE, Param.ANY, Param.STRING
_B, _T, _I, _F, _R = Result.BOOL, Result.STRING, Result.INT, Result.INTERFACE, Result.VALUE
_ESCAPE = refused("Go's HTML/JS/URL escaping has no plain Starlark form")
_PRINT = refused("Go's print formats values its own way")


def _comparing(
    check: Callable[..., bool],
    helper: str,
    operator: str,
    params: tuple[Param, ...] = (_V, _V),
    variadic: Param | None = None,
) -> Function:
    """A comparison, written in a readable script with the operator ``operator``."""
    readable = plain(Lowering.COMPARE, operator, Deviation.TEMPLATE_ERROR)
    return Function(
        params, variadic, _comparison(check), _B, helper, readable, fails=True, compares=True
    )


FUNCTIONS: dict[str, Function] = {
    "and": Function((_V,), _V, None, _F, "go_and", plain(Lowering.LOGIC, "and"), flow=Flow.CHOSEN),
    "or": Function((_V,), _V, None, _F, "go_or", plain(Lowering.LOGIC, "or"), flow=Flow.CHOSEN),
    "call": Function((_V,), _V, None, _R, "go_call", refused("nothing to call"), fails=True),
    "html": Function((), _A, lambda *a: html_escape(_eval_args(a)), _T, "go_html", _ESCAPE),
    "js": Function((), _A, lambda *a: js_escape(_eval_args(a)), _T, "go_js", _ESCAPE),
    "urlquery": Function(
        (), _A, lambda *a: url_query_escape(_eval_args(a)), _T, "go_urlquery", _ESCAPE
    ),
    "index": Function(
        (_V,),
        _V,
        index,
        _F,
        "go_index",
        plain(Lowering.INDEX, "", Deviation.MISSING_VALUE, Deviation.TEMPLATE_ERROR),
        fails=True,
        flow=Flow.KEYED,
    ),
    "slice": Function(
        (_V,),
        _V,
        slice_,
        _R,
        None,
        refused("Go's slice of a string is bytes"),
        fails=True,
        flow=Flow.WITHIN,
    ),
    "len": Function(
        (_V,),
        None,
        length,
        _I,
        "go_len",
        plain(Lowering.LENGTH, "", Deviation.TEMPLATE_ERROR, Deviation.RUST_ENGINE),
        fails=True,
        measures=True,
    ),
    "not": Function((_V,), None, not_, _B, "go_not", plain(Lowering.NOT)),
    "print": Function(
        (), _A, lambda *a: sprint(list(a)), _T, "go_sprint", _PRINT, printing=Printing.OPERANDS
    ),
    "printf": Function(
        (_S,),
        _A,
        _printf,
        _T,
        "go_sprintf",
        plain(
            Lowering.FORMAT,
            "",
            Deviation.VALUE_TEXT,
            Deviation.NUMBER_TEXT,
            Deviation.RUST_ENGINE,
        ),
        printing=Printing.FORMATTED,
    ),
    "println": Function(
        (), _A, lambda *a: sprintln(list(a)), _T, "go_sprintln", _PRINT, printing=Printing.OPERANDS
    ),
    "eq": _comparing(compare.eq, "go_eq", "==", (_V,), _V),
    "ne": _comparing(compare.ne, "go_ne", "!="),
    "lt": _comparing(compare.lt, "go_lt", "<"),
    "le": _comparing(compare.le, "go_le", "<="),
    "gt": _comparing(compare.gt, "go_gt", ">"),
    "ge": _comparing(compare.ge, "go_ge", ">="),
    "json": Function(
        (_A,),
        None,
        _json,
        _T,
        "go_json",
        plain(Lowering.ENCODE, "", Deviation.JSON_TEXT, Deviation.RUST_ENGINE),
        fails=True,
        codec=Codec.ENCODES,
    ),
    "quote": Function((_S,), None, quote, _T, "go_quote", refused("Go's %q quoting")),
    "fromJson": Function(
        (_S,),
        None,
        _from_json,
        _F,
        "go_from_json",
        plain(Lowering.DECODE, "", Deviation.TEMPLATE_ERROR),
        fails=True,
        codec=Codec.DECODES,
    ),
}


def call_target_error(callee: str, target: Any) -> FuncError:
    """Why ``call`` fails: template data never holds Go functions."""
    if target is MISSING or target is None:
        return FuncError("call of nil")
    return FuncError(f"non-function {callee} of type {type_name(target)}")


def value_string(value: Any) -> str:
    """``reflect.Value.String()``: a string's text, else ``<T Value>``."""
    if value is MISSING:
        return "<invalid Value>"
    if isinstance(value, str):
        return value
    return f"<{'interface {}' if value is None else type_name(value)} Value>"
