"""The escapers behind the ``html``, ``js`` and ``urlquery`` template builtins."""

from __future__ import annotations

from transpiler.golang.runes import escaped_byte, go_bytes, is_print

_HTML = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
_JS = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "<": "\\u003C",
    ">": "\\u003E",
    "&": "\\u0026",
    "=": "\\u003D",
}
_URL_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def html_escape(text: str) -> str:
    """``template.HTMLEscapeString``."""
    if not any(c in _HTML for c in text):
        return text
    return "".join(_HTML.get(c, c) for c in text)


def js_escape(text: str) -> str:
    """``template.JSEscapeString``."""
    out = []
    for char in text:
        code = ord(char)
        if char in _JS:
            out.append(_JS[char])
        elif code < 0x20:
            out.append(f"\\u00{code:02X}")
        elif code < 0x80 or escaped_byte(char) is not None or is_print(code):
            out.append(char)
        else:
            out.append(f"\\u{code:04X}")
    return "".join(out)


def url_query_escape(text: str) -> str:
    """``url.QueryEscape``."""
    out = []
    for byte in go_bytes(text):
        if byte in _URL_SAFE:
            out.append(chr(byte))
        elif byte == 0x20:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)
