"""Does a JSON Schema compile under gojsonschema v1.2.0, and if not, with which message?

vMCP compiles ``parameters`` and elicitation ``schema`` with
``gojsonschema.Validate(schema, "{}")`` and keeps only compile errors (S14,
S19). This module walks a schema in the order gojsonschema's ``parseSchema``
does and returns its first error text.

Known approximations: Go's RE2 syntax is checked through Python's ``re``
(lookarounds and backreferences are rejected, RE2-only classes accepted);
several failing keys in one map report the first in source order where Go's
map order is random; a ``$ref`` with a URL scheme, which vMCP would fetch
over the network while compiling, is assumed to resolve.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Final

from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.golang.values import GoTime, GoValue

_DRAFT4: Final = 4
_DRAFT6: Final = 6
_DRAFT7: Final = 7
_HYBRID: Final = 2**31 - 1
_DRAFT_URLS: Final = {
    "http://json-schema.org/draft-04/schema": _DRAFT4,
    "http://json-schema.org/draft-06/schema": _DRAFT6,
    "http://json-schema.org/draft-07/schema": _DRAFT7,
}
_JSON_TYPES: Final = ("array", "boolean", "integer", "number", "null", "object", "string")
_INT64: Final = 2**63
_UNSUPPORTED_REGEX: Final = re.compile(r"\(\?[=!]|\(\?<[=!]|\(\?>|\(\?\(|\(\?P=|\\[1-9]|\\Z")


class _CompileError(Exception):
    """gojsonschema's error, with its text."""


def _invalid_type(expected: str, given: str) -> _CompileError:
    return _CompileError(f"Invalid type. Expected: {expected}, given: {given}")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value: object) -> int | None:
    """gojsonschema ``mustBeInteger``: an integral JSON number that fits int64."""
    if isinstance(value, bool) or not _is_number(value):
        return None
    if isinstance(value, float):
        if not value.is_integer() or abs(value) >= 1e21:
            return None
        value = int(value)
    assert isinstance(value, int)
    return value if -_INT64 <= value < _INT64 else None


def _canonical(value: object) -> str:
    """The JSON gojsonschema compares ``enum`` items by (numbers re-read as float64)."""

    def normalise(item: object) -> object:
        if isinstance(item, bool) or item is None or isinstance(item, str):
            return item
        if _is_number(item):
            return float(item)  # type: ignore[arg-type]
        if isinstance(item, GoTime):
            return item.value.isoformat()
        if isinstance(item, Mapping):
            return {str(key): normalise(val) for key, val in item.items()}
        if isinstance(item, list):
            return [normalise(val) for val in item]
        return str(item)

    return json.dumps(normalise(value), sort_keys=True, separators=(",", ":"))


def go_regexp_compiles(pattern: str) -> bool:
    """Whether Go's ``regexp.Compile`` (RE2 syntax) accepts ``pattern`` (approximation)."""
    if _UNSUPPORTED_REGEX.search(pattern):
        return False
    translated = re.sub(r"\\p\{?\w+\}?|\\P\{?\w+\}?", ".", pattern)
    translated = re.sub(r"\[:\^?\w+:\]", "a", translated)
    translated = translated.replace("\\z", "\\Z")
    try:
        re.compile(translated)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


def _pointer(document: object, fragment: str) -> object:
    """Resolve a JSON pointer fragment the way gojsonpointer does."""
    if fragment == "":
        return document
    if not fragment.startswith("/"):
        raise _CompileError('JSON pointer must be empty or start with a "/"')
    current = document
    for raw in fragment[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, Mapping):
            if token not in current:
                raise _CompileError(f"Object has no key '{token}'")
            current = current[token]
        elif isinstance(current, list):
            if not token.isdigit():
                raise _CompileError(f"Invalid array index '{token}'")
            index = int(token)
            if index >= len(current):
                raise _CompileError(f"Out of bound array[0,{len(current)}] index '{index}'")
            current = current[index]
        else:
            raise _CompileError(f"Invalid token reference '{token}'")
    return current


class _Compiler:
    """Walks a schema like gojsonschema's ``Schema.parseSchema``."""

    def __init__(self, root: object) -> None:
        self.root = root
        self.references: set[str] = set()

    def schema(self, node: object, draft: int) -> None:
        if draft >= _DRAFT6 and isinstance(node, bool):
            return
        if not isinstance(node, Mapping):
            raise _CompileError("Expected: valid schema, given: Invalid JSON")
        key_id = "id" if draft == _DRAFT4 or (draft == _HYBRID and "id" in node) else "$id"
        if key_id in node and not isinstance(node[key_id], str):
            raise _invalid_type("string", key_id)
        if "definitions" in node:
            self._definitions(node["definitions"], draft)
        for key in ("title", "description"):
            if key in node and not isinstance(node[key], str):
                raise _invalid_type("string", key)
        if "$ref" in node:
            reference = node["$ref"]
            if not isinstance(reference, str):
                raise _invalid_type("string", "$ref")
            if reference not in self.references and self._reference(reference, draft):
                return
        self._keywords(node, draft)

    def _definitions(self, definitions: object, draft: int) -> None:
        if not isinstance(definitions, Mapping):
            raise _invalid_type("array of schemas", "definitions")
        for value in definitions.values():
            if not (isinstance(value, (Mapping, bool))):
                raise _invalid_type("array of schemas", "definitions")
            self.schema(value, draft)

    def _reference(self, reference: str, draft: int) -> bool:
        """Parse a first-seen ``$ref`` target; ``True`` when siblings are then skipped."""
        self.references.add(reference)
        if not reference.startswith("#"):
            if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", reference):
                return True
            raise _CompileError(f"Reference {reference} must be canonical")
        target = _pointer(self.root, reference[1:])
        if not (isinstance(target, (Mapping, bool))):
            raise _CompileError("valid schema must be of type object")
        self.schema(target, draft)
        return True

    def _keywords(self, node: Mapping[str, object], draft: int) -> None:
        self._types(node)
        self._object_schemas(node, draft)
        self._numbers(node, draft)
        self._counts(node, "minLength", "maxLength")
        if "pattern" in node:
            if not isinstance(node["pattern"], str):
                raise _CompileError("pattern must be of a string")
            if not go_regexp_compiles(node["pattern"]):
                raise _CompileError("pattern must be a valid regex")
        if "format" in node and not isinstance(node["format"], str):
            raise _CompileError("format must be of type string")
        self._counts(
            node, "minProperties", "maxProperties", message="{0} cannot be greater than {1}"
        )
        self._required(node)
        self._counts(node, "minItems", "maxItems", compare=False)
        if "uniqueItems" in node and not isinstance(node["uniqueItems"], bool):
            raise _CompileError("uniqueItems must be of a boolean")
        if "contains" in node and draft >= _DRAFT6:
            self.schema(node["contains"], draft)
        self._enum(node)
        self._combinators(node, draft)

    def _types(self, node: Mapping[str, object]) -> None:
        if "type" not in node:
            return
        value = node["type"]
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list):
            raise _invalid_type("string/array of strings", "type")
        seen: list[str] = []
        for name in names:
            if not isinstance(name, str):
                raise _invalid_type("string/array of strings", "type")
            if name not in _JSON_TYPES:
                raise _CompileError(
                    f"has a primitive type that is NOT VALID -- given: /{name}/ Expected valid "
                    f"values are:[{' '.join(_JSON_TYPES)}]"
                )
            if name in seen:
                raise _CompileError(f"{name} type is duplicated")
            seen.append(name)

    def _object_schemas(self, node: Mapping[str, object], draft: int) -> None:
        if "properties" in node:
            properties = node["properties"]
            if not isinstance(properties, Mapping):
                raise _CompileError("properties must be of type object")
            for value in properties.values():
                self.schema(value, draft)
        self._schema_or_bool(node, "additionalProperties", draft, "boolean/valid schema")
        if "patternProperties" in node:
            patterns = node["patternProperties"]
            if not isinstance(patterns, Mapping):
                raise _invalid_type("valid schema", "patternProperties")
            for pattern, value in patterns.items():
                if not go_regexp_compiles(str(pattern)):
                    raise _CompileError(f"Invalid regex pattern '{pattern}'")
                self.schema(value, draft)
        if "propertyNames" in node and draft >= _DRAFT6:
            names = node["propertyNames"]
            if not (isinstance(names, (Mapping, bool))):
                raise _invalid_type("valid schema", "patternProperties")
            self.schema(names, draft)
        if "dependencies" in node:
            self._dependencies(node["dependencies"], draft)
        if "items" in node:
            items = node["items"]
            for item in items if isinstance(items, list) else [items]:
                if not (isinstance(item, (Mapping, bool))):
                    raise _invalid_type("valid schema/array of schemas", "items")
                self.schema(item, draft)
        self._schema_or_bool(node, "additionalItems", draft, "boolean/valid schema")

    def _schema_or_bool(
        self, node: Mapping[str, object], key: str, draft: int, expected: str
    ) -> None:
        if key not in node or isinstance(node[key], bool):
            return
        if not isinstance(node[key], Mapping):
            raise _invalid_type(expected, key)
        self.schema(node[key], draft)

    def _dependencies(self, dependencies: object, draft: int) -> None:
        if not isinstance(dependencies, Mapping):
            raise _CompileError("dependencies must be of type object")
        wrong = _CompileError("dependency must be of type schema or array of strings")
        for value in dependencies.values():
            if isinstance(value, list):
                if not all(isinstance(item, str) for item in value):
                    raise wrong
            elif isinstance(value, (Mapping, bool)):
                self.schema(value, draft)
            else:
                raise wrong

    def _numbers(self, node: Mapping[str, object], draft: int) -> None:
        if "multipleOf" in node:
            if not _is_number(node["multipleOf"]) or math.isnan(float(node["multipleOf"])):  # type: ignore[arg-type]
                raise _invalid_type("number", "multipleOf")
            if float(node["multipleOf"]) <= 0:  # type: ignore[arg-type]
                raise _CompileError("multipleOf must be strictly greater than 0")
        for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if bound in node and not _is_number(node[bound]):
                raise _CompileError(f"{bound} must be of a number")
            if exclusive not in node:
                continue
            value = node[exclusive]
            if draft == _DRAFT4 and not isinstance(value, bool):
                raise _invalid_type("boolean", exclusive)
            if draft in (_DRAFT6, _DRAFT7) and not _is_number(value):
                raise _invalid_type("number", exclusive)
            if draft == _HYBRID and not isinstance(value, bool) and not _is_number(value):
                raise _invalid_type("boolean/number", exclusive)
            if isinstance(value, bool) and bound not in node:
                raise _CompileError(f"{exclusive} cannot be used without {bound}")

    def _counts(
        self,
        node: Mapping[str, object],
        low: str,
        high: str,
        *,
        compare: bool = True,
        message: str = "{0} cannot be greater than {1}",
    ) -> None:
        values: dict[str, int] = {}
        for key in (low, high):
            if key not in node:
                continue
            value = _integer(node[key])
            if value is None:
                raise _CompileError(f"{key} must be of an integer")
            if value < 0:
                raise _CompileError(f"{key} must be greater than or equal to 0")
            values[key] = value
        if compare and low in values and high in values and values[low] > values[high]:
            raise _CompileError(message.format(low, high))

    def _required(self, node: Mapping[str, object]) -> None:
        if "required" not in node:
            return
        required = node["required"]
        if not isinstance(required, list):
            raise _CompileError("required must be of an array")
        seen: set[str] = set()
        for item in required:
            if not isinstance(item, str):
                raise _CompileError("required items must be string")
            if item in seen:
                raise _CompileError("required items must be unique")
            seen.add(item)

    def _enum(self, node: Mapping[str, object]) -> None:
        if "enum" not in node:
            return
        values = node["enum"]
        if not isinstance(values, list):
            raise _CompileError("enum must be of an array")
        seen: set[str] = set()
        for value in values:
            text = _canonical(value)
            if text in seen:
                raise _CompileError("enum items must be unique")
            seen.add(text)

    def _combinators(self, node: Mapping[str, object], draft: int) -> None:
        for key, shown in (("oneOf", "oneOf"), ("anyOf", "anyOf"), ("allOf", "anyOf")):
            if key not in node:
                continue
            if not isinstance(node[key], list):
                raise _CompileError(f"{shown} must be of an array")
            for value in node[key]:  # type: ignore[attr-defined]
                self.schema(value, draft)
        keys = ("not", "if", "then", "else") if draft >= _DRAFT7 else ("not",)
        for key in keys:
            if key in node:
                if not (isinstance(node[key], (Mapping, bool))):
                    raise _CompileError(f"{key} must be of an object")
                self.schema(node[key], draft)


def schema_compile_error(schema: Mapping[str, object]) -> str | None:
    """gojsonschema's compile error for ``schema`` (already JSON-marshallable), or ``None``."""
    draft = _HYBRID
    if "$schema" in schema:
        url = schema["$schema"]
        if not isinstance(url, str):
            return "$schema must be of type string"
        draft = _DRAFT_URLS.get(url.removesuffix("#"), _HYBRID)
    try:
        _Compiler(schema).schema(schema, draft)
    except _CompileError as error:
        return str(error)
    except RecursionError:
        return "schema nests too deeply to check (transpiler limit)"
    return None


def json_schema_problem(schema: Mapping[str, GoValue]) -> str | None:
    """``failed to marshal: ...``, ``invalid JSON Schema: invalid JSON Schema: ...`` or ``None``."""
    try:
        marshal(dict(schema))
    except JSONEncodeError as error:
        return f"failed to marshal: {error}"
    compile_error = schema_compile_error(schema)
    if compile_error is None:
        return None
    return f"invalid JSON Schema: invalid JSON Schema: {compile_error}"


# -- steps ------------------------------------------------------------------
