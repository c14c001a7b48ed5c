"""Go's ``fmt`` printing: ``%v`` of every value kind (S76, S77) and the
``print``/``printf``/``println`` builtins, bad verbs and argument errors included.

Arguments are Go ``any`` values: ``None`` is nil, containers print their
elements recursively, maps with keys sorted by bytes. Addresses cannot be
reproduced: ``%p`` of a non-nil map or slice, and the location pointer of a
non-UTC ``time.Time`` printed as a struct (under a verb its ``String`` does
not serve, e.g. ``%d``), print the placeholder ``0xc000000000``.
"""

from __future__ import annotations

import math
from typing import Any

from transpiler.golang.runes import (
    MAX_RUNE,
    RUNE_ERROR,
    escaped_byte,
    go_bytes,
    is_print,
    rune_to_str,
    sorted_strings,
)
from transpiler.golang.strconv import (
    can_backquote,
    format_float,
    quote,
    quote_rune,
    quote_to_ascii,
)
from transpiler.golang.timefmt import time_fields, time_go_string, time_string
from transpiler.golang.types import (
    INTERFACE_TYPE,
    Kind,
    Uint8,
    Uint64,
    kind_of,
    type_name,
)
from transpiler.golang.values import AnyKeyMap, GoTime, Int64, NilList, NilMap

NIL_ANGLE = "<nil>"
_LOWER = "0123456789abcdefx"
_UPPER = "0123456789ABCDEFX"
_MAX_WIDTH = 1_000_000
_FAKE_ADDRESS = 0xC000000000


class _Flags:
    """The state of one ``%`` directive (Go's ``fmtFlags`` plus width and precision)."""

    __slots__ = (
        "minus",
        "plus",
        "plus_v",
        "prec",
        "prec_present",
        "sharp",
        "sharp_v",
        "space",
        "wid",
        "wid_present",
        "zero",
    )

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.wid = 0
        self.prec = 0
        self.wid_present = False
        self.prec_present = False
        self.minus = False
        self.plus = False
        self.sharp = False
        self.space = False
        self.zero = False
        self.plus_v = False
        self.sharp_v = False


class _Printer:
    """Go's ``pp``: formats arguments into a list of string pieces."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.flags = _Flags()
        self.arg: Any = None
        self.value: Any = None
        self.has_value = False
        self.erroring = False

    def text(self) -> str:
        return "".join(self.out)

    # --- padding -----------------------------------------------------------------

    def write_padding(self, count: int) -> None:
        if count > 0:
            self.out.append(("0" if self.flags.zero else " ") * count)

    def pad(self, text: str) -> None:
        flags = self.flags
        if not flags.wid_present or flags.wid == 0:
            self.out.append(text)
            return
        width = flags.wid - len(text)
        if flags.minus:
            self.out.append(text)
            self.write_padding(width)
        else:
            self.write_padding(width)
            self.out.append(text)

    def pad_keeping_zero_off(self, text: str) -> None:
        old_zero = self.flags.zero
        self.flags.zero = False
        self.pad(text)
        self.flags.zero = old_zero

    # --- basic kinds -------------------------------------------------------------

    def fmt_boolean(self, value: bool) -> None:
        self.pad("true" if value else "false")

    def fmt_integer_digits(
        self, value: int, base: int, signed: bool, verb: str, digits: str
    ) -> None:
        flags = self.flags
        negative = signed and value < 0
        magnitude = -value if negative else value
        if not signed and magnitude < 0:
            magnitude &= (1 << 64) - 1
        prec = 0
        if flags.prec_present:
            prec = flags.prec
            if prec == 0 and magnitude == 0:
                old_zero = flags.zero
                flags.zero = False
                self.write_padding(flags.wid)
                flags.zero = old_zero
                return
        elif flags.zero and flags.wid_present:
            prec = flags.wid
            if negative or flags.plus or flags.space:
                prec -= 1
        body = _to_base(magnitude, base, digits)
        if prec > len(body):
            body = "0" * (prec - len(body)) + body
        if flags.sharp:
            if base == 2:
                body = "0b" + body
            elif base == 8 and not body.startswith("0"):
                body = "0" + body
            elif base == 16:
                body = "0" + digits[16] + body
        if verb == "O":
            body = "0o" + body
        if negative:
            body = "-" + body
        elif flags.plus:
            body = "+" + body
        elif flags.space:
            body = " " + body
        self.pad_keeping_zero_off(body)

    def fmt_unicode(self, value: int) -> None:
        flags = self.flags
        prec = flags.prec if flags.prec_present and flags.prec > 4 else 4
        hex_digits = _to_base(value & ((1 << 64) - 1), 16, _UPPER)
        text = "U+" + "0" * max(prec - len(hex_digits), 0) + hex_digits
        if flags.sharp and value <= MAX_RUNE and is_print(value):
            text += " '" + chr(value) + "'"
        self.pad_keeping_zero_off(text)

    def fmt_char(self, value: int) -> None:
        self.pad(rune_to_str(value if 0 <= value <= MAX_RUNE else RUNE_ERROR))

    def fmt_quoted_char(self, value: int) -> None:
        rune = value if 0 <= value <= MAX_RUNE else RUNE_ERROR
        self.pad(quote_rune(rune, ascii_only=self.flags.plus))

    def fmt_integer(self, value: int, signed: bool, verb: str) -> None:
        if verb == "v":
            if self.flags.sharp_v and not signed:
                self.fmt_0x64(value, leading_0x=True)
            else:
                self.fmt_integer_digits(value, 10, signed, verb, _LOWER)
        elif verb == "d":
            self.fmt_integer_digits(value, 10, signed, verb, _LOWER)
        elif verb == "b":
            self.fmt_integer_digits(value, 2, signed, verb, _LOWER)
        elif verb in "oO":
            self.fmt_integer_digits(value, 8, signed, verb, _LOWER)
        elif verb == "x":
            self.fmt_integer_digits(value, 16, signed, verb, _LOWER)
        elif verb == "X":
            self.fmt_integer_digits(value, 16, signed, verb, _UPPER)
        elif verb == "c":
            self.fmt_char(value)
        elif verb == "q":
            self.fmt_quoted_char(value)
        elif verb == "U":
            self.fmt_unicode(value)
        else:
            self.bad_verb(verb)

    def fmt_0x64(self, value: int, leading_0x: bool) -> None:
        sharp = self.flags.sharp
        self.flags.sharp = leading_0x
        self.fmt_integer_digits(value, 16, False, "v", _LOWER)
        self.flags.sharp = sharp

    def fmt_float_verb(self, value: float, verb: str) -> None:
        if verb == "v":
            self.fmt_float(value, "g", -1)
        elif verb in "bgGxX":
            self.fmt_float(value, verb, -1)
        elif verb in "feE":
            self.fmt_float(value, verb, 6)
        elif verb == "F":
            self.fmt_float(value, "f", 6)
        else:
            self.bad_verb(verb)

    def fmt_float(self, value: float, verb: str, prec: int) -> None:
        flags = self.flags
        if flags.prec_present:
            prec = flags.prec
        number = format_float(value, verb, prec)
        if number[0] not in "+-":
            number = "+" + number
        if flags.space and number[0] == "+" and not flags.plus:
            number = " " + number[1:]
        if number[1] in "IN":
            old_zero = flags.zero
            flags.zero = False
            if number[1] == "N" and not flags.space and not flags.plus:
                number = number[1:]
            self.pad(number)
            flags.zero = old_zero
            return
        if flags.sharp and verb != "b":
            number = _keep_point(number, verb, prec)
        if flags.plus or number[0] != "+":
            if flags.zero and flags.wid_present and flags.wid > len(number):
                self.out.append(number[0])
                self.write_padding(flags.wid - len(number))
                self.out.append(number[1:])
                return
            self.pad(number)
            return
        self.pad(number[1:])

    def fmt_complex(self, value: complex, verb: str) -> None:
        if verb not in "vbgGxXfFeE":
            self.bad_verb(verb)
            return
        old_plus = self.flags.plus
        self.out.append("(")
        self.fmt_float_verb(value.real, verb)
        self.flags.plus = True
        self.fmt_float_verb(value.imag, verb)
        self.out.append("i)")
        self.flags.plus = old_plus

    def truncate(self, text: str) -> str:
        if self.flags.prec_present:
            return text[: self.flags.prec]
        return text

    def fmt_s(self, text: str) -> None:
        self.pad(self.truncate(text))

    def fmt_sx(self, text: str, digits: str) -> None:
        flags = self.flags
        data = go_bytes(text)
        length = len(data)
        if flags.prec_present and flags.prec < length:
            length = flags.prec
        width = 2 * length
        if width <= 0:
            if flags.wid_present:
                self.write_padding(flags.wid)
            return
        if flags.space:
            if flags.sharp:
                width *= 2
            width += length - 1
        elif flags.sharp:
            width += 2
        if flags.wid_present and flags.wid > width and not flags.minus:
            self.write_padding(flags.wid - width)
        pieces = ["0" + digits[16]] if flags.sharp else []
        for i in range(length):
            if flags.space and i > 0:
                pieces.append(" ")
                if flags.sharp:
                    pieces.append("0" + digits[16])
            byte = data[i]
            pieces.append(digits[byte >> 4] + digits[byte & 0xF])
        self.out.append("".join(pieces))
        if flags.wid_present and flags.wid > width and flags.minus:
            self.write_padding(flags.wid - width)

    def fmt_q(self, text: str) -> None:
        text = self.truncate(text)
        if self.flags.sharp and can_backquote(text):
            self.pad("`" + text + "`")
        elif self.flags.plus:
            self.pad(quote_to_ascii(text))
        else:
            self.pad(quote(text))

    def fmt_string(self, text: str, verb: str) -> None:
        if verb == "v":
            if self.flags.sharp_v:
                self.fmt_q(text)
            else:
                self.fmt_s(text)
        elif verb == "s":
            self.fmt_s(text)
        elif verb == "x":
            self.fmt_sx(text, _LOWER)
        elif verb == "X":
            self.fmt_sx(text, _UPPER)
        elif verb == "q":
            self.fmt_q(text)
        else:
            self.bad_verb(verb)

    def fmt_pointer(self, value: Any, verb: str) -> None:
        if value is None or kind_of(value) not in (Kind.MAP, Kind.SLICE):
            self.bad_verb(verb)
            return
        address = 0 if isinstance(value, NilMap | NilList) else _FAKE_ADDRESS
        if verb == "v":
            if self.flags.sharp_v:
                self.out.append("(" + type_name(value) + ")(")
                if address == 0:
                    self.out.append("nil")
                else:
                    self.fmt_0x64(address, leading_0x=True)
                self.out.append(")")
            elif address == 0:
                self.pad(NIL_ANGLE)
            else:
                self.fmt_0x64(address, leading_0x=not self.flags.sharp)
        elif verb == "p":
            self.fmt_0x64(address, leading_0x=not self.flags.sharp)
        elif verb in "bodxX":
            self.fmt_integer(address, False, verb)
        else:
            self.bad_verb(verb)

    # --- errors ------------------------------------------------------------------

    def bad_verb(self, verb: str) -> None:
        self.erroring = True
        self.out.append("%!" + verb + "(")
        if self.arg is not None:
            arg = self.arg
            self.out.append(type_name(arg) + "=")
            self.print_arg(arg, "v")
        elif self.has_value:
            value = self.value
            self.out.append(type_name(value) + "=")
            self.print_value(value, "v", 0)
        else:
            self.out.append(NIL_ANGLE)
        self.out.append(")")
        self.erroring = False

    # --- values ------------------------------------------------------------------

    def handle_methods(self, verb: str) -> bool:
        """``time.Time`` is the only value with methods: ``GoString`` and ``String``."""
        if self.erroring or not isinstance(self.arg, GoTime):
            return False
        if self.flags.sharp_v:
            self.fmt_s(time_go_string(self.arg))
            return True
        if verb not in "vsxXq":
            return False
        self.fmt_string(time_string(self.arg), verb)
        return True

    def print_arg(self, arg: Any, verb: str) -> None:
        self.arg = arg
        self.value = None
        self.has_value = False
        if arg is None:
            if verb in "Tv":
                self.pad(NIL_ANGLE)
            else:
                self.bad_verb(verb)
            return
        if verb == "T":
            self.fmt_s(type_name(arg))
            return
        if verb == "p":
            self.fmt_pointer(arg, "p")
            return
        if isinstance(arg, bool | int | float | complex | str):
            self.print_basic(arg, verb)
        elif not self.handle_methods(verb):
            self.print_value(arg, verb, 0)

    def print_basic(self, value: bool | int | float | complex | str, verb: str) -> None:
        if isinstance(value, bool):
            if verb in "tv":
                self.fmt_boolean(value)
            else:
                self.bad_verb(verb)
        elif isinstance(value, int):
            self.fmt_integer(int(value), not isinstance(value, Uint8 | Uint64), verb)
        elif isinstance(value, float):
            self.fmt_float_verb(value, verb)
        elif isinstance(value, complex):
            self.fmt_complex(value, verb)
        else:
            self.fmt_string(value, verb)

    def print_value(self, value: Any, verb: str, depth: int) -> None:
        if depth > 0:
            self.arg = value
            if self.handle_methods(verb):
                return
        self.arg = None
        self.value = value
        self.has_value = True
        if isinstance(value, bool | int | float | complex | str):
            self.print_basic(value, verb)
        elif isinstance(value, dict | NilMap | AnyKeyMap):
            self.print_map(value, verb, depth)
        elif isinstance(value, list | NilList):
            self.print_list(value, verb, depth)
        elif isinstance(value, GoTime):
            self.print_time_struct(value, verb, depth)
        else:
            raise TypeError(f"not a Go value: {type(value).__name__}")

    def print_time_struct(self, value: GoTime, verb: str, depth: int) -> None:
        """A ``time.Time`` under a verb its ``String`` does not serve: ``{wall ext loc}``."""
        wall, ext, utc = time_fields(value)
        self.out.append("{")
        self.print_value(Uint64(wall), verb, depth + 1)
        self.out.append(" ")
        self.print_value(Int64(ext), verb, depth + 1)
        self.out.append(" ")
        address = 0 if utc else _FAKE_ADDRESS
        if verb == "v" and utc:
            self.pad(NIL_ANGLE)
        elif verb in "vp":
            self.fmt_0x64(address, leading_0x=not self.flags.sharp)
        elif verb in "bodxX":
            self.fmt_integer(address, False, verb)
        else:
            self.erroring = True
            self.out.append("%!" + verb + "(*time.Location=")
            self.pad(NIL_ANGLE if utc else f"0x{address:x}")
            self.out.append(")")
            self.erroring = False
        self.out.append("}")

    def print_element(self, element: Any, verb: str, depth: int) -> None:
        """An ``interface {}`` element of a container."""
        if element is None:
            self.out.append(INTERFACE_TYPE + "(nil)" if self.flags.sharp_v else NIL_ANGLE)
        else:
            self.print_value(element, verb, depth + 1)

    def print_map(self, value: dict[str, Any] | NilMap | AnyKeyMap, verb: str, depth: int) -> None:
        sharp_v = self.flags.sharp_v
        if sharp_v:
            self.out.append(type_name(value))
            if isinstance(value, NilMap):
                self.out.append("(nil)")
                return
            self.out.append("{")
        else:
            self.out.append("map[")
        for i, (key, item) in enumerate(map_items(value)):
            if i > 0:
                self.out.append(", " if sharp_v else " ")
            if isinstance(value, AnyKeyMap):
                self.print_element(key, verb, depth + 1)
            else:
                self.print_value(key, verb, depth + 1)
            self.out.append(":")
            self.print_element(item, verb, depth + 1)
        self.out.append("}" if sharp_v else "]")

    def print_list(self, value: list[Any] | NilList, verb: str, depth: int) -> None:
        sharp_v = self.flags.sharp_v
        if sharp_v:
            self.out.append(type_name(value))
            if isinstance(value, NilList):
                self.out.append("(nil)")
                return
            self.out.append("{")
        else:
            self.out.append("[")
        for i, item in enumerate(value if isinstance(value, list) else []):
            if i > 0:
                self.out.append(", " if sharp_v else " ")
            self.print_element(item, verb, depth + 1)
        self.out.append("}" if sharp_v else "]")

    # --- printf ------------------------------------------------------------------

    def do_printf(self, format_text: str, args: list[Any]) -> None:
        _Printf(self, format_text, args).run()

    def do_print(self, args: list[Any]) -> None:
        previous_string = False
        for i, arg in enumerate(args):
            is_string = isinstance(arg, str)
            if i > 0 and not is_string and not previous_string:
                self.out.append(" ")
            self.print_arg(arg, "v")
            previous_string = is_string

    def do_println(self, args: list[Any]) -> None:
        for i, arg in enumerate(args):
            if i > 0:
                self.out.append(" ")
            self.print_arg(arg, "v")
        self.out.append("\n")


class _Printf:
    """Go's ``doPrintf`` loop over one format string."""

    def __init__(self, printer: _Printer, format_text: str, args: list[Any]) -> None:
        self.p = printer
        self.format = format_text
        self.args = args
        self.arg_num = 0
        self.reordered = False
        self.good_arg_num = True

    def parse_number(self, i: int) -> tuple[int, bool, int]:
        text, end = self.format, len(self.format)
        if i >= end:
            return 0, False, end
        number, found = 0, False
        while i < end and "0" <= text[i] <= "9":
            if number > _MAX_WIDTH or number < -_MAX_WIDTH:
                return 0, False, end
            number = number * 10 + ord(text[i]) - 0x30
            found = True
            i += 1
        return number, found, i

    def arg_number(self, i: int) -> tuple[int, bool]:
        """Handle an explicit ``[n]`` index; returns (new i, found)."""
        text = self.format
        if i >= len(text) or text[i] != "[":
            return i, False
        self.reordered = True
        index, width, ok = self.parse_arg_index(text[i:])
        if ok and 0 <= index < len(self.args):
            self.arg_num = index
            return i + width, True
        self.good_arg_num = False
        return i + width, ok

    def parse_arg_index(self, text: str) -> tuple[int, int, bool]:
        if len(text) < 3:
            return 0, 1, False
        close = text.find("]", 1)
        if close < 0:
            return 0, 1, False
        number, found, after = _Printf(self.p, text, []).parse_number(1)
        if not found or after != close:
            return 0, close + 1, False
        return number - 1, close + 1, True

    def int_from_arg(self) -> tuple[int, bool]:
        number, is_int = 0, False
        if self.arg_num < len(self.args):
            arg = self.args[self.arg_num]
            if isinstance(arg, int) and not isinstance(arg, bool):
                number, is_int = int(arg), True
            self.arg_num += 1
            if number > _MAX_WIDTH or number < -_MAX_WIDTH:
                number, is_int = 0, False
        return number, is_int

    def run(self) -> None:
        p, text, end = self.p, self.format, len(self.format)
        flags = p.flags
        after_index = False
        i = 0
        while i < end:
            self.good_arg_num = True
            start = i
            i = text.find("%", i)
            if i < 0:
                i = end
            if i > start:
                p.out.append(text[start:i])
            if i >= end:
                break
            i += 1
            flags.clear()
            simple, i = self.parse_flags(i)
            if simple:
                continue
            i, after_index = self.arg_number(i)
            if i < end and text[i] == "*":
                i += 1
                flags.wid, flags.wid_present = self.int_from_arg()
                if not flags.wid_present:
                    p.out.append("%!(BADWIDTH)")
                if flags.wid < 0:
                    flags.wid = -flags.wid
                    flags.minus = True
                    flags.zero = False
                after_index = False
            else:
                flags.wid, flags.wid_present, i = self.parse_number(i)
                if after_index and flags.wid_present:
                    self.good_arg_num = False
            if i + 1 < end and text[i] == ".":
                i += 1
                if after_index:
                    self.good_arg_num = False
                i, after_index = self.arg_number(i)
                if i < end and text[i] == "*":
                    i += 1
                    flags.prec, flags.prec_present = self.int_from_arg()
                    if flags.prec < 0:
                        flags.prec, flags.prec_present = 0, False
                    if not flags.prec_present:
                        p.out.append("%!(BADPREC)")
                    after_index = False
                else:
                    flags.prec, flags.prec_present, i = self.parse_number(i)
                    if not flags.prec_present:
                        flags.prec, flags.prec_present = 0, True
            if not after_index:
                i, after_index = self.arg_number(i)
            if i >= end:
                p.out.append("%!(NOVERB)")
                break
            verb = text[i]
            if escaped_byte(verb) is not None:
                verb = chr(RUNE_ERROR)
            i += 1
            self.print_verb(verb)
        self.report_extra()

    def parse_flags(self, i: int) -> tuple[bool, int]:
        """Read flags; a simple ``%[flags]verb`` is printed at once (returns True)."""
        p, text, end = self.p, self.format, len(self.format)
        flags = p.flags
        while i < end:
            char = text[i]
            if char == "#":
                flags.sharp = True
            elif char == "0":
                flags.zero = not flags.minus
            elif char == "+":
                flags.plus = True
            elif char == "-":
                flags.minus = True
                flags.zero = False
            elif char == " ":
                flags.space = True
            else:
                if "a" <= char <= "z" and self.arg_num < len(self.args):
                    if char == "v":
                        flags.sharp_v, flags.sharp = flags.sharp, False
                        flags.plus_v, flags.plus = flags.plus, False
                    p.print_arg(self.args[self.arg_num], char)
                    self.arg_num += 1
                    return True, i + 1
                return False, i
            i += 1
        return False, i

    def print_verb(self, verb: str) -> None:
        p, flags = self.p, self.p.flags
        if verb == "%":
            p.out.append("%")
        elif not self.good_arg_num:
            p.out.append("%!" + verb + "(BADINDEX)")
        elif self.arg_num >= len(self.args):
            p.out.append("%!" + verb + "(MISSING)")
        else:
            if verb == "v":
                flags.sharp_v, flags.sharp = flags.sharp, False
                flags.plus_v, flags.plus = flags.plus, False
            p.print_arg(self.args[self.arg_num], verb)
            self.arg_num += 1

    def report_extra(self) -> None:
        p = self.p
        if self.reordered or self.arg_num >= len(self.args):
            return
        p.flags.clear()
        p.out.append("%!(EXTRA ")
        for i, arg in enumerate(self.args[self.arg_num :]):
            if i > 0:
                p.out.append(", ")
            if arg is None:
                p.out.append(NIL_ANGLE)
            else:
                p.out.append(type_name(arg) + "=")
                p.print_arg(arg, "v")
        p.out.append(")")


def _to_base(value: int, base: int, digits: str) -> str:
    if value == 0:
        return "0"
    out = []
    while value > 0:
        value, digit = divmod(value, base)
        out.append(digits[digit])
    return "".join(reversed(out))


def _keep_point(number: str, verb: str, prec: int) -> str:
    """The ``#`` flag: force a decimal point and keep trailing zeros."""
    digits = 0
    if verb in "vgGx":
        digits = 6 if prec == -1 else prec
    tail = ""
    has_point = False
    saw_nonzero = False
    body_end = len(number)
    for i in range(1, len(number)):
        char = number[i]
        if char == ".":
            has_point = True
        elif char in "pP" or (char in "eE" and verb not in "xX"):
            tail = number[i:]
            body_end = i
            break
        else:
            if char != "0":
                saw_nonzero = True
            if saw_nonzero:
                digits -= 1
    body = number[:body_end]
    if not has_point:
        if len(body) == 2 and body[1] == "0":
            digits -= 1
        body += "."
    if digits > 0:
        body += "0" * digits
    return body + tail


def map_items(value: dict[str, Any] | NilMap | AnyKeyMap) -> list[tuple[Any, Any]]:
    """A map's entries in Go's printing and ranging order (``fmtsort``)."""
    if isinstance(value, NilMap):
        return []
    if isinstance(value, dict):
        return [(key, value[key]) for key in sorted_strings(value)]
    return sorted(value.items, key=lambda pair: _any_key_order(pair[0]))


def _any_key_order(key: Any) -> tuple[Any, ...]:
    """Order for ``map[any]any`` keys: Go orders by type (by address, unknowable),
    then value; we group by type name, then value."""
    if key is None:
        return (0, "", 0)
    name = type_name(key)
    if isinstance(key, str):
        return (1, name, go_bytes(key))
    if isinstance(key, float) and math.isnan(key):
        return (1, name, -math.inf)
    if isinstance(key, bool | int | float):
        return (1, name, key)
    return (1, name, 0)


def sprint(args: list[Any]) -> str:
    """``fmt.Sprint``."""
    printer = _Printer()
    printer.do_print(args)
    return printer.text()


def sprintln(args: list[Any]) -> str:
    """``fmt.Sprintln``."""
    printer = _Printer()
    printer.do_println(args)
    return printer.text()


def sprintf(format_text: str, args: list[Any]) -> str:
    """``fmt.Sprintf``."""
    printer = _Printer()
    printer.do_printf(format_text, args)
    return printer.text()


def format_value(value: Any) -> str:
    """``fmt.Sprint(value)`` of one value: the ``%v`` form (S76)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return format_float(value, "g", -1)
    return sprint([value])
