"""The tokenizer of Go text/template (``text/template/parse/lex.go``, Go 1.26).

A pull lexer: :meth:`Lexer.next_item` runs state functions until one emits an
item. Trim markers are handled here; the parser never sees them. Item
positions are byte offsets, as in Go.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from itertools import accumulate
from typing import NamedTuple

from transpiler.golang.fmt import sprintf
from transpiler.golang.runes import RUNE_ERROR, escaped_byte, is_digit, is_letter, is_print
from transpiler.golang.strconv import quote

LEFT_DELIM = "{{"
RIGHT_DELIM = "}}"
LEFT_COMMENT = "/*"
RIGHT_COMMENT = "*/"
SPACE_CHARS = " \t\r\n"
EOF = -1


class ItemType(IntEnum):
    """Kinds of tokens; keywords sort after KEYWORD."""

    ERROR = 0
    BOOL = 1
    CHAR = 2
    CHAR_CONSTANT = 3
    COMMENT = 4
    COMPLEX = 5
    ASSIGN = 6
    DECLARE = 7
    EOF = 8
    FIELD = 9
    IDENTIFIER = 10
    LEFT_DELIM = 11
    LEFT_PAREN = 12
    NUMBER = 13
    PIPE = 14
    RAW_STRING = 15
    RIGHT_DELIM = 16
    RIGHT_PAREN = 17
    SPACE = 18
    STRING = 19
    TEXT = 20
    VARIABLE = 21
    KEYWORD = 22
    BLOCK = 23
    BREAK = 24
    CONTINUE = 25
    DOT = 26
    DEFINE = 27
    ELSE = 28
    END = 29
    IF = 30
    NIL = 31
    RANGE = 32
    TEMPLATE = 33
    WITH = 34


KEYWORDS = {
    ".": ItemType.DOT,
    "block": ItemType.BLOCK,
    "break": ItemType.BREAK,
    "continue": ItemType.CONTINUE,
    "define": ItemType.DEFINE,
    "else": ItemType.ELSE,
    "end": ItemType.END,
    "if": ItemType.IF,
    "range": ItemType.RANGE,
    "nil": ItemType.NIL,
    "template": ItemType.TEMPLATE,
    "with": ItemType.WITH,
}


class Item(NamedTuple):
    """A token: type, byte offset, text, line where it starts."""

    type: ItemType
    pos: int
    val: str
    line: int

    def describe(self) -> str:
        """Go's ``item.String()`` as used in parse errors."""
        if self.type == ItemType.EOF:
            return "EOF"
        if self.type == ItemType.ERROR:
            return self.val
        if self.type > ItemType.KEYWORD:
            return f"<{self.val}>"
        if len(self.val) > 10:
            return sprintf("%.10q...", [self.val])
        return quote(self.val)


def is_space(rune: int) -> bool:
    """Go's template ``isSpace``: ASCII space, tab, CR, LF."""
    return rune in (0x20, 0x09, 0x0D, 0x0A)


def is_alphanumeric(rune: int) -> bool:
    """Letter, digit or underscore (Unicode)."""
    return rune == 0x5F or is_letter(rune) or is_digit(rune)


def _has_left_trim_marker(text: str, index: int) -> bool:
    return len(text) >= index + 2 and text[index] == "-" and text[index + 1] in SPACE_CHARS


def _has_right_trim_marker(text: str, index: int) -> bool:
    return len(text) >= index + 2 and text[index] in SPACE_CHARS and text[index + 1] == "-"


def _byte_size(char: str) -> int:
    if ord(char) < 0x80 or escaped_byte(char) is not None:
        return 1
    return len(char.encode("utf-8", "surrogatepass"))


_State = Callable[[], "_State | None"]


class Lexer:
    """Scans one template text; positions are character indexes internally."""

    def __init__(self, text: str, break_ok: bool = True, continue_ok: bool = True) -> None:
        self.input = text
        self.break_ok = break_ok
        self.continue_ok = continue_ok
        self.pos = 0
        self.start = 0
        self.at_eof = False
        self.paren_depth = 0
        self.line = 1
        self.start_line = 1
        self.inside_action = False
        self.item = Item(ItemType.EOF, 0, "EOF", 1)
        self._byte_offsets: list[int] | None = None
        if not text.isascii():
            self._byte_offsets = [0, *accumulate(_byte_size(c) for c in text)]

    def byte_offset(self, index: int) -> int:
        """The byte offset of a character index."""
        if self._byte_offsets is None:
            return index
        return self._byte_offsets[min(index, len(self._byte_offsets) - 1)]

    # --- reading -----------------------------------------------------------------

    def next(self) -> int:
        if self.pos >= len(self.input):
            self.at_eof = True
            return EOF
        char = self.input[self.pos]
        self.pos += 1
        if char == "\n":
            self.line += 1
        if escaped_byte(char) is not None or 0xD800 <= ord(char) <= 0xDFFF:
            return RUNE_ERROR
        return ord(char)

    def peek(self) -> int:
        rune = self.next()
        self.backup()
        return rune

    def backup(self) -> None:
        if not self.at_eof and self.pos > 0:
            self.pos -= 1
            if self.input[self.pos] == "\n":
                self.line -= 1

    def this_item(self, item_type: ItemType) -> Item:
        item = Item(
            item_type,
            self.byte_offset(self.start),
            self.input[self.start : self.pos],
            self.start_line,
        )
        self.start = self.pos
        self.start_line = self.line
        return item

    def emit(self, item_type: ItemType) -> None:
        self.item = self.this_item(item_type)

    def ignore(self) -> None:
        self.line += self.input.count("\n", self.start, self.pos)
        self.start = self.pos
        self.start_line = self.line

    def accept(self, valid: str) -> bool:
        rune = self.next()
        if rune != EOF and chr(rune) in valid:
            return True
        self.backup()
        return False

    def accept_run(self, valid: str) -> None:
        while True:
            rune = self.next()
            if rune == EOF or chr(rune) not in valid:
                break
        self.backup()

    def error(self, message: str) -> None:
        self.item = Item(ItemType.ERROR, self.byte_offset(self.start), message, self.start_line)
        self.start = 0
        self.pos = 0
        self.input = ""
        self._byte_offsets = None

    def next_item(self) -> Item:
        """The next token (EOF forever once the input is done or broken)."""
        self.item = Item(ItemType.EOF, self.byte_offset(self.pos), "EOF", self.start_line)
        state: _State | None = self.lex_inside_action if self.inside_action else self.lex_text
        while state is not None:
            state = state()
        return self.item

    # --- states ------------------------------------------------------------------

    def lex_text(self) -> _State | None:
        found = self.input.find(LEFT_DELIM, self.pos)
        if found >= 0:
            if found > self.pos:
                self.pos = found
                trim = 0
                if _has_left_trim_marker(self.input, found + len(LEFT_DELIM)):
                    text = self.input[self.start : self.pos]
                    trim = len(text) - len(text.rstrip(SPACE_CHARS))
                self.pos -= trim
                self.line += self.input.count("\n", self.start, self.pos)
                item = self.this_item(ItemType.TEXT)
                self.pos += trim
                self.ignore()
                if item.val:
                    self.item = item
                    return None
            return self.lex_left_delim
        self.pos = len(self.input)
        if self.pos > self.start:
            self.line += self.input.count("\n", self.start, self.pos)
            self.emit(ItemType.TEXT)
            return None
        self.emit(ItemType.EOF)
        return None

    def at_right_delim(self) -> tuple[bool, bool]:
        text = self.input
        if _has_right_trim_marker(text, self.pos) and text.startswith(RIGHT_DELIM, self.pos + 2):
            return True, True
        if text.startswith(RIGHT_DELIM, self.pos):
            return True, False
        return False, False

    def lex_left_delim(self) -> _State | None:
        self.pos += len(LEFT_DELIM)
        trim_space = _has_left_trim_marker(self.input, self.pos)
        after_marker = 2 if trim_space else 0
        if self.input.startswith(LEFT_COMMENT, self.pos + after_marker):
            self.pos += after_marker
            self.ignore()
            return self.lex_comment
        item = self.this_item(ItemType.LEFT_DELIM)
        self.inside_action = True
        self.pos += after_marker
        self.ignore()
        self.paren_depth = 0
        self.item = item
        return None

    def lex_comment(self) -> _State | None:
        self.pos += len(LEFT_COMMENT)
        found = self.input.find(RIGHT_COMMENT, self.pos)
        if found < 0:
            self.error("unclosed comment")
            return None
        self.pos = found + len(RIGHT_COMMENT)
        delim, trim_space = self.at_right_delim()
        if not delim:
            self.error("comment ends before closing delimiter")
            return None
        self.line += self.input.count("\n", self.start, self.pos)
        self.this_item(ItemType.COMMENT)
        if trim_space:
            self.pos += 2
        self.pos += len(RIGHT_DELIM)
        if trim_space:
            rest = self.input[self.pos :]
            self.pos += len(rest) - len(rest.lstrip(SPACE_CHARS))
        self.ignore()
        return self.lex_text

    def lex_right_delim(self) -> _State | None:
        _, trim_space = self.at_right_delim()
        if trim_space:
            self.pos += 2
            self.ignore()
        self.pos += len(RIGHT_DELIM)
        item = self.this_item(ItemType.RIGHT_DELIM)
        if trim_space:
            rest = self.input[self.pos :]
            self.pos += len(rest) - len(rest.lstrip(SPACE_CHARS))
            self.ignore()
        self.inside_action = False
        self.item = item
        return None

    def lex_inside_action(self) -> _State | None:
        delim, _ = self.at_right_delim()
        if delim:
            if self.paren_depth == 0:
                return self.lex_right_delim
            self.error("unclosed left paren")
            return None
        rune = self.next()
        if rune == EOF:
            self.error("unclosed action")
            return None
        if is_space(rune):
            self.backup()
            return self.lex_space
        simple = {0x3D: ItemType.ASSIGN, 0x7C: ItemType.PIPE}
        if rune in simple:
            self.emit(simple[rune])
            return None
        if rune == 0x3A:
            if self.next() != 0x3D:
                self.error("expected :=")
                return None
            self.emit(ItemType.DECLARE)
            return None
        quotes = {0x22: self.lex_quote, 0x60: self.lex_raw_quote, 0x27: self.lex_char}
        if rune in quotes:
            return quotes[rune]
        if rune == 0x24:
            return self.lex_variable
        if rune == 0x2E and self.pos < len(self.input) and not "0" <= self.input[self.pos] <= "9":
            return self.lex_field
        if rune in (0x2E, 0x2B, 0x2D) or 0x30 <= rune <= 0x39:
            self.backup()
            return self.lex_number
        if is_alphanumeric(rune):
            self.backup()
            return self.lex_identifier
        return self.lex_punctuation(rune)

    def lex_punctuation(self, rune: int) -> _State | None:
        if rune == 0x28:
            self.paren_depth += 1
            self.emit(ItemType.LEFT_PAREN)
        elif rune == 0x29:
            self.paren_depth -= 1
            if self.paren_depth < 0:
                self.error("unexpected right paren")
                return None
            self.emit(ItemType.RIGHT_PAREN)
        elif rune < 0x80 and is_print(rune):
            self.emit(ItemType.CHAR)
        else:
            self.error(sprintf("unrecognized character in action: %#U", [rune]))
        return None

    def lex_space(self) -> _State | None:
        spaces = 0
        while is_space(self.peek()):
            self.next()
            spaces += 1
        if _has_right_trim_marker(self.input, self.pos - 1) and self.input.startswith(
            RIGHT_DELIM, self.pos + 1
        ):
            self.backup()
            if spaces == 1:
                return self.lex_right_delim
        self.emit(ItemType.SPACE)
        return None

    def lex_identifier(self) -> _State | None:
        while True:
            rune = self.next()
            if is_alphanumeric(rune):
                continue
            self.backup()
            word = self.input[self.start : self.pos]
            if not self.at_terminator():
                self.error(sprintf("bad character %#U", [rune]))
                return None
            keyword = KEYWORDS.get(word)
            if keyword is not None and keyword > ItemType.KEYWORD:
                if (keyword == ItemType.BREAK and not self.break_ok) or (
                    keyword == ItemType.CONTINUE and not self.continue_ok
                ):
                    self.emit(ItemType.IDENTIFIER)
                else:
                    self.emit(keyword)
            elif word[0] == ".":
                self.emit(ItemType.FIELD)
            elif word in ("true", "false"):
                self.emit(ItemType.BOOL)
            else:
                self.emit(ItemType.IDENTIFIER)
            return None

    def lex_field(self) -> _State | None:
        return self.lex_field_or_variable(ItemType.FIELD)

    def lex_variable(self) -> _State | None:
        if self.at_terminator():
            self.emit(ItemType.VARIABLE)
            return None
        return self.lex_field_or_variable(ItemType.VARIABLE)

    def lex_field_or_variable(self, item_type: ItemType) -> _State | None:
        if self.at_terminator():
            self.emit(ItemType.VARIABLE if item_type == ItemType.VARIABLE else ItemType.DOT)
            return None
        while True:
            rune = self.next()
            if not is_alphanumeric(rune):
                self.backup()
                break
        if not self.at_terminator():
            self.error(sprintf("bad character %#U", [rune]))
            return None
        self.emit(item_type)
        return None

    def at_terminator(self) -> bool:
        rune = self.peek()
        if is_space(rune) or rune == EOF or chr(rune) in ".,|:)(":
            return True
        return self.input.startswith(RIGHT_DELIM, self.pos)

    def lex_char(self) -> _State | None:
        while True:
            rune = self.next()
            if rune == 0x5C:
                following = self.next()
                if following not in (EOF, 0x0A):
                    continue
                self.error("unterminated character constant")
                return None
            if rune in (EOF, 0x0A):
                self.error("unterminated character constant")
                return None
            if rune == 0x27:
                break
        self.emit(ItemType.CHAR_CONSTANT)
        return None

    def lex_number(self) -> _State | None:
        if not self.scan_number():
            self.error("bad number syntax: " + quote(self.input[self.start : self.pos]))
            return None
        sign = self.peek()
        if sign in (0x2B, 0x2D):
            if not self.scan_number() or self.input[self.pos - 1] != "i":
                self.error("bad number syntax: " + quote(self.input[self.start : self.pos]))
                return None
            self.emit(ItemType.COMPLEX)
            return None
        self.emit(ItemType.NUMBER)
        return None

    def scan_number(self) -> bool:
        self.accept("+-")
        digits = "0123456789_"
        if self.accept("0"):
            if self.accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif self.accept("oO"):
                digits = "01234567_"
            elif self.accept("bB"):
                digits = "01_"
        self.accept_run(digits)
        if self.accept("."):
            self.accept_run(digits)
        if len(digits) == 11 and self.accept("eE"):
            self.accept("+-")
            self.accept_run("0123456789_")
        if len(digits) == 23 and self.accept("pP"):
            self.accept("+-")
            self.accept_run("0123456789_")
        self.accept("i")
        if is_alphanumeric(self.peek()):
            self.next()
            return False
        return True

    def lex_quote(self) -> _State | None:
        while True:
            rune = self.next()
            if rune == 0x5C:
                following = self.next()
                if following not in (EOF, 0x0A):
                    continue
                self.error("unterminated quoted string")
                return None
            if rune in (EOF, 0x0A):
                self.error("unterminated quoted string")
                return None
            if rune == 0x22:
                break
        self.emit(ItemType.STRING)
        return None

    def lex_raw_quote(self) -> _State | None:
        while True:
            rune = self.next()
            if rune == EOF:
                self.error("unterminated raw quoted string")
                return None
            if rune == 0x60:
                break
        self.emit(ItemType.RAW_STRING)
        return None
