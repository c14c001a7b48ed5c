"""JSON key order, the one freedom ``rust-engine``'s variant gives a script's encoded text.

starlark-rust's ``json.encode`` writes an object's keys in the order the script
added them, which the model cannot know: a dict the script builds (a forEach's
iteration records, say) holds its keys in the script's order. So where the
model's run wrote a text as starlark-rust's ``json.encode`` (the trace's
``rust_json_texts``), a script's text that is starlark-rust's encoding of the
same value with the keys of its objects in another order is read as the
model's text; every other character, escape and number must still be the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.sim.trace import Trace, plain_json
from transpiler.starlark_runtime.rust_text import rust_json

#: The traces :func:`in_model_key_order` made, by the two it was given (held, so their ids
#: are not reused meanwhile): the relation asks for one pair many times in a search.
_REORDERED: dict[tuple[int, int], tuple[Trace, Trace, Trace]] = {}
_REORDERED_KEPT = 256


def in_model_key_order(model: Trace, script: Trace) -> Trace:
    """``script`` with each text that is one of the model's ``rust_json_texts`` but for the
    order of object keys written as the model's text (``script`` itself when none is)."""
    if not model.rust_json_texts:
        return script
    key = (id(model), id(script))
    held = _REORDERED.get(key)
    if held is not None and held[0] is model and held[1] is script:
        return held[2]
    reordered = _rewritten(model, script)
    if len(_REORDERED) >= _REORDERED_KEPT:
        _REORDERED.pop(next(iter(_REORDERED)), None)
    _REORDERED[key] = (model, script, reordered)
    return reordered


def _rewritten(model: Trace, script: Trace) -> Trace:
    texts = sorted(model.rust_json_texts, key=len, reverse=True)
    calls = [replace(call, args=_leaves(call.args, texts)) for call in script.calls]
    result = dict(script.client_result)
    structured = result.get("structuredContent")
    if structured is not None:
        reordered = _leaves(structured, texts)
        result["structuredContent"] = reordered
        content = result.get("content")
        if content and _marshalled(structured) == content[0].get("text"):
            result["content"] = [{**content[0], "text": _marshalled(reordered)}, *content[1:]]
    elicitations = [
        replace(asked, message=_text(asked.message, texts)) for asked in script.elicitations
    ]
    return replace(script, calls=calls, client_result=result, elicitations=elicitations)


def _marshalled(value: Any) -> str | None:
    try:
        return marshal(plain_json(value))
    except JSONEncodeError:
        return None


def _leaves(value: Any, texts: list[str]) -> Any:
    """``value`` with every string in it passed through :func:`_text`."""
    if isinstance(value, str):
        return _text(value, texts)
    if isinstance(value, dict):
        return {key: _leaves(item, texts) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_leaves(item, texts) for item in value]
    return value


def _text(text: str, texts: Iterable[str]) -> str:
    """``text`` with each stretch that is a model text but for key order made that text."""
    for model in texts:
        start = text.find(model[0])
        while 0 <= start <= len(text) - len(model):
            window = text[start : start + len(model)]
            if window != model and _reordered(window, model):
                text = text[:start] + model + text[start + len(model) :]
                start += len(model)
            else:
                start += 1
            start = text.find(model[0], start)
    return text


def _reordered(window: str, model: str) -> bool:
    """Whether ``window`` is starlark-rust's ``json.encode`` of the value ``model`` encodes,
    its objects' keys in some order."""
    if window[-1] != model[-1] or sorted(window) != sorted(model):
        return False
    try:
        written = json.loads(window)
    except ValueError:
        return False
    return rust_json(written) == window and _sorted(written) == _sorted(json.loads(model))


def _sorted(value: Any) -> str:
    """The value's text with every object's keys sorted (an integer apart from a float)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
