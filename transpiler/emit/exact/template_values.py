"""What the compiler knows about one operand while translating it.

Go's executor tracks more than a value: whether it is still an interface
(a map entry or list element, named ``interface {}`` in field errors and
possibly a nil interface rather than a missing value) and which node the
executor last stood on (errors raised later quote that node). A
:class:`Operand` carries the Starlark expression together with those facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from transpiler.emit import ir


class Symbol(Enum):
    """Maps of the template root known at compile time (not yet Starlark values)."""

    ROOT = "root"
    STEPS = "steps"
    STEP = "step"
    FOR_EACH = "forEach"


class Kind(Enum):
    """What an operand is known to hold, when the compiler knows."""

    UNKNOWN = "unknown"
    STRING = "string"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    DICT = "dict"
    MAP = "map"  # a dict or GO_NIL_MAP
    MISSING = "missing"
    NIL = "nil"


@dataclass(frozen=True)
class Operand:
    """A translated operand.

    ``expr`` is its Starlark expression (None for a symbol not yet turned
    into a value). ``fails``: it may be an error value. ``iface``: an
    interface value for Go's type names in field errors (a bool, or the
    Starlark expression of a bool). ``nil_iface``: it may be None standing
    for a nil interface. ``at``: the Starlark expression of the error prefix
    of the node Go's executor last stood on after evaluating it; None when
    only statements can compute it.
    """

    expr: ir.Expr | None
    at: ir.Expr | None
    fails: bool = False
    iface: bool | ir.Expr = False
    nil_iface: bool = False
    kind: Kind = Kind.UNKNOWN
    symbol: Symbol | None = None
    step_id: str = ""


def bool_expr(value: bool | ir.Expr) -> ir.Expr:
    """An ``iface`` fact as Starlark: a bool known now, or the expression computing it."""
    return ir.Literal(value) if isinstance(value, bool) else value
